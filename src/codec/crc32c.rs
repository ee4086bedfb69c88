//! Zarr v3's `crc32c` codec (numcodecs `crc32c`): the data followed by its
//! CRC-32C (Castagnoli) as 4 little-endian bytes. Decoding checks and
//! strips it; a mismatch is corrupt data.

use super::registry::{Decl, Stage, V3};
use super::{Codec, CodecError, CodecResult};
use serde_json::json;

/// Zarr v3's `crc32c` has no configuration.
pub const DECL: Decl = Decl {
    v3: Some(V3 { name: "crc32c", from_v3: |_| Ok(json!({"id": "crc32c"})), to_v3: |_, _| None }),
    ..Decl::numcodecs("crc32c", Stage::BytesToBytes, |_, _| Ok(Box::new(Crc32c)))
};

#[derive(Debug)]
pub struct Crc32c;

impl Codec for Crc32c {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut out = Vec::new();
        out.try_reserve_exact(data.len() + 4).map_err(|_| CodecError::NoMemory(data.len() + 4))?;
        out.extend_from_slice(data);
        out.extend_from_slice(&crc32c::crc32c(data).to_le_bytes());
        Ok(out)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        Some(data.len().saturating_sub(4))
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        let Some(split) = data.len().checked_sub(4) else {
            return Err(CodecError::Corrupt("crc32c"));
        };
        let (body, sum) = data.split_at(split);
        if crc32c::crc32c(body).to_le_bytes() != sum {
            return Err(CodecError::Corrupt("crc32c"));
        }
        Ok(body.to_vec())
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(4)
    }
}
