//! Building an aggregation from a set of datasets along one dimension (the
//! `nczarr-rs-aggregate` program; docs/AGGREGATION.md, "Building an
//! aggregation"): like `ncrcat`, but the new dataset holds references to the
//! inputs, not copies of their data.
//!
//! The inputs (Zarr stores or netCDF files, through [`super::open_fragment`])
//! must agree on everything but the length of the aggregation dimension.
//! In the root group of the output, each variable of the first input that
//! spans the dimension becomes an aggregated variable whose fragments are
//! the inputs; the dimension's coordinate variable and its bounds (and
//! text variables, which cannot be aggregated) are concatenated; the other
//! variables are copied from the first input. Attributes come from the
//! first input.

use super::super::consts::*;
use super::super::data::MemIn;
use super::super::error::*;
use super::super::model::{Att, Dataset};
use super::super::ncfile::{DescVar, Described};
use super::super::types::Values;
use super::super::{NcError, NcResult};
use super::write::{Form, Fragments};
use super::{text_att, Fragment, Region};
use std::path::{Path, PathBuf};
use std::sync::Arc;

/// What [`aggregate`] is asked to do.
#[derive(Debug, Clone)]
pub struct Options {
    /// The aggregation dimension (default: the first input's first
    /// unlimited dimension).
    pub dim: Option<String>,
    pub form: Form,
    /// Fragment locations as absolute paths, even where a relative one
    /// would do.
    pub absolute: bool,
}

/// What [`aggregate`] did.
#[derive(Debug, Default)]
pub struct Summary {
    pub dim: String,
    pub length: u64,
    pub aggregated: Vec<String>,
    pub concatenated: Vec<String>,
    pub copied: Vec<String>,
    /// What was left out, and why.
    pub skipped: Vec<String>,
}

struct Input {
    path: String,
    file: Arc<dyn Fragment>,
    desc: Described,
}

fn invalid(why: impl Into<String>) -> NcError {
    NcError::with(NC_EINVAL, why.into())
}

fn root_dim<'a>(d: &'a Described, name: &str) -> Option<(usize, &'a super::super::ncfile::DescDim)> {
    d.dims.iter().enumerate().find(|(_, x)| x.group == 0 && x.name == name)
}

fn root_var<'a>(d: &'a Described, name: &str) -> Option<&'a DescVar> {
    d.groups.first()?.vars.iter().find(|v| v.name == name)
}

/// Writes to `out` (a path or URL this library creates) the aggregation of
/// `inputs` along one dimension.
pub fn aggregate(out: &str, inputs: &[String], opts: &Options) -> NcResult<Summary> {
    if inputs.is_empty() {
        return Err(invalid("no input datasets"));
    }
    let cache = super::FragmentCache::new();
    let mut ins = Vec::with_capacity(inputs.len());
    for p in inputs {
        let path = absolute(p);
        let file = cache.get(&path).map_err(|e| e.context(p))?;
        let desc = file.describe().map_err(|e| e.context(p))?;
        ins.push(Input { path, file, desc });
    }
    let first = &ins[0].desc;
    let dim = match &opts.dim {
        Some(d) => d.clone(),
        None => {
            first.dims.iter().find(|d| d.group == 0 && d.unlimited).map(|d| d.name.clone()).ok_or_else(|| {
                invalid(format!("{}: no unlimited dimension: name the aggregation dimension", inputs[0]))
            })?
        }
    };
    let mut summary = Summary { dim: dim.clone(), ..Default::default() };
    // every input: the dimension, and the other root dimensions as in the first
    let mut lengths = Vec::with_capacity(ins.len());
    for inp in &ins {
        let (_, d) = root_dim(&inp.desc, &dim).ok_or_else(|| invalid(format!("{}: no dimension {dim}", inp.path)))?;
        if d.len == 0 {
            return Err(invalid(format!("{}: dimension {dim} is empty", inp.path)));
        }
        lengths.push(d.len);
        for fd in first.dims.iter().filter(|x| x.group == 0 && x.name != dim) {
            match root_dim(&inp.desc, &fd.name) {
                Some((_, x)) if x.len == fd.len => {}
                _ => return Err(invalid(format!("{}: dimension {} differs from {}'s", inp.path, fd.name, inputs[0]))),
            }
        }
    }
    let total = lengths.iter().try_fold(0u64, |a, &n| a.checked_add(n)).ok_or_else(|| NcError::new(NC_EDIMSIZE))?;
    summary.length = total;
    let base = base_dir(out);
    let uris: Vec<String> = ins.iter().map(|i| location(&i.path, base.as_deref(), opts.absolute)).collect();

    let mut ds = super::super::file::create(out, NC_NETCDF4)?;
    let root = &first.groups[0];
    // dimensions (root group's), the aggregation one fixed at its total
    let mut dim_ids = std::collections::HashMap::new();
    for (i, d) in first.dims.iter().enumerate().filter(|(_, d)| d.group == 0) {
        let len = if d.name == dim {
            total
        } else if d.unlimited {
            NC_UNLIMITED as u64
        } else {
            d.len
        };
        let id = ds.def_dim(0, &d.name, len)?;
        if d.unlimited && d.name != dim {
            ds.dims[id].len = d.len;
        }
        dim_ids.insert(i, id as i32);
    }
    let mut atts = root.atts.clone();
    set_conventions(&mut atts, opts.form);
    for a in atts {
        ds.put_att(0, NC_GLOBAL, &a.name, a.values)?;
    }
    // the dimension's coordinate variable and the variables its `bounds` names
    let mut concat_names = vec![dim.clone()];
    if let Some(b) = root_var(first, &dim).and_then(|v| text_att(&v.atts, "bounds")) {
        concat_names.extend(b.split_whitespace().map(str::to_string));
    }
    let dim_index = root_dim(first, &dim).map(|(i, _)| i).expect("checked");
    let mut pending: Vec<(usize, &DescVar, bool)> = Vec::new();
    for v in &root.vars {
        let Some(dimids) = v.dimids.iter().map(|d| dim_ids.get(d).copied()).collect::<Option<Vec<i32>>>() else {
            summary.skipped.push(format!("{}: a dimension of a subgroup", v.name));
            continue;
        };
        if !type_ok(v.nctype) {
            summary.skipped.push(format!("{}: a user-defined type", v.name));
            continue;
        }
        let spans = v.dimids.contains(&dim_index);
        let text = matches!(v.nctype, NC_CHAR | NC_STRING);
        if spans && !text && !concat_names.contains(&v.name) {
            // one fragment per input along the dimension, one along the others
            let mut sizes = Vec::with_capacity(v.dimids.len());
            for &d in &v.dimids {
                sizes.push(if d == dim_index { lengths.clone() } else { vec![first.dims[d].len] });
            }
            for inp in &ins[1..] {
                check_same_var(first, inp, v)?;
            }
            let f = Fragments { sizes, uris: uris.clone(), identifiers: vec![v.name.clone()] };
            let id = ds.def_var_aggregated(0, &v.name, v.nctype, &dimids, &f, opts.form)?;
            put_atts(&mut ds, id, &v.atts)?;
            summary.aggregated.push(v.name.clone());
        } else {
            let id = ds.def_var(0, &v.name, v.nctype, &dimids)?;
            put_atts(&mut ds, id, &v.atts)?;
            if spans {
                for inp in &ins[1..] {
                    check_same_var(first, inp, v)?;
                }
                summary.concatenated.push(v.name.clone());
            } else {
                summary.copied.push(v.name.clone());
            }
            pending.push((id, v, spans));
        }
    }
    for g in first.groups.iter().skip(1) {
        summary.skipped.push(format!("group {}: only the root group is aggregated", g.name));
    }
    ds.enddef()?;
    for (id, v, spans) in pending {
        // each input's values go to their own place along the dimension,
        // wherever it stands among the variable's dimensions
        let along = v.dimids.iter().position(|&d| d == dim_index).filter(|_| spans);
        let sources: &[Input] = if spans { &ins } else { &ins[..1] };
        let mut offset = 0u64;
        for inp in sources {
            let (shape, piece) = read_whole(inp, &v.name)?;
            let mut start = vec![0u64; shape.len()];
            if let Some(p) = along {
                start[p] = offset;
                offset += shape[p];
            }
            let slab = ds.slab(0, id as i32, Some(&start), Some(&shape), None, None, true)?;
            let input = match &piece {
                Ok(bytes) => MemIn::Bytes { memtype: v.nctype, buf: bytes },
                Err(strings) => MemIn::Strings(strings),
            };
            ds.put_slab(0, id as i32, &slab, input).map_err(|e| e.context(format!("{} from {}", v.name, inp.path)))?;
        }
    }
    ds.close()?;
    Ok(summary)
}

/// A numeric, char or string type (what the aggregation tool handles).
fn type_ok(t: NcType) -> bool {
    (NC_BYTE..=NC_STRING).contains(&t)
}

fn put_atts(ds: &mut Dataset, varid: usize, atts: &[Att]) -> NcResult<()> {
    ds.touch();
    for a in atts {
        ds.put_att(0, varid as i32, &a.name, a.values.clone()).map_err(|e| e.context(&a.name))?;
    }
    Ok(())
}

/// The variable exists in `inp` with the first input's type and
/// dimensions (by name; their lengths were checked with the dimensions).
fn check_same_var(first: &Described, inp: &Input, v: &DescVar) -> NcResult<()> {
    let w = root_var(&inp.desc, &v.name).ok_or_else(|| invalid(format!("{}: no variable {}", inp.path, v.name)))?;
    let names =
        |d: &Described, x: &DescVar| -> Vec<String> { x.dimids.iter().map(|&i| d.dims[i].name.clone()).collect() };
    if w.nctype != v.nctype || names(&inp.desc, w) != names(first, v) {
        return Err(invalid(format!("{}: variable {} differs in type or dimensions", inp.path, v.name)));
    }
    Ok(())
}

/// A variable's values: native bytes of its type, or its strings.
type Data = Result<Vec<u8>, Vec<String>>;

/// All values of a root variable of an input, with its shape.
fn read_whole(inp: &Input, name: &str) -> NcResult<(Vec<u64>, Data)> {
    let fv = inp.file.var(name)?;
    let n = fv.shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x)).ok_or_else(|| NcError::new(NC_EEDGE))?;
    let limit = crate::limits::limits().max_chunk_bytes;
    let zeros: Vec<u64> = vec![0; fv.shape.len()];
    let ones: Vec<u64> = vec![1; fv.shape.len()];
    let region = Region { start: &zeros, count: &fv.shape, stride: &ones };
    if fv.nctype == NC_STRING {
        if n.saturating_mul(24) > limit {
            return Err(NcError::with(NC_ENOMEM, format!("{name}: {n} strings")));
        }
        let mut out = vec![String::new(); n as usize];
        inp.file.read_strings(&fv, &region, &mut out)?;
        return Ok((fv.shape, Err(out)));
    }
    let size = super::super::types::type_size(fv.nctype).ok_or_else(|| NcError::new(NC_EBADTYPE))?;
    let mut buf = crate::limits::try_zeroed(n.saturating_mul(size as u64), limit)
        .map_err(|e| NcError::with(NC_ENOMEM, format!("{name}: {e}")))?;
    inp.file.read(&fv, &region, fv.nctype, &mut buf)?;
    Ok((fv.shape, Ok(buf)))
}

/// `Conventions` naming the form written: CF-1.13 (replacing an older CF
/// version) or NCA.
fn set_conventions(atts: &mut Vec<Att>, form: Form) {
    let old = text_att(atts, "Conventions").unwrap_or_default();
    let mut words: Vec<String> = old
        .split(|c: char| c.is_whitespace() || c == ',')
        .filter(|w| !w.is_empty())
        .filter(|w| !w.to_ascii_uppercase().starts_with("CF-") || form == Form::Nca01)
        .map(str::to_string)
        .collect();
    match form {
        Form::Cf113 => words.insert(0, "CF-1.13".into()),
        Form::Nca01 => {
            if !words.iter().any(|w| w.to_ascii_uppercase().starts_with("CF-")) {
                words.insert(0, "CF-1.5".into());
            }
            words.push("NCA".into());
        }
    }
    atts.retain(|a| a.name != "Conventions");
    atts.insert(0, Att { name: "Conventions".into(), values: Values::Char(words.join(" ").into_bytes()) });
}

/// An input path made absolute (URLs as they are).
fn absolute(p: &str) -> String {
    if p.contains("://") {
        return p.to_string();
    }
    std::path::absolute(p).map(|a| a.to_string_lossy().into_owned()).unwrap_or_else(|_| p.to_string())
}

/// The directory relative fragment locations resolve against: the one
/// holding the output (a path, or a `file://` URL's path).
fn base_dir(out: &str) -> Option<PathBuf> {
    let path = match out.strip_prefix("file://") {
        Some(rest) => rest.split('#').next().unwrap_or(rest).to_string(),
        None if out.contains("://") => return None,
        None => out.to_string(),
    };
    std::path::absolute(Path::new(&path)).ok()?.parent().map(Path::to_path_buf)
}

/// How the output refers to an input: relative to `base` when the input
/// lies below it (unless `absolute`), else the absolute path or the URL.
fn location(path: &str, base: Option<&Path>, absolute: bool) -> String {
    if !absolute && !path.contains("://") {
        if let Some(rel) = base.and_then(|b| Path::new(path).strip_prefix(b).ok()) {
            return rel.to_string_lossy().into_owned();
        }
    }
    path.to_string()
}
