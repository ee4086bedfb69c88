//! Zarr v3's `sharding_indexed` codec: a chunk (the shard) stored as a grid
//! of inner chunks, each encoded by its own codec chain, with an index of
//! `(offset, nbytes)` pairs (little-endian u64s, `u64::MAX` twice for an
//! inner chunk that is not stored) at the start or end of the shard,
//! encoded by the index codecs.
//!
//! As a codec it works on whole shards: decoding assembles every inner
//! chunk (absent ones are the fill value), encoding splits the shard and
//! leaves out inner chunks that hold only the fill value, as zarr-python
//! does. It also decodes partially, as zarrs does: the engine reads the
//! index alone ([`Sharding::index_range`], [`Sharding::decode_index`]),
//! then only the inner chunks it needs, by byte range
//! ([`Sharding::decode_inner`]). The index comes from the store, so every
//! entry is checked against the shard's size before anything is read or
//! allocated from it.
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

pub const NAME: &str = "sharding_indexed";
const EMPTY: u64 = u64::MAX;

#[derive(Debug)]
pub struct Sharding {
    shard: Vec<usize>,
    inner: Vec<usize>,
    /// Inner chunks per dimension.
    grid: Vec<usize>,
    esize: usize,
    codecs: Arc<Chain>,
    index_codecs: Arc<Chain>,
    index_at_start: bool,
    /// Bytes of the encoded index.
    index_len: usize,
    fill: Vec<u8>,
}

/// A shard's decoded index, every entry checked against the shard's size.
#[derive(Debug, Clone)]
pub struct ShardIndex {
    /// `(offset, nbytes)` per inner chunk, C order; `EMPTY` twice: absent.
    words: Vec<u64>,
}

impl ShardIndex {
    /// Where inner chunk `i` (C order of the shard's inner grid) is stored:
    /// `None` when it is not (the fill value).
    pub fn get(&self, i: usize) -> Option<(u64, u64)> {
        let (off, len) = (self.words[2 * i], self.words[2 * i + 1]);
        (off != EMPTY || len != EMPTY).then_some((off, len))
    }

    /// The index as bytes (as the engine's chunk cache holds it), and back.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.words.iter().flat_map(|w| w.to_ne_bytes()).collect()
    }

    pub fn from_bytes(b: &[u8]) -> ShardIndex {
        ShardIndex { words: b.chunks_exact(8).map(|w| u64::from_ne_bytes(w.try_into().expect("8 bytes"))).collect() }
    }
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

/// The parts of a sharding codec (the engine builds one from a variable's
/// definition, the JSON reader from the codec's JSON).
pub struct Parts {
    pub shard: Vec<usize>,
    pub inner: Vec<usize>,
    /// Bytes per element.
    pub esize: usize,
    /// The inner chunks' codecs (after the `bytes` codec).
    pub codecs: Arc<Chain>,
    /// The index's codecs (after the `bytes` codec).
    pub index_codecs: Arc<Chain>,
    pub index_at_start: bool,
    /// One element of the fill value, as stored.
    pub fill: Vec<u8>,
}

impl Sharding {
    /// `dtype`: the array's numpy dtype string, of `esize`-byte elements.
    pub fn from_json(cfg: &Value, dtype: &str, esize: usize) -> CodecResult<Sharding> {
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
        Sharding::new(Parts {
            shard: shape(cfg, "shard_shape")?,
            inner: shape(cfg, "chunk_shape")?,
            esize,
            codecs: Pipeline::from_zarr_v2(&list("codecs"), None, dtype).chain()?,
            index_codecs: Pipeline::from_zarr_v2(&list("index_codecs"), None, "<u8").chain()?,
            index_at_start,
            fill,
        })
    }

    pub fn new(p: Parts) -> CodecResult<Sharding> {
        let (shard, inner) = (p.shard, p.inner);
        if shard.is_empty()
            || shard.len() != inner.len()
            || shard.iter().zip(&inner).any(|(&s, &i)| i == 0 || s % i != 0)
        {
            return Err(bad(format!("chunk_shape {inner:?} does not divide the shard {shard:?}")));
        }
        if p.fill.len() != p.esize {
            return Err(bad("fill"));
        }
        let grid: Vec<usize> = shard.iter().zip(&inner).map(|(s, i)| s / i).collect();
        let limit = crate::limits::limits().max_chunk_bytes;
        let raw = grid
            .iter()
            .try_fold(16usize, |a, &n| a.checked_mul(n))
            .filter(|&n| n as u64 <= limit)
            .ok_or_else(|| bad(format!("too many inner chunks in a shard ({grid:?})")))?;
        let index_len = match p.index_codecs.encoded_len(raw) {
            Some(n) => n,
            None => p.index_codecs.encode(&out_buf(raw)?)?.len(),
        };
        let s = Sharding {
            shard,
            inner,
            grid,
            esize: p.esize,
            codecs: p.codecs,
            index_codecs: p.index_codecs,
            index_at_start: p.index_at_start,
            index_len,
            fill: p.fill,
        };
        s.inner_elems().and_then(|n| n.checked_mul(s.esize)).ok_or_else(|| bad("inner chunk too large"))?;
        Ok(s)
    }

    /// Inner chunks per dimension.
    pub fn grid(&self) -> &[usize] {
        &self.grid
    }

    /// Inner chunks per shard.
    pub fn count(&self) -> usize {
        self.grid.iter().product()
    }

    fn inner_elems(&self) -> Option<usize> {
        self.inner.iter().try_fold(1usize, |a, &n| a.checked_mul(n))
    }

    /// Bytes of a decoded inner chunk.
    pub fn inner_bytes(&self) -> usize {
        self.inner.iter().product::<usize>() * self.esize
    }

    /// Where the encoded index lies in a shard of `shard_len` bytes
    /// (`None`: the shard is too short to hold one).
    pub fn index_range(&self, shard_len: u64) -> Option<std::ops::Range<u64>> {
        let n = self.index_len as u64;
        match (self.index_at_start, shard_len.checked_sub(n)) {
            (_, None) => None,
            (true, _) => Some(0..n),
            (false, Some(at)) => Some(at..shard_len),
        }
    }

    /// Bytes of the encoded index.
    pub fn index_len(&self) -> usize {
        self.index_len
    }

    /// The index is at the start of the shard (else at its end).
    pub fn index_at_start(&self) -> bool {
        self.index_at_start
    }

    /// Decodes a shard's index (`raw`: its encoded bytes) and checks every
    /// entry against the shard's size, `shard_len`: an inner chunk must lie
    /// inside the shard, outside the index.
    pub fn decode_index(&self, raw: &[u8], shard_len: u64) -> CodecResult<ShardIndex> {
        let n = self.count();
        let index = self.index_codecs.decode(raw, n * 16)?;
        if raw.len() != self.index_len || index.len() != n * 16 {
            return Err(CodecError::Corrupt(NAME));
        }
        let at = self.index_range(shard_len).ok_or(CodecError::Corrupt(NAME))?;
        let words: Vec<u64> =
            index.chunks_exact(8).map(|w| u64::from_le_bytes(w.try_into().expect("8 bytes"))).collect();
        for pair in words.chunks_exact(2) {
            let (off, len) = (pair[0], pair[1]);
            if off == EMPTY && len == EMPTY {
                continue;
            }
            let end = off.checked_add(len).ok_or(CodecError::Corrupt(NAME))?;
            let outside_index = end <= at.start || off >= at.end;
            if end > shard_len || !outside_index {
                return Err(CodecError::Corrupt(NAME));
            }
        }
        Ok(ShardIndex { words })
    }

    /// An inner chunk's stored bytes as they are, when its codecs leave
    /// them so (no codec after the bytes codec): `None` when they must be
    /// decoded; an error when they are not one inner chunk long.
    pub fn inner_as_stored<'a>(&self, data: &'a [u8]) -> Option<CodecResult<&'a [u8]>> {
        if !self.codecs.is_empty() {
            return None;
        }
        Some(if data.len() == self.inner_bytes() { Ok(data) } else { Err(CodecError::Corrupt(NAME)) })
    }

    /// Decodes one inner chunk (its stored bytes) to its elements, C order,
    /// as stored (byte order).
    pub fn decode_inner(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let len = self.inner_bytes();
        let chunk = self.codecs.decode(data, len)?;
        if chunk.len() != len {
            return Err(CodecError::Corrupt(NAME));
        }
        Ok(chunk)
    }

    /// The C-order number in the shard of the inner chunk at grid
    /// coordinates `idx`.
    pub fn linear(&self, idx: impl IntoIterator<Item = usize>) -> usize {
        idx.into_iter().zip(&self.grid).fold(0, |a, (i, &g)| a * g + i)
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
        let mut c = vec![0; self.grid.len()];
        for d in (0..self.grid.len()).rev() {
            c[d] = i % self.grid[d];
            i /= self.grid[d];
        }
        c
    }

    fn shard_bytes(&self) -> usize {
        self.shard.iter().product::<usize>() * self.esize
    }
}

impl Sharding {
    /// Inner chunk `i` of a shard, encoded; `None` when it holds only the
    /// fill value (not stored). `chunk`: a buffer of an inner chunk's size.
    fn encode_one(&self, data: &[u8], i: usize, chunk: &mut [u8]) -> CodecResult<Option<Vec<u8>>> {
        let c = self.coords(i);
        self.runs(&c, |s, o, n| chunk[o..o + n].copy_from_slice(&data[s..s + n]));
        if chunk.chunks_exact(self.esize).all(|e| e == self.fill.as_slice()) {
            return Ok(None);
        }
        self.codecs.encode(chunk).map(Some)
    }
}

impl Codec for Sharding {
    /// On a worker of a thread pool (the engine's), the inner chunks are
    /// encoded in parallel on that pool; elsewhere in order.
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        use rayon::prelude::*;
        if data.len() != self.shard_bytes() {
            return Err(CodecError::Corrupt(NAME));
        }
        let inner_len = self.inner_bytes();
        let encoded: Vec<Option<Vec<u8>>> = if rayon::current_thread_index().is_some() && self.count() > 1 {
            (0..self.count())
                .into_par_iter()
                .map_init(
                    || out_buf(inner_len),
                    |buf, i| self.encode_one(data, i, buf.as_mut().map_err(|e| e.clone())?),
                )
                .collect::<CodecResult<_>>()?
        } else {
            let mut chunk = out_buf(inner_len)?;
            (0..self.count()).map(|i| self.encode_one(data, i, &mut chunk)).collect::<CodecResult<_>>()?
        };
        let body: usize = encoded.iter().flatten().map(Vec::len).sum();
        let mut out = Vec::new();
        out.try_reserve(body + self.index_len).map_err(|_| CodecError::NoMemory(body + self.index_len))?;
        let mut index = Vec::with_capacity(self.count() * 16);
        let mut at = if self.index_at_start { self.index_len } else { 0 };
        out.resize(if self.index_at_start { self.index_len } else { 0 }, 0);
        for enc in &encoded {
            let (off, len) = match enc {
                Some(e) => (at as u64, e.len() as u64),
                None => (EMPTY, EMPTY),
            };
            index.extend_from_slice(&off.to_le_bytes());
            index.extend_from_slice(&len.to_le_bytes());
            if let Some(e) = enc {
                out.extend_from_slice(e);
                at += e.len();
            }
        }
        let index = self.index_codecs.encode(&index)?;
        if index.len() != self.index_len {
            return Err(CodecError::Corrupt(NAME));
        }
        if self.index_at_start {
            out[..self.index_len].copy_from_slice(&index);
        } else {
            out.extend_from_slice(&index);
        }
        Ok(out)
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        if decoded_len != self.shard_bytes() {
            return Err(CodecError::Corrupt(NAME));
        }
        let at = self.index_range(data.len() as u64).ok_or(CodecError::Corrupt(NAME))?;
        let index = self.decode_index(&data[at.start as usize..at.end as usize], data.len() as u64)?;
        let mut out = out_buf(decoded_len)?;
        for e in out.chunks_exact_mut(self.esize) {
            e.copy_from_slice(&self.fill);
        }
        for i in 0..self.count() {
            let Some((off, len)) = index.get(i) else { continue };
            let chunk = self.decode_inner(&data[off as usize..(off + len) as usize])?;
            let c = self.coords(i);
            self.runs(&c, |s, o, n| out[s..s + n].copy_from_slice(&chunk[o..o + n]));
        }
        Ok(out)
    }

    fn as_sharding(&self) -> Option<&Sharding> {
        Some(self)
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
