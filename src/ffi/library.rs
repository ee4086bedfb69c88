//! Library-wide C functions: `nc_strerror`, `nc_inq_libvers`.

use super::args::c_string_lossy;
use super::boundary::guard_or;
use super::interpose::always;
use crate::engine::error::error_text;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::sync::{LazyLock, Mutex};

static LIBVERS: LazyLock<CString> = LazyLock::new(|| {
    CString::new(format!(
        "4.9.2 of nczarr-rs {} (NCZarr {}) $",
        crate::engine::LIBRARY_VERSION,
        crate::engine::NCZARR_VERSION
    ))
    .expect("no NUL in the version text")
});

/// The library version, in netCDF-C's `"<version> of <build> $"` shape:
/// the netCDF API version implemented, then this library's own version.
#[no_mangle]
pub extern "C" fn nc_inq_libvers() -> *const c_char {
    always!(nc_inq_libvers());
    guard_or("nc_inq_libvers", c"unknown".as_ptr(), || LIBVERS.as_ptr())
}

static LIBRARY_TEXTS: LazyLock<HashMap<i32, CString>> = LazyLock::new(|| {
    (-200..=0).map(|code| (code, CString::new(error_text(code)).expect("no NUL in error texts"))).collect()
});

/// Texts of system errors, made once per errno and kept for the life of the
/// process (netCDF-C returns `strerror(errno)` for positive codes).
static SYSTEM_TEXTS: LazyLock<Mutex<HashMap<i32, &'static CStr>>> = LazyLock::new(Default::default);

fn system_text(errno: i32) -> &'static CStr {
    let mut texts = SYSTEM_TEXTS.lock().unwrap_or_else(|p| p.into_inner());
    texts.entry(errno).or_insert_with(|| {
        let msg = std::io::Error::from_raw_os_error(errno).to_string();
        let msg = match msg.rfind(" (os error") {
            Some(i) => msg[..i].to_string(),
            None => msg,
        };
        let c = CString::new(msg).unwrap_or_else(|_| c"Unknown Error".to_owned());
        Box::leak(c.into_boxed_c_str())
    })
}

/// The text for a netCDF error code, exactly as netCDF-C words it; positive
/// codes are system errors. The string is static: do not free it.
#[no_mangle]
pub extern "C" fn nc_strerror(ncerr: c_int) -> *const c_char {
    always!(nc_strerror(ncerr));
    guard_or("nc_strerror", c"Unknown Error".as_ptr(), || {
        if ncerr > 0 {
            system_text(ncerr).as_ptr()
        } else {
            match LIBRARY_TEXTS.get(&ncerr) {
                Some(t) => t.as_ptr(),
                None => c"Unknown Error".as_ptr(),
            }
        }
    })
}

/// The body of `nc_advise` (netCDF-C's V2 API error reporter; the variadic
/// entry point is `src/ffi/advise.c`, which formats the message): forwarded
/// to the real libnetcdf, else reported as netCDF-C does with its default
/// `ncopts` (`NC_VERBOSE | NC_FATAL`): `routine: message[: error text]` on
/// standard error, then `exit(3)` for any error.
///
/// # Safety
/// `routine_name` and `message` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn nczarr_rs_advise(routine_name: *const c_char, err: c_int, message: *const c_char) -> c_int {
    extern "C" {
        fn nc_advise(cdf_routine_name: *const c_char, err: c_int, fmt: *const c_char, ...);
    }
    static SLOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let model = nc_advise as unsafe extern "C" fn(*const c_char, c_int, *const c_char, ...);
    if let Some(real) = super::interpose::resolve(&SLOT, "nc_advise\0", model) {
        real(routine_name, err, c"%s".as_ptr(), message);
        return crate::engine::error::NC_NOERR;
    }
    super::boundary::guard("nczarr_rs_advise", || {
        use std::io::Write;
        const NCOPTS: c_int = crate::engine::consts::NC_VERBOSE | crate::engine::consts::NC_FATAL;
        let mut line = format!("{}: {}", c_string_lossy(routine_name)?, c_string_lossy(message)?);
        if err != crate::engine::error::NC_NOERR {
            line.push_str(&format!(": {}", c_string_lossy(nc_strerror(err))?));
        }
        let mut stderr = std::io::stderr().lock();
        let _ = writeln!(stderr, "{line}");
        let _ = stderr.flush();
        if err != crate::engine::error::NC_NOERR {
            std::process::exit(NCOPTS);
        }
        Ok(())
    })
}

/// What went wrong in the last call into this library on this thread that
/// failed: the function, then the detail behind its status (the store key,
/// the byte or JSON position, the reason), e.g.
/// `nc_open: /v/.zarray: bad JSON: expected value at line 1 column 9`.
/// A call without more to say than its status gives
/// `function: <nc_strerror text>`; before any failure the text is "".
/// A call that succeeded by ignoring bad store content (a malformed
/// consolidated `.zmetadata`, which is then skipped, as netCDF-C does) also
/// leaves its note here. Successful calls leave it unchanged; calls that go
/// to another libnetcdf in the process (see `NCZARR_RS_LIBNETCDF`) are not
/// recorded. Each thread has its own.
///
/// The string belongs to the library; it stays valid on this thread until
/// the next call that fails or leaves a note. Never NULL.
#[no_mangle]
pub extern "C" fn nczarr_rs_last_error() -> *const c_char {
    guard_or("nczarr_rs_last_error", c"".as_ptr(), super::boundary::last_error)
}
