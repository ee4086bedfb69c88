//! The Zarr v3 container: one `zarr.json` per node (spec 3.0), with
//! zarr-python 3's consolidated metadata inline in the root's `zarr.json`.
//!
//! Read: groups (explicit, and implicit ones: a directory without
//! `zarr.json` whose children are nodes), arrays with the core data types
//! netCDF has (`bool` as `NC_UBYTE`, `int8`..`uint64`, `float32`,
//! `float64`), zarr-python's `string`/`bytes` (`NC_STRING`), its fixed
//! `null_terminated_bytes`/`fixed_length_utf32` strings; other types
//! (`float16`, complex, raw bits) open and fail to read with
//! `NC_EBADTYPE`. Fill values in every JSON form the spec allows
//! (`"NaN"`, `"Infinity"`, hex-encoded floats). Chunk keys `default`
//! (`c/0/1`) and `v2` (`0.1`), either separator; the `regular` chunk grid;
//! the codecs of [`codecs`]. `dimension_names` name the netCDF dimensions
//! (xarray's convention), as `_ARRAY_DIMENSIONS` does in v2. NCZarr keys
//! (`_nczarr_group`, `_nczarr_array`, `_nczarr_attr`) in `attributes` carry
//! what netCDF knows and Zarr does not, as in netCDF-C 4.9.3+'s v2 layout.

pub mod codecs;

use super::{bad, nczarr, xarray, ChunkKeys, Extents, Format, OpenOptions, Probe, Root};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::json;
use crate::engine::model::*;
use crate::engine::types::Values;
use crate::engine::{NcError, NcResult};
use crate::map::{Store, StoreKey};
use serde_json::{Map, Value};
use std::collections::HashMap;
use std::sync::Arc;

/// The metadata object of every node.
pub const NODE: &str = "zarr.json";

/// Zarr v3, with or without NCZarr keys.
#[derive(Debug)]
pub struct Zarr3;

impl Format for Zarr3 {
    fn name(&self) -> &'static str {
        "zarr3"
    }

    fn markers(&self) -> &'static [&'static str] {
        &[NODE]
    }

    /// `zarr.json`; in pure Zarr without consolidated metadata also the
    /// root's listing, which reading it needs next (the children of a
    /// group are what the store lists).
    fn root_objects(&self, opts: OpenOptions) -> Vec<(&'static str, Probe)> {
        match opts.pure_zarr && !opts.consolidated {
            true => vec![(NODE, Probe::Get), (super::ROOT_LISTING, Probe::List)],
            false => vec![(NODE, Probe::Get)],
        }
    }

    fn claims(&self, store: &dyn Store, root: &Root) -> NcResult<bool> {
        root.has(store, NODE)
    }

    fn read(&self, store: Arc<dyn Store>, path: &str, mode: i32, opts: OpenOptions, root: Root) -> NcResult<Dataset> {
        read_dataset(store, path, mode, opts, root)
    }

    fn group_objects(&self, ds: &Dataset, gid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
        out.push(write::group(ds, gid)?);
        Ok(())
    }

    fn var_objects(&self, ds: &Dataset, gid: usize, vid: usize, out: &mut Vec<(StoreKey, Value)>) -> NcResult<()> {
        out.push((ds.var_key(gid, vid).child(NODE)?, write::array(ds, gid, vid)?));
        Ok(())
    }

    fn chunk_keys(&self, scalar: bool) -> ChunkKeys {
        ChunkKeys::V3('/', scalar)
    }

    fn extents(&self) -> Extents {
        Extents { group: &[("zarr.json", &["attributes", "_nczarr_group", "dimensions"])], array: "zarr.json" }
    }

    /// zarr-python 3's `string` with `vlen-utf8`, in either mode.
    fn string_codec(&self, _pure_zarr: bool) -> Option<Value> {
        Some(serde_json::json!({ "id": "vlen-utf8" }))
    }

    fn consolidated(&self, written: &HashMap<StoreKey, Vec<u8>>) -> NcResult<(StoreKey, Value)> {
        write::consolidated(written)
    }

    /// `mode=v3`.
    fn url_modes(&self) -> &'static [&'static str] {
        &["v3"]
    }

    /// The NCZarr keys among the attributes (netCDF-C 4.9.3+'s placement;
    /// v3 has no other), or none in pure Zarr.
    fn new_layout(&self, asked: NczarrLayout) -> NczarrLayout {
        match asked {
            NczarrLayout::PureZarr => NczarrLayout::PureZarr,
            _ => NczarrLayout::V2InAttrs,
        }
    }

    fn shards(&self) -> bool {
        true
    }
}

mod write;

/// Metadata source: the store, or the root's inline consolidated metadata
/// (keys: node paths relative to the root).
struct Reader {
    store: Arc<dyn Store>,
    consolidated: Option<Map<String, Value>>,
    /// Objects fetched ahead (the root's, and on a network store every
    /// child node's at once), each taken once.
    prefetched: HashMap<StoreKey, Option<Vec<u8>>>,
    /// The root's listing, made with the root objects (pure Zarr), taken
    /// once.
    root_listing: Option<Vec<String>>,
    seen: HashMap<StoreKey, Vec<u8>>,
}

impl Reader {
    /// The `zarr.json` of the node at `key`, if there is one.
    fn node(&mut self, key: &StoreKey) -> NcResult<Option<Map<String, Value>>> {
        if let Some(meta) = &self.consolidated {
            if key.is_root() {
                // the root itself was read from the store
            } else {
                return match meta.get(key.as_str()) {
                    Some(Value::Object(m)) => Ok(Some(m.clone())),
                    Some(_) => Err(bad(format!("{key}: consolidated metadata is not an object"))),
                    None => Ok(None),
                };
            }
        }
        let k = key.child(NODE)?;
        let fetched = match self.prefetched.remove(&k) {
            Some(f) => f,
            None => self.store.get_max(&k, crate::limits::limits().max_metadata_bytes)?,
        };
        let Some(bytes) = fetched else {
            return Ok(None);
        };
        let v = json::parse(&bytes).map_err(|e| bad(format!("{k}: {}", e.detail().unwrap_or("bad JSON"))))?;
        self.seen.insert(k.clone(), bytes);
        match v {
            Value::Object(m) => Ok(Some(m)),
            _ => Err(bad(format!("{k} is not a JSON object"))),
        }
    }

    /// Child nodes of a group: (arrays, groups), each with its metadata.
    /// A child directory without `zarr.json` whose own children include a
    /// node is an implicit group.
    #[allow(clippy::type_complexity)]
    fn children(
        &mut self,
        gkey: &StoreKey,
    ) -> NcResult<(Vec<(String, Map<String, Value>)>, Vec<(String, Option<Map<String, Value>>)>)> {
        let names: Vec<String> = match &self.consolidated {
            Some(meta) => super::consolidated_children(meta.keys(), gkey),
            None => match gkey.is_root().then(|| self.root_listing.take()).flatten() {
                Some(names) => names,
                None => self.store.list_dir(gkey)?.unwrap_or_default(),
            },
        };
        let (mut arrays, mut groups) = (vec![], vec![]);
        let names: Vec<String> = names.into_iter().filter(|n| !n.starts_with('.') && n != NODE).collect();
        self.prefetch_nodes(gkey, names.iter())?;
        for name in names {
            let k = gkey.child(&name)?;
            match self.node(&k)? {
                Some(m) => match m.get("node_type").and_then(Value::as_str) {
                    Some("array") => arrays.push((name, m)),
                    Some("group") => groups.push((name, Some(m))),
                    _ => return Err(bad(format!("{k}: node_type is neither array nor group"))),
                },
                None if self.consolidated.is_none() && self.has_child_node(&k)? => groups.push((name, None)),
                None => {}
            }
        }
        Ok((arrays, groups))
    }

    /// On a network store, without consolidated metadata: the `zarr.json`
    /// of every child `names` of `gkey` at once, for [`Reader::node`].
    fn prefetch_nodes<'a>(&mut self, gkey: &StoreKey, names: impl Iterator<Item = &'a String>) -> NcResult<()> {
        if self.consolidated.is_some() || !self.store.io_bound() {
            return Ok(());
        }
        let keys = names.map(|n| gkey.child(n)?.child(NODE)).collect::<Result<Vec<_>, _>>()?;
        if keys.len() > 1 {
            super::prefetch_into(self.store.as_ref(), &keys, &mut self.prefetched)?;
        }
        Ok(())
    }

    fn has_child_node(&mut self, key: &StoreKey) -> NcResult<bool> {
        for name in self.store.list_dir(key)?.unwrap_or_default() {
            if name != NODE && self.store.size(&key.child(&name)?.child(NODE)?)?.is_some() {
                return Ok(true);
            }
        }
        Ok(false)
    }
}

fn read_dataset(
    store: Arc<dyn Store>,
    path: &str,
    mode: i32,
    opts: OpenOptions,
    mut probed: Root,
) -> NcResult<Dataset> {
    let mut r = Reader {
        store: store.clone(),
        consolidated: None,
        root_listing: probed.take_listing(),
        prefetched: probed.into_fetched().collect(),
        seen: HashMap::new(),
    };
    let root = StoreKey::root();
    let meta = r.node(&root)?.ok_or_else(|| NcError::with(NC_ENOTNC, "no zarr.json at the store root"))?;
    check_format(&root, &meta)?;
    match meta.get("node_type").and_then(Value::as_str) {
        Some("group") => {}
        Some("array") => return Err(NcError::with(NC_ENOTNC, "the store root is an array, not a group")),
        _ => return Err(bad("zarr.json: node_type is neither array nor group")),
    }
    let attrs = attributes(&root, &meta)?;
    if opts.consolidated {
        if let Some(Value::Object(c)) = meta.get("consolidated_metadata") {
            if let Some(Value::Object(m)) = c.get("metadata") {
                r.consolidated = Some(m.clone());
            }
        }
    }
    let nczarr_layout = if opts.pure_zarr { None } else { nczarr::detect(None, Some(&attrs)) };
    let pure = nczarr_layout.is_none();
    let mut ds = Dataset::new_empty(store, path, mode, pure, opts.xarray);
    ds.nczarr_layout = nczarr_layout.unwrap_or(NczarrLayout::PureZarr);
    ds.format = &Zarr3;
    ds.define_mode = false;
    ds.fresh = false;
    ds.provenance = None;
    ds.consolidated = meta.contains_key("consolidated_metadata");

    let mut pending: Vec<(usize, String, Map<String, Value>)> = vec![];
    super::read_group_tree(&mut ds, Some(meta), |ds, gid, meta| {
        let gkey = ds.group_key(gid);
        let attrs = match meta {
            Some(m) => {
                check_format(&gkey, &m)?;
                attributes(&gkey, &m)?
            }
            None => Map::new(),
        };
        read_group(&mut r, ds, gid, &attrs, &mut pending)
    })?;
    for (gid, name, meta) in pending {
        let vkey = ds.group_key(gid).child(&name)?;
        read_array(&mut ds, gid, &name, &meta).context(vkey)?;
    }
    ds.written = r.seen;
    Ok(ds)
}

#[allow(clippy::type_complexity)]
fn read_group(
    r: &mut Reader,
    ds: &mut Dataset,
    gid: usize,
    attrs: &Map<String, Value>,
    pending: &mut Vec<(usize, String, Map<String, Value>)>,
) -> NcResult<Vec<(String, Option<Map<String, Value>>)>> {
    let gkey = ds.group_key(gid);
    let (atts, provenance) = nczarr::read_atts(attrs, None, None, ds.pure_zarr, ds.xarray)?;
    ds.groups[gid].atts = atts;
    if gid == 0 {
        ds.provenance = provenance;
    }
    let info = if ds.pure_zarr { None } else { attrs.get("_nczarr_group").cloned() };
    let (arrays, groups) = match info {
        Some(info) => {
            // NCZarr: its lists decide which nodes are netCDF objects, read
            // by name (no listing), all at once on a network store
            let (vars, subgroups) = nczarr::read_group_info(ds, gid, &gkey, &info)?;
            r.prefetch_nodes(&gkey, vars.iter().chain(&subgroups))?;
            let mut a = vec![];
            for v in vars {
                match r.node(&gkey.child(&v)?)? {
                    Some(m) if m.get("node_type").and_then(Value::as_str) == Some("array") => a.push((v, m)),
                    _ => return Err(bad(format!("{gkey}: array {v} is listed but absent"))),
                }
            }
            let mut g = vec![];
            for n in subgroups {
                let m =
                    r.node(&gkey.child(&n)?)?.filter(|m| m.get("node_type").and_then(Value::as_str) == Some("group"));
                g.push((n, m));
            }
            (a, g)
        }
        None => r.children(&gkey)?,
    };
    for (name, meta) in arrays {
        crate::engine::names::check_name(&name).map_err(|_| bad(format!("bad variable name {name:?}")))?;
        pending.push((gid, name, meta));
    }
    Ok(groups)
}

fn check_format(key: &StoreKey, meta: &Map<String, Value>) -> NcResult<()> {
    match meta.get("zarr_format").and_then(Value::as_u64) {
        Some(3) => Ok(()),
        _ => Err(bad(format!("{key}/zarr.json: zarr_format is not 3"))),
    }
}

fn attributes(key: &StoreKey, meta: &Map<String, Value>) -> NcResult<Map<String, Value>> {
    match meta.get("attributes") {
        None | Some(Value::Null) => Ok(Map::new()),
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(_) => Err(bad(format!("{key}/zarr.json: attributes is not an object"))),
    }
}

fn u64_list(v: Option<&Value>, what: &str) -> NcResult<Vec<u64>> {
    let arr = v.and_then(Value::as_array).ok_or_else(|| bad(format!("{what} is missing or not a list")))?;
    arr.iter().map(|x| x.as_u64().ok_or_else(|| bad(format!("{what} holds a non-integer")))).collect()
}

/// The netCDF view of a v3 data type.
struct DataType {
    nctype: NcType,
    /// Fixed string width (`null_terminated_bytes`, `fixed_length_utf32`).
    strlen: Option<usize>,
    ucs4: bool,
    /// Variable-length (`string`, `bytes`): the object codec is in `codecs`.
    vlen: bool,
}

/// A data type by name (or `{"name": ..., "configuration": ...}`).
fn data_type(v: &Value) -> Result<DataType, String> {
    let (name, cfg) = match v {
        Value::String(s) => (s.as_str(), None),
        Value::Object(o) => (o.get("name").and_then(Value::as_str).unwrap_or(""), o.get("configuration")),
        _ => return Err(format!("data_type {v}")),
    };
    let plain = |t| Ok(DataType { nctype: t, strlen: None, ucs4: false, vlen: false });
    let length = || cfg.and_then(|c| c.get("length_bytes")).and_then(Value::as_u64).filter(|&n| n > 0);
    match name {
        "bool" | "uint8" => plain(NC_UBYTE),
        "int8" => plain(NC_BYTE),
        "int16" => plain(NC_SHORT),
        "uint16" => plain(NC_USHORT),
        "int32" => plain(NC_INT),
        "uint32" => plain(NC_UINT),
        "int64" => plain(NC_INT64),
        "uint64" => plain(NC_UINT64),
        "float32" => plain(NC_FLOAT),
        "float64" => plain(NC_DOUBLE),
        "string" | "bytes" | "variable_length_bytes" => {
            Ok(DataType { nctype: NC_STRING, strlen: None, ucs4: false, vlen: true })
        }
        "null_terminated_bytes" | "fixed_length_bytes" => match length() {
            Some(n) => Ok(DataType { nctype: NC_STRING, strlen: Some(n as usize), ucs4: false, vlen: false }),
            None => Err(format!("data_type {v}: bad length_bytes")),
        },
        "fixed_length_utf32" => match length().filter(|n| n % 4 == 0) {
            Some(n) => Ok(DataType { nctype: NC_STRING, strlen: Some(n as usize / 4), ucs4: true, vlen: false }),
            None => Err(format!("data_type {v}: bad length_bytes")),
        },
        _ => Err(format!("data_type {v} has no netCDF type")),
    }
}

/// A fill value in any JSON form the spec allows for the type.
fn fill_value(v: &Value, t: &DataType) -> Result<Option<Values>, String> {
    if v.is_null() {
        return Ok(None);
    }
    match t.nctype {
        NC_STRING => Ok(Some(Values::String(vec![v.as_str().unwrap_or("").to_string()]))),
        NC_CHAR => Ok(Some(Values::Char(vec![v.as_str().and_then(|s| s.bytes().next()).unwrap_or(0)]))),
        NC_FLOAT | NC_DOUBLE if v.as_str().is_some_and(|s| s.starts_with("0x")) => {
            let s = v.as_str().unwrap_or("");
            let bits = u64::from_str_radix(&s[2..], 16).map_err(|_| format!("fill_value {v}"))?;
            match (t.nctype, s.len() - 2) {
                (NC_FLOAT, 8) => Ok(Some(Values::Float(vec![f32::from_bits(bits as u32)]))),
                (NC_DOUBLE, 16) => Ok(Some(Values::Double(vec![f64::from_bits(bits)]))),
                _ => Err(format!("fill_value {v}: wrong width")),
            }
        }
        nctype => {
            let (values, range) = json::json_to_values_ranged(v, nctype).map_err(|_| format!("fill_value {v}"))?;
            if range {
                return Err(format!("fill_value {v} is out of range"));
            }
            Ok(Some(values))
        }
    }
}

/// xarray writes the `_FillValue` attribute of a v3 array of floats as
/// base64 of the value as a little-endian double: decoded here to the
/// number.
fn xarray_fill_attribute(attrs: &mut Map<String, Value>, dt: &DataType) {
    use base64::Engine;
    if !matches!(dt.nctype, NC_FLOAT | NC_DOUBLE) {
        return;
    }
    let Some(Value::String(text)) = attrs.get(NC_FillValue_NAME) else {
        return;
    };
    let Ok(Ok(bytes)) = base64::engine::general_purpose::STANDARD.decode(text).map(<[u8; 8]>::try_from) else {
        return;
    };
    attrs.insert(NC_FillValue_NAME.into(), json::f64_json(f64::from_le_bytes(bytes)));
}

/// A `string` array's fill value other than `""` is its `_FillValue`
/// attribute (which we do not write for strings: see `write.rs`).
fn string_fill_attribute(attrs: &mut Map<String, Value>, dt: &DataType, fill: Option<&Value>) {
    if let Some(Value::String(f)) = fill {
        if dt.vlen && !f.is_empty() && !attrs.contains_key(NC_FillValue_NAME) {
            attrs.insert(NC_FillValue_NAME.into(), Value::String(f.clone()));
        }
    }
}

/// The numpy dtype string of what the codecs encode (the bytes codec's
/// output): the codecs are built for it.
fn v2_dtype(dt: &DataType, endian: i32) -> String {
    if dt.vlen {
        return "|O".into();
    }
    let e = if endian == NC_ENDIAN_BIG { '>' } else { '<' };
    match (dt.nctype, dt.strlen) {
        (NC_STRING, Some(n)) if dt.ucs4 => format!("{e}U{n}"),
        (NC_STRING, Some(n)) => format!("|S{n}"),
        (NC_CHAR, _) => "|S1".into(),
        (t, _) => super::zarr2::dtype::format_dtype(t, endian, 0, true),
    }
}

/// A shard's absent inner chunks are the fill value: the sharding codecs
/// (the whole-shard one, and any nested in the inner codecs) get it as
/// stored (hex of one element in the array's byte order).
fn shard_fill(p: &mut codecs::Translated, dt: &DataType, fill: Option<&Values>) -> NcResult<()> {
    let sharded = p.shard.is_some() || p.codecs.iter().any(|c| c["id"] == "sharding_indexed");
    if !sharded || matches!(dt.nctype, NC_STRING | NC_CHAR) {
        return Ok(());
    }
    let values = match fill {
        Some(f) => f.convert(dt.nctype)?.0,
        None => Values::default_fill(dt.nctype)?,
    };
    let mut bytes = values.to_ne_bytes();
    if p.endian != crate::engine::model::native_endian() {
        bytes.reverse();
    }
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    fn patch(list: &mut [Value], hex: &str) {
        for c in list.iter_mut().filter(|c| c["id"] == "sharding_indexed") {
            c["fill"] = Value::String(hex.to_string());
            if let Some(Value::Array(inner)) = c.get_mut("codecs") {
                patch(inner, hex);
            }
        }
    }
    patch(&mut p.codecs, &hex);
    if let Some(sh) = &mut p.shard {
        patch(&mut sh.codecs, &hex);
    }
    Ok(())
}

/// The shards of an array whose only codec after `bytes` is
/// `sharding_indexed`, untransposed, with inner chunks that tile the
/// shard: the variable's chunks are then the inner chunks (read alone,
/// by byte range) and its codecs theirs. Else `None`: the sharding codec
/// stays the variable's codec, decoding whole shards.
fn shards(p: &codecs::Translated, chunks: &[u64]) -> Option<(Vec<u64>, Shard, Vec<Value>)> {
    let sh = p.shard.as_ref()?;
    let tiles = sh.inner.len() == chunks.len() && sh.inner.iter().zip(chunks).all(|(&i, &c)| i > 0 && c % i == 0);
    if p.codecs.len() != 1 || p.transpose.is_some() || !tiles {
        return None;
    }
    let shard =
        Shard { shape: chunks.to_vec(), index_at_start: sh.index_at_start, index_codecs: sh.index_codecs.clone() };
    Some((sh.inner.clone(), shard, sh.codecs.clone()))
}

fn read_array(ds: &mut Dataset, gid: usize, name: &str, meta: &Map<String, Value>) -> NcResult<()> {
    let vkey = ds.group_key(gid).child(name)?;
    check_format(&vkey, meta)?;
    let shape = u64_list(meta.get("shape"), &format!("{vkey}: shape"))?;
    if shape.len() > NC_MAX_VAR_DIMS as usize {
        return Err(NcError::with(NC_EMAXDIMS, format!("{vkey}: {} dimensions", shape.len())));
    }
    let grid = meta.get("chunk_grid").ok_or_else(|| bad(format!("{vkey}: no chunk_grid")))?;
    if grid.get("name").and_then(Value::as_str) != Some("regular") {
        return Err(bad(format!("{vkey}: chunk grid {} is not supported", grid.get("name").unwrap_or(&Value::Null))));
    }
    let mut chunks = u64_list(grid.get("configuration").and_then(|c| c.get("chunk_shape")), "chunk_shape")?;
    if chunks.len() != shape.len() || chunks.contains(&0) {
        return Err(bad(format!("{vkey}: chunk_shape does not match shape")));
    }
    let enc = meta.get("chunk_key_encoding");
    let sep = enc.and_then(|e| e.get("configuration")).and_then(|c| c.get("separator")).and_then(Value::as_str);
    let chunk_keys = match (enc.and_then(|e| e.get("name")).and_then(Value::as_str), sep) {
        (Some("default") | None, Some(".")) => ChunkKeys::V3('.', shape.is_empty()),
        (Some("default") | None, Some("/") | None) => ChunkKeys::V3('/', shape.is_empty()),
        (Some("v2"), Some("/")) => ChunkKeys::V2('/'),
        (Some("v2"), Some(".") | None) => ChunkKeys::V2('.'),
        _ => return Err(bad(format!("{vkey}: chunk_key_encoding {} is not supported", enc.unwrap_or(&Value::Null)))),
    };

    let mut unreadable = None;
    let dt = match meta.get("data_type").map(data_type) {
        // one NUL-terminated byte is char where the NCZarr keys are (as `>S1` in v2)
        Some(Ok(t)) if !ds.pure_zarr && t.strlen == Some(1) && !t.ucs4 => {
            DataType { nctype: NC_CHAR, strlen: None, ucs4: false, vlen: false }
        }
        Some(Ok(t)) => t,
        Some(Err(why)) => {
            unreadable = Some(NcError::with(NC_EBADTYPE, format!("{vkey}: {why}")));
            DataType { nctype: NC_UBYTE, strlen: None, ucs4: false, vlen: false }
        }
        None => return Err(bad(format!("{vkey}: no data_type"))),
    };
    let pipeline = match meta.get("codecs") {
        Some(Value::Array(list)) => codecs::translate(list, dt.vlen, &chunks),
        _ => return Err(bad(format!("{vkey}: codecs is missing or not a list"))),
    };
    let pipeline = match pipeline {
        Ok(p) => p,
        Err(e) => {
            unreadable.get_or_insert(NcError::with(NC_ENOFILTER, format!("{vkey}: {e}")));
            codecs::Translated::default()
        }
    };
    if let Some(Value::Array(t)) = meta.get("storage_transformers") {
        if !t.is_empty() {
            unreadable.get_or_insert(NcError::with(NC_ENOFILTER, format!("{vkey}: storage transformers")));
        }
    }

    let mut attrs = attributes(&vkey, meta)?;
    xarray_fill_attribute(&mut attrs, &dt);
    string_fill_attribute(&mut attrs, &dt, meta.get("fill_value"));
    let info = if ds.pure_zarr { None } else { attrs.get("_nczarr_array").cloned() };
    let (dimids, storage) = match info {
        Some(info) => nczarr::read_array_info(ds, gid, &vkey, &info, &shape)?,
        None => {
            let names = match meta.get("dimension_names") {
                None | Some(Value::Null) => None,
                Some(Value::Array(n)) if n.iter().all(Value::is_null) => None,
                Some(Value::Array(n)) => Some(
                    n.iter()
                        .enumerate()
                        .map(|(i, x)| match x {
                            Value::String(s) => Ok(s.clone()),
                            Value::Null => Ok(xarray::anonymous_name(shape.get(i).copied().unwrap_or(0))),
                            _ => Err(bad(format!("{vkey}: dimension_names holds a non-string"))),
                        })
                        .collect::<NcResult<Vec<String>>>()?,
                ),
                Some(_) => return Err(bad(format!("{vkey}: dimension_names is not a list"))),
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
    let (atts, _) = nczarr::read_atts(&attrs, None, Some(dt.nctype), ds.pure_zarr, false)?;
    let zarray_fill = match meta.get("fill_value") {
        _ if unreadable.is_some() => None,
        Some(f) => fill_value(f, &dt).map_err(|why| {
            if why.contains("out of range") {
                NcError::with(NC_ERANGE, format!("{vkey}: {why}"))
            } else {
                bad(format!("{vkey}: {why}"))
            }
        })?,
        None => return Err(bad(format!("{vkey}: no fill_value"))),
    };
    let quantize = crate::engine::quantize::Quantize::from_atts(&atts);
    let mut pipeline = pipeline;
    shard_fill(&mut pipeline, &dt, zarray_fill.as_ref())?;
    let (chunks, shard, codec_list) = match shards(&pipeline, &chunks) {
        Some((inner, shard, list)) if !dimids.is_empty() => (inner, Some(shard), list),
        _ => (chunks, None, pipeline.codecs.clone()),
    };
    let one_byte = matches!(dt.nctype, NC_BYTE | NC_UBYTE);
    let v = Var {
        name: name.to_string(),
        nctype: dt.nctype,
        dimids,
        chunks,
        storage,
        no_fill: false,
        zarray_fill,
        endian: if one_byte || dt.nctype == NC_STRING && !dt.ucs4 { NC_ENDIAN_NATIVE } else { pipeline.endian },
        atts,
        chunk_keys,
        transpose: pipeline.transpose,
        codecs: crate::codec::Pipeline::from_zarr_v2(&codec_list, None, &v2_dtype(&dt, pipeline.endian)),
        dtype_strlen: dt.strlen,
        ucs4: dt.ucs4,
        object_codec: pipeline.object_codec,
        stored_dtype: None,
        unreadable,
        persisted: true,
        has_data: true,
        quantize,
        cache: Arc::new(crate::engine::cache::ChunkCache::new(crate::engine::cache::defaults())),
        shard,
        source: None,
        plan: Default::default(),
    };
    ds.groups[gid].vars.push(v);
    Ok(())
}
