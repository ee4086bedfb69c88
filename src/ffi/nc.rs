//! The table of open datasets and the ncid scheme shared by the netCDF C
//! functions: `ncid = (file handle << 16) | group id`, as netCDF-C forms
//! them, so the root group's ncid is the file's ncid.

use super::handles::HandleTable;
use super::interpose::{FIRST_FILE, LAST_FILE};
use crate::engine::error::NC_EBADID;
use crate::engine::model::Dataset;
use crate::engine::{NcError, NcResult};
use std::sync::{Arc, RwLock};

/// File numbers above netCDF-C's (see [`super::interpose`]): at most 16 384
/// open datasets, and every ncid a positive `int`.
pub(crate) static FILES: HandleTable<RwLock<Dataset>> = HandleTable::with_range(FIRST_FILE, LAST_FILE);

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
