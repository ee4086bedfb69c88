//! netCDF-C's in-memory datasets (`netcdf_mem.h`): `nc_open_mem`,
//! `nc_open_memio`, `nc_create_mem`, `nc_close_memio`.
//!
//! A Zarr dataset's one-blob form is a zip store, so this library's memory
//! images are zip archives: an image that starts like one (`PK\x03\x04`) is
//! opened by this engine, through the zip driver, on a private temporary
//! copy (read-only images: the driver reads the archive at open and the
//! copy is removed at once). Any other image (classic, HDF5) is netCDF-C's:
//! it goes to the real libnetcdf when the process has one, else it is
//! `NC_ENOTBUILT` (a netCDF or HDF5 signature) or `NC_ENOTNC`.
//! `nc_create_mem` on a path that is ours makes a zip store, and
//! `nc_close_memio` hands back its archive bytes.
#![allow(non_camel_case_types)]

use super::args::{bytes, c_str, in_ref, malloc_bytes, out};
use super::boundary::guard;
use super::interpose::{always, by_ncid, by_path};
use super::nc::{add_file, make_ncid, split};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::{file, url, NcError, NcResult};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_void};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{LazyLock, Mutex};

/// netCDF-C's memory image descriptor (`netcdf_mem.h`).
#[repr(C)]
pub struct NC_memio {
    pub size: usize,
    pub memory: *mut c_void,
    pub flags: c_int,
}

/// `NC_memio.flags`: the caller's memory must not be reallocated or freed.
pub const NC_MEMIO_LOCKED: c_int = 1;

/// netCDF-C's `MAGIC_NUMBER_LEN`: the smallest image it accepts.
const MAGIC_NUMBER_LEN: usize = 8;

/// The memory image behind an open dataset of ours.
enum Image {
    /// Opened read-only: `nc_close_memio` gives the caller's memory back.
    Caller { memory: *mut c_void, size: usize, flags: c_int },
    /// Writable: the archive lives in a private temporary file until close.
    Temp(PathBuf),
}

// SAFETY: the pointer is only handed back to C, never dereferenced here.
unsafe impl Send for Image {}

static IMAGES: LazyLock<Mutex<HashMap<i32, Image>>> = LazyLock::new(Default::default);

fn images() -> std::sync::MutexGuard<'static, HashMap<i32, Image>> {
    IMAGES.lock().unwrap_or_else(|p| p.into_inner())
}

/// A fresh private path for one image: `image.zip` in a new directory that
/// only this user can enter, made with `mkdir` (which fails on anything
/// already there, a planted symlink included), so nothing in the shared
/// temporary directory can redirect the writes.
fn temp_path() -> NcResult<PathBuf> {
    use std::os::unix::fs::DirBuilderExt;
    static NEXT: AtomicU64 = AtomicU64::new(0);
    for _ in 0..64 {
        let n = NEXT.fetch_add(1, Ordering::Relaxed);
        let dir = std::env::temp_dir().join(format!(".nczarr-rs-memio-{}-{n}", std::process::id()));
        match std::fs::DirBuilder::new().mode(0o700).create(&dir) {
            Ok(()) => return Ok(dir.join("image.zip")),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(NcError::with(e.raw_os_error().unwrap_or(NC_EIO), e.to_string())),
        }
    }
    Err(NcError::with(NC_EIO, "no free private temporary directory"))
}

/// Removes an image's temporary file and its private directory.
fn remove_temp(p: &std::path::Path) {
    let _ = std::fs::remove_file(p);
    if let Some(dir) = p.parent() {
        let _ = std::fs::remove_dir(dir);
    }
}

/// Forgets the image of file `fid` (closed or aborted), removing its
/// temporary file.
pub(crate) fn discard(fid: i32) {
    if let Some(Image::Temp(p)) = images().remove(&fid) {
        remove_temp(&p);
    }
}

/// Whether `memory` holds a zip archive (this library's memory images).
fn is_zip_image(memory: *const c_void, size: usize) -> bool {
    if memory.is_null() || size < 4 {
        return false;
    }
    // SAFETY: the caller passes `size` readable bytes.
    unsafe { bytes(memory, 4) }.is_ok_and(|head| head == b"PK\x03\x04" || head == b"PK\x05\x06")
}

/// What an image this library cannot read is, as netCDF-C would say it
/// without the format built in.
fn foreign_image(image: &[u8]) -> NcError {
    let known = image.starts_with(b"CDF\x01")
        || image.starts_with(b"CDF\x02")
        || image.starts_with(b"CDF\x05")
        || image.starts_with(b"\x89HDF\r\n\x1a\n")
        || image.starts_with(b"\x0e\x03\x13\x01");
    if known {
        NcError::with(NC_ENOTBUILT, "a netCDF-3/HDF memory image needs netCDF-C's libnetcdf")
    } else {
        NcError::with(NC_ENOTNC, "the memory image is not a zip store")
    }
}

/// Registers an open dataset and its image; returns the ncid.
fn register(mut ds: crate::engine::model::Dataset, path: &str, image: Image) -> NcResult<c_int> {
    ds.set_path(path);
    let fid = add_file(ds)?;
    images().insert(fid, image);
    Ok(make_ncid(fid, 0))
}

/// Opens the zip image `bytes` (the caller's `memory`) as dataset `path`.
fn open_image(path: &str, omode: c_int, memory: *mut c_void, image: &[u8], flags: c_int) -> NcResult<c_int> {
    if !image.starts_with(b"PK") {
        return Err(foreign_image(image));
    }
    let tmp = temp_path()?;
    std::fs::write(&tmp, image).map_err(|e| NcError::with(e.raw_os_error().unwrap_or(NC_EIO), e.to_string()))?;
    // aggregation variables read their fragments (relative to `path`)
    super::external::install();
    let opened = file::open_named(&tmp.to_string_lossy(), path, omode & !(NC_INMEMORY | NC_DISKLESS));
    let writable = omode & NC_WRITE != 0;
    if !writable || opened.is_err() {
        // read-only: the zip driver holds the whole archive in memory
        remove_temp(&tmp);
    }
    let image = if writable { Image::Temp(tmp) } else { Image::Caller { memory, size: image.len(), flags } };
    register(opened?, path, image)
}

/// Opens a dataset from a read-only memory image (`NC_WRITE` is
/// `NC_EINVAL`, as in netCDF-C). Zip stores are this library's; other
/// images go to the real libnetcdf.
///
/// # Safety
/// `path` is a NUL-terminated string; `memory` holds `size` bytes; `ncidp`
/// is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_open_mem(
    path: *const c_char,
    mode: c_int,
    size: usize,
    memory: *mut c_void,
    ncidp: *mut c_int,
) -> c_int {
    if !is_zip_image(memory, size) {
        always!(nc_open_mem(path, mode, size, memory, ncidp));
    }
    guard("nc_open_mem", || {
        if memory.is_null() || size < MAGIC_NUMBER_LEN || path.is_null() || mode & (NC_WRITE | NC_MMAP) != 0 {
            return Err(NcError::new(NC_EINVAL));
        }
        let id = open_image(c_str(path)?, mode, memory, bytes(memory, size as u64)?, NC_MEMIO_LOCKED)?;
        out(ncidp, id);
        Ok(())
    })
}

/// `nc_open_mem` with an `NC_memio` descriptor; `NC_WRITE` is allowed
/// (changes come back from `nc_close_memio`).
///
/// # Safety
/// `path` is a NUL-terminated string; `params` points to an `NC_memio`
/// whose `memory` holds `size` bytes; `ncidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_open_memio(
    path: *const c_char,
    mode: c_int,
    params: *mut NC_memio,
    ncidp: *mut c_int,
) -> c_int {
    if !in_ref(params).is_ok_and(|p| is_zip_image(p.memory, p.size)) {
        always!(nc_open_memio(path, mode, params, ncidp));
    }
    guard("nc_open_memio", || {
        if path.is_null() || params.is_null() {
            return Err(NcError::new(NC_EINVAL));
        }
        let p = in_ref(params)?;
        if p.memory.is_null() || p.size < MAGIC_NUMBER_LEN || mode & NC_MMAP != 0 {
            return Err(NcError::new(NC_EINVAL));
        }
        let id = open_image(c_str(path)?, mode, p.memory, bytes(p.memory, p.size as u64)?, p.flags)?;
        out(ncidp, id);
        Ok(())
    })
}

/// Creates a dataset in memory: for a path that is ours, a zip store whose
/// archive `nc_close_memio` returns.
///
/// # Safety
/// `path` is a NUL-terminated string; `ncidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_create_mem(
    path: *const c_char,
    mode: c_int,
    initialsize: usize,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, true => nc_create_mem(path, mode, initialsize, ncidp));
    let _ = initialsize;
    guard("nc_create_mem", || {
        if mode & NC_MMAP != 0 {
            return Err(NcError::new(NC_EINVAL));
        }
        let path = c_str(path)?;
        // the caller's format modes (zarr, noxarray, ...), on zip storage
        let modes: Vec<String> = match url::zarr_url(path) {
            Some(_) => url::parse(path)?.modes,
            None => vec!["nczarr".into()],
        };
        let mut modes: Vec<String> =
            modes.into_iter().filter(|m| !matches!(m.as_str(), "file" | "zip" | "s3" | "mem")).collect();
        modes.push("zip".into());
        let tmp = temp_path()?;
        let target = format!("file://{}#mode={}", tmp.display(), modes.join(","));
        let ds = file::create(&target, (mode & !(NC_INMEMORY | NC_DISKLESS | NC_NOCLOBBER)) | NC_CLOBBER);
        let ds = ds.inspect_err(|_| {
            remove_temp(&tmp);
        })?;
        out(ncidp, register(ds, path, Image::Temp(tmp))?);
        Ok(())
    })
}

/// Closes a dataset and returns its memory image in `*info`: the archive
/// of a zip store created by `nc_create_mem` or opened writable from
/// memory (from `malloc`: free it), or the caller's own memory for a
/// read-only image. For a dataset not in memory it is `nc_close`, and
/// `*info` is left alone (as netCDF-C).
///
/// # Safety
/// `info` is NULL or points to an `NC_memio`.
#[no_mangle]
pub unsafe extern "C" fn nc_close_memio(ncid: c_int, info: *mut NC_memio) -> c_int {
    by_ncid!(ncid => nc_close_memio(ncid, info));
    guard("nc_close_memio", || {
        let (fid, _) = split(ncid);
        super::files::close_file(ncid)?;
        let image = images().remove(&fid);
        let result = match (&image, info.is_null()) {
            (Some(Image::Caller { memory, size, flags }), false) => {
                out(info, NC_memio { size: *size, memory: *memory, flags: *flags });
                Ok(())
            }
            (Some(Image::Temp(p)), false) => malloc_file(p).map(|(memory, size)| {
                out(info, NC_memio { size, memory, flags: 0 });
            }),
            _ => Ok(()),
        };
        if let Some(Image::Temp(p)) = image {
            remove_temp(&p);
        }
        result
    })
}

/// The bytes of file `p` in a new `malloc`ed buffer.
fn malloc_file(p: &std::path::Path) -> NcResult<(*mut c_void, usize)> {
    let data = std::fs::read(p).map_err(|e| NcError::with(e.raw_os_error().unwrap_or(NC_EIO), e.to_string()))?;
    Ok((malloc_bytes(&data)?, data.len()))
}
