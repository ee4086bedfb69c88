//! fork() after the library has been used: the child can create, write
//! and read datasets of its own (its thread pools are made again; the
//! parent's worker threads do not exist in a child). Issue 10.

use nczarr_rs::engine::consts::*;
use nczarr_rs::ffi::data::{nc_get_var_int, nc_put_var_int};
use nczarr_rs::ffi::files::{nc_close, nc_create, nc_def_dim, nc_enddef, nc_open};
use nczarr_rs::ffi::vars::{nc_def_var, nc_def_var_chunking, nc_inq_varid};
use std::ffi::CString;
use std::time::{Duration, Instant};

/// Writes a 64 x 64 int variable in 64 chunks (so the chunk work runs on
/// the thread pool) and reads it back; true when every value came back.
fn write_and_read(path: &std::path::Path) -> bool {
    let p = CString::new(path.to_str().unwrap()).unwrap();
    let data: Vec<i32> = (0..64 * 64).collect();
    let mut back = vec![0i32; 64 * 64];
    unsafe {
        let (mut nc, mut dims, mut v) = (0, [0; 2], 0);
        let ok = nc_create(p.as_ptr(), NC_CLOBBER, &mut nc) == 0
            && nc_def_dim(nc, c"y".as_ptr(), 64, &mut dims[0]) == 0
            && nc_def_dim(nc, c"x".as_ptr(), 64, &mut dims[1]) == 0
            && nc_def_var(nc, c"v".as_ptr(), NC_INT, 2, dims.as_ptr(), &mut v) == 0
            && nc_def_var_chunking(nc, v, NC_CHUNKED, [8usize, 8].as_ptr()) == 0
            && nc_enddef(nc) == 0
            && nc_put_var_int(nc, v, data.as_ptr()) == 0
            && nc_close(nc) == 0
            && nc_open(p.as_ptr(), NC_NOWRITE, &mut nc) == 0
            && nc_inq_varid(nc, c"v".as_ptr(), &mut v) == 0
            && nc_get_var_int(nc, v, back.as_mut_ptr()) == 0
            && nc_close(nc) == 0;
        ok && back == data
    }
}

#[test]
fn a_forked_child_creates_writes_and_reads_datasets() {
    let dir = tempfile::tempdir().unwrap();
    assert!(write_and_read(&dir.path().join("parent.zarr")), "the parent's own use");
    let child_path = dir.path().join("child.zarr");
    // SAFETY: the child only runs this library's code and then _exit()s.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let ok = std::panic::catch_unwind(|| write_and_read(&child_path)).unwrap_or(false);
        unsafe { libc::_exit(if ok { 0 } else { 1 }) };
    }
    let start = Instant::now();
    let mut status = 0;
    loop {
        // SAFETY: waitpid on our own child.
        let r = unsafe { libc::waitpid(pid, &mut status, libc::WNOHANG) };
        if r == pid {
            break;
        }
        if start.elapsed() > Duration::from_secs(60) {
            unsafe { libc::kill(pid, libc::SIGKILL) };
            unsafe { libc::waitpid(pid, &mut status, 0) };
            panic!("the forked child hung (over 60 s)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    assert!(libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0, "the child failed: status {status}");
    // And the parent goes on working after the fork.
    assert!(write_and_read(&dir.path().join("parent2.zarr")));
}
