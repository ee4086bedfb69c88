//! The rest of netCDF-C's `netcdf.h` API, so that any netCDF C program
//! links. NCZarr has no user-defined types: like netCDF-C's own NCZarr
//! dispatch table, every compound/vlen/enum/opaque function answers
//! `NC_ENOTNC4`. netCDF-3 tuning (`base_pe`) answers `NC_ENOTNC3`, as for any
//! netCDF-4 file. Library helpers (`nc_copy_var`, `nc_copy_data`,
//! `nc_free_vlen`, `nc_delete`, ...) are implemented for real: the model
//! work in the engine (`engine::copy`), the C translation here.
#![allow(non_camel_case_types)]

use super::args::{c_str, elems, elems_mut, in_mut, in_slice, non_null, out, out_slice, slice_mut};
use super::boundary::{guard, status};
use super::interpose::{always, by_ncid, by_path, is_ours};
use super::nc::{read, write};
use super::types::nc_type;
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::types::{is_atomic, type_size};
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_int, c_longlong, c_void};
use std::sync::atomic::{AtomicI32, Ordering};

/// netCDF-C's variable-length datum.
#[repr(C)]
pub struct nc_vlen_t {
    pub len: usize,
    pub p: *mut c_void,
}

/// netCDF-C's dispatch table (opaque here: this library does not dispatch
/// to user-defined formats).
pub struct NC_Dispatch {
    _private: [u8; 0],
}

/// `NC_ENOTNC4` for a valid ncid: NCZarr has no user-defined types.
fn no_user_types(ncid: c_int) -> NcResult<()> {
    read(ncid, |_, _| Ok(()))?;
    Err(NcError::new(NC_ENOTNC4))
}

/// `NC_ENOTNC3` for a valid ncid: a netCDF-3 tuning call on netCDF-4 data.
fn not_nc3(ncid: c_int) -> NcResult<()> {
    read(ncid, |_, _| Ok(()))?;
    Err(NcError::new(NC_ENOTNC3))
}

#[no_mangle]
pub extern "C" fn nc_def_compound(ncid: c_int, size: usize, name: *const c_char, typeidp: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_def_compound(ncid, size, name, typeidp));
    let _ = (size, name, typeidp);
    guard("nc_def_compound", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_insert_compound(
    ncid: c_int,
    xtype: nc_type,
    name: *const c_char,
    offset: usize,
    field_typeid: nc_type,
) -> c_int {
    by_ncid!(ncid => nc_insert_compound(ncid, xtype, name, offset, field_typeid));
    let _ = (xtype, name, offset, field_typeid);
    guard("nc_insert_compound", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_insert_array_compound(
    ncid: c_int,
    xtype: nc_type,
    name: *const c_char,
    offset: usize,
    field_typeid: nc_type,
    ndims: c_int,
    dim_sizes: *const c_int,
) -> c_int {
    by_ncid!(ncid => nc_insert_array_compound(ncid, xtype, name, offset, field_typeid, ndims, dim_sizes));
    let _ = (xtype, name, offset, field_typeid, ndims, dim_sizes);
    guard("nc_insert_array_compound", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound(
    ncid: c_int,
    xtype: nc_type,
    name: *mut c_char,
    sizep: *mut usize,
    nfieldsp: *mut usize,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound(ncid, xtype, name, sizep, nfieldsp));
    let _ = (xtype, name, sizep, nfieldsp);
    guard("nc_inq_compound", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_name(ncid: c_int, xtype: nc_type, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_compound_name(ncid, xtype, name));
    let _ = (xtype, name);
    guard("nc_inq_compound_name", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_size(ncid: c_int, xtype: nc_type, sizep: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_compound_size(ncid, xtype, sizep));
    let _ = (xtype, sizep);
    guard("nc_inq_compound_size", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_nfields(ncid: c_int, xtype: nc_type, nfieldsp: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_compound_nfields(ncid, xtype, nfieldsp));
    let _ = (xtype, nfieldsp);
    guard("nc_inq_compound_nfields", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_field(
    ncid: c_int,
    xtype: nc_type,
    fieldid: c_int,
    name: *mut c_char,
    offsetp: *mut usize,
    field_typeidp: *mut nc_type,
    ndimsp: *mut c_int,
    dim_sizesp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound_field(ncid, xtype, fieldid, name, offsetp, field_typeidp, ndimsp, dim_sizesp));
    let _ = (xtype, fieldid, name, offsetp, field_typeidp, ndimsp, dim_sizesp);
    guard("nc_inq_compound_field", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fieldname(ncid: c_int, xtype: nc_type, fieldid: c_int, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fieldname(ncid, xtype, fieldid, name));
    let _ = (xtype, fieldid, name);
    guard("nc_inq_compound_fieldname", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fieldindex(
    ncid: c_int,
    xtype: nc_type,
    name: *const c_char,
    fieldidp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fieldindex(ncid, xtype, name, fieldidp));
    let _ = (xtype, name, fieldidp);
    guard("nc_inq_compound_fieldindex", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fieldoffset(
    ncid: c_int,
    xtype: nc_type,
    fieldid: c_int,
    offsetp: *mut usize,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fieldoffset(ncid, xtype, fieldid, offsetp));
    let _ = (xtype, fieldid, offsetp);
    guard("nc_inq_compound_fieldoffset", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fieldtype(
    ncid: c_int,
    xtype: nc_type,
    fieldid: c_int,
    field_typeidp: *mut nc_type,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fieldtype(ncid, xtype, fieldid, field_typeidp));
    let _ = (xtype, fieldid, field_typeidp);
    guard("nc_inq_compound_fieldtype", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fieldndims(ncid: c_int, xtype: nc_type, fieldid: c_int, ndimsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fieldndims(ncid, xtype, fieldid, ndimsp));
    let _ = (xtype, fieldid, ndimsp);
    guard("nc_inq_compound_fieldndims", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_compound_fielddim_sizes(
    ncid: c_int,
    xtype: nc_type,
    fieldid: c_int,
    dim_sizes: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_compound_fielddim_sizes(ncid, xtype, fieldid, dim_sizes));
    let _ = (xtype, fieldid, dim_sizes);
    guard("nc_inq_compound_fielddim_sizes", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_def_vlen(ncid: c_int, name: *const c_char, base_typeid: nc_type, xtypep: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_def_vlen(ncid, name, base_typeid, xtypep));
    let _ = (name, base_typeid, xtypep);
    guard("nc_def_vlen", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_vlen(
    ncid: c_int,
    xtype: nc_type,
    name: *mut c_char,
    datum_sizep: *mut usize,
    base_nc_typep: *mut nc_type,
) -> c_int {
    by_ncid!(ncid => nc_inq_vlen(ncid, xtype, name, datum_sizep, base_nc_typep));
    let _ = (xtype, name, datum_sizep, base_nc_typep);
    guard("nc_inq_vlen", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_put_vlen_element(
    ncid: c_int,
    typeid1: c_int,
    vlen_element: *mut c_void,
    len: usize,
    data: *const c_void,
) -> c_int {
    by_ncid!(ncid => nc_put_vlen_element(ncid, typeid1, vlen_element, len, data));
    let _ = (typeid1, vlen_element, len, data);
    guard("nc_put_vlen_element", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_get_vlen_element(
    ncid: c_int,
    typeid1: c_int,
    vlen_element: *const c_void,
    len: *mut usize,
    data: *mut c_void,
) -> c_int {
    by_ncid!(ncid => nc_get_vlen_element(ncid, typeid1, vlen_element, len, data));
    let _ = (typeid1, vlen_element, len, data);
    guard("nc_get_vlen_element", || no_user_types(ncid))
}

/// Frees the data of one vlen datum (`vl->p`).
///
/// # Safety
/// `vl` points to an `nc_vlen_t` whose `p` is NULL or from `malloc`.
#[no_mangle]
pub unsafe extern "C" fn nc_free_vlen(vl: *mut nc_vlen_t) -> c_int {
    guard("nc_free_vlen", || {
        let v = in_mut(vl)?;
        libc::free(v.p);
        v.p = std::ptr::null_mut();
        v.len = 0;
        Ok(())
    })
}

/// Frees the data of `len` vlen data.
///
/// # Safety
/// `vlens` holds `len` `nc_vlen_t` whose `p` are NULL or from `malloc`.
#[no_mangle]
pub unsafe extern "C" fn nc_free_vlens(len: usize, vlens: *mut nc_vlen_t) -> c_int {
    guard("nc_free_vlens", || {
        for v in slice_mut(vlens, len)? {
            libc::free(v.p);
            v.p = std::ptr::null_mut();
            v.len = 0;
        }
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn nc_inq_user_type(
    ncid: c_int,
    xtype: nc_type,
    name: *mut c_char,
    size: *mut usize,
    base_nc_typep: *mut nc_type,
    nfieldsp: *mut usize,
    classp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_user_type(ncid, xtype, name, size, base_nc_typep, nfieldsp, classp));
    let _ = (name, size, base_nc_typep, nfieldsp, classp);
    // netCDF-C's NCZarr (NC4_inq_user_type): no type of that id in the file,
    // atomic ones included, is NC_EBADTYPE.
    guard("nc_inq_user_type", || {
        read(ncid, |_, _| Ok(()))?;
        Err(NcError::with(NC_EBADTYPE, format!("no user-defined type {xtype}")))
    })
}

#[no_mangle]
pub extern "C" fn nc_def_enum(ncid: c_int, base_typeid: nc_type, name: *const c_char, typeidp: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_def_enum(ncid, base_typeid, name, typeidp));
    let _ = (base_typeid, name, typeidp);
    guard("nc_def_enum", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_insert_enum(ncid: c_int, xtype: nc_type, name: *const c_char, value: *const c_void) -> c_int {
    by_ncid!(ncid => nc_insert_enum(ncid, xtype, name, value));
    let _ = (xtype, name, value);
    guard("nc_insert_enum", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_enum(
    ncid: c_int,
    xtype: nc_type,
    name: *mut c_char,
    base_nc_typep: *mut nc_type,
    base_sizep: *mut usize,
    num_membersp: *mut usize,
) -> c_int {
    by_ncid!(ncid => nc_inq_enum(ncid, xtype, name, base_nc_typep, base_sizep, num_membersp));
    let _ = (xtype, name, base_nc_typep, base_sizep, num_membersp);
    guard("nc_inq_enum", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_enum_member(
    ncid: c_int,
    xtype: nc_type,
    idx: c_int,
    name: *mut c_char,
    value: *mut c_void,
) -> c_int {
    by_ncid!(ncid => nc_inq_enum_member(ncid, xtype, idx, name, value));
    let _ = (xtype, idx, name, value);
    guard("nc_inq_enum_member", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_enum_ident(ncid: c_int, xtype: nc_type, value: c_longlong, identifier: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_enum_ident(ncid, xtype, value, identifier));
    let _ = (xtype, value, identifier);
    guard("nc_inq_enum_ident", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_def_opaque(ncid: c_int, size: usize, name: *const c_char, xtypep: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_def_opaque(ncid, size, name, xtypep));
    let _ = (size, name, xtypep);
    guard("nc_def_opaque", || no_user_types(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_opaque(ncid: c_int, xtype: nc_type, name: *mut c_char, sizep: *mut usize) -> c_int {
    by_ncid!(ncid => nc_inq_opaque(ncid, xtype, name, sizep));
    let _ = (xtype, name, sizep);
    guard("nc_inq_opaque", || no_user_types(ncid))
}

/// Whether two types are the same: for atomic types, the same id.
///
/// # Safety
/// `equal` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_type_equal(
    ncid1: c_int,
    typeid1: nc_type,
    ncid2: c_int,
    typeid2: nc_type,
    equal: *mut c_int,
) -> c_int {
    if !is_ours(ncid2) {
        by_ncid!(ncid1 => nc_inq_type_equal(ncid1, typeid1, ncid2, typeid2, equal));
    }
    guard("nc_inq_type_equal", || {
        // Each ncid of ours must be valid; the other library's are its own
        // business (this library has atomic types only, which are equal
        // across libraries by number, and never equal a user type).
        for (ncid, typeid) in [(ncid1, typeid1), (ncid2, typeid2)] {
            if is_ours(ncid) {
                read(ncid, |_, _| Ok(()))?;
                if !is_atomic(typeid) {
                    return Err(NcError::new(NC_EBADTYPE));
                }
            }
        }
        out(equal, (is_atomic(typeid1) && typeid1 == typeid2) as c_int);
        Ok(())
    })
}

/// szip is not available in this build (`NC_ENOFILTER`, as netCDF-C
/// without the plugin).
#[no_mangle]
pub extern "C" fn nc_def_var_szip(ncid: c_int, varid: c_int, options_mask: c_int, pixels_per_block: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_szip(ncid, varid, options_mask, pixels_per_block));
    let _ = (options_mask, pixels_per_block);
    guard("nc_def_var_szip", || {
        read(ncid, |ds, gid| ds.var(gid, varid).map(|_| ()))?;
        Err(NcError::new(NC_ENOFILTER))
    })
}

/// No variable here uses szip: zero mask and pixels.
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_szip(
    ncid: c_int,
    varid: c_int,
    options_maskp: *mut c_int,
    pixels_per_blockp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_szip(ncid, varid, options_maskp, pixels_per_blockp));
    guard("nc_inq_var_szip", || {
        read(ncid, |ds, gid| ds.var(gid, varid).map(|_| ()))?;
        out(options_maskp, 0);
        out(pixels_per_blockp, 0);
        Ok(())
    })
}

/// Fletcher-32 checksums (filter 3, numcodecs' `fletcher32`), appended to
/// the variable's filters. Turning it off is a no-op, as in netCDF-C (which
/// never removes a filter; 4.9.2 wrongly adds it then).
#[no_mangle]
pub extern "C" fn nc_def_var_fletcher32(ncid: c_int, varid: c_int, fletcher32: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_fletcher32(ncid, varid, fletcher32));
    guard("nc_def_var_fletcher32", || {
        read(ncid, |ds, gid| ds.var(gid, varid).map(|_| ()))?;
        if fletcher32 == 0 {
            Ok(())
        } else {
            write(ncid, |ds, gid| ds.def_var_codec_filter(gid, varid, H5Z_FILTER_FLETCHER32, &[]))
        }
    })
}

/// Quantization of a float or double variable's values on write (BitGroom,
/// Granular BitRound, BitRound), set before the variable is defined on disk,
/// with netCDF-C's checks and its stored bits (`engine::quantize`).
#[no_mangle]
pub extern "C" fn nc_def_var_quantize(ncid: c_int, varid: c_int, quantize_mode: c_int, nsd: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_quantize(ncid, varid, quantize_mode, nsd));
    guard("nc_def_var_quantize", || {
        if varid == NC_GLOBAL {
            return Err(NcError::new(NC_EGLOBAL));
        }
        write(ncid, |ds, gid| ds.def_var_quantize(gid, varid, quantize_mode, nsd))
    })
}

static DEFAULT_FORMAT: AtomicI32 = AtomicI32::new(NC_FORMAT_CLASSIC);
static ALIGNMENT: AtomicI32 = AtomicI32::new(0);
static ALIGN_THRESHOLD: AtomicI32 = AtomicI32::new(0);

/// The default format of `nc_create` without format flags, kept for
/// callers that read it back; NCZarr datasets are always netCDF-4.
///
/// # Safety
/// `old_formatp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_set_default_format(format: c_int, old_formatp: *mut c_int) -> c_int {
    always!(nc_set_default_format(format, old_formatp));
    guard("nc_set_default_format", || {
        if !(NC_FORMAT_CLASSIC..=NC_FORMAT_64BIT_DATA).contains(&format) {
            return Err(NcError::new(NC_EINVAL));
        }
        let old = DEFAULT_FORMAT.swap(format, Ordering::Relaxed);
        out(old_formatp, old);
        Ok(())
    })
}

/// HDF5 alignment settings: kept and reported, without effect on Zarr.
#[no_mangle]
pub extern "C" fn nc_set_alignment(threshold: c_int, alignment: c_int) -> c_int {
    always!(nc_set_alignment(threshold, alignment));
    guard("nc_set_alignment", || {
        if threshold < 0 || alignment < 0 {
            return Err(NcError::new(NC_EINVAL));
        }
        ALIGN_THRESHOLD.store(threshold, Ordering::Relaxed);
        ALIGNMENT.store(alignment, Ordering::Relaxed);
        Ok(())
    })
}

/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_get_alignment(thresholdp: *mut c_int, alignmentp: *mut c_int) -> c_int {
    always!(nc_get_alignment(thresholdp, alignmentp));
    guard("nc_get_alignment", || {
        out(thresholdp, ALIGN_THRESHOLD.load(Ordering::Relaxed));
        out(alignmentp, ALIGNMENT.load(Ordering::Relaxed));
        Ok(())
    })
}

/// This library has no log to set a level for: always `NC_NOERR`.
#[no_mangle]
pub extern "C" fn nc_set_log_level(new_level: c_int) -> c_int {
    always!(nc_set_log_level(new_level));
    let _ = new_level;
    guard("nc_set_log_level", || Ok(()))
}

/// Nothing to set up: the library initialises itself on first use.
#[no_mangle]
pub extern "C" fn nc_initialize() -> c_int {
    always!(nc_initialize());
    guard("nc_initialize", || Ok(()))
}

/// Nothing to tear down (open datasets stay usable).
#[no_mangle]
pub extern "C" fn nc_finalize() -> c_int {
    always!(nc_finalize());
    guard("nc_finalize", || Ok(()))
}

#[no_mangle]
pub extern "C" fn nc_set_base_pe(ncid: c_int, pe: c_int) -> c_int {
    by_ncid!(ncid => nc_set_base_pe(ncid, pe));
    let _ = pe;
    guard("nc_set_base_pe", || not_nc3(ncid))
}

#[no_mangle]
pub extern "C" fn nc_inq_base_pe(ncid: c_int, pe: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_base_pe(ncid, pe));
    let _ = pe;
    guard("nc_inq_base_pe", || not_nc3(ncid))
}

/// This library does not dispatch to user-defined formats (`NC_ENOTBUILT`).
#[no_mangle]
pub extern "C" fn nc_def_user_format(
    mode_flag: c_int,
    dispatch_table: *mut NC_Dispatch,
    magic_number: *mut c_char,
) -> c_int {
    always!(nc_def_user_format(mode_flag, dispatch_table, magic_number));
    let _ = (mode_flag, dispatch_table, magic_number);
    guard("nc_def_user_format", || Err(NcError::new(NC_ENOTBUILT)))
}

/// See `nc_def_user_format`.
#[no_mangle]
pub extern "C" fn nc_inq_user_format(
    mode_flag: c_int,
    dispatch_table: *mut *mut NC_Dispatch,
    magic_number: *mut c_char,
) -> c_int {
    always!(nc_inq_user_format(mode_flag, dispatch_table, magic_number));
    let _ = (mode_flag, dispatch_table, magic_number);
    guard("nc_inq_user_format", || Err(NcError::new(NC_ENOTBUILT)))
}

/// `nc__create` with a netCDF-3 `basepe`, which is ignored.
///
/// # Safety
/// As `nc__create`.
#[no_mangle]
pub unsafe extern "C" fn nc__create_mp(
    path: *const c_char,
    cmode: c_int,
    initialsz: usize,
    basepe: c_int,
    chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, true => nc__create_mp(path, cmode, initialsz, basepe, chunksizehintp, ncidp));
    let _ = basepe;
    guard("nc__create_mp", || status(super::files::nc__create(path, cmode, initialsz, chunksizehintp, ncidp)))
}

/// `nc__open` with a netCDF-3 `basepe`, which is ignored.
///
/// # Safety
/// As `nc__open`.
#[no_mangle]
pub unsafe extern "C" fn nc__open_mp(
    path: *const c_char,
    mode: c_int,
    basepe: c_int,
    chunksizehintp: *mut usize,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, false => nc__open_mp(path, mode, basepe, chunksizehintp, ncidp));
    let _ = basepe;
    guard("nc__open_mp", || status(super::files::nc__open(path, mode, chunksizehintp, ncidp)))
}

/// Deletes a dataset (directory tree, zip archive, S3 prefix or memory
/// dataset), whatever its driver: netCDF-C only unlinks a path.
///
/// # Safety
/// `path` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_delete(path: *const c_char) -> c_int {
    by_path!(path, false => nc_delete(path));
    guard("nc_delete", || crate::engine::file::delete(c_str(path)?))
}

/// `nc_delete` with a netCDF-3 `basepe`, which is ignored.
///
/// # Safety
/// As `nc_delete`.
#[no_mangle]
pub unsafe extern "C" fn nc_delete_mp(path: *const c_char, basepe: c_int) -> c_int {
    by_path!(path, false => nc_delete_mp(path, basepe));
    let _ = basepe;
    guard("nc_delete_mp", || crate::engine::file::delete(c_str(path)?))
}

/// Copies a variable (definition, attributes, data) into another group or
/// dataset, whose dimensions of the same names must already exist with the
/// same lengths.
#[no_mangle]
pub extern "C" fn nc_copy_var(ncid_in: c_int, varid: c_int, ncid_out: c_int) -> c_int {
    if !is_ours(ncid_out) {
        by_ncid!(ncid_in => nc_copy_var(ncid_in, varid, ncid_out));
    }
    if !is_ours(ncid_in) || !is_ours(ncid_out) {
        // One side is the real libnetcdf's: copy through the routed API.
        return guard("nc_copy_var", || unsafe { copy_var_across(ncid_in, varid, ncid_out) });
    }
    guard("nc_copy_var", || {
        let copy = read(ncid_in, |ds, gid| ds.copy_var_out(gid, varid))?;
        write(ncid_out, |ds, gid| ds.copy_var_in(gid, copy).map(|_| ()))
    })
}

/// Copies `count` values of an atomic type; strings are duplicated (free
/// them with `nc_free_string`).
///
/// # Safety
/// `memory` and `copy` hold `count` values of `xtypeid`.
#[no_mangle]
pub unsafe extern "C" fn nc_copy_data(
    ncid: c_int,
    xtypeid: nc_type,
    memory: *const c_void,
    count: usize,
    copy: *mut c_void,
) -> c_int {
    by_ncid!(ncid => nc_copy_data(ncid, xtypeid, memory, count, copy));
    guard("nc_copy_data", || copy_data(ncid, xtypeid, memory, count, copy))
}

unsafe fn copy_data(
    ncid: c_int,
    xtypeid: nc_type,
    memory: *const c_void,
    count: usize,
    copy: *mut c_void,
) -> NcResult<()> {
    read(ncid, |_, _| Ok(()))?;
    if !is_atomic(xtypeid) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if count == 0 {
        return Ok(());
    }
    non_null(memory)?;
    non_null(copy)?;
    if xtypeid == NC_STRING {
        let src = in_slice(memory as *const *const c_char, count)?;
        let dst = slice_mut(copy as *mut *mut c_char, count)?;
        let mut failed = None;
        for (i, (d, &s)) in dst.iter_mut().zip(src).enumerate() {
            *d = if s.is_null() { std::ptr::null_mut() } else { libc::strdup(s) };
            if d.is_null() && !s.is_null() {
                failed = Some(i);
                break;
            }
        }
        if let Some(i) = failed {
            // all or none: the copies made so far are freed
            for d in &mut dst[..i] {
                libc::free(*d as *mut c_void);
                *d = std::ptr::null_mut();
            }
            return Err(NcError::new(NC_ENOMEM));
        }
    } else {
        let size = type_size(xtypeid).unwrap_or(1);
        elems_mut(copy, count, size)?.copy_from_slice(elems(memory, count, size)?);
    }
    Ok(())
}

/// `nc_copy_data` into a new `malloc`ed array (`*copyp`).
///
/// # Safety
/// `memory` holds `count` values of `xtypeid`; `copyp` points to a pointer.
#[no_mangle]
pub unsafe extern "C" fn nc_copy_data_all(
    ncid: c_int,
    xtypeid: nc_type,
    memory: *const c_void,
    count: usize,
    copyp: *mut *mut c_void,
) -> c_int {
    by_ncid!(ncid => nc_copy_data_all(ncid, xtypeid, memory, count, copyp));
    guard("nc_copy_data_all", || {
        non_null(copyp)?;
        let size = type_size(xtypeid).ok_or(NcError::new(NC_EBADTYPE))?;
        let p = libc::calloc(count.max(1), size);
        if p.is_null() {
            return Err(NcError::new(NC_ENOMEM));
        }
        if let Err(e) = copy_data(ncid, xtypeid, memory, count, p) {
            libc::free(p);
            return Err(e);
        }
        out(copyp, p);
        Ok(())
    })
}

/// A no-op for a valid ncid, as in netCDF-C's NCZarr (a library does not
/// write to the program's standard output).
#[no_mangle]
pub extern "C" fn nc_show_metadata(ncid: c_int) -> c_int {
    by_ncid!(ncid => nc_show_metadata(ncid));
    guard("nc_show_metadata", || read(ncid, |_, _| Ok(())))
}

/// `nc_copy_var` between this library and another, through the public API
/// (each call routed by its ncid), one record (index of the first
/// dimension) at a time, as netCDF-C's own `nc_copy_var` does.
unsafe fn copy_var_across(ncid_in: c_int, varid: c_int, ncid_out: c_int) -> NcResult<()> {
    use super::atts::{nc_copy_att, nc_inq_attname};
    use super::data::{nc_get_vara, nc_put_vara};
    use super::files::{nc_free_string, nc_inq_dim, nc_inq_dimid};
    use super::vars::{nc_def_var, nc_inq_var};
    let mut name = [0 as c_char; NC_MAX_NAME as usize + 1];
    let (mut xtype, mut ndims, mut natts) = (0, 0, 0);
    let mut dimids = vec![0 as c_int; NC_MAX_VAR_DIMS as usize];
    status(nc_inq_var(ncid_in, varid, name.as_mut_ptr(), &mut xtype, &mut ndims, dimids.as_mut_ptr(), &mut natts))?;
    let size = type_size(xtype).filter(|_| is_atomic(xtype)).ok_or(NcError::new(NC_EBADTYPE))?;
    let ndims = usize::try_from(ndims).map_err(|_| NcError::new(NC_EINVAL))?;
    let (mut odims, mut lens) = (Vec::with_capacity(ndims), Vec::with_capacity(ndims));
    for &d in &dimids[..ndims] {
        let mut dname = [0 as c_char; NC_MAX_NAME as usize + 1];
        let mut len = 0usize;
        status(nc_inq_dim(ncid_in, d, dname.as_mut_ptr(), &mut len))?;
        let mut od = 0;
        status(nc_inq_dimid(ncid_out, dname.as_ptr(), &mut od)).map_err(|_| NcError::new(NC_EBADDIM))?;
        odims.push(od);
        lens.push(len);
    }
    let mut ovar = 0;
    status(nc_def_var(ncid_out, name.as_ptr(), xtype, ndims as c_int, odims.as_ptr(), &mut ovar))?;
    for i in 0..natts {
        let mut aname = [0 as c_char; NC_MAX_NAME as usize + 1];
        status(nc_inq_attname(ncid_in, varid, i, aname.as_mut_ptr()))?;
        status(nc_copy_att(ncid_in, varid, aname.as_ptr(), ncid_out, ovar))?;
    }
    // One record at a time: start (i, 0, ...), count (1, len1, ...).
    let records = lens.first().copied().unwrap_or(1);
    let per_record = lens.iter().skip(1).try_fold(1usize, |a, &l| a.checked_mul(l)).ok_or(NcError::new(NC_ENOMEM))?;
    let bytes = per_record.checked_mul(size).ok_or(NcError::new(NC_ENOMEM))?;
    let mut buf: Vec<u8> = Vec::new();
    buf.try_reserve_exact(bytes).map_err(|_| NcError::new(NC_ENOMEM))?;
    buf.resize(bytes, 0);
    let mut start = vec![0usize; ndims];
    let mut count = lens.clone();
    if let Some(c) = count.first_mut() {
        *c = 1;
    }
    for r in 0..records {
        if let Some(s) = start.first_mut() {
            *s = r;
        }
        status(nc_get_vara(ncid_in, varid, start.as_ptr(), count.as_ptr(), buf.as_mut_ptr() as *mut c_void))?;
        let rc = nc_put_vara(ncid_out, ovar, start.as_ptr(), count.as_ptr(), buf.as_ptr() as *const c_void);
        if xtype == NC_STRING {
            nc_free_string(per_record, buf.as_mut_ptr() as *mut *mut c_char);
        }
        status(rc)?;
    }
    Ok(())
}

/// netCDF-C's `NCZ_read_chunk` (libnczarr's `zwalk.c`, exported by
/// libnetcdf): copies the whole chunk at grid position `zindices` (one per
/// dimension) of a variable into `chunkdata`, decoded, in the variable's
/// type and the C order of the chunk shape, with the fill value past the
/// ends of the dimensions and for a chunk never written. netCDF-C's chunk
/// dump tool `ncdumpchunks` uses it, which is why it is here; not part of
/// the netCDF API. Fixed-size types only (`NC_EBADTYPE` for strings).
///
/// # Safety
/// `zindices` holds one entry per dimension of the variable; `chunkdata`
/// has room for a whole chunk.
#[no_mangle]
pub unsafe extern "C" fn NCZ_read_chunk(
    ncid: c_int,
    varid: c_int,
    zindices: *const u64,
    chunkdata: *mut c_void,
) -> c_int {
    by_ncid!(ncid => NCZ_read_chunk(ncid, varid, zindices, chunkdata));
    guard("NCZ_read_chunk", || {
        let chunk = read(ncid, |ds, gid| {
            let rank = ds.var(gid, varid)?.dimids.len();
            ds.read_chunk(gid, varid, in_slice(zindices, rank)?)
        })?;
        if !chunk.is_empty() {
            non_null(chunkdata)?;
            out_slice(chunkdata as *mut u8, &chunk);
        }
        Ok(())
    })
}
