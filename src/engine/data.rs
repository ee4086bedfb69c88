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

use super::cache::{Base, ChunkCache, Dirty, DirtyMask, Unsaved};
use super::consts::*;
use super::convert::{convert, elem_size, swap_bytes};
use super::error::*;
use super::model::{native_endian, Dataset, Var};
pub use super::slab::Slab;
use super::slab::{Grid, Part, PerDim, Run, Runs};
use super::types::{range_result, Values};
use super::{NcError, NcResult};
use crate::map::{Store, StoreKey, Version};
use crate::process::PerProcess;
use rayon::prelude::*;
use std::borrow::Cow;
use std::cell::RefCell;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};

thread_local! {
    /// A chunk buffer per worker thread, reused across chunks and calls so
    /// that bulk I/O allocates nothing per chunk (see [`with_chunk_buf`]).
    static CHUNK_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// A second one, that a chunk is decoded into from the first (then the
    /// two trade places).
    static DECODE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// Runs `f` with this thread's reusable chunk buffer, or with a new one
/// when that one is in use: a worker waiting inside a nested parallel step
/// (the inner chunks of a shard being encoded or decoded) may run another
/// chunk's work on the same thread meanwhile (rayon's work stealing), while
/// the first still holds the buffer.
fn with_chunk_buf<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    with_buf(&CHUNK_BUF, f)
}

fn with_buf<R>(key: &'static std::thread::LocalKey<RefCell<Vec<u8>>>, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    key.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut Vec::new()),
    })
}

/// Requests in flight on a network store: reading 512 chunks at 20 ms a
/// request takes 8 round trips (bench/s3_bench.py).
const IO_IN_FLIGHT: usize = 64;

/// Chunk work on network stores (`Store::io_bound`): as many requests in
/// flight as [`IO_IN_FLIGHT`], whatever the number of cores. Per process
/// (`fork`).
pub(crate) static IO_POOL: PerProcess<rayon::ThreadPool> = PerProcess::new(|| {
    rayon::ThreadPoolBuilder::new()
        .num_threads(IO_IN_FLIGHT)
        .thread_name(|i| format!("nczarr-rs-io-{i}"))
        .build()
        .expect("a thread pool can be built")
});

/// Chunk work on local stores: one thread per core. Not rayon's global pool,
/// which a forked child could not use (`crate::process`).
pub(crate) static CPU_POOL: PerProcess<rayon::ThreadPool> = PerProcess::new(|| {
    rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("nczarr-rs-cpu-{i}"))
        .build()
        .expect("a thread pool can be built")
});

/// Runs `work` over chunks `0..n` of a request's [`Grid`], in parallel when
/// there are several (`parallel`), on the pool that suits the store.
/// Sequential work goes in the grid's order.
fn for_chunks<F>(store: &dyn Store, n: usize, parallel: bool, work: F) -> NcResult<()>
where
    F: Fn(usize) -> NcResult<()> + Sync + Send,
{
    any_chunks(store, n, parallel, |i| work(i).map(|()| false)).map(|_| ())
}

/// [`for_chunks`] for work that answers a flag (a value out of range): is
/// any set? Called from a worker of the pool, it runs inside that pool.
fn any_chunks<F>(store: &dyn Store, n: usize, parallel: bool, work: F) -> NcResult<bool>
where
    F: Fn(usize) -> NcResult<bool> + Sync + Send,
{
    if !parallel || n < 2 {
        return (0..n).try_fold(false, |a, i| Ok(a | work(i)?));
    }
    let pool = if store.io_bound() { &IO_POOL } else { &CPU_POOL };
    pool.get().install(|| (0..n).into_par_iter().map(work).try_reduce(|| false, |a, b| Ok(a | b)))
}

/// The longest a dimension may be, and so grow by a write: Zarr's shape is
/// JSON that numpy and other readers hold as i64 (`def_dim` refuses longer
/// ones, `NC_EDIMSIZE`).
pub const MAX_DIM_LEN: u64 = i64::MAX as u64;

/// What [`Dataset::read_shard`] reads with.
struct ShardRead<'a> {
    /// The variable's (inner) chunks.
    lay: &'a ChunkLayout,
    sh: &'a Sharded,
    cache: &'a ChunkCache,
    slab: &'a Slab,
    /// Decoded inner chunks are cached (the request is small enough).
    keep: bool,
    /// Chunks may be worked on in parallel (the memory map is disjoint).
    parallel: bool,
}

/// A codec's failure on chunk `key` (`NC_ENOMEM` for memory, else `NC_EFILTER`).
fn codec_failure(key: &StoreKey, e: crate::codec::CodecError) -> NcError {
    let code = if matches!(e, crate::codec::CodecError::NoMemory(_)) { NC_ENOMEM } else { NC_EFILTER };
    NcError::with(code, format!("chunk {key}: {e}"))
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
fn shard_index_key(shard: &StoreKey) -> NcResult<StoreKey> {
    Ok(shard.child(".index")?)
}

fn inner_chunk_key(shard: &StoreKey, n: usize) -> NcResult<StoreKey> {
    Ok(shard.child(&format!(".{n}"))?)
}

/// A read touching at most this fraction of a chunk, in at most
/// `PARTIAL_READ_RUNS` runs, reads byte ranges of an uncompressed chunk
/// instead of the whole chunk.
const PARTIAL_READ_FRACTION: u64 = 8;
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

/// `NC_ENOMEM` for a buffer of `n` bytes that is over the limit or cannot be had.
fn no_memory(what: &str, n: u64) -> NcError {
    let limit = crate::limits::limits().max_chunk_bytes;
    NcError::with(NC_ENOMEM, format!("{what}: {n} bytes (limit {limit}, NCZARR_RS_MAX_CHUNK_BYTES)"))
}

/// How strings are laid out in a chunk.
#[derive(Debug, Clone, Copy, PartialEq)]
enum StrKind {
    None,
    /// `|Sn`: n bytes, NUL padded.
    Fixed(usize),
    /// `<Un`: n UCS-4 code units.
    Ucs4(usize, bool),
    /// `|O` with `vlen-utf8`/`vlen-bytes`: a decoded chunk is one cell per
    /// element (see [`VLEN_CELL`]) followed by the bytes the cells point into.
    Vlen,
}

/// A decoded variable-length element: offset and length (native u64s) into
/// the bytes after the chunk's cells; offset `u64::MAX` is the fill value.
const VLEN_CELL: usize = 16;
const VLEN_FILL: u64 = u64::MAX;

fn vlen_cell(off: u64, len: u64) -> [u8; VLEN_CELL] {
    let mut c = [0u8; VLEN_CELL];
    c[..8].copy_from_slice(&off.to_ne_bytes());
    c[8..].copy_from_slice(&len.to_ne_bytes());
    c
}

/// What chunk I/O needs to know about a variable: chunk shape and strides,
/// element size and byte order, fill value, key prefix, codecs. (Not
/// `model::Layout`, which is the metadata format of a dataset.)
///
/// A variable with shards (Zarr v3 `sharding_indexed`) has two: its
/// chunks, the inner chunks, which reads fetch and decode alone and the
/// cache holds; and its shards ([`Sharded::storage`]), the objects of the
/// store, which writes encode whole (read-modify-write of a shard).
#[derive(Clone)]
struct ChunkLayout {
    ftype: NcType,
    esize: usize,
    shape: Vec<u64>,
    chunks: Vec<u64>,
    cstrides: Vec<u64>,
    celems: usize,
    swap: bool,
    chunk_keys: super::format::ChunkKeys,
    key: StoreKey,
    fill: Vec<u8>,
    /// The fill string of a variable-length string variable.
    fill_str: String,
    strkind: StrKind,
    /// The codec chain, if the variable has codecs this build can run.
    chain: Option<Arc<crate::codec::Chain>>,
    /// Why the codecs cannot run (unknown or bad codec): data access fails.
    codec_err: Option<NcError>,
    /// The variable's chunks are inner chunks of shards.
    shard: Option<Box<Sharded>>,
}

/// A variable's [`ChunkLayout`] as the data path last built it, with the
/// dataset's metadata count ([`Dataset::touch`]) it was built at. Used
/// again while that count and the variable's shape are unchanged (a write
/// may grow an unlimited dimension, a merge may take another writer's
/// length), so a loop of one-element calls does not rebuild it (its fill
/// value, codec chain, key and strides) every time. A clone is empty.
#[derive(Default)]
pub struct LayoutSlot(Mutex<Option<(u64, Arc<ChunkLayout>)>>);

impl Clone for LayoutSlot {
    fn clone(&self) -> Self {
        LayoutSlot::default()
    }
}

impl std::fmt::Debug for LayoutSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("LayoutSlot")
    }
}

/// A variable's shards, for [`ChunkLayout`].
#[derive(Clone)]
struct Sharded {
    /// The sharding codec (inner chunks' codecs, index, fill).
    codec: Arc<crate::codec::sharding::Sharding>,
    /// Inner chunks per shard, per dimension.
    ratio: Vec<u64>,
    /// The layout of whole shards: chunks of the shard shape, whose codec
    /// is the sharding codec.
    storage: ChunkLayout,
}

/// Element strides within a chunk of shape `chunks` (C or Fortran order)
/// and its number of elements (`NC_EBADCHUNK` when its bytes overflow).
fn chunk_strides(chunks: &[u64], order_f: bool, esize: usize) -> NcResult<(Vec<u64>, usize)> {
    let mut cstrides = vec![0u64; chunks.len()];
    let mut acc = Some(1u64);
    let order: Vec<usize> = if order_f { (0..chunks.len()).collect() } else { (0..chunks.len()).rev().collect() };
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

impl ChunkLayout {
    fn new(ds: &Dataset, gid: usize, varid: usize) -> NcResult<ChunkLayout> {
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
        let (cstrides, celems) = chunk_strides(&chunks, v.order_f, esize)?;
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
        let lay = ChunkLayout {
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
            Some(sh) if !v.is_scalar() => lay.with_shards(sh),
            _ => Ok(lay),
        }
    }

    /// Adds the shards of `sh` to the layout of a variable's (inner) chunks.
    fn with_shards(mut self, sh: &super::model::Shard) -> NcResult<ChunkLayout> {
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
        (storage.cstrides, storage.celems) = chunk_strides(&sh.shape, false, self.esize)?;
        storage.chunks = sh.shape.clone();
        storage.chain = Some(crate::codec::Chain::of(vec![codec.clone()]));
        let ratio = sh.shape.iter().zip(&self.chunks).map(|(s, c)| s / c).collect();
        self.shard = Some(Box::new(Sharded { codec, ratio, storage }));
        Ok(self)
    }

    /// The layout of the objects of the store: the shards of a variable
    /// that has them, else its chunks.
    fn storage(&self) -> &ChunkLayout {
        self.shard.as_ref().map_or(self, |s| &s.storage)
    }

    /// Drops from the cache what it holds of shard `key`'s index and inner
    /// chunks (the shard is about to change).
    fn forget_inner(&self, cache: &ChunkCache, key: &StoreKey) -> NcResult<()> {
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
    fn chunk_key(&self, parts: &[Part]) -> NcResult<StoreKey> {
        let idx: Vec<u64> = parts.iter().map(|p| p.chunk).collect();
        self.chunk_keys.key(&self.key, &idx)
    }

    /// Whether `runs` are a small part of a chunk (at most one in
    /// [`PARTIAL_READ_FRACTION`] of its elements).
    fn small_part(&self, runs: &Runs<'_>) -> bool {
        runs.elements() * PARTIAL_READ_FRACTION <= self.celems as u64
    }

    /// Bytes of a decoded chunk.
    fn chunk_bytes(&self) -> usize {
        self.celems * self.esize
    }

    /// A decoded chunk may be held in memory (`NC_ENOMEM` past the limit).
    fn check_chunk_size(&self, key: &StoreKey) -> NcResult<()> {
        if self.chunk_bytes() as u64 > crate::limits::limits().max_chunk_bytes {
            return Err(no_memory(&format!("chunk {key}"), self.chunk_bytes() as u64));
        }
        Ok(())
    }

    fn fill_chunk(&self, key: &StoreKey) -> NcResult<Vec<u8>> {
        let mut buf = Vec::new();
        self.fill_into(key, &mut buf)?;
        Ok(buf)
    }

    /// `Err` if the variable's codecs cannot run in this build.
    fn check_codecs(&self) -> NcResult<()> {
        match &self.codec_err {
            Some(e) => Err(e.clone()),
            None => Ok(()),
        }
    }

    /// Chunks are stored as raw bytes (no codecs): byte ranges can be read
    /// and written directly.
    fn raw(&self) -> bool {
        self.chain.is_none() && self.codec_err.is_none() && self.strkind != StrKind::Vlen
    }

    /// Stored bytes of a variable-length chunk -> its cells and bytes.
    fn decode_vlen(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
        self.check_codecs()?;
        self.check_chunk_size(key)?;
        let limit = usize::try_from(crate::limits::limits().max_chunk_bytes).unwrap_or(usize::MAX);
        let items = match &self.chain {
            Some(c) => c.decode_unsized(&bytes, limit),
            None => Ok(bytes),
        };
        let err = |e: crate::codec::CodecError| codec_failure(key, e);
        let items = items.map_err(err)?;
        let ranges = crate::codec::vlen::decode(&items, self.celems).map_err(err)?;
        let mut out = Vec::new();
        crate::limits::try_reserve(&mut out, self.chunk_bytes() + items.len())
            .map_err(|_| no_memory(&format!("chunk {key}"), (self.chunk_bytes() + items.len()) as u64))?;
        for r in ranges {
            out.extend_from_slice(&vlen_cell(r.start as u64, r.len() as u64));
        }
        out.extend_from_slice(&items);
        Ok(out)
    }

    /// Writes the caller's strings of `runs` into a variable-length chunk.
    /// Variable-length chunks are not kept dirty in the cache (a cell points
    /// into its own chunk's bytes, so cells cannot be merged into another
    /// version of the chunk): the chunk is read unless the slab covers it
    /// (`full`), changed, encoded and written at once, on the condition that
    /// it is still the version read; on a conflict, again from the chunk as
    /// stored then.
    fn put_vlen(&self, store: &dyn Store, key: &StoreKey, runs: &Runs, strings: &[String], full: bool) -> NcResult<()> {
        self.check_codecs()?;
        self.check_chunk_size(key)?;
        let limit = usize::try_from(crate::limits::limits().max_chunk_bytes).unwrap_or(usize::MAX);
        let nomem = |n: usize| no_memory(&format!("chunk {key}"), n as u64);
        let codec_err = |e: crate::codec::CodecError| match e {
            crate::codec::CodecError::NoMemory(n) => nomem(n),
            e => NcError::with(NC_EFILTER, format!("chunk {key}: {e}")),
        };
        for attempt in 0..WRITE_BACK_ATTEMPTS {
            let (stored, expected) = if full {
                (None, None)
            } else {
                match store.get_versioned(key)? {
                    Some((bytes, v)) => (Some(self.decode_vlen(key, bytes)?), Some(Some(v))),
                    None => (None, Some(None)),
                }
            };
            let mut items: Vec<&[u8]> = Vec::new();
            items.try_reserve_exact(self.celems).map_err(|_| nomem(self.chunk_bytes()))?;
            match &stored {
                Some(chunk) => {
                    let (cells, arena) = chunk.split_at(self.chunk_bytes());
                    for cell in cells.chunks_exact(VLEN_CELL) {
                        let off = u64::from_ne_bytes(cell[..8].try_into().expect("8 bytes")) as usize;
                        let len = u64::from_ne_bytes(cell[8..].try_into().expect("8 bytes")) as usize;
                        items.push(arena.get(off..off.saturating_add(len)).unwrap_or_default());
                    }
                }
                None => items.resize(self.celems, self.fill_str.as_bytes()),
            }
            runs.for_each(|run| {
                for i in 0..run.n {
                    items[run.chunk + i] = strings[run.mem + i].as_bytes();
                }
            });
            let encoded = crate::codec::vlen::encode(items.iter().copied(), limit).map_err(codec_err)?;
            let encoded = match &self.chain {
                Some(c) => c.encode(&encoded).map_err(codec_err)?,
                None => encoded,
            };
            match expected {
                None => {
                    store.set(key, &encoded)?;
                    return Ok(());
                }
                Some(exp) => match store.put_if(key, &encoded, exp.as_ref()) {
                    Ok(_) => return Ok(()),
                    Err(crate::map::MapError::Conflict(_)) => {}
                    Err(e) => return Err(e.into()),
                },
            }
            if attempt > 0 {
                std::thread::sleep(std::time::Duration::from_micros(50 << attempt.min(10)));
            }
        }
        Err(NcError::with(
            NC_EIO,
            format!(
                "chunk {key}: other writers changed it {WRITE_BACK_ATTEMPTS} times while this one wrote its strings"
            ),
        ))
    }

    /// One element of a decoded variable-length chunk (`arena`: the bytes
    /// after the chunk's cells).
    fn vlen_string(&self, cell: &[u8], arena: &[u8]) -> String {
        let off = u64::from_ne_bytes(cell[..8].try_into().expect("8 bytes"));
        let len = u64::from_ne_bytes(cell[8..16].try_into().expect("8 bytes"));
        if off == VLEN_FILL {
            return self.fill_str.clone();
        }
        let b = arena.get(off as usize..(off + len) as usize).unwrap_or_default();
        String::from_utf8_lossy(b).into_owned()
    }

    /// Undoes the codecs of a stored chunk.
    fn uncompress(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
        self.check_codecs()?;
        self.check_chunk_size(key)?;
        match &self.chain {
            Some(c) => c.decode(&bytes, self.chunk_bytes()).map_err(|e| codec_failure(key, e)),
            None => Ok(bytes),
        }
    }

    /// Store bytes -> native chunk.
    fn decode(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
        if self.strkind == StrKind::Vlen {
            return self.decode_vlen(key, bytes);
        }
        let mut bytes = self.uncompress(key, bytes)?;
        if bytes.len() != self.celems * self.esize {
            return Err(NcError::with(
                NC_ENCZARR,
                format!("chunk {key} has {} bytes, not {}", bytes.len(), self.celems * self.esize),
            ));
        }
        if self.swap {
            swap_bytes(&mut bytes, self.esize);
        }
        Ok(bytes)
    }

    /// Decodes a chunk read into a buffer, in place when it has no codecs.
    fn decode_in_place(&self, key: &StoreKey, bytes: &mut Vec<u8>) -> NcResult<()> {
        if self.strkind == StrKind::Vlen {
            *bytes = self.decode_vlen(key, std::mem::take(bytes))?;
            return Ok(());
        }
        self.check_codecs()?;
        self.check_chunk_size(key)?;
        if let Some(c) = &self.chain {
            // into the thread's second buffer, which then trades places
            // with `bytes`: nothing allocated per chunk
            with_buf(&DECODE_BUF, |out| -> NcResult<()> {
                c.decode_into(bytes, self.chunk_bytes(), out).map_err(|e| codec_failure(key, e))?;
                std::mem::swap(bytes, out);
                Ok(())
            })?;
        }
        if bytes.len() != self.celems * self.esize {
            return Err(NcError::with(
                NC_ENCZARR,
                format!("chunk {key} has {} bytes, not {}", bytes.len(), self.celems * self.esize),
            ));
        }
        if self.swap {
            swap_bytes(bytes, self.esize);
        }
        Ok(())
    }

    /// Fills `buf` with a chunk of fill values (`NC_ENOMEM` past the chunk
    /// limit or when the memory cannot be had).
    fn fill_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> NcResult<()> {
        self.check_chunk_size(key)?;
        buf.clear();
        crate::limits::try_reserve(buf, self.chunk_bytes())
            .map_err(|_| no_memory(&format!("chunk {key}"), self.chunk_bytes() as u64))?;
        if self.fill.iter().all(|&b| b == 0) {
            buf.resize(self.chunk_bytes(), 0);
        } else {
            for _ in 0..self.celems {
                buf.extend_from_slice(&self.fill);
            }
        }
        Ok(())
    }

    /// Native chunk -> store bytes.
    fn encode<'a>(&self, key: &StoreKey, data: &'a [u8]) -> NcResult<Cow<'a, [u8]>> {
        self.check_codecs()?;
        let native: Cow<[u8]> = if self.swap {
            let mut b = data.to_vec();
            swap_bytes(&mut b, self.esize);
            Cow::Owned(b)
        } else {
            Cow::Borrowed(data)
        };
        match &self.chain {
            Some(c) => {
                Ok(Cow::Owned(c.encode(&native).map_err(|e| NcError::with(NC_EFILTER, format!("chunk {key}: {e}")))?))
            }
            None => Ok(native),
        }
    }

    /// Native chunk -> store bytes, written.
    fn encode_and_write(&self, store: &dyn Store, key: &StoreKey, data: &[u8]) -> NcResult<()> {
        store.set(key, &self.encode(key, data)?)?;
        Ok(())
    }

    /// Writes back a dirty chunk of the cache. All of it changed: written
    /// as it is. Else a conditional write on the stored chunk it was made
    /// from; if another writer changed that chunk since (or it is not
    /// known), the elements this writer changed are merged into the chunk
    /// as stored now, and written on that condition, until one holds.
    fn write_back(&self, store: &dyn Store, key: &StoreKey, d: Dirty<'_>) -> NcResult<Option<Base>> {
        if d.mask.is_full() {
            self.encode_and_write(store, key, d.data)?;
            return Ok(Some(Base::Unknown));
        }
        let mut expected: Option<Option<Version>> = d.base.expected().map(|v| v.cloned());
        let mut merged = Cow::Borrowed(d.data);
        for attempt in 0..WRITE_BACK_ATTEMPTS {
            if let Some(exp) = &expected {
                match store.put_if(key, &self.encode(key, &merged)?, exp.as_ref()) {
                    // `merged` is still the cached copy only if nothing was merged
                    Ok(v) => return Ok(matches!(merged, Cow::Borrowed(_)).then_some(Base::At(v))),
                    Err(crate::map::MapError::Conflict(_)) => {}
                    Err(e) => return Err(e.into()),
                }
                if attempt > 0 {
                    // writers that keep colliding: let the others through
                    std::thread::sleep(std::time::Duration::from_micros(50 << attempt.min(10)));
                }
            }
            let (mut now, version) = match store.get_versioned(key)? {
                Some((bytes, v)) => (self.decode(key, bytes)?, Some(v)),
                None => (self.fill_chunk(key)?, None),
            };
            d.mask.overlay(&mut now, d.data);
            merged = Cow::Owned(now);
            expected = Some(version);
        }
        Err(NcError::with(
            NC_EIO,
            format!(
                "chunk {key}: other writers changed it {WRITE_BACK_ATTEMPTS} times while this one merged its values"
            ),
        ))
    }
}

/// How often a write-back merges again when other writers keep changing
/// the chunk under it, before it gives up (`NC_EIO`).
const WRITE_BACK_ATTEMPTS: u32 = 64;
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

/// The caller's buffer of `len` bytes (strings for `NC_STRING`) holds every
/// element the slab's memory map reaches (`NC_EINVAL` if not).
fn check_buffer(slab: &Slab, len: usize, memtype: NcType) -> NcResult<()> {
    let size = if memtype == NC_STRING { 1 } else { elem_size(memtype) as u64 };
    match slab.mem_extent().and_then(|n| n.checked_mul(size)) {
        Some(need) if need <= len as u64 => Ok(()),
        _ => Err(NcError::with(NC_EINVAL, "the buffer is smaller than the slab's memory map")),
    }
}

fn decode_string(kind: StrKind, b: &[u8]) -> String {
    match kind {
        StrKind::Ucs4(_, big) => b
            .chunks_exact(4)
            .map(|c| {
                let a: [u8; 4] = c.try_into().expect("4 bytes");
                if big {
                    u32::from_be_bytes(a)
                } else {
                    u32::from_le_bytes(a)
                }
            })
            .take_while(|&u| u != 0)
            .map(|u| char::from_u32(u).unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect(),
        _ => {
            let end = b.iter().position(|&x| x == 0).unwrap_or(b.len());
            String::from_utf8_lossy(&b[..end]).into_owned()
        }
    }
}

fn encode_string(kind: StrKind, s: &str, out: &mut [u8]) {
    out.fill(0);
    match kind {
        StrKind::Ucs4(n, big) => {
            for (i, ch) in s.chars().take(n).enumerate() {
                let b = if big { (ch as u32).to_be_bytes() } else { (ch as u32).to_le_bytes() };
                out[4 * i..4 * i + 4].copy_from_slice(&b);
            }
        }
        _ => {
            // Silent truncation (spec Appendix H), at a character boundary.
            let mut end = s.len().min(out.len());
            while !s.is_char_boundary(end) {
                end -= 1;
            }
            out[..end].copy_from_slice(&s.as_bytes()[..end]);
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

fn type_check(v: &Var, memtype: NcType) -> NcResult<()> {
    let (vs, ms) = (v.nctype == NC_STRING, memtype == NC_STRING);
    if vs != ms {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if !(NC_BYTE..=NC_STRING).contains(&memtype) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if (v.nctype == NC_CHAR) != (memtype == NC_CHAR) {
        return Err(NcError::new(NC_ECHAR));
    }
    Ok(())
}

impl Dataset {
    /// The chunk layout of variable `varid` of group `gid` (which exists):
    /// the cached one if still current, else built and cached.
    fn chunk_layout(&self, gid: usize, varid: usize) -> NcResult<Arc<ChunkLayout>> {
        let v = &self.groups[gid].vars[varid];
        let lock = || v.layout.0.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((generation, lay)) = &*lock() {
            let same_shape = v.is_scalar()
                || (lay.shape.len() == v.dimids.len()
                    && v.dimids.iter().zip(&lay.shape).all(|(&d, &n)| self.dims[d].len == n));
            if *generation == self.meta_gen && same_shape {
                return Ok(lay.clone());
            }
        }
        let lay = Arc::new(ChunkLayout::new(self, gid, varid)?);
        *lock() = Some((self.meta_gen, lay.clone()));
        Ok(lay)
    }

    /// Resolves and checks a hyperslab (netCDF-C's rules): NULL start is
    /// all zeros, NULL count the rest of each dimension, NULL stride ones,
    /// NULL map the dense C order of `count`. A write may extend unlimited
    /// dimensions (see [`Dataset::check_slab`]).
    #[allow(clippy::too_many_arguments)]
    pub fn slab(
        &self,
        gid: usize,
        varid: i32,
        start: Option<&[u64]>,
        count: Option<&[u64]>,
        stride: Option<&[i64]>,
        imap: Option<&[i64]>,
        for_write: bool,
    ) -> NcResult<Slab> {
        let v = self.var(gid, varid)?;
        if v.is_scalar() {
            let one = |x: u64| PerDim::from_elem(x, 1);
            return Ok(Slab { start: one(0), count: one(1), stride: one(1), imap: one(1), dense: true });
        }
        let nd = v.dimids.len();
        let wrong_rank = |n: Option<usize>| n.is_some_and(|n| n != nd);
        if wrong_rank(start.map(<[u64]>::len))
            || wrong_rank(count.map(<[u64]>::len))
            || wrong_rank(stride.map(<[i64]>::len))
            || wrong_rank(imap.map(<[i64]>::len))
        {
            return Err(NcError::with(NC_EINVAL, "one entry per dimension is needed"));
        }
        let start: PerDim<u64> = start.map_or_else(|| PerDim::from_elem(0, nd), PerDim::from_slice);
        let mut stride_v: PerDim<u64> = PerDim::from_elem(1, nd);
        if let Some(s) = stride {
            for d in 0..nd {
                if s[d] <= 0 || s[d] > i32::MAX as i64 {
                    return Err(NcError::new(NC_ESTRIDE));
                }
                stride_v[d] = s[d] as u64;
            }
        }
        let count: PerDim<u64> = match count {
            Some(c) => PerDim::from_slice(c),
            None => v.dimids.iter().zip(&start).map(|(&d, &s)| self.dims[d].len.saturating_sub(s)).collect(),
        };
        let (imap_v, dense) = match imap {
            Some(m) => {
                if m.iter().any(|&x| x < 0) {
                    return Err(NcError::with(NC_EINVAL, "negative memory map"));
                }
                (m.iter().map(|&x| x as u64).collect::<PerDim<_>>(), false)
            }
            None => {
                let mut im: PerDim<u64> = PerDim::from_elem(1, nd);
                for d in (0..nd.saturating_sub(1)).rev() {
                    im[d] = im[d + 1].saturating_mul(count[d + 1]);
                }
                (im, true)
            }
        };
        let slab = Slab { start, count, stride: stride_v, imap: imap_v, dense };
        self.check_slab(v, &slab, for_write)?;
        Ok(slab)
    }

    /// Checks a resolved slab against variable `v`'s dimensions, with
    /// netCDF-C's codes: a start past a dimension's end is
    /// `NC_EINVALCOORDS`, a last position past it `NC_EEDGE` (also when it
    /// does not fit a u64), a stride of 0 `NC_ESTRIDE`. A write may extend
    /// an unlimited dimension, up to [`MAX_DIM_LEN`]: a write reaching past
    /// that, or past the largest u64, is `NC_ENOMEM`, as netCDF-C 4.10.1
    /// answers a write whose end overflows (it accepts one that ends past
    /// `i64::MAX`, and then cannot open what it wrote). A slab of more
    /// elements than the address space holds is `NC_EEDGE`, a memory map
    /// that reaches past it `NC_EINVAL`. [`Dataset::get_slab`] and
    /// [`Dataset::put_slab`] check their slab again, so a slab made by hand
    /// gets the same answers, never a panic.
    fn check_slab(&self, v: &Var, slab: &Slab, for_write: bool) -> NcResult<()> {
        // (a scalar is one element of a fixed dimension of length 1)
        let nd = v.dimids.len().max(1);
        let dim = |d: usize| v.dimids.get(d).map_or((1, false), |&id| (self.dims[id].len, self.dims[id].unlimited));
        if [&slab.start, &slab.count, &slab.stride, &slab.imap].iter().any(|x| x.len() != nd) {
            return Err(NcError::with(NC_EINVAL, "one entry per dimension is needed"));
        }
        if slab.stride.contains(&0) {
            return Err(NcError::new(NC_ESTRIDE));
        }
        for d in 0..nd {
            let (len, unlimited) = dim(d);
            if slab.start[d] > len && !(for_write && unlimited) {
                return Err(NcError::new(NC_EINVALCOORDS));
            }
        }
        for d in 0..nd {
            let (len, unlimited) = dim(d);
            if slab.count[d] == 0 {
                continue;
            }
            if for_write && unlimited {
                match slab.end(d) {
                    Some(end) if end <= MAX_DIM_LEN => {}
                    _ => {
                        return Err(NcError::with(
                            NC_ENOMEM,
                            format!(
                                "a write past index {MAX_DIM_LEN} of unlimited dimension {}: \
                                 longer than a dimension can be",
                                self.dims[v.dimids[d]].name
                            ),
                        ))
                    }
                }
                continue;
            }
            if slab.start[d] == len {
                return Err(NcError::new(NC_EINVALCOORDS));
            }
            if slab.end(d).is_none_or(|end| end > len) {
                return Err(NcError::new(NC_EEDGE));
            }
        }
        let total = slab.count.iter().try_fold(1u64, |a, &c| a.checked_mul(c)).ok_or(NcError::new(NC_EEDGE))?;
        if total > isize::MAX as u64 {
            return Err(NcError::new(NC_EEDGE));
        }
        // The caller's buffer (mem_elems elements of up to 8 bytes) must be
        // addressable: a memory map may not overflow it.
        match slab.mem_extent() {
            Some(n) if n <= (isize::MAX as u64) / 8 => Ok(()),
            _ => Err(NcError::with(NC_EINVAL, "the memory map addresses more than the address space")),
        }
    }

    /// Fetches and decodes one chunk: cache, else store, else fill.
    fn load_chunk(&self, lay: &ChunkLayout, cache: &ChunkCache, key: &StoreKey, keep: bool) -> NcResult<Arc<Vec<u8>>> {
        if let Some(c) = cache.get(key) {
            return Ok(c);
        }
        let (data, base) = match self.store.get_versioned(key)? {
            Some((bytes, v)) => (Arc::new(lay.decode(key, bytes)?), Base::At(v)),
            None => return Ok(Arc::new(lay.fill_chunk(key)?)),
        };
        if keep {
            cache.insert_clean(key.clone(), data.clone(), base);
        }
        Ok(data)
    }

    /// Reads the slab's positions in one shard (`parts`, of the shard
    /// grid): from the shard itself when the cache holds it (a writer's);
    /// else inner chunk by inner chunk, each from the cache, or decoded
    /// from the store: when most of the shard is wanted from one read of
    /// the whole shard, else from its index (cached) and byte-range reads
    /// of just the inner chunks needed. Returns whether a value was out of
    /// range.
    fn read_shard(
        &self,
        rd: &ShardRead<'_>,
        parts: &[Part],
        copy_out: &(dyn Fn(&[u8], &Runs<'_>) -> bool + Sync),
        emit_fill: &(dyn Fn(Run) -> bool + Sync),
    ) -> NcResult<bool> {
        let (lay, sh, cache, slab) = (rd.lay, rd.sh, rd.cache, rd.slab);
        let st = &sh.storage;
        let key = st.chunk_key(parts)?;
        if let Some(shard) = cache.get(&key) {
            return Ok(copy_out(&shard, &Runs::new(slab, &st.cstrides, parts)));
        }
        let inner = Grid::within(slab, parts, &lay.chunks)?;
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
        let (lay, sh, cache, slab) = (rd.lay, rd.sh, rd.cache, rd.slab);
        let fill_runs = |runs: &Runs<'_>| {
            let mut r = false;
            runs.for_each(|run| r |= emit_fill(run));
            r
        };
        let fill_all =
            || (0..inner.len()).fold(false, |a, j| a | fill_runs(&Runs::new(slab, &lay.cstrides, &inner.chunk(j))));
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
            let runs = Runs::new(slab, &lay.cstrides, &parts);
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
            let small = lay.small_part(&runs);
            if !lay.swap && !small && !self.store.io_bound() {
                if let Some(as_stored) = sh.codec.inner_as_stored(&stored) {
                    return Ok(copy_out(as_stored.map_err(|e| codec_failure(key, e))?, &runs));
                }
            }
            let mut chunk = sh.codec.decode_inner(&stored).map_err(|e| codec_failure(key, e))?;
            if lay.swap {
                swap_bytes(&mut chunk, lay.esize);
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

    /// Where one element of a plain chunked numeric variable is: its
    /// variable's layout, its chunk's key and its offset (in elements) in
    /// the chunk. `None` when a one-element call at `index` is not that
    /// simple case (a string, aggregated, sharded, scalar or unreadable
    /// variable, a memory type that does not go with it, an index outside
    /// the variable's shape, a layout that fails): the general path then
    /// gives the answer, errors included.
    fn one_element(
        &self,
        gid: usize,
        varid: i32,
        index: &[u64],
        memtype: NcType,
    ) -> NcResult<Option<(Arc<ChunkLayout>, StoreKey, usize)>> {
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
        let Ok(lay) = self.chunk_layout(gid, varid as usize) else { return Ok(None) };
        if lay.shard.is_some() || lay.strkind != StrKind::None || lay.codec_err.is_some() {
            return Ok(None);
        }
        let (mut idx, mut at): (PerDim<u64>, u64) = (PerDim::new(), 0);
        for (d, &i) in index.iter().enumerate() {
            let c = lay.chunks[d].max(1);
            idx.push(i / c);
            at += (i % c) * lay.cstrides[d];
        }
        let key = lay.chunk_keys.key(&lay.key, &idx)?;
        Ok(Some((lay, key, at as usize)))
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
        let Some((lay, key, at)) = self.one_element(gid, varid, index, memtype)? else { return Ok(None) };
        let cache = &self.groups[gid].vars[varid as usize].cache;
        let es = lay.esize;
        let got = cache
            .read(&key, |chunk| chunk.get(at * es..(at + 1) * es).map(|src| convert(lay.ftype, src, memtype, out, 1)));
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
        if !self.writable || self.define_mode {
            return Ok(None);
        }
        let Some((lay, key, at)) = self.one_element(gid, varid, index, memtype)? else { return Ok(None) };
        let v = &self.groups[gid].vars[varid as usize];
        if v.quantize.is_on() || input.len() != elem_size(memtype) {
            return Ok(None);
        }
        let es = lay.esize;
        let mark = |mask: &mut DirtyMask| mask.mark(at, 1);
        let put = v.cache.update_dirty(&key, &mark, |chunk| {
            chunk.get_mut(at * es..(at + 1) * es).map(|dst| convert(memtype, input, lay.ftype, dst, 1))
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
        // an aggregated variable: its partitions, not chunks of this store
        if let Some(src) = &v.source {
            return src.read(slab, out);
        }
        let lay = self.chunk_layout(gid, varid as usize)?;
        let grid = Grid::new(slab, &lay.chunks)?;
        let cache = v.cache.clone();
        let keep = grid.len().saturating_mul(lay.chunk_bytes()) <= cache.config().size;
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
                convert(lay.ftype, src, memtype, dst, n)
            } else if let Some(out) = &str_out {
                // SAFETY: as above.
                let dst = unsafe { out.slice(moff, n) };
                for (i, s) in dst.iter_mut().enumerate() {
                    let cell = &src[i * lay.esize..(i + 1) * lay.esize];
                    *s = if lay.strkind == StrKind::Vlen {
                        lay.vlen_string(cell, arena)
                    } else {
                        decode_string(lay.strkind, cell)
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
            let piece = (FILL_PIECE_BYTES / lay.esize.max(1)).clamp(1, run.n);
            let block = lay.fill.repeat(piece);
            let (mut r, mut done) = (false, 0);
            while done < run.n {
                let m = piece.min(run.n - done);
                r |= emit(run.mem + done, &block[..m * lay.esize], m, &[]);
                done += m;
            }
            r
        };
        let copy_out = |chunk: &[u8], runs: &Runs| -> bool {
            let mut r = false;
            let arena = chunk.get(lay.chunk_bytes()..).unwrap_or_default();
            runs.for_each(|run| {
                r |= emit(run.mem, &chunk[run.chunk * lay.esize..(run.chunk + run.n) * lay.esize], run.n, arena);
            });
            r
        };
        if v.shard.is_some() && lay.shard.is_none() {
            // shards whose codecs cannot run: never read as plain chunks
            lay.check_codecs()?;
        }
        if let Some(sh) = &lay.shard {
            let shards = Grid::new(slab, &sh.storage.chunks)?;
            let parallel = slab.disjoint();
            let r = any_chunks(&*self.store, shards.len(), parallel, |i| {
                let read = ShardRead { lay: &lay, sh, cache: &cache, slab, keep, parallel };
                self.read_shard(&read, &shards.chunk(i), &copy_out, &emit_fill)
            })?;
            return range_result(r);
        }
        let work = |i: usize| -> NcResult<()> {
            let parts = grid.chunk(i);
            let key = lay.chunk_key(&parts)?;
            let runs = Runs::new(slab, &lay.cstrides, &parts);
            let small = lay.small_part(&runs);
            // Not kept: most of a chunk that is the stored bytes as they are,
            // on a local store. Reading it again costs one read of the
            // system's page cache; keeping it, a copy of it in memory (a
            // whole-variable read that fits the cache spent a third of its
            // time faulting in fresh pages for the copies).
            let keep = keep && !(lay.raw() && !small && !self.store.io_bound());
            let r = if let Some(chunk) = cache.get(&key) {
                copy_out(&chunk, &runs)
            } else if lay.raw()
                && small
                && runs.count() <= PARTIAL_READ_RUNS
                && !(keep && cache.count_partial_read(&key, 1 + lay.chunk_bytes() as u64 / PARTIAL_READ_RENT))
            {
                // A small read of an uncompressed chunk: only the bytes needed.
                let mut spans = Vec::with_capacity(runs.count() as usize);
                runs.for_each(|run| spans.push(run));
                let mut r = false;
                for run in spans {
                    let (off, len) = ((run.chunk * lay.esize) as u64, (run.n * lay.esize) as u64);
                    let got = self.store.get_range(&key, off, len).map_err(|e| match e {
                        crate::map::MapError::OutOfRange { .. } => {
                            NcError::with(NC_ENCZARR, format!("chunk {key} is too short"))
                        }
                        other => NcError::from(other),
                    })?;
                    match got {
                        Some(mut b) => {
                            if lay.swap {
                                swap_bytes(&mut b, lay.esize);
                            }
                            r |= emit(run.mem, &b, run.n, &[]);
                        }
                        None => r |= emit_fill(run),
                    }
                }
                r
            } else if lay.check_chunk_size(&key).is_err() && self.store.size(&key)?.is_none() {
                // A chunk too large to hold that does not exist: fill values,
                // run by run, without materialising it.
                let mut r = false;
                runs.for_each(|run| r |= emit_fill(run));
                r
            } else if keep {
                let chunk = self.load_chunk(&lay, &cache, &key, true)?;
                copy_out(&chunk, &runs)
            } else {
                with_chunk_buf(|buf| -> NcResult<bool> {
                    if self.store.get_into(&key, buf)? {
                        lay.decode_in_place(&key, buf)?;
                    } else {
                        lay.fill_into(&key, buf)?;
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

    /// Writes a slab from the caller's memory. Values out of range for the
    /// variable's type are written converted and reported as `NC_ERANGE`.
    pub fn put_slab(&mut self, gid: usize, varid: i32, slab: &Slab, input: MemIn) -> NcResult<()> {
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
        // Grow unlimited dimensions first, so the layout sees the new shape
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
        let planned = self.chunk_layout(gid, varid as usize).and_then(|chunks| {
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
        let lay = chunks.storage();
        // per chunk dimension (a scalar has one, fixed)
        let mut unlimited: PerDim<bool> = dimids.iter().map(|&d| self.dims[d].unlimited).collect();
        unlimited.resize(unlimited.len().max(1), false);
        // (not through `var_mut`, which counts as a change of metadata)
        let v = &mut self.groups[gid].vars[varid as usize];
        v.has_data = true;
        let cache = v.cache.clone();
        let store = self.store.clone();
        let writer = |k: &StoreKey, d: Dirty<'_>| lay.write_back(&*store, k, d);
        let range = AtomicBool::new(false);
        let msize = if memtype == NC_STRING { 0 } else { elem_size(memtype) };
        let work = |i: usize| -> NcResult<()> {
            let parts = grid.chunk(i);
            let key = lay.chunk_key(&parts)?;
            chunks.forget_inner(&cache, &key)?;
            let runs = Runs::new(slab, &lay.cstrides, &parts);
            // Whole chunk covered (up to the array's edge)? Not past the
            // edge of an unlimited dimension: another writer may have
            // records there. Entirely inside the array?
            let (mut full, mut interior) = (true, true);
            for (d, p) in parts.iter().enumerate() {
                let begin = p.chunk.saturating_mul(lay.chunks[d]);
                let edge = if unlimited[d] { lay.chunks[d] } else { lay.shape[d].saturating_sub(begin) };
                full &= p.n == lay.chunks[d].min(edge);
                interior &= begin.saturating_add(lay.chunks[d]) <= lay.shape[d];
            }
            if lay.strkind == StrKind::Vlen {
                let MemIn::Strings(strings) = &input else { return Err(NcError::new(NC_EBADTYPE)) };
                cache.remove(&key);
                return lay.put_vlen(&*store, &key, &runs, strings, full);
            }
            // Converts the caller's values of this chunk into `chunk`.
            let fill_in = |chunk: &mut [u8]| -> bool {
                let mut r = false;
                runs.for_each(|run| {
                    let dst = &mut chunk[run.chunk * lay.esize..(run.chunk + run.n) * lay.esize];
                    match &input {
                        MemIn::Bytes { buf, .. } => {
                            let src = &buf[run.mem * msize..(run.mem + run.n) * msize];
                            r |= convert(memtype, src, lay.ftype, dst, run.n);
                            if let Some(fill) = &qfill {
                                quantize.apply(dst, fill, quantize_position(slab, run));
                            }
                        }
                        MemIn::Strings(s) => {
                            for i in 0..run.n {
                                let cell = &mut dst[i * lay.esize..(i + 1) * lay.esize];
                                encode_string(lay.strkind, &s[run.mem + i], cell);
                            }
                        }
                    }
                });
                r
            };
            // A chunk entirely inside the array has no padding to fill.
            let same = memtype == lay.ftype && lay.strkind == StrKind::None && qfill.is_none();
            if full && interior && lay.raw() && !lay.swap && same {
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
                    if tiled && next == lay.celems {
                        cache.remove(&key);
                        store.set_vectored(&key, &pieces)?;
                        return Ok(());
                    }
                }
            }
            let r = if full {
                // The whole chunk is new: no read, a reused buffer, straight to the store.
                with_chunk_buf(|buf| -> NcResult<bool> {
                    if !(interior && buf.len() == lay.chunk_bytes()) {
                        // an interior chunk is overwritten entirely below
                        lay.fill_into(&key, buf)?;
                    }
                    let r = fill_in(buf);
                    cache.remove(&key);
                    lay.encode_and_write(&*store, &key, buf)?;
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
                        Some((bytes, v)) => (lay.decode(&key, bytes)?, Base::At(v), None),
                        None => (lay.fill_chunk(&key)?, Base::Absent, None),
                    },
                };
                let mark = |mask: &mut DirtyMask| runs.for_each(|run| mask.mark(run.chunk, run.n));
                // back in the cache, dirty, if the conversion panics
                let mut unsaved = Unsaved::new(&cache, &key, taken, (lay.celems, lay.esize), &mark);
                let r = fill_in(unsaved.data());
                let (chunk, base, mask) = unsaved.finish();
                cache.insert_dirty(key, Arc::new(chunk), base, mask, (lay.celems, lay.esize), &mark, &writer)?;
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
                let lay = self.chunk_layout(gid, vid)?;
                let store = self.store.clone();
                v.cache.flush(&|k: &StoreKey, d: Dirty<'_>| lay.storage().write_back(&*store, k, d))?;
            }
        }
        Ok(())
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
        let lay = self.chunk_layout(gid, varid as usize)?;
        let store = self.store.clone();
        v.cache.set_config(config, &|k: &StoreKey, d: Dirty<'_>| lay.storage().write_back(&*store, k, d))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings() {
        let mut b = [0u8; 4];
        encode_string(StrKind::Fixed(4), "héllo", &mut b);
        assert_eq!(&b, b"h\xc3\xa9l");
        assert_eq!(decode_string(StrKind::Fixed(4), &b), "hél");
        let mut u = [0u8; 12];
        encode_string(StrKind::Ucs4(3, false), "ab", &mut u);
        assert_eq!(decode_string(StrKind::Ucs4(3, false), &u), "ab");
    }
}
