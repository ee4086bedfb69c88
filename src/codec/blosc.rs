//! numcodecs' `blosc` (`{"id": "blosc", "cname": "lz4", "clevel": 5,
//! "shuffle": 1, "blocksize": 0}`): one Blosc 1 buffer per chunk. It is
//! xarray's default compressor for Zarr v2 and netCDF-C's filter 32001.
//! c-blosc, with its lz4, zlib and zstd back ends, is compiled into the
//! library (blosc-src), so nothing is needed at run time.
//!
//! Only the context functions are used (`blosc_compress_ctx`,
//! `blosc_decompress_ctx`): they take no global lock, ignore the `BLOSC_*`
//! environment variables, and are safe to call from many threads. Chunks
//! are already coded in parallel, so Blosc runs one internal thread.

use super::registry::{self, Ctx, Decl, ParamError, Stage, V3};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Map, Value};
use std::ffi::{c_void, CString};

/// Blosc back ends this build has, by numcodecs' `cname`, with netCDF-C's
/// codes (`netcdf_filter.h`'s `BLOSC_LZ` ...). Snappy is not built.
pub const CNAMES: [(&str, u32); 5] = [("blosclz", 0), ("lz4", 1), ("lz4hc", 2), ("zlib", 4), ("zstd", 5)];

/// netCDF-C's code for Snappy (`BLOSC_SNAPPY`), which is not built.
const SNAPPY: u32 = 3;
/// netCDF-C's `BLOSC_SHUFFLE` (byte shuffle).
const BYTE_SHUFFLE: u32 = 1;

pub const DECL: Decl = Decl {
    id: "blosc",
    hdf5_id: Some(32001),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5,
    from_hdf5: Some(from_hdf5),
    v3: Some(V3 { name: "blosc", from_v3, to_v3 }),
};

/// Zarr v3's names of numcodecs' shuffle modes 0, 1, 2.
const SHUFFLES: [&str; 3] = ["noshuffle", "shuffle", "bitshuffle"];

/// Zarr v3's `blosc`: `shuffle` by name, `typesize` kept (the element size
/// shuffling works on).
fn from_v3(conf: &Map<String, Value>) -> Result<Value, String> {
    let shuffle = match conf.get("shuffle") {
        None => 1,
        Some(Value::String(s)) => {
            SHUFFLES.iter().position(|n| n == s).ok_or_else(|| format!("blosc shuffle {s:?}"))? as i64
        }
        Some(s) => return Err(format!("blosc shuffle {s}")),
    };
    let mut c = json!({
        "id": "blosc",
        "cname": conf.get("cname").cloned().unwrap_or(json!("lz4")),
        "clevel": conf.get("clevel").cloned().unwrap_or(json!(5)),
        "shuffle": shuffle,
        "blocksize": conf.get("blocksize").cloned().unwrap_or(json!(0)),
    });
    if let Some(t) = conf.get("typesize") {
        c["typesize"] = t.clone();
    }
    Ok(c)
}

/// `typesize`: as read, else the array's element size (as zarr-python
/// writes it); numcodecs' AUTOSHUFFLE as what it resolves to.
fn to_v3(cfg: &Value, ctx: &Ctx) -> Option<Value> {
    let p = |name, default| registry::int(cfg, name).unwrap_or(default);
    let typesize = p("typesize", ctx.dtype.size as i64);
    let shuffle = match p("shuffle", 1) {
        AUTOSHUFFLE if typesize == 1 => BITSHUFFLE,
        AUTOSHUFFLE => 1,
        s => s,
    };
    let shuffle = SHUFFLES.get(shuffle as usize).copied().unwrap_or("shuffle");
    Some(json!({
        "typesize": typesize, "cname": cname(cfg), "clevel": p("clevel", 5), "shuffle": shuffle, "blocksize": p("blocksize", 0),
    }))
}

fn cname(cfg: &Value) -> &str {
    cfg.get("cname").and_then(Value::as_str).unwrap_or("lz4")
}

/// numcodecs' defaults: lz4, level 5, byte shuffle, automatic block size;
/// shuffling on the array's elements, or on `typesize` bytes when the JSON
/// has it (Zarr v3's `blosc`).
fn build(cfg: &Value, ctx: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let p = |name, default| registry::int(cfg, name).unwrap_or(default);
    let typesize = match cfg.get("typesize") {
        None | Some(Value::Null) => ctx.dtype.size,
        Some(t) => match registry::int(cfg, "typesize").and_then(|n| usize::try_from(n).ok()).filter(|&n| n > 0) {
            Some(n) => n,
            None => return Err(CodecError::BadConfig("blosc", format!("typesize {t}"))),
        },
    };
    Ok(Box::new(Blosc::new(cname(cfg), p("clevel", 5), p("shuffle", 1), p("blocksize", 0), typesize)?))
}

/// Seven parameters, as netCDF-C's `nc_def_var_blosc` passes them: 0, 0,
/// 0, block size, level, shuffle, back end. numcodecs' AUTOSHUFFLE (-1)
/// shows as byte shuffle (it bit-shuffles one-byte elements only).
fn to_hdf5(cfg: &Value, _: &Ctx) -> Vec<u32> {
    let name = cname(cfg);
    let code = match name {
        "snappy" => SNAPPY,
        _ => CNAMES.iter().find(|(n, _)| *n == name).map_or(1, |(_, c)| *c),
    };
    let p = |name, default| registry::int(cfg, name).unwrap_or(default);
    let shuffle = p("shuffle", 1);
    let shuffle = if shuffle < 0 { BYTE_SHUFFLE } else { shuffle as u32 };
    vec![0, 0, 0, p("blocksize", 0) as u32, p("clevel", 5) as u32, shuffle, code]
}

/// The seven parameters of `to_hdf5`: a back end this build has, level
/// 0-9, shuffle 0-2.
fn from_hdf5(params: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    let &[_, _, _, blocksize, clevel, shuffle, code] = params else { return Err(ParamError::Count) };
    let cname = CNAMES.iter().find(|(_, c)| *c == code).map(|(n, _)| *n).ok_or(ParamError::Value)?;
    if clevel > 9 || shuffle > 2 {
        return Err(ParamError::Value);
    }
    Ok(json!({"id": "blosc", "cname": cname, "clevel": clevel, "shuffle": shuffle, "blocksize": blocksize}))
}

/// numcodecs' shuffle modes.
pub const AUTOSHUFFLE: i64 = -1;
pub const NOSHUFFLE: i64 = 0;
pub const BITSHUFFLE: i64 = 2;

#[derive(Debug)]
pub struct Blosc {
    pub cname: CString,
    pub clevel: i32,
    /// 0 none, 1 byte, 2 bit (AUTOSHUFFLE is resolved at construction).
    pub shuffle: i32,
    pub blocksize: usize,
    /// The element size shuffling works on: the array's.
    pub typesize: usize,
}

impl Blosc {
    pub fn new(cname: &str, clevel: i64, shuffle: i64, blocksize: i64, typesize: usize) -> CodecResult<Blosc> {
        if !CNAMES.iter().any(|(n, _)| *n == cname) {
            return Err(CodecError::Unknown(format!("blosc:{cname}")));
        }
        let bad = |what: String| Err(CodecError::BadConfig("blosc", what));
        if !(0..=9).contains(&clevel) {
            return bad(format!("clevel {clevel}"));
        }
        let shuffle = match shuffle {
            // numcodecs: bit shuffle for one-byte elements, byte shuffle otherwise
            AUTOSHUFFLE => {
                if typesize == 1 {
                    BITSHUFFLE
                } else {
                    1
                }
            }
            NOSHUFFLE..=BITSHUFFLE => shuffle,
            s => return bad(format!("shuffle {s}")),
        };
        if blocksize < 0 {
            return bad(format!("blocksize {blocksize}"));
        }
        Ok(Blosc {
            cname: CString::new(cname).expect("cname is one of CNAMES"),
            clevel: clevel as i32,
            shuffle: shuffle as i32,
            blocksize: blocksize as usize,
            typesize: typesize.clamp(1, 255),
        })
    }
}

impl Codec for Blosc {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let cap = data.len() + blosc_src::BLOSC_MAX_OVERHEAD as usize;
        let mut out = vec![0u8; cap];
        // SAFETY: `data` and `out` are valid for their lengths and do not
        // overlap; c-blosc writes at most `cap` bytes.
        let n = unsafe {
            blosc_src::blosc_compress_ctx(
                self.clevel,
                self.shuffle,
                self.typesize,
                data.len(),
                data.as_ptr().cast::<c_void>(),
                out.as_mut_ptr().cast::<c_void>(),
                cap,
                self.cname.as_ptr(),
                self.blocksize,
                1,
            )
        };
        if n <= 0 {
            return Err(CodecError::BadConfig("blosc", format!("compression failed ({n})")));
        }
        out.truncate(n as usize);
        Ok(out)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        // header: version, versionlz, flags, typesize, then nbytes (u32 LE)
        data.get(4..8).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        super::decoded(|out| self.decode_into(data, decoded_len, out))
    }

    fn decode_into(&self, data: &[u8], decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        let corrupt = Err(CodecError::Corrupt("blosc"));
        let mut nbytes = 0usize;
        // SAFETY: c-blosc reads at most `data.len()` bytes to validate the
        // header against the buffer's length.
        if data.len() < blosc_src::BLOSC_MIN_HEADER_LENGTH as usize
            || unsafe { blosc_src::blosc_cbuffer_validate(data.as_ptr().cast::<c_void>(), data.len(), &mut nbytes) }
                != 0
            || nbytes != decoded_len
        {
            return corrupt;
        }
        super::sized_buf(out, decoded_len)?;
        // SAFETY: the header was validated against `data.len()` (so c-blosc
        // reads inside `data`), and it writes at most `decoded_len` bytes.
        let n = unsafe {
            blosc_src::blosc_decompress_ctx(
                data.as_ptr().cast::<c_void>(),
                out.as_mut_ptr().cast::<c_void>(),
                decoded_len,
                1,
            )
        };
        if n < 0 || n as usize != decoded_len {
            return corrupt;
        }
        Ok(())
    }
}
