//! The parallel engine (`engine::parallel`) with ranks that are threads
//! (`ThreadComm`): each thread opens the dataset with its own handle, as
//! an MPI process would, and every collective call is made by all of them.
//! Every type, independent and collective access, chunks written whole by
//! one rank and chunks shared by two, with and without zlib, on the file
//! driver and on S3 (the test server, when there is one); the store ends
//! with exactly the union of what the ranks wrote. Also: mismatched
//! define calls are an error on every rank, an independent write may not
//! grow an unlimited dimension (`NC_ECANTEXTEND`) and a collective one
//! grows it on every rank, and the modes a parallel dataset refuses.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::parallel::{self, Communicator, ThreadComm};
use std::sync::Arc;

#[path = "support/s3_server.rs"]
mod s3_server;

const RANKS: usize = 4;
/// rows (the first dimension) and columns
const ROWS: u64 = 8;
const COLS: u64 = 12;
/// chunks of 2 rows by 6 columns: rank r's rows 2r..2r+2 are whole chunks;
/// its columns 3r..3r+3 are half of a chunk shared with a neighbour
const CHUNK: [u64; 2] = [2, 6];

const TYPES: [NcType; 12] = [
    NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64,
    NC_STRING,
];

#[derive(Clone, Copy, Debug, PartialEq)]
enum Split {
    /// each rank whole chunks
    Rows,
    /// each rank half of each of its chunks
    Columns,
}

/// The value at (row, col): distinct per element, small enough for a byte.
fn value(row: u64, col: u64) -> i64 {
    ((row * COLS + col) % 100) as i64 + 1
}

fn slab_of(rank: usize, split: Split) -> ([u64; 2], [u64; 2]) {
    let r = rank as u64;
    match split {
        Split::Rows => ([2 * r, 0], [2, COLS]),
        Split::Columns => ([0, 3 * r], [ROWS, 3]),
    }
}

fn var_name(t: NcType) -> String {
    format!("v{t}")
}

/// Writes `slab` of the variable of type `t` with this rank's values.
fn put(ds: &mut Dataset, varid: i32, t: NcType, start: [u64; 2], count: [u64; 2]) -> i32 {
    let slab = match ds.slab(0, varid, Some(&start), Some(&count), None, None, true) {
        Ok(s) => s,
        Err(e) => return e.code(),
    };
    let cells: Vec<(u64, u64)> =
        (0..count[0]).flat_map(|i| (0..count[1]).map(move |j| (start[0] + i, start[1] + j))).collect();
    let rc = match t {
        NC_STRING => {
            let s: Vec<String> = cells.iter().map(|&(i, j)| format!("s{}", value(i, j))).collect();
            ds.put_slab(0, varid, &slab, MemIn::Strings(&s))
        }
        NC_CHAR => {
            let b: Vec<u8> = cells.iter().map(|&(i, j)| b'A' + (value(i, j) % 26) as u8).collect();
            ds.put_slab(0, varid, &slab, MemIn::Bytes { memtype: NC_CHAR, buf: &b })
        }
        _ => {
            let b: Vec<u8> = cells.iter().flat_map(|&(i, j)| value(i, j).to_ne_bytes()).collect();
            ds.put_slab(0, varid, &slab, MemIn::Bytes { memtype: NC_INT64, buf: &b })
        }
    };
    rc.err().map_or(NC_NOERR, |e| e.code())
}

/// Every value of the variable of type `t`, as text.
fn read_all(ds: &Dataset, t: NcType) -> Vec<String> {
    let varid = ds.find_var(0, &var_name(t)).unwrap() as i32;
    let slab = ds.slab(0, varid, None, None, None, None, false).unwrap();
    let n = slab.mem_elems();
    match t {
        NC_STRING => {
            let mut out = vec![String::new(); n];
            ds.get_slab(0, varid, &slab, MemOut::Strings(&mut out)).unwrap();
            out
        }
        NC_CHAR => {
            let mut out = vec![0u8; n];
            ds.get_slab(0, varid, &slab, MemOut::Bytes { memtype: NC_CHAR, buf: &mut out }).unwrap();
            out.iter().map(|b| (*b as char).to_string()).collect()
        }
        _ => {
            let mut out = vec![0u8; n * 8];
            ds.get_slab(0, varid, &slab, MemOut::Bytes { memtype: NC_INT64, buf: &mut out }).unwrap();
            out.chunks_exact(8).map(|b| i64::from_ne_bytes(b.try_into().unwrap()).to_string()).collect()
        }
    }
}

fn expected(t: NcType) -> Vec<String> {
    (0..ROWS)
        .flat_map(|i| (0..COLS).map(move |j| (i, j)))
        .map(|(i, j)| match t {
            NC_STRING => format!("s{}", value(i, j)),
            NC_CHAR => ((b'A' + (value(i, j) % 26) as u8) as char).to_string(),
            _ => value(i, j).to_string(),
        })
        .collect()
}

/// Runs `body(rank, comm)` on RANKS threads, each with its rank of one group.
fn on_ranks<R: Send>(body: impl Fn(Arc<dyn Communicator>) -> R + Sync) -> Vec<R> {
    let group: Vec<Arc<dyn Communicator>> =
        ThreadComm::group(RANKS).into_iter().map(|c| Arc::new(c) as Arc<dyn Communicator>).collect();
    std::thread::scope(|s| {
        let handles: Vec<_> = group.into_iter().map(|c| s.spawn(|| body(c))).collect();
        handles.into_iter().map(|h| h.join().expect("a rank panicked")).collect()
    })
}

/// Creates the dataset on every rank, writes it as `split` and `collective`
/// say, closes it; then checks what one reader sees.
fn write_and_check(url: &str, split: Split, collective: bool, zlib: bool, unlimited: bool) {
    write_and_check_with(url, split, collective, zlib, unlimited, false)
}

/// [`write_and_check`]; with `shards`, a Zarr v3 dataset (`url`) whose
/// variables (but strings) have shards of 4 x 12 (two ranks' rows, or
/// every rank's columns, in one stored object).
fn write_and_check_with(url: &str, split: Split, collective: bool, zlib: bool, unlimited: bool, shards: bool) {
    let what = format!("{url} {split:?} collective={collective} zlib={zlib} unlimited={unlimited} shards={shards}");
    on_ranks(|comm| {
        let rank = comm.rank();
        let mut ds = parallel::create(url, NC_CLOBBER | NC_MPIIO, comm).unwrap();
        let rows = ds.def_dim(0, "rows", if unlimited { 0 } else { ROWS }).unwrap() as i32;
        let cols = ds.def_dim(0, "cols", COLS).unwrap() as i32;
        for t in TYPES {
            let v = ds.def_var(0, &var_name(t), t, &[rows, cols]).unwrap() as i32;
            ds.def_var_chunking(0, v, NC_CHUNKED, Some(&CHUNK)).unwrap();
            if zlib && t != NC_STRING {
                ds.def_var_deflate(0, v, true, true, 1).unwrap();
            }
            if shards && t != NC_STRING {
                ds.def_var_shard(0, v, &[4, COLS]).unwrap();
            }
        }
        ds.enddef().unwrap();
        if collective {
            ds.var_par_access(0, NC_GLOBAL, true).unwrap();
        }
        let (start, count) = slab_of(rank, split);
        for t in TYPES {
            let v = ds.find_var(0, &var_name(t)).unwrap() as i32;
            let coll = ds.is_parallel() && (collective || (zlib && t != NC_STRING));
            let rc = put(&mut ds, v, t, start, count);
            if unlimited && !coll {
                // an independent write may not grow the dimension
                assert_eq!(rc, NC_ECANTEXTEND, "{what}: type {t} independent write past the end");
            } else {
                assert_eq!(rc, NC_NOERR, "{what}: type {t} rank {rank}");
            }
        }
        ds.close().unwrap();
    });
    let ds = file::open(url, NC_NOWRITE).unwrap();
    for t in TYPES {
        let coll = collective || (zlib && t != NC_STRING);
        if unlimited && !coll {
            continue;
        }
        assert_eq!(read_all(&ds, t), expected(t), "{what}: type {t}");
    }
    if unlimited {
        let len = if collective { ROWS } else { 0 };
        assert_eq!(ds.dims()[0].len, len, "{what}: the unlimited dimension's length");
    }
    // and every rank of a parallel open reads it all
    on_ranks(|comm| {
        let ds = parallel::open(url, NC_NOWRITE, comm).unwrap();
        let coll_types = TYPES.iter().filter(|&&t| !unlimited || collective || (zlib && t != NC_STRING));
        for &t in coll_types {
            assert_eq!(read_all(&ds, t), expected(t), "{what}: parallel read, type {t}");
        }
    });
}

fn file_url(dir: &std::path::Path, name: &str) -> String {
    format!("file://{}/{name}#mode=nczarr,file", dir.display())
}

#[test]
fn four_ranks_write_every_type_on_the_file_driver() {
    let dir = tempfile::tempdir().unwrap();
    for split in [Split::Rows, Split::Columns] {
        for collective in [false, true] {
            for zlib in [false, true] {
                let url = file_url(dir.path(), &format!("d-{split:?}-{collective}-{zlib}.zarr"));
                write_and_check(&url, split, collective, zlib, false);
            }
        }
    }
}

#[test]
fn four_ranks_write_shared_shards_of_zarr_v3() {
    let dir = tempfile::tempdir().unwrap();
    for split in [Split::Rows, Split::Columns] {
        for collective in [false, true] {
            let url = format!("file://{}/s-{split:?}-{collective}.zarr#mode=nczarr,v3,file", dir.path().display());
            write_and_check_with(&url, split, collective, split == Split::Rows, false, true);
        }
    }
}

#[test]
fn four_ranks_write_every_type_on_s3() {
    let Some(base) = s3_server::base_url("four_ranks_write_every_type_on_s3") else { return };
    for split in [Split::Rows, Split::Columns] {
        for collective in [false, true] {
            let url = format!("{base}/par-{split:?}-{collective}#mode=nczarr,s3");
            write_and_check(&url, split, collective, split == Split::Columns, false);
        }
    }
}

#[test]
fn collective_writes_grow_an_unlimited_dimension_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    for split in [Split::Rows, Split::Columns] {
        let url = file_url(dir.path(), &format!("u-{split:?}.zarr"));
        write_and_check(&url, split, true, false, true);
        let url = file_url(dir.path(), &format!("ui-{split:?}.zarr"));
        write_and_check(&url, split, false, false, true);
    }
    // every rank sees the new length right after the call, the largest
    // any rank wrote to (rank r writes record r only)
    let url = file_url(dir.path(), "records.zarr");
    on_ranks(|comm| {
        let rank = comm.rank() as u64;
        let mut ds = parallel::create(&url, NC_CLOBBER, comm).unwrap();
        let t = ds.def_dim(0, "t", 0).unwrap() as i32;
        let v = ds.def_var(0, &var_name(NC_INT), NC_INT, &[t]).unwrap() as i32;
        ds.enddef().unwrap();
        ds.var_par_access(0, v, true).unwrap();
        let slab = ds.slab(0, v, Some(&[rank]), Some(&[1]), None, None, true).unwrap();
        let b = (rank as i32 + 10).to_ne_bytes();
        ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_INT, buf: &b }).unwrap();
        assert_eq!(ds.dims()[0].len, RANKS as u64);
        // a rank that writes nothing still takes part
        let slab = ds.slab(0, v, Some(&[0]), Some(&[0]), None, None, true).unwrap();
        ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_INT, buf: &[] }).unwrap();
        ds.close().unwrap();
    });
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(read_all(&ds, NC_INT), ["10", "11", "12", "13"]);
}

#[test]
fn ranks_that_define_different_metadata_all_fail_and_write_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let url = file_url(dir.path(), "mismatch.zarr");
    let codes = on_ranks(|comm| {
        let rank = comm.rank();
        let mut ds = parallel::create(&url, NC_CLOBBER, comm).unwrap();
        let x = ds.def_dim(0, "x", 4).unwrap() as i32;
        let name = if rank == 2 { "other" } else { "v" };
        ds.def_var(0, name, NC_INT, &[x]).unwrap();
        ds.enddef().err().map(|e| e.code())
    });
    assert_eq!(codes, vec![Some(NC_EINVAL); RANKS]);
    assert!(file::open(&url, NC_NOWRITE).is_err(), "nothing may have been written");
}

#[test]
fn a_failing_rank_fails_a_collective_write_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let url = file_url(dir.path(), "fail.zarr");
    let codes = on_ranks(|comm| {
        let rank = comm.rank() as u64;
        let mut ds = parallel::create(&url, NC_CLOBBER, comm).unwrap();
        let x = ds.def_dim(0, "x", 4).unwrap() as i32;
        let v = ds.def_var(0, "v", NC_INT, &[x]).unwrap() as i32;
        ds.enddef().unwrap();
        ds.var_par_access(0, v, true).unwrap();
        // rank 3 writes past the end of a fixed dimension: its request
        // fails before the engine's write, and it takes part all the same
        let start = if rank == 3 { 9 } else { rank };
        let request = ds.slab(0, v, Some(&[start]), Some(&[1]), None, None, true);
        let b = 7i32.to_ne_bytes();
        let request = request.map(|s| Some((s, MemIn::Bytes { memtype: NC_INT, buf: &b })));
        let rc = ds.put_collective(0, v, request).err().map_or(NC_NOERR, |e| e.code());
        ds.close().unwrap();
        rc
    });
    assert_eq!(codes[3], NC_EINVALCOORDS);
    assert!(codes.iter().all(|&c| c == NC_EINVALCOORDS), "{codes:?}");
}

#[test]
fn par_access_rules() {
    let dir = tempfile::tempdir().unwrap();
    let url = file_url(dir.path(), "access.zarr");
    // not opened in parallel
    let mut ds = file::create(&url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 4).unwrap() as i32;
    ds.def_var(0, "v", NC_INT, &[x]).unwrap();
    assert_eq!(ds.var_par_access(0, 0, true).unwrap_err().code(), NC_ENOPAR);
    ds.close().unwrap();
    on_ranks(|comm| {
        let mut ds = parallel::open(&url, NC_WRITE, comm).unwrap();
        assert!(ds.is_parallel());
        assert_eq!(ds.var_par_access(0, 5, true).unwrap_err().code(), NC_ENOTVAR);
        ds.var_par_access(0, 0, true).unwrap();
        ds.var_par_access(0, 0, false).unwrap();
        ds.redef().unwrap();
        let z = ds.def_var(0, "z", NC_INT, &[0]).unwrap() as i32;
        ds.def_var_deflate(0, z, false, true, 1).unwrap();
        ds.enddef().unwrap();
        // a filtered variable's access is collective
        assert_eq!(ds.var_par_access(0, z, false).unwrap_err().code(), NC_EINVAL);
        ds.var_par_access(0, z, true).unwrap();
        ds.close().unwrap();
    });
}

#[test]
fn modes_a_parallel_dataset_refuses() {
    let dir = tempfile::tempdir().unwrap();
    let url = file_url(dir.path(), "modes.zarr");
    let zip = format!("file://{}/x.zip#mode=nczarr,zip", dir.path().display());
    for (path, mode) in [(&url, NC_DISKLESS), (&url, NC_INMEMORY), (&url, NC_MMAP), (&zip, 0)] {
        let codes = on_ranks(|comm| parallel::create(path, NC_CLOBBER | mode, comm).err().map(|e| e.code()));
        assert_eq!(codes, vec![Some(NC_EINVAL); RANKS], "{path} {mode:#x}");
    }
    // a missing dataset: the same error on every rank
    let missing = file_url(dir.path(), "missing.zarr");
    let codes = on_ranks(|comm| parallel::open(&missing, NC_NOWRITE, comm).err().map(|e| e.code()));
    assert!(codes.iter().all(|c| c.is_some() && *c == codes[0]), "{codes:?}");
}

#[test]
fn a_collective_write_of_different_variables_fails_on_every_rank() {
    let dir = tempfile::tempdir().unwrap();
    let url = file_url(dir.path(), "twovars.zarr");
    let codes = on_ranks(|comm| {
        let rank = comm.rank();
        let mut ds = parallel::create(&url, NC_CLOBBER, comm).unwrap();
        let t = ds.def_dim(0, "t", 0).unwrap() as i32;
        let x = ds.def_dim(0, "x", 4).unwrap() as i32;
        ds.def_var(0, "a", NC_INT, &[t, x]).unwrap();
        ds.def_var(0, "b", NC_INT, &[x]).unwrap();
        ds.enddef().unwrap();
        ds.var_par_access(0, NC_GLOBAL, true).unwrap();
        // rank 1 writes another variable (one with no unlimited dimension)
        let v = if rank == 1 { 1 } else { 0 };
        let request = ds.slab(0, v, None, None, None, None, true).map(|_| None);
        let rc = ds.put_collective(0, v, request).err().map_or(NC_NOERR, |e| e.code());
        ds.close().unwrap();
        rc
    });
    assert_eq!(codes, vec![NC_EINVAL; RANKS]);
}
