//! numcodecs `LZ4` (`{"id": "lz4", "acceleration": A}`): the uncompressed
//! size as 4 little-endian bytes, then one LZ4 block. Through `lz4_flex`
//! (pure Rust, safe mode). Its encoder has one speed, so `acceleration`
//! (a speed/ratio trade-off of liblz4's encoder, not part of the format)
//! is kept in the metadata but does not change what is written; any LZ4
//! decoder reads the result.

use super::registry::{self, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Value};

/// The HDF5 filter id registered for LZ4. netCDF-C has no NCZarr codec for
/// it; the id lets the filter API reach numcodecs' `lz4`.
pub const DECL: Decl = Decl {
    id: "lz4",
    hdf5_id: Some(32004),
    stage: Stage::BytesToBytes,
    // numcodecs' `acceleration` tunes liblz4's encoder only (see above)
    build: Some(|_, _| Ok(Box::new(Lz4))),
    to_hdf5: |cfg, _| vec![registry::int(cfg, "acceleration").unwrap_or(1) as i32 as u32],
    from_hdf5: Some(from_hdf5),
    v3: None,
};

/// No parameter (numcodecs' default acceleration 1) or the acceleration.
fn from_hdf5(params: &[u32], _: &Ctx) -> Result<Value, ParamError> {
    match params {
        [] => Ok(json!({"id": "lz4", "acceleration": 1})),
        &[a] => Ok(json!({"id": "lz4", "acceleration": a as i32})),
        _ => Err(ParamError::Count),
    }
}

#[derive(Debug)]
pub struct Lz4;

impl Codec for Lz4 {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let n = u32::try_from(data.len())
            .ok()
            .filter(|&n| n <= 0x7E00_0000) // LZ4_MAX_INPUT_SIZE
            .ok_or_else(|| CodecError::BadConfig("lz4", "chunk larger than LZ4's 2 GiB limit".into()))?;
        let block = lz4_flex::block::compress(data);
        let mut out = Vec::with_capacity(block.len() + 4);
        out.extend_from_slice(&n.to_le_bytes());
        out.extend_from_slice(&block);
        Ok(out)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        data.get(..4).map(|b| u32::from_le_bytes(b.try_into().expect("4 bytes")) as usize)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let corrupt = CodecError::Corrupt("lz4");
        if data.len() < 4 {
            return Err(corrupt);
        }
        let n = u32::from_le_bytes([data[0], data[1], data[2], data[3]]) as usize;
        if n > decoded_len {
            return Err(corrupt);
        }
        let mut out = super::out_buf(n)?;
        match lz4_flex::block::decompress_into(&data[4..], &mut out) {
            Ok(k) if k == n => Ok(out),
            _ => Err(corrupt),
        }
    }
}
