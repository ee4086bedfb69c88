//! The panic boundary every exported function runs inside, and the
//! test-only panic injection hook that proves it.

use crate::engine::error::{NC_EINTERNAL, NC_EINVAL, NC_EPERM, NC_NOERR};
use crate::engine::NcResult;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::RwLock;

/// Runs the body of the exported function `name`. `Ok` → `NC_NOERR`,
/// `Err(e)` → `e.code()`, a panic → `NC_EINTERNAL`.
pub(crate) fn guard(name: &'static str, body: impl FnOnce() -> NcResult<()>) -> c_int {
    match catch_unwind(AssertUnwindSafe(|| {
        maybe_inject_panic(name);
        body()
    })) {
        Ok(Ok(())) => NC_NOERR,
        Ok(Err(e)) => e.code(),
        Err(_) => NC_EINTERNAL,
    }
}

/// The inverse of [`guard`]: a C status as a result (`NC_NOERR` is `Ok`),
/// for bodies that call other C API functions.
pub(crate) fn status(rc: c_int) -> NcResult<()> {
    match rc {
        NC_NOERR => Ok(()),
        rc => Err(crate::engine::NcError::new(rc)),
    }
}

/// Like [`guard`] for functions that return a value instead of a status;
/// a panic returns `fallback`.
pub(crate) fn guard_or<T>(name: &'static str, fallback: T, body: impl FnOnce() -> T) -> T {
    catch_unwind(AssertUnwindSafe(|| {
        maybe_inject_panic(name);
        body()
    }))
    .unwrap_or(fallback)
}

// ---- test hook ------------------------------------------------------------

static ARMED: AtomicBool = AtomicBool::new(false);
static TARGET: RwLock<Option<String>> = RwLock::new(None);

/// Environment variable that must be `1` for the panic hook to be settable.
pub const TEST_HOOKS_ENV: &str = "NCZARR_RS_TEST_HOOKS";

fn maybe_inject_panic(name: &'static str) {
    // One relaxed load on the normal path.
    if ARMED.load(Ordering::Relaxed) {
        let hit = TARGET.read().map(|t| t.as_deref() == Some(name)).unwrap_or(false);
        if hit {
            panic!("nczarr-rs test hook: injected panic in {name}");
        }
    }
}

/// For tests only: makes the exported function named `function_name` panic
/// inside its boundary on every later call (NULL disarms). Works only when
/// the environment variable `NCZARR_RS_TEST_HOOKS` is `1`; otherwise
/// `NC_EPERM`. Returns `NC_EINVAL` for a non-UTF-8 name.
///
/// # Safety
/// `function_name` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nczarr_rs_test_inject_panic(function_name: *const c_char) -> c_int {
    // Not routed through `guard`: this function must stay callable to disarm.
    catch_unwind(AssertUnwindSafe(|| {
        if std::env::var(TEST_HOOKS_ENV).as_deref() != Ok("1") {
            return NC_EPERM;
        }
        let name = if function_name.is_null() {
            None
        } else {
            match std::ffi::CStr::from_ptr(function_name).to_str() {
                Ok(s) => Some(s.to_string()),
                Err(_) => return NC_EINVAL,
            }
        };
        let mut target = TARGET.write().unwrap_or_else(|p| p.into_inner());
        ARMED.store(name.is_some(), Ordering::Relaxed);
        *target = name;
        NC_NOERR
    }))
    .unwrap_or(NC_EINTERNAL)
}
