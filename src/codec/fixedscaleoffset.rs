//! numcodecs' `fixedscaleoffset` (`{"id": "fixedscaleoffset", "offset":
//! 1000, "scale": 10, "dtype": "<f8", "astype": "|u1"}`): stores
//! `around((x - offset) * scale)` as `astype`, decodes `y / scale +
//! offset` as `dtype`. The arithmetic is numpy 2's: `offset` and `scale`
//! are Python scalars (JSON integers or floats) that take the array's type
//! when it is a float, or when both are integers; an integer array with a
//! float scalar computes in float64, and integer division is float64.

use super::dtype::{arith, around, map_elements, DataType, Kind, Op, Val};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult, Retype};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("fixedscaleoffset", Stage::ArrayToArray, build);

/// A Python scalar from the JSON: an `int` or a `float`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum PyNum {
    Int(i128),
    Float(f64),
}

impl PyNum {
    pub fn from_json(cfg: &Value, name: &str, codec: &'static str) -> CodecResult<PyNum> {
        let bad = || CodecError::BadConfig(codec, format!("{name} {:?}", cfg.get(name)));
        let n = cfg.get(name).and_then(Value::as_number).ok_or_else(bad)?;
        if let Some(i) = n.as_i64() {
            Ok(PyNum::Int(i.into()))
        } else if let Some(u) = n.as_u64() {
            Ok(PyNum::Int(u.into()))
        } else {
            n.as_f64().map(PyNum::Float).ok_or_else(bad)
        }
    }

    fn val(self) -> Val {
        match self {
            PyNum::Int(i) => Val::I(i),
            PyNum::Float(x) => Val::F(x),
        }
    }

    /// The type numpy 2 computes `array op scalar` in, for an array of `t`.
    fn with(self, t: DataType) -> DataType {
        match (t.kind, self) {
            (Kind::Float, _) | (_, PyNum::Int(_)) => t,
            (_, PyNum::Float(_)) => f8(),
        }
    }

    /// The scalar as a value of `t`: numpy 2 refuses a Python integer
    /// outside an integer type's range (`OverflowError`).
    fn as_type(self, t: DataType, codec: &'static str) -> CodecResult<Val> {
        let v = t.cast(self.val());
        if let (PyNum::Int(i), Val::I(j), Kind::Int | Kind::UInt) = (self, v, t.kind) {
            if i != j {
                return Err(CodecError::BadConfig(codec, format!("{i} does not fit {}", t.str())));
            }
        }
        Ok(v)
    }
}

/// float64, numpy's type for integer true division and int-float mixes.
fn f8() -> DataType {
    DataType::new(Kind::Float, 8, false)
}

#[derive(Debug)]
pub struct FixedScaleOffset {
    pub offset: PyNum,
    pub scale: PyNum,
    pub dtype: DataType,
    pub astype: DataType,
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let (dtype, astype) = registry::dtype_astype(cfg, NAME)?;
    Ok(Box::new(FixedScaleOffset {
        offset: PyNum::from_json(cfg, "offset", "fixedscaleoffset")?,
        scale: PyNum::from_json(cfg, "scale", "fixedscaleoffset")?,
        dtype,
        astype,
    }))
}

const NAME: &str = "fixedscaleoffset";

impl Codec for FixedScaleOffset {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        // (arr - offset) * scale, then around
        let t1 = self.offset.with(self.dtype);
        let t2 = self.scale.with(t1);
        let (offset, scale) = (self.offset.as_type(t1, NAME)?, self.scale.as_type(t2, NAME)?);
        map_elements(data, self.dtype, self.astype, NAME, None, |x| {
            let d = arith(t1, Op::Sub, t1.cast(x), offset);
            around(arith(t2, Op::Mul, t2.cast(d), scale))
        })
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        // enc / scale + offset: true division is float64 for integers
        let t = if self.astype.is_float() { self.astype } else { f8() };
        let (scale, offset) = (t.cast(self.scale.val()), t.cast(self.offset.val()));
        map_elements(data, self.astype, self.dtype, NAME, Some(decoded_len), |y| {
            arith(t, Op::Add, arith(t, Op::Div, t.cast(y), scale), offset)
        })
    }

    fn retype(&self) -> Option<Retype> {
        Some(Retype { decoded: self.dtype, encoded: self.astype })
    }
}
