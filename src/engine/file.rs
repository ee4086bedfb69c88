//! Dataset lifecycle: create, open, define/data mode, sync, close, abort.

use super::consts::*;
use super::error::*;
use super::format::{self, DatasetDriver, Extents};
use super::model::{Dataset, NC_FillValue_NAME};
use super::url::{self, Storage};
use super::{NcError, NcResult};
use crate::map::{Driver, MapError, Store, StoreKey, Version};
use std::collections::HashMap;
use std::sync::Arc;

/// How often the metadata is merged again when other writers keep
/// changing it, before `NC_EIO`.
const METADATA_ATTEMPTS: usize = 64;

fn driver(storage: Storage) -> Driver {
    match storage {
        Storage::Memory => Driver::Memory,
        Storage::Zip => Driver::Zip,
        Storage::S3 => Driver::S3,
        Storage::Gcs => Driver::GCS,
        Storage::Azure => Driver::AZURE,
        Storage::Http => Driver::HTTP,
        Storage::File => Driver::File,
        Storage::Refs => Driver::Refs,
    }
}

fn check_mode_combination(mode: i32) -> NcResult<()> {
    let formats = [NC_NETCDF4, NC_64BIT_OFFSET, NC_64BIT_DATA].iter().filter(|&&f| mode & f != 0).count();
    if formats > 1 {
        return Err(NcError::new(NC_EINVAL));
    }
    if mode & NC_DISKLESS != 0 && mode & NC_MMAP != 0 {
        return Err(NcError::new(NC_EDISKLESS));
    }
    if mode & NC_INMEMORY != 0 && mode & NC_MMAP != 0 {
        return Err(NcError::new(NC_EINMEMORY));
    }
    if mode & (NC_64BIT_OFFSET | NC_64BIT_DATA) != 0 {
        return Err(NcError::with(NC_EINVAL, "NCZarr stores the netCDF-4 format only"));
    }
    Ok(())
}

/// Whether this library, rather than a netCDF-C in the same process, serves
/// `path` (see `ffi::interpose`): URLs that name a Zarr format or storage
/// ([`url::zarr_url`]); for `nc_open`, also a plain path to a directory that
/// holds Zarr, NCZarr or Zarr v3 metadata, to a zip archive, or to a
/// kerchunk JSON reference file (`*.json` holding an object). A plain path
/// given to `nc_create` is netCDF-C's (it makes a netCDF file there).
pub fn claims(path: &str, create: bool) -> bool {
    if let Some(zarr) = url::zarr_url(path) {
        return zarr;
    }
    if create {
        return false;
    }
    let p = std::path::Path::new(path);
    if p.is_dir() {
        return crate::map::file::is_store_dir(p, format::store_markers());
    }
    crate::map::zip::looks_like_zip(p) || crate::map::refs::looks_like_refs(p)
}

fn location(path: &str, mode: i32) -> NcResult<url::DatasetUrl> {
    let mut u = url::parse(path)?;
    if u.storage == Storage::File
        && url::zarr_url(path).is_none()
        && crate::map::zip::looks_like_zip(std::path::Path::new(path))
    {
        u.storage = Storage::Zip;
    }
    if u.storage == Storage::File
        && url::zarr_url(path).is_none()
        && crate::map::refs::looks_like_refs(std::path::Path::new(path))
    {
        u.storage = Storage::Refs;
        u.pure_zarr = true;
        ["zarr", "kerchunk"].iter().for_each(|m| u.modes.push(m.to_string()));
    }
    if mode & (NC_DISKLESS | NC_INMEMORY) != 0 && u.storage == Storage::File {
        u.storage = Storage::Memory;
    }
    Ok(u)
}

/// `NCZARR_CONSOLIDATED` asks for consolidated metadata as netCDF-C reads
/// it (`use_consolidated_metadata` in `libnczarr/zmetadata.c`): a positive
/// integer (C's `atoi`), `true` or `yes` in any case.
fn consolidated_env() -> bool {
    std::env::var("NCZARR_CONSOLIDATED").is_ok_and(|v| env_true(&v))
}

fn env_true(v: &str) -> bool {
    // atoi: leading blanks, a sign, then digits (what follows is ignored)
    let t = v.trim_start_matches([' ', '\t', '\n', '\r', '\x0b', '\x0c']);
    let (neg, t) = match t.as_bytes().first() {
        Some(b'-') => (true, &t[1..]),
        Some(b'+') => (false, &t[1..]),
        _ => (false, t),
    };
    let digits = t.bytes().take_while(u8::is_ascii_digit).collect::<Vec<u8>>();
    let positive = !neg && digits.iter().any(|&d| d != b'0');
    positive || v.eq_ignore_ascii_case("true") || v.eq_ignore_ascii_case("yes")
}

/// `nc_create`: a new dataset in define mode.
pub fn create(path: &str, cmode: i32) -> NcResult<Dataset> {
    check_mode_combination(cmode)?;
    let u = location(path, cmode)?;
    // A zip archive of NCZarr has netCDF-C's layout (the dataset below a
    // directory named after the archive), one of pure Zarr zarr-python's
    // (the dataset at the archive's root); both are read either way.
    let clobber = cmode & NC_NOCLOBBER == 0;
    let made = if u.pure_zarr {
        driver(u.storage).create(&u.location, clobber)
    } else {
        driver(u.storage).create_nested(&u.location, clobber)
    };
    let store = made.map_err(|e| match e {
        MapError::AlreadyExists(_) => NcError::with(NC_EEXIST, e.to_string()),
        other => NcError::from(other),
    })?;
    Ok(new_dataset(store, path, cmode, &u))
}

/// [`create`] of a dataset whose store another rank of a parallel create
/// has just made: it is opened, not made again (and not deleted by this
/// handle's `nc_abort`); on S3 as made by this handle, so that a new chunk
/// costs no listing before its `PUT` (`Driver::open_joined_with`).
pub(super) fn create_joined(path: &str, cmode: i32) -> NcResult<Dataset> {
    check_mode_combination(cmode)?;
    let u = location(path, cmode)?;
    let store = driver(u.storage).open_joined(&u.location)?;
    let mut ds = new_dataset(store, path, cmode, &u);
    ds.fresh = false;
    Ok(ds)
}

/// The storage a path names (a parallel dataset refuses some).
pub(super) fn storage_of(path: &str, mode: i32) -> NcResult<Storage> {
    Ok(location(path, mode)?.storage)
}

fn new_dataset(store: Arc<dyn Store>, path: &str, cmode: i32, u: &url::DatasetUrl) -> Dataset {
    let mut ds = Dataset::new_empty(store, path, cmode | NC_NETCDF4, u.pure_zarr, u.xarray);
    // mode=oldkeys: netCDF-C 4.9.2's placement of the NCZarr keys (the spec's)
    if !u.pure_zarr && u.modes.iter().any(|m| m == "oldkeys") {
        ds.nczarr_layout = super::model::NczarrLayout::V2;
    }
    // a format the URL selects (mode=v3: Zarr v3; netCDF-C documents the
    // spelling, not yet the format)
    if let Some(f) = format::by_url_modes(&u.modes) {
        ds.format = f;
        ds.nczarr_layout = f.new_layout(ds.nczarr_layout);
    }
    // mode=consolidated (or NCZARR_CONSOLIDATED): keep consolidated
    // metadata up to date (netCDF-C 4.10 writes .zmetadata then, xarray)
    ds.consolidated = u.consolidated || consolidated_env();
    ds
}

/// `nc_open`: reads the dataset's metadata; writable with `NC_WRITE`.
/// Opened read-only, its aggregation variables are interpreted
/// (`engine::aggregate`) unless the URL's mode has `noaggregate` or the
/// environment `NCZARR_RS_AGGREGATE=0`.
pub fn open(path: &str, omode: i32) -> NcResult<Dataset> {
    open_with(path, None, omode, true, |s| s)
}

/// [`open`] reading the store through `wrap` (a parallel open records or
/// replays its metadata reads); the dataset keeps the store itself.
pub(super) fn open_through(
    path: &str,
    omode: i32,
    wrap: impl FnOnce(Arc<dyn Store>) -> Arc<dyn Store>,
) -> NcResult<Dataset> {
    open_with(path, None, omode, true, wrap)
}

/// `nc_open` showing the dataset as stored (no aggregation).
pub fn open_as_stored(path: &str, omode: i32) -> NcResult<Dataset> {
    open_with(path, None, omode, false, |s| s)
}

/// [`open`] of the dataset stored at `path` under the name `name` (an
/// in-memory image in a temporary file: `nc_open_mem`): `name` is its path,
/// and the base of its aggregation variables' relative references.
pub fn open_named(path: &str, name: &str, omode: i32) -> NcResult<Dataset> {
    open_with(path, Some(name), omode, true, |s| s)
}

fn open_with(
    path: &str,
    name: Option<&str>,
    omode: i32,
    aggregate: bool,
    wrap: impl FnOnce(Arc<dyn Store>) -> Arc<dyn Store>,
) -> NcResult<Dataset> {
    check_mode_combination(omode)?;
    let u = location(path, omode)?;
    let writable = omode & NC_WRITE != 0;
    // unverified: whether anything is there, the first reads tell
    let store: Arc<dyn Store> = driver(u.storage).open_unverified(&u.location, writable).map_err(|e| match e {
        MapError::RootNotFound(_) => NcError::with(ENOENT, e.to_string()),
        other => NcError::from(other),
    })?;
    let consolidated = u.consolidated || consolidated_env();
    let mut ds = format::read_dataset(
        wrap(store.clone()),
        path,
        omode | NC_NETCDF4,
        format::OpenOptions {
            xarray: u.xarray,
            pure_zarr: u.pure_zarr,
            consolidated,
            expect: format::by_url_modes(&u.modes),
        },
    )?;
    ds.store = store;
    ds.writable = ds.writable && writable;
    if u.storage == Storage::Refs {
        kerchunk_view(&mut ds);
    }
    if u.pure_zarr {
        ds.pure_zarr = true;
    }
    if let Some(name) = name {
        ds.set_path(name);
    }
    let aggregate =
        aggregate && !ds.writable && !u.modes.iter().any(|m| m == "noaggregate") && super::aggregate::enabled_by_env();
    if aggregate {
        super::aggregate::apply(&mut ds)?;
    }
    if ds.writable {
        format::note_read_metadata(&mut ds);
    }
    Ok(ds)
}

/// A kerchunk view of netCDF-4 files shown as netCDF-C shows the files.
/// A `char` variable is an HDF5 one-byte string, `|S1` (which in other
/// pure Zarr is a one-character string, as netCDF-C reads it): it is
/// `char` again, its `fill_value` base64 as Zarr v2 has it, kerchunk's
/// made-up `" "` (for a variable without `_FillValue`) the default fill.
/// Kerchunk moves a variable's `_FillValue` attribute into the `.zarray`'s
/// `fill_value`, which becomes the attribute again here, and writes
/// `null` for a netCDF variable without one, whose HDF5 fill value is
/// netCDF's default (so fill mode stays on: a chunk the file never wrote
/// reads as the default fill, as netCDF-C reads it), and that default
/// for a scalar (no attribute then either).
fn kerchunk_view(ds: &mut Dataset) {
    use super::types::Values;
    for g in &mut ds.groups {
        for v in &mut g.vars {
            if v.nctype == NC_STRING && v.dtype_strlen == Some(1) {
                v.nctype = NC_CHAR;
                v.dtype_strlen = None;
                v.zarray_fill = match &v.zarray_fill {
                    Some(Values::String(s)) => {
                        use base64::Engine;
                        let b = base64::engine::general_purpose::STANDARD.decode(s.first().map_or("", |s| s.as_str()));
                        match b.ok().and_then(|b| b.first().copied()) {
                            Some(b' ') | None => None,
                            Some(c) => Some(Values::Char(vec![c])),
                        }
                    }
                    _ => None,
                };
            }
            if v.atts.iter().any(|a| a.name == NC_FillValue_NAME) {
                continue;
            }
            match &v.zarray_fill {
                // kerchunk writes HDF5's fill value where the variable has
                // no dimension scales (a scalar): netCDF's default, no attribute
                Some(f) if Values::default_fill(v.nctype).is_ok_and(|d| d == *f) => {}
                Some(f) => {
                    v.atts.push(super::model::Att { name: NC_FillValue_NAME.to_string(), values: f.clone() });
                }
                None if v.nctype != NC_STRING => v.no_fill = false,
                None => {}
            }
        }
    }
}

/// `nc_delete`: removes a dataset, whatever its driver. Only a Zarr/NCZarr
/// dataset is deleted: anything else (a plain directory tree, an archive
/// without Zarr metadata) is `NC_ENOTNC` and left alone.
pub fn delete(path: &str) -> NcResult<()> {
    let u = location(path, 0)?;
    let store = driver(u.storage).open(&u.location, true).map_err(|e| match e {
        MapError::RootNotFound(_) => NcError::with(ENOENT, e.to_string()),
        other => NcError::from(other),
    })?;
    let root = crate::map::StoreKey::root();
    let mut is_dataset = false;
    for m in format::store_markers().0 {
        is_dataset |= store.size(&root.child(m)?)?.is_some();
    }
    if !is_dataset {
        return Err(NcError::with(NC_ENOTNC, format!("{path} is not a Zarr dataset: not deleted")));
    }
    store.destroy()?;
    Ok(())
}

impl Dataset {
    /// `nc_enddef`: persists the metadata and leaves define mode.
    pub fn enddef(&mut self) -> NcResult<()> {
        self.touch();
        if !self.define_mode {
            return Err(NcError::new(NC_ENOTINDEFINE));
        }
        match self.par.is_some() {
            true => self.par_write_metadata(Ok(()))?,
            false => self.write_metadata_merged()?,
        }
        self.define_mode = false;
        Ok(())
    }

    /// `nc_sync`: persists everything written so far.
    pub fn sync(&mut self) -> NcResult<()> {
        self.touch();
        if !self.writable {
            return Ok(());
        }
        if self.define_mode {
            if self.classic_model {
                return Err(NcError::new(NC_EINDEFINE));
            }
            self.define_mode = false;
        }
        self.persist()
    }

    /// `nc_close`: persists everything. On error the dataset stays open;
    /// once closed, every use of it is `NC_EBADID` (a thread that was
    /// waiting for it to write gets that, rather than success and lost data).
    pub fn close(&mut self) -> NcResult<()> {
        self.touch();
        if self.closed {
            return Err(NcError::new(NC_EBADID));
        }
        if self.writable {
            self.define_mode = false;
            self.persist()?;
        }
        self.closed = true;
        Ok(())
    }

    /// Dirty chunks, then the metadata that changed, then the store's own
    /// buffers (the zip archive) are made durable.
    /// On a parallel dataset, every rank writes its own chunks and rank 0
    /// the metadata the ranks agreed on.
    fn persist(&mut self) -> NcResult<()> {
        let flushed = self.flush_chunks();
        if self.par.is_some() {
            self.par_write_metadata(flushed)?;
            // other ranks wrote chunks this one may hold, read before
            self.drop_clean_chunks();
        } else {
            flushed?;
            self.write_metadata_merged()?;
        }
        self.store.flush()?;
        Ok(())
    }

    /// Writes the metadata that changed. A dataset with unlimited
    /// dimensions may have other writers appending: under the store lock,
    /// the lengths stored now are merged in first (the larger wins), and
    /// the objects that hold lengths are written only if nobody changed
    /// them since (else read and merged again). docs/RELIABILITY.md,
    /// "Multiple writers".
    pub(in crate::engine) fn write_metadata_merged(&mut self) -> NcResult<()> {
        if !self.dims.iter().any(|d| d.unlimited) {
            return format::write_metadata(self);
        }
        let store = self.store.clone();
        let _lock = store.lock()?;
        for _ in 0..METADATA_ATTEMPTS {
            let expected = self.merge_stored_lengths()?;
            if format::write_metadata_if(self, &expected)? {
                return Ok(());
            }
        }
        Err(NcError::with(NC_EIO, "other writers kept changing the metadata while this one merged its lengths"))
    }

    /// Takes the larger of each unlimited dimension's length here and as
    /// stored (where the format keeps them: [`Extents`]), and
    /// returns the versions of the objects read.
    fn merge_stored_lengths(&mut self) -> NcResult<HashMap<StoreKey, Option<Version>>> {
        let mut seen = HashMap::new();
        let mut stored = Vec::new();
        let mut read = |key: StoreKey| -> NcResult<Option<serde_json::Value>> {
            let got = self.store.get_versioned(&key)?;
            let (value, version) = match got {
                Some((bytes, v)) => {
                    let value = super::json::parse(&bytes).ok();
                    stored.push((key.clone(), bytes));
                    (value, Some(v))
                }
                None => (None, None),
            };
            seen.insert(key, version);
            Ok(value)
        };
        let extents = self.format.extents();
        let mut longer: Vec<(usize, u64)> = Vec::new();
        for gid in 0..self.groups.len() {
            let g = &self.groups[gid];
            let unlimited: Vec<usize> = g.dims.iter().copied().filter(|&d| self.dims[d].unlimited).collect();
            if !unlimited.is_empty() {
                let gkey = self.group_key(gid);
                for (i, (obj, _)) in extents.group.iter().enumerate() {
                    let Some(doc) = read(gkey.child(obj)?)? else { continue };
                    for &d in &unlimited {
                        longer.extend(extents.group_length(i, &doc, &self.dims[d].name).map(|n| (d, n)));
                    }
                }
            }
            for vid in 0..g.vars.len() {
                let v = &g.vars[vid];
                if !v.dimids.iter().any(|&d| self.dims[d].unlimited) {
                    continue;
                }
                let Some(doc) = read(self.var_key(gid, vid).child(extents.array)?)? else { continue };
                let Some(shape) = Extents::array_shape(&doc) else { continue };
                if shape.len() == v.dimids.len() {
                    longer.extend(
                        v.dimids.iter().zip(shape).filter(|(&d, _)| self.dims[d].unlimited).map(|(&d, n)| (d, n)),
                    );
                }
            }
        }
        for (d, n) in longer {
            let dim = &mut self.dims[d];
            dim.len = dim.len.max(n);
        }
        // what the store holds now: a writer whose lengths only grew to
        // another's writes nothing if that writer already wrote its objects
        for (key, bytes) in stored {
            self.written.insert(key, bytes);
        }
        Ok(seen)
    }

    /// Counts every metadata object as changed since it was read: the next
    /// write-back (`nc_sync`, `nc_close`) writes each one whose text, as
    /// this library makes it, differs from the store's. Otherwise a writer
    /// that defines nothing writes no metadata (`format::note_read_metadata`);
    /// the fuzz targets use this to check that a rewrite keeps the dataset.
    pub fn rewrite_metadata(&mut self) {
        self.read_as.clear();
    }

    /// `nc_abort`: drops unsaved changes; a dataset created by this handle
    /// and never taken out of its first define mode is deleted. Once
    /// aborted, every use of it is `NC_EBADID`.
    pub fn abort(&mut self) -> NcResult<()> {
        self.touch();
        if self.closed {
            return Err(NcError::new(NC_EBADID));
        }
        self.closed = true;
        if self.fresh && self.writable {
            self.store.destroy()?;
        }
        Ok(())
    }

    /// `nc_set_fill`: the fill mode for variables defined from now on;
    /// returns the previous mode.
    pub fn set_fill(&mut self, fillmode: i32) -> NcResult<i32> {
        self.touch();
        self.check_writable()?;
        let old = if self.default_nofill { NC_NOFILL } else { NC_FILL };
        match fillmode {
            NC_FILL => self.default_nofill = false,
            NC_NOFILL => self.default_nofill = true,
            _ => return Err(NcError::new(NC_EINVAL)),
        }
        Ok(old)
    }

    /// `nc_inq_format`.
    pub fn format(&self) -> i32 {
        if self.classic_model {
            NC_FORMAT_NETCDF4_CLASSIC
        } else {
            NC_FORMAT_NETCDF4
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn consolidated_env_as_netcdf_c() {
        for v in ["1", "2", " 7x", "+3", "TRUE", "true", "Yes"] {
            assert!(super::env_true(v), "{v}");
        }
        for v in ["", "0", "00", "-1", "false", "no", "on", "x1", "truex"] {
            assert!(!super::env_true(v), "{v}");
        }
    }
}
