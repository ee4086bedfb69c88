//! A panic caught at the C boundary is a bug the call would hide as
//! `NC_EINTERNAL`: in the crate's own tests (the `test-support` feature) and
//! wherever `NCZARR_RS_PANIC_ABORT=1` (scripts/test-all.sh sets it for the C
//! tests and the harnesses), it aborts the process with a message instead,
//! so no test binary can pass over one. A panic the test hook injects is
//! the exception: the boundary tests make those on purpose.
//!
//! Each case runs this binary again as a child process (the abort must end
//! the child, not this test); hence no libtest harness (`harness = false`).

use nczarr_rs::engine::error::NC_EINTERNAL;
use nczarr_rs::ffi::boundary::{
    call_that_panics, caught_panics, nczarr_rs_test_inject_panic, PANIC_ABORT_ENV, TEST_HOOKS_ENV,
};
use nczarr_rs::ffi::files::nc_close;
use nczarr_rs::ffi::library::nc_inq_libvers;
use std::ffi::CStr;
use std::os::unix::process::ExitStatusExt;
use std::process::Command;

/// Names the case a child process runs.
const CHILD_ENV: &str = "NCZARR_RS_PANIC_TEST_CHILD";

fn main() {
    match std::env::var(CHILD_ENV) {
        Ok(case) => child(&case),
        Err(_) => parent(),
    }
}

/// Makes the call of `case`; prints how many panics were counted after it
/// (reached only when the process did not abort).
fn child(case: &str) {
    match case {
        "status" => assert_eq!(call_that_panics(true), NC_EINTERNAL),
        "fallback" => assert_eq!(call_that_panics(false), -1),
        "injected" => unsafe {
            assert_eq!(nczarr_rs_test_inject_panic(c"nc_close".as_ptr()), 0);
            assert_eq!(nc_close(0), NC_EINTERNAL);
            assert_eq!(nczarr_rs_test_inject_panic(c"nc_inq_libvers".as_ptr()), 0);
            assert_eq!(CStr::from_ptr(nc_inq_libvers()).to_str().unwrap(), "unknown");
            assert_eq!(nczarr_rs_test_inject_panic(std::ptr::null()), 0);
            assert_eq!(nc_close(0), nczarr_rs::engine::error::NC_EBADID);
        },
        other => panic!("unknown case {other}"),
    }
    println!("counted {}", caught_panics());
}

fn parent() {
    let abort_text = "nczarr-rs: a panic was caught at the C boundary in call_that_panics: \
                      a bug (boundary::call_that_panics) [at src/ffi/boundary.rs:";
    // (case, NCZARR_RS_PANIC_ABORT, aborts, panics counted when not)
    let cases: &[(&str, Option<&str>, bool, u64)] = &[
        // a real panic: the crate's tests abort without being told to
        ("status", None, true, 0),
        ("fallback", None, true, 0),
        ("status", Some("1"), true, 0),
        ("fallback", Some("1"), true, 0),
        // told not to: returned as NC_EINTERNAL (or the fallback), counted
        ("status", Some("0"), false, 1),
        ("fallback", Some("0"), false, 1),
        // injected by the test hook: never an abort, not counted
        ("injected", None, false, 0),
        ("injected", Some("1"), false, 0),
    ];
    for &(case, mode, aborts, counted) in cases {
        let mut cmd = Command::new(std::env::current_exe().unwrap());
        cmd.env(CHILD_ENV, case).env(TEST_HOOKS_ENV, "1").env_remove(PANIC_ABORT_ENV);
        if let Some(m) = mode {
            cmd.env(PANIC_ABORT_ENV, m);
        }
        let out = cmd.output().unwrap();
        let (stdout, stderr) = (String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
        let what = format!("case {case}, {PANIC_ABORT_ENV}={mode:?}: {:?}\n{stdout}\n{stderr}", out.status);
        if aborts {
            assert_eq!(out.status.signal(), Some(libc::SIGABRT), "{what}");
            assert!(stderr.contains(abort_text), "{what}");
            assert!(!stdout.contains("counted"), "{what}");
        } else {
            assert!(out.status.success(), "{what}");
            assert!(stdout.contains(&format!("counted {counted}\n")), "{what}");
            assert!(!stderr.contains("caught at the C boundary"), "{what}");
        }
    }
    println!("panic_boundary: {} cases as expected", cases.len());
}
