//! numcodecs `Shuffle` (HDF5 filter 2): byte `k` of every element is
//! gathered into the `k`-th block. A trailing partial element is left as is.

use super::registry::{self, no_params, Ctx, Decl, ParamError, Stage};
use super::{Codec, CodecError, CodecResult};
use serde_json::{json, Value};

pub const DECL: Decl = Decl {
    id: "shuffle",
    hdf5_id: Some(2),
    stage: Stage::BytesToBytes,
    build: Some(build),
    // netCDF-C shows no parameter (its plugin works out the element size)
    to_hdf5: no_params,
    from_hdf5: Some(from_hdf5),
};

/// `elementsize` 0 (netCDF-C 4.10 writes it) or absent: the size of the
/// array's elements.
fn build(cfg: &Value, ctx: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let size = match registry::int(cfg, "elementsize") {
        None | Some(0) => ctx.dtype.size,
        Some(n) if n > 0 => n as usize,
        Some(n) => return Err(CodecError::BadConfig("shuffle", format!("elementsize {n}"))),
    };
    Ok(Box::new(Shuffle { size }))
}

/// Parameters are ignored, as netCDF-C's plugin does: the element size is
/// the array's.
fn from_hdf5(_: &[u32], ctx: &Ctx) -> Result<Value, ParamError> {
    Ok(json!({"id": "shuffle", "elementsize": ctx.dtype.size}))
}

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
