//! The Zarr v2 container: `.zgroup`, `.zarray`, `.zattrs` per node, and a
//! consolidated `.zmetadata`, with NCZarr metadata in any layout netCDF-C
//! has written (see docs/COMPATIBILITY.md), or none (pure Zarr, XArray).
//!
//! Written by default (`mode=nczarr`): what netCDF-C 4.9.3+/4.10 write, the
//! NCZarr keys `_nczarr_superblock`, `_nczarr_group`/`_nczarr_array` and
//! `_nczarr_attr` inside `.zattrs` (typed `|J0`), unlimited dimensions as
//! `{"size": N, "unlimited": 1}`, `_ARRAY_DIMENSIONS` on every variable;
//! `.zgroup`/`.zarray` stay pure Zarr. `mode=nczarr,oldkeys` writes the
//! spec's (netCDF-C 4.9.2's) placement: the keys in `.zgroup`/`.zarray`, plus
//! uppercase copies for netCDF-C 4.9.0. Every object gets a `.zattrs`.
//! `mode=zarr` writes pure Zarr v2 (with XArray `_ARRAY_DIMENSIONS` unless
//! `noxarray`). NCZarr v1 stores (`.nczarr`, `.nczgroup`, ...) are read
//! only.

pub mod dtype;

use super::{bad, nczarr, xarray, ChunkKeys, Extents, Format, OpenOptions, Probe, Root};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::json::{self, values_to_json};
use crate::engine::model::*;
use crate::engine::types::Values;
use crate::engine::{NcError, NcResult};
use crate::map::{Store, StoreKey};
use dtype::{format_dtype, parse_dtype, DType};
use serde_json::{json, Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// Zarr v2, with or without NCZarr metadata.
#[derive(Debug)]
pub struct Zarr2;

impl Format for Zarr2 {
    fn name(&self) -> &'static str {
        "zarr2"
    }

    /// The group's, array's and attributes' objects, the consolidated
    /// metadata, and NCZarr v1's marker.
    fn markers(&self) -> &'static [&'static str] {
        &[".zgroup", ".zarray", ".zattrs", ".zmetadata", ".nczarr"]
    }

    /// The root group's objects, read; `.zmetadata` read when asked for
    /// (`mode=consolidated`), else only its existence; the NCZarr v1
    /// marker's existence.
    fn root_objects(&self, opts: OpenOptions) -> Vec<(&'static str, Probe)> {
        let zmetadata = if opts.consolidated { Probe::Get } else { Probe::Size };
        vec![(".zgroup", Probe::Get), (".zattrs", Probe::Get), (".zmetadata", zmetadata), (".nczarr", Probe::Size)]
    }

    fn claims(&self, store: &dyn Store, root: &Root) -> NcResult<bool> {
        for name in [".zgroup", ".zmetadata", ".nczarr"] {
            if root.has(store, name)? {
                return Ok(true);
            }
        }
        Ok(false)
    }

    fn read(&self, store: Arc<dyn Store>, path: &str, mode: i32, opts: OpenOptions, root: Root) -> NcResult<Dataset> {
        read_dataset(store, path, mode, opts, root)
    }

    fn group_objects(&self, ds: &Dataset, gid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
        group_objects(ds, gid, out)
    }

    fn var_objects(&self, ds: &Dataset, gid: usize, vid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
        var_objects(ds, gid, vid, out)
    }

    fn chunk_keys(&self, _scalar: bool) -> ChunkKeys {
        ChunkKeys::V2('.')
    }

    fn extents(&self) -> Extents {
        // netCDF-C 4.9.3+ (`.zattrs`), then 4.9.2 (`.zgroup`)
        Extents {
            group: &[(".zattrs", &["_nczarr_group", "dimensions"]), (".zgroup", &["_nczarr_group", "dims"])],
            array: ".zarray",
        }
    }

    fn consolidated(&self, written: &HashMap<StoreKey, Vec<u8>>) -> NcResult<(StoreKey, Value)> {
        let mut meta = Map::new();
        let mut keys: Vec<&StoreKey> =
            written.keys().filter(|k| k.name().starts_with(".z") && k.name() != ".zmetadata").collect();
        keys.sort();
        for k in keys {
            meta.insert(k.as_str().to_string(), json::parse_object(k, &written[k])?);
        }
        let doc = json!({ "metadata": meta, "zarr_consolidated_format": 1 });
        Ok((StoreKey::parse(".zmetadata")?, doc))
    }
}

// ---- writing -----------------------------------------------------------------

fn group_objects(ds: &Dataset, gid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
    let g = &ds.groups[gid];
    let key = ds.group_key(gid);
    let keys = nczarr::group_keys(ds, gid);
    let mut zgroup = Map::new();
    zgroup.insert("zarr_format".into(), json!(2));
    for (k, v) in keys.in_object {
        zgroup.insert(k.into(), v);
    }
    out.push((key.child(".zgroup")?, Value::Object(zgroup)));
    let zattrs = nczarr::attributes(ds, &g.atts, vec![], gid == 0, keys.in_attrs);
    out.push((key.child(".zattrs")?, Value::Object(zattrs)));
    Ok(())
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
            // `|O` strings with the default fill: null, as xarray writes them
            // (xarray would mask every "" as missing with a "" fill value)
            Values::String(s) if v.object_codec.is_some() && s.iter().all(|x| x.is_empty()) => Value::Null,
            Values::String(s) if s.iter().all(|x| x.is_empty()) => Value::String(String::new()),
            other => values_to_json(&other),
        }
    };
    let (compressor, mut filters) = v.codecs.to_zarr_v2();
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
        // variable-length strings: numpy's object dtype, as zarr-python writes them
        None if v.object_codec.is_some() => json!("|O"),
        None => json!(format_dtype(v.nctype, v.endian, strlen, ds.pure_zarr)),
    };
    z.insert("dtype".into(), dtype);
    z.insert("chunks".into(), json!(chunks));
    z.insert("fill_value".into(), fill);
    // (a Zarr v2 variable's only transpose is the reverse: F)
    z.insert("order".into(), json!(if v.transpose.is_some() { "F" } else { "C" }));
    z.insert("compressor".into(), compressor);
    z.insert("filters".into(), filters);
    if v.chunk_keys.separator() != '.' {
        z.insert("dimension_separator".into(), json!(v.chunk_keys.separator().to_string()));
    }
    let keys = nczarr::array_keys(ds, gid, vid);
    for (k, v) in keys.in_object {
        z.insert(k.into(), v);
    }
    out.push((key.child(".zarray")?, Value::Object(z)));
    let extra = xarray::names_to_write(ds, gid, v)
        .map(|d| vec![("_ARRAY_DIMENSIONS".to_string(), json!(d))])
        .unwrap_or_default();
    out.push((key.child(".zattrs")?, Value::Object(nczarr::var_attributes(ds, v, extra, keys.in_attrs))));
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
    nczarr_layout: NczarrLayout,
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
            // read before (the root group's objects are read twice)
            None if self.seen.contains_key(key) => self.seen.get(key).cloned(),
            None => self.store.get_max(key, crate::limits::limits().max_metadata_bytes)?,
        };
        match fetched {
            None => Ok(None),
            Some(bytes) => {
                let v = json::parse_object(key, &bytes)
                    .map_err(|e| bad(format!("{key}: {}", e.detail().unwrap_or("bad JSON"))))?;
                self.seen.insert(key.clone(), bytes);
                Ok(Some(v))
            }
        }
    }

    /// Fetches `keys` concurrently (a network store), for [`Reader::get`].
    fn prefetch(&mut self, keys: &[StoreKey]) -> NcResult<()> {
        super::prefetch_into(self.store.as_ref(), keys, &mut self.prefetched)
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
            Some(meta) => super::consolidated_children(meta.keys(), gkey),
            None => self.store.list_dir(gkey)?.unwrap_or_default(),
        };
        let (mut arrays, mut groups) = (vec![], vec![]);
        let mut names: Vec<String> = names.into_iter().filter(|n| !n.starts_with('.')).collect();
        let mut arrays_known = false;
        if self.consolidated.is_none() && self.store.io_bound() && names.len() > 1 {
            // a network store: every child's .zarray at once, kept for
            // reading the array (rather than a HEAD each, one after another)
            let keys = names.iter().map(|n| gkey.child(n)?.child(".zarray")).collect::<Result<Vec<_>, _>>()?;
            self.prefetch(&keys)?;
            let mut rest = Vec::new();
            for (name, key) in names.into_iter().zip(&keys) {
                match self.prefetched.get(key) {
                    Some(Some(_)) => arrays.push(name),
                    _ => rest.push(name),
                }
            }
            names = rest;
            arrays_known = true;
        }
        for name in names {
            let k = gkey.child(&name)?;
            if !arrays_known && self.exists(&k.child(".zarray")?)? {
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
fn read_dataset(store: Arc<dyn Store>, path: &str, mode: i32, opts: OpenOptions, probed: Root) -> NcResult<Dataset> {
    let OpenOptions { xarray, pure_zarr: force_pure, consolidated: use_consolidated, .. } = opts;
    let root = StoreKey::root();
    let zmeta_key = root.child(".zmetadata")?;
    // Asked for: read with the root's objects, which also tells whether it
    // exists. Else only where there is no root .zgroup.
    let has_zmetadata = use_consolidated || probed.has(store.as_ref(), ".zmetadata")?;
    let read_zmetadata = has_zmetadata && (use_consolidated || !probed.has(store.as_ref(), ".zgroup")?);
    let v1_marker = probed.has(store.as_ref(), ".nczarr")?;
    let mut r = Reader {
        store: store.clone(),
        consolidated: None,
        prefetched: probed.into_fetched().collect(),
        pure_zarr: false,
        nczarr_layout: NczarrLayout::V2,
        xarray,
        seen: HashMap::new(),
    };

    // A .zmetadata that cannot be used is skipped, as netCDF-C does, and
    // reported in the dataset's notes.
    let mut notes = Vec::new();
    let mut has_zmetadata = has_zmetadata;
    if read_zmetadata {
        match r.get(&zmeta_key) {
            Ok(Some(Value::Object(doc))) => match doc.get("metadata") {
                Some(Value::Object(meta)) if !meta.is_empty() => r.consolidated = Some(meta.clone()),
                Some(Value::Object(_)) => {}
                _ => notes.push(format!("{zmeta_key}: no \"metadata\" object: ignored")),
            },
            Ok(Some(_)) => notes.push(format!("{zmeta_key} is not a JSON object: ignored")),
            Ok(None) => has_zmetadata = false,
            Err(e) => notes.push(format!("{}: ignored", e.context(&zmeta_key).detail().unwrap_or_default())),
        }
    }

    let v1 = r.consolidated.is_none() && v1_marker;
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
    r.nczarr_layout = if force_pure && !v1 {
        NczarrLayout::PureZarr
    } else if v1 {
        NczarrLayout::V1
    } else {
        nczarr::detect(zgroup.as_ref(), zattrs.as_ref()).unwrap_or(NczarrLayout::PureZarr)
    };
    r.pure_zarr = r.nczarr_layout == NczarrLayout::PureZarr;

    let mut ds = Dataset::new_empty(store.clone(), path, mode, r.pure_zarr, xarray);
    ds.nczarr_layout = r.nczarr_layout;
    ds.format = &Zarr2;
    ds.define_mode = false;
    ds.fresh = false;
    ds.provenance = None;
    ds.consolidated = has_zmetadata;
    ds.notes = notes;

    let mut pending = Vec::new();
    super::read_group_tree(&mut ds, (), |ds, gid, ()| {
        Ok(read_group(&mut r, ds, gid, &mut pending)?.into_iter().map(|n| (n, ())).collect())
    })?;
    if r.consolidated.is_none() && store.io_bound() {
        // every variable's metadata in one concurrent round
        let mut keys = Vec::new();
        for p in &pending {
            let vkey = ds.group_key(p.gid).child(&p.name)?;
            for name in [".zarray", ".zattrs", ".nczarray", ".nczvar"] {
                let key = vkey.child(name)?;
                if (name.starts_with(".ncz") && r.nczarr_layout != NczarrLayout::V1) || r.prefetched.contains_key(&key)
                {
                    continue;
                }
                keys.push(key);
            }
        }
        r.prefetch(&keys)?;
    }
    for p in pending {
        let vkey = ds.group_key(p.gid).child(&p.name)?;
        read_var(&mut r, &mut ds, p.gid, &p.name).context(vkey)?;
    }
    ds.written = std::mem::take(&mut r.seen);
    if r.nczarr_layout == NczarrLayout::V1 {
        ds.writable = false;
    }
    Ok(ds)
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
    let v1attr = if r.nczarr_layout == NczarrLayout::V1 {
        r.get(&gkey.child(".nczattr")?)?.or(r.get(&gkey.child(".nczattrs")?)?)
    } else {
        None
    };
    let info: Option<Value> = match r.nczarr_layout {
        NczarrLayout::V1 => r.get(&gkey.child(".nczgroup")?)?,
        NczarrLayout::V2 | NczarrLayout::V2Upper | NczarrLayout::V2InAttrs => {
            nczarr::key(&zattrs, &zgroup, "_nczarr_group")
        }
        NczarrLayout::PureZarr => None,
    };
    let (atts, provenance) = nczarr::read_atts(&zattrs, v1attr.as_ref(), None, r.pure_zarr, r.xarray)?;
    ds.groups[gid].atts = atts;
    if gid == 0 {
        ds.provenance = provenance;
    }

    let (vars, groups) = match info {
        Some(info) => nczarr::read_group_info(ds, gid, &gkey, &info)?,
        None => r.children(&gkey)?,
    };
    for name in vars {
        crate::engine::names::check_name(&name).map_err(|_| bad(format!("bad variable name {name:?}")))?;
        pending.push(PendingVar { gid, name });
    }
    Ok(groups)
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
    let first_filter = z.get("filters").and_then(Value::as_array).and_then(|f| f.first());
    let dtype_s = z.get("dtype").and_then(Value::as_str).unwrap_or("");
    let dtype = match z.get("dtype") {
        Some(Value::String(s)) if s == "|O" => {
            stored_dtype = Some(s.clone());
            let id = first_filter.and_then(|f| f.get("id")).and_then(Value::as_str).unwrap_or("");
            if crate::codec::vlen::is_object_codec(id) {
                object_codec = first_filter.cloned();
            }
            let mut nctype = NC_STRING;
            if id == "vlen-array" {
                // ragged arrays: netCDF's NC_VLEN of the base type, a user
                // type, which NCZarr (netCDF-C's too) does not have
                let base = first_filter.and_then(|f| f.get("dtype")).and_then(Value::as_str).unwrap_or("?");
                let why = format!(
                    "{vkey}: numcodecs vlen-array (ragged arrays of {base}) would be an NC_VLEN user type, \
                     which NCZarr does not have"
                );
                unreadable = Some(NcError::with(NC_EBADTYPE, why));
                nctype = NC_UBYTE;
            } else if !crate::codec::vlen::IDS.contains(&id) {
                let what = if id.is_empty() { "no object codec".to_string() } else { format!("object codec {id:?}") };
                unreadable =
                    Some(NcError::with(NC_ENOFILTER, format!("{vkey}: dtype |O with {what} is not available")));
            }
            DType { nctype, endian: NC_ENDIAN_NATIVE, strlen: None, json: false, ucs4: false }
        }
        Some(d) => match d.as_str().map(|s| parse_dtype(s, r.pure_zarr)) {
            // numpy booleans (read as NC_UBYTE), UCS-4 strings and, in
            // pure Zarr, char spelt otherwise than this library writes it
            // (netCDF-C 4.9.0's `<U1`, since `|S1` would read back as a
            // string: a rewrite changed the variable's type, found by
            // fuzzing) are written back as they were
            Some(Ok(t))
                if dtype_s == "|b1"
                    || t.ucs4
                    || (r.pure_zarr && t.nctype == NC_CHAR && dtype_s != format_dtype(NC_CHAR, t.endian, 1, true)) =>
            {
                stored_dtype = Some(dtype_s.to_string());
                t
            }
            Some(Ok(t)) if !t.json => t,
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
    let chunk_keys = match z.get("dimension_separator").and_then(Value::as_str) {
        Some("/") => ChunkKeys::V2('/'),
        _ => ChunkKeys::V2('.'),
    };
    let filters = match z.get("filters") {
        // the object codec is the variable's string layout, not a filter
        Some(Value::Array(f)) => &f[usize::from(object_codec.is_some())..],
        Some(Value::Null) | None => &[],
        Some(_) => return Err(bad(format!("{vkey}: filters is not a list"))),
    };
    let compressor = match z.get("compressor") {
        Some(Value::Null) | None => None,
        Some(c @ Value::Object(_)) => Some(c),
        Some(_) => return Err(bad(format!("{vkey}: compressor is not an object"))),
    };
    let codecs = crate::codec::Pipeline::from_zarr_v2(filters, compressor, dtype_s);

    let v1info = if r.nczarr_layout == NczarrLayout::V1 {
        r.get(&vkey.child(".nczarray")?)?.or(r.get(&vkey.child(".nczvar")?)?)
    } else {
        None
    };
    let info = match r.nczarr_layout {
        NczarrLayout::V1 => v1info,
        NczarrLayout::V2 | NczarrLayout::V2Upper | NczarrLayout::V2InAttrs => nczarr::key(&zattrs, &z, "_nczarr_array"),
        NczarrLayout::PureZarr => None,
    };
    let (dimids, storage) = match info {
        Some(info) => nczarr::read_array_info(ds, gid, &vkey, &info, &shape)?,
        None => {
            let names = if r.xarray {
                zattrs.get("_ARRAY_DIMENSIONS").map(|a| nczarr::as_str_list(a, "_ARRAY_DIMENSIONS")).transpose()?
            } else {
                None
            };
            match xarray::dims_from_names(ds, gid, &vkey, names, &shape)? {
                Some(dimids) => (dimids, NC_CHUNKED),
                None => return Ok(()),
            }
        }
    };
    if dimids.is_empty() {
        chunks.clear();
    }
    let (atts, _) = nczarr::read_atts(&zattrs, None, Some(dtype.nctype), r.pure_zarr, r.xarray)?;
    let zarray_fill = match z.get("fill_value") {
        None | Some(Value::Null) => None,
        Some(_) if unreadable.is_some() => None,
        // a list (not Zarr v2, which has one value): its first value, as
        // netCDF-C reads it
        Some(Value::Array(l)) if l.is_empty() => return Err(bad(format!("{vkey}: fill_value is an empty list"))),
        Some(Value::Array(l)) => one_fill(&l[0], dtype.nctype, &vkey)?,
        Some(f) => one_fill(f, dtype.nctype, &vkey)?,
    };
    // `|O` arrays have no fill value (null) as zarr-python writes them: a
    // missing chunk reads as the NC_STRING default, ""
    let no_fill = matches!(z.get("fill_value"), Some(Value::Null)) && unreadable.is_none() && dtype_s != "|O";
    let quantize = crate::engine::quantize::Quantize::from_atts(&atts);
    let transpose = order_f.then(|| (0..dimids.len()).rev().collect());
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
        chunk_keys,
        transpose,
        codecs,
        dtype_strlen: dtype.strlen,
        ucs4: dtype.ucs4,
        object_codec,
        stored_dtype,
        unreadable,
        persisted: true,
        has_data: true,
        quantize,
        cache: Arc::new(crate::engine::cache::ChunkCache::new(crate::engine::cache::defaults())),
        shard: None,
        source: None,
        plan: Default::default(),
    };
    ds.groups[gid].vars.push(v);
    Ok(())
}

/// A `.zarray` fill value of one JSON value, in the variable's type
/// (`NC_ERANGE`, as netCDF-C, when the type cannot hold it).
fn one_fill(f: &Value, t: NcType, vkey: &StoreKey) -> NcResult<Option<Values>> {
    Ok(Some(match t {
        NC_CHAR => Values::Char(vec![f.as_str().and_then(|s| s.bytes().next()).unwrap_or(0)]),
        NC_STRING => Values::String(vec![f.as_str().unwrap_or("").to_string()]),
        t => {
            let (values, range) =
                json::json_to_values_ranged(f, t).map_err(|_| bad(format!("{vkey}: bad fill_value {f}")))?;
            if range {
                return Err(NcError::with(NC_ERANGE, format!("{vkey}: fill_value {f} is out of range")));
            }
            values
        }
    }))
}
