//! Reading and writing variable data: netCDF hyperslabs (start, count,
//! stride, memory map) over Zarr chunks.
//!
//! A request is resolved into a [`Slab`]. Its chunks are enumerated by a
//! [`Grid`] and its elements within a chunk by [`Runs`] (`engine::slab`),
//! both computed, never listed, so a request costs O(rank) memory per chunk
//! in flight beyond the caller's buffer. For every chunk it touches, in
//! parallel (rayon), the chunk is taken from the cache or the store (a
//! missing chunk is made of the fill value), decoded to native byte order,
//! and the touched elements are copied to or from the caller's memory run
//! by run, converting between the memory type and the variable's type
//! (`engine::convert`). A write that covers a whole chunk does not read it
//! first, and goes straight to the store; a partial write is a
//! read-modify-write kept in the chunk cache until it is evicted or flushed.
//! A variable with Zarr v3 shards is read by inner chunks (fetched alone by
//! byte range, after the shard's index) and written by whole shards.
//!
//! The rest of the data path is in its own modules: the slab's resolution
//! and checks (`slab_check`), the variable's chunk plan (`chunk_plan`),
//! the codecs applied to chunks and the write-back of dirty ones
//! (`chunk_codec`), shard reads (`shard_read`), string encodings
//! (`strings`) and the thread pools chunk work runs on (`process`).

use super::cache::{Base, ChunkCache, Dirty, DirtyMask, Unsaved};
use super::chunk_codec::{copies_fast_to, with_chunk_buf, with_page_buf};
use super::chunk_plan::ChunkPlan;
pub use super::chunk_plan::PlanSlot;
use super::consts::*;
use super::convert::{convert, elem_size, swap_bytes};
use super::error::*;
use super::model::Dataset;
use super::parallel::Piece;
use super::process::{any_chunks, for_chunks};
pub(crate) use super::process::{CPU_POOL, IO_POOL};
use super::shard_read::ShardRead;
pub use super::slab::Slab;
use super::slab::{Grid, PerDim, Run, Runs};
use super::slab_check::{check_buffer, type_check};
use super::strings::{decode_string, encode_string, StrKind};
use super::types::{range_result, Values};
use super::{NcError, NcResult};
use crate::map::{ReadInto, StoreKey};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A read touching at most this fraction of a chunk, in at most
/// `PARTIAL_READ_RUNS` runs, reads byte ranges of an uncompressed chunk
/// instead of the whole chunk.
pub(super) const PARTIAL_READ_FRACTION: u64 = 8;
const PARTIAL_READ_RUNS: u64 = 16;
/// A chunk read in part this many times per `PARTIAL_READ_RENT` bytes of
/// it (plus one) is read whole into the cache: a byte-range read costs
/// about as much as reading this many bytes more (a system call or a
/// request against a copy from the page cache), so repeated small reads of
/// one chunk cost at most about twice the best choice made in hindsight.
const PARTIAL_READ_RENT: u64 = 16 * 1024;
/// A write of at most this many elements into a chunk the cache holds
/// changed already is made in place, under the cache's lock
/// ([`ChunkCache::update_dirty`]); larger ones take the chunk out.
const IN_PLACE_ELEMENTS: u64 = 4096;

/// Fill values for a chunk that is not materialised are made this many
/// bytes at a time (at least one element).
const FILL_PIECE_BYTES: usize = 64 * 1024;

/// The caller's memory, shared by the chunk workers. Every chunk touches a
/// distinct set of slab positions, and a disjoint memory map
/// ([`Slab::disjoint`]: every dense one) sends distinct positions to
/// distinct elements, so workers never write the same bytes. Reads through
/// a map that may alias run sequentially.
pub(crate) struct SharedMut<T> {
    ptr: *mut T,
    len: usize,
}
unsafe impl<T: Send> Sync for SharedMut<T> {}
unsafe impl<T: Send> Send for SharedMut<T> {}

impl<T> SharedMut<T> {
    pub(crate) fn new(s: &mut [T]) -> Self {
        SharedMut { ptr: s.as_mut_ptr(), len: s.len() }
    }
    pub(crate) fn len(&self) -> usize {
        self.len
    }
    /// # Safety
    /// No other thread accesses `off..off + n` at the same time.
    #[allow(clippy::mut_from_ref)]
    pub(crate) unsafe fn slice(&self, off: usize, n: usize) -> &mut [T] {
        assert!(off + n <= self.len, "slab offset out of the caller's buffer");
        std::slice::from_raw_parts_mut(self.ptr.add(off), n)
    }
}

/// The most pieces of the caller's memory that a chunk is written from as
/// they are (a gathering write); a chunk of more, smaller pieces is copied
/// into one buffer first: 512 iovecs of 128 bytes per 64 KiB cost more CPU
/// than the copy (a 64^3 chunk of 16-bit values, written from a 512^3 array).
const GATHER_PIECES: usize = 16;

/// The caller's buffer of a read.
pub enum MemOut<'a> {
    Bytes { memtype: NcType, buf: &'a mut [u8] },
    Strings(&'a mut [String]),
}

/// The caller's data of a write.
pub enum MemIn<'a> {
    Bytes { memtype: NcType, buf: &'a [u8] },
    Strings(&'a [String]),
}

impl MemOut<'_> {
    fn memtype(&self) -> NcType {
        match self {
            MemOut::Bytes { memtype, .. } => *memtype,
            MemOut::Strings(_) => NC_STRING,
        }
    }

    /// Bytes, or strings.
    fn len(&self) -> usize {
        match self {
            MemOut::Bytes { buf, .. } => buf.len(),
            MemOut::Strings(s) => s.len(),
        }
    }
}

impl MemIn<'_> {
    fn memtype(&self) -> NcType {
        match self {
            MemIn::Bytes { memtype, .. } => *memtype,
            MemIn::Strings(_) => NC_STRING,
        }
    }

    /// Bytes, or strings.
    fn len(&self) -> usize {
        match self {
            MemIn::Bytes { buf, .. } => buf.len(),
            MemIn::Strings(s) => s.len(),
        }
    }
}

/// The position in netCDF-C's write call of the first value of a run, on
/// which BitGroom alternates: the slab's C order for vara/vars (the memory
/// offset of a dense map); for varm, netCDF-C writes one row per call where
/// the last dimension is contiguous in memory and in the file, else one
/// value per call.
fn quantize_position(slab: &Slab, run: Run) -> usize {
    let last = slab.count.len() - 1;
    if slab.dense {
        run.mem
    } else if slab.stride[last] == 1 && slab.imap[last] == 1 {
        run.k as usize
    } else {
        0
    }
}

impl Dataset {
    /// Fetches and decodes one chunk: cache, else store, else fill.
    fn load_chunk(&self, plan: &ChunkPlan, cache: &ChunkCache, key: &StoreKey, keep: bool) -> NcResult<Arc<Vec<u8>>> {
        if let Some(c) = cache.get(key) {
            return Ok(c);
        }
        let (data, base) = match self.store.get_versioned(key)? {
            Some((bytes, v)) => (Arc::new(plan.decode(key, bytes)?), Base::At(v)),
            None => return Ok(Arc::new(plan.fill_chunk(key)?)),
        };
        if keep {
            cache.insert_clean(key.clone(), data.clone(), base);
        }
        Ok(data)
    }

    /// Where one element of a plain chunked numeric variable is: its
    /// variable's chunk plan, its chunk's key and its offset (in elements) in
    /// the chunk. `None` when a one-element call at `index` is not that
    /// simple case (a string, aggregated, sharded, scalar or unreadable
    /// variable, a memory type that does not go with it, an index outside
    /// the variable's shape, a plan that fails): the general path then
    /// gives the answer, errors included.
    fn one_element(
        &self,
        gid: usize,
        varid: i32,
        index: &[u64],
        memtype: NcType,
    ) -> NcResult<Option<(Arc<ChunkPlan>, StoreKey, usize)>> {
        let Ok(v) = self.var(gid, varid) else { return Ok(None) };
        if v.unreadable.is_some()
            || v.source.is_some()
            || v.is_scalar()
            || index.len() != v.dimids.len()
            || !(NC_BYTE..=NC_UINT64).contains(&memtype)
            || type_check(v, memtype).is_err()
            || index.iter().zip(&v.dimids).any(|(&i, &d)| i >= self.dims[d].len)
        {
            return Ok(None);
        }
        let Ok(plan) = self.chunk_plan(gid, varid as usize) else { return Ok(None) };
        if plan.shard.is_some() || plan.strkind != StrKind::None || plan.codec_err.is_some() {
            return Ok(None);
        }
        let (mut idx, mut at): (PerDim<u64>, u64) = (PerDim::new(), 0);
        for (d, &i) in index.iter().enumerate() {
            let c = plan.chunks[d].max(1);
            idx.push(i / c);
            at += (i % c) * plan.cstrides[d];
        }
        let key = plan.chunk_keys.key(&plan.key, &idx)?;
        Ok(Some((plan, key, at as usize)))
    }

    /// `nc_get_var1` of a number from a chunk the cache holds: one cache
    /// lookup, no slab resolved (a loop of one-element reads spends its
    /// time here). `Ok(None)`: not that case (see [`Dataset::one_element`],
    /// or the chunk is not cached); the caller takes [`Dataset::get_slab`].
    pub fn get_one(
        &self,
        gid: usize,
        varid: i32,
        index: &[u64],
        memtype: NcType,
        out: &mut [u8],
    ) -> NcResult<Option<()>> {
        let Some((plan, key, at)) = self.one_element(gid, varid, index, memtype)? else { return Ok(None) };
        let cache = &self.groups[gid].vars[varid as usize].cache;
        let es = plan.esize;
        let got = cache
            .read(&key, |chunk| chunk.get(at * es..(at + 1) * es).map(|src| convert(plan.ftype, src, memtype, out, 1)));
        got.flatten().map(range_result).transpose()
    }

    /// `nc_put_var1` of a number into a chunk the cache already holds
    /// changed: the element converted in place (as [`Dataset::put_slab`]
    /// does for a few elements), with no slab resolved. `Ok(None)`: not
    /// that case (also: read-only, define mode, quantization, a chunk not
    /// changed yet); the caller takes [`Dataset::put_slab`].
    pub fn put_one(
        &mut self,
        gid: usize,
        varid: i32,
        index: &[u64],
        memtype: NcType,
        input: &[u8],
    ) -> NcResult<Option<()>> {
        // (a collective write goes through every rank's slab path)
        if !self.writable || self.define_mode || self.is_collective(gid, varid) {
            return Ok(None);
        }
        let Some((plan, key, at)) = self.one_element(gid, varid, index, memtype)? else { return Ok(None) };
        let v = &self.groups[gid].vars[varid as usize];
        if v.quantize.is_on() || input.len() != elem_size(memtype) {
            return Ok(None);
        }
        let es = plan.esize;
        let mark = |mask: &mut DirtyMask| mask.mark(at, 1);
        let put = v.cache.update_dirty(&key, &mark, |chunk| {
            chunk.get_mut(at * es..(at + 1) * es).map(|dst| convert(memtype, input, plan.ftype, dst, 1))
        });
        put.flatten().map(range_result).transpose()
    }

    /// Reads a slab into the caller's memory. Returns `NC_ERANGE` (after
    /// filling the buffer) if some value did not fit the memory type.
    pub fn get_slab(&self, gid: usize, varid: i32, slab: &Slab, out: MemOut) -> NcResult<()> {
        let v = self.var(gid, varid)?;
        self.check_slab(v, slab, false)?;
        let memtype = out.memtype();
        if let Some(e) = &v.unreadable {
            return Err(e.clone());
        }
        type_check(v, memtype)?;
        check_buffer(slab, out.len(), memtype)?;
        if slab.is_empty() {
            return Ok(());
        }
        if !slab.disjoint() {
            return self.get_aliased(gid, varid, slab, out);
        }
        // an aggregated variable: its partitions, not chunks of this store
        if let Some(src) = &v.source {
            return src.read(slab, out);
        }
        let plan = self.chunk_plan(gid, varid as usize)?;
        let grid = Grid::new(slab, &plan.chunks)?;
        let cache = v.cache.clone();
        let keep = grid.len().saturating_mul(plan.chunk_bytes()) <= cache.config().size;
        let range = AtomicBool::new(false);
        let msize = if memtype == NC_STRING { 0 } else { elem_size(memtype) };
        let (bytes_out, str_out) = match out {
            MemOut::Bytes { buf, .. } => (Some(SharedMut::new(buf)), None),
            MemOut::Strings(s) => (None, Some(SharedMut::new(s))),
        };
        // Converts `n` elements (`src`, in the variable's type) to memory offset `moff`.
        let emit = |moff: usize, src: &[u8], n: usize, arena: &[u8]| -> bool {
            if let Some(out) = &bytes_out {
                // SAFETY: see `SharedMut`: positions are disjoint across chunks.
                let dst = unsafe { out.slice(moff * msize, n * msize) };
                convert(plan.ftype, src, memtype, dst, n)
            } else if let Some(out) = &str_out {
                // SAFETY: as above.
                let dst = unsafe { out.slice(moff, n) };
                for (i, s) in dst.iter_mut().enumerate() {
                    let cell = &src[i * plan.esize..(i + 1) * plan.esize];
                    *s = if plan.strkind == StrKind::Vlen {
                        plan.vlen_string(cell, arena)
                    } else {
                        decode_string(plan.strkind, cell)
                    };
                }
                false
            } else {
                false
            }
        };
        // Fill values for a run of a chunk that is not materialised, a
        // bounded piece at a time.
        let emit_fill = |run: Run| -> bool {
            let piece = (FILL_PIECE_BYTES / plan.esize.max(1)).clamp(1, run.n);
            let block = plan.fill.repeat(piece);
            let (mut r, mut done) = (false, 0);
            while done < run.n {
                let m = piece.min(run.n - done);
                r |= emit(run.mem + done, &block[..m * plan.esize], m, &[]);
                done += m;
            }
            r
        };
        let copy_out = |chunk: &[u8], runs: &Runs| -> bool {
            let mut r = false;
            let arena = chunk.get(plan.chunk_bytes()..).unwrap_or_default();
            runs.for_each(|run| {
                r |= emit(run.mem, &chunk[run.chunk * plan.esize..(run.chunk + run.n) * plan.esize], run.n, arena);
            });
            r
        };
        // A whole stored chunk of raw bytes on a local store, read with one
        // copy: into the caller's memory when the chunk is one run of it in
        // the stored type and byte order, else into a page-aligned buffer
        // (see `with_page_buf`). `None`: not such a chunk (or not of the
        // length it should have), for the general path to read or refuse.
        let direct = memtype == plan.ftype && !plan.swap && plan.strkind == StrKind::None;
        let raw_read = |key: &StoreKey, runs: &Runs| -> NcResult<Option<bool>> {
            if !plan.raw() || self.store.io_bound() || plan.check_chunk_size(key).is_err() {
                return Ok(None);
            }
            let mut whole = None;
            if direct && runs.count() == 1 {
                runs.for_each(|run| whole = Some(run).filter(|run| run.chunk == 0 && run.n == plan.celems));
            }
            if let (Some(run), Some(out)) = (whole, &bytes_out) {
                // SAFETY: see `SharedMut`: positions are disjoint across chunks.
                let dst = unsafe { out.slice(run.mem * msize, run.n * msize) };
                if copies_fast_to(dst.as_ptr()) {
                    return Ok(match self.store.read_exact_into(key, dst)? {
                        ReadInto::Done => Some(false),
                        ReadInto::Absent => Some(emit_fill(run)),
                        ReadInto::Size(_) => None,
                    });
                }
            }
            with_page_buf(plan.chunk_bytes(), |buf| -> NcResult<Option<bool>> {
                Ok(match self.store.read_exact_into(key, buf)? {
                    ReadInto::Done => {
                        if plan.swap {
                            swap_bytes(buf, plan.esize);
                        }
                        Some(copy_out(buf, runs))
                    }
                    ReadInto::Absent => {
                        let mut r = false;
                        runs.for_each(|run| r |= emit_fill(run));
                        Some(r)
                    }
                    ReadInto::Size(_) => None,
                })
            })?
        };
        if v.shard.is_some() && plan.shard.is_none() {
            // shards whose codecs cannot run: never read as plain chunks
            plan.check_codecs()?;
        }
        if let Some(sh) = &plan.shard {
            let shards = Grid::new(slab, &sh.storage.chunks)?;
            let parallel = slab.disjoint();
            let r = any_chunks(&*self.store, shards.len(), parallel, |i| {
                let read = ShardRead { plan: &plan, sh, cache: &cache, slab, keep, parallel };
                self.read_shard(&read, &shards.chunk(i), &copy_out, &emit_fill)
            })?;
            return range_result(r);
        }
        let work = |i: usize| -> NcResult<()> {
            let parts = grid.chunk(i);
            let key = plan.chunk_key(&parts)?;
            let runs = Runs::new(slab, &plan.cstrides, &parts);
            let small = plan.small_part(&runs);
            // Not kept: most of a chunk that is the stored bytes as they are,
            // on a local store. Reading it again costs one read of the
            // system's page cache; keeping it, a copy of it in memory (a
            // whole-variable read that fits the cache spent a third of its
            // time faulting in fresh pages for the copies).
            let keep = keep && !(plan.raw() && !small && !self.store.io_bound());
            let r = if let Some(chunk) = cache.get(&key) {
                copy_out(&chunk, &runs)
            } else if plan.raw()
                && small
                && runs.count() <= PARTIAL_READ_RUNS
                && !(keep && cache.count_partial_read(&key, 1 + plan.chunk_bytes() as u64 / PARTIAL_READ_RENT))
            {
                // A small read of an uncompressed chunk: only the bytes needed.
                let mut spans = Vec::with_capacity(runs.count() as usize);
                runs.for_each(|run| spans.push(run));
                let mut r = false;
                for run in spans {
                    let (off, len) = ((run.chunk * plan.esize) as u64, (run.n * plan.esize) as u64);
                    let got = self.store.get_range(&key, off, len).map_err(|e| match e {
                        crate::map::MapError::OutOfRange { .. } => {
                            NcError::with(NC_ENCZARR, format!("chunk {key} is too short"))
                        }
                        other => NcError::from(other),
                    })?;
                    match got {
                        Some(mut b) => {
                            if plan.swap {
                                swap_bytes(&mut b, plan.esize);
                            }
                            r |= emit(run.mem, &b, run.n, &[]);
                        }
                        None => r |= emit_fill(run),
                    }
                }
                r
            } else if plan.check_chunk_size(&key).is_err() && self.store.size(&key)?.is_none() {
                // A chunk too large to hold that does not exist: fill values,
                // run by run, without materialising it.
                let mut r = false;
                runs.for_each(|run| r |= emit_fill(run));
                r
            } else if keep {
                let chunk = self.load_chunk(&plan, &cache, &key, true)?;
                copy_out(&chunk, &runs)
            } else if let Some(r) = raw_read(&key, &runs)? {
                r
            } else {
                with_chunk_buf(|buf| -> NcResult<bool> {
                    if self.store.get_into(&key, buf)? {
                        plan.decode_in_place(&key, buf)?;
                    } else {
                        plan.fill_into(&key, buf)?;
                    }
                    Ok(copy_out(buf, &runs))
                })?
            };
            if r {
                range.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        // A map that may alias goes in order, so that the last position
        // written to an element is the one that stays.
        for_chunks(&*self.store, grid.len(), slab.disjoint(), work)?;
        range_result(range.load(Ordering::Relaxed))
    }

    /// A read through a memory map that may send two positions to one
    /// element: in the slab's C order, as netCDF-C's varm reads, so that
    /// the last position in that order stays. A bounded piece at a time
    /// is read densely, then put in place.
    fn get_aliased(&self, gid: usize, varid: i32, slab: &Slab, out: MemOut) -> NcResult<()> {
        const PIECE: u64 = 64 * 1024;
        let mut range = false;
        let mut dense_get = |piece: &Slab, out: MemOut| match self.get_slab(gid, varid, &piece.densified(), out) {
            Err(e) if e.code() == NC_ERANGE => {
                range = true;
                Ok(())
            }
            r => r,
        };
        let positions = |piece: &Slab| piece.count.iter().product::<u64>() as usize;
        match out {
            MemOut::Bytes { memtype, buf } => {
                let es = elem_size(memtype);
                let mut tmp = vec![0u8; PIECE as usize * es];
                slab.for_pieces(PIECE, |piece, base| -> NcResult<()> {
                    let n = positions(piece);
                    dense_get(piece, MemOut::Bytes { memtype, buf: &mut tmp[..n * es] })?;
                    for (i, off) in piece.offsets().enumerate() {
                        let at = (base as usize + off) * es;
                        buf[at..at + es].copy_from_slice(&tmp[i * es..(i + 1) * es]);
                    }
                    Ok(())
                })?;
            }
            MemOut::Strings(buf) => {
                let mut tmp = vec![String::new(); PIECE as usize];
                slab.for_pieces(PIECE, |piece, base| -> NcResult<()> {
                    let n = positions(piece);
                    dense_get(piece, MemOut::Strings(&mut tmp[..n]))?;
                    for (i, off) in piece.offsets().enumerate() {
                        buf[base as usize + off] = std::mem::take(&mut tmp[i]);
                    }
                    Ok(())
                })?;
            }
        }
        range_result(range)
    }

    /// Writes a slab from the caller's memory. Values out of range for the
    /// variable's type are written converted and reported as `NC_ERANGE`.
    /// On a parallel dataset: independent access may not grow an unlimited
    /// dimension (`NC_ECANTEXTEND`); collective access is a collective call
    /// (`engine::parallel`).
    pub fn put_slab(&mut self, gid: usize, varid: i32, slab: &Slab, input: MemIn) -> NcResult<()> {
        if self.par.is_some() {
            if self.is_collective(gid, varid) {
                return self.put_slab_collective(gid, varid, slab, input);
            }
            self.check_not_extending(gid, varid, slab)?;
        }
        self.put_slab_with(gid, varid, slab, input, None)
    }

    /// [`Dataset::put_slab`]; with `pieces`, the parts of chunks that the
    /// slab covers only in part are not written but converted into pieces
    /// (collected there) for the rank that writes each chunk (a collective
    /// write).
    pub(in crate::engine) fn put_slab_with(
        &mut self,
        gid: usize,
        varid: i32,
        slab: &Slab,
        input: MemIn,
        pieces: Option<&std::sync::Mutex<Vec<Piece>>>,
    ) -> NcResult<()> {
        let v = self.var(gid, varid)?;
        self.check_writable()?;
        self.check_slab(v, slab, true)?;
        // netCDF-4: writing data ends define mode (the classic model refuses)
        if self.define_mode {
            if self.classic_model {
                return Err(NcError::new(NC_EINDEFINE));
            }
            self.enddef()?;
        }
        let v = self.var(gid, varid)?;
        let memtype = input.memtype();
        if let Some(e) = &v.unreadable {
            return Err(e.clone());
        }
        type_check(v, memtype)?;
        check_buffer(slab, input.len(), memtype)?;
        if slab.is_empty() {
            return Ok(());
        }
        // Quantization works on the values in the variable's type, as
        // netCDF-C converts them, run by run (see `quantize_position`).
        let quantize = v.quantize;
        let qfill = if quantize.is_on() && memtype != NC_STRING { Some(self.fill_value(v)?) } else { None };
        // Grow unlimited dimensions first, so the plan sees the new shape
        // (`check_slab` bounded their new lengths); back as they were if
        // the write fails before a chunk is written.
        let dimids: PerDim<usize> = PerDim::from_slice(&v.dimids);
        let lens: PerDim<u64> = dimids.iter().map(|&d| self.dims[d].len).collect();
        for (d, &dimid) in dimids.iter().enumerate() {
            if self.dims[dimid].unlimited {
                let end = slab.end(d).ok_or(NcError::new(NC_ENOMEM))?;
                self.dims[dimid].len = self.dims[dimid].len.max(end);
            }
        }
        let planned = self.chunk_plan(gid, varid as usize).and_then(|chunks| {
            // writes go by stored objects: whole shards, if there are shards
            chunks.storage().check_codecs()?;
            let grid = Grid::new(slab, &chunks.storage().chunks)?;
            Ok((chunks, grid))
        });
        let (chunks, grid) = match planned {
            Ok(p) => p,
            Err(e) => {
                for (&dimid, &len) in dimids.iter().zip(&lens) {
                    self.dims[dimid].len = len;
                }
                return Err(e);
            }
        };
        let plan = chunks.storage();
        // per chunk dimension (a scalar has one, fixed)
        let mut unlimited: PerDim<bool> = dimids.iter().map(|&d| self.dims[d].unlimited).collect();
        unlimited.resize(unlimited.len().max(1), false);
        // (not through `var_mut`, which counts as a change of metadata)
        let v = &mut self.groups[gid].vars[varid as usize];
        v.has_data = true;
        let cache = v.cache.clone();
        let store = self.store.clone();
        let writer = |k: &StoreKey, d: Dirty<'_>| plan.write_back(&*store, k, d);
        let range = AtomicBool::new(false);
        let msize = if memtype == NC_STRING { 0 } else { elem_size(memtype) };
        let work = |i: usize| -> NcResult<()> {
            let parts = grid.chunk(i);
            let key = plan.chunk_key(&parts)?;
            chunks.forget_inner(&cache, &key)?;
            let runs = Runs::new(slab, &plan.cstrides, &parts);
            // Whole chunk covered (up to the array's edge)? Not past the
            // edge of an unlimited dimension: another writer may have
            // records there. Entirely inside the array?
            let (mut full, mut interior) = (true, true);
            for (d, p) in parts.iter().enumerate() {
                let begin = p.chunk.saturating_mul(plan.chunks[d]);
                let edge = if unlimited[d] { plan.chunks[d] } else { plan.shape[d].saturating_sub(begin) };
                full &= p.n == plan.chunks[d].min(edge);
                interior &= begin.saturating_add(plan.chunks[d]) <= plan.shape[d];
            }
            if plan.strkind == StrKind::Vlen {
                let MemIn::Strings(strings) = &input else { return Err(NcError::new(NC_EBADTYPE)) };
                cache.remove(&key);
                return plan.put_vlen(&*store, &key, &runs, strings, full);
            }
            // Converts the caller's values of one run into `dst`, the run's bytes.
            let convert_run = |run: Run, dst: &mut [u8]| -> bool {
                let mut r = false;
                {
                    {
                        match &input {
                            MemIn::Bytes { buf, .. } => {
                                let src = &buf[run.mem * msize..(run.mem + run.n) * msize];
                                r |= convert(memtype, src, plan.ftype, dst, run.n);
                                if let Some(fill) = &qfill {
                                    quantize.apply(dst, fill, quantize_position(slab, run));
                                }
                            }
                            MemIn::Strings(s) => {
                                for i in 0..run.n {
                                    let cell = &mut dst[i * plan.esize..(i + 1) * plan.esize];
                                    encode_string(plan.strkind, &s[run.mem + i], cell);
                                }
                            }
                        }
                    }
                }
                r
            };
            // Converts the caller's values of this chunk into `chunk`.
            let fill_in = |chunk: &mut [u8]| -> bool {
                let mut r = false;
                runs.for_each(|run| {
                    r |= convert_run(run, &mut chunk[run.chunk * plan.esize..(run.chunk + run.n) * plan.esize]);
                });
                r
            };
            // A chunk entirely inside the array has no padding to fill.
            let same = memtype == plan.ftype && plan.strkind == StrKind::None && qfill.is_none();
            if full && interior && plan.raw() && !plan.swap && same {
                // Same type, same byte order: the caller's runs are the chunk,
                // in order, if they tile it from offset 0. Write them as they are.
                if let MemIn::Bytes { buf, .. } = &input {
                    let mut pieces: Vec<&[u8]> = Vec::new();
                    let mut next = 0usize;
                    let mut tiled = true;
                    runs.for_each(|run| {
                        tiled &= run.chunk == next;
                        next = run.chunk + run.n;
                        pieces.push(&buf[run.mem * msize..(run.mem + run.n) * msize]);
                    });
                    // Many small pieces cost the kernel more, one iovec at a
                    // time, than a copy into one buffer (below) and one write.
                    if tiled && next == plan.celems && pieces.len() <= GATHER_PIECES {
                        cache.remove(&key);
                        store.set_vectored(&key, &pieces)?;
                        return Ok(());
                    }
                }
            }
            let r = if let (Some(pieces), false) = (pieces, full) {
                // a collective write: this part goes to the chunk's writer
                let (piece, r) = Piece::of(key, &runs, plan.esize, convert_run)?;
                pieces.lock().unwrap_or_else(|p| p.into_inner()).push(piece);
                r
            } else if full {
                // The whole chunk is new: no read, a reused buffer, straight to the store.
                with_chunk_buf(|buf| -> NcResult<bool> {
                    if !(interior && buf.len() == plan.chunk_bytes()) {
                        // an interior chunk is overwritten entirely below
                        plan.fill_into(&key, buf)?;
                    }
                    let r = fill_in(buf);
                    cache.remove(&key);
                    plan.encode_and_write(&*store, &key, buf)?;
                    Ok(r)
                })?
            } else if let Some(r) = (runs.elements() <= IN_PLACE_ELEMENTS)
                .then(|| {
                    let mark = |mask: &mut DirtyMask| runs.for_each(|run| mask.mark(run.chunk, run.n));
                    cache.update_dirty(&key, &mark, |chunk| fill_in(chunk))
                })
                .flatten()
            {
                // a few elements into a chunk already changed in the cache
                r
            } else {
                let taken = match cache.take_for_write(&key) {
                    Some(taken) => taken,
                    None => match store.get_versioned(&key)? {
                        Some((bytes, v)) => (plan.decode(&key, bytes)?, Base::At(v), None),
                        None => (plan.fill_chunk(&key)?, Base::Absent, None),
                    },
                };
                let mark = |mask: &mut DirtyMask| runs.for_each(|run| mask.mark(run.chunk, run.n));
                // back in the cache, dirty, if the conversion panics
                let mut unsaved = Unsaved::new(&cache, &key, taken, (plan.celems, plan.esize), &mark);
                let r = fill_in(unsaved.data());
                let (chunk, base, mask) = unsaved.finish();
                cache.insert_dirty(key, Arc::new(chunk), base, mask, (plan.celems, plan.esize), &mark, &writer)?;
                r
            };
            if r {
                range.store(true, Ordering::Relaxed);
            }
            Ok(())
        };
        for_chunks(&*store, grid.len(), true, work)?;
        range_result(range.load(Ordering::Relaxed))
    }

    /// The pieces of a collective write that this rank writes (its chunks,
    /// `engine::parallel`): each chunk is taken from the cache or the store
    /// (or made of fill values), every rank's pieces are laid in, and it is
    /// written back before the call returns, on the condition that the
    /// store still holds the version read (merging with other writers, as
    /// any write-back).
    pub(in crate::engine) fn write_pieces(&self, gid: usize, varid: usize, mut pieces: Vec<Piece>) -> NcResult<()> {
        if pieces.is_empty() {
            return Ok(());
        }
        let chunks = self.chunk_plan(gid, varid)?;
        let plan = chunks.storage();
        let cache = self.groups[gid].vars[varid].cache.clone();
        let store = self.store.clone();
        pieces.sort_by(|a, b| a.key.cmp(&b.key));
        let by_chunk: Vec<&[Piece]> = pieces.chunk_by(|a, b| a.key == b.key).collect();
        let writer = |k: &StoreKey, d: Dirty<'_>| plan.write_back(&*store, k, d);
        let work = |i: usize| -> NcResult<()> {
            let these = by_chunk[i];
            let key = &these[0].key;
            for p in these {
                p.check(plan.celems, plan.esize)?;
            }
            chunks.forget_inner(&cache, key)?;
            let taken = match cache.take_for_write(key) {
                Some(taken) => taken,
                None => match store.get_versioned(key)? {
                    Some((bytes, v)) => (plan.decode(key, bytes)?, Base::At(v), None),
                    None => (plan.fill_chunk(key)?, Base::Absent, None),
                },
            };
            let mark = |mask: &mut DirtyMask| these.iter().for_each(|p| p.runs(|at, n| mask.mark(at, n)));
            let mut unsaved = Unsaved::new(&cache, key, taken, (plan.celems, plan.esize), &mark);
            let chunk = unsaved.data();
            these.iter().for_each(|p| p.lay_into(chunk, plan.esize));
            let (chunk, base, mask) = unsaved.finish();
            cache.insert_dirty(key.clone(), Arc::new(chunk), base, mask, (plan.celems, plan.esize), &mark, &writer)
        };
        for_chunks(&*store, by_chunk.len(), true, work)?;
        // written now, not at the next sync: the collective call is the write
        cache.flush(&writer)
    }

    /// All values of a variable, in its own type (`nc_copy_var`).
    pub fn read_all(&self, gid: usize, varid: i32) -> NcResult<Result<Values, Vec<String>>> {
        let v = self.var(gid, varid)?;
        let slab = self.slab(gid, varid, None, None, None, None, false)?;
        let n = slab.mem_elems();
        if v.nctype == NC_STRING {
            let mut out =
                crate::limits::try_filled(n, String::new()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
            self.get_slab(gid, varid, &slab, MemOut::Strings(&mut out))?;
            return Ok(Err(out));
        }
        let bytes = (n as u64).saturating_mul(elem_size(v.nctype) as u64);
        let mut buf =
            crate::limits::try_zeroed(bytes, u64::MAX).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
        self.get_slab(gid, varid, &slab, MemOut::Bytes { memtype: v.nctype, buf: &mut buf })?;
        Ok(Ok(Values::from_ne_bytes(v.nctype, &buf)?))
    }

    /// One whole chunk of a variable, the one at grid position `index`, in
    /// the variable's type, native byte order and the C order of the chunk
    /// shape. Elements past the end of a dimension, and all those of a chunk
    /// never written, are the fill value: what netCDF-C's `NCZ_read_chunk`
    /// gives (its chunk-dump test tool `ncdumpchunks` calls it). Fixed-size
    /// types only (`NC_EBADTYPE` for strings); an index past the grid is
    /// `NC_EINVALCOORDS`.
    pub fn read_chunk(&self, gid: usize, varid: i32, index: &[u64]) -> NcResult<Vec<u8>> {
        let v = self.var(gid, varid)?;
        if v.nctype == NC_STRING || !(NC_BYTE..=NC_UINT64).contains(&v.nctype) {
            return Err(NcError::with(NC_EBADTYPE, "only fixed-size types have raw chunks"));
        }
        let size = elem_size(v.nctype);
        let (_, chunks) = self.inq_var_chunking(gid, varid)?;
        let shape = self.var_shape(v);
        if index.len() != shape.len() || chunks.len() != shape.len() {
            return Err(NcError::with(NC_EINVAL, "one chunk index per dimension is needed"));
        }
        let mut start = Vec::with_capacity(shape.len());
        let mut count = Vec::with_capacity(shape.len());
        for d in 0..shape.len() {
            let s = index[d].checked_mul(chunks[d]).filter(|&s| s < shape[d]).ok_or(NcError::new(NC_EINVALCOORDS))?;
            start.push(s);
            count.push(chunks[d].min(shape[d] - s));
        }
        // The chunk's own C-order strides map the slab into it.
        let mut imap = vec![1i64; shape.len()];
        let mut elems = 1u64;
        for d in (0..shape.len()).rev() {
            imap[d] = i64::try_from(elems).map_err(|_| NcError::new(NC_ENOMEM))?;
            elems = elems.checked_mul(chunks[d]).ok_or(NcError::new(NC_ENOMEM))?;
        }
        let bytes = elems.checked_mul(size as u64).ok_or(NcError::new(NC_ENOMEM))?;
        let mut buf =
            crate::limits::try_zeroed(bytes, u64::MAX).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
        let fill = self.fill_value(v)?.convert(v.nctype)?.0.to_ne_bytes();
        if fill.len() >= size {
            buf.chunks_exact_mut(size).for_each(|e| e.copy_from_slice(&fill[..size]));
        }
        let slab = self.slab(gid, varid, Some(&start), Some(&count), None, Some(&imap), false)?;
        self.get_slab(gid, varid, &slab, MemOut::Bytes { memtype: v.nctype, buf: &mut buf })?;
        Ok(buf)
    }

    /// Writes all values of a variable (the counterpart of [`Dataset::read_all`]).
    pub fn write_all(&mut self, gid: usize, varid: i32, values: &Result<Values, Vec<String>>) -> NcResult<()> {
        let slab = self.slab(gid, varid, None, None, None, None, true)?;
        match values {
            Ok(v) => {
                let bytes = v.to_ne_bytes();
                self.put_slab(gid, varid, &slab, MemIn::Bytes { memtype: v.nc_type(), buf: &bytes })
            }
            Err(strings) => self.put_slab(gid, varid, &slab, MemIn::Strings(strings)),
        }
    }

    /// Writes every cached dirty chunk of every variable (`nc_sync`, `nc_close`).
    pub fn flush_chunks(&self) -> NcResult<()> {
        for gid in 0..self.groups.len() {
            for vid in 0..self.groups[gid].vars.len() {
                let v = &self.groups[gid].vars[vid];
                if !v.cache.has_dirty() {
                    continue;
                }
                let plan = self.chunk_plan(gid, vid)?;
                let store = self.store.clone();
                v.cache.flush(&|k: &StoreKey, d: Dirty<'_>| plan.storage().write_back(&*store, k, d))?;
            }
        }
        Ok(())
    }

    /// Forgets every clean cached chunk (parallel datasets, after a
    /// collective step: other ranks may have written them).
    pub(in crate::engine) fn drop_clean_chunks(&self) {
        for g in &self.groups {
            for v in &g.vars {
                v.cache.drop_clean();
            }
        }
    }

    /// Flushes and empties every chunk cache (before keys move).
    pub fn clear_chunk_caches(&self) -> NcResult<()> {
        self.flush_chunks()?;
        for g in &self.groups {
            for v in &g.vars {
                v.cache.clear(&|_: &StoreKey, _: Dirty<'_>| Ok(None))?;
            }
        }
        Ok(())
    }

    /// `nc_set_var_chunk_cache`.
    pub fn set_var_cache(&self, gid: usize, varid: i32, config: super::cache::CacheConfig) -> NcResult<()> {
        let v = self.var(gid, varid)?;
        let plan = self.chunk_plan(gid, varid as usize)?;
        let store = self.store.clone();
        v.cache.set_config(config, &|k: &StoreKey, d: Dirty<'_>| plan.storage().write_back(&*store, k, d))
    }
}
