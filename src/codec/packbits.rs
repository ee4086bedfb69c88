//! numcodecs' `packbits` (`{"id": "packbits"}`): a boolean array (one byte
//! per element, non-zero is true) packed eight elements to a byte, most
//! significant bit first (numpy's `packbits`), after one byte holding the
//! number of padding bits in the last byte. Decoding gives 0/1 bytes.

use super::dtype::DataType;
use super::registry::{Decl, Stage};
use super::{Codec, CodecError, CodecResult};

pub const DECL: Decl = Decl::numcodecs("packbits", Stage::ArrayToArray, |_, _| Ok(Box::new(PackBits)));

#[derive(Debug)]
pub struct PackBits;

/// The element count of an encoded buffer (`None` if it is malformed).
fn count(data: &[u8]) -> Option<usize> {
    let (&pad, bytes) = data.split_first()?;
    if pad > 7 || (bytes.is_empty() && pad != 0) {
        return None;
    }
    (bytes.len().checked_mul(8)?).checked_sub(usize::from(pad))
}

impl Codec for PackBits {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let n = data.len();
        let mut out = super::out_buf(n.div_ceil(8) + 1)?;
        out[0] = ((8 - n % 8) % 8) as u8;
        for (i, &b) in data.iter().enumerate() {
            if b != 0 {
                out[1 + i / 8] |= 0x80 >> (i % 8);
            }
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        match count(data) {
            Some(n) if n == decoded_len => {
                let mut out = super::out_buf(n)?;
                for (i, o) in out.iter_mut().enumerate() {
                    *o = (data[1 + i / 8] >> (7 - i % 8)) & 1;
                }
                Ok(out)
            }
            _ => Err(CodecError::Corrupt("packbits")),
        }
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len.div_ceil(8) + 1)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        count(data)
    }

    fn encoded_dtype(&self, _: DataType) -> DataType {
        DataType::bytes()
    }
}
