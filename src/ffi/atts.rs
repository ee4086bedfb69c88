//! netCDF C API: attributes (typed and untyped put/get, inquiry, rename,
//! delete, copy). Memory types follow netCDF-C: `schar` = `NC_BYTE`,
//! `uchar` = `NC_UBYTE`, `long` = `NC_INT64` on LP64 (`NC_INT` where `long`
//! is 32-bit). Values out of range are still stored or returned (C cast
//! semantics) and the call reports `NC_ERANGE`, as in netCDF-C.

use super::args::{c_str, out, out_name};
use super::boundary::{guard, status};
use super::interpose::{by_ncid, is_ours};
use super::nc::{read, write};
use super::types::nc_type;
use super::values::{from_mem, to_mem};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::types::{is_atomic, range_result, type_size};
use crate::engine::{NcError, NcResult};
use std::os::raw::{
    c_char, c_double, c_float, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort,
    c_void,
};

/// The memory type of C `long`.
const LONG_TYPE: nc_type = if std::mem::size_of::<c_long>() == 8 { NC_INT64 } else { NC_INT };

/// Stores `len` values of `memtype` at `op` as attribute `name` of type `xtype`.
pub(crate) unsafe fn put_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtype: nc_type,
    len: usize,
    op: *const c_void,
    memtype: nc_type,
) -> NcResult<()> {
    let name = c_str(name)?;
    if !is_atomic(xtype) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    let mem = from_mem(memtype, len, op)?;
    let (values, range_err) = mem.convert(xtype)?;
    write(ncid, |ds, gid| ds.put_att(gid, varid, name, values))?;
    range_result(range_err)
}

/// Reads attribute `name` into `ip` as `memtype` (`NC_NAT`: its own type).
pub(crate) unsafe fn get_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    ip: *mut c_void,
    memtype: nc_type,
) -> NcResult<()> {
    let name = c_str(name)?;
    let values = read(ncid, |ds, gid| ds.get_att(gid, varid, name))?;
    let memtype = if memtype == NC_NAT { values.nc_type() } else { memtype };
    let (converted, range_err) = values.convert(memtype)?;
    to_mem(&converted, ip)?;
    range_result(range_err)
}

// `nc_put_att`, `nc_get_att` and their typed variants (`nc_put_att_text`,
// `nc_get_att_double`, ...), written by build.rs from the table in
// codegen/typed_exports.rs: each routes with `by_ncid!` and calls `put_att`
// or `get_att` above inside `guard`.
include!(concat!(env!("OUT_DIR"), "/ffi_atts_exports.rs"));

/// Type and length of an attribute (also the hidden `_NCProperties`,
/// `_SuperblockVersion` and `_IsNetcdf4` of the root group).
///
/// # Safety
/// `name` is a NUL-terminated string; outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    xtypep: *mut nc_type,
    lenp: *mut usize,
) -> c_int {
    by_ncid!(ncid => nc_inq_att(ncid, varid, name, xtypep, lenp));
    guard("nc_inq_att", || {
        let name = c_str(name)?;
        let v = read(ncid, |ds, gid| ds.get_att(gid, varid, name))?;
        out(xtypep, v.nc_type());
        out(lenp, v.len());
        Ok(())
    })
}

/// # Safety
/// As `nc_inq_att`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_atttype(ncid: c_int, varid: c_int, name: *const c_char, xtypep: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_inq_atttype(ncid, varid, name, xtypep));
    guard("nc_inq_atttype", || {
        let name = c_str(name)?;
        let v = read(ncid, |ds, gid| ds.get_att(gid, varid, name))?;
        out(xtypep, v.nc_type());
        Ok(())
    })
}

/// # Safety
/// As `nc_inq_att`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_attlen(ncid: c_int, varid: c_int, name: *const c_char, lenp: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_attlen(ncid, varid, name, lenp));
    guard("nc_inq_attlen", || {
        let name = c_str(name)?;
        let v = read(ncid, |ds, gid| ds.get_att(gid, varid, name))?;
        out(lenp, v.len());
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string; `idp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_attid(ncid: c_int, varid: c_int, name: *const c_char, idp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_attid(ncid, varid, name, idp));
    guard("nc_inq_attid", || {
        let name = c_str(name)?;
        let i = read(ncid, |ds, gid| ds.att_index(gid, varid, name))?;
        out(idp, i as c_int);
        Ok(())
    })
}

/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_attname(ncid: c_int, varid: c_int, attnum: c_int, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_attname(ncid, varid, attnum, name));
    guard("nc_inq_attname", || {
        let n = read(ncid, |ds, gid| {
            let atts = ds.atts(gid, varid)?;
            usize::try_from(attnum)
                .ok()
                .and_then(|i| atts.get(i))
                .map(|a| a.name.clone())
                .ok_or(NcError::new(NC_ENOTATT))
        })?;
        out_name(name, &n);
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_del_att(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    by_ncid!(ncid => nc_del_att(ncid, varid, name));
    guard("nc_del_att", || {
        let name = c_str(name)?;
        write(ncid, |ds, gid| ds.del_att(gid, varid, name))
    })
}

/// # Safety
/// Both names are NUL-terminated strings.
#[no_mangle]
pub unsafe extern "C" fn nc_rename_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    newname: *const c_char,
) -> c_int {
    by_ncid!(ncid => nc_rename_att(ncid, varid, name, newname));
    guard("nc_rename_att", || {
        let (old, new) = (c_str(name)?, c_str(newname)?);
        write(ncid, |ds, gid| ds.rename_att(gid, varid, old, new))
    })
}

/// Copies an attribute to another variable, group or dataset.
///
/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_copy_att(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> c_int {
    if !is_ours(ncid_out) {
        by_ncid!(ncid_in => nc_copy_att(ncid_in, varid_in, name, ncid_out, varid_out));
    }
    if !is_ours(ncid_in) || !is_ours(ncid_out) {
        // One side is the real libnetcdf's (nccopy between a .nc file and a store).
        return guard("nc_copy_att", || copy_att_across(ncid_in, varid_in, name, ncid_out, varid_out));
    }
    guard("nc_copy_att", || {
        let name = c_str(name)?;
        let values = read(ncid_in, |ds, gid| ds.get_att(gid, varid_in, name))?;
        write(ncid_out, |ds, gid| ds.put_att(gid, varid_out, name, values))
    })
}

/// `nc_copy_att` between this library and another (each side's calls are
/// routed by ncid), through the public API as netCDF-C's own `nc_copy_att`.
unsafe fn copy_att_across(
    ncid_in: c_int,
    varid_in: c_int,
    name: *const c_char,
    ncid_out: c_int,
    varid_out: c_int,
) -> NcResult<()> {
    let (mut xtype, mut len) = (0, 0usize);
    status(nc_inq_att(ncid_in, varid_in, name, &mut xtype, &mut len))?;
    if xtype == NC_STRING {
        let mut v: Vec<*mut c_char> = Vec::new();
        v.try_reserve_exact(len).map_err(|_| NcError::new(NC_ENOMEM))?;
        v.resize(len, std::ptr::null_mut());
        status(nc_get_att_string(ncid_in, varid_in, name, v.as_mut_ptr()))?;
        let rc = nc_put_att_string(ncid_out, varid_out, name, len, v.as_mut_ptr() as *mut *const c_char);
        super::files::nc_free_string(len, v.as_mut_ptr());
        return status(rc);
    }
    let size = type_size(xtype).ok_or(NcError::new(NC_EBADTYPE))?;
    let bytes = len.checked_mul(size).ok_or(NcError::new(NC_ENOMEM))?;
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(bytes).map_err(|_| NcError::new(NC_ENOMEM))?;
    buf.resize(bytes, 0);
    status(nc_get_att(ncid_in, varid_in, name, buf.as_mut_ptr() as *mut c_void))?;
    status(nc_put_att(ncid_out, varid_out, name, xtype, len, buf.as_ptr() as *const c_void))
}
