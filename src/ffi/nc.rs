//! The table of open datasets and the ncid scheme shared by the netCDF C
//! functions: `ncid = (file handle << 16) | group id`, as netCDF-C forms
//! them, so the root group's ncid is the file's ncid.
//!
//! It is the only table of datasets: one opened through netCDF-C's
//! dispatch (the UDF table, [`super::dispatch`]) is in it too, and is also
//! known by netCDF-C's file number ([`udf_attach`], [`udf_ncid`]).

use super::handles::HandleTable;
use super::interpose::{FIRST_FILE, LAST_FILE};
use crate::engine::error::NC_EBADID;
use crate::engine::model::Dataset;
use crate::engine::{NcError, NcResult};
use std::sync::{Arc, RwLock};

/// File numbers above netCDF-C's (see [`super::interpose`]): at most 16 384
/// open datasets, and every ncid a positive `int`.
pub(crate) static FILES: HandleTable<RwLock<Dataset>> = HandleTable::with_range(FIRST_FILE, LAST_FILE);

/// Enters a dataset just created or opened into the table; returns its
/// file handle. What the engine skipped of the store's content while
/// opening it becomes the call's note (`nczarr_rs_last_error`).
pub(crate) fn add_file(mut ds: Dataset) -> NcResult<i32> {
    let notes = ds.take_notes();
    if !notes.is_empty() {
        super::boundary::note(notes.join("; "));
    }
    FILES.insert(Arc::new(RwLock::new(ds)))
}

pub(crate) fn split(ncid: i32) -> (i32, usize) {
    (ncid >> 16, (ncid & 0xffff) as usize)
}

pub(crate) fn make_ncid(file: i32, gid: usize) -> i32 {
    (file << 16) | gid as i32
}

fn file_of(ncid: i32) -> NcResult<(Arc<RwLock<Dataset>>, usize)> {
    if ncid < 0 {
        return Err(NcError::new(NC_EBADID));
    }
    let (file, gid) = split(ncid);
    Ok((FILES.get(file)?, gid))
}

/// Runs `f` with shared access to the dataset of `ncid` and its group id.
pub(crate) fn read<T>(ncid: i32, f: impl FnOnce(&Dataset, usize) -> NcResult<T>) -> NcResult<T> {
    let (file, gid) = file_of(ncid)?;
    let ds = file.read().unwrap_or_else(|p| p.into_inner());
    ds.group(gid)?;
    f(&ds, gid)
}

/// Runs `f` with exclusive access to the dataset of `ncid`.
pub(crate) fn write<T>(ncid: i32, f: impl FnOnce(&mut Dataset, usize) -> NcResult<T>) -> NcResult<T> {
    let (file, gid) = file_of(ncid)?;
    let mut ds = file.write().unwrap_or_else(|p| p.into_inner());
    ds.group(gid)?;
    f(&mut ds, gid)
}

/// The ncid of group `gid` in the same file as `ncid`.
pub(crate) fn sibling_ncid(ncid: i32, gid: usize) -> i32 {
    make_ncid(split(ncid).0, gid)
}

/// Makes netCDF-C's ncid `theirs` (its file number) a name of our open
/// dataset `ncid`, for the UDF table; the name goes when the dataset closes.
pub(crate) fn udf_attach(theirs: i32, ncid: i32) -> NcResult<()> {
    FILES.alias(split(theirs).0, split(ncid).0)
}

/// Our ncid for netCDF-C's ncid `theirs` (same group id).
pub(crate) fn udf_ncid(theirs: i32) -> NcResult<i32> {
    if theirs < 0 {
        return Err(NcError::new(NC_EBADID));
    }
    let (file, gid) = split(theirs);
    Ok(make_ncid(FILES.resolve(file)?, gid))
}
