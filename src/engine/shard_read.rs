//! Reading a slab's positions in the shards of a Zarr v3 sharded variable:
//! inner chunk by inner chunk, each from the cache, or decoded from one
//! read of the whole shard (when most of it is wanted) or from byte-range
//! reads after the shard's index (cached).

use super::cache::{Base, ChunkCache};
use super::chunk_codec::{codec_failure, with_chunk_buf};
use super::chunk_plan::{ChunkPlan, Sharded};
use super::convert::swap_bytes;
use super::error::*;
use super::model::Dataset;
use super::process::any_chunks;
use super::slab::{Grid, Part, Run, Runs, Slab};
use super::{NcError, NcResult};
use crate::map::StoreKey;
use std::borrow::Cow;
use std::sync::Arc;

/// What [`Dataset::read_shard`] reads with.
pub(super) struct ShardRead<'a> {
    /// The variable's (inner) chunks.
    pub(super) plan: &'a ChunkPlan,
    pub(super) sh: &'a Sharded,
    pub(super) cache: &'a ChunkCache,
    pub(super) slab: &'a Slab,
    /// Decoded inner chunks are cached (the request is small enough).
    pub(super) keep: bool,
    /// Chunks may be worked on in parallel (the memory map is disjoint).
    pub(super) parallel: bool,
}

/// A ranged read of a shard that its index sent past the shard's end.
fn shard_read_failure(key: &StoreKey, e: crate::map::MapError) -> NcError {
    match e {
        crate::map::MapError::OutOfRange { .. } => {
            NcError::with(NC_ENCZARR, format!("shard {key} is shorter than its index says"))
        }
        other => NcError::from(other),
    }
}

/// The cache key of a shard's decoded index, and of its inner chunk `n`
/// (C order in the shard): below the shard's key, where no object can be.
pub(super) fn shard_index_key(shard: &StoreKey) -> NcResult<StoreKey> {
    Ok(shard.child(".index")?)
}

pub(super) fn inner_chunk_key(shard: &StoreKey, n: usize) -> NcResult<StoreKey> {
    Ok(shard.child(&format!(".{n}"))?)
}

impl Dataset {
    /// Reads the slab's positions in one shard (`parts`, of the shard
    /// grid): from the shard itself when the cache holds it (a writer's);
    /// else inner chunk by inner chunk, each from the cache, or decoded
    /// from the store: when most of the shard is wanted from one read of
    /// the whole shard, else from its index (cached) and byte-range reads
    /// of just the inner chunks needed. Returns whether a value was out of
    /// range.
    pub(super) fn read_shard(
        &self,
        rd: &ShardRead<'_>,
        parts: &[Part],
        copy_out: &(dyn Fn(&[u8], &Runs<'_>) -> bool + Sync),
        emit_fill: &(dyn Fn(Run) -> bool + Sync),
    ) -> NcResult<bool> {
        let (plan, sh, cache, slab) = (rd.plan, rd.sh, rd.cache, rd.slab);
        let st = &sh.storage;
        let key = st.chunk_key(parts)?;
        if let Some(shard) = cache.get(&key) {
            return Ok(copy_out(&shard, &Runs::new(slab, &st.cstrides, parts)));
        }
        let inner = Grid::within(slab, parts, &plan.chunks)?;
        let whole = inner.len().saturating_mul(2) >= sh.codec.count() && st.check_chunk_size(&key).is_ok();
        // the whole shard goes into this thread's reused buffer
        with_chunk_buf(|buf| self.read_shard_in(rd, parts, copy_out, emit_fill, &key, &inner, whole, buf))
    }

    /// [`Dataset::read_shard`] of shard `key` (not cached), whose `inner`
    /// chunks the slab touches: `whole`, read into `buf`.
    #[allow(clippy::too_many_arguments)]
    fn read_shard_in(
        &self,
        rd: &ShardRead<'_>,
        parts: &[Part],
        copy_out: &(dyn Fn(&[u8], &Runs<'_>) -> bool + Sync),
        emit_fill: &(dyn Fn(Run) -> bool + Sync),
        key: &StoreKey,
        inner: &Grid,
        whole: bool,
        buf: &mut Vec<u8>,
    ) -> NcResult<bool> {
        let (plan, sh, cache, slab) = (rd.plan, rd.sh, rd.cache, rd.slab);
        let fill_runs = |runs: &Runs<'_>| {
            let mut r = false;
            runs.for_each(|run| r |= emit_fill(run));
            r
        };
        let fill_all =
            || (0..inner.len()).fold(false, |a, j| a | fill_runs(&Runs::new(slab, &plan.cstrides, &inner.chunk(j))));
        let (bytes, index, cached) = if whole {
            if !self.store.get_into(key, buf)? {
                return Ok(fill_all());
            }
            let len = buf.len() as u64;
            let at = sh
                .codec
                .index_range(len)
                .ok_or_else(|| NcError::with(NC_ENCZARR, format!("shard {key} is too short for its index")))?;
            let index = sh
                .codec
                .decode_index(&buf[at.start as usize..at.end as usize], len)
                .map_err(|e| codec_failure(key, e))?;
            (Some(&buf[..]), index, false)
        } else {
            match self.shard_index(sh, cache, key)? {
                Some((index, cached)) => (None, index, cached),
                None => return Ok(fill_all()),
            }
        };
        let one = |j: usize| -> NcResult<bool> {
            let parts = inner.chunk(j);
            let runs = Runs::new(slab, &plan.cstrides, &parts);
            let n = sh.codec.linear(parts.iter().zip(&sh.ratio).map(|(p, r)| (p.chunk % r) as usize));
            let ikey = inner_chunk_key(key, n)?;
            if let Some(c) = cache.get(&ikey) {
                return Ok(copy_out(&c, &runs));
            }
            let Some((off, len)) = index.get(n) else { return Ok(fill_runs(&runs)) };
            let stored = match &bytes {
                // the index was checked against the shard's length
                Some(b) => Cow::Borrowed(&b[off as usize..(off + len) as usize]),
                None => match self.store.get_range(key, off, len).map_err(|e| shard_read_failure(key, e))? {
                    Some(b) => Cow::Owned(b),
                    None => return Ok(fill_runs(&runs)),
                },
            };
            // Most of an inner chunk stored as it is, on a local store: read
            // from the shard's bytes, not copied or kept (as for chunks).
            let small = plan.small_part(&runs);
            if !plan.swap && !small && !self.store.io_bound() {
                if let Some(as_stored) = sh.codec.inner_as_stored(&stored) {
                    return Ok(copy_out(as_stored.map_err(|e| codec_failure(key, e))?, &runs));
                }
            }
            let mut chunk = sh.codec.decode_inner(&stored).map_err(|e| codec_failure(key, e))?;
            if plan.swap {
                swap_bytes(&mut chunk, plan.esize);
            }
            let out = copy_out(&chunk, &runs);
            if rd.keep {
                cache.insert_clean(ikey, Arc::new(chunk), Base::Unknown);
            }
            Ok(out)
        };
        match any_chunks(&*self.store, inner.len(), rd.parallel, one) {
            // An index from the cache may be stale: another writer (another
            // handle or process) rewrote the shard, and its inner chunks
            // moved. Forget what is cached of the shard and read it again,
            // once; an error then is the shard's own.
            Err(e) if cached && matches!(e.code(), NC_EFILTER | NC_ENCZARR) => {
                cache.remove(&shard_index_key(key)?);
                for n in 0..sh.codec.count() {
                    cache.remove(&inner_chunk_key(key, n)?);
                }
                self.read_shard(rd, parts, copy_out, emit_fill)
            }
            other => other,
        }
    }

    /// A shard's index: cached, else read (its byte range alone, which
    /// also tells the shard's length), checked and cached; and whether it
    /// came from the cache. `None`: no shard.
    fn shard_index(
        &self,
        sh: &Sharded,
        cache: &ChunkCache,
        key: &StoreKey,
    ) -> NcResult<Option<(crate::codec::sharding::ShardIndex, bool)>> {
        use crate::codec::sharding::ShardIndex;
        let ikey = shard_index_key(key)?;
        if let Some(b) = cache.get(&ikey) {
            return Ok(Some((ShardIndex::from_bytes(&b), true)));
        }
        let n = sh.codec.index_len() as u64;
        let range = if sh.codec.index_at_start() {
            crate::map::ByteRange::At { start: 0, count: n }
        } else {
            crate::map::ByteRange::Last(n)
        };
        let Some((raw, len)) = self.store.get_part(key, range).map_err(|e| shard_read_failure(key, e))? else {
            return Ok(None);
        };
        let index = sh.codec.decode_index(&raw, len).map_err(|e| codec_failure(key, e))?;
        cache.insert_clean(ikey, Arc::new(index.to_bytes()), Base::Unknown);
        Ok(Some((index, false)))
    }
}
