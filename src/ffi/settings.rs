//! netCDF-C's process-wide settings: the `.rc` table (`nc_rc_get`,
//! `nc_rc_set`), the plugin path (`nc_plugin_path_*`, `netcdf_filter.h`)
//! and the HDF5 metadata block size (`nc_set/get_meta_block_size`). Each is
//! forwarded to the real libnetcdf when the process has one. Served here,
//! they keep netCDF-C's values and argument rules; the engine itself needs
//! none of them (its codecs are built in, it loads no plugins, and Zarr has
//! no HDF5 metadata blocks).
#![allow(non_camel_case_types)]

use super::args::{in_mut, in_ref, malloc_c_string, opt_c_str, out, slice_mut};
use super::boundary::{guard, guard_or};
use super::interpose::always;
use crate::engine::error::*;
use crate::engine::{NcError, NcResult};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{LazyLock, Mutex};

// ---- the .rc table ------------------------------------------------------------

/// The `key=value` entries of netCDF-C's rc files (entries for one URL,
/// `[url]key=value`, are not visible to `nc_rc_get`, as in netCDF-C).
/// `None` when `NCRCENV_IGNORE` is set.
static RC: LazyLock<Mutex<Option<HashMap<String, String>>>> = LazyLock::new(|| Mutex::new(load_rc()));

/// netCDF-C's order: `$NCRCENV_RC` alone if set, else `.ncrc`, `.daprc`,
/// `.dodsrc` in `$NCRCENV_HOME` (or `$HOME`), then in the working
/// directory; later entries override earlier ones.
fn load_rc() -> Option<HashMap<String, String>> {
    if std::env::var_os("NCRCENV_IGNORE").is_some() {
        return None;
    }
    let mut files = Vec::new();
    if let Some(rc) = std::env::var_os("NCRCENV_RC").filter(|v| !v.is_empty()) {
        files.push(std::path::PathBuf::from(rc));
    } else {
        let home = std::env::var_os("NCRCENV_HOME").or_else(|| std::env::var_os("HOME"));
        for dir in home.map(std::path::PathBuf::from).into_iter().chain(std::env::current_dir().ok()) {
            files.extend([".ncrc", ".daprc", ".dodsrc"].iter().map(|n| dir.join(n)));
        }
    }
    let mut table = HashMap::new();
    for text in files.iter().filter_map(|f| std::fs::read_to_string(f).ok()) {
        for line in text.lines().map(str::trim) {
            if line.is_empty() || line.starts_with('#') || line.starts_with('[') {
                continue;
            }
            let (key, value) = line.split_once('=').unwrap_or((line, ""));
            table.insert(key.trim().to_string(), value.trim().to_string());
        }
    }
    Some(table)
}

fn rc() -> std::sync::MutexGuard<'static, Option<HashMap<String, String>>> {
    RC.lock().unwrap_or_else(|p| p.into_inner())
}

/// The value of `key` in the rc table, in a new `malloc`ed string (free it
/// with `free()`), or NULL when there is none.
///
/// # Safety
/// `key` is NULL or a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_rc_get(key: *const c_char) -> *mut c_char {
    always!(nc_rc_get(key));
    guard_or("nc_rc_get", std::ptr::null_mut(), || {
        let Ok(Some(key)) = opt_c_str(key) else { return std::ptr::null_mut() };
        let value = rc().as_ref().and_then(|t| t.get(key).cloned());
        value.and_then(|v| malloc_c_string(&v).ok()).unwrap_or(std::ptr::null_mut())
    })
}

/// Sets (or replaces) `key=value` in the rc table; a no-op when
/// `NCRCENV_IGNORE` is set. NULL `key` or `value` is `NC_EINVAL`.
///
/// # Safety
/// `key` and `value` are NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn nc_rc_set(key: *const c_char, value: *const c_char) -> c_int {
    always!(nc_rc_set(key, value));
    guard("nc_rc_set", || {
        let (Some(key), Some(value)) = (opt_c_str(key)?, opt_c_str(value)?) else {
            return Err(NcError::new(NC_EINVAL));
        };
        if let Some(t) = rc().as_mut() {
            t.insert(key.to_string(), value.to_string());
        }
        Ok(())
    })
}

// ---- the plugin path ----------------------------------------------------------

/// netCDF-C's list of plugin directories (`netcdf_filter.h`).
#[repr(C)]
pub struct NCPluginList {
    pub ndirs: usize,
    pub dirs: *mut *mut c_char,
}

/// The plugin path: `HDF5_PLUGIN_PATH` at start-up (`:`-separated), else
/// netCDF-C's default directory. Kept and reported only: this library's
/// codecs are built in.
static PLUGIN_PATH: LazyLock<Mutex<Vec<Option<String>>>> = LazyLock::new(|| {
    let path = std::env::var("HDF5_PLUGIN_PATH").unwrap_or_else(|_| "/usr/local/hdf5/lib/plugin".into());
    Mutex::new(path.split(':').filter(|d| !d.is_empty()).map(|d| Some(d.to_string())).collect())
});

fn plugin_path() -> std::sync::MutexGuard<'static, Vec<Option<String>>> {
    PLUGIN_PATH.lock().unwrap_or_else(|p| p.into_inner())
}

/// The number of plugin directories.
///
/// # Safety
/// `ndirsp` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_plugin_path_ndirs(ndirsp: *mut usize) -> c_int {
    always!(nc_plugin_path_ndirs(ndirsp));
    guard("nc_plugin_path_ndirs", || {
        out(ndirsp, plugin_path().len());
        Ok(())
    })
}

/// Copies the plugin directories into `dirs` (netCDF-C's contract: when
/// `dirs->dirs` is NULL the vector is `calloc`ed, else it must hold
/// `ndirs` pointers; every string is `malloc`ed). NULL `dirs` does nothing.
///
/// # Safety
/// `dirs` is NULL or points to an `NCPluginList` as described.
#[no_mangle]
pub unsafe extern "C" fn nc_plugin_path_get(dirs: *mut NCPluginList) -> c_int {
    always!(nc_plugin_path_get(dirs));
    guard("nc_plugin_path_get", || {
        if dirs.is_null() {
            return Ok(());
        }
        let list = plugin_path().clone();
        let d = in_mut(dirs)?;
        d.ndirs = list.len();
        if d.ndirs > 0 && d.dirs.is_null() {
            d.dirs = libc::calloc(d.ndirs, std::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
            if d.dirs.is_null() {
                return Err(NcError::new(NC_ENOMEM));
            }
        }
        for (slot, dir) in slice_mut(d.dirs, d.ndirs)?.iter_mut().zip(&list) {
            *slot = match dir {
                Some(s) => malloc_c_string(s)?,
                None => std::ptr::null_mut(),
            };
        }
        Ok(())
    })
}

/// Replaces the plugin directories with `dirs` (NULL is `NC_EINVAL`; no
/// directories clears the list).
///
/// # Safety
/// `dirs` is NULL or points to an `NCPluginList` whose `dirs` holds `ndirs`
/// NULL or NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn nc_plugin_path_set(dirs: *mut NCPluginList) -> c_int {
    always!(nc_plugin_path_set(dirs));
    guard("nc_plugin_path_set", || {
        let d = in_ref(dirs)?;
        let list: NcResult<Vec<Option<String>>> = if d.ndirs == 0 {
            Ok(Vec::new())
        } else {
            super::args::in_slice(d.dirs, d.ndirs)?
                .iter()
                .map(|&p| opt_c_str(p).map(|s| s.map(str::to_string)))
                .collect()
        };
        *plugin_path() = list?;
        Ok(())
    })
}

// ---- HDF5 metadata block size ----------------------------------------------------

static META_BLOCK_SIZE: AtomicUsize = AtomicUsize::new(0);

/// HDF5's minimum metadata block size for later creates and opens: kept
/// and reported, without effect on Zarr (netCDF-C 4.10.1).
#[no_mangle]
pub extern "C" fn nc_set_meta_block_size(size: usize) -> c_int {
    always!(nc_set_meta_block_size(size));
    guard("nc_set_meta_block_size", || {
        META_BLOCK_SIZE.store(size, Ordering::Relaxed);
        Ok(())
    })
}

/// The value last set by `nc_set_meta_block_size`, 0 if none.
///
/// # Safety
/// `sizep` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_meta_block_size(sizep: *mut usize) -> c_int {
    always!(nc_get_meta_block_size(sizep));
    guard("nc_get_meta_block_size", || {
        out(sizep, META_BLOCK_SIZE.load(Ordering::Relaxed));
        Ok(())
    })
}
