//! numcodecs' `delta` (`{"id": "delta", "dtype": "<i4", "astype": "<i2"}`):
//! the first element, then each element's difference from the one before,
//! in memory order. As numcodecs computes it: differences in `dtype`
//! (integers wrap), stored cast to `astype`; decoding is numpy's `cumsum`
//! into `dtype`, which accumulates in the promotion of `astype` and
//! `dtype` (`np.result_type`) and casts each sum.

use super::dtype::{arith, map_elements, promote, DataType, Op, Val};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecResult, Retype};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("delta", Stage::ArrayToArray, build);

#[derive(Debug)]
pub struct Delta {
    pub dtype: DataType,
    pub astype: DataType,
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    // numpy's diff of booleans is XOR, its cumsum OR: numcodecs cannot
    // decode what it encodes (refused there)
    let (dtype, astype) = registry::dtype_astype(cfg, "delta")?;
    Ok(Box::new(Delta { dtype, astype }))
}

impl Codec for Delta {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut prev: Option<Val> = None;
        map_elements(data, self.dtype, self.astype, "delta", None, |x| {
            let d = match prev {
                None => x,
                Some(p) => arith(self.dtype, Op::Sub, x, p),
            };
            prev = Some(x);
            d
        })
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let acc_t = promote(self.astype, self.dtype);
        let mut acc: Option<Val> = None;
        map_elements(data, self.astype, self.dtype, "delta", Some(decoded_len), |x| {
            let x = acc_t.cast(x);
            let sum = match acc {
                None => x,
                Some(a) => arith(acc_t, Op::Add, a, x),
            };
            acc = Some(sum);
            sum
        })
    }

    fn retype(&self) -> Option<Retype> {
        Some(Retype { decoded: self.dtype, encoded: self.astype })
    }
}
