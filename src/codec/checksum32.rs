//! numcodecs' 32-bit checksum codecs `crc32` and `adler32` (`{"id":
//! "crc32"}`, optionally `"location": "start"` or `"end"`): the chunk with
//! zlib's CRC-32 or Adler-32 of it as 4 little-endian bytes, before the
//! data by default (numcodecs' `location="start"`) or after it. Decoding
//! checks the checksum and strips it; a mismatch is corrupt data, as
//! numcodecs raises. Both sums come from zlib (libz-sys), as numcodecs'
//! come from Python's `zlib`.

use super::registry::{Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult};
use libz_sys as z;
use serde_json::Value;

pub const CRC32: Decl = Decl::numcodecs("crc32", Stage::BytesToBytes, |cfg, ctx| build(cfg, ctx, Sum::Crc32));

pub const ADLER32: Decl = Decl::numcodecs("adler32", Stage::BytesToBytes, |cfg, ctx| build(cfg, ctx, Sum::Adler32));

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Sum {
    Crc32,
    Adler32,
}

impl Sum {
    fn name(self) -> &'static str {
        match self {
            Sum::Crc32 => "crc32",
            Sum::Adler32 => "adler32",
        }
    }

    /// zlib's `crc32(0, ...)` / `adler32(1, ...)`, fed in pieces zlib's
    /// `uInt` length can hold.
    pub fn of(self, data: &[u8]) -> u32 {
        let mut v: z::uLong = match self {
            Sum::Crc32 => 0,
            Sum::Adler32 => 1,
        };
        for piece in data.chunks(1 << 30) {
            // SAFETY: zlib reads exactly `piece.len()` bytes of `piece`.
            v = unsafe {
                match self {
                    Sum::Crc32 => z::crc32(v, piece.as_ptr(), piece.len() as z::uInt),
                    Sum::Adler32 => z::adler32(v, piece.as_ptr(), piece.len() as z::uInt),
                }
            };
        }
        v as u32
    }
}

#[derive(Debug)]
pub struct Checksum32 {
    pub sum: Sum,
    /// The checksum goes after the data (numcodecs' `location="end"`).
    pub at_end: bool,
}

fn build(cfg: &Value, _: &Ctx, sum: Sum) -> CodecResult<Box<dyn Codec>> {
    let at_end = match cfg.get("location") {
        None | Some(Value::Null) => false,
        Some(Value::String(s)) if s == "start" => false,
        Some(Value::String(s)) if s == "end" => true,
        Some(v) => return Err(CodecError::BadConfig(sum.name(), format!("location {v}"))),
    };
    Ok(Box::new(Checksum32 { sum, at_end }))
}

impl Codec for Checksum32 {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let n = data.len() + 4;
        let mut out = Vec::new();
        out.try_reserve_exact(n).map_err(|_| CodecError::NoMemory(n))?;
        let sum = self.sum.of(data).to_le_bytes();
        if !self.at_end {
            out.extend_from_slice(&sum);
        }
        out.extend_from_slice(data);
        if self.at_end {
            out.extend_from_slice(&sum);
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], _decoded_len: usize) -> CodecResult<Vec<u8>> {
        let corrupt = CodecError::Corrupt(self.sum.name());
        if data.len() < 4 {
            return Err(corrupt);
        }
        let (sum, body) = if self.at_end {
            let (b, s) = data.split_at(data.len() - 4);
            (s, b)
        } else {
            data.split_at(4)
        };
        if self.sum.of(body).to_le_bytes() != sum {
            return Err(corrupt);
        }
        Ok(body.to_vec())
    }

    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        decoded_len.checked_add(4)
    }

    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        data.len().checked_sub(4)
    }
}
