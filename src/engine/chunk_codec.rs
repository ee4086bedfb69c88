//! Chunk bytes through a variable's codecs ([`ChunkPlan`]): stored bytes
//! decoded to a native chunk (in place, into reused per-thread buffers),
//! native chunks encoded and written, chunks of fill values made, the
//! strings of a variable-length chunk written, and the write-back of a
//! dirty chunk of the cache (merged into the stored chunk when another
//! writer changed it).

use super::cache::{Base, Dirty};
use super::chunk_plan::{no_memory, ChunkPlan};
use super::convert::swap_bytes;
use super::error::*;
use super::slab::Runs;
use super::strings::{vlen_cell, StrKind, VLEN_CELL, VLEN_FILL};
use super::{NcError, NcResult};
use crate::map::{Store, StoreKey, Version};
use std::borrow::Cow;
use std::cell::RefCell;

thread_local! {
    /// A chunk buffer per worker thread, reused across chunks and calls so
    /// that bulk I/O allocates nothing per chunk (see [`with_chunk_buf`]).
    static CHUNK_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// A second one, that a chunk is decoded into from the first (then the
    /// two trade places).
    static DECODE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
    /// The buffer of [`with_page_buf`]: kept at its length (only that
    /// function uses it), so that it is zeroed once, not per chunk.
    static PAGE_BUF: RefCell<Vec<u8>> = const { RefCell::new(Vec::new()) };
}

/// A page, as far as the kernel's copies go.
const PAGE: usize = 4096;

/// Runs `f` with `len` bytes of this thread's reusable buffer, starting at
/// a page boundary (or `Err` when that memory cannot be had).
///
/// Why: the kernel copies a file's cached pages (which start on a page
/// boundary) to user memory about 3.5x slower when the destination lies 1
/// to 31 bytes past a page boundary (measured on this project's AMD EPYC
/// machine; 4K aliasing of the copy's loads and stores), and the
/// allocator's large blocks start 16 bytes past one: a 1 GiB read of raw
/// chunks took 3x HDF5's CPU time before (docs/PARALLEL.md, "Performance").
/// An over-allocation of one page, entered at its first page boundary,
/// costs nothing per chunk.
pub(super) fn with_page_buf<R>(len: usize, f: impl FnOnce(&mut [u8]) -> R) -> NcResult<R> {
    let run = |buf: &mut Vec<u8>| -> NcResult<R> {
        let want = len.checked_add(PAGE).ok_or_else(|| no_memory("a chunk buffer", len as u64))?;
        if buf.len() < want {
            buf.clear();
            crate::limits::try_reserve(buf, want).map_err(|_| no_memory("a chunk buffer", want as u64))?;
            buf.resize(want, 0);
        }
        // (`align_offset` may give up, which costs speed, not correctness)
        let at = buf.as_ptr().align_offset(PAGE).min(PAGE);
        Ok(f(&mut buf[at..at + len]))
    };
    PAGE_BUF.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => run(&mut buf),
        Err(_) => run(&mut Vec::new()),
    })
}

/// Whether the kernel copies a file's pages into memory at `p` at full
/// speed (see [`with_page_buf`]): not 1 to 63 bytes past a page boundary
/// (31 measured, twice that kept as margin).
pub(super) fn copies_fast_to(p: *const u8) -> bool {
    let past = p as usize % PAGE;
    past == 0 || past >= 64
}

/// Runs `f` with this thread's reusable chunk buffer, or with a new one
/// when that one is in use: a worker waiting inside a nested parallel step
/// (the inner chunks of a shard being encoded or decoded) may run another
/// chunk's work on the same thread meanwhile (rayon's work stealing), while
/// the first still holds the buffer.
pub(super) fn with_chunk_buf<R>(f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    with_buf(&CHUNK_BUF, f)
}

fn with_buf<R>(key: &'static std::thread::LocalKey<RefCell<Vec<u8>>>, f: impl FnOnce(&mut Vec<u8>) -> R) -> R {
    key.with(|b| match b.try_borrow_mut() {
        Ok(mut buf) => f(&mut buf),
        Err(_) => f(&mut Vec::new()),
    })
}

/// A codec's failure on chunk `key` (`NC_ENOMEM` for memory, else `NC_EFILTER`).
pub(super) fn codec_failure(key: &StoreKey, e: crate::codec::CodecError) -> NcError {
    let code = if matches!(e, crate::codec::CodecError::NoMemory(_)) { NC_ENOMEM } else { NC_EFILTER };
    NcError::with(code, format!("chunk {key}: {e}"))
}

impl ChunkPlan {
    /// Stored bytes of a variable-length chunk -> its cells and bytes.
    pub(super) fn decode_vlen(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
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
    pub(super) fn put_vlen(
        &self,
        store: &dyn Store,
        key: &StoreKey,
        runs: &Runs,
        strings: &[String],
        full: bool,
    ) -> NcResult<()> {
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
    pub(super) fn vlen_string(&self, cell: &[u8], arena: &[u8]) -> String {
        let off = u64::from_ne_bytes(cell[..8].try_into().expect("8 bytes"));
        let len = u64::from_ne_bytes(cell[8..16].try_into().expect("8 bytes"));
        if off == VLEN_FILL {
            return self.fill_str.clone();
        }
        let b = arena.get(off as usize..(off + len) as usize).unwrap_or_default();
        String::from_utf8_lossy(b).into_owned()
    }

    /// Undoes the codecs of a stored chunk.
    pub(super) fn uncompress(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
        self.check_codecs()?;
        self.check_chunk_size(key)?;
        match &self.chain {
            Some(c) => c.decode(&bytes, self.chunk_bytes()).map_err(|e| codec_failure(key, e)),
            None => Ok(bytes),
        }
    }

    /// Store bytes -> native chunk.
    pub(super) fn decode(&self, key: &StoreKey, bytes: Vec<u8>) -> NcResult<Vec<u8>> {
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
    pub(super) fn decode_in_place(&self, key: &StoreKey, bytes: &mut Vec<u8>) -> NcResult<()> {
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
    pub(super) fn fill_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> NcResult<()> {
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
    pub(super) fn encode<'a>(&self, key: &StoreKey, data: &'a [u8]) -> NcResult<Cow<'a, [u8]>> {
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
    pub(super) fn encode_and_write(&self, store: &dyn Store, key: &StoreKey, data: &[u8]) -> NcResult<()> {
        store.set(key, &self.encode(key, data)?)?;
        Ok(())
    }

    /// Writes back a dirty chunk of the cache. All of it changed: written
    /// as it is. Else a conditional write on the stored chunk it was made
    /// from; if another writer changed that chunk since (or it is not
    /// known), the elements this writer changed are merged into the chunk
    /// as stored now, and written on that condition, until one holds.
    pub(super) fn write_back(&self, store: &dyn Store, key: &StoreKey, d: Dirty<'_>) -> NcResult<Option<Base>> {
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
