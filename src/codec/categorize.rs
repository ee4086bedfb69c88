//! numcodecs' `categorize` (`{"id": "categorize", "labels": ["female",
//! "male"], "dtype": "<U6", "astype": "|u1"}`): fixed-width text stored as
//! integers, label `i` as `i + 1` and anything else as 0. Decoding writes
//! each label (cut to the dtype's width, as numpy assigns it) and the
//! empty string for 0 or an unknown code. Only fixed-width `U` arrays are
//! bytes this library can hold; `dtype` `|O` (Python objects) is not
//! available.

use super::dtype::{DataType, Kind, Val};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult, Retype};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("categorize", Stage::ArrayToArray, build);

#[derive(Debug)]
pub struct Categorize {
    /// The labels as UCS-4 code points.
    pub labels: Vec<Vec<u32>>,
    pub dtype: DataType,
    pub astype: DataType,
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let bad = |what: String| CodecError::BadConfig("categorize", what);
    let dtype = registry::dtype(cfg, "dtype", "categorize")?;
    match dtype.kind {
        Kind::Unicode => {}
        Kind::Object => return Err(CodecError::Unknown("categorize of |O (object) arrays".into())),
        _ => return Err(bad(format!("dtype {}", dtype.str()))),
    }
    let astype = match cfg.get("astype") {
        None | Some(Value::Null) => DataType::bytes(),
        Some(_) => registry::number_dtype(cfg, "astype", "categorize")?,
    };
    let labels = cfg.get("labels").and_then(Value::as_array).ok_or_else(|| bad("no labels".into()))?;
    let labels = labels
        .iter()
        .map(|l| l.as_str().map(|s| s.chars().map(u32::from).collect()))
        .collect::<Option<Vec<Vec<u32>>>>()
        .ok_or_else(|| bad("labels are not strings".into()))?;
    Ok(Box::new(Categorize { labels, dtype, astype }))
}

impl Categorize {
    fn chars(&self, e: &[u8]) -> Vec<u32> {
        let mut c: Vec<u32> = e
            .chunks_exact(4)
            .map(|b| {
                let b = [b[0], b[1], b[2], b[3]];
                if self.dtype.big_endian {
                    u32::from_be_bytes(b)
                } else {
                    u32::from_le_bytes(b)
                }
            })
            .collect();
        // numpy compares fixed-width text without its trailing NULs
        while c.last() == Some(&0) {
            c.pop();
        }
        c
    }
}

impl Codec for Categorize {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let n = self.dtype.count(data.len()).ok_or(CodecError::Corrupt("categorize"))?;
        let mut out = super::out_buf(n * self.astype.size)?;
        for (e, o) in data.chunks_exact(self.dtype.size).zip(out.chunks_exact_mut(self.astype.size)) {
            let text = self.chars(e);
            // a later equal label wins, as numcodecs assigns them in order
            let code = self.labels.iter().rposition(|l| *l == text).map_or(0, |i| i + 1);
            self.astype.store(Val::I(code as i128), o);
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let corrupt = CodecError::Corrupt("categorize");
        let n = self.astype.count(data.len()).ok_or(corrupt.clone())?;
        if n.checked_mul(self.dtype.size) != Some(decoded_len) {
            return Err(corrupt);
        }
        let mut out = super::out_buf(decoded_len)?;
        let width = self.dtype.size / 4;
        for (e, o) in data.chunks_exact(self.astype.size).zip(out.chunks_exact_mut(self.dtype.size)) {
            // `enc == i + 1`: the code as a number equal to a label's
            let label = match self.astype.load(e) {
                Val::I(i) => usize::try_from(i).ok(),
                Val::F(x) if x.fract() == 0.0 && x >= 1.0 && x <= self.labels.len() as f64 => Some(x as usize),
                Val::F(_) => None,
            }
            .and_then(|i| i.checked_sub(1))
            .and_then(|i| self.labels.get(i));
            for (c, slot) in label.into_iter().flatten().take(width).zip(o.chunks_exact_mut(4)) {
                slot.copy_from_slice(&if self.dtype.big_endian { c.to_be_bytes() } else { c.to_le_bytes() });
            }
        }
        Ok(out)
    }

    fn retype(&self) -> Option<Retype> {
        Some(Retype { decoded: self.dtype, encoded: self.astype })
    }
}
