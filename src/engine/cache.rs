//! The per-variable chunk cache: decoded chunks (native byte order) with an
//! LRU policy and a hard bound on bytes and entries, as set by
//! `nc_set_chunk_cache`/`nc_set_var_chunk_cache`. Dirty chunks are written
//! back when evicted and at `nc_sync`/`nc_close`. A chunk larger than the
//! whole bound is never cached (it is written through), so the cache never
//! exceeds its size.

use super::NcResult;
use crate::map::StoreKey;
use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard, RwLock};

/// Cache settings (netCDF's size, number of elements and preemption).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct CacheConfig {
    pub size: usize,
    pub nelems: usize,
    pub preemption: f32,
}

/// netCDF-C's defaults (`CHUNK_CACHE_SIZE`, `CHUNK_CACHE_NELEMS`,
/// `CHUNK_CACHE_PREEMPTION`).
pub const DEFAULT_CONFIG: CacheConfig = CacheConfig { size: 16 * 1024 * 1024, nelems: 1009, preemption: 0.75 };

/// The defaults for variables of datasets opened or created from now on.
pub static DEFAULTS: RwLock<CacheConfig> = RwLock::new(DEFAULT_CONFIG);

pub fn defaults() -> CacheConfig {
    *DEFAULTS.read().unwrap_or_else(|p| p.into_inner())
}

pub fn set_defaults(c: CacheConfig) {
    *DEFAULTS.write().unwrap_or_else(|p| p.into_inner()) = c;
}

struct Entry {
    data: Arc<Vec<u8>>,
    dirty: bool,
    used: u64,
}

struct Inner {
    config: CacheConfig,
    map: HashMap<StoreKey, Entry>,
    bytes: usize,
    tick: u64,
}

/// Writes one decoded chunk to the store (encoding it first).
pub type WriteBack<'a> = &'a (dyn Fn(&StoreKey, &[u8]) -> NcResult<()> + Sync);

pub struct ChunkCache {
    inner: Mutex<Inner>,
}

impl std::fmt::Debug for ChunkCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let i = self.lock();
        write!(f, "ChunkCache({} chunks, {} of {} bytes)", i.map.len(), i.bytes, i.config.size)
    }
}

impl ChunkCache {
    pub fn new(config: CacheConfig) -> Self {
        ChunkCache { inner: Mutex::new(Inner { config, map: HashMap::new(), bytes: 0, tick: 0 }) }
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

    pub fn get(&self, key: &StoreKey) -> Option<Arc<Vec<u8>>> {
        let mut i = self.lock();
        i.tick += 1;
        let tick = i.tick;
        i.map.get_mut(key).map(|e| {
            e.used = tick;
            e.data.clone()
        })
    }

    /// True if a chunk of `len` bytes may be cached at all.
    pub fn fits(&self, len: usize) -> bool {
        let c = self.lock().config;
        len <= c.size && c.nelems > 0
    }

    /// Caches a chunk. A dirty chunk that cannot be cached is written
    /// through; evicted dirty chunks are written back.
    pub fn insert(&self, key: StoreKey, data: Arc<Vec<u8>>, dirty: bool, write: WriteBack) -> NcResult<()> {
        let mut i = self.lock();
        if let Some(old) = i.map.remove(&key) {
            i.bytes -= old.data.len();
        }
        let len = data.len();
        if len > i.config.size || i.config.nelems == 0 {
            drop(i);
            return if dirty { write(&key, &data) } else { Ok(()) };
        }
        Self::evict_until(&mut i, len, write)?;
        i.tick += 1;
        let used = i.tick;
        i.bytes += len;
        i.map.insert(key, Entry { data, dirty, used });
        Ok(())
    }

    /// Evicts least recently used chunks until `extra` more bytes and one
    /// more entry fit.
    fn evict_until(i: &mut Inner, extra: usize, write: WriteBack) -> NcResult<()> {
        while !i.map.is_empty() && (i.bytes + extra > i.config.size || i.map.len() + 1 > i.config.nelems) {
            let victim = i.map.iter().min_by_key(|(_, e)| e.used).map(|(k, _)| k.clone()).expect("not empty");
            let e = i.map.remove(&victim).expect("present");
            i.bytes -= e.data.len();
            if e.dirty {
                if let Err(err) = write(&victim, &e.data) {
                    // Keep the data rather than lose it.
                    i.bytes += e.data.len();
                    i.map.insert(victim, e);
                    return Err(err);
                }
            }
        }
        Ok(())
    }

    pub fn remove(&self, key: &StoreKey) {
        let mut i = self.lock();
        if let Some(e) = i.map.remove(key) {
            i.bytes -= e.data.len();
        }
    }

    /// True if some cached chunk is waiting to be written.
    pub fn has_dirty(&self) -> bool {
        self.lock().map.values().any(|e| e.dirty)
    }

    /// Writes every dirty chunk back; they stay cached, clean.
    pub fn flush(&self, write: WriteBack) -> NcResult<()> {
        let mut i = self.lock();
        let mut dirty: Vec<StoreKey> = i.map.iter().filter(|(_, e)| e.dirty).map(|(k, _)| k.clone()).collect();
        dirty.sort();
        for k in dirty {
            let data = i.map[&k].data.clone();
            write(&k, &data)?;
            i.map.get_mut(&k).expect("present").dirty = false;
        }
        Ok(())
    }

    /// Flushes and drops everything (before a rename moves the chunks).
    pub fn clear(&self, write: WriteBack) -> NcResult<()> {
        self.flush(write)?;
        let mut i = self.lock();
        i.map.clear();
        i.bytes = 0;
        Ok(())
    }

    /// New settings; shrinking evicts (writing dirty chunks back).
    pub fn set_config(&self, config: CacheConfig, write: WriteBack) -> NcResult<()> {
        let mut i = self.lock();
        i.config = config;
        while !i.map.is_empty() && (i.bytes > i.config.size || i.map.len() > i.config.nelems) {
            Self::evict_until(&mut i, 0, write)?;
            if i.map.len() <= i.config.nelems && i.bytes <= i.config.size {
                break;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Mutex as StdMutex;

    fn key(s: &str) -> StoreKey {
        StoreKey::parse(s).unwrap()
    }

    #[test]
    fn stays_within_bound_and_writes_back() {
        let written = StdMutex::new(Vec::new());
        let write = |k: &StoreKey, d: &[u8]| {
            written.lock().unwrap().push((k.to_string(), d.len()));
            Ok(())
        };
        let c = ChunkCache::new(CacheConfig { size: 100, nelems: 10, preemption: 0.75 });
        for n in 0..10 {
            c.insert(key(&format!("/v/{n}")), Arc::new(vec![0; 30]), n % 2 == 0, &write).unwrap();
            assert!(c.bytes() <= 100);
        }
        // 3 chunks of 30 fit, so chunks 0..=6 were evicted; the dirty ones
        // among them (0, 2, 4, 6) were written back.
        assert_eq!(c.bytes(), 90);
        let evicted: Vec<String> = written.lock().unwrap().iter().map(|(k, _)| k.clone()).collect();
        assert_eq!(evicted, ["/v/0", "/v/2", "/v/4", "/v/6"]);
        // Too big to cache: written through.
        c.insert(key("/v/big"), Arc::new(vec![0; 101]), true, &write).unwrap();
        assert!(c.get(&key("/v/big")).is_none());
        c.flush(&write).unwrap();
        let n = written.lock().unwrap().len();
        c.flush(&write).unwrap();
        assert_eq!(written.lock().unwrap().len(), n, "flushed chunks are clean");
        c.set_config(CacheConfig { size: 0, nelems: 0, preemption: 0.0 }, &write).unwrap();
        assert_eq!(c.bytes(), 0);
    }
}
