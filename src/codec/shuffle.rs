//! numcodecs `Shuffle` (HDF5 filter 2): byte `k` of every element is
//! gathered into the `k`-th block. A trailing partial element is left as is.

use super::{Codec, CodecResult};

#[derive(Debug)]
pub struct Shuffle {
    pub size: usize,
}

impl Codec for Shuffle {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let (s, n) = (self.size, data.len() / self.size.max(1));
        if s <= 1 {
            return Ok(data.to_vec());
        }
        let mut out = data.to_vec();
        for e in 0..n {
            for b in 0..s {
                out[b * n + e] = data[e * s + b];
            }
        }
        Ok(out)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        Some(data.len())
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        let (s, n) = (self.size, data.len() / self.size.max(1));
        if s <= 1 {
            return Ok(data.to_vec());
        }
        let mut out = data.to_vec();
        for e in 0..n {
            for b in 0..s {
                out[e * s + b] = data[b * n + e];
            }
        }
        Ok(out)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len)
    }
}
