//! numcodecs `BZ2` (`{"id": "bz2", "level": L}`, HDF5 filter 307,
//! `nc_def_var_bzip2`): one bzip2 stream per chunk, at block size `level`
//! (1-9). Built on the `bzip2` crate's default back end, libbz2-rs-sys (a
//! Rust port of libbz2 1.0.8 with its exact stream format), so there is no
//! C library to link and no exported `BZ2_*` symbol.

use super::{Codec, CodecError, CodecResult};
use bzip2::{Action, Compress, Compression, Decompress, Status};

#[derive(Debug)]
pub struct Bz2 {
    pub level: u32,
}

impl Codec for Bz2 {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let fail = |e: bzip2::Error| CodecError::BadConfig("bz2", e.to_string());
        let mut c = Compress::new(Compression::new(self.level), 0);
        // bzip2's worst case is 1% + 600 bytes over the input
        let mut out = Vec::with_capacity(data.len() + data.len() / 100 + 600);
        loop {
            let before = c.total_in() as usize;
            match c.compress_vec(&data[before.min(data.len())..], &mut out, Action::Finish).map_err(fail)? {
                Status::StreamEnd => return Ok(out),
                _ => out.reserve(out.capacity().max(4096)),
            }
        }
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let corrupt = CodecError::Corrupt("bz2");
        let mut d = Decompress::new(false);
        // the chunk's size plus one byte: more output than the chunk is corrupt
        let cap = decoded_len.checked_add(1).ok_or(CodecError::NoMemory(decoded_len))?;
        let mut out = Vec::new();
        out.try_reserve_exact(cap).map_err(|_| CodecError::NoMemory(cap))?;
        match d.decompress_vec(data, &mut out) {
            Ok(Status::StreamEnd) if out.len() <= decoded_len => Ok(out),
            _ => Err(corrupt),
        }
    }
}
