//! Shared by tests/shards.rs and tests/s3.rs (included with `#[path]`): a
//! store wrapper that counts the bytes read from a real driver, and a
//! sharded variable whose partial reads are checked against those counts.
#![allow(dead_code)]

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::file;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

/// A real store that counts the bytes and requests read from it.
pub struct Counting {
    inner: Arc<dyn Store>,
    bytes: AtomicU64,
    reads: AtomicU64,
}

impl Counting {
    pub fn wrap(inner: Arc<dyn Store>) -> Arc<Counting> {
        Arc::new(Counting { inner, bytes: AtomicU64::new(0), reads: AtomicU64::new(0) })
    }

    fn got<T>(&self, r: MapResult<T>, n: impl Fn(&T) -> usize) -> MapResult<T> {
        if let Ok(v) = &r {
            self.bytes.fetch_add(n(v) as u64, Ordering::Relaxed);
            self.reads.fetch_add(1, Ordering::Relaxed);
        }
        r
    }

    /// (bytes, requests) read since the last call.
    pub fn take(&self) -> (u64, u64) {
        (self.bytes.swap(0, Ordering::Relaxed), self.reads.swap(0, Ordering::Relaxed))
    }
}

fn len(v: &Option<Vec<u8>>) -> usize {
    v.as_ref().map_or(0, Vec::len)
}

impl ReadableStore for Counting {
    fn get(&self, key: &StoreKey) -> MapResult<Option<Vec<u8>>> {
        self.got(self.inner.get(key), len)
    }
    fn get_range(&self, key: &StoreKey, start: u64, count: u64) -> MapResult<Option<Vec<u8>>> {
        self.got(self.inner.get_range(key, start, count), len)
    }
    fn get_part(&self, key: &StoreKey, range: ByteRange) -> MapResult<Option<(Vec<u8>, u64)>> {
        self.got(self.inner.get_part(key, range), |v| v.as_ref().map_or(0, |(b, _)| b.len()))
    }
    fn get_max(&self, key: &StoreKey, max: u64) -> MapResult<Option<Vec<u8>>> {
        self.got(self.inner.get_max(key, max), len)
    }
    fn size(&self, key: &StoreKey) -> MapResult<Option<u64>> {
        self.inner.size(key)
    }
    fn get_into(&self, key: &StoreKey, buf: &mut Vec<u8>) -> MapResult<bool> {
        let r = self.inner.get_into(key, buf);
        let n = buf.len();
        self.got(r, |&found| if found { n } else { 0 })
    }
}

impl WritableStore for Counting {
    fn set(&self, key: &StoreKey, value: &[u8]) -> MapResult<()> {
        self.inner.set(key, value)
    }
    fn set_range(&self, key: &StoreKey, offset: u64, value: &[u8]) -> MapResult<()> {
        self.inner.set_range(key, offset, value)
    }
    fn erase(&self, key: &StoreKey) -> MapResult<()> {
        self.inner.erase(key)
    }
    fn erase_prefix(&self, prefix: &StoreKey) -> MapResult<()> {
        self.inner.erase_prefix(prefix)
    }
}

impl ListableStore for Counting {
    fn list_dir(&self, prefix: &StoreKey) -> MapResult<Option<Vec<String>>> {
        self.inner.list_dir(prefix)
    }
    fn list_prefix(&self, prefix: &StoreKey) -> MapResult<Vec<StoreKey>> {
        self.inner.list_prefix(prefix)
    }
}

impl ConditionalStore for Counting {
    fn get_versioned(&self, key: &StoreKey) -> MapResult<Option<(Vec<u8>, Version)>> {
        self.got(self.inner.get_versioned(key), |v| v.as_ref().map_or(0, |(b, _)| b.len()))
    }
    fn put_if(&self, key: &StoreKey, value: &[u8], expected: Option<&Version>) -> MapResult<Version> {
        self.inner.put_if(key, value, expected)
    }
    fn lock(&self) -> MapResult<StoreLock<'_>> {
        self.inner.lock()
    }
}

impl Store for Counting {
    fn location(&self) -> &str {
        self.inner.location()
    }
    fn is_writable(&self) -> bool {
        self.inner.is_writable()
    }
    fn io_bound(&self) -> bool {
        self.inner.io_bound()
    }
    fn flush(&self) -> MapResult<()> {
        self.inner.flush()
    }
    fn destroy(&self) -> MapResult<()> {
        self.inner.destroy()
    }
}

pub const N: u64 = 64;
/// Inner chunks of 8 x 8 int32 (256 bytes); shards of 32 x 64 (32 inner chunks).
pub const CHUNK: [u64; 2] = [8, 8];
pub const SHARD: [u64; 2] = [32, 64];
/// The index of a shard: 32 inner chunks x 16 bytes + crc32c.
pub const INDEX_BYTES: u64 = 32 * 16 + 4;
pub const INNER_BYTES: u64 = 8 * 8 * 4;

/// The value written at (i, j); inner chunk (0, 0) is never written (fill).
pub fn value(i: u64, j: u64) -> i32 {
    if i < 8 && j < 8 {
        NC_FILL_INT
    } else {
        (i * 1000 + j) as i32
    }
}

pub fn put(ds: &mut Dataset, start: &[u64], count: &[u64], vals: &[i32]) {
    let slab = ds.slab(0, 0, Some(start), Some(count), None, None, true).unwrap();
    let bytes = Values::Int(vals.to_vec()).to_ne_bytes();
    ds.put_slab(0, 0, &slab, MemIn::Bytes { memtype: NC_INT, buf: &bytes }).unwrap();
}

pub fn get(ds: &Dataset, start: &[u64], count: &[u64]) -> Result<Vec<i32>, i32> {
    let slab = ds.slab(0, 0, Some(start), Some(count), None, None, false).unwrap();
    let mut buf = vec![0u8; slab.mem_elems() * 4];
    ds.get_slab(0, 0, &slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }).map_err(|e| e.code())?;
    Ok(buf.chunks_exact(4).map(|b| i32::from_ne_bytes(b.try_into().unwrap())).collect())
}

fn expected(start: &[u64], count: &[u64]) -> Vec<i32> {
    let mut v = vec![];
    for i in start[0]..start[0] + count[0] {
        for j in start[1]..start[1] + count[1] {
            v.push(value(i, j));
        }
    }
    v
}

/// Creates `url` with a sharded 64 x 64 int variable `v` (optionally
/// zstd-compressed inner chunks), written everywhere but inner chunk (0, 0).
pub fn create(url: &str, zstd: bool) {
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", N).unwrap() as i32;
    let y = ds.def_dim(0, "y", N).unwrap() as i32;
    ds.def_var(0, "v", NC_INT, &[x, y]).unwrap();
    ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&CHUNK)).unwrap();
    if zstd {
        ds.def_var_codec_filter(0, 0, 32015, &[3]).unwrap();
    }
    ds.def_var_shard(0, 0, &SHARD).unwrap();
    ds.enddef().unwrap();
    // rows 0..8 from column 8, then rows 8.. whole
    put(&mut ds, &[0, 8], &[8, N - 8], &expected(&[0, 8], &[8, N - 8]));
    put(&mut ds, &[8, 0], &[N - 8, N], &expected(&[8, 0], &[N - 8, N]));
    ds.close().unwrap();
}

/// Opens `url` read-only with a counting wrapper around its store.
pub fn open_counted(url: &str) -> (Dataset, Arc<Counting>) {
    let mut ds = file::open(url, NC_NOWRITE).unwrap();
    let mut counting = None;
    ds.wrap_store(|store| {
        let c = Counting::wrap(store);
        counting = Some(c.clone());
        c
    });
    let c = counting.unwrap();
    (ds, c)
}

/// A one-element read fetches the index and one inner chunk, a small
/// multiple of them, never the shard; a second in the same shard only its
/// inner chunk; a missing inner chunk nothing more; a whole read all.
pub fn check_partial_reads(url: &str, zstd: bool) {
    create(url, zstd);
    let (ds, c) = open_counted(url);
    assert_eq!(ds.inq_var_shard(0, 0).unwrap(), Some(SHARD.to_vec()));
    assert_eq!(ds.inq_var_chunking(0, 0).unwrap().1, CHUNK.to_vec());
    assert_eq!(get(&ds, &[37, 45], &[1, 1]).unwrap(), vec![value(37, 45)]);
    let (bytes, reads) = c.take();
    let shard_bytes = SHARD[0] * SHARD[1] * 4 + INDEX_BYTES;
    assert!(bytes <= INDEX_BYTES + INNER_BYTES, "{url}: {bytes} bytes for one element (shard {shard_bytes})");
    assert!(
        bytes > INDEX_BYTES / 2 && reads == 2,
        "{url}: the index and one inner chunk: {bytes} bytes, {reads} reads"
    );
    // the same shard again: its index is cached
    assert_eq!(get(&ds, &[33, 2], &[1, 1]).unwrap(), vec![value(33, 2)]);
    let (bytes, reads) = c.take();
    assert!(bytes <= INNER_BYTES && reads == 1, "{url}: one inner chunk: {bytes} bytes, {reads} reads");
    // an inner chunk that is not stored: fill, after the index
    assert_eq!(get(&ds, &[3, 3], &[2, 2]).unwrap(), vec![NC_FILL_INT; 4]);
    let (bytes, reads) = c.take();
    assert!(bytes == INDEX_BYTES && reads == 1, "{url}: the index only: {bytes} bytes, {reads} reads");
    // a row across a shard: the inner chunks of that row
    assert_eq!(get(&ds, &[40, 0], &[1, N]).unwrap(), expected(&[40, 0], &[1, N]));
    let (bytes, _) = c.take();
    assert!(bytes <= 8 * INNER_BYTES, "{url}: a row of 8 inner chunks: {bytes} bytes");
    // everything
    assert_eq!(get(&ds, &[0, 0], &[N, N]).unwrap(), expected(&[0, 0], &[N, N]));
    assert_eq!(get(&ds, &[5, 3], &[50, 41]).unwrap(), expected(&[5, 3], &[50, 41]));
}

/// Writes into a shard whose inner chunks and index are cached, into a
/// missing inner chunk; reads see them before and after `nc_sync` and
/// reopening.
pub fn check_writes(url: &str) {
    let url = url.to_string();
    create(&url, true);
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    // cache inner chunks and the index, then change one element of them
    assert_eq!(get(&ds, &[9, 9], &[2, 2]).unwrap(), expected(&[9, 9], &[2, 2]));
    put(&mut ds, &[9, 10], &[1, 1], &[-7]);
    assert_eq!(get(&ds, &[9, 9], &[1, 3]).unwrap(), vec![value(9, 9), -7, value(9, 11)]);
    // into the missing inner chunk
    put(&mut ds, &[0, 0], &[1, 1], &[-8]);
    assert_eq!(get(&ds, &[0, 0], &[1, 2]).unwrap(), vec![-8, NC_FILL_INT]);
    ds.sync().unwrap();
    assert_eq!(get(&ds, &[9, 9], &[1, 3]).unwrap(), vec![value(9, 9), -7, value(9, 11)]);
    ds.close().unwrap();
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(get(&ds, &[0, 0], &[1, 2]).unwrap(), vec![-8, NC_FILL_INT]);
    assert_eq!(get(&ds, &[9, 9], &[1, 3]).unwrap(), vec![value(9, 9), -7, value(9, 11)]);
    let mut all = expected(&[0, 0], &[N, N]);
    all[0] = -8;
    all[(9 * N + 10) as usize] = -7;
    assert_eq!(get(&ds, &[0, 0], &[N, N]).unwrap(), all);
}
