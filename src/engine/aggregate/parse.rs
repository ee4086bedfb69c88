//! Every aggregation form, parsed into one model ([`Aggregation`]).
//!
//! - NCA 0.1 (the seed): `nca_dimensions` + `nca_array` (JSON, or the
//!   single-quoted Python-literal style the seed's examples use);
//! - CFA-0.4: `cf_role = "cfa_variable"`, `cfa_dimensions` + `cfa_array`
//!   (the same JSON structure, `subarray` for `data`);
//! - CFA-0.6.2, CF-1.13 and cfdm 1.12.0-1.12.1's interim names:
//!   `aggregated_dimensions` + `aggregated_data` naming fragment array
//!   variables (`map`/`location`, `uris`/`file`, `identifiers`/`address`/
//!   `variable`, `unique_values`/`unique_value`, `format`).
//!
//! Whatever the form, the partitions end up on a grid: per master dimension
//! the boundaries of the partitions along it (`edges`), and one partition
//! per grid cell in C order. Building the grid is the validation: every
//! partition's location must be a cell, every cell must have exactly one
//! partition (no overlap, no gap), and the cells must tile the master shape.
//! Nothing here trusts a size: counts are checked before they allocate.

use crate::engine::error::*;
use crate::engine::{NcError, NcResult};
use serde_json::Value;

/// Which convention an aggregation was written in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Form {
    Nca,
    Cfa04,
    /// CFA-0.6.2, CF-1.13 and cfdm 1.12's interim names (fragment array
    /// variables named by `aggregated_data`).
    FragmentArrays,
}

/// A selection along one sub-array dimension (NCA `part`).
#[derive(Debug, Clone, PartialEq)]
pub enum Sel {
    /// `(start, stop, step)`; `None` is Python's default.
    Range(Option<i64>, Option<i64>, Option<i64>),
    /// `[i, j, ...]`.
    List(Vec<i64>),
}

/// Where a partition's data come from.
#[derive(Debug, Clone, PartialEq)]
pub enum Source {
    /// A variable in another dataset: its locations (alternatives, the
    /// first that opens wins) and the variable's name or path there.
    File { uris: Vec<String>, var: String, format: Option<String> },
    /// A variable of the aggregation dataset itself (NCA `nca_private`).
    Container { var: String, format: Option<String> },
    /// Every element is this value (CF `unique_values`); `None`: missing.
    Unique(Option<f64>),
    /// No data: the fill value.
    Missing,
}

/// One partition, as the metadata describe it.
#[derive(Debug, Clone, PartialEq)]
pub struct Partition {
    /// How messages name it ("partition 3 (index [0, 1])").
    pub label: String,
    pub source: Source,
    /// Names of the data array's dimensions (NCA `dimensions`), in the
    /// sub-array's order; `None`: as the master's (size-1 dimensions
    /// may be missing or extra).
    pub dims: Option<Vec<String>>,
    /// Per sub-array dimension, the direction relative to the master's is
    /// opposite (NCA `directions`), by data-array dimension name.
    pub reversed: Vec<String>,
    /// NCA `part`: per sub-array dimension.
    pub part: Option<Vec<Sel>>,
    /// The declared shape of the sub-array (`data.shape`).
    pub shape: Option<Vec<u64>>,
    /// Units and calendar of the data. `units_from_fragment`: take them
    /// from the fragment variable's attributes (CF forms); else these
    /// (`None`: the master's).
    pub units: Option<String>,
    pub calendar: Option<String>,
    pub units_from_fragment: bool,
    /// Packing declared in the metadata (NCA `data.scale_factor`/`add_offset`).
    pub scale_factor: Option<f64>,
    pub add_offset: Option<f64>,
}

/// An aggregated variable's master array and partitions.
#[derive(Debug, Clone)]
pub struct Aggregation {
    pub form: Form,
    /// Master dimension names.
    pub dims: Vec<String>,
    /// Per master dimension, the partition boundaries: `edges[d][i]..edges[d][i+1]`.
    pub edges: Vec<Vec<u64>>,
    /// One per grid cell, C order.
    pub parts: Vec<Partition>,
    /// Variables of the container that serve the aggregation only (fragment
    /// array variables); NCA private variables are found by their attribute.
    pub hidden_vars: Vec<String>,
}

impl Aggregation {
    /// The master shape.
    pub fn shape(&self) -> Vec<u64> {
        self.edges.iter().map(|e| e.last().copied().unwrap_or(0)).collect()
    }

    /// Grid position of cell `i` (C order).
    pub fn cell(&self, mut i: usize) -> Vec<usize> {
        let mut pos = vec![0; self.edges.len()];
        for d in (0..self.edges.len()).rev() {
            let n = self.edges[d].len() - 1;
            pos[d] = i % n;
            i /= n;
        }
        pos
    }

    /// Location `[start, stop)` per master dimension of cell `pos`.
    pub fn location(&self, pos: &[usize]) -> Vec<(u64, u64)> {
        pos.iter().enumerate().map(|(d, &p)| (self.edges[d][p], self.edges[d][p + 1])).collect()
    }
}

/// Most partitions one aggregation may have (a bound on untrusted counts).
pub(crate) const MAX_PARTITIONS: u64 = 1 << 22;
/// Most indices one `part` selection may list or generate.
pub(crate) const MAX_PART_LEN: usize = 1 << 26;

fn bad(what: impl Into<String>) -> NcError {
    NcError::with(NC_EINVAL, what)
}

// ---- JSON (strict, or the single-quoted Python-literal style) ------------------

/// Parses `nca_array`/`cfa_array` text: JSON, or Python literal style
/// (single-quoted strings, `True`/`False`/`None`, tuples). An error names
/// the byte position in the original text.
pub fn parse_json(text: &str) -> NcResult<Value> {
    if let Ok(v) = serde_json::from_str::<Value>(text) {
        return Ok(v);
    }
    let (json, map) = python_to_json(text);
    serde_json::from_str::<Value>(&json).map_err(|e| {
        // serde_json reports line and column (1-based, in characters of the line)
        let mut off = 0usize;
        for (i, line) in json.split_inclusive('\n').enumerate() {
            if i + 1 == e.line() {
                off += line.char_indices().nth(e.column().saturating_sub(1)).map_or(line.len(), |(b, _)| b);
                break;
            }
            off += line.len();
        }
        let pos = map.get(off).copied().unwrap_or(text.len());
        bad(format!("malformed JSON at byte {pos}: {e}"))
    })
}

/// Rewrites the Python literal style as JSON, with the byte position in
/// `text` of every byte written.
fn python_to_json(text: &str) -> (String, Vec<usize>) {
    let mut out = String::with_capacity(text.len() + 16);
    let mut map = Vec::with_capacity(text.len() + 16);
    let push = |out: &mut String, map: &mut Vec<usize>, s: &str, at: usize| {
        out.push_str(s);
        map.extend(std::iter::repeat_n(at, s.len()));
    };
    let b = text.as_bytes();
    let mut i = 0;
    while i < b.len() {
        let c = b[i];
        match c {
            b'\'' | b'"' => {
                let q = c;
                push(&mut out, &mut map, "\"", i);
                i += 1;
                while i < b.len() && b[i] != q {
                    if b[i] == b'\\' && i + 1 < b.len() {
                        // the escaped character may take several bytes
                        let next = text[i + 1..].chars().next().expect("a character");
                        let esc = if next == '\'' { "'".to_string() } else { format!("\\{next}") };
                        push(&mut out, &mut map, &esc, i);
                        i += 1 + next.len_utf8();
                        continue;
                    }
                    if b[i] == b'"' {
                        push(&mut out, &mut map, "\\\"", i);
                        i += 1;
                        continue;
                    }
                    let ch = text[i..].chars().next().expect("a character");
                    let mut buf = [0u8; 4];
                    push(&mut out, &mut map, ch.encode_utf8(&mut buf), i);
                    i += ch.len_utf8();
                }
                if i < b.len() {
                    push(&mut out, &mut map, "\"", i);
                    i += 1;
                }
            }
            b'(' => {
                push(&mut out, &mut map, "[", i);
                i += 1;
            }
            b')' => {
                push(&mut out, &mut map, "]", i);
                i += 1;
            }
            _ if c.is_ascii_alphabetic() => {
                let end =
                    b[i..].iter().position(|x| !x.is_ascii_alphanumeric() && *x != b'_').map_or(b.len(), |n| i + n);
                let word = &text[i..end];
                let w = match word {
                    "True" => "true",
                    "False" => "false",
                    "None" => "null",
                    other => other,
                };
                push(&mut out, &mut map, w, i);
                i = end;
            }
            _ => {
                let ch = text[i..].chars().next().expect("a character");
                let mut buf = [0u8; 4];
                push(&mut out, &mut map, ch.encode_utf8(&mut buf), i);
                i += ch.len_utf8();
            }
        }
    }
    map.push(text.len());
    (out, map)
}

// ---- NCA `part` strings ------------------------------------------------------

/// The bracketed groups of a `part` string: `(` or `[` (a `slice(...)` is a
/// `(`), and the numbers in it (`None`: Python's `None`).
fn part_groups(text: &str) -> NcResult<Vec<(u8, Vec<Option<i64>>)>> {
    let t = text.trim();
    let inner = t
        .strip_prefix('[')
        .and_then(|s| s.strip_suffix(']'))
        .ok_or_else(|| bad(format!("part {text:?}: not a list")))?;
    let b = inner.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        let (kind, open) = match b[i] {
            b' ' | b',' | b'\t' | b'\n' => {
                i += 1;
                continue;
            }
            b'[' => (b'[', i),
            b'(' => (b'(', i),
            b's' if inner[i..].starts_with("slice(") => (b'(', i + 5),
            _ => return Err(bad(format!("part {text:?}: unexpected {:?} at byte {}", b[i] as char, i + 1))),
        };
        let closer = if kind == b'[' { ']' } else { ')' };
        let close =
            inner[open..].find(closer).map(|n| open + n).ok_or_else(|| bad(format!("part {text:?}: no {closer:?}")))?;
        let mut items = Vec::new();
        for s in inner[open + 1..close].split(',') {
            let s = s.trim();
            if s == "None" || s.is_empty() {
                items.push(None);
            } else {
                items.push(Some(s.parse::<i64>().map_err(|_| bad(format!("part {text:?}: {s:?} is not an integer")))?));
            }
        }
        if items.last() == Some(&None) && inner[open + 1..close].trim_end().ends_with(',') {
            items.pop(); // a trailing comma
        }
        out.push((kind, items));
        i = close + 1;
    }
    Ok(out)
}

fn index_list(items: Vec<Option<i64>>, text: &str) -> NcResult<Sel> {
    let list: Option<Vec<i64>> = items.into_iter().collect();
    list.map(Sel::List).ok_or_else(|| bad(format!("part {text:?}: None in an index list")))
}

/// Parses an NCA `part`: `[(2, 6, 1), [1,3,4,7], (0, 12, 2)]`: tuples
/// (or `slice(...)`) are ranges `(start, stop, step)`, lists are indices.
pub fn parse_part(text: &str) -> NcResult<Vec<Sel>> {
    part_groups(text)?
        .into_iter()
        .map(|(kind, items)| match kind {
            b'[' => index_list(items, text),
            _ => match items.as_slice() {
                [z] => Ok(Sel::Range(None, *z, None)),
                [a, z] => Ok(Sel::Range(*a, *z, None)),
                [a, z, s] => Ok(Sel::Range(*a, *z, *s)),
                _ => Err(bad(format!("part {text:?}: a range has 1 to 3 numbers"))),
            },
        })
        .collect()
}

/// Parses a CFA-0.4 `part`, cf-python's way round: lists are ranges
/// `[start, stop, step]` whose stop is included, tuples are indices.
pub fn parse_part_cfa04(text: &str) -> NcResult<Vec<Sel>> {
    part_groups(text)?
        .into_iter()
        .map(|(kind, items)| match (kind, items.as_slice()) {
            (b'(', _) => index_list(items, text),
            (_, [Some(a), Some(z), Some(s)]) if *s > 0 => Ok(Sel::Range(Some(*a), z.checked_add(1), Some(*s))),
            (_, [Some(a), Some(0), Some(s)]) => Ok(Sel::Range(Some(*a), None, Some(*s))),
            (_, [Some(a), Some(z), Some(s)]) => Ok(Sel::Range(Some(*a), Some(z - 1), Some(*s))),
            _ => Err(bad(format!("part {text:?}: a CFA-0.4 range is [start, stop, step]"))),
        })
        .collect()
}

impl Sel {
    /// The sub-array indices selected along a dimension of length `n`.
    pub fn indices(&self, n: u64) -> NcResult<Vec<u64>> {
        let n_i = i64::try_from(n).map_err(|_| bad("dimension too long"))?;
        match self {
            Sel::List(l) => l
                .iter()
                .map(|&i| {
                    let j = if i < 0 { i + n_i } else { i };
                    if (0..n_i).contains(&j) {
                        Ok(j as u64)
                    } else {
                        Err(bad(format!("part index {i} is outside a dimension of {n}")))
                    }
                })
                .collect(),
            Sel::Range(a, z, s) => {
                let step = s.unwrap_or(1);
                if step == 0 {
                    return Err(bad("part step 0"));
                }
                let norm = |v: i64| if v < 0 { (v + n_i).max(if step < 0 { -1 } else { 0 }) } else { v.min(n_i) };
                let (mut i, stop) = if step > 0 {
                    (a.map_or(0, norm), z.map_or(n_i, norm))
                } else {
                    (a.map_or(n_i - 1, |v| norm(v).min(n_i - 1)), z.map_or(-1, norm))
                };
                let mut out = Vec::new();
                while (step > 0 && i < stop) || (step < 0 && i > stop) {
                    if out.len() as u64 >= n {
                        break;
                    }
                    if out.len() >= MAX_PART_LEN {
                        return Err(bad(format!("part selects more than {MAX_PART_LEN} indices")));
                    }
                    out.push(i as u64);
                    i += step;
                }
                Ok(out)
            }
        }
    }
}

// ---- the grid ------------------------------------------------------------------

/// Places partitions given with explicit locations on a grid: per
/// dimension the distinct ranges must tile `0..shape[d]`, and every cell
/// must be taken exactly once.
pub fn grid_from_locations(
    dims: &[String],
    shape: &[u64],
    located: Vec<(Vec<(u64, u64)>, Partition)>,
) -> NcResult<(Vec<Vec<u64>>, Vec<Partition>)> {
    let nd = shape.len();
    let mut edges: Vec<Vec<u64>> = Vec::with_capacity(nd);
    for d in 0..nd {
        let mut ranges: Vec<(u64, u64)> = located.iter().map(|(loc, _)| loc[d]).collect();
        ranges.sort_unstable();
        ranges.dedup();
        let mut e = vec![0u64];
        for (k, &(a, z)) in ranges.iter().enumerate() {
            let last = *e.last().expect("not empty");
            let who =
                || located.iter().find(|(l, _)| l[d] == (a, z)).map_or_else(String::new, |(_, p)| p.label.clone());
            if a >= z {
                return Err(bad(format!("{}: empty location [{a}, {z}) along {}", who(), dims[d])));
            }
            if a < last {
                return Err(bad(format!(
                    "{}: location [{a}, {z}) along {} overlaps another partition ([{}, {last}))",
                    who(),
                    dims[d],
                    ranges[k - 1].0
                )));
            }
            if a > last {
                return Err(bad(format!(
                    "{}: location [{a}, {z}) along {} leaves a gap [{last}, {a}) no partition covers",
                    who(),
                    dims[d]
                )));
            }
            e.push(z);
        }
        check_end(&e, shape[d], || format!("the partitions along {} cover [0, {{end}})", dims[d]))?;
        edges.push(e);
    }
    let cells = edges.iter().try_fold(1u64, |a, e| a.checked_mul(e.len() as u64 - 1)).unwrap_or(u64::MAX);
    if cells != located.len() as u64 {
        // find the first empty cell, or report the count
        return Err(bad(format!(
            "{} partitions for a partition matrix of {} cells: partitions overlap or leave gaps",
            located.len(),
            cells
        )));
    }
    let mut slots: Vec<Option<Partition>> = vec![None; located.len()];
    for (loc, p) in located {
        let mut i = 0usize;
        for d in 0..nd {
            let k = edges[d].binary_search(&loc[d].0).expect("an edge");
            i = i * (edges[d].len() - 1) + k;
        }
        if slots[i].is_some() {
            return Err(bad(format!("{}: overlaps another partition at the same location", p.label)));
        }
        slots[i] = Some(p);
    }
    Ok((edges, slots.into_iter().map(|p| p.expect("every cell taken (counted)")).collect()))
}

/// The last edge must be the dimension's length; `what` describes the
/// coverage, `{end}` standing for the last edge.
fn check_end(e: &[u64], len: u64, what: impl FnOnce() -> String) -> NcResult<()> {
    let end = *e.last().expect("not empty");
    if end != len {
        return Err(bad(format!("{}, not the dimension's length {len}", what().replace("{end}", &end.to_string()))));
    }
    Ok(())
}

/// Edges from CF `map` rows (fragment sizes per dimension).
pub fn grid_from_map(dims: &[String], shape: &[u64], rows: &[Vec<u64>]) -> NcResult<Vec<Vec<u64>>> {
    if rows.len() != shape.len() {
        return Err(bad(format!("the map has {} rows for {} aggregated dimensions", rows.len(), shape.len())));
    }
    let mut edges = Vec::with_capacity(rows.len());
    for (d, row) in rows.iter().enumerate() {
        let mut e = Vec::with_capacity(row.len() + 1);
        e.push(0u64);
        for &n in row {
            if n == 0 {
                return Err(bad(format!("the map gives a fragment of size 0 along {}", dims[d])));
            }
            let next = e.last().expect("not empty").checked_add(n).ok_or_else(|| bad("map sizes overflow"))?;
            e.push(next);
        }
        if e.len() < 2 {
            return Err(bad(format!("the map gives no fragment along {}", dims[d])));
        }
        check_end(&e, shape[d], || format!("the map's fragments along {} add up to {{end}}", dims[d]))?;
        edges.push(e);
    }
    Ok(edges)
}

// ---- NCA 0.1 and CFA-0.4 -------------------------------------------------------

fn as_u64(v: &Value, what: &str) -> NcResult<u64> {
    v.as_u64().ok_or_else(|| bad(format!("{what}: {v} is not a non-negative integer")))
}

fn str_list(v: &Value, what: &str) -> NcResult<Vec<String>> {
    v.as_array()
        .ok_or_else(|| bad(format!("{what} is not a list")))?
        .iter()
        .map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad(format!("{what}: {x} is not a string"))))
        .collect()
}

/// Parses an NCA 0.1 (`nca_array`) or CFA-0.4 (`cfa_array`) description.
/// `dims`/`shape`: the master dimensions (from `nca_dimensions`); master
/// directions default to increasing.
pub fn parse_partitions_json(form: Form, dims: &[String], shape: &[u64], text: &str) -> NcResult<Aggregation> {
    let doc = parse_json(text)?;
    let obj = doc.as_object().ok_or_else(|| bad("the aggregation description is not a JSON object"))?;
    let get = |k: &str| obj.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v);
    let direction_of = |dirs: Option<&Value>, name: &str| -> Option<bool> {
        match dirs? {
            Value::Bool(b) => Some(*b),
            Value::Object(m) => m.get(name).and_then(Value::as_bool),
            _ => None,
        }
    };
    let master_dirs = get("directions");
    let base = get("base").and_then(Value::as_str).map(str::to_string);
    let list = get("Partitions").and_then(Value::as_array).ok_or_else(|| bad("no Partitions list"))?;
    if list.len() as u64 > MAX_PARTITIONS {
        return Err(bad(format!("{} partitions (at most {MAX_PARTITIONS})", list.len())));
    }
    let mut located = Vec::with_capacity(list.len());
    for (n, p) in list.iter().enumerate() {
        let pobj = p.as_object().ok_or_else(|| bad(format!("partition {n} is not an object")))?;
        let pget = |k: &str| pobj.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v);
        let index = pget("index").map(|v| v.to_string()).unwrap_or_default();
        let label = if index.is_empty() { format!("partition {n}") } else { format!("partition {n} (index {index})") };
        let ctx = |e: NcError| e.context(&label);
        let loc_v = pget("location").and_then(Value::as_array).ok_or_else(|| bad(format!("{label}: no location")))?;
        if loc_v.len() != dims.len() {
            return Err(bad(format!("{label}: location has {} ranges for {} dimensions", loc_v.len(), dims.len())));
        }
        let mut loc = Vec::with_capacity(dims.len());
        for (d, r) in loc_v.iter().enumerate() {
            let r = r
                .as_array()
                .filter(|r| r.len() == 2)
                .ok_or_else(|| bad(format!("{label}: location {r} is not [start, stop]")))?;
            let (a, z) = (as_u64(&r[0], &label)?, as_u64(&r[1], &label)?);
            let z = if form == Form::Cfa04 { z.checked_add(1).ok_or_else(|| bad("location overflow"))? } else { z };
            if z > shape[d] {
                return Err(bad(format!("{label}: location [{a}, {z}) is outside {} of length {}", dims[d], shape[d])));
            }
            loc.push((a, z));
        }
        let data = pget("data").or_else(|| pget("subarray"));
        let dget = |k: &str| {
            data.and_then(Value::as_object)
                .and_then(|o| o.iter().find(|(key, _)| key.eq_ignore_ascii_case(k)).map(|(_, v)| v))
        };
        let cfa04 = form == Form::Cfa04;
        // CFA-0.4 spells NCA's keys its own way
        let key = |nca: &'static str, cfa: &'static str| if cfa04 { cfa } else { nca };
        let pdims =
            pget(key("dimensions", "pdimensions")).map(|v| str_list(v, &format!("{label}: dimensions"))).transpose()?;
        let data_dims: Vec<String> = pdims.clone().unwrap_or_else(|| dims.to_vec());
        let reversed = if cfa04 {
            pget("reverse").map(|v| str_list(v, &format!("{label}: reverse"))).transpose()?.unwrap_or_default()
        } else {
            let pdirs = pget("directions");
            let mut reversed = Vec::new();
            for name in &data_dims {
                let master = direction_of(master_dirs, name).unwrap_or(true);
                let mine = direction_of(pdirs, name).unwrap_or(master);
                if mine != master {
                    reversed.push(name.clone());
                }
            }
            reversed
        };
        let parse_p = if cfa04 { parse_part_cfa04 } else { parse_part };
        let part = match pget("part") {
            None | Some(Value::Null) => None,
            Some(Value::String(s)) => Some(parse_p(s).map_err(ctx)?),
            Some(other) => Some(parse_p(&other.to_string()).map_err(ctx)?),
        };
        let shape_decl = match dget("shape") {
            Some(v) => Some(
                v.as_array()
                    .ok_or_else(|| bad(format!("{label}: data shape is not a list")))?
                    .iter()
                    .map(|x| as_u64(x, &label))
                    .collect::<NcResult<Vec<u64>>>()?,
            ),
            None => None,
        };
        let var = dget("ncvar").and_then(Value::as_str).map(str::to_string);
        let format = pget("format").or_else(|| dget("format")).and_then(Value::as_str).map(str::to_string);
        let file = dget("file").and_then(Value::as_str).map(str::to_string);
        let source = match (file, var) {
            (_, None) => return Err(bad(format!("{label}: no ncvar"))),
            (None, Some(var)) => Source::Container { var, format },
            (Some(f), Some(var)) => {
                let f = match (&base, f.starts_with('/') || f.contains("://")) {
                    (Some(b), false) => format!("{}/{f}", b.trim_end_matches('/')),
                    _ => f,
                };
                Source::File { uris: vec![f], var, format }
            }
        };
        let num = |k: &str| dget(k).and_then(Value::as_f64);
        let part_v = Partition {
            label,
            source,
            dims: pdims,
            reversed,
            part,
            shape: shape_decl,
            units: pget(key("units", "punits")).and_then(Value::as_str).map(str::to_string),
            calendar: pget(key("calendar", "pcalendar")).and_then(Value::as_str).map(str::to_string),
            units_from_fragment: false,
            scale_factor: num("scale_factor"),
            add_offset: num("add_offset"),
        };
        located.push((loc, part_v));
    }
    let (edges, parts) = grid_from_locations(dims, shape, located)?;
    Ok(Aggregation { form, dims: dims.to_vec(), edges, parts, hidden_vars: Vec::new() })
}

// ---- CFA-0.6.2 / CF-1.13 -----------------------------------------------------

/// The values of a fragment array variable.
#[derive(Debug, Clone)]
pub struct Term {
    /// The variable's name in the container.
    pub var: String,
    pub shape: Vec<u64>,
    pub data: TermData,
}

#[derive(Debug, Clone)]
pub enum TermData {
    /// Numbers; `None` where the value is missing (the variable's fill).
    Nums(Vec<Option<f64>>),
    /// Strings (empty where missing), C order of `shape`.
    Strings(Vec<String>),
}

/// Splits `aggregated_data` ("map: v1 uris: v2 ...") into (term, variable)
/// pairs; terms are lowercased (CFA-0.6.2's keys are case-insensitive).
pub fn parse_aggregated_data(text: &str) -> NcResult<Vec<(String, String)>> {
    let mut out = Vec::new();
    let mut words = text.split_whitespace().peekable();
    while let Some(w) = words.next() {
        let term = w.strip_suffix(':').ok_or_else(|| bad(format!("aggregated_data: {w:?} is not a 'term:'")))?;
        let var = words.next().ok_or_else(|| bad(format!("aggregated_data: no variable for {term:?}")))?;
        if var.ends_with(':') {
            return Err(bad(format!("aggregated_data: no variable for {term:?}")));
        }
        out.push((term.to_ascii_lowercase(), var.to_string()));
    }
    if out.is_empty() {
        return Err(bad("aggregated_data is empty"));
    }
    Ok(out)
}

/// The canonical name of an `aggregated_data` term, across versions.
pub fn canonical_term(term: &str) -> Option<&'static str> {
    Some(match term {
        "map" | "location" => "map",
        "uris" | "file" => "uris",
        "identifiers" | "address" | "variable" => "identifiers",
        "unique_values" | "unique_value" => "unique_values",
        "format" => "format",
        _ => return None,
    })
}

fn elems(shape: &[u64]) -> u64 {
    shape.iter().try_fold(1u64, |a, &n| a.checked_mul(n)).unwrap_or(u64::MAX)
}

/// The rows of a fragment-array `map`: per aggregated dimension (`nd` of
/// them), the sizes of the fragments along it (missing values pad rows).
pub fn map_rows(map: &Term, nd: usize) -> NcResult<Vec<Vec<u64>>> {
    Ok(match &map.data {
        TermData::Nums(v) if nd == 0 => {
            let _ = v;
            Vec::new()
        }
        TermData::Nums(v) => {
            let (r, c) = match map.shape.as_slice() {
                [r, c] => (*r, *c),
                [r] => (*r, 1),
                _ => return Err(bad(format!("{}: a map of rank {} (2 expected)", map.var, map.shape.len()))),
            };
            if r != nd as u64 || elems(&map.shape) != v.len() as u64 {
                return Err(bad(format!("{}: {r} rows for {nd} aggregated dimensions", map.var)));
            }
            (0..r as usize)
                .map(|i| {
                    let row = &v[i * c as usize..(i + 1) * c as usize];
                    row.iter()
                        .take_while(|x| x.is_some())
                        .map(|x| {
                            let x = x.expect("some");
                            if x.fract() != 0.0 || !(0.0..=9.0e15).contains(&x) {
                                Err(bad(format!("{}: {x} is not a fragment size", map.var)))
                            } else {
                                Ok(x as u64)
                            }
                        })
                        .collect()
                })
                .collect::<NcResult<_>>()?
        }
        TermData::Strings(_) => return Err(bad(format!("{}: the map holds strings", map.var))),
    })
}

/// Parses a fragment-array aggregation from its terms (canonical names)
/// and the master dimensions. `substitutions` apply to the URIs
/// (CFA-0.6.2's `${base}: value` pairs).
pub fn parse_fragment_arrays(
    dims: &[String],
    shape: &[u64],
    terms: &[(String, Term)],
    substitutions: &[(String, String)],
) -> NcResult<Aggregation> {
    let find = |t: &str| terms.iter().find(|(k, _)| k == t).map(|(_, v)| v);
    let map = find("map").ok_or_else(|| bad("aggregated_data has no map (location) term"))?;
    let nd = dims.len();
    let rows = map_rows(map, nd)?;
    let edges = if nd == 0 { Vec::new() } else { grid_from_map(dims, shape, &rows)? };
    let frag_shape: Vec<u64> = edges.iter().map(|e| e.len() as u64 - 1).collect();
    let cells = elems(&frag_shape);
    if cells > MAX_PARTITIONS {
        return Err(bad(format!("{cells} fragments (at most {MAX_PARTITIONS})")));
    }
    let cells = cells as usize;
    let index_label = |i: usize| {
        let mut pos = vec![0u64; nd];
        let mut r = i as u64;
        for d in (0..nd).rev() {
            pos[d] = r % frag_shape[d];
            r /= frag_shape[d];
        }
        format!("fragment {pos:?}")
    };
    let mut hidden: Vec<String> = terms.iter().map(|(_, t)| t.var.clone()).collect();
    hidden.dedup();
    let mk = |label: String, source: Source| Partition {
        label,
        source,
        dims: None,
        reversed: Vec::new(),
        part: None,
        shape: None,
        units: None,
        calendar: None,
        units_from_fragment: true,
        scale_factor: None,
        add_offset: None,
    };
    let parts: Vec<Partition> = if let Some(u) = find("unique_values") {
        if u.shape != frag_shape && !(u.shape.is_empty() && cells == 1) {
            return Err(bad(format!("{}: shape {:?}, not the fragment array's {frag_shape:?}", u.var, u.shape)));
        }
        match &u.data {
            TermData::Nums(v) => {
                (0..cells).map(|i| mk(index_label(i), Source::Unique(v.get(i).copied().flatten()))).collect()
            }
            TermData::Strings(_) => {
                return Err(NcError::with(NC_ENOTBUILT, format!("{}: string-valued unique values are not read", u.var)))
            }
        }
    } else {
        let uris = find("uris").ok_or_else(|| bad("aggregated_data has neither uris (file) nor unique_values"))?;
        let TermData::Strings(us) = &uris.data else {
            return Err(bad(format!("{}: the uris are not strings", uris.var)));
        };
        // an extra trailing dimension holds alternative locations
        let alternatives = if uris.shape.len() == nd + 1 && uris.shape[..nd] == frag_shape[..] {
            uris.shape[nd] as usize
        } else if uris.shape == frag_shape || (uris.shape.is_empty() && cells == 1) {
            1
        } else {
            return Err(bad(format!("{}: shape {:?}, not the fragment array's {frag_shape:?}", uris.var, uris.shape)));
        };
        if us.len() != cells * alternatives {
            return Err(bad(format!("{}: {} values for {cells} fragments", uris.var, us.len())));
        }
        let ids = find("identifiers").ok_or_else(|| bad("aggregated_data has no identifiers (address) term"))?;
        let TermData::Strings(is) = &ids.data else {
            return Err(bad(format!("{}: the identifiers are not strings", ids.var)));
        };
        let id_of = |i: usize| -> NcResult<String> {
            if is.len() == 1 {
                return Ok(is[0].clone());
            }
            if ids.shape.len() == nd + 1 && is.len() == cells * ids.shape[nd] as usize {
                return Ok(is[i * ids.shape[nd] as usize].clone());
            }
            if is.len() == cells {
                return Ok(is[i].clone());
            }
            Err(bad(format!("{}: {} values for {cells} fragments", ids.var, is.len())))
        };
        let fmt: Option<&Term> = find("format");
        let fmt_of = |i: usize| match fmt.map(|t| &t.data) {
            Some(TermData::Strings(f)) if f.len() == 1 => Some(f[0].clone()),
            Some(TermData::Strings(f)) => f.get(i).cloned(),
            _ => None,
        };
        let mut parts = Vec::with_capacity(cells);
        for i in 0..cells {
            let alts: Vec<String> = us[i * alternatives..(i + 1) * alternatives]
                .iter()
                .filter(|s| !s.trim().is_empty())
                .map(|s| {
                    let mut s = s.trim().to_string();
                    for (k, v) in substitutions {
                        s = s.replace(k.as_str(), v);
                    }
                    s
                })
                .collect();
            let source = if alts.is_empty() {
                Source::Missing
            } else {
                Source::File { uris: alts, var: id_of(i)?, format: fmt_of(i).filter(|f| !f.is_empty()) }
            };
            parts.push(mk(index_label(i), source));
        }
        parts
    };
    let edges = if nd == 0 { Vec::new() } else { edges };
    Ok(Aggregation { form: Form::FragmentArrays, dims: dims.to_vec(), edges, parts, hidden_vars: hidden })
}

/// CFA-0.6.2's `substitutions` attribute: `"${base}: value ${b2}: v2"`.
pub fn parse_substitutions(text: &str) -> Vec<(String, String)> {
    let w: Vec<&str> = text.split_whitespace().collect();
    w.chunks(2)
        .filter(|c| c.len() == 2)
        .filter_map(|c| c[0].strip_suffix(':').map(|k| (k.to_string(), c[1].to_string())))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn names(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    #[test]
    fn python_style_json() {
        let v = parse_json("{'a': True, 'b': [1, (2, 3)], 'c': None, 'd': 'it\\'s \"x\"'}").unwrap();
        assert_eq!(v["a"], Value::Bool(true));
        assert_eq!(v["b"][1][1], 3);
        assert!(v["c"].is_null());
        assert_eq!(v["d"], "it's \"x\"");
    }

    #[test]
    fn escapes_of_multibyte_characters() {
        // found by the `aggregate` fuzz target: a backslash before a
        // character of several bytes sliced the text inside it (a panic)
        assert!(parse_json("{'a': '\\é'}").is_err());
        assert!(parse_json("{'a': '\\\u{fffd}x'}").is_err());
        assert_eq!(parse_json("{'a': 'x\\\\é'}").unwrap()["a"], "x\\é");
    }

    #[test]
    fn malformed_json_has_a_byte_position() {
        // the seed's own typo: a missing opening quote before `directions`
        let text = "{directions': {'lat': false}}";
        let e = parse_json(text).unwrap_err();
        let d = e.detail().unwrap();
        assert!(d.contains("malformed JSON at byte 1"), "{d}");
        let e = parse_json("{'a': [1, 2,, 3]}").unwrap_err();
        assert!(e.detail().unwrap().contains("at byte 12"), "{:?}", e.detail());
    }

    #[test]
    fn parts() {
        let p = parse_part("[(2, 6, 1), [1,3,4,7], (0, 12, 2)]").unwrap();
        assert_eq!(p[0], Sel::Range(Some(2), Some(6), Some(1)));
        assert_eq!(p[1], Sel::List(vec![1, 3, 4, 7]));
        assert_eq!(p[2].indices(12).unwrap(), vec![0, 2, 4, 6, 8, 10]);
        assert_eq!(p[0].indices(10).unwrap(), vec![2, 3, 4, 5]);
        assert_eq!(Sel::Range(None, None, Some(-1)).indices(3).unwrap(), vec![2, 1, 0]);
        assert_eq!(parse_part("[slice(1, None, 2)]").unwrap()[0].indices(6).unwrap(), vec![1, 3, 5]);
        assert!(Sel::List(vec![7]).indices(5).is_err());
        // CFA-0.4: lists are ranges with the stop included, tuples indices
        let c = parse_part_cfa04("[[0, 3, 1], (1, 2), [4, 0, -2]]").unwrap();
        assert_eq!(c[0].indices(10).unwrap(), vec![0, 1, 2, 3]);
        assert_eq!(c[1], Sel::List(vec![1, 2]));
        assert_eq!(c[2].indices(10).unwrap(), vec![4, 2, 0]);
        assert!(parse_part("(1,2)").is_err());
        assert!(parse_part("[(1,x)]").is_err());
    }

    fn nca(parts: &str) -> NcResult<Aggregation> {
        let text = format!("{{'directions': {{'time': true, 'lat': false}}, 'pshape': [2], 'pdimensions': ['time'], 'Partitions': [{parts}]}}");
        parse_partitions_json(Form::Nca, &names("time lat"), &[48, 64], &text)
    }

    #[test]
    fn nca_grid_and_validation() {
        let a = nca("{'index': [1], 'location': [[12, 48], [0, 64]], 'data': {'file': 'b.nc', 'ncvar': 'tas2', 'shape': [36, 64]}},
                     {'index': [0], 'location': [[0, 12], [0, 64]], 'directions': {'time': false}, 'units': 'K @ 273.15',
                      'dimensions': ['lat', 'time'], 'data': {'ncvar': 'p', 'shape': [64, 12]}}")
        .unwrap();
        assert_eq!(a.edges, vec![vec![0, 12, 48], vec![0, 64]]);
        assert_eq!(a.parts[0].source, Source::Container { var: "p".into(), format: None });
        assert_eq!(a.parts[0].reversed, vec!["time".to_string()]);
        assert_eq!(a.parts[0].units.as_deref(), Some("K @ 273.15"));
        assert!(matches!(&a.parts[1].source, Source::File { uris, .. } if uris == &["b.nc"]));
        let gap = nca("{'index': [1], 'location': [[13, 48], [0, 64]], 'data': {'ncvar': 'a'}},
                       {'index': [0], 'location': [[0, 12], [0, 64]], 'data': {'ncvar': 'b'}}")
        .unwrap_err();
        assert!(
            gap.detail().unwrap().contains("partition 0 (index [1])") && gap.detail().unwrap().contains("gap"),
            "{gap:?}"
        );
        let overlap = nca("{'index': [1], 'location': [[10, 48], [0, 64]], 'data': {'ncvar': 'a'}},
                           {'index': [0], 'location': [[0, 12], [0, 64]], 'data': {'ncvar': 'b'}}")
        .unwrap_err();
        assert!(overlap.detail().unwrap().contains("overlaps"), "{overlap:?}");
        let outside = nca("{'index': [0], 'location': [[0, 50], [0, 64]], 'data': {'ncvar': 'b'}}").unwrap_err();
        assert!(outside.detail().unwrap().contains("outside"), "{outside:?}");
        let dup = nca("{'index': [0], 'location': [[0, 48], [0, 64]], 'data': {'ncvar': 'a'}},
                       {'index': [1], 'location': [[0, 48], [0, 64]], 'data': {'ncvar': 'b'}}")
        .unwrap_err();
        assert!(dup.detail().unwrap().contains("partitions"), "{dup:?}");
    }

    fn nums(var: &str, shape: Vec<u64>, v: Vec<Option<f64>>) -> Term {
        Term { var: var.into(), shape, data: TermData::Nums(v) }
    }
    fn strs(var: &str, shape: Vec<u64>, v: &[&str]) -> Term {
        Term { var: var.into(), shape, data: TermData::Strings(v.iter().map(|s| s.to_string()).collect()) }
    }

    #[test]
    fn cf_map_uris_identifiers() {
        let terms = vec![
            ("map".to_string(), nums("m", vec![2, 2], vec![Some(2.0), Some(3.0), Some(8.0), None])),
            ("uris".to_string(), strs("u", vec![2, 1], &["${d}/a.nc", "b.nc"])),
            ("identifiers".to_string(), strs("i", vec![], &["/q"])),
        ];
        let a = parse_fragment_arrays(&names("lat lon"), &[5, 8], &terms, &[("${d}".into(), "/x".into())]).unwrap();
        assert_eq!(a.edges, vec![vec![0, 2, 5], vec![0, 8]]);
        assert!(matches!(&a.parts[0].source, Source::File { uris, var, .. } if uris == &["/x/a.nc"] && var == "/q"));
        assert_eq!(a.hidden_vars, vec!["m", "u", "i"]);
        // the map must add up to the dimension
        let e = parse_fragment_arrays(&names("lat lon"), &[6, 8], &terms, &[]).unwrap_err();
        assert!(e.detail().unwrap().contains("add up to 5"), "{e:?}");
        let terms2 = vec![
            ("map".to_string(), nums("m", vec![1, 2], vec![Some(2.0), Some(1.0)])),
            ("unique_values".to_string(), nums("v", vec![2], vec![Some(7.0), None])),
        ];
        let a = parse_fragment_arrays(&names("t"), &[3], &terms2, &[]).unwrap();
        assert_eq!(a.parts[1].source, Source::Unique(None));
        assert_eq!(parse_aggregated_data("Location: a FILE: b").unwrap()[1], ("file".into(), "b".into()));
        assert!(parse_aggregated_data("map: uris: u").is_err());
        assert_eq!(
            parse_substitutions("${base}: /data ${x}: y"),
            vec![("${base}".into(), "/data".into()), ("${x}".into(), "y".into())]
        );
    }
}
