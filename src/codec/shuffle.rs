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
    v3: None,
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

/// Byte `b` of element `e` goes to byte `e` of plane `b`: `n` whole
/// elements of `S` bytes from `data` into `out`. Const-generic for the usual
/// element sizes, so the compiler unrolls the byte loop.
fn shuffle_n<const S: usize>(data: &[u8], out: &mut [u8], n: usize) {
    let planes: [&mut [u8]; S] = {
        let mut rest = &mut out[..S * n];
        std::array::from_fn(|_| {
            let (p, r) = std::mem::take(&mut rest).split_at_mut(n);
            rest = r;
            p
        })
    };
    for (e, el) in data[..S * n].chunks_exact(S).enumerate() {
        for b in 0..S {
            planes[b][e] = el[b];
        }
    }
}

/// The reverse of `shuffle_n`.
fn unshuffle_n<const S: usize>(data: &[u8], out: &mut [u8], n: usize) {
    let planes: [&[u8]; S] = std::array::from_fn(|b| &data[b * n..(b + 1) * n]);
    for (e, el) in out[..S * n].chunks_exact_mut(S).enumerate() {
        for b in 0..S {
            el[b] = planes[b][e];
        }
    }
}

/// Any element size: the same loops without unrolling.
fn shuffle_any(data: &[u8], out: &mut [u8], s: usize, n: usize, encode: bool) {
    for e in 0..n {
        for b in 0..s {
            if encode {
                out[b * n + e] = data[e * s + b];
            } else {
                out[e * s + b] = data[b * n + e];
            }
        }
    }
}

fn run(data: &[u8], s: usize, encode: bool) -> CodecResult<Vec<u8>> {
    super::decoded(|out| run_into(data, s, encode, out))
}

fn run_into(data: &[u8], s: usize, encode: bool, out: &mut Vec<u8>) -> CodecResult<()> {
    let n = data.len() / s.max(1);
    super::sized_buf(out, data.len())?;
    // a trailing partial element stays where it is
    out[s * n..].copy_from_slice(&data[s * n..]);
    match (s, encode) {
        (0 | 1, _) => out.copy_from_slice(data),
        (2, true) => shuffle_n::<2>(data, out, n),
        (4, true) => shuffle_n::<4>(data, out, n),
        (8, true) => shuffle_n::<8>(data, out, n),
        (2, false) => unshuffle_n::<2>(data, out, n),
        (4, false) => unshuffle_n::<4>(data, out, n),
        (8, false) => unshuffle_n::<8>(data, out, n),
        _ => shuffle_any(data, out, s, n, encode),
    }
    Ok(())
}

impl Codec for Shuffle {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        run(data, self.size, true)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        Some(data.len())
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        run(data, self.size, false)
    }

    fn decode_into(&self, data: &[u8], _decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        run_into(data, self.size, false, out)
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        Some(decoded_len)
    }
}
