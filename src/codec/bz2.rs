//! numcodecs `BZ2` (`{"id": "bz2", "level": L}`, HDF5 filter 307,
//! `nc_def_var_bzip2`): one bzip2 stream per chunk, at block size `level`
//! (1-9). Built on the `bzip2` crate's default back end, libbz2-rs-sys (a
//! Rust port of libbz2 1.0.8 with its exact stream format), so there is no
//! C library to link and no exported `BZ2_*` symbol.

use super::registry::{self, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use bzip2::{Action, Compress, Compression, Decompress, Status};
use serde_json::{json, Value};

pub const DECL: Decl = Decl {
    id: "bz2",
    hdf5_id: Some(307),
    stage: Stage::BytesToBytes,
    build: Some(build),
    to_hdf5: registry::level_to_hdf5,
    from_hdf5: Some(from_hdf5),
    v3: None,
};

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let level = registry::level(cfg, "bz2", |l| (1..=9).contains(&l))?;
    Ok(Box::new(Bz2 { level: level as u32 }))
}

/// The level 1-9 (netCDF-C's `nc_def_var_bzip2`), the first parameter:
/// netCDF-C's bzip2 filter and codec read that one and ignore any more
/// (nczarr_test's `nccopy -F "/g/var,307,9,4"` stores level 9).
fn from_hdf5(params: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    match *params {
        [level, ..] if (1..=9).contains(&level) => Ok(json!({"id": "bz2", "level": level})),
        [_, ..] => Err(ParamError::Value),
        [] => Err(ParamError::Count),
    }
}

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
