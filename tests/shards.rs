//! Zarr v3 shards (`sharding_indexed`): a read of a few elements fetches the
//! shard's index and the inner chunks it needs, not the shard (counted by a
//! wrapper around each real driver); writes through `def_var_shard`; the
//! cache of inner chunks stays right across writes; a hostile index is an
//! error, never a crash or a huge allocation.

#[path = "support/sharded.rs"]
mod sharded;

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use sharded::*;

#[test]
fn partial_reads_file() {
    let dir = tempfile::tempdir().unwrap();
    for zstd in [false, true] {
        check_partial_reads(&format!("file://{}/s{zstd}.zarr#mode=zarr,v3,file", dir.path().display()), zstd);
    }
}

#[test]
fn partial_reads_zip() {
    let dir = tempfile::tempdir().unwrap();
    check_partial_reads(&format!("file://{}/s.zip#mode=nczarr,v3,zip", dir.path().display()), true);
}

#[test]
fn partial_reads_memory() {
    check_partial_reads("mem://shards/partial#mode=nczarr,v3", false);
}

/// A reader's cached shard index goes stale when another handle rewrites
/// the shard (its inner chunks move): the read that meets the stale index
/// reads the index again, once, and gives the new values, not an error.
#[test]
fn a_shard_rewritten_by_another_writer_reads_with_its_new_index() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/stale.zarr#mode=nczarr,v3,file", dir.path().display());
    create(&url, true);
    let reader = file::open(&url, NC_NOWRITE).unwrap();
    // one element of shard 1 (rows 32..64): its index is cached now
    assert_eq!(get(&reader, &[37, 45], &[1, 1]).unwrap(), vec![value(37, 45)]);
    // another handle rewrites that shard with values that compress far
    // better, so every inner chunk moves
    let mut writer = file::open(&url, NC_WRITE).unwrap();
    let zeros = vec![0i32; 32 * N as usize];
    put(&mut writer, &[32, 0], &[32, N], &zeros);
    writer.close().unwrap();
    // another inner chunk of it, through the stale index: the new values
    assert_eq!(get(&reader, &[60, 3], &[2, 2]).unwrap(), vec![0; 4]);
    assert_eq!(get(&reader, &[32, 0], &[32, N]).unwrap(), zeros);
    // shard 0 is as it was
    assert_eq!(get(&reader, &[20, 20], &[1, 1]).unwrap(), vec![value(20, 20)]);
}

/// One-element reads of an uncompressed chunk fetch only their bytes, until
/// that chunk has been read in part about once per 16 KiB of it: then it is
/// read whole into the cache, and later reads fetch nothing (a loop of
/// `nc_get_var1` over one chunk). (Not shards; the counting store is here.)
#[test]
fn repeated_small_reads_of_one_chunk_end_up_cached() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/points.zarr#mode=nczarr,file", dir.path().display());
    // 128 x 128 ints in one 64 KiB chunk: five reads in part, then whole
    let mut ds = file::create(&url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 128).unwrap() as i32;
    let y = ds.def_dim(0, "y", 128).unwrap() as i32;
    ds.def_var(0, "v", NC_INT, &[x, y]).unwrap();
    ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&[128, 128])).unwrap();
    ds.enddef().unwrap();
    let all: Vec<i32> = (0..128 * 128).collect();
    put(&mut ds, &[0, 0], &[128, 128], &all);
    ds.close().unwrap();
    let (ds, c) = open_counted(&url);
    for i in 0..4u64 {
        assert_eq!(get(&ds, &[i, 7], &[1, 1]).unwrap(), vec![(i * 128 + 7) as i32]);
        assert_eq!(c.take(), (4, 1), "read {i}: its 4 bytes");
    }
    assert_eq!(get(&ds, &[100, 1], &[1, 1]).unwrap(), vec![100 * 128 + 1]);
    assert_eq!(c.take(), (128 * 128 * 4, 1), "the fifth: the whole chunk");
    for i in 0..100u64 {
        assert_eq!(get(&ds, &[i, i], &[1, 1]).unwrap(), vec![(i * 128 + i) as i32]);
    }
    assert_eq!(c.take(), (0, 0), "then from the cache");
}

/// Whole shards written in parallel by several writers at once, each
/// shard encoding its inner chunks in parallel: a worker waiting for its
/// inner chunks may run another shard's write on the same thread (rayon's
/// work stealing), which used to find the thread's chunk buffer borrowed
/// and panic ("RefCell already borrowed"; a clean-clone CI run met it).
#[test]
fn nested_parallel_shard_writes_share_no_buffer() {
    let dir = tempfile::tempdir().unwrap();
    // four writers at once, as the tests of this file run
    std::thread::scope(|s| {
        for t in 0..4 {
            let dir = dir.path();
            s.spawn(move || shard_writes(dir, t));
        }
    });
}

fn shard_writes(dir: &std::path::Path, t: usize) {
    for round in 0..10 {
        let url = format!("file://{}/n{t}-{round}.zarr#mode=zarr,v3,file", dir.display());
        let mut ds = file::create(&url, NC_CLOBBER).unwrap();
        let x = ds.def_dim(0, "x", 256).unwrap() as i32;
        let y = ds.def_dim(0, "y", 256).unwrap() as i32;
        ds.def_var(0, "v", NC_INT, &[x, y]).unwrap();
        ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&[8, 8])).unwrap();
        ds.def_var_codec_filter(0, 0, 32015, &[1]).unwrap();
        ds.def_var_shard(0, 0, &[32, 32]).unwrap();
        ds.enddef().unwrap();
        let all: Vec<i32> = (0..256 * 256).collect();
        put(&mut ds, &[0, 0], &[256, 256], &all);
        ds.close().unwrap();
        let ds = file::open(&url, NC_NOWRITE).unwrap();
        assert_eq!(get(&ds, &[0, 0], &[256, 256]).unwrap(), all);
    }
}

#[test]
fn writes_stay_visible_through_the_inner_chunk_cache() {
    let dir = tempfile::tempdir().unwrap();
    check_writes(&format!("file://{}/w.zarr#mode=nczarr,v3,file", dir.path().display()));
}

#[test]
fn shards_are_v3_only_and_multiples_of_the_chunks() {
    let mut ds = file::create("mem://shards/v2", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 10).unwrap() as i32;
    ds.def_var(0, "v", NC_INT, &[x]).unwrap();
    assert_eq!(ds.def_var_shard(0, 0, &[10]).unwrap_err().code(), NC_EINVAL);
    let mut ds = file::create("mem://shards/v3#mode=nczarr,v3", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 10).unwrap() as i32;
    ds.def_var(0, "v", NC_INT, &[x]).unwrap();
    ds.def_var(0, "s", NC_INT, &[]).unwrap();
    ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&[4])).unwrap();
    assert_eq!(ds.def_var_shard(0, 0, &[6]).unwrap_err().code(), NC_EBADCHUNK);
    assert_eq!(ds.def_var_shard(0, 0, &[0]).unwrap_err().code(), NC_EBADCHUNK);
    assert_eq!(ds.def_var_shard(0, 1, &[1]).unwrap_err().code(), NC_EINVAL);
    ds.def_var_shard(0, 0, &[8]).unwrap();
    // chunks that no longer divide the shard
    assert_eq!(ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&[3])).unwrap_err().code(), NC_EBADCHUNK);
    ds.enddef().unwrap();
    assert_eq!(ds.def_var_shard(0, 0, &[4]).unwrap_err().code(), NC_ELATEDEF);
}

/// A shard whose index points outside it, or claims huge inner chunks, or
/// fails its checksum: an error, and nothing allocated from it.
#[test]
fn hostile_indexes_are_errors() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/h.zarr#mode=zarr,v3,file", dir.path().display());
    create(&url, false);
    let shard = dir.path().join("h.zarr/v/c/1/0");
    let good = std::fs::read(&shard).unwrap();
    let index_at = good.len() - INDEX_BYTES as usize;
    let with_entry = |n: usize, off: u64, len: u64| {
        let mut b = good.clone();
        b[index_at + 16 * n..index_at + 16 * n + 8].copy_from_slice(&off.to_le_bytes());
        b[index_at + 16 * n + 8..index_at + 16 * n + 16].copy_from_slice(&len.to_le_bytes());
        let sum = crc32c::crc32c(&b[index_at..b.len() - 4]);
        let end = b.len();
        b[end - 4..].copy_from_slice(&sum.to_le_bytes());
        b
    };
    let cases = [
        with_entry(0, 0, u64::MAX - 1),          // huge
        with_entry(0, u64::MAX - 3, 8),          // offset overflows
        with_entry(0, good.len() as u64, 256),   // past the end
        with_entry(0, index_at as u64 - 8, 256), // into the index
        with_entry(0, 0, 255),                   // too short to decode
        good[..good.len() - 1].to_vec(),         // bad checksum
        good[..10].to_vec(),                     // no room for the index
    ];
    for (i, bytes) in cases.iter().enumerate() {
        std::fs::write(&shard, bytes).unwrap();
        let ds = file::open(&url, NC_NOWRITE).unwrap();
        for (start, count) in [([32, 0], [1, 1]), ([32, 0], [32, 64])] {
            let r = get(&ds, &start, &count);
            assert!(matches!(r, Err(NC_EFILTER | NC_ENCZARR)), "case {i} {count:?}: {r:?}");
        }
        // the other shard reads
        assert_eq!(get(&ds, &[20, 20], &[1, 1]).unwrap(), vec![value(20, 20)]);
    }
}

/// Shards whose inner codec this build does not have: `NC_ENOFILTER` for
/// every read, even of an inner chunk that is not stored.
#[test]
fn unknown_inner_codec_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/u.zarr#mode=nczarr,v3,file", dir.path().display());
    create(&url, true);
    let meta = dir.path().join("u.zarr/v/zarr.json");
    let text = std::fs::read_to_string(&meta).unwrap();
    let changed = text.replace(
        r#"{"name": "zstd", "configuration": {"level": 3, "checksum": false}}"#,
        r#"{"name": "numcodecs.nope"}"#,
    );
    assert_ne!(text, changed);
    std::fs::write(&meta, changed).unwrap();
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    for (start, count) in [([3, 3], [1, 1]), ([40, 40], [1, 1]), ([0, 0], [64, 64])] {
        assert_eq!(get(&ds, &start, &count), Err(NC_ENOFILTER), "{start:?}");
    }
}
