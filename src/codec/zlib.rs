//! numcodecs `Zlib` (`{"id": "zlib", "level": L}`, HDF5 deflate: filter
//! id 1) and `GZip`.
//!
//! Compression is libdeflate's (the `libdeflater` crate, built
//! statically) at the requested level: standard zlib (or gzip) streams,
//! which every inflater reads, compressed 2.5-3.5x faster than zlib's own
//! deflate to within 1 % of its size (level 1; measured on float and int
//! chunks, shuffled or not). zlib-ng's and zlib-rs's deflate is about
//! twice as fast as zlib too, but its level 1 makes up to twice the bytes.
//! With `NCZARR_RS_DEFLATE=zlib` compression is zlib's own (libz-sys,
//! built statically), the same bytes as netCDF-C, numcodecs and HDF5 at
//! every level: netCDF-C's deflate plugin stores level `k` (0-9) as
//! `{"id": "zlib", "level": k}` and compresses with `compress2` (zlib
//! framing, 15 window bits, memory level 8, default strategy). Level 0 is
//! always zlib's stored blocks, as netCDF-C writes it.
//! Decompression, whose output is the same whatever the implementation,
//! is zlib-rs's (the Rust port of zlib-ng), about twice zlib's. `gzip`
//! shows as deflate in the filter API too, but only `zlib` is defined
//! through it.

use super::registry::{self, Ctx, Decl, ParamError, Stage, V3};
use super::{Codec, CodecError, CodecResult};
use libz_sys as z;
use serde_json::{json, Map, Value};
use std::os::raw::c_int;
use zlib_rs::{decompress_slice, InflateConfig, ReturnCode};

pub const ZLIB: Decl = Decl {
    id: "zlib",
    hdf5_id: Some(1),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: Some(from_hdf5),
    v3: None,
};

pub const GZIP: Decl = Decl {
    id: "gzip",
    hdf5_id: Some(1),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: None,
    v3: Some(V3 { name: "gzip", from_v3: gzip_from_v3, to_v3: gzip_to_v3 }),
};

/// Zarr v3's `gzip` (`level`: 6 when absent, which the spec does not allow).
fn gzip_from_v3(conf: &Map<String, Value>) -> Result<Value, String> {
    Ok(json!({"id": "gzip", "level": conf.get("level").cloned().unwrap_or(json!(6))}))
}

fn gzip_to_v3(cfg: &Value, _: &Ctx) -> Option<Value> {
    Some(json!({"level": registry::int(cfg, "level").unwrap_or(1)}))
}

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

unsafe extern "C" fn zalloc(_opaque: z::voidpf, items: z::uInt, size: z::uInt) -> z::voidpf {
    libc::calloc(items as usize, size as usize)
}

unsafe extern "C" fn zfree(_opaque: z::voidpf, address: z::voidpf) {
    libc::free(address)
}

/// A fresh stream over `input` and `output` (zlib reads the allocators from
/// it; the function-pointer fields may not be NULL in Rust).
fn stream(input: &[u8], output: &mut [u8]) -> z::z_stream {
    z::z_stream {
        next_in: input.as_ptr() as *mut u8,
        avail_in: input.len() as z::uInt,
        total_in: 0,
        next_out: output.as_mut_ptr(),
        avail_out: output.len() as z::uInt,
        total_out: 0,
        msg: std::ptr::null_mut(),
        state: std::ptr::null_mut(),
        zalloc,
        zfree,
        opaque: std::ptr::null_mut(),
        data_type: 0,
        adler: 0,
        reserved: 0,
    }
}

/// zlib's window bits: 15 for zlib framing, +16 for gzip.
fn window_bits(gzip: bool) -> c_int {
    if gzip {
        15 + 16
    } else {
        15
    }
}

/// Whether deflate streams are zlib's own bytes (`NCZARR_RS_DEFLATE=zlib`),
/// read once.
fn zlib_bytes() -> bool {
    static ZLIB: std::sync::LazyLock<bool> = std::sync::LazyLock::new(|| {
        std::env::var("NCZARR_RS_DEFLATE").is_ok_and(|v| v.trim().eq_ignore_ascii_case("zlib"))
    });
    *ZLIB
}

thread_local! {
    /// This thread's libdeflate compressor and its level (made once per
    /// thread and level, not per chunk).
    static DEFLATER: std::cell::RefCell<Option<(i32, libdeflater::Compressor)>> =
        const { std::cell::RefCell::new(None) };
}

impl Zlib {
    /// libdeflate at this codec's level (-1: zlib's default, 6).
    fn encode_libdeflate(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let level = if self.level < 0 { 6 } else { self.level };
        let bad = |e: String| CodecError::BadConfig("zlib", e);
        DEFLATER.with(|slot| {
            let mut slot = slot.try_borrow_mut().map_err(|_| bad("compressor in use".into()))?;
            if slot.as_ref().is_none_or(|(l, _)| *l != level) {
                let lvl = libdeflater::CompressionLvl::new(level).map_err(|e| bad(format!("level {level}: {e:?}")))?;
                *slot = Some((level, libdeflater::Compressor::new(lvl)));
            }
            let Some((_, c)) = slot.as_mut() else { unreachable!("set above") };
            let bound = if self.gzip { c.gzip_compress_bound(data.len()) } else { c.zlib_compress_bound(data.len()) };
            let mut out = super::out_buf(bound)?;
            let n = if self.gzip { c.gzip_compress(data, &mut out) } else { c.zlib_compress(data, &mut out) };
            out.truncate(n.map_err(|e| bad(format!("{e:?}")))?);
            Ok(out)
        })
    }
}

impl Codec for Zlib {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        if data.len() > z::uInt::MAX as usize / 2 {
            return Err(CodecError::BadConfig("zlib", "chunk larger than 2 GiB".into()));
        }
        if self.level != 0 && !zlib_bytes() {
            return self.encode_libdeflate(data);
        }
        // SAFETY: the stream is initialised before use and always ended; the
        // buffers it points to outlive it.
        unsafe {
            let mut s = stream(data, &mut []);
            let rc = z::deflateInit2_(
                &mut s,
                self.level,
                z::Z_DEFLATED,
                window_bits(self.gzip),
                8,
                z::Z_DEFAULT_STRATEGY,
                z::zlibVersion(),
                std::mem::size_of::<z::z_stream>() as c_int,
            );
            if rc != z::Z_OK {
                return Err(CodecError::BadConfig("zlib", format!("deflateInit2 {rc}")));
            }
            let bound = z::deflateBound(&mut s, data.len() as z::uLong) as usize + 32;
            let mut out = match super::out_buf(bound) {
                Ok(out) => out,
                Err(e) => {
                    z::deflateEnd(&mut s);
                    return Err(e);
                }
            };
            s.next_out = out.as_mut_ptr();
            s.avail_out = out.len() as z::uInt;
            let rc = z::deflate(&mut s, z::Z_FINISH);
            let produced = s.total_out as usize;
            z::deflateEnd(&mut s);
            if rc != z::Z_STREAM_END {
                return Err(CodecError::Corrupt("zlib"));
            }
            out.truncate(produced);
            Ok(out)
        }
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        super::decoded(|out| self.decode_into(data, decoded_len, out))
    }

    fn decode_into(&self, data: &[u8], decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        if decoded_len > u32::MAX as usize {
            return Err(CodecError::Corrupt("zlib"));
        }
        super::sized_buf(out, decoded_len.max(1))?;
        // 32 + 15: accept zlib or gzip framing, whatever the codec id says.
        // Output beyond `decoded_len` is an error (BufError), trailing input
        // after the end of the stream is ignored, as zlib's inflate does.
        let (produced, rc) = decompress_slice(out, data, InflateConfig { window_bits: 32 + 15 });
        if rc != ReturnCode::Ok {
            return Err(CodecError::Corrupt("zlib"));
        }
        let n = produced.len();
        out.truncate(n);
        Ok(())
    }
}
