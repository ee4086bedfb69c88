//! Interposition: when this library is preloaded (`LD_PRELOAD`) or linked
//! ahead of netCDF-C's libnetcdf, its `nc_*` symbols come first for every
//! caller, the program and libnetcdf itself included. Each exported function
//! therefore serves only what is ours and forwards the rest, unchanged, to
//! the process's real libnetcdf:
//!
//! * functions that take an ncid route by ncid: ours are `(file << 16) |
//!   group` with `file` in [`FIRST_FILE`]`..=`[`LAST_FILE`]; netCDF-C hands
//!   out its file numbers from 1 upward, lowest free first, so the two
//!   spaces never meet unless a process holds 16 383 netCDF-C datasets open
//!   at once;
//! * `nc_open`/`nc_create` and friends route by path
//!   ([`crate::engine::file::claims`]): Zarr and NCZarr stores, `s3://`,
//!   and URLs whose `mode=` names a Zarr format are ours;
//! * library-wide functions (`nc_inq_libvers`, `nc_strerror`, rc and plugin
//!   settings, `nc_def_user_format`, ...) are forwarded when there is a real
//!   library.
//!
//! The real library is, in this order: the next definition after this
//! library (`dlsym(RTLD_NEXT)`, the preload and link-order cases); a
//! `libnetcdf*.so*` already loaded anywhere in the process (a Python wheel
//! loads its bundled copy with `RTLD_LOCAL`, out of `RTLD_NEXT`'s reach);
//! the library named by the environment variable `NCZARR_RS_LIBNETCDF`.
//! When there is none (a program linked against this library alone) every
//! call is served here, as before. A found library is kept for the life of
//! the process; a miss is retried, since Python loads its libnetcdf after
//! this library's first call may have happened.

use std::ffi::{c_void, CStr};
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicUsize, Ordering};

/// The first file number of this library's ncids (netCDF-C counts up from 1).
pub(crate) const FIRST_FILE: i32 = 0x4000;
/// The last: every ncid stays a positive `int`.
pub(crate) const LAST_FILE: i32 = 0x7fff;

/// Environment variable naming a libnetcdf to forward to when none is loaded.
pub const LIBNETCDF_ENV: &str = "NCZARR_RS_LIBNETCDF";

/// Whether `ncid` belongs to this library's number space.
#[inline]
pub(crate) fn is_ours(ncid: c_int) -> bool {
    (FIRST_FILE..=LAST_FILE).contains(&(ncid >> 16))
}

/// `RTLD_NEXT` as the handle value; 0 means "not found yet".
const NEXT: usize = usize::MAX;
static LIBRARY: AtomicUsize = AtomicUsize::new(0);

/// The real libnetcdf's handle (or [`NEXT`]), found once and kept.
fn library() -> Option<usize> {
    let found = LIBRARY.load(Ordering::Acquire);
    if found != 0 {
        return Some(found);
    }
    let found = find_library()?;
    LIBRARY.store(found, Ordering::Release);
    Some(found)
}

fn find_library() -> Option<usize> {
    let probe = c"nc_inq_libvers";
    // SAFETY: dlsym with a NUL-terminated name; RTLD_NEXT is relative to
    // this library, the caller.
    if !unsafe { libc::dlsym(libc::RTLD_NEXT, probe.as_ptr()) }.is_null() {
        return Some(NEXT);
    }
    if let Some(h) = loaded_libnetcdf() {
        return Some(h);
    }
    let path = std::env::var_os(LIBNETCDF_ENV)?;
    let path = std::ffi::CString::new(std::os::unix::ffi::OsStrExt::as_bytes(path.as_os_str())).ok()?;
    // SAFETY: dlopen of a NUL-terminated path; the handle is never closed.
    let h = unsafe { libc::dlopen(path.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
    let ok = !h.is_null() && !unsafe { libc::dlsym(h, probe.as_ptr()) }.is_null() && !is_self(h, probe);
    ok.then_some(h as usize)
}

/// Whether `name` in `handle` is this library's own definition (a
/// `NCZARR_RS_LIBNETCDF` pointing at ourselves must not loop).
fn is_self(handle: *mut c_void, name: &CStr) -> bool {
    // SAFETY: dlsym/dladdr on valid handles and addresses; Dl_info is plain data.
    unsafe {
        let theirs = libc::dlsym(handle, name.as_ptr());
        let mut a: libc::Dl_info = std::mem::zeroed();
        let mut b: libc::Dl_info = std::mem::zeroed();
        libc::dladdr(theirs, &mut a) != 0
            && libc::dladdr(is_ours as *const c_void, &mut b) != 0
            && a.dli_fbase == b.dli_fbase
    }
}

/// A `libnetcdf*.so*` (not Fortran's `libnetcdff`) already in the process.
fn loaded_libnetcdf() -> Option<usize> {
    unsafe extern "C" fn visit(info: *mut libc::dl_phdr_info, _size: usize, data: *mut c_void) -> c_int {
        // SAFETY: dl_iterate_phdr passes a valid info; data is our Vec.
        let (info, out) = unsafe { (&*info, &mut *(data as *mut Vec<std::ffi::CString>)) };
        if info.dlpi_name.is_null() {
            return 0;
        }
        // SAFETY: dlpi_name is a NUL-terminated path.
        let path = unsafe { CStr::from_ptr(info.dlpi_name) };
        let file = path.to_bytes().rsplit(|&b| b == b'/').next().unwrap_or_default();
        if file.starts_with(b"libnetcdf") && !file.starts_with(b"libnetcdff") && file.windows(3).any(|w| w == b".so") {
            out.push(path.to_owned());
        }
        0
    }
    let mut paths: Vec<std::ffi::CString> = Vec::new();
    // SAFETY: the callback only reads the entries and pushes to `paths`.
    unsafe { libc::dl_iterate_phdr(Some(visit), &mut paths as *mut _ as *mut c_void) };
    paths.into_iter().find_map(|p| {
        // SAFETY: RTLD_NOLOAD only returns a handle to an already loaded object.
        let h = unsafe { libc::dlopen(p.as_ptr(), libc::RTLD_LAZY | libc::RTLD_NOLOAD) };
        (!h.is_null() && !is_self(h, c"nc_inq_libvers")).then_some(h as usize)
    })
}

/// Sonames tried, in order, for a libnetcdf to read netCDF files with
/// (aggregation fragments) when the process has none: Debian's, then any.
const READER_SONAMES: [&CStr; 2] = [c"libnetcdf.so.19", c"libnetcdf.so"];
static READER_LIBRARY: AtomicUsize = AtomicUsize::new(0);

/// A libnetcdf to read netCDF files with (the aggregation's fragments):
/// the one calls are forwarded to (see [`library`]), else one loaded here
/// by its soname and kept for the life of the process.
pub(crate) fn reading_library() -> Option<usize> {
    if let Some(l) = library() {
        return Some(l);
    }
    let found = READER_LIBRARY.load(Ordering::Acquire);
    if found != 0 {
        return Some(found);
    }
    for name in READER_SONAMES {
        // SAFETY: dlopen of a NUL-terminated soname; the handle is never closed.
        let h = unsafe { libc::dlopen(name.as_ptr(), libc::RTLD_LAZY | libc::RTLD_LOCAL) };
        if !h.is_null() && !is_self(h, c"nc_inq_libvers") {
            READER_LIBRARY.store(h as usize, Ordering::Release);
            return Some(h as usize);
        }
    }
    None
}

/// The address of `name` in a library of [`reading_library`] (0: none).
pub(crate) fn symbol_in(lib: usize, name: &CStr) -> usize {
    let handle = if lib == NEXT { libc::RTLD_NEXT } else { lib as *mut c_void };
    // SAFETY: dlsym with a NUL-terminated name on a handle from dlopen (or RTLD_NEXT).
    unsafe { libc::dlsym(handle, name.as_ptr()) as usize }
}

/// The real library's definition of `name` (NUL-terminated), cached in
/// `slot`, typed like `model` (this library's own function of that name).
pub(crate) fn resolve<F: Copy>(slot: &AtomicUsize, name: &'static str, _model: F) -> Option<F> {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<usize>()) };
    let mut p = slot.load(Ordering::Relaxed);
    if p == 0 {
        let lib = library()?;
        let handle = if lib == NEXT { libc::RTLD_NEXT } else { lib as *mut c_void };
        // SAFETY: `name` is NUL-terminated (the macros append the NUL).
        p = unsafe { libc::dlsym(handle, name.as_ptr() as *const c_char) } as usize;
        if p == 0 {
            return None;
        }
        slot.store(p, Ordering::Relaxed);
    }
    // SAFETY: F is a function pointer type of the same signature as the C
    // function `name` (the model is our own export of that name).
    Some(unsafe { std::mem::transmute_copy::<usize, F>(&p) })
}

/// `_` for each argument: the type of an exported function as a pointer.
macro_rules! __infer {
    ($t:tt) => {
        _
    };
}
pub(crate) use __infer;

/// The real library's `$name`, typed as our own export of that name:
/// `real_fn!(nc_inq_varid(ncid, name, varidp))` is an
/// `Option<unsafe extern "C" fn(c_int, *const c_char, *mut c_int) -> c_int>`.
macro_rules! real_fn {
    ($name:ident ( $($arg:ident),* )) => {{
        static SLOT: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
        let model = $name as unsafe extern "C" fn($($crate::ffi::interpose::__infer!($arg)),*) -> _;
        $crate::ffi::interpose::resolve(&SLOT, concat!(stringify!($name), "\0"), model)
    }};
}
pub(crate) use real_fn;

/// First statement of an exported function that takes an ncid: a call with
/// an ncid that is not ours goes to the real libnetcdf, when there is one.
macro_rules! by_ncid {
    ($ncid:expr => $name:ident ( $($arg:ident),* $(,)? )) => {
        if !$crate::ffi::interpose::is_ours($ncid) {
            if let Some(f) = $crate::ffi::interpose::real_fn!($name($($arg),*)) {
                #[allow(unused_unsafe)]
                return unsafe { f($($arg),*) };
            }
        }
    };
}
pub(crate) use by_ncid;

/// First statement of `nc_open`/`nc_create` and friends: a path that is not
/// a Zarr dataset goes to the real libnetcdf, when there is one.
macro_rules! by_path {
    ($path:expr, $create:expr => $name:ident ( $($arg:ident),* $(,)? )) => {
        if !$crate::ffi::interpose::claims($path, $create) {
            if let Some(f) = $crate::ffi::interpose::real_fn!($name($($arg),*)) {
                #[allow(unused_unsafe)]
                return unsafe { f($($arg),*) };
            }
        }
    };
}
pub(crate) use by_path;

/// First statement of a library-wide function: forwarded whenever there is
/// a real libnetcdf.
macro_rules! always {
    ($name:ident ( $($arg:ident),* $(,)? )) => {
        if let Some(f) = $crate::ffi::interpose::real_fn!($name($($arg),*)) {
            #[allow(unused_unsafe)]
            return unsafe { f($($arg),*) };
        }
    };
}
pub(crate) use always;

/// Whether the dataset at `path` is ours (see [`crate::engine::file::claims`]).
/// NULL is ours (the answer is `NC_EINVAL`); so is any path when no real
/// library is loaded, which the callers check after this.
pub(crate) fn claims(path: *const c_char, create: bool) -> bool {
    if path.is_null() {
        return true;
    }
    // SAFETY: the caller passes a NUL-terminated path.
    match unsafe { super::args::c_str(path) } {
        Ok(p) => crate::engine::file::claims(p, create),
        Err(_) => false,
    }
}
