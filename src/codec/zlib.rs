//! numcodecs `Zlib` (`{"id": "zlib", "level": L}`, HDF5 deflate: filter
//! id 1) and `GZip`, through zlib-rs (a memory-safe Rust port of zlib-ng: standard zlib
//! streams, SIMD where the CPU has it; about twice zlib's speed at level 1). netCDF-C's
//! deflate plugin stores level `k` (0-9) as `{"id": "zlib", "level": k}`
//! and compresses with `compress2` (zlib framing, 15 window bits, memory
//! level 8, default strategy), as `encode` does; level 0 is zlib's stored
//! blocks. `gzip` shows as deflate in the filter API too, but only `zlib`
//! is defined through it.

use super::registry::{self, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Value};
use zlib_rs::{
    compress_bound, compress_slice, decompress_slice, DeflateConfig, InflateConfig, Method, ReturnCode, Strategy,
};

pub const ZLIB: Decl = Decl {
    id: "zlib",
    hdf5_id: Some(1),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: Some(from_hdf5),
};

pub const GZIP: Decl = Decl {
    id: "gzip",
    hdf5_id: Some(1),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: None,
};

/// numcodecs' default level is 1; -1 is zlib's default (6).
fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let level = registry::level(cfg, "zlib", |l| (-1..=9).contains(&l))?;
    Ok(Box::new(Zlib { level: level as i32, gzip: registry::json_id(cfg) == "gzip" }))
}

/// One parameter, the level 0-9 (netCDF-C's `NC_MIN_DEFLATE_LEVEL` to
/// `NC_MAX_DEFLATE_LEVEL`).
fn from_hdf5(params: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    let &[level] = params else { return Err(ParamError::Count) };
    if level > 9 {
        return Err(ParamError::Value);
    }
    Ok(json!({"id": "zlib", "level": level as i32}))
}

#[derive(Debug)]
pub struct Zlib {
    pub level: i32,
    /// gzip framing (numcodecs `GZip`) instead of zlib's.
    pub gzip: bool,
}

/// zlib's window bits: 15 for zlib framing, +16 for gzip.
fn window_bits(gzip: bool) -> i32 {
    if gzip {
        15 + 16
    } else {
        15
    }
}

impl Codec for Zlib {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        if data.len() > u32::MAX as usize / 2 {
            return Err(CodecError::BadConfig("zlib", "chunk larger than 2 GiB".into()));
        }
        let config = DeflateConfig {
            level: self.level,
            method: Method::Deflated,
            window_bits: window_bits(self.gzip),
            mem_level: 8,
            strategy: Strategy::Default,
        };
        // deflateBound of the input (a few bytes per stored block beyond it),
        // plus room for the gzip header
        let bound = compress_bound(data.len()) + 32;
        let mut out = super::out_buf(bound)?;
        let (produced, rc) = compress_slice(&mut out, data, config);
        if rc != ReturnCode::Ok {
            return Err(CodecError::BadConfig("zlib", format!("deflate {rc:?}")));
        }
        let n = produced.len();
        out.truncate(n);
        Ok(out)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        if decoded_len > u32::MAX as usize {
            return Err(CodecError::Corrupt("zlib"));
        }
        let mut out = super::out_buf(decoded_len.max(1))?;
        // 32 + 15: accept zlib or gzip framing, whatever the codec id says.
        // Output beyond `decoded_len` is an error (BufError), trailing input
        // after the end of the stream is ignored, as zlib's inflate does.
        let (produced, rc) = decompress_slice(&mut out, data, InflateConfig { window_bits: 32 + 15 });
        if rc != ReturnCode::Ok {
            return Err(CodecError::Corrupt("zlib"));
        }
        let n = produced.len();
        out.truncate(n);
        Ok(out)
    }
}
