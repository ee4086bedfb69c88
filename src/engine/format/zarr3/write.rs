//! Writing Zarr v3: a `zarr.json` per group and array, the NCZarr keys
//! among the attributes (as netCDF-C 4.9.3+ places them in v2), and
//! `dimension_names` for zarr-python, xarray and TensorStore.
//!
//! Types: netCDF's numeric types are v3's core types; `NC_CHAR` is
//! `null_terminated_bytes` of length 1 (read back as char when the NCZarr
//! keys are there); `NC_STRING` is zarr-python's `string` with the
//! `vlen-utf8` codec, its fill value in `fill_value` only (no `_FillValue`
//! attribute, which xarray cannot decode for strings). A variable without a
//! fill value (`NC_NOFILL`) stores netCDF's default fill, since v3 requires
//! one.

use super::NODE;
use crate::codec::registry::{self, Ctx};
use crate::codec::{sharding, DataType};
use crate::engine::consts::*;
use crate::engine::format::{nczarr, ChunkKeys};
use crate::engine::json::{self, values_to_json};
use crate::engine::model::*;
use crate::engine::types::Values;
use crate::engine::NcResult;
use crate::map::StoreKey;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// The `zarr.json` of group `gid`.
pub fn group(ds: &Dataset, gid: usize) -> NcResult<(StoreKey, Value)> {
    let keys = nczarr::group_keys(ds, gid);
    let attrs = nczarr::attributes(ds, &ds.groups[gid].atts, vec![], gid == 0, keys.in_attrs);
    let node = json!({ "zarr_format": 3, "node_type": "group", "attributes": attrs });
    Ok((ds.group_key(gid).child(NODE)?, node))
}

/// The data type of a variable, by v3's names.
fn data_type(ds: &Dataset, gid: usize, vid: usize, v: &Var) -> Value {
    let fixed = |n: usize| json!({ "name": "null_terminated_bytes", "configuration": { "length_bytes": n } });
    match v.nctype {
        NC_BYTE => json!("int8"),
        NC_UBYTE => json!("uint8"),
        NC_SHORT => json!("int16"),
        NC_USHORT => json!("uint16"),
        NC_INT => json!("int32"),
        NC_UINT => json!("uint32"),
        NC_INT64 => json!("int64"),
        NC_UINT64 => json!("uint64"),
        NC_FLOAT => json!("float32"),
        NC_DOUBLE => json!("float64"),
        NC_CHAR => fixed(1),
        NC_STRING if v.object_codec.is_some() => json!("string"),
        NC_STRING if v.ucs4 => json!({ "name": "fixed_length_utf32",
            "configuration": { "length_bytes": ds.maxstrlen(gid, vid) * 4 } }),
        _ => fixed(ds.maxstrlen(gid, vid)),
    }
}

/// A fill value in v3's JSON forms (non-finite floats as strings).
fn fill_json(values: &Values) -> Value {
    let float = |f: f64| {
        if f.is_nan() {
            json!("NaN")
        } else if f == f64::INFINITY {
            json!("Infinity")
        } else if f == f64::NEG_INFINITY {
            json!("-Infinity")
        } else {
            Value::Null
        }
    };
    match values {
        // a NaN other than the canonical one keeps its bits: the hex form
        Values::Float(f) if f.first().is_some_and(|x| x.is_nan() && x.to_bits() != f32::NAN.to_bits()) => {
            json!(format!("0x{:08x}", f[0].to_bits()))
        }
        Values::Double(f) if f.first().is_some_and(|x| x.is_nan() && x.to_bits() != f64::NAN.to_bits()) => {
            json!(format!("0x{:016x}", f[0].to_bits()))
        }
        Values::Float(f) if f.first().is_some_and(|x| !x.is_finite()) => float(f[0] as f64),
        Values::Double(f) if f.first().is_some_and(|x| !x.is_finite()) => float(f[0]),
        Values::Char(c) => json!(String::from_utf8_lossy(&c[..c.len().min(1)]).trim_end_matches('\0')),
        Values::String(s) => json!(s.first().cloned().unwrap_or_default()),
        other => match values_to_json(other) {
            Value::Array(mut a) if !a.is_empty() => a.swap_remove(0),
            x => x,
        },
    }
}

/// A `sharding_indexed` codec: inner chunks of `inner` elements, encoded
/// by `bytes` then `codecs` (the codec chain's JSON, each with what it is
/// built for; a nested sharding codec is the inner chunks' array-to-bytes
/// codec in place of `bytes`), the index by `bytes` (little endian) then
/// `index_codecs`.
fn sharding_v3<'a>(
    inner: &[u64],
    bytes: &Value,
    codecs: impl Iterator<Item = (&'a Value, &'a Ctx)>,
    index_codecs: &[Value],
    index_at_start: bool,
) -> Value {
    let mut codecs = codecs.peekable();
    let mut list = vec![];
    if codecs.peek().is_none_or(|(c, _)| registry::json_id(c) != sharding::NAME) {
        list.push(bytes.clone());
    }
    list.extend(codecs.map(|(c, ctx)| codec_to_v3(c, ctx, bytes)));
    let index_ctx = Ctx { dtype: DataType::parse("<u8").expect("a dtype") };
    let mut index = vec![json!({ "name": "bytes", "configuration": { "endian": "little" } })];
    index.extend(index_codecs.iter().map(|c| registry::to_v3(c, &index_ctx)));
    json!({ "name": sharding::NAME, "configuration": {
        "chunk_shape": inner,
        "codecs": list,
        "index_codecs": index,
        "index_location": if index_at_start { "start" } else { "end" },
    } })
}

/// A codec of the engine's chain as a v3 codec ([`registry::to_v3`]); a
/// `sharding_indexed` (read from a store) with its inner codecs, which get
/// the array's `bytes` codec and are built for the same array (`ctx`).
fn codec_to_v3(c: &Value, ctx: &Ctx, bytes: &Value) -> Value {
    if registry::json_id(c) != sharding::NAME {
        return registry::to_v3(c, ctx);
    }
    let list = |k: &str| c.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
    let inner: Vec<u64> = list("chunk_shape").iter().filter_map(Value::as_u64).collect();
    let at_start = c.get("index_location").and_then(Value::as_str) == Some("start");
    let codecs = list("codecs");
    sharding_v3(&inner, bytes, codecs.iter().map(|c| (c, ctx)), &list("index_codecs"), at_start)
}

pub fn array(ds: &Dataset, gid: usize, vid: usize) -> NcResult<Value> {
    let v = &ds.groups[gid].vars[vid];
    let (shape, chunks) = if v.is_scalar() { (vec![], vec![]) } else { (ds.var_shape(v), v.chunks.clone()) };
    let fill = ds.fill_value(v)?;
    let mut codecs = vec![];
    if let Some(order) = v.transpose.as_ref().filter(|_| shape.len() > 1) {
        codecs.push(json!({ "name": "transpose", "configuration": { "order": order } }));
    }
    let bytes = if matches!(v.nctype, NC_BYTE | NC_UBYTE | NC_CHAR) || v.nctype == NC_STRING && !v.ucs4 {
        json!({ "name": "bytes" })
    } else {
        let endian = if v.endian == NC_ENDIAN_BIG { "big" } else { "little" };
        json!({ "name": "bytes", "configuration": { "endian": endian } })
    };
    let mut grid_shape = chunks.clone();
    match (&v.object_codec, &v.shard) {
        (Some(oc), _) => {
            // the string codec is the array-to-bytes codec; the filters follow
            codecs.push(json!({ "name": oc.get("id").cloned().unwrap_or(json!("vlen-utf8")), "configuration": {} }));
            codecs.extend(v.codecs.configs_ctx().map(|(c, ctx)| codec_to_v3(c, ctx, &bytes)));
        }
        (None, Some(sh)) if !v.is_scalar() => {
            // the chunk grid is the shards'; the chunks are their inner chunks
            grid_shape = sh.shape.clone();
            codecs.push(sharding_v3(&v.chunks, &bytes, v.codecs.configs_ctx(), &sh.index_codecs, sh.index_at_start));
        }
        (None, _) => {
            // a whole-shard sharding codec as read is the array-to-bytes codec
            if v.codecs.configs().next().is_none_or(|c| registry::json_id(c) != sharding::NAME) {
                codecs.push(bytes.clone());
            }
            codecs.extend(v.codecs.configs_ctx().map(|(c, ctx)| codec_to_v3(c, ctx, &bytes)));
        }
    }
    let (sep, encoding) = match v.chunk_keys {
        ChunkKeys::V2(sep) => (sep, "v2"),
        ChunkKeys::V3(sep, _) => (sep, "default"),
    };
    let mut m = Map::new();
    m.insert("zarr_format".into(), json!(3));
    m.insert("node_type".into(), json!("array"));
    m.insert("shape".into(), json!(shape));
    m.insert("data_type".into(), data_type(ds, gid, vid, v));
    m.insert("chunk_grid".into(), json!({ "name": "regular", "configuration": { "chunk_shape": grid_shape } }));
    m.insert(
        "chunk_key_encoding".into(),
        json!({ "name": encoding, "configuration": { "separator": sep.to_string() } }),
    );
    m.insert("fill_value".into(), fill_json(&fill));
    m.insert("codecs".into(), Value::Array(codecs));
    let keys = nczarr::array_keys(ds, gid, vid);
    let mut attrs = nczarr::var_attributes(ds, v, vec![], keys.in_attrs);
    xarray_fill_attribute(&mut attrs, v)?;
    if v.object_codec.is_some() {
        // a string's fill value is `fill_value` only: xarray cannot decode
        // a string `_FillValue` attribute and fails the whole open
        attrs.remove(NC_FillValue_NAME);
        if let Some(Value::Object(types)) = attrs.get_mut("_nczarr_attr").and_then(|a| a.get_mut("types")) {
            types.remove(NC_FillValue_NAME);
        }
    }
    m.insert("attributes".into(), Value::Object(attrs));
    if !v.is_scalar() {
        let names: Vec<String> = v.dimids.iter().map(|&d| ds.dims[d].name.clone()).collect();
        m.insert("dimension_names".into(), json!(names));
    }
    Ok(Value::Object(m))
}

/// xarray reads the `_FillValue` attribute of a v3 array of floats as
/// base64 of the value as a little-endian double (and fails on a number).
fn xarray_fill_attribute(attrs: &mut Map<String, Value>, v: &Var) -> NcResult<()> {
    use base64::Engine;
    if !matches!(v.nctype, NC_FLOAT | NC_DOUBLE) {
        return Ok(());
    }
    let Some(att) = v.atts.iter().find(|a| a.name == NC_FillValue_NAME) else {
        return Ok(());
    };
    let Values::Double(d) = att.values.convert(NC_DOUBLE)?.0 else {
        return Ok(());
    };
    let Some(x) = d.first() else {
        return Ok(());
    };
    attrs.insert(NC_FillValue_NAME.into(), json!(base64::engine::general_purpose::STANDARD.encode(x.to_le_bytes())));
    Ok(())
}

/// The root `zarr.json` with zarr-python 3's inline consolidated metadata:
/// every other node's metadata by its path.
pub fn consolidated(written: &HashMap<StoreKey, Vec<u8>>) -> NcResult<(StoreKey, Value)> {
    let root = StoreKey::root().child(NODE)?;
    let mut doc = match written.get(&root) {
        Some(b) => json::parse(b)?,
        None => json!({ "zarr_format": 3, "node_type": "group", "attributes": {} }),
    };
    let mut keys: Vec<&StoreKey> = written.keys().filter(|k| k.name() == NODE && **k != root).collect();
    keys.sort();
    let mut meta = Map::new();
    for k in keys {
        let path = k.as_str().strip_suffix(&format!("/{NODE}")).unwrap_or(k.as_str());
        meta.insert(path.to_string(), json::parse(&written[k])?);
    }
    doc["consolidated_metadata"] = json!({ "kind": "inline", "must_understand": false, "metadata": meta });
    Ok((root, doc))
}
