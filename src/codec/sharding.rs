//! Zarr v3's `sharding_indexed` codec: a chunk (the shard) stored as a grid
//! of inner chunks, each encoded by its own codec chain, with an index of
//! `(offset, nbytes)` pairs (little-endian u64s, `u64::MAX` twice for an
//! inner chunk that is not stored) at the start or end of the shard,
//! encoded by the index codecs.
//!
//! The codec works on whole shards: decoding assembles every inner chunk
//! (absent ones are the fill value), encoding splits the shard and leaves
//! out inner chunks that hold only the fill value, as zarr-python does.
//!
//! Its JSON (the engine builds it from the v3 metadata):
//! `{"id": "sharding_indexed", "shard_shape": [..], "chunk_shape": [..],
//! "codecs": [numcodecs JSON..], "index_codecs": [..], "index_location":
//! "end"|"start", "fill": "<hex of one element as stored>"}`.

use super::registry::{Decl, Stage};
use super::{out_buf, Chain, Codec, CodecError, CodecResult, Pipeline};
use serde_json::Value;
use std::sync::Arc;

pub const DECL: Decl = Decl::numcodecs(NAME, Stage::ArrayToBytes, |cfg, ctx| {
    Ok(Box::new(Sharding::from_json(cfg, &ctx.dtype.str(), ctx.dtype.size)?))
});

const NAME: &str = "sharding_indexed";
const EMPTY: u64 = u64::MAX;

#[derive(Debug)]
pub struct Sharding {
    shard: Vec<usize>,
    inner: Vec<usize>,
    esize: usize,
    codecs: Arc<Chain>,
    index_codecs: Arc<Chain>,
    index_at_start: bool,
    fill: Vec<u8>,
}

fn bad(what: impl Into<String>) -> CodecError {
    CodecError::BadConfig(NAME, what.into())
}

fn shape(cfg: &Value, key: &str) -> CodecResult<Vec<usize>> {
    let list = cfg.get(key).and_then(Value::as_array).ok_or_else(|| bad(format!("{key} is missing")))?;
    list.iter()
        .map(|n| n.as_u64().and_then(|n| usize::try_from(n).ok()).filter(|&n| n > 0))
        .collect::<Option<Vec<usize>>>()
        .ok_or_else(|| bad(format!("{key} holds a bad size")))
}

fn hex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(s.get(i..i + 2)?, 16).ok()).collect()
}

impl Sharding {
    /// `dtype`: the array's numpy dtype string, of `esize`-byte elements.
    pub fn from_json(cfg: &Value, dtype: &str, esize: usize) -> CodecResult<Sharding> {
        let shard = shape(cfg, "shard_shape")?;
        let inner = shape(cfg, "chunk_shape")?;
        if shard.len() != inner.len() || shard.iter().zip(&inner).any(|(s, i)| s % i != 0) {
            return Err(bad(format!("chunk_shape {inner:?} does not divide the shard {shard:?}")));
        }
        let list = |k: &str| cfg.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
        let index_at_start = match cfg.get("index_location").and_then(Value::as_str) {
            Some("start") => true,
            Some("end") | None => false,
            Some(o) => return Err(bad(format!("index_location {o:?}"))),
        };
        let fill = match cfg.get("fill").and_then(Value::as_str) {
            Some(h) => hex(h).filter(|f| f.len() == esize).ok_or_else(|| bad("fill"))?,
            None => vec![0; esize],
        };
        let s = Sharding {
            codecs: Pipeline::from_zarr_v2(&list("codecs"), None, dtype).chain()?,
            index_codecs: Pipeline::from_zarr_v2(&list("index_codecs"), None, "<u8").chain()?,
            shard,
            inner,
            esize,
            index_at_start,
            fill,
        };
        s.inner_bytes().ok_or_else(|| bad("inner chunk too large"))?;
        s.count().checked_mul(16).ok_or_else(|| bad("too many inner chunks"))?;
        Ok(s)
    }

    /// Inner chunks per dimension.
    fn grid(&self) -> Vec<usize> {
        self.shard.iter().zip(&self.inner).map(|(s, i)| s / i).collect()
    }

    fn count(&self) -> usize {
        self.grid().iter().product()
    }

    fn inner_bytes(&self) -> Option<usize> {
        self.inner.iter().try_fold(self.esize, |a, &n| a.checked_mul(n))
    }

    /// Size of the encoded index.
    fn index_len(&self) -> CodecResult<usize> {
        let raw = self.count() * 16;
        let probe = self.index_codecs.encode(&vec![0u8; raw])?;
        Ok(probe.len())
    }

    /// Calls `f(shard_offset, inner_offset, len)` for each contiguous run of
    /// bytes of inner chunk `idx` (its grid coordinates) in the shard.
    fn runs(&self, idx: &[usize], mut f: impl FnMut(usize, usize, usize)) {
        let n = self.inner.len();
        let row = self.inner[n - 1] * self.esize;
        let rows: usize = self.inner[..n - 1].iter().product();
        let mut pos = vec![0usize; n.saturating_sub(1)];
        for r in 0..rows {
            // shard offset of this row: C order over shard coordinates
            let mut off = 0usize;
            for d in 0..n {
                let coord = idx[d] * self.inner[d] + if d < n - 1 { pos[d] } else { 0 };
                off = off * self.shard[d] + coord;
            }
            f(off * self.esize, r * row, row);
            for d in (0..n - 1).rev() {
                pos[d] += 1;
                if pos[d] < self.inner[d] {
                    break;
                }
                pos[d] = 0;
            }
        }
    }

    fn coords(&self, mut i: usize) -> Vec<usize> {
        let grid = self.grid();
        let mut c = vec![0; grid.len()];
        for d in (0..grid.len()).rev() {
            c[d] = i % grid[d];
            i /= grid[d];
        }
        c
    }
}

impl Codec for Sharding {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let inner_len = self.inner_bytes().unwrap_or(0);
        let mut body = Vec::new();
        let mut index = Vec::with_capacity(self.count() * 16);
        let index_len = if self.index_at_start { self.index_len()? } else { 0 };
        let mut chunk = out_buf(inner_len)?;
        for i in 0..self.count() {
            let c = self.coords(i);
            self.runs(&c, |s, o, n| chunk[o..o + n].copy_from_slice(&data[s..s + n]));
            if chunk.chunks_exact(self.esize).all(|e| e == self.fill.as_slice()) {
                index.extend_from_slice(&EMPTY.to_le_bytes());
                index.extend_from_slice(&EMPTY.to_le_bytes());
                continue;
            }
            let enc = self.codecs.encode(&chunk)?;
            index.extend_from_slice(&((index_len + body.len()) as u64).to_le_bytes());
            index.extend_from_slice(&(enc.len() as u64).to_le_bytes());
            body.try_reserve(enc.len()).map_err(|_| CodecError::NoMemory(body.len() + enc.len()))?;
            body.extend_from_slice(&enc);
        }
        let index = self.index_codecs.encode(&index)?;
        Ok(if self.index_at_start { [index, body].concat() } else { [body, index].concat() })
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let inner_len = self.inner_bytes().unwrap_or(0);
        if decoded_len != self.shard.iter().product::<usize>() * self.esize {
            return Err(CodecError::Corrupt(NAME));
        }
        let n = self.count();
        let index_len = self.index_len()?;
        if data.len() < index_len {
            return Err(CodecError::Corrupt(NAME));
        }
        let raw = if self.index_at_start { &data[..index_len] } else { &data[data.len() - index_len..] };
        let index = self.index_codecs.decode(raw, n * 16)?;
        if index.len() != n * 16 {
            return Err(CodecError::Corrupt(NAME));
        }
        let mut out = out_buf(decoded_len)?;
        for e in out.chunks_exact_mut(self.esize) {
            e.copy_from_slice(&self.fill);
        }
        for i in 0..n {
            let word = |k: usize| u64::from_le_bytes(index[k..k + 8].try_into().expect("8 bytes"));
            let (off, len) = (word(i * 16), word(i * 16 + 8));
            if off == EMPTY && len == EMPTY {
                continue;
            }
            let end = off.checked_add(len).filter(|&e| e <= data.len() as u64).ok_or(CodecError::Corrupt(NAME))?;
            let chunk = self.codecs.decode(&data[off as usize..end as usize], inner_len)?;
            if chunk.len() != inner_len {
                return Err(CodecError::Corrupt(NAME));
            }
            let c = self.coords(i);
            self.runs(&c, |s, o, n| out[s..s + n].copy_from_slice(&chunk[o..o + n]));
        }
        Ok(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn codec(start: bool) -> Sharding {
        let cfg = json!({"id": NAME, "shard_shape": [4, 6], "chunk_shape": [2, 3],
            "codecs": [{"id": "zstd", "level": 1}], "index_codecs": [{"id": "crc32c"}],
            "index_location": if start { "start" } else { "end" }, "fill": "ffffffff"});
        Sharding::from_json(&cfg, "<u4", 4).unwrap()
    }

    #[test]
    fn roundtrip_and_fill() {
        for start in [false, true] {
            let s = codec(start);
            let mut data: Vec<u8> = (0..24u32).flat_map(|i| i.to_le_bytes()).collect();
            // inner chunk (1, 1) all fill: not stored
            for r in 2..4 {
                for c in 3..6 {
                    data[(r * 6 + c) * 4..(r * 6 + c) * 4 + 4].copy_from_slice(&[0xff; 4]);
                }
            }
            let enc = s.encode(&data).unwrap();
            assert_eq!(s.decode(&enc, 96).unwrap(), data);
            let mut bad = enc.clone();
            let k = if start { 3 } else { enc.len() - 3 };
            bad[k] ^= 1;
            assert!(s.decode(&bad, 96).is_err(), "a corrupt index is an error");
            assert!(s.decode(&enc[..10], 96).is_err());
        }
    }
}
