//! numcodecs' `quantize` (`{"id": "quantize", "digits": 3, "dtype": "<f8",
//! "astype": "<f4"}`): floats rounded to a power-of-two multiple that keeps
//! `digits` decimal digits, `around(scale * x) / scale` in `dtype`, stored
//! as `astype` (another float type); decoding only casts back. The scale
//! is numcodecs': `2 ** ceil(log2(10 ** -e))` with `e` the rounded
//! `log10(10 ** -digits)`.

use super::dtype::{arith, around, map_elements, DataType, Op, Val};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult, Retype};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("quantize", Stage::ArrayToArray, build);

#[derive(Debug)]
pub struct Quantize {
    /// `2 ** bits` for the number of digits.
    pub scale: f64,
    pub dtype: DataType,
    pub astype: DataType,
}

/// numcodecs' scale for `digits` decimal digits.
pub fn scale(digits: i64) -> Option<f64> {
    let precision = 10f64.powf(-(digits as f64));
    let exp = precision.log10();
    if !exp.is_finite() {
        return None;
    }
    let exp = if exp < 0.0 { exp.floor() } else { exp.ceil() };
    let bits = 10f64.powf(-exp).log2().ceil();
    bits.is_finite().then(|| 2f64.powf(bits))
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let bad = |what: String| CodecError::BadConfig("quantize", what);
    let digits = registry::int(cfg, "digits").ok_or_else(|| bad(format!("digits {:?}", cfg.get("digits"))))?;
    let dtype = registry::dtype(cfg, "dtype", "quantize")?;
    let astype = registry::dtype_or(cfg, "astype", "quantize", dtype)?;
    if !dtype.is_float() || !astype.is_float() {
        return Err(bad("only floating point data types are supported".into()));
    }
    let scale = scale(digits).ok_or_else(|| bad(format!("digits {digits}")))?;
    Ok(Box::new(Quantize { scale, dtype, astype }))
}

impl Codec for Quantize {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let t = self.dtype;
        let s = t.cast(Val::F(self.scale));
        map_elements(data, t, self.astype, "quantize", None, |x| arith(t, Op::Div, around(arith(t, Op::Mul, s, x)), s))
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        map_elements(data, self.astype, self.dtype, "quantize", Some(decoded_len), |v| v)
    }

    fn retype(&self) -> Option<Retype> {
        Some(Retype { decoded: self.dtype, encoded: self.astype })
    }
}
