//! numcodecs' `astype` (`{"id": "astype", "encode_dtype": "<f4",
//! "decode_dtype": "<f8"}`): the array stored as another numeric type,
//! converted with numpy's casts both ways (lossy when the stored type is
//! narrower, as numcodecs warns).

use super::dtype::{map_elements, DataType};
use super::registry::{self, Ctx, Decl, Stage};
use super::{Codec, CodecResult, Retype};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("astype", Stage::ArrayToArray, build);

#[derive(Debug)]
pub struct AsType {
    /// The stored (encoded) type.
    pub encode: DataType,
    /// The array's (decoded) type.
    pub decode: DataType,
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    Ok(Box::new(AsType {
        encode: registry::number_dtype(cfg, "encode_dtype", "astype")?,
        decode: registry::number_dtype(cfg, "decode_dtype", "astype")?,
    }))
}

impl Codec for AsType {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        map_elements(data, self.decode, self.encode, "astype", None, |v| v)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        map_elements(data, self.encode, self.decode, "astype", Some(decoded_len), |v| v)
    }

    fn retype(&self) -> Option<Retype> {
        Some(Retype { decoded: self.decode, encoded: self.encode })
    }
}
