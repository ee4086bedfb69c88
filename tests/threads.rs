//! Thread safety through the C API (netCDF-C's NCZarr is not thread-safe):
//! several threads write and read different variables of one dataset,
//! different datasets, and the same variable at once; every value must be
//! right. Bounded: a few hundred calls per thread.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::{NC_EBADID, NC_NOERR};
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use std::ffi::CString;
use std::ptr::null_mut;

const N: usize = 64;

fn ok(rc: i32, what: &str) {
    assert_eq!(rc, 0, "{what}: {rc}");
}

unsafe fn create(path: &str, nvars: usize) -> i32 {
    let p = CString::new(path).unwrap();
    let mut nc = 0;
    ok(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), "create");
    let mut x = 0;
    ok(nc_def_dim(nc, c"x".as_ptr(), N, &mut x), "def_dim");
    for i in 0..nvars {
        let name = CString::new(format!("v{i}")).unwrap();
        let mut v = 0;
        ok(nc_def_var(nc, name.as_ptr(), NC_INT, 1, &x, &mut v), "def_var");
        let chunk = 8usize;
        ok(nc_def_var_chunking(nc, v, NC_CHUNKED, &chunk), "chunking");
    }
    ok(nc_enddef(nc), "enddef");
    nc
}

#[test]
fn threads_share_datasets_safely() {
    let dir = tempfile::tempdir().unwrap();
    unsafe {
        let shared = create(&format!("file://{}/shared.zarr#mode=nczarr,file", dir.path().display()), 8);
        // a variable every reader checks
        let ramp: Vec<i32> = (0..N as i32).collect();
        ok(nc_put_var_int(shared, 7, ramp.as_ptr()), "put ramp");
        std::thread::scope(|s| {
            // writers: one variable each, element by element (partial chunks, cache)
            for t in 0..6 {
                s.spawn(move || {
                    for round in 0..3 {
                        for i in 0..N {
                            let val = (t * 1000 + round * 100 + i) as i32;
                            ok(nc_put_var1_int(shared, t as i32, &i, &val), "put_var1");
                        }
                        let mut back = vec![0i32; N];
                        ok(nc_get_var_int(shared, t as i32, back.as_mut_ptr()), "get_var");
                        let want: Vec<i32> = (0..N).map(|i| (t * 1000 + round * 100 + i) as i32).collect();
                        assert_eq!(back, want, "writer {t} round {round}");
                    }
                });
            }
            // readers of the same variable
            for _ in 0..4 {
                s.spawn(move || {
                    for _ in 0..200 {
                        let mut back = vec![0i32; N];
                        ok(nc_get_var_int(shared, 7, back.as_mut_ptr()), "get shared");
                        assert_eq!(back, (0..N as i32).collect::<Vec<_>>());
                        let (mut nd, mut nv) = (0, 0);
                        ok(nc_inq(shared, &mut nd, &mut nv, null_mut(), null_mut()), "inq");
                        assert_eq!((nd, nv), (1, 8));
                    }
                });
            }
            // independent datasets, created, written, closed, reopened
            for t in 0..4 {
                let path = format!("file://{}/own{t}.zarr#mode=nczarr,file", dir.path().display());
                s.spawn(move || {
                    for round in 0..5 {
                        let nc = create(&path, 2);
                        let vals: Vec<i32> = (0..N as i32).map(|i| i * round + t).collect();
                        ok(nc_put_var_int(nc, 1, vals.as_ptr()), "put own");
                        ok(nc_close(nc), "close own");
                        let p = CString::new(path.clone()).unwrap();
                        let mut nc = 0;
                        ok(nc_open(p.as_ptr(), NC_NOWRITE, &mut nc), "open own");
                        let mut back = vec![0i32; N];
                        ok(nc_get_var_int(nc, 1, back.as_mut_ptr()), "get own");
                        assert_eq!(back, vals);
                        ok(nc_close(nc), "close own");
                    }
                });
            }
        });
        ok(nc_close(shared), "close shared");
        // everything the writers left is on disk
        let p = CString::new(format!("file://{}/shared.zarr#mode=nczarr,file", dir.path().display())).unwrap();
        let mut nc = 0;
        ok(nc_open(p.as_ptr(), NC_NOWRITE, &mut nc), "reopen");
        for t in 0..6 {
            let mut back = vec![0i32; N];
            ok(nc_get_var_int(nc, t, back.as_mut_ptr()), "final get");
            assert_eq!(back, (0..N).map(|i| (t as usize * 1000 + 200 + i) as i32).collect::<Vec<_>>());
        }
        ok(nc_close(nc), "final close");
    }
}

/// Closing a dataset while other threads still call into it: each call
/// either completes on the open dataset or answers NC_EBADID; nothing
/// crashes, and the store is complete afterwards.
#[test]
fn close_races_with_readers() {
    let dir = tempfile::tempdir().unwrap();
    let path = format!("file://{}/race.zarr#mode=nczarr,file", dir.path().display());
    unsafe {
        for _ in 0..10 {
            let nc = create(&path, 1);
            let ramp: Vec<i32> = (0..N as i32).collect();
            ok(nc_put_var_int(nc, 0, ramp.as_ptr()), "put");
            let (seen_ok, seen_badid) = std::thread::scope(|s| {
                let readers: Vec<_> = (0..4)
                    .map(|_| {
                        s.spawn(move || {
                            let (mut good, mut gone) = (0, 0);
                            for _ in 0..300 {
                                let mut back = vec![0i32; N];
                                match nc_get_var_int(nc, 0, back.as_mut_ptr()) {
                                    NC_NOERR => {
                                        assert_eq!(back, (0..N as i32).collect::<Vec<_>>());
                                        good += 1;
                                    }
                                    NC_EBADID => gone += 1,
                                    rc => panic!("get during close: {rc}"),
                                }
                            }
                            (good, gone)
                        })
                    })
                    .collect();
                std::thread::yield_now();
                ok(nc_close(nc), "close");
                readers.into_iter().map(|h| h.join().unwrap()).fold((0, 0), |a, b| (a.0 + b.0, a.1 + b.1))
            });
            assert_eq!(seen_ok + seen_badid, 4 * 300);
            // after close, the handle is dead for everyone
            assert_eq!(nc_inq(nc, null_mut(), null_mut(), null_mut(), null_mut()), NC_EBADID);
            let p = CString::new(path.clone()).unwrap();
            let mut again = 0;
            ok(nc_open(p.as_ptr(), NC_NOWRITE, &mut again), "reopen");
            let mut back = vec![0i32; N];
            ok(nc_get_var_int(again, 0, back.as_mut_ptr()), "get after reopen");
            assert_eq!(back, (0..N as i32).collect::<Vec<_>>());
            ok(nc_close(again), "close again");
        }
    }
}
