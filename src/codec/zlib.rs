//! numcodecs `Zlib` (HDF5 deflate, filter 1) and `GZip`, through the system
//! zlib (libz-sys).

use super::{Codec, CodecError, CodecResult};
use libz_sys as z;
use std::os::raw::c_int;

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

impl Codec for Zlib {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        if data.len() > z::uInt::MAX as usize / 2 {
            return Err(CodecError::BadConfig("zlib", "chunk larger than 2 GiB".into()));
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
            let mut out = vec![0u8; bound];
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
        if data.len() > z::uInt::MAX as usize || decoded_len > z::uInt::MAX as usize {
            return Err(CodecError::Corrupt("zlib"));
        }
        let mut out = super::out_buf(decoded_len.max(1))?;
        // SAFETY: as in `encode`. inflate writes at most `avail_out` bytes.
        unsafe {
            let mut s = stream(data, &mut out);
            // 32 + 15: accept zlib or gzip framing, whatever the codec id says.
            let rc = z::inflateInit2_(&mut s, 32 + 15, z::zlibVersion(), std::mem::size_of::<z::z_stream>() as c_int);
            if rc != z::Z_OK {
                return Err(CodecError::Corrupt("zlib"));
            }
            let rc = z::inflate(&mut s, z::Z_FINISH);
            let produced = s.total_out as usize;
            z::inflateEnd(&mut s);
            if rc != z::Z_STREAM_END {
                return Err(CodecError::Corrupt("zlib"));
            }
            out.truncate(produced);
            Ok(out)
        }
    }
}
