//! The panic boundary every exported function runs inside, the record of
//! a thread's last failing call (`nczarr_rs_last_error`), the panic
//! injection hook that proves the boundary, and the watch on caught panics
//! that makes the test suites fail on any (`NCZARR_RS_PANIC_ABORT`).

use crate::engine::error::{error_text, NC_EINTERNAL, NC_EINVAL, NC_EPERM, NC_NOERR};
use crate::engine::{NcError, NcResult};
use std::cell::{Cell, RefCell};
use std::ffi::CString;
use std::io::Write;
use std::os::raw::{c_char, c_int};
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Mutex, OnceLock, RwLock};

/// Runs the body of the exported function `name`. `Ok` → `NC_NOERR`,
/// `Err(e)` → `e.code()`, a panic → `NC_EINTERNAL`. The failure of a call
/// from C (not of one this library makes to itself), or a [`note`] left by
/// one that succeeded, becomes this thread's `nczarr_rs_last_error`.
pub(crate) fn guard(name: &'static str, body: impl FnOnce() -> NcResult<()>) -> c_int {
    with_last(|l| {
        l.depth += 1;
        l.inner = None;
    });
    watch_panics();
    let result = catch_unwind(AssertUnwindSafe(|| {
        maybe_inject_panic(name);
        body()
    }));
    let (code, detail) = match result {
        Ok(Ok(())) => (NC_NOERR, None),
        Ok(Err(e)) => (e.code(), e.into_detail()),
        Err(payload) => (NC_EINTERNAL, Some(format!("panic: {}", caught(name, payload)).into_boxed_str())),
    };
    with_last(|l| {
        l.depth = l.depth.saturating_sub(1);
        if l.depth > 0 {
            // a call the library made to itself: its caller's `status` may
            // take the detail
            l.inner = (code != NC_NOERR).then_some((code, detail));
            return;
        }
        l.inner = None;
        let note = l.note.take();
        if code != NC_NOERR {
            l.record = Record { function: name, code, detail };
            l.text = None;
        } else if let Some(note) = note {
            l.record = Record { function: name, code, detail: Some(note) };
            l.text = None;
        }
    });
    code
}

/// The inverse of [`guard`]: a C status as a result (`NC_NOERR` is `Ok`),
/// for bodies that call other C API functions. The error keeps the detail
/// of the failed call, when it was ours.
pub(crate) fn status(rc: c_int) -> NcResult<()> {
    if rc == NC_NOERR {
        return Ok(());
    }
    let detail = with_last(|l| match l.inner.take() {
        Some((code, detail)) if code == rc => detail,
        _ => None,
    })
    .flatten();
    Err(match detail {
        Some(d) => NcError::with(rc, d),
        None => NcError::new(rc),
    })
}

// ---- the last error of a thread -------------------------------------------

/// Texts longer than this are cut (at a character boundary).
const MAX_TEXT: usize = 4096;

/// A failed call from C (or a note of one that succeeded).
struct Record {
    /// The exported function ("" when none has failed yet).
    function: &'static str,
    /// Its status (`NC_NOERR` for a note).
    code: c_int,
    detail: Option<Box<str>>,
}

/// This thread's state.
struct Last {
    /// Guarded calls running on this thread (more than one when the library
    /// calls its own C API).
    depth: u32,
    /// The failure of the latest nested call, for [`status`].
    inner: Option<(c_int, Option<Box<str>>)>,
    /// A note of the running call, kept if it succeeds.
    note: Option<Box<str>>,
    /// What `nczarr_rs_last_error` reports.
    record: Record,
    /// The text last handed out; `None` once the record changed.
    text: Option<CString>,
}

thread_local! {
    static LAST: RefCell<Last> = const {
        RefCell::new(Last {
            depth: 0,
            inner: None,
            note: None,
            record: Record { function: "", code: NC_NOERR, detail: None },
            text: None,
        })
    };
}

/// Runs `f` on this thread's state; `None` while the thread is being torn
/// down (a C destructor calling in).
fn with_last<T>(f: impl FnOnce(&mut Last) -> T) -> Option<T> {
    LAST.try_with(|l| l.try_borrow_mut().ok().map(|mut l| f(&mut l))).ok().flatten()
}

/// Leaves a note for the running exported call: what it ignored of a
/// store's content to succeed (a malformed `.zmetadata`). It becomes the
/// thread's `nczarr_rs_last_error` if the call succeeds.
pub(crate) fn note(detail: impl Into<String>) {
    with_last(|l| l.note = Some(detail.into().into_boxed_str()));
}

/// The text of this thread's last failing call (or note):
/// `function: detail`, or `function: <nc_strerror text>` without a detail;
/// "" before any. It lives until the record changes.
pub(crate) fn last_error() -> *const c_char {
    with_last(|l| {
        let text = l.text.get_or_insert_with(|| render(&l.record));
        text.as_ptr()
    })
    .unwrap_or(c"".as_ptr())
}

fn render(r: &Record) -> CString {
    if r.function.is_empty() {
        return CString::default();
    }
    let mut text = match (&r.detail, r.code) {
        (Some(d), _) => format!("{}: {d}", r.function),
        (None, code) if code > 0 => format!("{}: {}", r.function, std::io::Error::from_raw_os_error(code)),
        (None, code) => format!("{}: {}", r.function, error_text(code)),
    };
    if text.len() > MAX_TEXT {
        let mut end = MAX_TEXT;
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        text.truncate(end);
        text.push_str("...");
    }
    CString::new(text.replace('\0', "\\0")).unwrap_or_default()
}

/// Like [`guard`] for functions that return a value instead of a status;
/// a panic returns `fallback`.
pub(crate) fn guard_or<T>(name: &'static str, fallback: T, body: impl FnOnce() -> T) -> T {
    watch_panics();
    catch_unwind(AssertUnwindSafe(|| {
        maybe_inject_panic(name);
        body()
    }))
    .unwrap_or_else(|payload| {
        caught(name, payload);
        fallback
    })
}

// ---- caught panics ----------------------------------------------------------

/// Environment variable: `1` makes a panic caught at the boundary (other
/// than one the test hook injected) abort the process with a message, `0`
/// only counts it. Unset: abort in builds with the `test-support` feature
/// (the crate's own tests), count otherwise. scripts/test-all.sh sets it to
/// `1` for everything it runs, so a panic that the boundary would hide as
/// `NC_EINTERNAL` fails the C tests and the harnesses too.
pub const PANIC_ABORT_ENV: &str = "NCZARR_RS_PANIC_ABORT";

/// Panics caught at the boundary since the process started, not counting
/// those the test hook injected.
static CAUGHT: AtomicU64 = AtomicU64::new(0);

/// Where and on which thread the latest panic happened (kept by a panic
/// hook installed in abort mode only), for the abort message: the payload
/// alone does not say where an overflow was.
static LAST_PANIC: Mutex<String> = Mutex::new(String::new());

thread_local! {
    /// Set by [`maybe_inject_panic`] just before it panics, taken by the
    /// guard that catches that panic.
    static INJECTED: Cell<bool> = const { Cell::new(false) };
}

/// Whether a caught panic aborts the process ([`PANIC_ABORT_ENV`]), read
/// once; in abort mode, the first call also installs the panic hook that
/// notes where a panic happened (then calls the previous hook).
fn watch_panics() -> bool {
    static ABORT: OnceLock<bool> = OnceLock::new();
    *ABORT.get_or_init(|| {
        let abort = match std::env::var(PANIC_ABORT_ENV).as_deref() {
            Ok("1") => true,
            Ok("0") => false,
            _ => cfg!(feature = "test-support"),
        };
        if abort && !std::thread::panicking() {
            let previous = std::panic::take_hook();
            std::panic::set_hook(Box::new(move |info| {
                let thread = std::thread::current();
                let at = info.location().map(|l| l.to_string()).unwrap_or_default();
                let text = format!("at {at} (thread {})", thread.name().unwrap_or("unnamed"));
                *LAST_PANIC.lock().unwrap_or_else(|p| p.into_inner()) = text;
                previous(info)
            }));
        }
        abort
    })
}

/// A panic the guard of `name` caught: its message. Counted unless the
/// test hook injected it; in abort mode, the process aborts here.
fn caught(name: &str, payload: Box<dyn std::any::Any + Send>) -> String {
    let what = payload
        .downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    if INJECTED.with(|i| i.replace(false)) {
        return what;
    }
    CAUGHT.fetch_add(1, Ordering::Relaxed);
    if watch_panics() {
        let at = LAST_PANIC.lock().map(|s| s.clone()).unwrap_or_default();
        // straight to file descriptor 2: a test harness captures `eprintln!`
        // and loses it when the process aborts
        let _ = writeln!(
            std::io::stderr().lock(),
            "nczarr-rs: a panic was caught at the C boundary in {name}: {what} [{at}]; \
             aborting because {PANIC_ABORT_ENV} is on (a bug: the call would have returned NC_EINTERNAL)"
        );
        std::process::abort();
    }
    what
}

/// For the crate's tests: how many panics the boundary has caught in this
/// process, not counting those the test hook injected (which, in abort
/// mode, is always 0: the first one aborts).
#[cfg(feature = "test-support")]
pub fn caught_panics() -> u64 {
    CAUGHT.load(Ordering::Relaxed)
}

/// For the crate's tests: a call whose body panics, through [`guard`]
/// (`status`) or [`guard_or`] (fallback -1), as a real bug would; proves
/// that such a panic is counted, or aborts the process.
#[cfg(feature = "test-support")]
pub fn call_that_panics(status: bool) -> c_int {
    fn bug() -> c_int {
        panic!("a bug (boundary::call_that_panics)")
    }
    if status {
        guard("call_that_panics", || {
            bug();
            Ok(())
        })
    } else {
        guard_or("call_that_panics", -1, bug)
    }
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
            INJECTED.with(|i| i.set(true));
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
