//! The per-variable chunk cache: decoded chunks (native byte order) with an
//! LRU policy and a hard bound on bytes and entries, as set by
//! `nc_set_chunk_cache`/`nc_set_var_chunk_cache`.
//!
//! A chunk a writer changed is dirty: the cache keeps which elements the
//! writer changed ([`DirtyMask`]) and what the stored chunk was when the
//! cached copy was read ([`Base`]). It is written back when evicted and at
//! `nc_sync`/`nc_close` by a [`WriteBack`], which merges only the changed
//! elements into the chunk as stored then (another writer may have changed
//! others: docs/RELIABILITY.md, "Multiple writers"). A chunk larger than
//! the whole bound is never cached (it is written through), so the cache
//! never exceeds its size.
//!
//! Locking: one mutex guards the bookkeeping only. Write-backs (encoding
//! and store I/O) run outside it; a chunk being written back stays visible
//! to readers (`writing`) until it is in the store, and at most one
//! write-back of a chunk is under way at a time. Eviction is O(1): clean
//! and dirty chunks are kept in two LRU lists (the `lru` crate) and the
//! older of the two tails goes first. Reads never evict a dirty chunk, so
//! a read never writes to the store.

use super::NcResult;
use crate::map::{StoreKey, Version};
use lru::LruCache;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, RwLock};

/// Cache settings (netCDF's size, number of elements and preemption).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheConfig {
    pub size: usize,
    pub nelems: usize,
    pub preemption: f32,
}

/// netCDF-C 4.10's defaults (`DEFAULT_CHUNK_CACHE_SIZE`,
/// `DEFAULT_CHUNKS_IN_CACHE`, `DEFAULT_CHUNK_CACHE_PREEMPTION`).
pub const DEFAULT_CONFIG: CacheConfig = CacheConfig { size: 64 * 1024 * 1024, nelems: 1000, preemption: 0.75 };

/// The defaults for variables of datasets opened or created from now on.
pub static DEFAULTS: RwLock<CacheConfig> = RwLock::new(DEFAULT_CONFIG);

pub fn defaults() -> CacheConfig {
    *DEFAULTS.read().unwrap_or_else(|p| p.into_inner())
}

pub fn set_defaults(c: CacheConfig) {
    *DEFAULTS.write().unwrap_or_else(|p| p.into_inner()) = c;
}

/// What the stored chunk was when a cached copy was made from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Base {
    /// There was no stored chunk (the copy was made of fill values).
    Absent,
    /// The stored chunk at this version.
    At(Version),
    /// Not known (written unconditionally since): a write-back reads the
    /// stored chunk again before merging.
    Unknown,
}

impl Base {
    /// The version a conditional write expects (`None`: absent).
    pub fn expected(&self) -> Option<Option<&Version>> {
        match self {
            Base::Absent => Some(None),
            Base::At(v) => Some(Some(v)),
            Base::Unknown => None,
        }
    }
}

/// The elements of a chunk a writer changed (one bit per element).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirtyMask {
    bits: Vec<u64>,
    elems: usize,
    /// Bytes per element.
    esize: usize,
}

impl DirtyMask {
    /// No element changed, of `elems` elements of `esize` bytes.
    pub fn new(elems: usize, esize: usize) -> Self {
        DirtyMask { bits: vec![0; elems.div_ceil(64)], elems, esize }
    }

    /// Elements `at..at + n` changed.
    pub fn mark(&mut self, at: usize, n: usize) {
        let end = at.saturating_add(n).min(self.elems);
        let mut i = at;
        while i < end {
            let (w, b) = (i / 64, i % 64);
            let take = (64 - b).min(end - i);
            let bits = if take == 64 { u64::MAX } else { ((1u64 << take) - 1) << b };
            self.bits[w] |= bits;
            i += take;
        }
    }

    /// Adds the elements `other` marks (a mask of the same chunk).
    pub fn union(&mut self, other: &DirtyMask) {
        for (a, b) in self.bits.iter_mut().zip(&other.bits) {
            *a |= b;
        }
    }

    pub fn is_full(&self) -> bool {
        self.runs().next() == Some((0, self.elems)) || self.elems == 0
    }

    /// The changed elements as runs `(first, count)`, in order.
    pub fn runs(&self) -> impl Iterator<Item = (usize, usize)> + '_ {
        let mut i = 0usize;
        std::iter::from_fn(move || {
            let start = self.next_from(i, true)?;
            let end = self.next_from(start, false).unwrap_or(self.elems);
            i = end;
            Some((start, end - start))
        })
    }

    /// The first element at or after `i` whose bit is `set`.
    fn next_from(&self, i: usize, set: bool) -> Option<usize> {
        let mut w = i / 64;
        if w >= self.bits.len() {
            return None;
        }
        let flip = |x: u64| if set { x } else { !x };
        let mut word = flip(self.bits[w]) & (u64::MAX << (i % 64));
        loop {
            if word != 0 {
                let at = w * 64 + word.trailing_zeros() as usize;
                return (at < self.elems).then_some(at);
            }
            w += 1;
            if w >= self.bits.len() {
                return None;
            }
            word = flip(self.bits[w]);
        }
    }

    /// Copies the changed elements of `src` into `dst` (decoded chunks).
    pub fn overlay(&self, dst: &mut [u8], src: &[u8]) {
        for (at, n) in self.runs() {
            let r = at * self.esize..(at + n) * self.esize;
            dst[r.clone()].copy_from_slice(&src[r]);
        }
    }
}

/// A dirty chunk on its way to the store.
pub struct Dirty<'a> {
    pub data: &'a [u8],
    pub mask: &'a DirtyMask,
    pub base: &'a Base,
}

/// Writes one dirty chunk to the store: merges its changed elements into
/// the chunk as stored, encodes, writes. Returns `Some(base)` when the
/// store now holds exactly the chunk given, at `base`; `None` when it holds
/// a merge with other writers' elements (the cached copy is out of date).
pub type WriteBack<'a> = &'a (dyn Fn(&StoreKey, Dirty<'_>) -> NcResult<Option<Base>> + Sync);

struct Entry {
    data: Arc<Vec<u8>>,
    base: Base,
    /// Set for a dirty chunk.
    mask: Option<DirtyMask>,
    /// When last used (to compare the tails of the two lists).
    used: u64,
}

/// A dirty chunk taken out of the lists for its write-back.
struct InFlight {
    data: Arc<Vec<u8>>,
    base: Base,
    mask: Arc<DirtyMask>,
}

struct Inner {
    config: CacheConfig,
    clean: LruCache<StoreKey, Entry>,
    dirty: LruCache<StoreKey, Entry>,
    bytes: usize,
    tick: u64,
    /// Chunks being written back (evicted dirty chunks): still readable.
    writing: HashMap<StoreKey, InFlight>,
}

impl Inner {
    fn len(&self) -> usize {
        self.clean.len() + self.dirty.len()
    }

    fn next_tick(&mut self) -> u64 {
        self.tick += 1;
        self.tick
    }

    fn remove(&mut self, key: &StoreKey) -> Option<Entry> {
        let e = self.clean.pop(key).or_else(|| self.dirty.pop(key))?;
        self.bytes -= e.data.len();
        Some(e)
    }

    fn over(&self, extra_bytes: usize, extra_entries: usize) -> bool {
        self.bytes + extra_bytes > self.config.size || self.len() + extra_entries > self.config.nelems
    }

    /// Evicts least recently used chunks until `extra_bytes` more bytes and
    /// `extra_entries` more entries fit (clean ones only unless
    /// `take_dirty`). Dirty victims move to `writing` and are returned for
    /// their write-back. False if it could not make the room.
    fn make_room(
        &mut self,
        extra_bytes: usize,
        extra_entries: usize,
        take_dirty: bool,
        victims: &mut Vec<StoreKey>,
    ) -> bool {
        // a dirty chunk still being written back from an earlier eviction
        // is passed over (one write-back per chunk at a time)
        let mut passed = 0;
        while self.over(extra_bytes, extra_entries) {
            let clean_tail = self.clean.peek_lru().map(|(_, e)| e.used);
            let dirty_tail =
                if take_dirty && passed < self.dirty.len() { self.dirty.peek_lru().map(|(_, e)| e.used) } else { None };
            let from_dirty = match (clean_tail, dirty_tail) {
                (None, None) => return false,
                (Some(_), None) => false,
                (None, Some(_)) => true,
                (Some(c), Some(d)) => d < c,
            };
            if !from_dirty {
                let (_, e) = self.clean.pop_lru().expect("a tail");
                self.bytes -= e.data.len();
                continue;
            }
            let (key, e) = self.dirty.pop_lru().expect("a tail");
            if self.writing.contains_key(&key) {
                self.dirty.put(key, e);
                passed += 1;
                continue;
            }
            self.bytes -= e.data.len();
            let mask = e.mask.expect("dirty entries have a mask");
            self.writing.insert(key.clone(), InFlight { data: e.data, base: e.base, mask: Arc::new(mask) });
            victims.push(key);
        }
        true
    }
}

pub struct ChunkCache {
    inner: Mutex<Inner>,
    /// Signalled when a write-back of `writing` ends.
    written: Condvar,
    /// Byte-range reads of uncached chunks, counted per chunk
    /// ([`ChunkCache::count_partial_read`]): sets of [`PARTIAL_WAYS`]
    /// counters chosen by a hash of the key, whose high bits tag the
    /// counter, the count in the low [`COUNT_BITS`]. Allocated at the first
    /// byte-range read (a dataset of 10 000 variables has 10 000 caches).
    partial: OnceLock<Box<[AtomicU64]>>,
}

const PARTIAL_SETS: usize = 128;
/// Four ways: chunks read in part at once rarely take each other's
/// counters (with one way, 64 chunks read in turn restarted each other's
/// counts in about 8 slots, and those chunks stayed uncached).
const PARTIAL_WAYS: usize = 4;
const COUNT_BITS: u32 = 16;

impl std::fmt::Debug for ChunkCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = self.lock();
        write!(f, "ChunkCache({} chunks, {} of {} bytes)", i.len(), i.bytes, i.config.size)
    }
}

impl ChunkCache {
    pub fn new(config: CacheConfig) -> Self {
        ChunkCache {
            inner: Mutex::new(Inner {
                config,
                clean: LruCache::unbounded(),
                dirty: LruCache::unbounded(),
                bytes: 0,
                tick: 0,
                writing: HashMap::new(),
            }),
            written: Condvar::new(),
            partial: OnceLock::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn config(&self) -> CacheConfig {
        self.lock().config
    }

    /// Bytes held now (for tests and statistics).
    pub fn bytes(&self) -> usize {
        self.lock().bytes
    }

    /// A cached chunk (a clean or dirty one, or one being written back).
    pub fn get(&self, key: &StoreKey) -> Option<Arc<Vec<u8>>> {
        self.with_entry(key, Arc::clone)
    }

    /// `f` of a cached chunk (counted as a use), under the cache's lock,
    /// without handing out the chunk: for a look at a few bytes.
    pub fn read<R>(&self, key: &StoreKey, f: impl FnOnce(&[u8]) -> R) -> Option<R> {
        self.with_entry(key, |data| f(data))
    }

    /// `f` of a cached chunk's data, counted as a use.
    fn with_entry<R>(&self, key: &StoreKey, f: impl FnOnce(&Arc<Vec<u8>>) -> R) -> Option<R> {
        let mut i = self.lock();
        let tick = i.next_tick();
        let Inner { clean, dirty, writing, .. } = &mut *i;
        if let Some(e) = clean.get_mut(key).or_else(|| dirty.get_mut(key)) {
            e.used = tick;
            return Some(f(&e.data));
        }
        writing.get(key).map(|w| f(&w.data))
    }

    /// A cached chunk to change, taken out of the cache (without a copy
    /// when nobody else holds it), with what the stored chunk was when it
    /// was read and, for a dirty one, the elements already changed. The
    /// caller puts it back with [`ChunkCache::insert_dirty`]; a writer has
    /// the dataset to itself, so nobody looks for it in between. A chunk
    /// being written back stays there: a copy of it is given.
    pub fn take_for_write(&self, key: &StoreKey) -> Option<(Vec<u8>, Base, Option<DirtyMask>)> {
        let mut i = self.lock();
        if let Some(e) = i.remove(key) {
            let data = Arc::try_unwrap(e.data).unwrap_or_else(|shared| shared.as_ref().clone());
            return Some((data, e.base, e.mask));
        }
        i.writing.get(key).map(|f| (f.data.as_ref().clone(), f.base.clone(), None))
    }

    /// A small write into a chunk the cache holds dirty, that no reader
    /// shares: `mark` marks the elements it changes, then `change` changes
    /// them in place, under the cache's lock (so keep it small: a loop of
    /// `nc_put_var1` neither takes the chunk out nor puts it back). `None`
    /// when the chunk is not there dirty, is shared, or is being written
    /// back: the caller takes the general path. Marked before the change,
    /// so that a panic in it leaves the elements it may have changed marked.
    pub fn update_dirty<R>(
        &self,
        key: &StoreKey,
        mark: &dyn Fn(&mut DirtyMask),
        change: impl FnOnce(&mut [u8]) -> R,
    ) -> Option<R> {
        let mut i = self.lock();
        if i.writing.contains_key(key) {
            return None;
        }
        let used = i.tick + 1;
        let e = i.dirty.get_mut(key)?;
        let data = Arc::get_mut(&mut e.data)?;
        mark(e.mask.as_mut()?);
        e.used = used;
        let r = change(data);
        i.tick = used;
        Some(r)
    }

    /// Puts a chunk that a writer took out ([`ChunkCache::take_for_write`])
    /// back, dirty, without writing anything (for [`Unsaved`], on unwind):
    /// its mask (or a new one) gets the writer's marks too, since any of
    /// those elements may already hold new values. The cache may go over
    /// its bound until the next insertion evicts.
    fn restore(
        &self,
        key: StoreKey,
        data: Vec<u8>,
        base: Base,
        mask: Option<DirtyMask>,
        shape: (usize, usize),
        mark: &dyn Fn(&mut DirtyMask),
    ) {
        let mut i = self.lock();
        let mut mask = mask.unwrap_or_else(|| DirtyMask::new(shape.0, shape.1));
        mark(&mut mask);
        if let Some(old) = i.remove(&key) {
            if let Some(m) = &old.mask {
                mask.union(m);
            }
        }
        if let Some(f) = i.writing.get(&key) {
            mask.union(&f.mask);
        }
        let used = i.next_tick();
        i.bytes += data.len();
        i.dirty.put(key, Entry { data: Arc::new(data), base, mask: Some(mask), used });
    }

    /// Counts a byte-range read of chunk `key` (read in part, not cached)
    /// and tells whether it has been read that way `limit` times: then the
    /// caller reads it whole into the cache instead, and the count starts
    /// again. (A rent-or-buy rule: repeated small reads of one chunk, a
    /// loop of `nc_get_var1`, end up served from memory after costing at
    /// most about one whole read; scattered ones stay small.) Counts are
    /// approximate: a chunk counted in a full set takes the counter of the
    /// least read chunk there, whose count starts again.
    pub fn count_partial_read(&self, key: &StoreKey, limit: u64) -> bool {
        use std::hash::{Hash, Hasher};
        const MASK: u64 = (1u64 << COUNT_BITS) - 1;
        let limit = limit.clamp(1, MASK);
        if limit == 1 {
            return true;
        }
        let mut h = std::collections::hash_map::DefaultHasher::new();
        key.hash(&mut h);
        let hash = h.finish();
        let table = self.partial.get_or_init(|| (0..PARTIAL_SETS * PARTIAL_WAYS).map(|_| AtomicU64::new(0)).collect());
        let set = (hash % PARTIAL_SETS as u64) as usize * PARTIAL_WAYS;
        let ways = &table[set..set + PARTIAL_WAYS];
        let tag = hash & !MASK;
        for w in ways {
            let old = w.load(Ordering::Relaxed);
            if old & MASK != 0 && old & !MASK == tag {
                let count = (old & MASK) + 1;
                if count >= limit {
                    w.store(0, Ordering::Relaxed);
                    return true;
                }
                w.store(tag | count, Ordering::Relaxed);
                return false;
            }
        }
        // a new chunk takes the counter with the fewest reads
        let victim = ways.iter().min_by_key(|w| w.load(Ordering::Relaxed) & MASK).unwrap_or(&ways[0]);
        victim.store(tag | 1, Ordering::Relaxed);
        false
    }

    /// True if a chunk of `len` bytes may be cached at all.
    pub fn fits(&self, len: usize) -> bool {
        let c = self.lock().config;
        len <= c.size && c.nelems > 0
    }

    /// Caches a chunk read from the store (`base`: what was read). Only
    /// clean chunks make room for it: if they cannot, it is not cached.
    pub fn insert_clean(&self, key: StoreKey, data: Arc<Vec<u8>>, base: Base) {
        let mut i = self.lock();
        let len = data.len();
        if i.clean.contains(&key) || i.dirty.contains(&key) || i.writing.contains_key(&key) {
            return; // a copy is there already (dirty ones are newer)
        }
        if len > i.config.size || i.config.nelems == 0 || !i.make_room(len, 1, false, &mut Vec::new()) {
            return;
        }
        let used = i.next_tick();
        i.bytes += len;
        i.clean.put(key, Entry { data, base, mask: None, used });
    }

    /// Caches a chunk a writer changed: `data` is the whole chunk, `base`
    /// what the chunk it was made from was (as [`ChunkCache::take_for_write`]
    /// told, or read from the store), and `mark` marks the elements changed
    /// in a mask of `elems` elements of `esize` bytes (`mask`: the one
    /// taken with the chunk, or that of an older dirty copy still here,
    /// whose elements stay marked, or a new one). A chunk that cannot be
    /// cached is written through; evicted dirty chunks are written back.
    #[allow(clippy::too_many_arguments)]
    pub fn insert_dirty(
        &self,
        key: StoreKey,
        data: Arc<Vec<u8>>,
        base: Base,
        mask: Option<DirtyMask>,
        (elems, esize): (usize, usize),
        mark: &dyn Fn(&mut DirtyMask),
        write: WriteBack,
    ) -> NcResult<()> {
        let mut i = self.lock();
        let mut base = base;
        let mut mask = mask;
        if let Some(old) = i.remove(&key) {
            if mask.is_none() {
                mask = old.mask;
            }
            base = old.base;
        }
        let mut mask = mask.unwrap_or_else(|| DirtyMask::new(elems, esize));
        mark(&mut mask);
        if let Some(f) = i.writing.get(&key) {
            mask.union(&f.mask);
        }
        let len = data.len();
        if len > i.config.size || i.config.nelems == 0 {
            // write through, after any write-back of this chunk under way
            while i.writing.contains_key(&key) {
                i = self.written.wait(i).unwrap_or_else(|p| p.into_inner());
            }
            drop(i);
            return write(&key, Dirty { data: &data, mask: &mask, base: &base }).map(drop);
        }
        let mut victims = Vec::new();
        i.make_room(len, 1, true, &mut victims);
        let used = i.next_tick();
        i.bytes += len;
        i.dirty.put(key, Entry { data, base, mask: Some(mask), used });
        drop(i);
        self.write_back(victims, write)
    }

    /// Writes back the chunks `make_room` moved to `writing` (all of
    /// them; the first error is returned). One that fails is put back in
    /// the cache, dirty, rather than lost (unless a newer copy is there:
    /// it has the same elements marked).
    fn write_back(&self, victims: Vec<StoreKey>, write: WriteBack) -> NcResult<()> {
        let mut result = Ok(());
        for key in victims {
            let f = {
                let i = self.lock();
                let f = &i.writing[&key];
                InFlight { data: f.data.clone(), base: f.base.clone(), mask: f.mask.clone() }
            };
            let r = write(&key, Dirty { data: &f.data, mask: &f.mask, base: &f.base });
            let mut i = self.lock();
            i.writing.remove(&key);
            if r.is_err() && !i.dirty.contains(&key) {
                let used = i.next_tick();
                i.bytes += f.data.len();
                let mask = Arc::unwrap_or_clone(f.mask);
                i.dirty.put(key, Entry { data: f.data, base: f.base, mask: Some(mask), used });
            }
            drop(i);
            self.written.notify_all();
            if let (Err(e), true) = (r, result.is_ok()) {
                result = Err(e);
            }
        }
        result
    }

    /// Forgets a chunk (the caller writes all of it to the store now),
    /// after any write-back of it under way has ended, so that the older
    /// write cannot land after the caller's.
    pub fn remove(&self, key: &StoreKey) {
        let mut i = self.lock();
        i.remove(key);
        while i.writing.contains_key(key) {
            i = self.written.wait(i).unwrap_or_else(|p| p.into_inner());
        }
    }

    /// True if some cached chunk is waiting to be written.
    pub fn has_dirty(&self) -> bool {
        let i = self.lock();
        !i.dirty.is_empty() || !i.writing.is_empty()
    }

    /// Writes every dirty chunk back (in key order); they stay cached, clean.
    pub fn flush(&self, write: WriteBack) -> NcResult<()> {
        let mut i = self.lock();
        while !i.writing.is_empty() {
            i = self.written.wait(i).unwrap_or_else(|p| p.into_inner());
        }
        let mut todo: Vec<(StoreKey, Arc<Vec<u8>>, Base, DirtyMask)> = i
            .dirty
            .iter()
            .map(|(k, e)| (k.clone(), e.data.clone(), e.base.clone(), e.mask.clone().expect("dirty")))
            .collect();
        drop(i);
        todo.sort_by(|a, b| a.0.cmp(&b.0));
        for (key, data, base, mask) in todo {
            let now = write(&key, Dirty { data: &data, mask: &mask, base: &base })?;
            let mut i = self.lock();
            // clean now (among the most recently used: flushing is rare),
            // unless it changed while being written; dropped if the store
            // holds more than it (other writers' elements)
            if i.dirty.peek(&key).is_some_and(|e| Arc::ptr_eq(&e.data, &data)) {
                let mut e = i.dirty.pop(&key).expect("present");
                match now {
                    Some(base) => {
                        e.mask = None;
                        e.base = base;
                        i.clean.put(key, e);
                    }
                    None => i.bytes -= e.data.len(),
                }
            }
        }
        Ok(())
    }

    /// Forgets the clean chunks (other ranks of a parallel dataset may have
    /// written them since they were read); dirty ones stay.
    pub fn drop_clean(&self) {
        let mut i = self.lock();
        let freed: usize = i.clean.iter().map(|(_, e)| e.data.len()).sum();
        i.clean.clear();
        i.bytes -= freed;
    }

    /// Flushes and drops everything (before a rename moves the chunks).
    pub fn clear(&self, write: WriteBack) -> NcResult<()> {
        self.flush(write)?;
        let mut i = self.lock();
        i.clean.clear();
        i.dirty.clear();
        i.bytes = 0;
        Ok(())
    }

    /// New settings; shrinking evicts (writing dirty chunks back).
    pub fn set_config(&self, config: CacheConfig, write: WriteBack) -> NcResult<()> {
        let mut i = self.lock();
        i.config = config;
        let mut victims = Vec::new();
        i.make_room(0, 0, true, &mut victims);
        drop(i);
        self.write_back(victims, write)
    }
}

/// A chunk a writer is changing, out of the cache ([`ChunkCache::take_for_write`],
/// or read from the store): if the change panics (a bug; the ffi boundary
/// turns it into an error) before [`Unsaved::finish`], dropping this puts
/// the chunk back in the cache, dirty, with the elements of the failed call
/// marked too ([`ChunkCache::restore`]), so the elements changed by earlier
/// calls are not lost with it.
pub struct Unsaved<'a> {
    cache: &'a ChunkCache,
    key: &'a StoreKey,
    chunk: Option<(Vec<u8>, Base, Option<DirtyMask>)>,
    /// (elements, element size) of a chunk, for a new mask.
    shape: (usize, usize),
    mark: &'a dyn Fn(&mut DirtyMask),
}

impl<'a> Unsaved<'a> {
    pub fn new(
        cache: &'a ChunkCache,
        key: &'a StoreKey,
        chunk: (Vec<u8>, Base, Option<DirtyMask>),
        shape: (usize, usize),
        mark: &'a dyn Fn(&mut DirtyMask),
    ) -> Self {
        Unsaved { cache, key, chunk: Some(chunk), shape, mark }
    }

    /// The chunk's bytes, to change.
    pub fn data(&mut self) -> &mut Vec<u8> {
        &mut self.chunk.as_mut().expect("not finished").0
    }

    /// The changed chunk, its base and mask, for [`ChunkCache::insert_dirty`].
    pub fn finish(mut self) -> (Vec<u8>, Base, Option<DirtyMask>) {
        self.chunk.take().expect("not finished")
    }
}

impl Drop for Unsaved<'_> {
    fn drop(&mut self) {
        if let Some((data, base, mask)) = self.chunk.take() {
            self.cache.restore(self.key.clone(), data, base, mask, self.shape, self.mark);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex as StdMutex;

    fn key(s: &str) -> StoreKey {
        StoreKey::parse(s).unwrap()
    }

    /// Inserts a dirty chunk of bytes with `runs` changed (all if empty).
    fn dirty(
        c: &ChunkCache,
        k: &str,
        data: Arc<Vec<u8>>,
        base: Base,
        runs: &[(usize, usize)],
        w: WriteBack,
    ) -> NcResult<()> {
        dirty_with(c, k, data, base, None, runs, w)
    }

    fn dirty_with(
        c: &ChunkCache,
        k: &str,
        data: Arc<Vec<u8>>,
        base: Base,
        mask: Option<DirtyMask>,
        runs: &[(usize, usize)],
        w: WriteBack,
    ) -> NcResult<()> {
        let n = data.len();
        let mark = |m: &mut DirtyMask| match runs {
            [] => m.mark(0, usize::MAX),
            _ => runs.iter().for_each(|&(at, len)| m.mark(at, len)),
        };
        c.insert_dirty(key(k), data, base, mask, (n, 1), &mark, w)
    }

    #[test]
    fn masks() {
        let mut m = DirtyMask::new(200, 2);
        assert!(!m.is_full());
        assert_eq!(m.runs().count(), 0);
        m.mark(3, 2);
        m.mark(60, 80);
        m.mark(199, 1);
        assert_eq!(m.runs().collect::<Vec<_>>(), vec![(3, 2), (60, 80), (199, 1)]);
        let mut dst = vec![0u8; 400];
        let src = vec![7u8; 400];
        m.overlay(&mut dst, &src);
        assert_eq!(dst.iter().filter(|&&b| b == 7).count(), 2 * (2 + 80 + 1));
        assert_eq!(&dst[6..10], &[7, 7, 7, 7]);
        assert_eq!(dst[5], 0);
        let mut other = DirtyMask::new(200, 2);
        other.mark(0, 3);
        other.mark(5, 55);
        other.mark(140, 59);
        m.union(&other);
        assert!(m.is_full());
        let mut all = DirtyMask::new(64, 4);
        all.mark(0, usize::MAX);
        assert!(all.is_full() && DirtyMask::new(0, 4).is_full());
    }

    #[test]
    fn stays_within_bound_and_writes_back() {
        let written = StdMutex::new(Vec::new());
        let write = |k: &StoreKey, d: Dirty<'_>| {
            written.lock().unwrap().push((k.to_string(), d.data.len()));
            Ok(Some(Base::Unknown))
        };
        let c = ChunkCache::new(CacheConfig { size: 100, nelems: 10, preemption: 0.75 });
        for n in 0..10 {
            let (k, d) = (key(&format!("/v/{n}")), Arc::new(vec![0; 30]));
            if n % 2 == 0 {
                dirty(&c, k.as_str(), d, Base::Absent, &[], &write).unwrap();
            } else {
                c.insert_clean(k, d, Base::Absent);
            }
            assert!(c.bytes() <= 100);
        }
        // 3 chunks of 30 fit. Clean inserts evict clean chunks only; dirty
        // ones the least recently used chunk: dirty 0, 2, 4 were written
        // back, and 6, 8 and clean 9 are held.
        let evicted: Vec<String> = written.lock().unwrap().iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(evicted, ["/v/0", "/v/2", "/v/4"]);
        assert!(["/v/6", "/v/8", "/v/9"].iter().all(|k| c.get(&key(k)).is_some()));
        // Too big to cache: written through.
        dirty(&c, "/v/big", Arc::new(vec![0; 101]), Base::Absent, &[], &write).unwrap();
        assert!(c.get(&key("/v/big")).is_none());
        c.flush(&write).unwrap();
        let n = written.lock().unwrap().len();
        c.flush(&write).unwrap();
        assert_eq!(written.lock().unwrap().len(), n, "flushed chunks are clean");
        c.set_config(CacheConfig { size: 0, nelems: 0, preemption: 0.0 }, &write).unwrap();
        assert_eq!(c.bytes(), 0);
    }

    #[test]
    fn reads_never_evict_dirty_chunks_and_masks_accumulate() {
        let written = StdMutex::new(Vec::new());
        let write = |k: &StoreKey, d: Dirty<'_>| {
            written.lock().unwrap().push((k.to_string(), d.mask.runs().collect::<Vec<_>>(), d.base.clone()));
            Ok(Some(Base::At(Version::new("new"))))
        };
        let c = ChunkCache::new(CacheConfig { size: 20, nelems: 2, preemption: 0.75 });
        dirty(&c, "/a", Arc::new(vec![1; 10]), Base::At(Version::new("v1")), &[(0, 2)], &write).unwrap();
        let before = c.get(&key("/a")).unwrap().as_ptr();
        drop(c.get(&key("/a")));
        let (d, base, mask) = c.take_for_write(&key("/a")).unwrap();
        assert_eq!(d.as_ptr(), before, "taken without a copy");
        assert_eq!(base, Base::At(Version::new("v1")));
        assert!(c.get(&key("/a")).is_none() && c.bytes() == 0, "taken out");
        dirty_with(&c, "/a", Arc::new(d), base, mask, &[(5, 1)], &write).unwrap();
        dirty(&c, "/b", Arc::new(vec![2; 10]), Base::Absent, &[], &write).unwrap();
        // both dirty, cache full: a read does not displace them
        c.insert_clean(key("/c"), Arc::new(vec![3; 10]), Base::Absent);
        assert!(c.get(&key("/c")).is_none());
        assert!(written.lock().unwrap().is_empty());
        c.flush(&write).unwrap();
        let w = written.lock().unwrap().clone();
        assert_eq!(w[0], ("/a".to_string(), vec![(0, 2), (5, 1)], Base::At(Version::new("v1"))));
        assert_eq!(w[1].0, "/b");
        // clean now, at the version the write-back reported
        let (_, base, mask) = c.take_for_write(&key("/a")).unwrap();
        assert_eq!(base, Base::At(Version::new("new")));
        assert!(mask.is_none(), "clean");
        assert!(!c.has_dirty());
        // a write-back that merged other writers' elements: the copy goes
        let merged = |_: &StoreKey, _: Dirty<'_>| Ok(None);
        dirty(&c, "/a", Arc::new(vec![5; 10]), Base::Absent, &[], &merged).unwrap();
        c.flush(&merged).unwrap();
        assert!(c.get(&key("/a")).is_none());
        assert_eq!(c.bytes(), 10);
    }

    #[test]
    fn a_panic_while_changing_a_taken_chunk_loses_no_earlier_change() {
        let written = StdMutex::new(Vec::new());
        let write = |k: &StoreKey, d: Dirty<'_>| {
            written.lock().unwrap().push((k.to_string(), d.data.to_vec(), d.mask.runs().collect::<Vec<_>>()));
            Ok(Some(Base::At(Version::new("new"))))
        };
        let c = ChunkCache::new(CacheConfig { size: 100, nelems: 4, preemption: 0.75 });
        // an earlier call changed elements 0..2 (dirty, not yet written)
        dirty(&c, "/a", Arc::new(vec![7, 7, 0, 0, 0, 0]), Base::Absent, &[(0, 2)], &write).unwrap();
        // the next call takes it, changes element 4, then panics
        let k = key("/a");
        let mark = |m: &mut DirtyMask| m.mark(4, 2);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let taken = c.take_for_write(&k).unwrap();
            let mut u = Unsaved::new(&c, &k, taken, (6, 1), &mark);
            u.data()[4] = 9;
            panic!("a conversion bug");
        }));
        assert!(outcome.is_err());
        // back in the cache, dirty, with both calls' elements marked
        assert_eq!(c.get(&k).unwrap().as_ref(), &vec![7, 7, 0, 0, 9, 0]);
        assert_eq!(c.bytes(), 6);
        c.flush(&write).unwrap();
        let w = written.lock().unwrap().clone();
        assert_eq!(w, vec![("/a".to_string(), vec![7, 7, 0, 0, 9, 0], vec![(0, 2), (4, 2)])]);
        // without a panic, nothing is put back by the guard
        let taken = c.take_for_write(&k).unwrap();
        let mut u = Unsaved::new(&c, &k, taken, (6, 1), &mark);
        u.data()[5] = 1;
        let (d, _, _) = u.finish();
        assert_eq!(d, vec![7, 7, 0, 0, 9, 1]);
        assert!(c.get(&k).is_none(), "still out, for the caller to insert");
    }

    #[test]
    fn a_failed_write_back_keeps_the_chunk() {
        let fail = |_: &StoreKey, _: Dirty<'_>| Err(crate::engine::NcError::new(crate::engine::error::NC_EIO));
        let c = ChunkCache::new(CacheConfig { size: 10, nelems: 1, preemption: 0.75 });
        dirty(&c, "/a", Arc::new(vec![1; 10]), Base::Absent, &[], &fail).unwrap();
        assert!(dirty(&c, "/b", Arc::new(vec![2; 10]), Base::Absent, &[], &fail).is_err());
        assert!(c.get(&key("/a")).is_some() && c.get(&key("/b")).is_some());
        assert!(c.flush(&fail).is_err());
        assert!(c.has_dirty());
    }
}
