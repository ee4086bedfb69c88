//! Memory of the data path: a large read or write costs the caller's buffer
//! plus a bounded amount (chunks in flight), never memory per element.
//!
//! A float32 variable of 2*10^7 elements (80 MB) in chunks of 10^6 is
//! written whole, read whole, read with a stride and read through a memory
//! map (`varm`), through the C API, on the file driver. After each call the
//! process's peak RSS may exceed its value before the
//! caller's buffer was allocated by at most the buffer plus [`allowance`]
//! (Linux: the peak comes from `/proc/self/status`).
//! Peak RSS is per process, so this file holds one test, and it runs the
//! chunk pool on two threads (`RAYON_NUM_THREADS`) so that the bound does
//! not depend on the machine. The data path of 2026-11 listed ~16 bytes per
//! element (a 1-D read of 2*10^7 floats peaked 320 MB above its buffer).

#![cfg(target_os = "linux")]

use nczarr_rs::engine::consts::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use std::ffi::CString;

const N: usize = 20_000_000;
const CHUNK: usize = 1_000_000;
const THREADS: u64 = 2;
/// Working memory besides the chunk buffers: allocator slack, thread
/// stacks, metadata, page tables of the buffer.
const SLACK: u64 = 32 << 20;

/// What the library may add to the caller's buffer: per worker thread, a
/// reused chunk buffer and the chunk being converted, plus [`SLACK`].
fn allowance() -> u64 {
    SLACK + THREADS * 2 * (CHUNK as u64 * 4)
}

/// Peak resident set size of this process, in bytes: `VmHWM` of
/// `/proc/self/status`. (`getrusage`'s `ru_maxrss` also counts the process
/// before its `exec`, here cargo, which would hide the first ~100 MB.)
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).expect("VmHWM in /proc/self/status");
    let kib: u64 = line.split_whitespace().nth(1).unwrap().parse().unwrap();
    kib * 1024
}

fn ok(rc: i32, what: &str) {
    assert_eq!(rc, 0, "{what}: {rc}");
}

#[test]
fn large_requests_cost_their_buffer_and_a_bounded_amount() {
    // Before any pool exists (the only test of this process).
    std::env::set_var("RAYON_NUM_THREADS", THREADS.to_string());
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(format!("file://{}/big.zarr#mode=nczarr,file", dir.path().display())).unwrap();
    let base = peak_rss();
    let mut buf: Vec<f32> = (0..N).map(|i| (i % 1_000_003) as f32).collect();
    let bytes = (N * 4) as u64;
    let check = |what: &str| {
        let grew = peak_rss().saturating_sub(base);
        eprintln!("{what}: peak RSS grew {} MB for a {} MB buffer", grew >> 20, bytes >> 20);
        assert!(
            grew <= bytes + allowance(),
            "{what}: peak RSS grew by {grew} bytes, more than the buffer ({bytes}) + {}",
            allowance()
        );
    };
    unsafe {
        let (mut nc, mut x, mut v) = (0, 0, 0);
        ok(nc_create(path.as_ptr(), NC_CLOBBER, &mut nc), "create");
        ok(nc_def_dim(nc, c"x".as_ptr(), N, &mut x), "def_dim");
        ok(nc_def_var(nc, c"v".as_ptr(), NC_FLOAT, 1, &x, &mut v), "def_var");
        ok(nc_def_var_chunking(nc, v, NC_CHUNKED, &CHUNK), "chunking");
        ok(nc_def_var_fill(nc, v, 1, std::ptr::null()), "nofill");
        ok(nc_enddef(nc), "enddef");
        ok(nc_put_var_float(nc, v, buf.as_ptr()), "put_var");
        ok(nc_close(nc), "close");
        check("write");

        ok(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), "open");
        buf.fill(-1.0);
        ok(nc_get_var_float(nc, v, buf.as_mut_ptr()), "get_var");
        assert!(buf.iter().enumerate().all(|(i, &f)| f == (i % 1_000_003) as f32), "values read");
        check("read");

        let (start, count, stride) = (5usize, (N - 5).div_ceil(3), 3isize);
        buf.fill(-1.0);
        ok(nc_get_vars_float(nc, v, &start, &count, &stride, buf.as_mut_ptr()), "get_vars");
        assert!((0..count).all(|k| buf[k] == ((5 + 3 * k) % 1_000_003) as f32), "values read with a stride");
        check("strided read");

        // every other element of memory: a map that does not alias
        let (count, imap) = (N / 2, 2isize);
        buf.fill(-1.0);
        ok(nc_get_varm_float(nc, v, &0, &count, &1, &imap, buf.as_mut_ptr()), "get_varm");
        assert!((0..count).all(|k| buf[2 * k] == (k % 1_000_003) as f32 && buf[2 * k + 1] == -1.0), "varm");
        check("mapped read");
        ok(nc_close(nc), "close");
    }
}
