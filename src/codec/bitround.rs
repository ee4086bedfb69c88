//! numcodecs' `bitround` (`{"id": "bitround", "keepbits": K}`): floats
//! with all but `K` mantissa bits rounded away (to nearest, ties to even,
//! on the integer view of the same width, as numcodecs does). It has no
//! dtype of its own: it works on the array it is given (float16, 32 or
//! 64). Decoding is the identity: the rounded floats are the data.

use super::dtype::{DataType, Kind};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("bitround", Stage::ArrayToArray, build);

#[derive(Debug)]
pub struct BitRound {
    pub keepbits: u32,
    /// The array's type (encoding needs a float type).
    pub dtype: DataType,
}

fn build(cfg: &Value, ctx: &Ctx) -> CodecResult<Box<dyn Codec>> {
    match registry::int(cfg, "keepbits") {
        Some(k) if (0..=64).contains(&k) => Ok(Box::new(BitRound { keepbits: k as u32, dtype: ctx.dtype })),
        _ => Err(CodecError::BadConfig("bitround", format!("keepbits {:?}", cfg.get("keepbits")))),
    }
}

/// Mantissa bits of a float type.
fn mantissa_bits(t: DataType) -> Option<u32> {
    match (t.kind, t.size) {
        (Kind::Float, 2) => Some(10),
        (Kind::Float, 4) => Some(23),
        (Kind::Float, 8) => Some(52),
        _ => None,
    }
}

impl Codec for BitRound {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let bad = |what: &str| Err(CodecError::BadConfig("bitround", what.into()));
        let Some(bits) = mantissa_bits(self.dtype) else {
            return bad("only float arrays (16-64 bit) can be bit-rounded");
        };
        if self.keepbits > bits {
            return bad("keepbits too large for the dtype");
        }
        let mut out = data.to_vec();
        if self.keepbits == bits {
            return Ok(out);
        }
        let w = self.dtype.size;
        let shift = 64 - 8 * w as u32;
        let maskbits = bits - self.keepbits;
        let mask = (-1i64 >> maskbits) << maskbits;
        let half_quantum1 = (1i64 << (maskbits - 1)) - 1;
        for e in out.chunks_exact_mut(w) {
            let mut raw = [0u8; 8];
            raw[..w].copy_from_slice(e);
            if self.dtype.big_endian {
                raw[..w].reverse();
            }
            // the element as a signed integer of its width
            let b = (i64::from_le_bytes(raw) << shift) >> shift;
            let b = b.wrapping_add(((b >> maskbits) & 1) + half_quantum1) & mask;
            e.copy_from_slice(&b.to_le_bytes()[..w]);
            if self.dtype.big_endian {
                e.reverse();
            }
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        Ok(data.to_vec())
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        Some(data.len())
    }
}
