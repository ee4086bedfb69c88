//! A variable's chunk plan: what chunk I/O needs to know about it, resolved
//! from its metadata once and kept (in its [`PlanSlot`]) while they do not
//! change: chunk shape and strides, element size and byte order, fill
//! value, key prefix, codec chain, and for a sharded variable its shards.
//! The codecs are applied by `engine::chunk_codec`.

use super::cache::ChunkCache;
use super::consts::*;
use super::convert::elem_size;
use super::data::PARTIAL_READ_FRACTION;
use super::error::*;
use super::model::{native_endian, Dataset};
use super::shard_read::{inner_chunk_key, shard_index_key};
use super::slab::{Part, Runs};
use super::strings::{encode_string, vlen_cell, StrKind, VLEN_CELL, VLEN_FILL};
use super::types::Values;
use super::{NcError, NcResult};
use crate::map::StoreKey;
use std::sync::{Arc, Mutex};

/// `NC_ENOMEM` for a buffer of `n` bytes that is over the limit or cannot be had.
pub(super) fn no_memory(what: &str, n: u64) -> NcError {
    let limit = crate::limits::limits().max_chunk_bytes;
    NcError::with(NC_ENOMEM, format!("{what}: {n} bytes (limit {limit}, NCZARR_RS_MAX_CHUNK_BYTES)"))
}

/// What chunk I/O needs to know about a variable: chunk shape and strides,
/// element size and byte order, fill value, key prefix, codecs. (Not
/// `model::NczarrLayout`, which is the metadata format of a dataset.)
///
/// A variable with shards (Zarr v3 `sharding_indexed`) has two: its
/// chunks, the inner chunks, which reads fetch and decode alone and the
/// cache holds; and its shards ([`Sharded::storage`]), the objects of the
/// store, which writes encode whole (read-modify-write of a shard).
#[derive(Clone)]
pub(super) struct ChunkPlan {
    pub(super) ftype: NcType,
    pub(super) esize: usize,
    pub(super) shape: Vec<u64>,
    pub(super) chunks: Vec<u64>,
    pub(super) cstrides: Vec<u64>,
    pub(super) celems: usize,
    pub(super) swap: bool,
    pub(super) chunk_keys: super::format::ChunkKeys,
    pub(super) key: StoreKey,
    pub(super) fill: Vec<u8>,
    /// The fill string of a variable-length string variable.
    pub(super) fill_str: String,
    pub(super) strkind: StrKind,
    /// The codec chain, if the variable has codecs this build can run.
    pub(super) chain: Option<Arc<crate::codec::Chain>>,
    /// Why the codecs cannot run (unknown or bad codec): data access fails.
    pub(super) codec_err: Option<NcError>,
    /// The variable's chunks are inner chunks of shards.
    pub(super) shard: Option<Box<Sharded>>,
}

/// A variable's [`ChunkPlan`] as the data path last built it, with the
/// dataset's metadata count ([`Dataset::touch`]) it was built at. Used
/// again while that count and the variable's shape are unchanged (a write
/// may grow an unlimited dimension, a merge may take another writer's
/// length), so a loop of one-element calls does not rebuild it (its fill
/// value, codec chain, key and strides) every time. A clone is empty.
#[derive(Default)]
pub struct PlanSlot(Mutex<Option<(u64, Arc<ChunkPlan>)>>);

impl Clone for PlanSlot {
    fn clone(&self) -> Self {
        PlanSlot::default()
    }
}

impl std::fmt::Debug for PlanSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("PlanSlot")
    }
}

/// A variable's shards, for [`ChunkPlan`].
#[derive(Clone)]
pub(super) struct Sharded {
    /// The sharding codec (inner chunks' codecs, index, fill).
    pub(super) codec: Arc<crate::codec::sharding::Sharding>,
    /// Inner chunks per shard, per dimension.
    pub(super) ratio: Vec<u64>,
    /// The plan of whole shards: chunks of the shard shape, whose codec
    /// is the sharding codec.
    pub(super) storage: ChunkPlan,
}

/// Element strides within a chunk of shape `chunks` (C order, or the
/// dimensions in `transpose`'s order, outermost first) and its number of
/// elements (`NC_EBADCHUNK` when its bytes overflow).
fn chunk_strides(chunks: &[u64], transpose: Option<&[usize]>, esize: usize) -> NcResult<(Vec<u64>, usize)> {
    let mut cstrides = vec![0u64; chunks.len()];
    let mut acc = Some(1u64);
    let order: Vec<usize> = match transpose {
        Some(t) if t.len() > 1 || chunks.len() > 1 => {
            if !is_permutation(t, chunks.len()) {
                return Err(NcError::with(
                    NC_ENCZARR,
                    format!("transpose order {t:?} for {} dimensions", chunks.len()),
                ));
            }
            t.iter().rev().copied().collect()
        }
        _ => (0..chunks.len()).rev().collect(),
    };
    for d in order {
        cstrides[d] = acc.unwrap_or(0);
        acc = acc.and_then(|a| a.checked_mul(chunks[d]));
    }
    let celems = acc
        .and_then(|a| usize::try_from(a).ok())
        .filter(|n| n.checked_mul(esize).is_some())
        .ok_or_else(|| NcError::with(NC_EBADCHUNK, "chunk too large"))?;
    Ok((cstrides, celems))
}

/// `order` holds each of `0..n` once.
pub(crate) fn is_permutation(order: &[usize], n: usize) -> bool {
    let mut seen = vec![false; n];
    order.len() == n && order.iter().all(|&d| d < n && !std::mem::replace(&mut seen[d], true))
}

impl ChunkPlan {
    pub(super) fn new(ds: &Dataset, gid: usize, varid: usize) -> NcResult<ChunkPlan> {
        let v = &ds.groups[gid].vars[varid];
        let (shape, chunks) = if v.is_scalar() { (vec![1], vec![1]) } else { (ds.var_shape(v), v.chunks.clone()) };
        let strkind = match v.nctype {
            NC_STRING if v.object_codec.is_some() => StrKind::Vlen,
            NC_STRING if v.ucs4 => StrKind::Ucs4(ds.maxstrlen(gid, varid), v.endian == NC_ENDIAN_BIG),
            NC_STRING => StrKind::Fixed(ds.maxstrlen(gid, varid)),
            _ => StrKind::None,
        };
        let esize = match strkind {
            StrKind::None => elem_size(v.nctype),
            StrKind::Fixed(n) => n,
            StrKind::Ucs4(n, _) => n.saturating_mul(4),
            StrKind::Vlen => VLEN_CELL,
        };
        if esize as u64 > crate::limits::limits().max_chunk_bytes {
            return Err(no_memory(&format!("one element of {}", v.name), esize as u64));
        }
        let (cstrides, celems) = chunk_strides(&chunks, v.transpose.as_deref(), esize)?;
        // the pipeline was resolved when the variable was read or defined
        let (chain, codec_err) = match v.codecs.chain() {
            Ok(c) if c.is_empty() => (None, None),
            Ok(c) => (Some(c), None),
            Err(e) => (None, Some(super::filters::pipeline_error(&e))),
        };
        let mut fill_str = String::new();
        let fill = if v.no_fill {
            vec![0u8; esize]
        } else {
            match ds.fill_value(v)? {
                Values::String(s) if strkind == StrKind::Vlen => {
                    fill_str = s.into_iter().next().unwrap_or_default();
                    vlen_cell(VLEN_FILL, 0).to_vec()
                }
                Values::Char(c) => vec![c.first().copied().unwrap_or(0)],
                // a missing chunk of strings reads as the fill string, as in netCDF-C
                Values::String(s) if strkind != StrKind::None => {
                    let mut f = vec![0u8; esize];
                    encode_string(strkind, s.first().map_or("", String::as_str), &mut f);
                    f
                }
                other => {
                    let (f, _) = other.convert(v.nctype)?;
                    f.to_ne_bytes()
                }
            }
        };
        let plan = ChunkPlan {
            ftype: v.nctype,
            esize,
            shape,
            chunks,
            cstrides,
            celems,
            swap: v.endian != native_endian() && strkind == StrKind::None && esize > 1,
            chunk_keys: v.chunk_keys,
            key: ds.var_key(gid, varid),
            fill,
            fill_str,
            strkind,
            chain,
            codec_err,
            shard: None,
        };
        match &v.shard {
            Some(sh) if !v.is_scalar() => plan.with_shards(sh),
            _ => Ok(plan),
        }
    }

    /// Adds the shards of `sh` to the plan of a variable's (inner) chunks.
    pub(super) fn with_shards(mut self, sh: &super::model::Shard) -> NcResult<ChunkPlan> {
        use crate::codec::sharding::{Parts, Sharding};
        if self.codec_err.is_some() || self.strkind == StrKind::Vlen {
            return Ok(self);
        }
        let sizes = |v: &[u64]| v.iter().map(|&n| usize::try_from(n).ok()).collect::<Option<Vec<usize>>>();
        let (Some(shard), Some(inner)) = (sizes(&sh.shape), sizes(&self.chunks)) else {
            return Err(NcError::with(NC_EBADCHUNK, "shard too large"));
        };
        // the fill value as stored, for the inner chunks not stored
        let mut fill = self.fill.clone();
        if self.swap {
            fill.reverse();
        }
        let built = crate::codec::Pipeline::from_zarr_v2(&sh.index_codecs, None, "<u8").chain().and_then(|index| {
            Sharding::new(Parts {
                shard,
                inner,
                esize: self.esize,
                codecs: self.chain.clone().unwrap_or_else(|| crate::codec::Chain::of(vec![])),
                index_codecs: index,
                index_at_start: sh.index_at_start,
                fill,
            })
        });
        let codec = match built {
            Ok(c) => Arc::new(c),
            Err(e) => {
                self.codec_err = Some(super::filters::pipeline_error(&e));
                return Ok(self);
            }
        };
        let mut storage = self.clone();
        (storage.cstrides, storage.celems) = chunk_strides(&sh.shape, None, self.esize)?;
        storage.chunks = sh.shape.clone();
        storage.chain = Some(crate::codec::Chain::of(vec![codec.clone()]));
        let ratio = sh.shape.iter().zip(&self.chunks).map(|(s, c)| s / c).collect();
        self.shard = Some(Box::new(Sharded { codec, ratio, storage }));
        Ok(self)
    }

    /// The plan of the objects of the store: the shards of a variable
    /// that has them, else its chunks.
    pub(super) fn storage(&self) -> &ChunkPlan {
        self.shard.as_ref().map_or(self, |s| &s.storage)
    }

    /// Drops from the cache what it holds of shard `key`'s index and inner
    /// chunks (the shard is about to change).
    pub(super) fn forget_inner(&self, cache: &ChunkCache, key: &StoreKey) -> NcResult<()> {
        let Some(sh) = &self.shard else { return Ok(()) };
        if cache.bytes() == 0 {
            return Ok(());
        }
        cache.remove(&shard_index_key(key)?);
        for n in 0..sh.codec.count() {
            cache.remove(&inner_chunk_key(key, n)?);
        }
        Ok(())
    }

    /// The key of the chunk of a [`Grid`] whose parts are `parts`.
    pub(super) fn chunk_key(&self, parts: &[Part]) -> NcResult<StoreKey> {
        let idx: Vec<u64> = parts.iter().map(|p| p.chunk).collect();
        self.chunk_keys.key(&self.key, &idx)
    }

    /// Whether `runs` are a small part of a chunk (at most one in
    /// [`PARTIAL_READ_FRACTION`] of its elements).
    pub(super) fn small_part(&self, runs: &Runs<'_>) -> bool {
        runs.elements() * PARTIAL_READ_FRACTION <= self.celems as u64
    }

    /// Bytes of a decoded chunk.
    pub(super) fn chunk_bytes(&self) -> usize {
        self.celems * self.esize
    }

    /// A decoded chunk may be held in memory (`NC_ENOMEM` past the limit).
    pub(super) fn check_chunk_size(&self, key: &StoreKey) -> NcResult<()> {
        if self.chunk_bytes() as u64 > crate::limits::limits().max_chunk_bytes {
            return Err(no_memory(&format!("chunk {key}"), self.chunk_bytes() as u64));
        }
        Ok(())
    }

    pub(super) fn fill_chunk(&self, key: &StoreKey) -> NcResult<Vec<u8>> {
        let mut buf = Vec::new();
        self.fill_into(key, &mut buf)?;
        Ok(buf)
    }

    /// `Err` if the variable's codecs cannot run in this build.
    pub(super) fn check_codecs(&self) -> NcResult<()> {
        match &self.codec_err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Chunks are stored as raw bytes (no codecs): byte ranges can be read
    /// and written directly.
    pub(super) fn raw(&self) -> bool {
        self.chain.is_none() && self.codec_err.is_none() && self.strkind != StrKind::Vlen
    }
}

impl Dataset {
    /// The chunk plan of variable `varid` of group `gid` (which exists):
    /// the cached one if still current, else built and cached.
    pub(super) fn chunk_plan(&self, gid: usize, varid: usize) -> NcResult<Arc<ChunkPlan>> {
        let v = &self.groups[gid].vars[varid];
        let lock = || v.plan.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((generation, plan)) = &*lock() {
            let same_shape = v.is_scalar()
                || (plan.shape.len() == v.dimids.len()
                    && v.dimids.iter().zip(&plan.shape).all(|(&d, &n)| self.dims[d].len == n));
            if *generation == self.meta_gen && same_shape {
                return Ok(plan.clone());
            }
        }
        let plan = Arc::new(ChunkPlan::new(self, gid, varid)?);
        *lock() = Some((self.meta_gen, plan.clone()));
        Ok(plan)
    }
}
