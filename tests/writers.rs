//! Several writers of one dataset lose nothing (docs/RELIABILITY.md,
//! "Multiple writers"): separate processes (this test binary run again as a
//! child, `NCZARR_RS_WRITERS_CHILD`) writing disjoint parts of shared
//! chunks, or appending records to one unlimited dimension; two handles in
//! one process writing overlapping slabs (last writer wins per element);
//! a zip archive rewritten under another writer (an error, not a loss);
//! and `nc_close`/`nc_abort` racing with another thread's writes (the
//! writer gets `NC_EBADID` or its data is kept).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::{NC_EBADID, NC_NOERR};
use nczarr_rs::ffi::atts::nc_put_att_text;
use nczarr_rs::ffi::data::{nc_get_var_int, nc_put_vara_int};
use nczarr_rs::ffi::files::{nc_abort, nc_close, nc_create, nc_def_dim, nc_enddef, nc_inq_dimlen, nc_open, nc_sync};
use nczarr_rs::ffi::vars::{nc_def_var, nc_def_var_chunking, nc_inq_varid, nc_rename_var};
use std::collections::BTreeMap;
use std::ffi::CString;
use std::io::{BufRead, BufReader};
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

#[path = "support/s3_server.rs"]
mod s3_server;
use s3_server::cloud_server;

const CHILD: &str = "NCZARR_RS_WRITERS_CHILD";

fn ok(rc: i32, what: &str) {
    assert_eq!(rc, NC_NOERR, "{what}: {rc}");
}

fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Creates `v(x)` of `len` ints (`dim` unlimited if `len` is 0) in chunks
/// of `chunk`, with a second fixed dimension of `width` when not 0.
fn create(path: &str, len: usize, width: usize, chunk: &[usize]) {
    unsafe {
        let mut nc = 0;
        ok(nc_create(c(path).as_ptr(), NC_CLOBBER, &mut nc), "create");
        let mut dims = [0; 2];
        ok(nc_def_dim(nc, c"x".as_ptr(), len, &mut dims[0]), "def_dim x");
        let rank = if width > 0 {
            ok(nc_def_dim(nc, c"w".as_ptr(), width, &mut dims[1]), "def_dim w");
            2
        } else {
            1
        };
        let mut v = 0;
        ok(nc_def_var(nc, c"v".as_ptr(), NC_INT, rank, dims.as_ptr(), &mut v), "def_var");
        ok(nc_def_var_chunking(nc, v, NC_CHUNKED, chunk.as_ptr()), "chunking");
        ok(nc_enddef(nc), "enddef");
        ok(nc_close(nc), "close");
    }
}

fn open(path: &str, mode: i32) -> (i32, i32) {
    let (mut nc, mut v) = (0, 0);
    unsafe {
        ok(nc_open(c(path).as_ptr(), mode, &mut nc), "open");
        ok(nc_inq_varid(nc, c"v".as_ptr(), &mut v), "inq_varid");
    }
    (nc, v)
}

/// Every value of `v` and the length of its first dimension.
fn read_all(path: &str) -> (Vec<i32>, usize) {
    let (nc, v) = open(path, NC_NOWRITE);
    let mut len = 0;
    unsafe {
        ok(nc_inq_dimlen(nc, 0, &mut len), "inq_dimlen");
        let mut w = 1;
        if nc_inq_dimlen(nc, 1, &mut w) != NC_NOERR {
            w = 1;
        }
        let mut out = vec![0i32; len * w];
        ok(nc_get_var_int(nc, v, out.as_mut_ptr()), "get_var");
        ok(nc_close(nc), "close");
        (out, len)
    }
}

fn put(nc: i32, v: i32, start: &[usize], count: &[usize], values: &[i32]) -> i32 {
    unsafe { nc_put_vara_int(nc, v, start.as_ptr(), count.as_ptr(), values.as_ptr()) }
}

fn epoch_ms() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_millis()
}

/// Runs this binary's `child` test as `n` processes at once, each told its
/// number and the `job`; waits for all (60 s at most) and checks they passed.
fn run_children(job: &str, path: &str, n: usize) {
    let exe = std::env::current_exe().unwrap();
    // all start at the same moment, once every process is up
    let go = epoch_ms() + 300 + 50 * n as u128;
    let children: Vec<_> = (0..n)
        .map(|i| {
            Command::new(&exe)
                .args(["--exact", "child", "--nocapture", "--test-threads=1", "-q"])
                .env(CHILD, format!("{job}|{path}|{i}|{n}|{go}"))
                .stdout(std::process::Stdio::null())
                .spawn()
                .expect("the test binary runs")
        })
        .collect();
    let start = Instant::now();
    for mut ch in children {
        loop {
            if let Some(status) = ch.try_wait().unwrap() {
                assert!(status.success(), "{job}: a writer process failed ({status})");
                break;
            }
            if start.elapsed() > Duration::from_secs(60) {
                let _ = ch.kill();
                panic!("{job}: a writer process hung");
            }
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

/// The writer processes (does nothing unless started by `run_children`).
#[test]
fn child() {
    let Ok(spec) = std::env::var(CHILD) else { return };
    let parts: Vec<&str> = spec.split('|').collect();
    let (job, path, me, n): (&str, &str, usize, usize) =
        (parts[0], parts[1], parts[2].parse().unwrap(), parts[3].parse().unwrap());
    let go: u128 = parts[4].parse().unwrap();
    while epoch_ms() < go {
        std::thread::sleep(Duration::from_millis(1));
    }
    match job {
        "quarters" => quarters_writer(path, me, n),
        "append" => append_writer(path, me, n),
        "generations" => generations_writer(path),
        other => panic!("unknown job {other}"),
    }
}

const ROUNDS: i32 = 40;
const QUARTER: usize = 25;

/// Writes its quarter of the one chunk of `v`, ROUNDS times, each time a
/// new value, reopening or syncing in between.
fn quarters_writer(path: &str, me: usize, _n: usize) {
    let (mut nc, mut v) = open(path, NC_WRITE);
    for round in 0..ROUNDS {
        let values = vec![round * 100 + me as i32; QUARTER];
        ok(put(nc, v, &[me * QUARTER], &[QUARTER], &values), "put");
        if round % 2 == 0 {
            ok(nc_sync(nc), "sync");
        } else {
            ok(nc_close(nc), "close");
            (nc, v) = open(path, NC_WRITE);
        }
    }
    ok(nc_close(nc), "close");
}

fn quarters_check(path: &str) {
    let (got, _) = read_all(path);
    for (i, &x) in got.iter().enumerate() {
        let me = (i / QUARTER) as i32;
        assert_eq!(x, (ROUNDS - 1) * 100 + me, "element {i}: a writer's last update was lost");
    }
}

/// Disjoint hyperslabs of one chunk written by four processes at once:
/// every process's last values are there (the chunk's write-back merges
/// only the elements each wrote into the chunk as stored).
#[test]
fn processes_writing_disjoint_parts_of_one_chunk_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("shared.zarr");
    let path = path.to_str().unwrap();
    create(path, 4 * QUARTER, 0, &[4 * QUARTER]);
    run_children("quarters", path, 4);
    quarters_check(path);
    // the lock file is gone with the last writer: the store holds Zarr
    // objects only (zarr-python warns about any other file)
    let (nc, _) = open(path, NC_NOWRITE);
    ok(nc_close(nc), "close");
    assert!(!dir.path().join("shared.zarr/.nczarr-rs.lock").exists());
}

/// The lock file lives while a writer uses it: a second writer's close
/// leaves it to the first, whose close deletes it; a new writer after that
/// makes a new one, and the two handles' writes still exclude each other.
#[test]
fn the_lock_file_lasts_as_long_as_its_writers() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("lock.zarr");
    let path = path.to_str().unwrap();
    let lock = dir.path().join("lock.zarr/.nczarr-rs.lock");
    create(path, 8, 0, &[4]);
    assert!(!lock.exists(), "created and closed: no lock file");
    let (a, va) = open(path, NC_WRITE);
    let (b, vb) = open(path, NC_WRITE);
    let one = [1i32];
    ok(unsafe { nc_put_vara_int(a, va, [0usize].as_ptr(), [1usize].as_ptr(), one.as_ptr()) }, "put a");
    ok(nc_sync(a), "sync a");
    assert!(lock.is_file(), "a writer holds it");
    ok(unsafe { nc_put_vara_int(b, vb, [5usize].as_ptr(), [1usize].as_ptr(), one.as_ptr()) }, "put b");
    ok(nc_close(b), "close b");
    assert!(lock.is_file(), "a still uses it");
    ok(nc_close(a), "close a");
    assert!(!lock.exists(), "the last writer deleted it");
    // and again, from scratch
    let (c, vc) = open(path, NC_WRITE);
    ok(unsafe { nc_put_vara_int(c, vc, [7usize].as_ptr(), [1usize].as_ptr(), one.as_ptr()) }, "put c");
    ok(nc_close(c), "close c");
    assert!(!lock.exists());
    let (got, _) = read_all(path);
    assert_eq!([got[0], got[5], got[7]], [1, 1, 1]);
}

/// Writers that close at the same moment still leave no lock file: each
/// gives up its shared hold before trying for the exclusive one, so the
/// last of them always gets it (holding on while trying, two closers could
/// each see the other and both leave the file: MPI ranks closing together
/// left it in one CI run in three).
#[test]
fn writers_closing_together_leave_no_lock_file() {
    const HANDLES: usize = 4;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("together.zarr");
    let path = path.to_str().unwrap();
    let lock = dir.path().join("together.zarr/.nczarr-rs.lock");
    create(path, 4 * HANDLES, 0, &[4 * HANDLES]);
    for round in 0..200 {
        let handles: Vec<_> = (0..HANDLES).map(|_| open(path, NC_WRITE)).collect();
        for (i, &(nc, v)) in handles.iter().enumerate() {
            let x = [round];
            ok(unsafe { nc_put_vara_int(nc, v, [4 * i].as_ptr(), [1usize].as_ptr(), x.as_ptr()) }, "put");
            ok(nc_sync(nc), "sync");
        }
        assert!(lock.is_file(), "round {round}: the writers hold it");
        let start = std::sync::Barrier::new(HANDLES);
        std::thread::scope(|s| {
            for &(nc, _) in &handles {
                let start = &start;
                s.spawn(move || {
                    start.wait();
                    ok(nc_close(nc), "close");
                });
            }
        });
        assert!(!lock.exists(), "round {round}: writers that closed together left the lock file");
    }
    let (got, _) = read_all(path);
    assert!((0..HANDLES).all(|i| got[4 * i] == 199));
}

/// The same on S3, when a server is there (scripts/s3-server.sh):
/// conditional PUTs instead of the lock file.
#[test]
fn processes_writing_disjoint_parts_of_one_s3_chunk_lose_nothing() {
    let Some(base) = s3_server::base_url("writers on S3") else { return };
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    let url = format!("{base}/writers{run}/shared.zarr#mode=nczarr,s3");
    create(&url, 4 * QUARTER, 0, &[4 * QUARTER]);
    run_children("quarters", &url, 4);
    quarters_check(&url);
}

/// The same on Google Cloud Storage (generation-matched PUTs) and Azure
/// (ETag-matched PUTs), when their servers are there
/// (scripts/azurite-server.sh; GCS: docs/CLOUD.md).
#[test]
fn processes_writing_disjoint_parts_of_one_gcs_or_azure_chunk_lose_nothing() {
    for (service, env, mode) in [("gcs", "NCZARR_RS_GCS_TEST_URL", "gs3"), ("azure", "NCZARR_RS_AZURE_TEST_URL", "az")]
    {
        let Some(base) = cloud_server::base_url(service, env, "writers") else { continue };
        let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
        let url = format!("{base}/writers{run}/shared.zarr#mode=nczarr,{mode}");
        create(&url, 4 * QUARTER, 0, &[4 * QUARTER]);
        run_children("quarters", &url, 4);
        quarters_check(&url);
    }
}

const BLOCK: usize = 3;
const BLOCKS: usize = 24;
const WIDTH: usize = 4;

/// Appends its blocks of records (block `b` belongs to writer `b % n`),
/// syncing after each, so that the records of several writers share chunks.
fn append_writer(path: &str, me: usize, n: usize) {
    let (nc, v) = open(path, NC_WRITE);
    for b in (me..BLOCKS).step_by(n) {
        let values: Vec<i32> = (0..BLOCK * WIDTH).map(|i| (b * BLOCK * WIDTH + i) as i32 + 1).collect();
        ok(put(nc, v, &[b * BLOCK, 0], &[BLOCK, WIDTH], &values), "put records");
        ok(nc_sync(nc), "sync");
    }
    ok(nc_close(nc), "close");
}

/// Processes appending disjoint record ranges to one unlimited dimension:
/// all records are kept, and the dimension ends as the largest length
/// any of them wrote.
#[test]
fn processes_appending_records_keep_all_records() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records.zarr");
    appending_records(path.to_str().unwrap(), path.to_str().unwrap());
}

/// The same in Zarr v3, whose lengths live in `zarr.json`.
#[test]
fn processes_appending_records_keep_all_records_in_zarr_v3() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("records3.zarr");
    let url = format!("file://{}#mode=nczarr,v3,file", path.display());
    appending_records(&url, path.to_str().unwrap());
    assert!(path.join("zarr.json").is_file() && !path.join(".zgroup").exists(), "a v3 store");
}

/// `run_children("append")` on a new dataset created at `create_path`,
/// opened by the writers at `path`.
fn appending_records(create_path: &str, path: &str) {
    // chunks of 8 records: blocks of 3 from different writers share them
    create(create_path, NC_UNLIMITED as usize, WIDTH, &[8, WIDTH]);
    run_children("append", path, 3);
    let (got, len) = read_all(path);
    assert_eq!(len, BLOCK * BLOCKS, "the record dimension is the longest length written");
    let want: Vec<i32> = (0..BLOCK * BLOCKS * WIDTH).map(|i| i as i32 + 1).collect();
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_eq!(g, w, "record {} lost (element {i})", i / WIDTH);
    }
}

/// Two handles of one process write overlapping slabs of one chunk: each
/// element has the value of the handle that wrote it last (the later
/// write-back), the rest of each handle's values are kept.
#[test]
fn overlapping_writes_last_writer_wins_per_element() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("overlap.zarr");
    for path in [file.to_str().unwrap().to_string(), "mem://writers-overlap#mode=nczarr".to_string()] {
        create(&path, 100, 0, &[100]);
        let (a, va) = open(&path, NC_WRITE);
        let (b, vb) = open(&path, NC_WRITE);
        ok(put(a, va, &[0], &[60], &[1; 60]), "put a");
        ok(put(b, vb, &[40], &[60], &[2; 60]), "put b");
        ok(nc_close(a), "close a"); // written first
        ok(nc_close(b), "close b"); // merged into a's chunk, then written
        let (got, _) = read_all(&path);
        assert!(got[..40].iter().all(|&x| x == 1), "{path}: a's own elements");
        assert!(got[40..].iter().all(|&x| x == 2), "{path}: b wrote 40..100 last");
        // and the other order
        let (a, va) = open(&path, NC_WRITE);
        let (b, vb) = open(&path, NC_WRITE);
        ok(put(a, va, &[0], &[60], &[3; 60]), "put a");
        ok(put(b, vb, &[40], &[60], &[4; 60]), "put b");
        ok(nc_close(b), "close b");
        ok(nc_close(a), "close a");
        let (got, _) = read_all(&path);
        assert!(got[..60].iter().all(|&x| x == 3), "{path}: a wrote 0..60 last");
        assert!(got[60..].iter().all(|&x| x == 4), "{path}: b's own elements");
    }
}

/// Two handles append to one unlimited dimension; the one that wrote
/// fewer records closes last: the dimension keeps the longer length (the
/// lengths stored are merged in under the lock, in every format), and
/// every record of both is there.
#[test]
fn shorter_writer_closing_last_keeps_the_longer_length() {
    let dir = tempfile::tempdir().unwrap();
    let v2 = dir.path().join("short2.zarr");
    let v3 = dir.path().join("short3.zarr");
    let v3_url = format!("file://{}#mode=nczarr,v3,file", v3.display());
    for (create_path, path) in [(v2.to_str().unwrap(), v2.to_str().unwrap()), (v3_url.as_str(), v3.to_str().unwrap())] {
        create(create_path, NC_UNLIMITED as usize, WIDTH, &[8, WIDTH]);
        let (a, va) = open(path, NC_WRITE);
        let (b, vb) = open(path, NC_WRITE);
        ok(put(a, va, &[10, 0], &[10, WIDTH], &[1; 10 * WIDTH]), "put a");
        ok(put(b, vb, &[0, 0], &[10, WIDTH], &[2; 10 * WIDTH]), "put b");
        ok(nc_close(a), "close a"); // 20 records
        ok(nc_close(b), "close b"); // 10 records of its own, closes last
        let (got, len) = read_all(path);
        assert_eq!(len, 20, "{path}: the longer length is kept");
        assert!(got[..10 * WIDTH].iter().all(|&x| x == 2), "{path}: b's records");
        assert!(got[10 * WIDTH..].iter().all(|&x| x == 1), "{path}: a's records");
    }
}

/// Every metadata object of a `file` store (`.z*`, `zarr.json`): its
/// bytes, inode and modification time, by path below the store.
fn metadata_objects(store: &Path) -> BTreeMap<String, (Vec<u8>, u64, i64, i64)> {
    use std::os::unix::fs::MetadataExt;
    let mut out = BTreeMap::new();
    let mut todo = vec![store.to_path_buf()];
    while let Some(dir) = todo.pop() {
        for e in std::fs::read_dir(&dir).unwrap() {
            let p = e.unwrap().path();
            let name = p.file_name().unwrap().to_string_lossy().to_string();
            if p.is_dir() {
                todo.push(p);
            } else if (name.starts_with(".z") || name == "zarr.json") && name != ".nczarr-rs.lock" {
                let m = std::fs::metadata(&p).unwrap();
                let key = p.strip_prefix(store).unwrap().to_string_lossy().to_string();
                out.insert(key, (std::fs::read(&p).unwrap(), m.ino(), m.mtime(), m.mtime_nsec()));
            }
        }
    }
    out
}

/// Rewrites every metadata object of a `file` store as another program
/// lays out the same JSON (indented, as xarray and zarr-python write it).
fn relayout(store: &Path) {
    for key in metadata_objects(store).keys() {
        let p = store.join(key);
        let value: serde_json::Value = serde_json::from_slice(&std::fs::read(&p).unwrap()).unwrap();
        std::fs::write(&p, serde_json::to_string_pretty(&value).unwrap()).unwrap();
    }
}

/// A writer that defines nothing writes no metadata object, whatever
/// program laid out the JSON it read (here indented, as by xarray or
/// zarr-python, where this library writes one line): every object keeps
/// its bytes, inode and time, with fixed or unlimited dimensions, in Zarr
/// v2 and v3. Until this was fixed, each such writer rewrote every object
/// in its own layout at close (many writers of an xarray template all did;
/// docs/PARALLEL.md). A writer that changes an attribute rewrites that
/// object only, and a variable renamed away and back is still all there.
#[test]
fn a_writer_that_defines_nothing_writes_no_metadata() {
    let dir = tempfile::tempdir().unwrap();
    for (name, mode, len, changed) in [
        ("fixed.zarr", "nczarr", 8, "v/.zattrs"),
        ("unlimited.zarr", "nczarr", NC_UNLIMITED as usize, "v/.zattrs"),
        ("v3.zarr", "nczarr,v3", 8, "v/zarr.json"),
    ] {
        let store = dir.path().join(name);
        let path = store.to_str().unwrap();
        create(&format!("file://{path}#mode={mode},file"), len, WIDTH, &[4, WIDTH]);
        if len == NC_UNLIMITED as usize {
            let (nc, v) = open(path, NC_WRITE); // sized by the first writer
            ok(put(nc, v, &[0, 0], &[8, WIDTH], &[1; 8 * WIDTH]), "size");
            ok(nc_close(nc), "close");
        }
        relayout(&store);
        let before = metadata_objects(&store);
        assert!(before.len() >= 2, "{name}: {:?}", before.keys());
        let (nc, v) = open(path, NC_WRITE);
        ok(put(nc, v, &[2, 0], &[2, WIDTH], &[7; 2 * WIDTH]), "put");
        ok(nc_close(nc), "close");
        assert_eq!(metadata_objects(&store), before, "{name}: a writer that defined nothing wrote metadata");
        let (got, n) = read_all(path);
        assert_eq!(n, 8, "{name}: length");
        assert!(got[2 * WIDTH..4 * WIDTH].iter().all(|&x| x == 7), "{name}: data");

        let (nc, v) = open(path, NC_WRITE);
        ok(unsafe { nc_put_att_text(nc, v, c"units".as_ptr(), 1, c"m".as_ptr()) }, "put_att");
        ok(nc_close(nc), "close");
        let after = metadata_objects(&store);
        let rewritten: Vec<&String> = after.keys().filter(|k| before.get(*k) != after.get(*k)).collect();
        assert_eq!(rewritten, [changed], "{name}: an attribute changes its object only");

        let (nc, v) = open(path, NC_WRITE);
        ok(unsafe { nc_rename_var(nc, v, c"w".as_ptr()) }, "rename");
        ok(unsafe { nc_rename_var(nc, v, c"v".as_ptr()) }, "rename back");
        ok(nc_close(nc), "close");
        let (got, n) = read_all(path);
        assert_eq!(n, 8, "{name}: length after renames");
        assert!(got[2 * WIDTH..4 * WIDTH].iter().all(|&x| x == 7), "{name}: data after renames");
    }
}

/// Two writers of an unlimited dimension: A grows it past the end and
/// closes first; B, which wrote within, takes A's length at its close and
/// finds A's objects already saying so: it writes no metadata (it rewrote
/// the same objects before), and both keep their records. In Zarr v2 and v3.
#[test]
fn a_writer_whose_length_another_grew_writes_no_metadata() {
    let dir = tempfile::tempdir().unwrap();
    for (name, mode) in [("grown2.zarr", "nczarr"), ("grown3.zarr", "nczarr,v3")] {
        let store = dir.path().join(name);
        let path = store.to_str().unwrap();
        create(&format!("file://{path}#mode={mode},file"), NC_UNLIMITED as usize, WIDTH, &[3, WIDTH]);
        let (nc, v) = open(path, NC_WRITE);
        ok(put(nc, v, &[0, 0], &[4, WIDTH], &[1; 4 * WIDTH]), "size");
        ok(nc_close(nc), "close");
        let (a, va) = open(path, NC_WRITE);
        let (b, vb) = open(path, NC_WRITE);
        ok(put(a, va, &[4, 0], &[6, WIDTH], &[2; 6 * WIDTH]), "put a");
        ok(put(b, vb, &[0, 0], &[2, WIDTH], &[3; 2 * WIDTH]), "put b");
        ok(nc_close(a), "close a");
        let grown = metadata_objects(&store);
        ok(nc_close(b), "close b");
        assert_eq!(metadata_objects(&store), grown, "{name}: b rewrote the metadata a wrote");
        let (got, n) = read_all(path);
        assert_eq!(n, 10, "{name}: a's length");
        assert!(got[..2 * WIDTH].iter().all(|&x| x == 3), "{name}: b's records");
        assert!(got[2 * WIDTH..4 * WIDTH].iter().all(|&x| x == 1), "{name}: the first records");
        assert!(got[4 * WIDTH..].iter().all(|&x| x == 2), "{name}: a's records");
    }
}

/// A zip archive is rewritten whole: a second writer whose archive was
/// replaced under it gets an error at close, and the first writer's
/// archive is intact.
#[test]
fn zip_rewritten_under_a_writer_is_an_error_not_a_loss() {
    let dir = tempfile::tempdir().unwrap();
    let path = format!("file://{}#mode=nczarr,zip", dir.path().join("z.zip").display());
    create(&path, 10, 0, &[10]);
    let (a, va) = open(&path, NC_WRITE);
    let (b, vb) = open(&path, NC_WRITE);
    ok(put(a, va, &[0], &[5], &[1; 5]), "put a");
    ok(put(b, vb, &[5], &[5], &[2; 5]), "put b");
    ok(nc_close(a), "close a");
    let rc = nc_close(b);
    assert_ne!(rc, NC_NOERR, "the second writer's close must fail, not overwrite the first's archive");
    ok(nc_abort(b), "abort b");
    let (got, _) = read_all(&path);
    assert_eq!(&got[..5], &[1; 5]);
}

/// `nc_close` (or `nc_abort`) of a dataset while another thread writes to
/// it: each write either succeeds before the close (and its values are in
/// the dataset after a close) or fails with `NC_EBADID`. Never success and
/// lost values.
#[test]
fn close_racing_with_writes_keeps_data_or_reports_ebadid() {
    let dir = tempfile::tempdir().unwrap();
    for (round, abort) in (0..16).map(|r| (r, r % 4 == 3)) {
        let path = dir.path().join(format!("race{round}.zarr"));
        let path = path.to_str().unwrap().to_string();
        // many small chunks, written one element at a time: partial
        // chunks, held dirty in the cache until the close writes them
        create(&path, 512, 0, &[16]);
        let (nc, v) = open(&path, NC_WRITE);
        let writer = std::thread::spawn(move || {
            let mut done = 0usize;
            loop {
                let rc = put(nc, v, &[done], &[1], &[done as i32 + 1]);
                if rc != NC_NOERR {
                    return (done, rc);
                }
                done += 1;
                if done == 512 {
                    return (done, NC_NOERR);
                }
            }
        });
        std::thread::sleep(Duration::from_micros(200 * (round as u64 % 5)));
        let rc = if abort { nc_abort(nc) } else { nc_close(nc) };
        ok(rc, "close");
        let (done, rc) = writer.join().unwrap();
        assert!(rc == NC_NOERR || rc == NC_EBADID, "a write after close: {rc}");
        if !abort {
            let (got, _) = read_all(&path);
            for (i, &x) in got.iter().enumerate().take(done) {
                assert_eq!(x, i as i32 + 1, "round {round}: element {i} was written (NC_NOERR) and then lost");
            }
        }
    }
}

// ---- kill -9 of a writer --------------------------------------------------

/// 4096 ints in chunks of 64: 64 chunk objects, rewritten in place.
const GEN_N: usize = 4096;
const GEN_CHUNK: usize = 64;

/// In generation g = 1, 2, ... writes g into every element, in pieces that
/// cross chunks, syncs, and prints "synced g"; runs until killed.
fn generations_writer(path: &str) {
    let (nc, v) = open(path, NC_WRITE);
    for g in 1.. {
        let values = vec![g; 1000];
        for start in (0..GEN_N).step_by(1000) {
            ok(put(nc, v, &[start], &[1000.min(GEN_N - start)], &values), "put");
        }
        ok(nc_sync(nc), "sync");
        println!("synced {g}");
    }
}

/// Temporary files anywhere in the store.
fn temporaries(dir: &Path) -> Vec<String> {
    let mut found = Vec::new();
    for e in std::fs::read_dir(dir).unwrap().flatten() {
        let p = e.path();
        if p.is_dir() {
            found.extend(temporaries(&p));
        } else if e.file_name().to_string_lossy().starts_with(".nczarr-rs-tmp.") {
            found.push(p.display().to_string());
        }
    }
    found
}

/// `kill -9` of a writer at a random moment, again and again: every value
/// the writer had synced (`nc_sync` returned) is still there, the dataset
/// still opens, nothing torn is ever read, and the temporary files of the
/// dead writer are gone after the next open for writing
/// (docs/RELIABILITY.md, "The file system"). `NCZARR_RS_CRASH_RUNS` sets
/// the number of kills (default 30); the figures go to standard error.
#[test]
fn kill_9_during_writes_loses_nothing_synced_and_leaves_no_temporary_files() {
    let runs: usize = std::env::var("NCZARR_RS_CRASH_RUNS").ok().and_then(|s| s.parse().ok()).unwrap_or(30);
    let dir = tempfile::tempdir().unwrap();
    let store = dir.path().join("crash.zarr");
    let path = store.to_str().unwrap().to_string();
    create(&path, GEN_N, 0, &[GEN_CHUNK]);
    let exe = std::env::current_exe().unwrap();
    let mut seed = 0x9e37_79b9_7f4a_7c15u64 ^ std::process::id() as u64;
    let (mut left_behind, mut torn_generations) = (0, 0);
    let mut synced_total = 0;
    for run in 0..runs {
        let mut child = Command::new(&exe)
            .args(["--exact", "child", "--nocapture", "--test-threads=1", "-q"])
            .env(CHILD, format!("generations|{path}|0|1|0"))
            .stdout(Stdio::piped())
            .spawn()
            .expect("the test binary runs");
        // kill it after a pseudo-random number of synced generations and
        // a pseudo-random delay into the next one's writes
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        let after = 1 + (seed % 4) as i32;
        let delay = Duration::from_micros(seed % 3000);
        let mut lines = BufReader::new(child.stdout.take().unwrap()).lines();
        let mut synced = 0;
        let start = Instant::now();
        while synced < after {
            let line = lines.next().expect("the writer is alive").unwrap();
            if let Some(g) = line.strip_prefix("synced ") {
                synced = g.trim().parse().unwrap();
            }
            assert!(start.elapsed() < Duration::from_secs(60), "run {run}: the writer is stuck");
        }
        std::thread::sleep(delay);
        unsafe { libc::kill(child.id() as i32, libc::SIGKILL) };
        let _ = child.wait();
        // whatever else it printed before dying was synced too
        for line in lines.map_while(Result::ok) {
            if let Some(g) = line.strip_prefix("synced ") {
                synced = synced.max(g.trim().parse().unwrap());
            }
        }
        synced_total += synced as usize;
        // every element holds a generation at least the last synced one,
        // and at most the one being written
        let (got, _) = read_all(&path);
        for (i, &x) in got.iter().enumerate() {
            assert!(x >= synced && x <= synced + 1, "run {run}: element {i} = {x}, last synced {synced}");
        }
        if got.iter().any(|&x| x != got[0]) {
            torn_generations += 1; // a generation half written: allowed, it was not synced
        }
        // a read-only open changed nothing; the next open for writing
        // removes the dead writer's temporary files
        left_behind += temporaries(&store).len().min(1);
        let (nc, _) = open(&path, NC_WRITE);
        ok(nc_close(nc), "close");
        let stale = temporaries(&store);
        assert!(stale.is_empty(), "run {run}: left after an open for writing: {stale:?}");
        // the next writer starts again at generation 1: a fresh dataset
        create(&path, GEN_N, 0, &[GEN_CHUNK]);
    }
    eprintln!(
        "crash: {runs} kill -9 runs, {synced_total} synced generations, none lost; \
         {torn_generations} runs killed mid-generation (unsynced, partly written: allowed); \
         {left_behind} runs left temporary files, all removed at the next open for writing"
    );
}
