//! The NCZarr conventions: what netCDF knows and Zarr does not (shared
//! dimensions with their lengths and unlimited flag, the variables and
//! groups of a group, dimension references, storage, attribute types,
//! `_NCProperties`), kept in NCZarr keys.
//!
//! Where the keys live is the dataset's [`NczarrLayout`]: inside the attributes
//! (netCDF-C 4.9.3+/4.10, written by default), inside the container's group
//! and array objects (netCDF-C 4.9.2, the spec; 4.9.0 with uppercase
//! copies), or in NCZarr v1's own objects. The functions here build and
//! read the keys' values; the container format decides which object holds
//! them.

use super::bad;
use super::zarr2::dtype::{format_dtype, parse_dtype};
use crate::engine::consts::*;
use crate::engine::error::Context;
use crate::engine::json::{get_either, json_to_values, values_to_json};
use crate::engine::model::*;
use crate::engine::names::{check_name, USER_NCZARR_ATTS};
use crate::engine::{NcResult, NCZARR_VERSION};
use crate::map::StoreKey;
use serde_json::{json, Map, Value};
use std::collections::HashMap;

/// NCZarr keys of one object, split by where the layout puts them.
#[derive(Debug, Default)]
pub struct Keys {
    /// In the container's own group/array object (4.9.2, 4.9.0).
    pub in_object: Vec<(&'static str, Value)>,
    /// Among the attributes, typed `|J0` (4.9.3+).
    pub in_attrs: Vec<(&'static str, Value)>,
}

/// The writer uses netCDF-C 4.9.2's placement (NCZarr keys in
/// `.zgroup`/`.zarray`): `mode=...,oldkeys`, or a dataset read in that
/// layout (or 4.9.0's). Otherwise it writes 4.9.3+'s (keys in `.zattrs`).
pub fn old_keys(ds: &Dataset) -> bool {
    matches!(ds.nczarr_layout, NczarrLayout::V2 | NczarrLayout::V2Upper)
}

/// The layout whose keys a root group's object and attributes hold, if any.
pub fn detect(group: Option<&Map<String, Value>>, attrs: Option<&Map<String, Value>>) -> Option<NczarrLayout> {
    let has =
        |m: Option<&Map<String, Value>>, a: &str, b: &str| m.is_some_and(|m| m.contains_key(a) || m.contains_key(b));
    if has(attrs, "_nczarr_superblock", "_nczarr_group") {
        // first, as netCDF-C 4.9.3+ does
        Some(NczarrLayout::V2InAttrs)
    } else if has(group, "_nczarr_superblock", "_nczarr_group") {
        Some(NczarrLayout::V2)
    } else if has(group, "_NCZARR_SUPERBLOCK", "_NCZARR_GROUP") {
        Some(NczarrLayout::V2Upper)
    } else {
        None
    }
}

// ---- writing -----------------------------------------------------------------

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

/// The NCZarr keys of group `gid` (none in pure Zarr).
pub fn group_keys(ds: &Dataset, gid: usize) -> Keys {
    let mut keys = Keys::default();
    if ds.pure_zarr {
        return keys;
    }
    let g = &ds.groups[gid];
    let vars = json!(g.vars.iter().map(|v| v.name.clone()).collect::<Vec<_>>());
    let groups = json!(g.children.iter().map(|&c| ds.groups[c].name.clone()).collect::<Vec<_>>());
    let superblock = json!({ "version": NCZARR_VERSION });
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
            keys.in_object.push(("_nczarr_superblock", superblock.clone()));
        }
        keys.in_object.push(("_nczarr_group", Value::Object(info.clone())));
        if gid == 0 {
            keys.in_object.push(("_NCZARR_SUPERBLOCK", superblock));
        }
        keys.in_object.push(("_NCZARR_GROUP", Value::Object(info)));
    } else {
        // the group object stays pure Zarr: netCDF-C 4.10 rewrites it in
        // place without truncating, so anything more would leave a broken tail.
        let info = json!({ "dimensions": group_dims(ds, g, true), "arrays": vars, "groups": groups });
        keys.in_attrs.push(("_nczarr_group", info));
        if gid == 0 {
            keys.in_attrs.push(("_nczarr_superblock", superblock));
        }
    }
    keys
}

/// The NCZarr keys of variable `vid` of group `gid` (none in pure Zarr).
pub fn array_keys(ds: &Dataset, gid: usize, vid: usize) -> Keys {
    let mut keys = Keys::default();
    if ds.pure_zarr {
        return keys;
    }
    let v = &ds.groups[gid].vars[vid];
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
        keys.in_object.push(("_nczarr_array", old.clone()));
        keys.in_object.push(("_NCZARR_ARRAY", old));
    } else {
        // As netCDF-C 4.9.3+ writes it (scalars: "scalar": 1, "storage": "chunked").
        let mut info = Map::new();
        info.insert("dimension_references".into(), json!(dimrefs));
        if v.is_scalar() {
            info.insert("scalar".into(), json!(1));
        }
        info.insert("storage".into(), json!(storage));
        keys.in_attrs.push(("_nczarr_array", Value::Object(info)));
    }
    keys
}

/// The attributes object of a group or variable: the user's attributes,
/// `extra` (`_ARRAY_DIMENSIONS`), then the NCZarr keys `hidden` (each typed
/// `|J0`, as netCDF-C 4.9.3+ writes them), then `_nczarr_attr` with every
/// type.
pub fn attributes(
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

/// The attributes object of variable `v`: [`attributes`], with `extra`
/// first (`_ARRAY_DIMENSIONS`) and the quantize attribute as netCDF-C
/// writes it: after them, an int without a type entry (a variable read has
/// it among its attributes: it keeps that place).
pub fn var_attributes(
    ds: &Dataset,
    v: &Var,
    mut extra: Vec<(String, Value)>,
    hidden: Vec<(&str, Value)>,
) -> Map<String, Value> {
    let quantized;
    let mut atts = &v.atts;
    if let Some((name, nsd)) = v.quantize.attribute() {
        extra.push((name.to_string(), json!(nsd)));
        if v.atts.iter().any(|a| a.name == name) {
            quantized = v.atts.iter().filter(|a| a.name != name).cloned().collect::<Vec<_>>();
            atts = &quantized;
        }
    }
    attributes(ds, atts, extra, false, hidden)
}

// ---- reading -----------------------------------------------------------------

/// An NCZarr key of a group or array, looked up as netCDF-C 4.9.3+ does:
/// in the attributes first, then in the group/array object (with 4.9.0's
/// uppercase spelling as the last resort).
pub fn key(attrs: &Map<String, Value>, obj: &Map<String, Value>, key: &str) -> Option<Value> {
    attrs.get(key).or_else(|| get_either(obj, key)).cloned()
}

pub fn as_str_list(v: &Value, what: &str) -> NcResult<Vec<String>> {
    let arr = v.as_array().ok_or_else(|| bad(format!("{what} is not a list")))?;
    arr.iter()
        .map(|x| x.as_str().map(str::to_string).ok_or_else(|| bad(format!("{what} holds a non-string"))))
        .collect()
}

/// Attribute types from `_nczarr_attr` (or its 4.9.0 / v1 spellings).
fn attr_types(attrs: &Map<String, Value>, v1: Option<&Value>) -> HashMap<String, String> {
    let src = get_either(attrs, "_nczarr_attr").or(v1);
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
    if USER_NCZARR_ATTS.contains(&name) {
        return false;
    }
    name.starts_with("_nczarr_") || name.starts_with("_NCZARR_") || (xarray && name == "_ARRAY_DIMENSIONS")
}

/// Converts an attributes object into attributes, and `_NCProperties`.
/// `v1types`: NCZarr v1's separate types object; `var_type` hints
/// `_FillValue`; `pure_zarr`: no NCZarr metadata; `xarray`:
/// `_ARRAY_DIMENSIONS` is the convention's, not an attribute.
pub fn read_atts(
    attrs: &Map<String, Value>,
    v1types: Option<&Value>,
    var_type: Option<NcType>,
    pure_zarr: bool,
    xarray: bool,
) -> NcResult<(Vec<Att>, Option<String>)> {
    let types = attr_types(attrs, v1types);
    let mut atts = Vec::new();
    let mut provenance = None;
    for (name, value) in attrs {
        if is_hidden_key(name, xarray || !pure_zarr) {
            continue;
        }
        if name == "_NCProperties" {
            provenance = value.as_str().map(str::to_string);
            continue;
        }
        check_stored_att_name(name)?;
        let t = match types.get(name) {
            Some(t) => {
                let d = parse_dtype(t, pure_zarr)?;
                if d.json {
                    continue;
                }
                Some(d.nctype)
            }
            None if name == NC_FillValue_NAME => var_type,
            None => None,
        };
        let values = json_to_values(value, t).context(format_args!("attribute {name}"))?;
        atts.push(Att { name: name.clone(), values });
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

/// A group's `_nczarr_group` (any layout's spelling): defines its
/// dimensions in `ds` and returns the names of its variables and child
/// groups.
pub fn read_group_info(
    ds: &mut Dataset,
    gid: usize,
    gkey: &StoreKey,
    info: &Value,
) -> NcResult<(Vec<String>, Vec<String>)> {
    let Value::Object(info) = info else {
        return Err(bad(format!("{gkey}: _nczarr_group is not an object")));
    };
    let unlimited: Vec<String> =
        info.get("unlimited").map(|u| as_str_list(u, "unlimited")).transpose()?.unwrap_or_default();
    if let Some(dims) = info.get("dims").or_else(|| info.get("dimensions")) {
        let dims = dims.as_object().ok_or_else(|| bad(format!("{gkey}: dims is not an object")))?;
        for (name, v) in dims {
            let (len, unlim) = match v {
                Value::Number(n) => (n.as_u64().ok_or_else(|| bad(format!("dimension {name}: bad length")))?, false),
                Value::Object(o) => (
                    o.get("size").and_then(Value::as_u64).ok_or_else(|| bad(format!("dimension {name}: bad size")))?,
                    o.get("unlimited").and_then(Value::as_u64).unwrap_or(0) != 0,
                ),
                _ => return Err(bad(format!("dimension {name}: bad length"))),
            };
            check_name(name).map_err(|_| bad(format!("bad dimension name {name:?}")))?;
            let id = ds.dims.len();
            ds.dims.push(Dim { name: name.clone(), len, unlimited: unlim || unlimited.contains(name), group: gid });
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
    Ok((vars, groups))
}

/// A variable's `_nczarr_array` (any layout's spelling) against the shape
/// its container gives: the dimension ids (empty for a scalar, whose shape
/// is `[1]` or `[]`) and the storage it declares. An unlimited dimension
/// grows to the largest shape that uses it.
pub fn read_array_info(
    ds: &mut Dataset,
    gid: usize,
    vkey: &StoreKey,
    info: &Value,
    shape: &[u64],
) -> NcResult<(Vec<usize>, i32)> {
    let dimrefs = info.get("dimrefs").or_else(|| info.get("dimension_references"));
    let dimrefs = dimrefs.map(|d| as_str_list(d, "dimrefs")).transpose()?.unwrap_or_default();
    let storage = match info.get("storage").and_then(Value::as_str) {
        Some("contiguous") => NC_CONTIGUOUS,
        Some("compact") => NC_COMPACT,
        _ => NC_CHUNKED,
    };
    let scalar = info.get("storage").and_then(Value::as_str) == Some("scalar") || dimrefs.is_empty();
    if scalar {
        if shape.len() > 1 || shape.first().is_some_and(|&n| n != 1) {
            return Err(bad(format!("{vkey}: scalar with shape {shape:?}")));
        }
        return Ok((vec![], storage));
    }
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
            return Err(bad(format!("{vkey}: shape {} does not match dimension {fqn} = {}", shape[i], dim.len)));
        }
        ids.push(d);
    }
    Ok((ids, storage))
}
