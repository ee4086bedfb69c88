//! NCZarr metadata on disk: writing netCDF-C's layout and reading every
//! layout netCDF-C has written (see docs/COMPATIBILITY.md).
//!
//! Written by default (`mode=nczarr`): what netCDF-C 4.9.3+/4.10 write, the
//! NCZarr keys `_nczarr_superblock`, `_nczarr_group`/`_nczarr_array` and
//! `_nczarr_attr` inside `.zattrs` (typed `|J0`), unlimited dimensions as
//! `{"size": N, "unlimited": 1}`, `_ARRAY_DIMENSIONS` on every variable;
//! `.zgroup`/`.zarray` stay pure Zarr. `mode=nczarr,oldkeys` writes the
//! spec's (netCDF-C 4.9.2's) placement: the keys in `.zgroup`/`.zarray`, plus
//! uppercase copies for netCDF-C 4.9.0. Every object gets a `.zattrs`.
//! `mode=zarr` writes pure Zarr v2 (with XArray `_ARRAY_DIMENSIONS` unless
//! `noxarray`).

use super::consts::*;
use super::error::*;
use super::json::{self, get_either, json_to_values, values_to_json};
use super::model::*;
use super::types::Values;
use super::{NcError, NcResult, NCZARR_VERSION};
use crate::map::{Store, StoreKey};
use rayon::prelude::*;
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

fn bad(what: impl Into<String>) -> NcError {
    NcError::with(NC_ENCZARR, what)
}

// ---- dtypes ------------------------------------------------------------------

/// A parsed Zarr dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DType {
    pub nctype: NcType,
    pub endian: i32,
    /// Width of fixed strings (`|Sn`).
    pub strlen: Option<usize>,
    /// `|J0`: a hidden JSON-valued NCZarr key (netCDF-C 4.9.3+).
    pub json: bool,
    /// `<Un>` with n > 1: numpy's fixed-width UCS-4 strings.
    pub ucs4: bool,
}

/// Parses a dtype (`<i4`, `>S1`, `|S16`, `<U1`, `|b1`, `|J0`, ...).
/// `chars_as_unicode`: the 4.9.0 layout, where `<U1` means NC_CHAR.
pub fn parse_dtype(s: &str, pure_zarr: bool) -> NcResult<DType> {
    let (order, body) = match s.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &s[1..]),
        _ => ('=', s),
    };
    let endian = match order {
        '>' => NC_ENDIAN_BIG,
        '<' => NC_ENDIAN_LITTLE,
        _ => native_endian(),
    };
    let mut chars = body.chars();
    let kind = chars.next().ok_or_else(|| bad(format!("bad dtype {s:?}")))?;
    let size: usize = chars.as_str().parse().map_err(|_| bad(format!("bad dtype {s:?}")))?;
    let plain = |t| Ok(DType { nctype: t, endian, strlen: None, json: false, ucs4: false });
    match (kind, size) {
        ('i', 1) => plain(NC_BYTE),
        ('u', 1) => plain(NC_UBYTE),
        ('b', 1) => plain(NC_UBYTE),
        ('i', 2) => plain(NC_SHORT),
        ('u', 2) => plain(NC_USHORT),
        ('i', 4) => plain(NC_INT),
        ('u', 4) => plain(NC_UINT),
        ('i', 8) => plain(NC_INT64),
        ('u', 8) => plain(NC_UINT64),
        ('f', 4) => plain(NC_FLOAT),
        ('f', 8) => plain(NC_DOUBLE),
        ('S', 1) if order == '>' && !pure_zarr => plain(NC_CHAR),
        // netCDF-C 4.9.0 wrote "<U1" for char, in NCZarr and pure Zarr alike.
        ('U', 1) => plain(NC_CHAR),
        ('S', n) if n > 0 => Ok(DType { nctype: NC_STRING, endian, strlen: Some(n), json: false, ucs4: false }),
        ('U', n) if n > 0 => Ok(DType { nctype: NC_STRING, endian, strlen: Some(n), json: false, ucs4: true }),
        ('J', 0) => Ok(DType { nctype: NC_CHAR, endian, strlen: None, json: true, ucs4: false }),
        _ => Err(bad(format!("unsupported dtype {s:?}"))),
    }
}

/// The dtype written for a variable or attribute. One-byte types use `|`
/// (zarr-python 3 rejects `<i1`); char is `>S1` as the spec says (the only
/// spelling netCDF-C reads as char), except in pure Zarr, where netCDF-C
/// reads every `S` dtype as a string anyway and `|S1` keeps zarr-python 3
/// (which rejects `>S1`) able to open the array; strings are `|S<n>`.
pub fn format_dtype(t: NcType, endian: i32, strlen: usize, pure_zarr: bool) -> String {
    let e = if endian == NC_ENDIAN_BIG { '>' } else { '<' };
    match t {
        NC_BYTE => "|i1".into(),
        NC_UBYTE => "|u1".into(),
        NC_CHAR if pure_zarr => "|S1".into(),
        NC_CHAR => ">S1".into(),
        NC_STRING => format!("|S{strlen}"),
        NC_SHORT => format!("{e}i2"),
        NC_USHORT => format!("{e}u2"),
        NC_INT => format!("{e}i4"),
        NC_UINT => format!("{e}u4"),
        NC_INT64 => format!("{e}i8"),
        NC_UINT64 => format!("{e}u8"),
        NC_FLOAT => format!("{e}f4"),
        NC_DOUBLE => format!("{e}f8"),
        _ => unreachable!("only atomic types are stored"),
    }
}

// ---- writing -----------------------------------------------------------------

/// `.zattrs` of a group or variable: the user's attributes, `extra`
/// (`_ARRAY_DIMENSIONS`), then the NCZarr keys `hidden` (each typed `|J0`, as
/// netCDF-C 4.9.3+ writes them), then `_nczarr_attr` with every type.
fn attrs_object(
    ds: &Dataset,
    atts: &[Att],
    extra: Vec<(String, Value)>,
    is_root: bool,
    hidden: Vec<(&str, Value)>,
) -> Map<String, Value> {
    let mut m = Map::new();
    let mut types = Map::new();
    for a in atts {
        m.insert(a.name.clone(), values_to_json(&a.values));
        let strlen = ds.default_maxstrlen();
        types.insert(a.name.clone(), Value::String(format_dtype(a.values.nc_type(), native_endian(), strlen, false)));
    }
    if is_root && !ds.pure_zarr {
        if let Some(p) = &ds.provenance {
            m.insert("_NCProperties".into(), Value::String(p.clone()));
            types.insert("_NCProperties".into(), Value::String(">S1".into()));
        }
    }
    for (k, v) in extra {
        m.insert(k, v);
    }
    let in_attrs = !hidden.is_empty();
    for (k, v) in hidden {
        m.insert(k.into(), v);
        types.insert(k.into(), json!("|J0"));
    }
    if !ds.pure_zarr {
        if in_attrs {
            types.insert("_nczarr_attr".into(), json!("|J0"));
        }
        m.insert("_nczarr_attr".into(), json!({ "types": types }));
    }
    m
}

/// The writer uses netCDF-C 4.9.2's placement (NCZarr keys in
/// `.zgroup`/`.zarray`): `mode=...,oldkeys`, or a dataset read in that
/// layout (or 4.9.0's). Otherwise it writes 4.9.3+'s (keys in `.zattrs`).
fn old_keys(ds: &Dataset) -> bool {
    matches!(ds.layout, Layout::V2 | Layout::V2Upper)
}

/// The dimensions a group defines, as `_nczarr_group` lists them. In the
/// 4.9.3+ layout an unlimited dimension is `{"size": N, "unlimited": 1}`;
/// in the 4.9.2 layout and in the copy for netCDF-C 4.9.0 every dimension
/// is its current length (those versions have no unlimited dimensions).
fn group_dims(ds: &Dataset, g: &Group, with_unlimited: bool) -> Value {
    let mut dims = Map::new();
    for &d in &g.dims {
        let dim = &ds.dims[d];
        let len =
            if with_unlimited && dim.unlimited { json!({ "size": dim.len, "unlimited": 1 }) } else { json!(dim.len) };
        dims.insert(dim.name.clone(), len);
    }
    Value::Object(dims)
}

fn group_objects(ds: &Dataset, gid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
    let g = &ds.groups[gid];
    let key = ds.group_key(gid);
    let vars = json!(g.vars.iter().map(|v| v.name.clone()).collect::<Vec<_>>());
    let groups = json!(g.children.iter().map(|&c| ds.groups[c].name.clone()).collect::<Vec<_>>());
    let superblock = json!({ "version": NCZARR_VERSION });
    let mut zgroup = Map::new();
    zgroup.insert("zarr_format".into(), json!(2));
    let mut hidden = vec![];
    if old_keys(ds) {
        // netCDF-C 4.9.2's keys, and 4.9.0's uppercase copies
        let mut info = Map::new();
        info.insert("dims".into(), group_dims(ds, g, false));
        info.insert("vars".into(), vars);
        info.insert("groups".into(), groups);
        let unlimited: Vec<&str> =
            g.dims.iter().filter(|&&d| ds.dims[d].unlimited).map(|&d| ds.dims[d].name.as_str()).collect();
        if !unlimited.is_empty() {
            info.insert("unlimited".into(), json!(unlimited));
        }
        if gid == 0 {
            zgroup.insert("_nczarr_superblock".into(), superblock.clone());
        }
        zgroup.insert("_nczarr_group".into(), Value::Object(info.clone()));
        if gid == 0 {
            zgroup.insert("_NCZARR_SUPERBLOCK".into(), superblock);
        }
        zgroup.insert("_NCZARR_GROUP".into(), Value::Object(info));
    } else if !ds.pure_zarr {
        // .zgroup stays pure Zarr: netCDF-C 4.10 rewrites it in place
        // without truncating, so anything more would leave a broken tail.
        let info = json!({ "dimensions": group_dims(ds, g, true), "arrays": vars, "groups": groups });
        hidden.push(("_nczarr_group", info));
        if gid == 0 {
            hidden.push(("_nczarr_superblock", superblock));
        }
    }
    out.push((key.child(".zgroup")?, Value::Object(zgroup)));
    out.push((key.child(".zattrs")?, Value::Object(attrs_object(ds, &g.atts, vec![], gid == 0, hidden))));
    for vid in 0..g.vars.len() {
        var_objects(ds, gid, vid, out)?;
    }
    Ok(())
}

/// XArray dimension names for a variable, when the convention applies: in
/// NCZarr mode (as netCDF-C) root variables over root dimensions; in pure
/// Zarr mode every variable, since the names are all a reader gets.
fn xarray_dims(ds: &Dataset, gid: usize, v: &Var) -> Option<Vec<String>> {
    if !ds.xarray {
        return None;
    }
    if v.is_scalar() && ds.pure_zarr {
        return Some(vec![]);
    }
    if v.is_scalar() {
        return (gid == 0 || !old_keys(ds)).then(|| vec!["_scalar_".to_string()]);
    }
    // netCDF-C 4.9.3+ writes them for every variable, 4.9.2 only for root
    // variables over root dimensions
    let all_root = v.dimids.iter().all(|&d| ds.dims[d].group == 0);
    if old_keys(ds) && !(gid == 0 && all_root) {
        return None;
    }
    Some(v.dimids.iter().map(|&d| ds.dims[d].name.clone()).collect())
}

fn var_objects(ds: &Dataset, gid: usize, vid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
    let v = &ds.groups[gid].vars[vid];
    let key = ds.var_key(gid, vid);
    // a scalar is shape [1] in NCZarr (the spec), a 0-d array in pure Zarr
    // (as zarr-python writes it); its one chunk is "0" either way
    let (shape, chunks) = match (v.is_scalar(), ds.pure_zarr) {
        (true, false) => (vec![1], vec![1]),
        (true, true) => (vec![], vec![]),
        _ => (ds.var_shape(v), v.chunks.clone()),
    };
    let strlen = ds.maxstrlen(gid, vid);
    let fill = if v.no_fill {
        Value::Null
    } else {
        match ds.fill_value(v)? {
            Values::Char(c) if c.iter().all(|&b| b == 0) => Value::String(String::new()),
            Values::String(s) if s.iter().all(|x| x.is_empty()) => Value::String(String::new()),
            other => values_to_json(&other),
        }
    };
    let (compressor, mut filters) = match v.codecs.split_last() {
        None => (Value::Null, Value::Null),
        Some((last, [])) => (last.clone(), Value::Null),
        Some((last, rest)) => (last.clone(), Value::Array(rest.to_vec())),
    };
    if let Some(oc) = &v.object_codec {
        let mut f = vec![oc.clone()];
        if let Value::Array(rest) = filters {
            f.extend(rest);
        }
        filters = Value::Array(f);
    }
    let mut z = Map::new();
    z.insert("zarr_format".into(), json!(2));
    z.insert("shape".into(), json!(shape));
    let dtype = match &v.stored_dtype {
        Some(d) => serde_json::from_str(d).unwrap_or_else(|_| json!(d)),
        None => json!(format_dtype(v.nctype, v.endian, strlen, ds.pure_zarr)),
    };
    z.insert("dtype".into(), dtype);
    z.insert("chunks".into(), json!(chunks));
    z.insert("fill_value".into(), fill);
    z.insert("order".into(), json!(if v.order_f { "F" } else { "C" }));
    z.insert("compressor".into(), compressor);
    z.insert("filters".into(), filters);
    if v.dim_separator != '.' {
        z.insert("dimension_separator".into(), json!(v.dim_separator.to_string()));
    }
    let mut hidden = vec![];
    if !ds.pure_zarr {
        let storage = match v.storage {
            NC_CONTIGUOUS => "contiguous",
            NC_COMPACT => "compact",
            _ => "chunked",
        };
        let dimrefs: Vec<String> = v.dimids.iter().map(|&d| ds.dim_fqn(d)).collect();
        if old_keys(ds) {
            // netCDF-C 4.9.2's key and 4.9.0's uppercase copy. netCDF-C 4.10
            // marks scalars with "scalar": 1 and crashes on a scalar without
            // it; 4.9.x ignores the key.
            let mut old = json!({ "dimrefs": dimrefs, "storage": if v.is_scalar() { "scalar" } else { storage } });
            if v.is_scalar() {
                old["scalar"] = json!(1);
            }
            z.insert("_nczarr_array".into(), old.clone());
            z.insert("_NCZARR_ARRAY".into(), old);
        } else {
            // As netCDF-C 4.9.3+ writes it (scalars: "scalar": 1, "storage": "chunked").
            let mut info = Map::new();
            info.insert("dimension_references".into(), json!(dimrefs));
            if v.is_scalar() {
                info.insert("scalar".into(), json!(1));
            }
            info.insert("storage".into(), json!(storage));
            hidden.push(("_nczarr_array", Value::Object(info)));
        }
    }
    out.push((key.child(".zarray")?, Value::Object(z)));
    let mut extra =
        xarray_dims(ds, gid, v).map(|d| vec![("_ARRAY_DIMENSIONS".to_string(), json!(d))]).unwrap_or_default();
    // the quantize attribute as netCDF-C writes it: after _ARRAY_DIMENSIONS,
    // an int without a type entry (a variable read has it among its
    // attributes: it keeps that place)
    let quantized;
    let mut atts = &v.atts;
    if let Some((name, nsd)) = v.quantize.attribute() {
        extra.push((name.to_string(), json!(nsd)));
        if v.atts.iter().any(|a| a.name == name) {
            quantized = v.atts.iter().filter(|a| a.name != name).cloned().collect::<Vec<_>>();
            atts = &quantized;
        }
    }
    out.push((key.child(".zattrs")?, Value::Object(attrs_object(ds, atts, extra, false, hidden))));
    Ok(())
}

/// Persists all metadata that changed since it was last written or read
/// (`nc_enddef`, `nc_sync`, `nc_close`). Every variable counts as defined
/// on disk afterwards.
pub fn write_metadata(ds: &mut Dataset) -> NcResult<()> {
    let mut objects = Vec::new();
    for gid in 0..ds.groups.len() {
        group_objects(ds, gid, &mut objects)?;
    }
    let todo: Vec<(StoreKey, Vec<u8>)> = objects
        .iter()
        .map(|(key, value)| (key.clone(), json::to_text(value).into_bytes()))
        .filter(|(key, bytes)| ds.written.get(key) != Some(bytes))
        .collect();
    if ds.store.io_bound() {
        // network stores: the objects are independent, send them together
        let store = ds.store.clone();
        super::data::IO_POOL.get().install(|| todo.par_iter().try_for_each(|(key, bytes)| store.set(key, bytes)))?;
    } else {
        // local stores: one after another (creates in one directory serialise
        // in the kernel; parallel writes measured slower)
        for (key, bytes) in &todo {
            ds.store.set(key, bytes)?;
        }
    }
    let changed = !todo.is_empty();
    for (key, bytes) in todo {
        ds.written.insert(key, bytes);
    }
    if ds.consolidated && changed {
        write_consolidated(ds)?;
    }
    for g in &mut ds.groups {
        for v in &mut g.vars {
            v.persisted = true;
        }
    }
    ds.fresh = false;
    Ok(())
}

/// Rewrites `.zmetadata` from every metadata object of the dataset.
fn write_consolidated(ds: &mut Dataset) -> NcResult<()> {
    let mut meta = Map::new();
    let mut keys: Vec<&StoreKey> =
        ds.written.keys().filter(|k| k.name().starts_with(".z") && k.name() != ".zmetadata").collect();
    keys.sort();
    for k in keys {
        meta.insert(k.as_str().to_string(), json::parse(&ds.written[k])?);
    }
    let doc = json!({ "metadata": meta, "zarr_consolidated_format": 1 });
    let key = StoreKey::parse(".zmetadata")?;
    ds.store.set(&key, json::to_text(&doc).as_bytes())?;
    Ok(())
}

// ---- reading -----------------------------------------------------------------

/// Metadata source: the store, or a consolidated `.zmetadata`.
struct Reader {
    store: Arc<dyn Store>,
    consolidated: Option<Map<String, Value>>,
    /// Objects fetched ahead, concurrently (network stores).
    prefetched: HashMap<StoreKey, Option<Vec<u8>>>,
    pure_zarr: bool,
    layout: Layout,
    xarray: bool,
    seen: HashMap<StoreKey, Vec<u8>>,
}

impl Reader {
    fn get(&mut self, key: &StoreKey) -> NcResult<Option<Value>> {
        if let Some(meta) = &self.consolidated {
            return Ok(meta.get(key.as_str()).cloned());
        }
        let fetched = match self.prefetched.remove(key) {
            Some(f) => f,
            None => self.store.get_max(key, crate::limits::limits().max_metadata_bytes)?,
        };
        match fetched {
            None => Ok(None),
            Some(bytes) => {
                let v = json::parse(&bytes).map_err(|e| bad(format!("{key}: {}", e.detail().unwrap_or("bad JSON"))))?;
                self.seen.insert(key.clone(), bytes);
                Ok(Some(v))
            }
        }
    }

    fn get_object(&mut self, key: &StoreKey) -> NcResult<Option<Map<String, Value>>> {
        match self.get(key)? {
            None => Ok(None),
            Some(Value::Object(m)) => Ok(Some(m)),
            Some(_) => Err(bad(format!("{key} is not a JSON object"))),
        }
    }

    fn exists(&mut self, key: &StoreKey) -> NcResult<bool> {
        if let Some(meta) = &self.consolidated {
            return Ok(meta.contains_key(key.as_str()));
        }
        Ok(self.store.size(key)?.is_some())
    }

    /// Child names of a group key that are arrays / groups (pure Zarr walk).
    fn children(&mut self, gkey: &StoreKey) -> NcResult<(Vec<String>, Vec<String>)> {
        let names: Vec<String> = match &self.consolidated {
            Some(meta) => {
                let prefix = if gkey.is_root() { String::new() } else { format!("{}/", gkey.as_str()) };
                let mut n: Vec<String> = meta
                    .keys()
                    .filter_map(|k| k.strip_prefix(&prefix))
                    .filter_map(|rest| rest.split_once('/').map(|(first, _)| first.to_string()))
                    .collect();
                n.sort();
                n.dedup();
                n
            }
            None => self.store.list_dir(gkey)?.unwrap_or_default(),
        };
        let (mut arrays, mut groups) = (vec![], vec![]);
        for name in names.into_iter().filter(|n| !n.starts_with('.')) {
            let k = gkey.child(&name)?;
            if self.exists(&k.child(".zarray")?)? {
                arrays.push(name);
            } else if self.exists(&k.child(".zgroup")?)? {
                groups.push(name);
            }
        }
        Ok((arrays, groups))
    }
}

fn as_u64_list(v: Option<&Value>, what: &str) -> NcResult<Vec<u64>> {
    let arr = v.and_then(Value::as_array).ok_or_else(|| bad(format!("{what} is missing or not a list")))?;
    arr.iter().map(|x| x.as_u64().ok_or_else(|| bad(format!("{what} holds a non-integer")))).collect()
}

fn as_str_list(v: &Value, what: &str) -> NcResult<Vec<String>> {
    let arr = v.as_array().ok_or_else(|| bad(format!("{what} is not a list")))?;
    arr.iter()
        .map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad(format!("{what} holds a non-string"))))
        .collect()
}

/// An NCZarr key of a group or array, looked up as netCDF-C 4.9.3+ does:
/// in `.zattrs` first, then in `.zgroup`/`.zarray` (with 4.9.0's
/// uppercase spelling as the last resort).
fn nczarr_key(zattrs: &Map<String, Value>, obj: &Map<String, Value>, key: &str) -> Option<Value> {
    zattrs.get(key).or_else(|| get_either(obj, key)).cloned()
}

/// Attribute types from `_nczarr_attr` (or its 4.9.0 / v1 spellings).
fn attr_types(zattrs: &Map<String, Value>, v1: Option<&Value>) -> HashMap<String, String> {
    let src = get_either(zattrs, "_nczarr_attr").or(v1);
    let mut out = HashMap::new();
    if let Some(types) = src.and_then(|a| a.get("types")).and_then(Value::as_object) {
        for (k, t) in types {
            if let Some(t) = t.as_str() {
                out.insert(k.clone(), t.to_string());
            }
        }
    }
    out
}

fn is_hidden_key(name: &str, xarray: bool) -> bool {
    if super::names::USER_NCZARR_ATTS.contains(&name) {
        return false;
    }
    name.starts_with("_nczarr_") || name.starts_with("_NCZARR_") || (xarray && name == "_ARRAY_DIMENSIONS")
}

/// Converts `.zattrs` into attributes. `var_type` hints `_FillValue`.
fn read_atts(
    r: &Reader,
    zattrs: &Map<String, Value>,
    v1types: Option<&Value>,
    var_type: Option<NcType>,
) -> NcResult<(Vec<Att>, Option<String>)> {
    let types = attr_types(zattrs, v1types);
    let mut atts = Vec::new();
    let mut provenance = None;
    for (name, value) in zattrs {
        if is_hidden_key(name, r.xarray || !r.pure_zarr) {
            continue;
        }
        if name == "_NCProperties" {
            provenance = value.as_str().map(str::to_string);
            continue;
        }
        check_stored_att_name(name)?;
        let t = match types.get(name) {
            Some(t) => {
                let d = parse_dtype(t, r.pure_zarr)?;
                if d.json {
                    continue;
                }
                Some(d.nctype)
            }
            None if name == NC_FillValue_NAME => var_type,
            None => None,
        };
        atts.push(Att { name: name.clone(), values: json_to_values(value, t)? });
    }
    Ok((atts, provenance))
}

/// Attribute names from a store: not empty, at most `NC_MAX_NAME` bytes (C
/// callers copy them into `NC_MAX_NAME + 1` buffers), no `/` and no control
/// characters. Other oddities netCDF's rules refuse for new names (a leading
/// `-`, a trailing space) are kept, as data in the wild has them.
fn check_stored_att_name(name: &str) -> NcResult<()> {
    if name.is_empty() || name.len() > NC_MAX_NAME as usize || name.chars().any(|c| c == '/' || c.is_control()) {
        return Err(bad(format!("bad attribute name {:?}", name.chars().take(64).collect::<String>())));
    }
    Ok(())
}

struct PendingVar {
    gid: usize,
    name: String,
}

/// Reads a dataset's metadata into a new [`Dataset`].
///
/// A consolidated `.zmetadata` is used in place of the individual objects
/// when `use_consolidated` is set (`mode=consolidated`, as in netCDF-C 4.10)
/// or when the store has no root `.zgroup` object of its own. Otherwise the
/// objects themselves are read, so a stale `.zmetadata` never hides data.
pub fn read_dataset(
    store: Arc<dyn Store>,
    path: &str,
    mode: i32,
    xarray: bool,
    force_pure: bool,
    use_consolidated: bool,
) -> NcResult<Dataset> {
    let root = StoreKey::root();
    let mut r = Reader {
        store: store.clone(),
        consolidated: None,
        prefetched: HashMap::new(),
        pure_zarr: false,
        layout: Layout::V2,
        xarray,
        seen: HashMap::new(),
    };

    let zmeta_key = root.child(".zmetadata")?;
    let has_zmetadata = store.size(&zmeta_key)?.is_some();
    let has_root_group = store.size(&root.child(".zgroup")?)?.is_some();
    if has_zmetadata && (use_consolidated || !has_root_group) {
        if let Ok(Some(Value::Object(doc))) = r.get(&zmeta_key) {
            if let Some(Value::Object(meta)) = doc.get("metadata") {
                if !meta.is_empty() {
                    r.consolidated = Some(meta.clone());
                }
            }
        }
    }

    let v1 = r.consolidated.is_none() && store.size(&root.child(".nczarr")?)?.is_some();
    let zgroup = r.get_object(&root.child(".zgroup")?)?;
    let zattrs = r.get_object(&root.child(".zattrs")?)?;
    if zgroup.is_none() && !v1 {
        if r.exists(&root.child(".zarray")?)? {
            return Err(NcError::with(NC_ENOTNC, "the store root is an array, not a group"));
        }
        // An implicit root group (pure Zarr: arrays or groups below a root
        // that has no .zgroup), as netCDF-C 4.10 and zarr-python read it.
        let (arrays, groups) = r.children(&root)?;
        if arrays.is_empty() && groups.is_empty() {
            return Err(NcError::with(NC_ENOTNC, "no Zarr group at the store root"));
        }
    }
    r.layout = if force_pure && !v1 {
        Layout::PureZarr
    } else if v1 {
        Layout::V1
    } else if zattrs.as_ref().is_some_and(|a| a.contains_key("_nczarr_superblock") || a.contains_key("_nczarr_group")) {
        // first, as netCDF-C 4.9.3+ does
        Layout::V2InAttrs
    } else if zgroup.as_ref().is_some_and(|g| g.contains_key("_nczarr_superblock") || g.contains_key("_nczarr_group")) {
        Layout::V2
    } else if zgroup.as_ref().is_some_and(|g| g.contains_key("_NCZARR_SUPERBLOCK") || g.contains_key("_NCZARR_GROUP")) {
        Layout::V2Upper
    } else {
        Layout::PureZarr
    };
    r.pure_zarr = r.layout == Layout::PureZarr;

    let mut ds = Dataset::new_empty(store.clone(), path, mode, r.pure_zarr, xarray);
    ds.layout = r.layout;
    ds.define_mode = false;
    ds.fresh = false;
    ds.provenance = None;
    ds.consolidated = has_zmetadata;

    let mut pending = Vec::new();
    read_groups(&mut r, &mut ds, &mut pending)?;
    if r.consolidated.is_none() && store.io_bound() {
        // every variable's metadata in one concurrent round
        let mut keys = Vec::new();
        for p in &pending {
            let vkey = ds.group_key(p.gid).child(&p.name)?;
            for name in [".zarray", ".zattrs", ".nczarray", ".nczvar"] {
                if name.starts_with(".ncz") && r.layout != Layout::V1 {
                    continue;
                }
                keys.push(vkey.child(name)?);
            }
        }
        let max = crate::limits::limits().max_metadata_bytes;
        let got: Vec<crate::map::MapResult<Option<Vec<u8>>>> =
            super::data::IO_POOL.get().install(|| keys.par_iter().map(|k| store.get_max(k, max)).collect());
        for (k, v) in keys.into_iter().zip(got) {
            r.prefetched.insert(k, v?);
        }
    }
    for p in pending {
        read_var(&mut r, &mut ds, p.gid, &p.name)?;
    }
    ds.written = std::mem::take(&mut r.seen);
    if r.layout == Layout::V1 {
        ds.writable = false;
    }
    Ok(ds)
}

/// Reads the group tree, depth first, without recursion (a crafted store
/// may nest groups thousands deep), within the group count and nesting
/// limits. Group ids are assigned in pre-order.
fn read_groups(r: &mut Reader, ds: &mut Dataset, pending: &mut Vec<PendingVar>) -> NcResult<()> {
    let limits = crate::limits::limits();
    let mut stack = vec![(0usize, read_group(r, ds, 0, pending)?.into_iter())];
    while let Some((parent, names)) = stack.last_mut() {
        let Some(name) = names.next() else {
            stack.pop();
            continue;
        };
        let parent = *parent;
        if stack.len() > limits.max_depth {
            return Err(bad(format!("groups nested deeper than {} (NCZARR_RS_MAX_DEPTH)", limits.max_depth)));
        }
        if ds.groups.len() >= limits.max_groups {
            return Err(bad(format!("more than {} groups (NCZARR_RS_MAX_GROUPS)", limits.max_groups)));
        }
        let child = ds.groups.len();
        ds.groups.push(Group {
            name,
            parent: Some(parent),
            dims: vec![],
            vars: vec![],
            children: vec![],
            atts: vec![],
        });
        ds.groups[parent].children.push(child);
        let names = read_group(r, ds, child, pending)?;
        stack.push((child, names.into_iter()));
    }
    Ok(())
}

/// Reads a group's dimensions and attributes, and returns the names of its
/// child groups (variables are collected in `pending` and read once every
/// dimension exists).
fn read_group(r: &mut Reader, ds: &mut Dataset, gid: usize, pending: &mut Vec<PendingVar>) -> NcResult<Vec<String>> {
    let gkey = ds.group_key(gid);
    let zgroup = r.get_object(&gkey.child(".zgroup")?)?.unwrap_or_default();
    if let Some(f) = zgroup.get("zarr_format") {
        if f.as_u64() != Some(2) {
            return Err(bad(format!("{gkey}: zarr_format {f} is not 2")));
        }
    }
    let zattrs = r.get_object(&gkey.child(".zattrs")?)?.unwrap_or_default();
    let v1attr = if r.layout == Layout::V1 {
        r.get(&gkey.child(".nczattr")?)?.or(r.get(&gkey.child(".nczattrs")?)?)
    } else {
        None
    };
    let info: Option<Value> = match r.layout {
        Layout::V1 => r.get(&gkey.child(".nczgroup")?)?,
        Layout::V2 | Layout::V2Upper | Layout::V2InAttrs => nczarr_key(&zattrs, &zgroup, "_nczarr_group"),
        Layout::PureZarr => None,
    };
    let (atts, provenance) = read_atts(r, &zattrs, v1attr.as_ref(), None)?;
    ds.groups[gid].atts = atts;
    if gid == 0 {
        ds.provenance = provenance;
    }

    let (vars, groups) = match info {
        Some(Value::Object(info)) => {
            let unlimited: Vec<String> =
                info.get("unlimited").map(|u| as_str_list(u, "unlimited")).transpose()?.unwrap_or_default();
            if let Some(dims) = info.get("dims").or_else(|| info.get("dimensions")) {
                let dims = dims.as_object().ok_or_else(|| bad(format!("{gkey}: dims is not an object")))?;
                for (name, v) in dims {
                    let (len, unlim) = match v {
                        Value::Number(n) => {
                            (n.as_u64().ok_or_else(|| bad(format!("dimension {name}: bad length")))?, false)
                        }
                        Value::Object(o) => (
                            o.get("size")
                                .and_then(Value::as_u64)
                                .ok_or_else(|| bad(format!("dimension {name}: bad size")))?,
                            o.get("unlimited").and_then(Value::as_u64).unwrap_or(0) != 0,
                        ),
                        _ => return Err(bad(format!("dimension {name}: bad length"))),
                    };
                    super::names::check_name(name).map_err(|_| bad(format!("bad dimension name {name:?}")))?;
                    let id = ds.dims.len();
                    ds.dims.push(Dim {
                        name: name.clone(),
                        len,
                        unlimited: unlim || unlimited.contains(name),
                        group: gid,
                    });
                    ds.groups[gid].dims.push(id);
                }
            }
            let vars = info
                .get("vars")
                .or_else(|| info.get("arrays"))
                .map(|v| as_str_list(v, "vars"))
                .transpose()?
                .unwrap_or_default();
            let groups = info.get("groups").map(|v| as_str_list(v, "groups")).transpose()?.unwrap_or_default();
            (vars, groups)
        }
        Some(_) => return Err(bad(format!("{gkey}: _nczarr_group is not an object"))),
        None => r.children(&gkey)?,
    };
    for name in vars {
        super::names::check_name(&name).map_err(|_| bad(format!("bad variable name {name:?}")))?;
        pending.push(PendingVar { gid, name });
    }
    for name in &groups {
        super::names::check_name(name).map_err(|_| bad(format!("bad group name {name:?}")))?;
    }
    Ok(groups)
}

/// Finds or creates a dimension `name` of length `len` for a variable of
/// group `gid` (pure Zarr / XArray naming).
fn named_dim(ds: &mut Dataset, gid: usize, name: &str, len: u64, create_in: usize) -> NcResult<usize> {
    if let Some(d) = ds.find_dim(gid, name) {
        if ds.dims[d].len == len {
            return Ok(d);
        }
        if ds.dims[d].group == create_in {
            return Err(NcError::with(
                NC_EDIMSIZE,
                format!("dimension {name} has lengths {} and {len}", ds.dims[d].len),
            ));
        }
    }
    let id = ds.dims.len();
    ds.dims.push(Dim { name: name.into(), len, unlimited: false, group: create_in });
    ds.groups[create_in].dims.push(id);
    Ok(id)
}

fn read_var(r: &mut Reader, ds: &mut Dataset, gid: usize, name: &str) -> NcResult<()> {
    let vkey = ds.group_key(gid).child(name)?;
    let z = r.get_object(&vkey.child(".zarray")?)?.ok_or_else(|| bad(format!("{vkey}: no .zarray")))?;
    let zattrs = r.get_object(&vkey.child(".zattrs")?)?.unwrap_or_default();
    if z.get("zarr_format").and_then(Value::as_u64) != Some(2) {
        return Err(bad(format!("{vkey}: zarr_format is not 2")));
    }
    let shape = as_u64_list(z.get("shape"), "shape")?;
    if shape.len() > NC_MAX_VAR_DIMS as usize {
        // callers size dimension id arrays NC_MAX_VAR_DIMS
        return Err(NcError::with(NC_EMAXDIMS, format!("{vkey}: {} dimensions", shape.len())));
    }
    let mut chunks = as_u64_list(z.get("chunks"), "chunks")?;
    if chunks.len() != shape.len() || chunks.contains(&0) {
        return Err(bad(format!("{vkey}: chunks do not match shape")));
    }
    // A dtype or object codec this library cannot decode leaves the
    // variable visible (NC_UBYTE, or NC_STRING for `|O`) with reads failing.
    let mut unreadable = None;
    let mut object_codec = None;
    let mut stored_dtype = None;
    let mut kept_dtype = None;
    let first_filter = z.get("filters").and_then(Value::as_array).and_then(|f| f.first());
    let dtype_s = z.get("dtype").and_then(Value::as_str).unwrap_or("");
    let dtype = match z.get("dtype") {
        Some(Value::String(s)) if s == "|O" => {
            stored_dtype = Some(s.clone());
            let id = first_filter.and_then(|f| f.get("id")).and_then(Value::as_str).unwrap_or("");
            if crate::codec::vlen::is_object_codec(id) {
                object_codec = first_filter.cloned();
            }
            if !crate::codec::vlen::IDS.contains(&id) {
                let what = if id.is_empty() { "no object codec".to_string() } else { format!("object codec {id:?}") };
                unreadable =
                    Some(NcError::with(NC_ENOFILTER, format!("{vkey}: dtype |O with {what} is not available")));
            }
            DType { nctype: NC_STRING, endian: NC_ENDIAN_NATIVE, strlen: None, json: false, ucs4: false }
        }
        Some(d) => match d.as_str().map(|s| parse_dtype(s, r.pure_zarr)) {
            Some(Ok(t)) if !t.json => {
                // pure Zarr char spelt otherwise than this library writes it
                // (netCDF-C 4.9.0's `<U1`): kept, since `|S1` reads back as a
                // string (a rewrite changed the variable's type: fuzzing)
                if r.pure_zarr && t.nctype == NC_CHAR && dtype_s != format_dtype(NC_CHAR, t.endian, 1, true) {
                    kept_dtype = Some(dtype_s.to_string());
                }
                t
            }
            _ => {
                stored_dtype = Some(d.as_str().map_or_else(|| d.to_string(), str::to_string));
                unreadable = Some(NcError::with(NC_EBADTYPE, format!("{vkey}: dtype {d} is not supported")));
                DType { nctype: NC_UBYTE, endian: NC_ENDIAN_NATIVE, strlen: None, json: false, ucs4: false }
            }
        },
        None => return Err(bad(format!("{vkey}: no dtype"))),
    };
    let order_f = match z.get("order").and_then(Value::as_str) {
        Some("C") | None => false,
        Some("F") => true,
        Some(o) => return Err(bad(format!("{vkey}: order {o:?}"))),
    };
    let dim_separator = match z.get("dimension_separator").and_then(Value::as_str) {
        Some("/") => '/',
        _ => '.',
    };
    let mut codecs = Vec::new();
    match z.get("filters") {
        // the object codec is the variable's string layout, not a filter
        Some(Value::Array(f)) => codecs.extend(f.iter().skip(usize::from(object_codec.is_some())).cloned()),
        Some(Value::Null) | None => {}
        Some(_) => return Err(bad(format!("{vkey}: filters is not a list"))),
    }
    match z.get("compressor") {
        Some(Value::Null) | None => {}
        Some(c @ Value::Object(_)) => codecs.push(c.clone()),
        Some(_) => return Err(bad(format!("{vkey}: compressor is not an object"))),
    }

    let v1info = if r.layout == Layout::V1 {
        r.get(&vkey.child(".nczarray")?)?.or(r.get(&vkey.child(".nczvar")?)?)
    } else {
        None
    };
    let info = match r.layout {
        Layout::V1 => v1info,
        Layout::V2 | Layout::V2Upper | Layout::V2InAttrs => nczarr_key(&zattrs, &z, "_nczarr_array"),
        Layout::PureZarr => None,
    };
    let mut storage = NC_CHUNKED;
    let dimids: Vec<usize> = match info {
        Some(info) => {
            let dimrefs = info.get("dimrefs").or_else(|| info.get("dimension_references"));
            let dimrefs = dimrefs.map(|d| as_str_list(d, "dimrefs")).transpose()?.unwrap_or_default();
            match info.get("storage").and_then(Value::as_str) {
                Some("contiguous") => storage = NC_CONTIGUOUS,
                Some("compact") => storage = NC_COMPACT,
                _ => {}
            }
            let scalar = info.get("storage").and_then(Value::as_str) == Some("scalar") || dimrefs.is_empty();
            if scalar {
                if shape.len() > 1 || shape.first().is_some_and(|&n| n != 1) {
                    return Err(bad(format!("{vkey}: scalar with shape {shape:?}")));
                }
                vec![]
            } else {
                if dimrefs.len() != shape.len() {
                    return Err(bad(format!("{vkey}: {} dimrefs for {} dimensions", dimrefs.len(), shape.len())));
                }
                let mut ids = Vec::new();
                for (i, fqn) in dimrefs.iter().enumerate() {
                    let d = ds.find_dim(gid, fqn).ok_or_else(|| bad(format!("{vkey}: unknown dimension {fqn}")))?;
                    let dim = &mut ds.dims[d];
                    if dim.unlimited {
                        dim.len = dim.len.max(shape[i]);
                    } else if dim.len != shape[i] {
                        return Err(bad(format!(
                            "{vkey}: shape {} does not match dimension {fqn} = {}",
                            shape[i], dim.len
                        )));
                    }
                    ids.push(d);
                }
                ids
            }
        }
        None => {
            let names = if r.xarray {
                zattrs.get("_ARRAY_DIMENSIONS").map(|a| as_str_list(a, "_ARRAY_DIMENSIONS")).transpose()?
            } else {
                None
            };
            match names {
                _ if shape.is_empty() => vec![],
                Some(n) if n.len() == 1 && n[0] == "_scalar_" && shape == [1] => vec![],
                Some(n) if n.len() == shape.len() => {
                    let mut ids = Vec::new();
                    for (i, name) in n.iter().enumerate() {
                        super::names::check_name(name).map_err(|_| bad(format!("bad dimension name {name:?}")))?;
                        // the name an anonymous dimension was written back
                        // with lives in the root, as the anonymous dimension
                        // did (else a rewrite moved it: found by fuzzing)
                        let home = if *name == anonymous_name(shape[i]) { 0 } else { gid };
                        ids.push(named_dim(ds, gid, name, shape[i], home)?);
                    }
                    ids
                }
                Some(n) if !n.is_empty() || !shape.is_empty() => {
                    if !n.is_empty() {
                        return Err(bad(format!(
                            "{vkey}: _ARRAY_DIMENSIONS has {} names for {} dimensions",
                            n.len(),
                            shape.len()
                        )));
                    }
                    anonymous_dims(ds, &shape)?
                }
                _ => anonymous_dims(ds, &shape)?,
            }
        }
    };
    if dimids.is_empty() {
        chunks.clear();
    }
    let (atts, _) = read_atts(r, &zattrs, None, Some(dtype.nctype))?;
    let zarray_fill = match z.get("fill_value") {
        None | Some(Value::Null) => None,
        Some(_) if unreadable.is_some() => None,
        Some(f) => match dtype.nctype {
            NC_CHAR => Some(Values::Char(vec![f.as_str().and_then(|s| s.bytes().next()).unwrap_or(0)])),
            NC_STRING => Some(Values::String(vec![f.as_str().unwrap_or("").to_string()])),
            t => {
                let (values, range) =
                    json::json_to_values_ranged(f, t).map_err(|_| bad(format!("{vkey}: bad fill_value {f}")))?;
                if range {
                    // as netCDF-C: a fill value its type cannot hold
                    return Err(NcError::with(NC_ERANGE, format!("{vkey}: fill_value {f} is out of range")));
                }
                Some(values)
            }
        },
    };
    // `|O` arrays have no fill value (null) as zarr-python writes them: a
    // missing chunk reads as the NC_STRING default, ""
    let no_fill = matches!(z.get("fill_value"), Some(Value::Null)) && stored_dtype.is_none();
    let quantize = super::quantize::Quantize::from_atts(&atts);
    let v = Var {
        name: name.to_string(),
        nctype: dtype.nctype,
        dimids,
        chunks,
        storage,
        no_fill,
        zarray_fill,
        // `|i1`/`|u1`: no byte order (netCDF-C reports NC_ENDIAN_NATIVE)
        endian: if dtype_s.starts_with('|') && matches!(dtype.nctype, NC_BYTE | NC_UBYTE) {
            NC_ENDIAN_NATIVE
        } else {
            dtype.endian
        },
        atts,
        dim_separator,
        order_f,
        codecs,
        dtype_strlen: dtype.strlen,
        ucs4: dtype.ucs4,
        object_codec,
        stored_dtype: stored_dtype.or(kept_dtype),
        unreadable,
        persisted: true,
        has_data: true,
        quantize,
        cache: Arc::new(super::cache::ChunkCache::new(super::cache::defaults())),
    };
    ds.groups[gid].vars.push(v);
    Ok(())
}

/// Pure Zarr without dimension names: one root dimension per distinct
/// length, named `_Anonymous_Dim_<len>`, as netCDF-C 4.9.3+ does (for a
/// variable in any group: the harness's zarr-python dataset checks it).
fn anonymous_dims(ds: &mut Dataset, shape: &[u64]) -> NcResult<Vec<usize>> {
    shape.iter().map(|&len| named_dim(ds, 0, &anonymous_name(len), len, 0)).collect()
}

fn anonymous_name(len: u64) -> String {
    format!("_Anonymous_Dim_{len}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dtypes() {
        assert_eq!(parse_dtype("<i4", false).unwrap().nctype, NC_INT);
        assert_eq!(parse_dtype(">f8", false).unwrap().endian, NC_ENDIAN_BIG);
        assert_eq!(parse_dtype(">S1", false).unwrap().nctype, NC_CHAR);
        assert_eq!(parse_dtype(">S1", true).unwrap().nctype, NC_STRING);
        assert_eq!(parse_dtype("|S1", false).unwrap().nctype, NC_STRING);
        assert_eq!(parse_dtype("<U1", false).unwrap().nctype, NC_CHAR);
        assert_eq!(parse_dtype("<U1", true).unwrap().nctype, NC_CHAR);
        let u = parse_dtype("<U8", true).unwrap();
        assert!(u.nctype == NC_STRING && u.ucs4 && u.strlen == Some(8));
        assert_eq!(parse_dtype("|S16", false).unwrap().strlen, Some(16));
        assert!(parse_dtype("|J0", false).unwrap().json);
        // "ā" and "<ā1": found by tests/fuzz_metadata.rs (a slice inside a character).
        for bad in ["<c8", "<M8", "|V4", "", "<i", "<i3", "x", "ā", "<ā1", "<iā", "\u{1}"] {
            assert_eq!(parse_dtype(bad, false).unwrap_err().code(), NC_ENCZARR, "{bad}");
        }
        assert_eq!(format_dtype(NC_BYTE, NC_ENDIAN_LITTLE, 0, false), "|i1");
        assert_eq!(format_dtype(NC_INT, NC_ENDIAN_BIG, 0, false), ">i4");
        assert_eq!(format_dtype(NC_STRING, NC_ENDIAN_LITTLE, 64, false), "|S64");
        assert_eq!(format_dtype(NC_CHAR, NC_ENDIAN_LITTLE, 0, false), ">S1");
        assert_eq!(format_dtype(NC_CHAR, NC_ENDIAN_LITTLE, 0, true), "|S1");
    }
}
