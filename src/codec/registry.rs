//! The codec registry: every codec this library knows, declared once.
//!
//! A declaration ([`Decl`]) gives a codec's numcodecs id, its HDF5 filter
//! id (the one netCDF-C's filter API shows for it, when it has one), its
//! stage, how to build the typed codec from numcodecs' JSON, how its JSON
//! maps to and from netCDF-C's `unsigned int` filter parameters, and its
//! Zarr v3 name and configuration ([`V3`]). Adding a codec is one file
//! (its `DECL` and functions) and one line in [`REGISTRY`].

use super::{Codec, CodecError, CodecResult, DataType};
use serde_json::{json, Map, Value};

/// Where a codec sits in a chunk's pipeline (Zarr v3's codec classes; in
/// Zarr v2, `filters` hold array -> array and bytes -> bytes codecs and
/// the object codec, `compressor` one bytes -> bytes codec).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// Elements to elements, possibly of another dtype (`delta`,
    /// `fixedscaleoffset`, `astype`, ...).
    ArrayToArray,
    /// Elements to bytes (numcodecs' object codecs, `vlen-utf8`).
    ArrayToBytes,
    /// Bytes to bytes (compressors, `shuffle`, checksums).
    BytesToBytes,
}

/// What a codec is built for: the dtype of the array its `encode` takes
/// (the variable's dtype, or what the array -> array codecs before it
/// made of it).
#[derive(Clone, Copy, Debug)]
pub struct Ctx {
    pub dtype: DataType,
}

/// Why netCDF-C's filter parameters do not make a codec.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ParamError {
    /// The wrong number of parameters (netCDF-C: `NC_EFILTER`).
    Count,
    /// A parameter out of range (netCDF-C: `NC_EINVAL`).
    Value,
}

/// Builds a typed codec from its JSON.
pub type BuildFn = fn(&Value, &Ctx) -> CodecResult<Box<dyn Codec>>;
/// netCDF-C's filter parameters -> the codec's JSON.
pub type FromHdf5Fn = fn(&[u32], &Ctx) -> Result<Value, ParamError>;

/// One codec's declaration.
pub struct Decl {
    /// numcodecs' codec id (the JSON's `"id"`).
    pub id: &'static str,
    /// The HDF5 filter id netCDF-C's filter API shows it as.
    pub hdf5_id: Option<u32>,
    pub stage: Stage,
    /// Builds the typed codec from its JSON; `None` for a codec that is
    /// known but not built in (its variables open, their data reads fail).
    pub build: Option<BuildFn>,
    /// The HDF5 parameters netCDF-C shows for the JSON
    /// (`nc_inq_var_filter_info`).
    pub to_hdf5: fn(&Value, &Ctx) -> Vec<u32>,
    /// The JSON netCDF-C's `nc_def_var_filter` parameters stand for; `None`
    /// when the filter API cannot define it (its HDF5 id is another
    /// codec's, or it has none).
    pub from_hdf5: Option<FromHdf5Fn>,
    /// The codec's own Zarr v3 name and configuration; `None`: zarr-python's
    /// wrapping of numcodecs, `numcodecs.<id>` with the JSON's other keys as
    /// its configuration ([`to_v3`], [`from_v3`]).
    pub v3: Option<V3>,
}

/// A codec's Zarr v3 form, `{"name": .., "configuration": {..}}`: the
/// mapping keeps every parameter both ways (a store rewritten keeps the
/// configuration it was read with).
pub struct V3 {
    /// Its name in Zarr v3's codec list.
    pub name: &'static str,
    /// The v3 configuration (empty when absent) -> the codec's JSON (with
    /// its `id`), v3's defaults made explicit; `Err`: why it is refused.
    pub from_v3: fn(&Map<String, Value>) -> Result<Value, String>,
    /// The codec's JSON (as read from v3, or defined in numcodecs' terms)
    /// -> the v3 configuration, for an array of `Ctx::dtype`; `None`: the
    /// codec has no configuration.
    pub to_v3: fn(&Value, &Ctx) -> Option<Value>,
}

impl Decl {
    /// A numcodecs codec without an HDF5 filter id (the filter API neither
    /// shows nor defines it) nor a Zarr v3 name.
    pub const fn numcodecs(id: &'static str, stage: Stage, build: BuildFn) -> Decl {
        Decl { id, hdf5_id: None, stage, build: Some(build), to_hdf5: no_params, from_hdf5: None, v3: None }
    }
}

impl std::fmt::Debug for Decl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "codec {:?}", self.id)
    }
}

/// Every codec, one line each.
pub static REGISTRY: &[&Decl] = &[
    &super::zlib::ZLIB,
    &super::zlib::GZIP,
    &super::shuffle::DECL,
    &super::fletcher32::DECL,
    &super::szip::DECL,
    &super::bz2::DECL,
    &super::lz4::DECL,
    &super::zstd::DECL,
    &super::blosc::DECL,
    &super::lzma::DECL,
    &super::checksum32::CRC32,
    &super::checksum32::ADLER32,
    &super::delta::DECL,
    &super::fixedscaleoffset::DECL,
    &super::quantize::DECL,
    &super::bitround::DECL,
    &super::packbits::DECL,
    &super::astype::DECL,
    &super::categorize::DECL,
    &super::crc32c::DECL,
    &super::sharding::DECL,
];

/// The declaration of a numcodecs id.
pub fn by_id(id: &str) -> Option<&'static Decl> {
    REGISTRY.iter().copied().find(|d| d.id == id)
}

/// The codec the filter API defines for an HDF5 filter id.
pub fn by_hdf5_id(id: u32) -> Option<&'static Decl> {
    REGISTRY.iter().copied().find(|d| d.hdf5_id == Some(id) && d.from_hdf5.is_some())
}

/// Whether this build encodes and decodes HDF5 filter `id`
/// (`nc_inq_filter_avail`).
pub fn hdf5_available(id: u32) -> bool {
    REGISTRY.iter().any(|d| d.hdf5_id == Some(id) && d.build.is_some())
}

/// The numcodecs JSON for netCDF-C's filter `id` with `params`, for an
/// array of `dtype`. `None`: no codec of this build has that id.
pub fn from_hdf5(id: u32, params: &[u32], dtype: DataType) -> Option<Result<Value, ParamError>> {
    let d = by_hdf5_id(id)?;
    Some((d.from_hdf5?)(params, &Ctx { dtype }))
}

/// zarr-python's name prefix for the numcodecs codecs Zarr v3 has no name
/// for (`numcodecs.zlib`).
pub const NUMCODECS_PREFIX: &str = "numcodecs.";

/// A Zarr v3 codec (`name` and `configuration`) as the codec's JSON: by a
/// declaration's v3 name, or zarr-python's `numcodecs.<id>` (the
/// configuration's keys and the id). `Err`: an unknown name, or a
/// configuration the codec refuses.
pub fn from_v3(name: &str, conf: &Value) -> Result<Value, String> {
    let conf = match conf {
        Value::Object(m) => m.clone(),
        Value::Null => Map::new(),
        other => return Err(format!("codec {name}: configuration {other} is not an object")),
    };
    if let Some(v3) = REGISTRY.iter().find_map(|d| d.v3.as_ref().filter(|v| v.name == name)) {
        return (v3.from_v3)(&conf);
    }
    match name.strip_prefix(NUMCODECS_PREFIX).and_then(by_id) {
        Some(d) => {
            let mut c = conf;
            c.insert("id".into(), json!(d.id));
            Ok(Value::Object(c))
        }
        None => Err(format!("codec {name:?} is not available")),
    }
}

/// A codec's JSON as a Zarr v3 codec, for an array of `ctx.dtype`: its v3
/// name and configuration, or zarr-python's `numcodecs.<id>` with the
/// JSON's other keys.
pub fn to_v3(cfg: &Value, ctx: &Ctx) -> Value {
    let id = json_id(cfg);
    match by_id(id).and_then(|d| d.v3.as_ref()) {
        Some(v3) => match (v3.to_v3)(cfg, ctx) {
            Some(conf) => json!({ "name": v3.name, "configuration": conf }),
            None => json!({ "name": v3.name }),
        },
        None => {
            let mut conf = cfg.as_object().cloned().unwrap_or_default();
            conf.remove("id");
            json!({ "name": format!("{NUMCODECS_PREFIX}{id}"), "configuration": conf })
        }
    }
}

/// The id of a codec's JSON ("" when it has none).
pub fn json_id(cfg: &Value) -> &str {
    cfg.get("id").and_then(Value::as_str).unwrap_or("")
}

/// Builds one codec from its JSON.
pub fn build(cfg: &Value, ctx: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let id = json_id(cfg);
    match by_id(id).and_then(|d| d.build) {
        Some(b) => b(cfg, ctx),
        None => Err(CodecError::Unknown(id.to_string())),
    }
}

/// An integer parameter: a JSON number or, as netCDF-C 4.9 writes them, a
/// string holding one. `None` when absent or not an integer.
pub fn int(cfg: &Value, name: &str) -> Option<i64> {
    match cfg.get(name)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// A dtype parameter (`"dtype": "<f8"`).
pub fn dtype(cfg: &Value, name: &str, codec: &'static str) -> CodecResult<DataType> {
    let s = cfg.get(name).and_then(Value::as_str).ok_or_else(|| CodecError::BadConfig(codec, format!("no {name}")))?;
    DataType::parse(s).ok_or_else(|| CodecError::BadConfig(codec, format!("{name} {s:?}")))
}

/// An optional dtype parameter (absent or null: `default`).
pub fn dtype_or(cfg: &Value, name: &str, codec: &'static str, default: DataType) -> CodecResult<DataType> {
    match cfg.get(name) {
        None | Some(Value::Null) => Ok(default),
        Some(_) => dtype(cfg, name, codec),
    }
}

/// A number dtype parameter (booleans, integers, floats).
pub fn number_dtype(cfg: &Value, name: &str, codec: &'static str) -> CodecResult<DataType> {
    let t = dtype(cfg, name, codec)?;
    if !t.is_number() {
        return Err(CodecError::Unknown(format!("{codec} with {name} {}", t.str())));
    }
    Ok(t)
}

/// The `level` of a compressor (zlib, bz2, zstd: numcodecs' default 1 for
/// each), checked against the levels the codec takes.
pub fn level(cfg: &Value, codec: &'static str, valid: impl Fn(i64) -> bool) -> CodecResult<i64> {
    let level = int(cfg, "level").unwrap_or(1);
    if !valid(level) {
        return Err(CodecError::BadConfig(codec, format!("level {level}")));
    }
    Ok(level)
}

/// netCDF-C's one parameter for a compressor with a level: the level
/// (numcodecs' default 1 when absent; a negative one as its two's
/// complement, as HDF5 passes it).
pub fn level_to_hdf5(cfg: &Value, _: &Ctx) -> Vec<u32> {
    vec![int(cfg, "level").unwrap_or(1) as i32 as u32]
}

/// A numeric array filter's `dtype` and optional `astype` (default: the
/// same), booleans refused (numcodecs' arithmetic on them does not round
/// trip).
pub fn dtype_astype(cfg: &Value, codec: &'static str) -> CodecResult<(DataType, DataType)> {
    let dtype = number_dtype(cfg, "dtype", codec)?;
    let astype = match cfg.get("astype") {
        None | Some(Value::Null) => dtype,
        Some(_) => number_dtype(cfg, "astype", codec)?,
    };
    if dtype.kind == super::Kind::Bool || astype.kind == super::Kind::Bool {
        return Err(CodecError::Unknown(format!("{codec} of booleans")));
    }
    Ok((dtype, astype))
}

/// No HDF5 parameters.
pub fn no_params(_: &Value, _: &Ctx) -> Vec<u32> {
    vec![]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_codec_once() {
        for (i, d) in REGISTRY.iter().enumerate() {
            assert!(REGISTRY[..i].iter().all(|e| e.id != d.id), "{} twice", d.id);
            if d.from_hdf5.is_some() {
                let id = d.hdf5_id.expect("a codec the filter API defines has an HDF5 id");
                assert!(std::ptr::eq(by_hdf5_id(id).unwrap(), *d), "two codecs define filter {id}");
            }
        }
        // netCDF-C's ids
        let ids: Vec<(&str, Option<u32>)> = REGISTRY.iter().map(|d| (d.id, d.hdf5_id)).collect();
        for want in [
            ("zlib", Some(1)),
            ("shuffle", Some(2)),
            ("fletcher32", Some(3)),
            ("szip", Some(4)),
            ("bz2", Some(307)),
            ("lz4", Some(32004)),
            ("zstd", Some(32015)),
            ("blosc", Some(32001)),
            ("lzma", None),
        ] {
            assert!(ids.contains(&want), "{want:?}");
        }
        assert!(!hdf5_available(4), "szip is not built");
        for id in [1, 2, 3, 307, 32001, 32004, 32015] {
            assert!(hdf5_available(id), "{id}");
        }
    }
}
