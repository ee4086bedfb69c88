//! numcodecs' `zstd` (`{"id": "zstd", "level": L, "checksum": C}`): one
//! standard Zstandard frame per chunk. zarr-python 3 compresses Zarr v2
//! arrays with it by default, and netCDF-C writes it for filter 32015
//! (`nc_def_var_zstandard`). libzstd is compiled into the library (zstd-sys),
//! so there is no runtime dependency and no exported zstd symbol.

use super::registry::{self, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Value};
use zstd::zstd_safe::CParameter;

pub const DECL: Decl = Decl {
    id: "zstd",
    hdf5_id: Some(32015),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: Some(from_hdf5),
};

/// The level: numcodecs' default is 1; 0 is libzstd's default (3).
fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let level = registry::level(cfg, "zstd", |l| LEVELS.contains(&l))?;
    let checksum = match cfg.get("checksum") {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(v) => return Err(CodecError::BadConfig("zstd", format!("checksum {v}"))),
    };
    Ok(Box::new(Zstd { level: level as i32, checksum }))
}

/// One parameter, the level (`nc_def_var_zstandard`; negative ones as
/// their two's complement).
fn from_hdf5(params: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    let &[p] = params else { return Err(ParamError::Count) };
    let level = p as i32;
    if !LEVELS.contains(&i64::from(level)) {
        return Err(ParamError::Value);
    }
    Ok(json!({"id": "zstd", "level": level}))
}

/// Levels libzstd accepts: negative ones are its fast modes, 0 its default (3).
pub const LEVELS: std::ops::RangeInclusive<i64> = -131072..=22;

#[derive(Debug)]
pub struct Zstd {
    pub level: i32,
    /// Write a content checksum into each frame (numcodecs' `checksum`).
    pub checksum: bool,
}

impl Codec for Zstd {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let fail = |e: std::io::Error| CodecError::BadConfig("zstd", e.to_string());
        let mut c = zstd::bulk::Compressor::new(self.level).map_err(fail)?;
        c.set_parameter(CParameter::ChecksumFlag(self.checksum)).map_err(fail)?;
        // the frame header records the content size, which numcodecs' and
        // netCDF-C's decoders use to size their output
        c.include_contentsize(true).map_err(fail)?;
        c.compress(data).map_err(fail)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        match zstd::zstd_safe::get_frame_content_size(data) {
            Ok(Some(n)) => usize::try_from(n).ok(),
            _ => None,
        }
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        // A frame never decodes to more than the chunk: anything else is corrupt.
        let mut out = super::out_buf(decoded_len)?;
        let n = zstd::bulk::decompress_to_buffer(data, &mut out[..]).map_err(|_| CodecError::Corrupt("zstd"))?;
        if n != decoded_len {
            return Err(CodecError::Corrupt("zstd"));
        }
        Ok(out)
    }
}
