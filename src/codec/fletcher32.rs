//! numcodecs `Fletcher32` (HDF5 filter 3, `nc_def_var_fletcher32`): the
//! chunk followed by HDF5's Fletcher-32 checksum of it, as 4 little-endian
//! bytes. Decoding checks the checksum and strips it; a mismatch is corrupt
//! data (netCDF-C's plugin fails the read the same way).

use super::registry::{no_params, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Value};

pub const DECL: Decl = Decl {
    id: "fletcher32",
    hdf5_id: Some(3),
    stage: Stage::BytesToBytes,
    build: Some(|_, _| Ok(Box::new(Fletcher32))),
    to_hdf5: no_params,
    from_hdf5: Some(from_hdf5),
    v3: None,
};

/// Parameters are ignored, as netCDF-C's plugin does.
fn from_hdf5(_: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    Ok(json!({"id": "fletcher32"}))
}

#[derive(Debug)]
pub struct Fletcher32;

/// HDF5's `H5_checksum_fletcher32` (which numcodecs ports): 16-bit words
/// read big-endian, sums folded every 360 words, an odd trailing byte as
/// the high byte of a last word.
pub fn checksum(data: &[u8]) -> u32 {
    let (mut sum1, mut sum2) = (0u32, 0u32);
    let fold = |s: u32| (s & 0xffff) + (s >> 16);
    let even = data.len() & !1;
    for block in data[..even].chunks(720) {
        for w in block.chunks_exact(2) {
            sum1 = sum1.wrapping_add(u32::from(w[0]) << 8 | u32::from(w[1]));
            sum2 = sum2.wrapping_add(sum1);
        }
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    if let Some(&last) = data.get(even) {
        sum1 = sum1.wrapping_add(u32::from(last) << 8);
        sum2 = sum2.wrapping_add(sum1);
        sum1 = fold(sum1);
        sum2 = fold(sum2);
    }
    sum1 = fold(sum1);
    sum2 = fold(sum2);
    sum2 << 16 | sum1
}

impl Codec for Fletcher32 {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut out = Vec::new();
        out.try_reserve_exact(data.len() + 4).map_err(|_| CodecError::NoMemory(data.len() + 4))?;
        out.extend_from_slice(data);
        out.extend_from_slice(&checksum(data).to_le_bytes());
        Ok(out)
    }

    /// The chunk without its checksum (was the whole buffer, 4 bytes more,
    /// which refused a chunk of exactly the size limit).
    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        Some(data.len().saturating_sub(4))
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        let Some(split) = data.len().checked_sub(4) else {
            return Err(CodecError::Corrupt("fletcher32"));
        };
        let (body, sum) = data.split_at(split);
        if checksum(body).to_le_bytes() != sum {
            return Err(CodecError::Corrupt("fletcher32"));
        }
        Ok(body.to_vec())
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(4)
    }
}
