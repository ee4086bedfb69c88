//! numcodecs' `zstd` (`{"id": "zstd", "level": L, "checksum": C}`): one
//! standard Zstandard frame per chunk. zarr-python 3 compresses Zarr v2
//! arrays with it by default, and netCDF-C writes it for filter 32015
//! (`nc_def_var_zstandard`). libzstd is compiled into the library (zstd-sys),
//! so there is no runtime dependency and no exported zstd symbol.

use super::registry::{self, Ctx, Decl, ParamError, Stage, V3};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Map, Value};
use std::cell::RefCell;
use zstd::zstd_safe::CParameter;

pub const DECL: Decl = Decl {
    id: "zstd",
    hdf5_id: Some(32015),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: Some(from_hdf5),
    v3: Some(V3 { name: "zstd", from_v3, to_v3 }),
};

/// Zarr v3's `zstd` (`level`, default 0; `checksum`, default false).
fn from_v3(conf: &Map<String, Value>) -> Result<Value, String> {
    let level = conf.get("level").cloned().unwrap_or(json!(0));
    let checksum = conf.get("checksum").cloned().unwrap_or(json!(false));
    Ok(json!({"id": "zstd", "level": level, "checksum": checksum}))
}

fn to_v3(cfg: &Value, _: &Ctx) -> Option<Value> {
    let checksum = cfg.get("checksum").and_then(Value::as_bool).unwrap_or(false);
    Some(json!({"level": registry::int(cfg, "level").unwrap_or(1), "checksum": checksum}))
}

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

thread_local! {
    /// Each thread's compression and decompression contexts, kept from
    /// chunk to chunk: a new context allocates (and faults in) its tables
    /// for every chunk otherwise. Every parameter is set again before use.
    static CCTX: RefCell<Option<zstd::bulk::Compressor<'static>>> = const { RefCell::new(None) };
    static DCTX: RefCell<Option<zstd::bulk::Decompressor<'static>>> = const { RefCell::new(None) };
}

impl Codec for Zstd {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let fail = |e: std::io::Error| CodecError::BadConfig("zstd", e.to_string());
        CCTX.with_borrow_mut(|slot| {
            let c = match slot {
                Some(c) => c,
                None => slot.insert(zstd::bulk::Compressor::new(self.level).map_err(fail)?),
            };
            c.set_parameter(CParameter::CompressionLevel(self.level)).map_err(fail)?;
            c.set_parameter(CParameter::ChecksumFlag(self.checksum)).map_err(fail)?;
            // the frame header records the content size, which numcodecs'
            // and netCDF-C's decoders use to size their output
            c.include_contentsize(true).map_err(fail)?;
            c.compress(data).map_err(fail)
        })
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        match zstd::zstd_safe::get_frame_content_size(data) {
            Ok(Some(n)) => usize::try_from(n).ok(),
            _ => None,
        }
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        super::decoded(|out| self.decode_into(data, decoded_len, out))
    }

    fn decode_into(&self, data: &[u8], decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        // A frame never decodes to more than the chunk: anything else is corrupt.
        super::sized_buf(out, decoded_len)?;
        let n = DCTX.with_borrow_mut(|slot| {
            let d = match slot {
                Some(d) => d,
                None => slot.insert(zstd::bulk::Decompressor::new().map_err(|_| CodecError::Corrupt("zstd"))?),
            };
            d.decompress_to_buffer(data, &mut out[..]).map_err(|_| CodecError::Corrupt("zstd"))
        })?;
        if n != decoded_len {
            return Err(CodecError::Corrupt("zstd"));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The frame header's descriptor (after the 4-byte magic): bit 2 is
    /// the content checksum flag.
    fn has_checksum(frame: &[u8]) -> bool {
        frame[4] & 0b100 != 0
    }

    /// The thread's kept contexts take each codec's own parameters: a
    /// frame with a checksum, then one without, then at another level, on
    /// one thread, each as a fresh context makes it; and each decodes.
    #[test]
    fn kept_contexts_take_each_codecs_parameters() {
        let data: Vec<u8> = (0..100_000u32).flat_map(|i| (i % 251).to_le_bytes()).collect();
        let fresh = |level: i32, checksum: bool| {
            let mut c = zstd::bulk::Compressor::new(level).unwrap();
            c.set_parameter(CParameter::ChecksumFlag(checksum)).unwrap();
            c.include_contentsize(true).unwrap();
            c.compress(&data).unwrap()
        };
        for (level, checksum) in [(1, true), (1, false), (19, false), (3, true), (1, false)] {
            let z = Zstd { level, checksum };
            let frame = z.encode(&data).unwrap();
            assert_eq!(has_checksum(&frame), checksum, "level {level}");
            assert_eq!(frame, fresh(level, checksum), "level {level}, checksum {checksum}");
            assert_eq!(z.announced_len(&frame), Some(data.len()));
            assert_eq!(z.decode(&frame, data.len()).unwrap(), data);
        }
        let corrupt = Zstd { level: 1, checksum: true }.encode(&data).unwrap();
        let mut bad = corrupt.clone();
        let last = bad.len() - 1;
        bad[last] ^= 0xff; // the checksum
        assert!(Zstd { level: 1, checksum: true }.decode(&bad, data.len()).is_err());
        // the kept decompression context still works after an error
        assert_eq!(Zstd { level: 1, checksum: true }.decode(&corrupt, data.len()).unwrap(), data);
    }
}
