//! netCDF C API: files, groups, dimensions, types.

use super::args::{c_str, in_slice, opt_c_str, out, out_name, out_slice};
use super::boundary::guard;
use super::interpose::{by_ncid, by_path, real_fn};
use super::nc::{add_file, make_ncid, read, sibling_ncid, split, write, FILES};
use super::types::nc_type;
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::types::{type_name, type_size};
use crate::engine::{file, ncfile, NcError, NcResult};
use std::os::raw::{c_char, c_int};
use std::ptr::null_mut;

/// Creates (`create`) or opens a dataset and returns its ncid through `ncidp`
/// (this library's engine, whatever the path: the UDF table calls it too).
/// NULL `ncidp` is allowed, as in netCDF-C: the dataset stays open, out of
/// reach.
pub(crate) unsafe fn new_dataset(path: *const c_char, mode: c_int, ncidp: *mut c_int, create: bool) -> NcResult<()> {
    let path = c_str(path)?;
    super::external::install();
    let ds = if create {
        file::create(path, mode)?
    } else {
        // not a Zarr store: a netCDF file with aggregation variables, read
        // through libnetcdf (when no real libnetcdf serves the process;
        // else see `open_forwarded`)
        let netcdf_file = !file::claims(path, false) && std::path::Path::new(path).is_file();
        match netcdf_file.then(|| ncfile::open(path, mode).ok().flatten()).flatten() {
            Some(ds) => ds,
            None => file::open(path, mode)?,
        }
    };
    let id = add_file(ds)?;
    out(ncidp, make_ncid(id, 0));
    Ok(())
}

fn unlimdims(ds: &crate::engine::model::Dataset, gid: usize) -> NcResult<Vec<c_int>> {
    Ok(ds.unlimited_dims(gid)?.into_iter().map(|d| d as c_int).collect())
}

/// Creates a dataset (NCZarr; see README for paths and URL modes).
///
/// # Safety
/// `path` is a NUL-terminated string; `ncidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_create(path: *const c_char, cmode: c_int, ncidp: *mut c_int) -> c_int {
    by_path!(path, true => nc_create(path, cmode, ncidp));
    guard("nc_create", || new_dataset(path, cmode, ncidp, true))
}

/// `nc_create` with netCDF-3 tuning arguments, which NCZarr ignores.
///
/// # Safety
/// As `nc_create`; `chunksizehintp` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn nc__create(
    path: *const c_char,
    cmode: c_int,
    initialsz: usize,
    chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, true => nc__create(path, cmode, initialsz, chunksizehintp, ncidp));
    let _ = (initialsz, chunksizehintp);
    guard("nc__create", || new_dataset(path, cmode, ncidp, true))
}

/// Opens a dataset; `NC_WRITE` in `mode` for writing.
///
/// # Safety
/// `path` is a NUL-terminated string; `ncidp` points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_open(path: *const c_char, mode: c_int, ncidp: *mut c_int) -> c_int {
    if !super::interpose::claims(path, false) {
        if let Some(f) = real_fn!(nc_open(path, mode, ncidp)) {
            return open_forwarded("nc_open", path, mode, ncidp, f(path, mode, ncidp));
        }
    }
    guard("nc_open", || new_dataset(path, mode, ncidp, false))
}

/// A dataset that the real libnetcdf has opened (status `rc`) stays its
/// own, except a netCDF file opened read-only whose `Conventions` name an
/// aggregation convention and that holds aggregation variables: that one
/// is read again through this engine (`engine::ncfile`), which presents
/// its aggregated variables, and libnetcdf's handle is closed. On any
/// error in doing so the file stays libnetcdf's, as stored.
unsafe fn open_forwarded(name: &'static str, path: *const c_char, mode: c_int, ncidp: *mut c_int, rc: c_int) -> c_int {
    if rc != NC_NOERR || mode & NC_WRITE != 0 || ncidp.is_null() || !crate::engine::aggregate::enabled_by_env() {
        return rc;
    }
    // SAFETY: libnetcdf has just written the ncid there.
    let theirs = unsafe { *ncidp };
    let _ = guard(name, || {
        if !super::external::may_aggregate(theirs) {
            return Ok(());
        }
        super::external::install();
        let Some(ds) = ncfile::open(c_str(path)?, mode)? else {
            return Ok(());
        };
        let id = add_file(ds)?;
        if let Some(close) = real_fn!(nc_close(theirs)) {
            close(theirs);
        }
        out(ncidp, make_ncid(id, 0));
        Ok(())
    });
    rc
}

/// `nc_open` with a netCDF-3 tuning argument, which NCZarr ignores.
///
/// # Safety
/// As `nc_open`; `chunksizehintp` may be NULL.
#[no_mangle]
pub unsafe extern "C" fn nc__open(
    path: *const c_char,
    mode: c_int,
    chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    if !super::interpose::claims(path, false) {
        if let Some(f) = real_fn!(nc__open(path, mode, chunksizehintp, ncidp)) {
            return open_forwarded("nc__open", path, mode, ncidp, f(path, mode, chunksizehintp, ncidp));
        }
    }
    let _ = chunksizehintp;
    guard("nc__open", || new_dataset(path, mode, ncidp, false))
}

/// Persists everything and closes. On error the ncid stays valid.
#[no_mangle]
pub extern "C" fn nc_close(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_close(ncid));
    guard("nc_close", || {
        close_file(ncid)?;
        super::mem::discard(split(ncid).0);
        Ok(())
    })
}

/// `nc_close` of ours: persists, then forgets the file.
///
/// On a parallel dataset the close is collective, as `MPI_File_close` is
/// under netCDF-C's HDF5: no rank returns before every rank has written
/// its part and dropped its handle on the store (its lock file, its
/// temporary files), so that any rank may remove the store, or create it
/// again, as soon as its own `nc_close` returns (netCDF-C's tests do both).
/// A rank whose close failed still takes part. After `MPI_Finalize` there
/// is no rank to wait for: a read-only dataset closes, a writable one
/// fails (`NC_EMPI`: its close is collective), never a crash.
pub(crate) fn close_file(ncid: c_int) -> NcResult<()> {
    let (fid, gid) = split(ncid);
    if gid != 0 {
        write(ncid, |_, _| Ok(()))?;
    }
    let comm = read(ncid, |ds, _| Ok(ds.communicator()))?;
    let closed = write(ncid, |ds, _| ds.close()).and_then(|()| FILES.remove(fid).map(drop));
    match comm {
        Some(comm) if comm.running() => {
            let waited = comm.barrier();
            closed.and(waited)
        }
        _ => closed,
    }
}

/// Closes without saving pending changes; a dataset still in the define
/// mode of its creation is deleted.
#[no_mangle]
pub extern "C" fn nc_abort(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_abort(ncid));
    guard("nc_abort", || {
        let result = write(ncid, |ds, _| ds.abort());
        let (fid, _) = split(ncid);
        if result.as_ref().err().map(|e| e.code()) != Some(NC_EBADID) {
            FILES.remove(fid)?;
            super::mem::discard(fid);
        }
        result
    })
}

#[no_mangle]
pub extern "C" fn nc_redef(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_redef(ncid));
    guard("nc_redef", || write(ncid, |ds, _| ds.redef()))
}

#[no_mangle]
pub extern "C" fn nc_enddef(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_enddef(ncid));
    guard("nc_enddef", || write(ncid, |ds, _| ds.enddef()))
}

/// `nc_enddef` with netCDF-3 alignment arguments, which NCZarr ignores.
#[no_mangle]
pub extern "C" fn nc__enddef(ncid: c_int, h_minfree: usize, v_align: usize, v_minfree: usize, r_align: usize) -> c_int {
    by_ncid!(ncid => nc__enddef(ncid, h_minfree, v_align, v_minfree, r_align));
    let _ = (h_minfree, v_align, v_minfree, r_align);
    guard("nc__enddef", || write(ncid, |ds, _| ds.enddef()))
}

#[no_mangle]
pub extern "C" fn nc_sync(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_sync(ncid));
    guard("nc_sync", || write(ncid, |ds, _| ds.sync()))
}

/// # Safety
/// `old_modep` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_set_fill(ncid: c_int, fillmode: c_int, old_modep: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_set_fill(ncid, fillmode, old_modep));
    guard("nc_set_fill", || {
        let old = write(ncid, |ds, _| ds.set_fill(fillmode))?;
        out(old_modep, old);
        Ok(())
    })
}

/// Counts of the group's dimensions, variables and attributes, and its
/// first unlimited dimension (-1 if none).
///
/// # Safety
/// Each output is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq(
    ncid: c_int,
    ndimsp: *mut c_int,
    nvarsp: *mut c_int,
    nattsp: *mut c_int,
    unlimdimidp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq(ncid, ndimsp, nvarsp, nattsp, unlimdimidp));
    guard("nc_inq", || counts(ncid, ndimsp, nvarsp, nattsp, unlimdimidp))
}

/// The body of `nc_inq` and its single-count forms.
unsafe fn counts(
    ncid: c_int,
    ndimsp: *mut c_int,
    nvarsp: *mut c_int,
    nattsp: *mut c_int,
    unlimdimidp: *mut c_int,
) -> NcResult<()> {
    let (nd, nv, na, ul) = read(ncid, |ds, gid| {
        let g = ds.group(gid)?;
        Ok((g.dims.len(), g.vars.len(), g.atts.len(), unlimdims(ds, gid)?.first().copied().unwrap_or(-1)))
    })?;
    out(ndimsp, nd as c_int);
    out(nvarsp, nv as c_int);
    out(nattsp, na as c_int);
    out(unlimdimidp, ul);
    Ok(())
}

/// # Safety
/// `ndimsp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_ndims(ncid: c_int, ndimsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_ndims(ncid, ndimsp));
    guard("nc_inq_ndims", || counts(ncid, ndimsp, null_mut(), null_mut(), null_mut()))
}

/// # Safety
/// `nvarsp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_nvars(ncid: c_int, nvarsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_nvars(ncid, nvarsp));
    guard("nc_inq_nvars", || counts(ncid, null_mut(), nvarsp, null_mut(), null_mut()))
}

/// # Safety
/// `nattsp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_natts(ncid: c_int, nattsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_natts(ncid, nattsp));
    guard("nc_inq_natts", || counts(ncid, null_mut(), null_mut(), nattsp, null_mut()))
}

/// # Safety
/// `unlimdimidp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_unlimdim(ncid: c_int, unlimdimidp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_unlimdim(ncid, unlimdimidp));
    guard("nc_inq_unlimdim", || counts(ncid, null_mut(), null_mut(), null_mut(), unlimdimidp))
}

/// The unlimited dimensions defined in this group.
///
/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_unlimdims(ncid: c_int, nunlimdimsp: *mut c_int, unlimdimidsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_unlimdims(ncid, nunlimdimsp, unlimdimidsp));
    guard("nc_inq_unlimdims", || {
        let u = read(ncid, unlimdims)?;
        out(nunlimdimsp, u.len() as c_int);
        out_slice(unlimdimidsp, &u);
        Ok(())
    })
}

/// `NC_FORMAT_NETCDF4` (or `NC_FORMAT_NETCDF4_CLASSIC`).
///
/// # Safety
/// `formatp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_format(ncid: c_int, formatp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_format(ncid, formatp));
    guard("nc_inq_format", || {
        let f = read(ncid, |ds, _| Ok(ds.format()))?;
        out(formatp, f);
        Ok(())
    })
}

/// `NC_FORMATX_NCZARR` and the open/create mode flags.
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_format_extended(ncid: c_int, formatp: *mut c_int, modep: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_format_extended(ncid, formatp, modep));
    guard("nc_inq_format_extended", || {
        let m = read(ncid, |ds, _| Ok(ds.mode()))?;
        out(formatp, NC_FORMATX_NCZARR);
        out(modep, m);
        Ok(())
    })
}

/// The path the dataset was opened or created with.
///
/// # Safety
/// `pathlenp` is NULL or points to a `size_t`; `path` is NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_path(ncid: c_int, pathlenp: *mut usize, path: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_path(ncid, pathlenp, path));
    guard("nc_inq_path", || {
        let p = read(ncid, |ds, _| Ok(ds.path().to_string()))?;
        out(pathlenp, p.len());
        out_name(path, &p);
        Ok(())
    })
}

// ---- groups -------------------------------------------------------------------

/// # Safety
/// `name` is a NUL-terminated string; `new_ncid` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_def_grp(parent_ncid: c_int, name: *const c_char, new_ncid: *mut c_int) -> c_int {
    by_ncid!(parent_ncid => nc_def_grp(parent_ncid, name, new_ncid));
    guard("nc_def_grp", || {
        let name = c_str(name)?;
        let gid = write(parent_ncid, |ds, gid| ds.def_grp(gid, name))?;
        out(new_ncid, sibling_ncid(parent_ncid, gid));
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_rename_grp(grpid: c_int, name: *const c_char) -> c_int {
    by_ncid!(grpid => nc_rename_grp(grpid, name));
    guard("nc_rename_grp", || {
        let name = c_str(name)?;
        write(grpid, |ds, gid| ds.rename_grp(gid, name))
    })
}

/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grps(ncid: c_int, numgrps: *mut c_int, ncids: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_grps(ncid, numgrps, ncids));
    guard("nc_inq_grps", || {
        let kids = read(ncid, |ds, gid| {
            Ok(ds.group(gid)?.children.iter().map(|&c| sibling_ncid(ncid, c)).collect::<Vec<_>>())
        })?;
        out(numgrps, kids.len() as c_int);
        out_slice(ncids, &kids);
        Ok(())
    })
}

/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grpname(ncid: c_int, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_grpname(ncid, name));
    guard("nc_inq_grpname", || {
        let n = read(ncid, |ds, gid| Ok(ds.group(gid)?.name.clone()))?;
        out_name(name, &n);
        Ok(())
    })
}

/// # Safety
/// `lenp` is NULL or points to a `size_t`; `full_name` is NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grpname_full(ncid: c_int, lenp: *mut usize, full_name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_grpname_full(ncid, lenp, full_name));
    guard("nc_inq_grpname_full", || {
        let p = read(ncid, |ds, gid| Ok(ds.group_path(gid)))?;
        out(lenp, p.len());
        out_name(full_name, &p);
        Ok(())
    })
}

/// # Safety
/// `lenp` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grpname_len(ncid: c_int, lenp: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_grpname_len(ncid, lenp));
    guard("nc_inq_grpname_len", || {
        let p = read(ncid, |ds, gid| Ok(ds.group_path(gid)))?;
        out(lenp, p.len());
        Ok(())
    })
}

/// The parent's ncid; `NC_ENOGRP` for the root group.
///
/// # Safety
/// `parent_ncid` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grp_parent(ncid: c_int, parent_ncid: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_grp_parent(ncid, parent_ncid));
    guard("nc_inq_grp_parent", || {
        let p = read(ncid, |ds, gid| ds.group(gid)?.parent.ok_or(NcError::new(NC_ENOGRP)))?;
        out(parent_ncid, sibling_ncid(ncid, p));
        Ok(())
    })
}

/// The child group `name` of `ncid`; no name (NULL in C) is the root group,
/// as in netCDF-C (`ncdump` asks `nc_inq_ncid(ncid, NULL, &root)`).
fn child_named(ncid: c_int, name: Option<&str>) -> NcResult<c_int> {
    let g = read(ncid, |ds, gid| match name {
        None => Ok(0),
        Some(name) => ds.child_group(gid, name),
    })?;
    Ok(sibling_ncid(ncid, g))
}

/// The ncid of the child group `name`.
///
/// # Safety
/// `name` is NULL (the root group) or a NUL-terminated string; `grp_ncid` is
/// NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_ncid(ncid: c_int, name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_ncid(ncid, name, grp_ncid));
    guard("nc_inq_ncid", || {
        let g = child_named(ncid, opt_c_str(name)?)?;
        out(grp_ncid, g);
        Ok(())
    })
}

/// Same as `nc_inq_ncid`.
///
/// # Safety
/// As `nc_inq_ncid`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grp_ncid(ncid: c_int, grp_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_grp_ncid(ncid, grp_name, grp_ncid));
    guard("nc_inq_grp_ncid", || {
        let g = child_named(ncid, opt_c_str(grp_name)?)?;
        out(grp_ncid, g);
        Ok(())
    })
}

/// The ncid of a group by full ("/a/b") or relative ("a/b") path.
///
/// # Safety
/// `full_name` is a NUL-terminated string; `grp_ncid` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_grp_full_ncid(ncid: c_int, full_name: *const c_char, grp_ncid: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_grp_full_ncid(ncid, full_name, grp_ncid));
    guard("nc_inq_grp_full_ncid", || {
        let path = c_str(full_name)?;
        let g = read(ncid, |ds, gid| {
            let from = if path.starts_with('/') { 0 } else { gid };
            ds.find_group_path(from, path).ok_or(NcError::new(NC_ENOGRP))
        })?;
        out(grp_ncid, sibling_ncid(ncid, g));
        Ok(())
    })
}

/// NCZarr has no user-defined types: always zero.
///
/// # Safety
/// `ntypes` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_typeids(ncid: c_int, ntypes: *mut c_int, typeids: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_typeids(ncid, ntypes, typeids));
    let _ = typeids;
    guard("nc_inq_typeids", || {
        read(ncid, |_, _| Ok(()))?;
        out(ntypes, 0);
        Ok(())
    })
}

/// Name and size of an atomic type (`NC_EBADTYPE` for anything else).
///
/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes; `size` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_type(ncid: c_int, xtype: nc_type, name: *mut c_char, size: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_type(ncid, xtype, name, size));
    guard("nc_inq_type", || {
        read(ncid, |_, _| Ok(()))?;
        let (n, s) = type_name(xtype).zip(type_size(xtype)).ok_or(NcError::new(NC_EBADTYPE))?;
        out_name(name, n);
        out(size, s);
        Ok(())
    })
}

/// The type id of an atomic type name ("int", "double", ...).
///
/// # Safety
/// `name` is a NUL-terminated string; `typeidp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_typeid(ncid: c_int, name: *const c_char, typeidp: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_inq_typeid(ncid, name, typeidp));
    guard("nc_inq_typeid", || {
        let name = c_str(name)?;
        read(ncid, |_, _| Ok(()))?;
        let t = (NC_BYTE..=NC_STRING).find(|&t| type_name(t) == Some(name)).ok_or(NcError::new(NC_EBADTYPE))?;
        out(typeidp, t);
        Ok(())
    })
}

// ---- dimensions -----------------------------------------------------------------

/// # Safety
/// `name` is a NUL-terminated string; `idp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_def_dim(ncid: c_int, name: *const c_char, len: usize, idp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_def_dim(ncid, name, len, idp));
    guard("nc_def_dim", || {
        let name = c_str(name)?;
        let id = write(ncid, |ds, gid| ds.def_dim(gid, name, len as u64))?;
        out(idp, id as c_int);
        Ok(())
    })
}

/// Finds a dimension by name in this group or its ancestors.
///
/// # Safety
/// `name` is a NUL-terminated string; `idp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_dimid(ncid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_dimid(ncid, name, idp));
    guard("nc_inq_dimid", || {
        let name = c_str(name)?;
        let id = read(ncid, |ds, gid| ds.find_dim(gid, name).ok_or(NcError::new(NC_EBADDIM)))?;
        out(idp, id as c_int);
        Ok(())
    })
}

/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes; `lenp` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_dim(ncid: c_int, dimid: c_int, name: *mut c_char, lenp: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_dim(ncid, dimid, name, lenp));
    guard("nc_inq_dim", || {
        let (n, l) = read(ncid, |ds, _| ds.dim(dimid).map(|d| (d.name.clone(), d.len)))?;
        out_name(name, &n);
        out(lenp, l as usize);
        Ok(())
    })
}

/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_dimname(ncid: c_int, dimid: c_int, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_dimname(ncid, dimid, name));
    guard("nc_inq_dimname", || {
        let n = read(ncid, |ds, _| ds.dim(dimid).map(|d| d.name.clone()))?;
        out_name(name, &n);
        Ok(())
    })
}

/// # Safety
/// `lenp` is NULL or points to a `size_t`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_dimlen(ncid: c_int, dimid: c_int, lenp: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_dimlen(ncid, dimid, lenp));
    guard("nc_inq_dimlen", || {
        let l = read(ncid, |ds, _| ds.dim(dimid).map(|d| d.len))?;
        out(lenp, l as usize);
        Ok(())
    })
}

/// The dimensions of this group (and of its ancestors with
/// `include_parents`), in ascending id order.
///
/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_dimids(
    ncid: c_int,
    ndims: *mut c_int,
    dimids: *mut c_int,
    include_parents: c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_dimids(ncid, ndims, dimids, include_parents));
    guard("nc_inq_dimids", || {
        let ids = read(ncid, |ds, gid| {
            let groups = if include_parents != 0 { ds.ancestry(gid) } else { vec![gid] };
            let mut ids: Vec<c_int> = Vec::new();
            for g in groups {
                ids.extend(ds.group(g)?.dims.iter().map(|&d| d as c_int));
            }
            ids.sort_unstable();
            Ok(ids)
        })?;
        out(ndims, ids.len() as c_int);
        out_slice(dimids, &ids);
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_rename_dim(ncid: c_int, dimid: c_int, name: *const c_char) -> c_int {
    by_ncid!(ncid => nc_rename_dim(ncid, dimid, name));
    guard("nc_rename_dim", || {
        let name = c_str(name)?;
        write(ncid, |ds, gid| ds.rename_dim(gid, dimid, name))
    })
}

/// Releases strings returned by the library (`nc_get_att_string`, ...).
///
/// # Safety
/// `data` is NULL or holds `len` pointers that are NULL or from the library.
#[no_mangle]
pub unsafe extern "C" fn nc_free_string(len: usize, data: *mut *mut c_char) -> c_int {
    guard("nc_free_string", || {
        if len > 0 {
            let ptrs = in_slice(data as *const *mut c_char, len)?;
            for &p in ptrs {
                libc::free(p as *mut libc::c_void);
            }
        }
        Ok(())
    })
}
