//! A variable's codec pipeline, resolved once into typed codecs.
//!
//! A [`Pipeline`] keeps each codec's JSON exactly as read or defined (it is
//! what `.zarray` gets back, byte for byte) beside the typed codec built
//! from it, and the HDF5 filter view netCDF-C's API shows. The element
//! type flows through the array -> array codecs: each is built for the
//! dtype the codecs before it produce. A codec that cannot be built (not
//! in this build, or bad parameters) leaves the pipeline inspectable and
//! its chunks unreadable ([`Pipeline::chain`] is that error).

use super::registry::{self, Ctx, Decl};
use super::{Codec, CodecError, CodecResult, DataType, Kind};
use serde_json::Value;
use std::cell::RefCell;
use std::sync::Arc;

thread_local! {
    /// This thread's buffer for the stages between of a chain's decoding.
    static SPARE: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

#[derive(Clone, Debug)]
struct Entry {
    json: Value,
    /// What the codec is built for (the dtype flowing into it).
    ctx: Ctx,
    codec: Result<Arc<dyn Codec>, CodecError>,
    /// HDF5 filter id and parameters, for codecs that have an id.
    hdf5: Option<(u32, Vec<u32>)>,
}

/// The codecs of one array, in `filters`-then-`compressor` order.
#[derive(Clone, Debug)]
pub struct Pipeline {
    /// The array's dtype (what the first codec encodes).
    dtype: DataType,
    entries: Vec<Entry>,
    /// The last codec is `.zarray`'s `compressor` (else all are `filters`):
    /// as read, or netCDF-C's rule for codecs defined here.
    compressor: bool,
    chain: Result<Arc<Chain>, CodecError>,
}

impl Pipeline {
    /// No codecs, for an array of `dtype`.
    pub fn new(dtype: DataType) -> Pipeline {
        Pipeline { dtype, entries: vec![], compressor: true, chain: Ok(Arc::new(Chain { codecs: vec![] })) }
    }

    /// A Zarr v2 array's codecs: its `filters` (less an object codec, which
    /// the engine keeps apart) then its `compressor`, for its `dtype`
    /// (`.zarray`'s string; `|O`: the bytes an object codec made).
    pub fn from_zarr_v2(filters: &[Value], compressor: Option<&Value>, dtype: &str) -> Pipeline {
        let dtype = match DataType::parse(dtype) {
            Some(t) if t.kind != Kind::Object => t,
            Some(_) => DataType::bytes(),
            None => DataType::new(Kind::Other, 1, false),
        };
        let mut p = Pipeline::new(dtype);
        p.entries = filters.iter().chain(compressor).map(|j| p.entry(j.clone())).collect();
        p.compressor = compressor.is_some();
        p.resolve();
        p
    }

    /// `.zarray`'s `compressor` and `filters` (`null` when there are
    /// none): as read, and for codecs defined here as netCDF-C writes them,
    /// the last codec the compressor and the others the filters.
    /// Each codec's numcodecs JSON, in chain order (filters, then the
    /// compressor).
    pub fn codec_json(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|e| &e.json)
    }

    pub fn to_zarr_v2(&self) -> (Value, Value) {
        let json = |e: &[Entry]| e.iter().map(|e| e.json.clone()).collect::<Vec<_>>();
        let list = |e: &[Entry]| if e.is_empty() { Value::Null } else { Value::Array(json(e)) };
        match self.entries.split_last() {
            Some((last, rest)) if self.compressor => (last.json.clone(), list(rest)),
            _ => (Value::Null, list(&self.entries)),
        }
    }

    fn entry(&self, json: Value) -> Entry {
        Entry { json, ctx: Ctx { dtype: self.dtype }, codec: Err(CodecError::Unknown(String::new())), hdf5: None }
    }

    /// After a definition: netCDF-C's layout, and every codec rebuilt.
    fn redefined(&mut self) {
        self.compressor = true;
        self.resolve();
    }

    /// Builds every codec for the dtype flowing into it.
    fn resolve(&mut self) {
        let mut dtype = self.dtype;
        let mut first_err = None;
        for e in &mut self.entries {
            let ctx = Ctx { dtype };
            e.ctx = ctx;
            let decl: Option<&Decl> = registry::by_id(registry::json_id(&e.json));
            e.codec = registry::build(&e.json, &ctx).map(Arc::from);
            e.hdf5 = decl.and_then(|d| d.hdf5_id.map(|id| (id, (d.to_hdf5)(&e.json, &ctx))));
            match &e.codec {
                Ok(c) => dtype = c.encoded_dtype(dtype),
                Err(err) => {
                    first_err.get_or_insert_with(|| err.clone());
                }
            }
        }
        self.chain = match first_err {
            Some(e) => Err(e),
            None => Ok(Arc::new(Chain {
                codecs: self.entries.iter().filter_map(|e| e.codec.as_ref().ok().cloned()).collect(),
            })),
        };
    }

    /// The runnable codecs, or why the pipeline cannot run.
    pub fn chain(&self) -> Result<Arc<Chain>, CodecError> {
        self.chain.clone()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// The codecs' JSON, in order.
    pub fn configs(&self) -> impl Iterator<Item = &Value> {
        self.entries.iter().map(|e| &e.json)
    }

    /// The codecs' JSON, in order, each with what it is built for (a Zarr
    /// v3 writer's [`registry::to_v3`] needs it).
    pub fn configs_ctx(&self) -> impl Iterator<Item = (&Value, &Ctx)> {
        self.entries.iter().map(|e| (&e.json, &e.ctx))
    }

    /// Whether a codec with numcodecs id `id` is in the pipeline.
    pub fn contains(&self, id: &str) -> bool {
        self.entries.iter().any(|e| registry::json_id(&e.json) == id)
    }

    /// The HDF5 filters (id, parameters) of the codecs that have an id.
    pub fn hdf5_filters(&self) -> Vec<(u32, Vec<u32>)> {
        self.entries.iter().filter_map(|e| e.hdf5.clone()).collect()
    }

    /// The parameters of HDF5 filter `id`, when a codec has it.
    pub fn hdf5_filter(&self, id: u32) -> Option<Vec<u32>> {
        self.entries.iter().find_map(|e| e.hdf5.as_ref().filter(|(i, _)| *i == id).map(|(_, p)| p.clone()))
    }

    /// Inserts a codec at `at` (clamped to the end).
    pub fn insert(&mut self, at: usize, json: Value) {
        let e = self.entry(json);
        self.entries.insert(at.min(self.entries.len()), e);
        self.redefined();
    }

    /// Appends a codec.
    pub fn push(&mut self, json: Value) {
        self.insert(usize::MAX, json);
    }

    /// Removes the codecs with numcodecs id `id`.
    pub fn remove(&mut self, id: &str) {
        self.entries.retain(|e| registry::json_id(&e.json) != id);
        self.redefined();
    }

    /// Replaces the codec with the same id in place, or appends it (as
    /// netCDF-C's `NCZ_addfilter` does).
    pub fn set(&mut self, json: Value) {
        let id = registry::json_id(&json).to_string();
        let new = self.entry(json);
        match self.entries.iter_mut().find(|e| registry::json_id(&e.json) == id) {
            Some(e) => *e = new,
            None => self.entries.push(new),
        }
        self.redefined();
    }
}

/// Resolved codecs that all run, in `filters`-then-`compressor` order.
#[derive(Debug)]
pub struct Chain {
    codecs: Vec<Arc<dyn Codec>>,
}

impl Chain {
    /// A chain of codecs already built (each for the dtype the one before
    /// it makes).
    pub fn of(codecs: Vec<Arc<dyn Codec>>) -> Arc<Chain> {
        Arc::new(Chain { codecs })
    }

    pub fn is_empty(&self) -> bool {
        self.codecs.is_empty()
    }

    /// The size encoding makes of `decoded_len` bytes, when every codec
    /// knows it without running (checksums, dtype changes).
    pub fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        self.codecs.iter().try_fold(decoded_len, |n, c| c.encoded_len(n))
    }

    /// The sharding codec, when it is the chain's only codec (its inner
    /// chunks can then be read alone).
    pub fn sharding(&self) -> Option<&super::sharding::Sharding> {
        match self.codecs.as_slice() {
            [c] => c.as_sharding(),
            _ => None,
        }
    }

    /// Encodes a chunk; the first codec reads the caller's bytes (no copy).
    pub fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut cur = std::borrow::Cow::Borrowed(data);
        for c in &self.codecs {
            cur = std::borrow::Cow::Owned(c.encode(&cur)?);
        }
        Ok(cur.into_owned())
    }

    /// Decodes a chunk whose decoded size is not known (variable-length
    /// items), of at most `limit` bytes: each codec is given the size its
    /// encoded data announces, else increasing guesses up to `limit` (for
    /// an intermediate stage, [`stage_limit`] of it: a compressor under
    /// another makes incompressible data larger, found by fuzzing).
    pub fn decode_unsized(&self, data: &[u8], limit: usize) -> CodecResult<Vec<u8>> {
        let mut cur = std::borrow::Cow::Borrowed(data);
        for (i, c) in self.codecs.iter().enumerate().rev() {
            cur = std::borrow::Cow::Owned(decode_unknown(
                c.as_ref(),
                &cur,
                if i == 0 { limit } else { stage_limit(limit) },
            )?);
        }
        Ok(cur.into_owned())
    }

    /// Decodes a chunk whose decoded size is `decoded_len`. Each codec is
    /// told the size its output must have: the chunk's size, changed by
    /// the codecs before it that know what they make of it (a checksum, a
    /// dtype change); past a codec that does not know, the chunk's size is
    /// the best guess.
    pub fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        super::decoded(|out| self.decode_into(data, decoded_len, out))
    }

    /// [`Chain::decode`] into `out`, reusing its allocation, and for a
    /// chain of several codecs this thread's spare buffer for the stages
    /// between (the stages alternate between the two, the last one ending
    /// in `out`): a reader decoding chunk after chunk allocates nothing.
    pub fn decode_into(&self, data: &[u8], decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        let mut sizes = Vec::with_capacity(self.codecs.len());
        let mut size = Some(decoded_len);
        for c in &self.codecs {
            sizes.push(size);
            size = size.and_then(|n| c.encoded_len(n));
        }
        let one = |c: &dyn Codec, input: &[u8], n: Option<usize>, to: &mut Vec<u8>| match n {
            Some(n) => c.decode_into(input, n, to),
            // past a codec whose output size varies (a compressor before a
            // compressor, a shard index): as if unsized, within the chunk
            // size limit
            None => {
                *to = decode_unknown(c, input, crate::limits::limits().max_chunk_bytes as usize)?;
                Ok(())
            }
        };
        let k = self.codecs.len();
        if k == 0 {
            super::sized_buf(out, data.len())?;
            out.copy_from_slice(data);
            return Ok(());
        }
        // (taken, not borrowed: a codec may decode a nested chain, a shard's
        // inner chunks, with a spare of its own)
        let mut spare = SPARE.take();
        let result = (|| {
            for (step, (c, n)) in self.codecs.iter().zip(&sizes).rev().enumerate() {
                // the stage that writes `out` is the one an even number of
                // steps before the last
                let to_out = (k - 1 - step).is_multiple_of(2);
                match (step, to_out) {
                    (0, true) => one(c.as_ref(), data, *n, out)?,
                    (0, false) => one(c.as_ref(), data, *n, &mut spare)?,
                    (_, true) => one(c.as_ref(), &spare, *n, out)?,
                    (_, false) => one(c.as_ref(), out, *n, &mut spare)?,
                }
            }
            Ok(())
        })();
        SPARE.set(spare);
        result
    }
}

/// The most an intermediate stage of a chain (the encoded form of the
/// codecs before it) can hold for a chunk of `n` bytes: compressors expand
/// incompressible data by far less than 1/16 plus 64 KiB.
fn stage_limit(n: usize) -> usize {
    n.saturating_add(n / 16).saturating_add(1 << 16)
}

/// Decodes with one codec data whose decoded size is not known, of at most
/// `limit` bytes: the size the encoded data announces, else increasing
/// guesses up to `limit`.
fn decode_unknown(c: &dyn Codec, data: &[u8], limit: usize) -> CodecResult<Vec<u8>> {
    if let Some(n) = c.announced_len(data) {
        if n > limit {
            return Err(CodecError::NoMemory(n));
        }
        return c.decode(data, n);
    }
    // (`clamp(4096, limit)` panicked for a limit under 4096: found by
    // fuzzing)
    let mut guess = data.len().saturating_mul(4).max(4096).min(limit.max(1));
    loop {
        match c.decode(data, guess) {
            Ok(out) => return Ok(out),
            Err(CodecError::Corrupt(_)) if guess < limit => guess = guess.saturating_mul(4).min(limit),
            Err(e) => return Err(e),
        }
    }
}
