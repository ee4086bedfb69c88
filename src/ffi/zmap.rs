//! netCDF-C's zmap API (`libnczarr/zmap.h`) in C, over the map drivers.
//!
//! Differences from netCDF-C, forced by the C boundary rules:
//! * A map is an `int` handle (`mapid`), not an `NCZMAP*`.
//! * `nczmap_search` returns a `malloc`ed array of `malloc`ed names instead
//!   of filling an `NClist`; release it with `nczmap_free_names` (or `free`).
//! * Outputs are written only on success (netCDF-C's `nczmap_len` also sets
//!   `*sizep = 0` on `NC_EEMPTY`).
//! * `nczmap_write` with `start == 0` replaces the whole object; with
//!   `start > 0` it updates that byte range and keeps the rest.
//! * `nczmap_read` of a range past the end of an object is `NC_EEDGE`.

use super::args::{bytes, bytes_mut, c_str, free_c_string_array, malloc_c_string_array, non_null, opt_c_str, out};
use super::boundary::{guard, guard_or};
use super::handles::HandleTable;
use super::types::{size64_t, NCZM_FEATURES, NCZM_IMPL};
use crate::engine::consts::{NC_NOCLOBBER, NC_WRITE};
use crate::engine::error::{NC_EEMPTY, NC_EINVAL, NC_ENOOBJECT, NC_ENOTBUILT};
use crate::engine::format::DatasetDriver;
use crate::engine::{NcError, NcResult};
use crate::map::{Driver, Features, Store, StoreKey};
use std::os::raw::{c_char, c_int, c_void};
use std::sync::Arc;

pub const NCZM_UNDEF: NCZM_IMPL = 0;
pub const NCZM_FILE: NCZM_IMPL = 1;
pub const NCZM_ZIP: NCZM_IMPL = 2;
pub const NCZM_S3: NCZM_IMPL = 3;
pub const NCZM_GS3: NCZM_IMPL = 4;
/// In-memory datasets (not in netCDF-C; a value netCDF-C does not use).
pub const NCZM_MEMORY: NCZM_IMPL = 64;
pub const NCZM_DEFAULT: NCZM_IMPL = NCZM_FILE;

pub const NCZM_UNIMPLEMENTED: NCZM_FEATURES = 1;
pub const NCZM_WRITEONCE: NCZM_FEATURES = 2;
pub const NCZM_ZEROSTART: NCZM_FEATURES = 4;

static MAPS: HandleTable<dyn Store> = HandleTable::new(i32::MAX);

fn driver(imp: NCZM_IMPL) -> NcResult<Driver> {
    match imp {
        NCZM_FILE => Ok(Driver::File),
        NCZM_ZIP => Ok(Driver::Zip),
        NCZM_MEMORY => Ok(Driver::Memory),
        NCZM_S3 => Ok(Driver::S3),
        NCZM_GS3 => Err(NcError::with(NC_ENOTBUILT, "map implementation not built")),
        _ => Err(NcError::with(NC_EINVAL, format!("unknown map implementation {imp}"))),
    }
}

fn feature_bits(f: Features) -> NCZM_FEATURES {
    (if f.write_once { NCZM_WRITEONCE } else { 0 }) | (if f.zero_start { NCZM_ZEROSTART } else { 0 })
}

/// Opens or creates a map on `path` with `make` and returns its new handle
/// through `mapidp`.
unsafe fn new_map(
    imp: NCZM_IMPL,
    path: *const c_char,
    mapidp: *mut c_int,
    make: impl FnOnce(Driver, &str) -> crate::map::MapResult<Arc<dyn Store>>,
) -> NcResult<()> {
    non_null(mapidp)?;
    let path = c_str(path)?;
    if path.is_empty() {
        return Err(NcError::new(NC_EINVAL));
    }
    let store = make(driver(imp)?, path)?;
    let id = MAPS.insert(store)?;
    out(mapidp, id);
    Ok(())
}

fn parse_key(k: &str) -> NcResult<StoreKey> {
    Ok(StoreKey::parse(k)?)
}

/// Creates a dataset and opens a map on it. Without `NC_NOCLOBBER` in `mode`
/// an existing dataset is replaced (a non-empty directory that is not a Zarr
/// store is never deleted: `NC_EEXIST`); with it, an existing dataset gives
/// `NC_EOBJECT`. `constraints` and `parameters` are accepted and unused.
///
/// # Safety
/// `path` is a NUL-terminated string; `mapidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nczmap_create(
    imp: NCZM_IMPL,
    path: *const c_char,
    mode: c_int,
    constraints: size64_t,
    parameters: *mut c_void,
    mapidp: *mut c_int,
) -> c_int {
    let _ = (constraints, parameters);
    guard("nczmap_create", || new_map(imp, path, mapidp, |d, p| d.create(p, mode & NC_NOCLOBBER == 0)))
}

/// Opens a map on an existing dataset (`NC_ENOOBJECT` if there is none);
/// writable only with `NC_WRITE` in `mode`.
///
/// # Safety
/// `path` is a NUL-terminated string; `mapidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nczmap_open(
    imp: NCZM_IMPL,
    path: *const c_char,
    mode: c_int,
    constraints: size64_t,
    parameters: *mut c_void,
    mapidp: *mut c_int,
) -> c_int {
    let _ = (constraints, parameters);
    guard("nczmap_open", || new_map(imp, path, mapidp, |d, p| d.open(p, mode & NC_WRITE != 0)))
}

/// Closes the map; with `deleteit` non-zero the whole dataset is deleted
/// (the map must be writable). The handle is invalid afterwards either way.
#[no_mangle]
pub extern "C" fn nczmap_close(mapid: c_int, deleteit: c_int) -> c_int {
    guard("nczmap_close", || {
        let store = MAPS.remove(mapid)?;
        if deleteit != 0 {
            store.destroy()?;
        } else {
            store.flush()?;
        }
        Ok(())
    })
}

/// `NC_NOERR` if `key` is a content-bearing object, else `NC_EEMPTY`.
///
/// # Safety
/// `key` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nczmap_exists(mapid: c_int, key: *const c_char) -> c_int {
    guard("nczmap_exists", || {
        let store = MAPS.get(mapid)?;
        match store.size(&parse_key(c_str(key)?)?)? {
            Some(_) => Ok(()),
            None => Err(NcError::new(NC_EEMPTY)),
        }
    })
}

/// The length of an object in bytes (`NC_EEMPTY` if it has no content).
///
/// # Safety
/// `key` is a NUL-terminated string; `sizep` points to a `size64_t`.
#[no_mangle]
pub unsafe extern "C" fn nczmap_len(mapid: c_int, key: *const c_char, sizep: *mut size64_t) -> c_int {
    guard("nczmap_len", || {
        non_null(sizep)?;
        let store = MAPS.get(mapid)?;
        let size = store.size(&parse_key(c_str(key)?)?)?.ok_or(NcError::new(NC_EEMPTY))?;
        out(sizep, size);
        Ok(())
    })
}

/// Reads `count` bytes from offset `start` of an object into `content`.
///
/// # Safety
/// `key` is a NUL-terminated string; `content` is valid for `count` bytes
/// (it may be NULL when `count` is 0).
#[no_mangle]
pub unsafe extern "C" fn nczmap_read(
    mapid: c_int,
    key: *const c_char,
    start: size64_t,
    count: size64_t,
    content: *mut c_void,
) -> c_int {
    guard("nczmap_read", || {
        let store = MAPS.get(mapid)?;
        let key = parse_key(c_str(key)?)?;
        let out = bytes_mut(content, count)?;
        let data = store.get_range(&key, start, count)?.ok_or(NcError::new(NC_EEMPTY))?;
        out.copy_from_slice(&data);
        Ok(())
    })
}

/// Writes `count` bytes at offset `start`: `start == 0` replaces the object,
/// `start > 0` updates that range (growing the object as needed).
///
/// # Safety
/// `key` is a NUL-terminated string; `content` is valid for `count` bytes
/// (it may be NULL when `count` is 0).
#[no_mangle]
pub unsafe extern "C" fn nczmap_write(
    mapid: c_int,
    key: *const c_char,
    start: size64_t,
    count: size64_t,
    content: *const c_void,
) -> c_int {
    guard("nczmap_write", || {
        let store = MAPS.get(mapid)?;
        let key = parse_key(c_str(key)?)?;
        let data = bytes(content, count)?;
        if start == 0 {
            store.set(&key, data)?;
        } else {
            store.set_range(&key, start, data)?;
        }
        Ok(())
    })
}

/// Lists the names (single segments) of the immediate children of `prefix`
/// (NULL, "" or "/" is the root), sorted with `strcmp`. A prefix that is an
/// object has no children; a prefix with nothing at or below it is
/// `NC_ENOOBJECT`. On success `*nmatchesp` is the count and `*matchesp` a
/// `malloc`ed array of `malloc`ed strings (NULL when there are none); free it
/// with `nczmap_free_names`.
///
/// # Safety
/// `prefix` is NULL or a NUL-terminated string; the out pointers are valid.
#[no_mangle]
pub unsafe extern "C" fn nczmap_search(
    mapid: c_int,
    prefix: *const c_char,
    nmatchesp: *mut usize,
    matchesp: *mut *mut *mut c_char,
) -> c_int {
    guard("nczmap_search", || {
        non_null(nmatchesp)?;
        non_null(matchesp)?;
        let store = MAPS.get(mapid)?;
        let prefix = parse_key(opt_c_str(prefix)?.unwrap_or("/"))?;
        let names = store.list_dir(&prefix)?.ok_or(NcError::new(NC_ENOOBJECT))?;
        let arr = malloc_c_string_array(&names)?;
        out(nmatchesp, names.len());
        out(matchesp, arr);
        Ok(())
    })
}

/// Frees the result of `nczmap_search`. NULL is fine.
///
/// # Safety
/// `names` is NULL or an array of `n` strings returned by `nczmap_search`.
#[no_mangle]
pub unsafe extern "C" fn nczmap_free_names(n: usize, names: *mut *mut c_char) -> c_int {
    guard("nczmap_free_names", || {
        free_c_string_array(n, names);
        Ok(())
    })
}

/// The feature flags of an implementation; `NCZM_UNIMPLEMENTED` for one this
/// build does not have.
#[no_mangle]
pub extern "C" fn nczmap_features(imp: NCZM_IMPL) -> NCZM_FEATURES {
    guard_or("nczmap_features", NCZM_UNIMPLEMENTED, || match driver(imp) {
        Ok(d) => feature_bits(d.features()),
        Err(_) => NCZM_UNIMPLEMENTED,
    })
}
