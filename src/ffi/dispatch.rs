//! An `NC_Dispatch` table (netCDF-C's `netcdf_dispatch.h`, dispatch version
//! 5, identical in 4.9.0–4.10.1) through which a real netCDF-C routes
//! datasets to this library as a user-defined format:
//!
//! ```c
//! NC_Dispatch *t = nczarr_rs_udf_dispatch();         // from dlopen/dlsym
//! nc_def_user_format(NC_UDF0, t, NULL);
//! nc_create("/data/x.zarr", NC_UDF0 | NC_CLOBBER, &ncid);   // via netCDF-C
//! ```
//!
//! netCDF-C hands every slot its own ncid (`file << 16 | group`); the table
//! maps netCDF-C's file number to this library's and forwards to the same
//! functions the C API uses. netCDF-C 4.10's `.ncrc` plugin loading takes
//! `NETCDF.UDF0.INIT=nczarr_rs_udf_dispatch`. User-defined types answer
//! `NC_ENOTNC4`, as in netCDF-C's own NCZarr table.
#![allow(clippy::too_many_arguments)]

use super::boundary::{guard, status};
use super::compat::NC_Dispatch;
use super::types::nc_type;
use super::{atts, compat, data, files, vars};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::{NcError, NcResult};
use std::collections::HashMap;
use std::os::raw::{c_char, c_int, c_longlong, c_uint, c_void};
use std::ptr::null;
use std::sync::{LazyLock, Mutex};

/// netCDF-C file number (`ncid >> 16`) -> this library's ncid of the root.
static FILES: LazyLock<Mutex<HashMap<c_int, c_int>>> = LazyLock::new(Default::default);

/// This library's ncid for a netCDF-C ncid (same group number).
fn ours(ncid: c_int) -> NcResult<c_int> {
    let map = FILES.lock().unwrap_or_else(|p| p.into_inner());
    let root = map.get(&(ncid >> 16)).ok_or(NcError::new(NC_EBADID))?;
    Ok(root | (ncid & 0xffff))
}

/// Runs `f` with this library's ncid, in the panic boundary.
fn fwd_result(name: &'static str, ncid: c_int, f: impl FnOnce(c_int) -> NcResult<()>) -> c_int {
    guard(name, || f(ours(ncid)?))
}

/// Runs a C API function `f` with this library's ncid; its status is the slot's.
fn fwd(name: &'static str, ncid: c_int, f: impl FnOnce(c_int) -> c_int) -> c_int {
    fwd_result(name, ncid, |n| status(f(n)))
}

type F = Option<unsafe extern "C" fn()>;

/// The table, laid out exactly as netCDF-C's `struct NC_Dispatch`.
#[repr(C)]
struct Table {
    model: c_int,
    dispatch_version: c_int,
    slots: [F; 77],
}

unsafe extern "C" fn d_create(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _basepe: c_int,
    _hint: *mut usize,
    _parameters: *mut c_void,
    _table: *const c_void,
    ncid: c_int,
) -> c_int {
    guard("nczarr_rs_udf_create", || {
        let mut id = 0;
        files::new_dataset(path, cmode & !(NC_UDF0 | NC_UDF1), &mut id, true)?;
        FILES.lock().unwrap_or_else(|p| p.into_inner()).insert(ncid >> 16, id);
        Ok(())
    })
}

unsafe extern "C" fn d_open(
    path: *const c_char,
    mode: c_int,
    _basepe: c_int,
    _hint: *mut usize,
    _parameters: *mut c_void,
    _table: *const c_void,
    ncid: c_int,
) -> c_int {
    guard("nczarr_rs_udf_open", || {
        let mut id = 0;
        files::new_dataset(path, mode & !(NC_UDF0 | NC_UDF1), &mut id, false)?;
        FILES.lock().unwrap_or_else(|p| p.into_inner()).insert(ncid >> 16, id);
        Ok(())
    })
}

unsafe extern "C" fn d_close(ncid: c_int, _memio: *mut c_void) -> c_int {
    let rc = fwd("nczarr_rs_udf_close", ncid, |n| files::nc_close(n));
    if rc == NC_NOERR {
        FILES.lock().unwrap_or_else(|p| p.into_inner()).remove(&(ncid >> 16));
    }
    rc
}

unsafe extern "C" fn d_abort(ncid: c_int) -> c_int {
    let rc = fwd("nczarr_rs_udf_abort", ncid, |n| files::nc_abort(n));
    FILES.lock().unwrap_or_else(|p| p.into_inner()).remove(&(ncid >> 16));
    rc
}

unsafe extern "C" fn d_enddef(ncid: c_int, a: usize, b: usize, c: usize, d: usize) -> c_int {
    fwd("nczarr_rs_udf_enddef", ncid, |n| files::nc__enddef(n, a, b, c, d))
}

unsafe extern "C" fn d_inq_type(ncid: c_int, xtype: nc_type, name: *mut c_char, size: *mut usize) -> c_int {
    fwd("nczarr_rs_udf_inq_type", ncid, |n| files::nc_inq_type(n, xtype, name, size))
}

unsafe extern "C" fn d_get_vara(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    value: *mut c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_get_vara", ncid, |n| {
        data::get(n, varid, data::Kind::Vara, start, count, null(), null(), value, memtype)
    })
}

unsafe extern "C" fn d_put_vara(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    value: *const c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_put_vara", ncid, |n| {
        data::put(n, varid, data::Kind::Vara, start, count, null(), null(), value, memtype)
    })
}

unsafe extern "C" fn d_get_vars(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    stride: *const isize,
    value: *mut c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_get_vars", ncid, |n| {
        data::get(n, varid, data::Kind::Vars, start, count, stride, null(), value, memtype)
    })
}

unsafe extern "C" fn d_put_vars(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    stride: *const isize,
    value: *const c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_put_vars", ncid, |n| {
        data::put(n, varid, data::Kind::Vars, start, count, stride, null(), value, memtype)
    })
}

unsafe extern "C" fn d_get_varm(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    stride: *const isize,
    imap: *const isize,
    value: *mut c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_get_varm", ncid, |n| {
        data::get(n, varid, data::Kind::Varm, start, count, stride, imap, value, memtype)
    })
}

unsafe extern "C" fn d_put_varm(
    ncid: c_int,
    varid: c_int,
    start: *const usize,
    count: *const usize,
    stride: *const isize,
    imap: *const isize,
    value: *const c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_put_varm", ncid, |n| {
        data::put(n, varid, data::Kind::Varm, start, count, stride, imap, value, memtype)
    })
}

unsafe extern "C" fn d_get_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    value: *mut c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_get_att", ncid, |n| atts::get_att(n, varid, name, value, memtype))
}

unsafe extern "C" fn d_put_att(
    ncid: c_int,
    varid: c_int,
    name: *const c_char,
    file_type: nc_type,
    len: usize,
    value: *const c_void,
    memtype: nc_type,
) -> c_int {
    fwd_result("nczarr_rs_udf_put_att", ncid, |n| atts::put_att(n, varid, name, file_type, len, value, memtype))
}

/// netCDF-C's catch-all variable inquiry (19 arguments, every output
/// optional; the last three are legacy filter outputs).
unsafe extern "C" fn d_inq_var_all(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    xtypep: *mut nc_type,
    ndimsp: *mut c_int,
    dimidsp: *mut c_int,
    nattsp: *mut c_int,
    shufflep: *mut c_int,
    deflatep: *mut c_int,
    deflate_levelp: *mut c_int,
    fletcher32p: *mut c_int,
    contiguousp: *mut c_int,
    chunksizesp: *mut usize,
    no_fill: *mut c_int,
    fill_valuep: *mut c_void,
    endiannessp: *mut c_int,
    idp: *mut c_uint,
    nparamsp: *mut usize,
    params: *mut c_uint,
) -> c_int {
    let _ = params;
    fwd("nczarr_rs_udf_inq_var_all", ncid, |n| {
        let mut rc = vars::nc_inq_var(n, varid, name, xtypep, ndimsp, dimidsp, nattsp);
        if rc != NC_NOERR || varid == NC_GLOBAL {
            return rc;
        }
        if !shufflep.is_null() || !deflatep.is_null() || !deflate_levelp.is_null() {
            rc = vars::nc_inq_var_deflate(n, varid, shufflep, deflatep, deflate_levelp);
        }
        if rc == NC_NOERR && !fletcher32p.is_null() {
            rc = vars::nc_inq_var_fletcher32(n, varid, fletcher32p);
        }
        if rc == NC_NOERR && (!contiguousp.is_null() || !chunksizesp.is_null()) {
            let mut storage = 0;
            rc = vars::nc_inq_var_chunking(n, varid, &mut storage, chunksizesp);
            if rc == NC_NOERR && !contiguousp.is_null() {
                *contiguousp = storage;
            }
        }
        if rc == NC_NOERR && (!no_fill.is_null() || !fill_valuep.is_null()) {
            rc = vars::nc_inq_var_fill(n, varid, no_fill, fill_valuep);
        }
        if rc == NC_NOERR && !endiannessp.is_null() {
            rc = vars::nc_inq_var_endian(n, varid, endiannessp);
        }
        if rc == NC_NOERR {
            if !idp.is_null() {
                *idp = 0;
            }
            if !nparamsp.is_null() {
                *nparamsp = 0;
            }
        }
        rc
    })
}

unsafe extern "C" fn d_var_par_access(ncid: c_int, _varid: c_int, _par: c_int) -> c_int {
    fwd("nczarr_rs_udf_var_par_access", ncid, |_| NC_ENOPAR)
}

/// Slots whose C signature is the public function's, ncid first: the
/// wrapper only translates the ncid.
macro_rules! forward {
    ($($slot:ident => $m:ident :: $f:ident ( $($a:ident : $t:ty),* );)*) => {$(
        unsafe extern "C" fn $slot(ncid: c_int $(, $a: $t)*) -> c_int {
            fwd(concat!("nczarr_rs_udf_", stringify!($slot)), ncid, |n| $m::$f(n $(, $a)*))
        }
    )*};
}

forward! {
    d_redef => files::nc_redef();
    d_sync => files::nc_sync();
    d_set_fill => files::nc_set_fill(mode: c_int, old: *mut c_int);
    d_inq_format => files::nc_inq_format(f: *mut c_int);
    d_inq_format_extended => files::nc_inq_format_extended(f: *mut c_int, m: *mut c_int);
    d_inq => files::nc_inq(a: *mut c_int, b: *mut c_int, c: *mut c_int, d: *mut c_int);
    d_def_dim => files::nc_def_dim(name: *const c_char, len: usize, idp: *mut c_int);
    d_inq_dimid => files::nc_inq_dimid(name: *const c_char, idp: *mut c_int);
    d_inq_dim => files::nc_inq_dim(dimid: c_int, name: *mut c_char, lenp: *mut usize);
    d_inq_unlimdim => files::nc_inq_unlimdim(u: *mut c_int);
    d_rename_dim => files::nc_rename_dim(dimid: c_int, name: *const c_char);
    d_inq_att => atts::nc_inq_att(varid: c_int, name: *const c_char, t: *mut nc_type, l: *mut usize);
    d_inq_attid => atts::nc_inq_attid(varid: c_int, name: *const c_char, idp: *mut c_int);
    d_inq_attname => atts::nc_inq_attname(varid: c_int, num: c_int, name: *mut c_char);
    d_rename_att => atts::nc_rename_att(varid: c_int, name: *const c_char, newname: *const c_char);
    d_del_att => atts::nc_del_att(varid: c_int, name: *const c_char);
    d_def_var => vars::nc_def_var(name: *const c_char, t: nc_type, nd: c_int, dims: *const c_int, idp: *mut c_int);
    d_inq_varid => vars::nc_inq_varid(name: *const c_char, idp: *mut c_int);
    d_rename_var => vars::nc_rename_var(varid: c_int, name: *const c_char);
    d_def_var_fill => vars::nc_def_var_fill(varid: c_int, no_fill: c_int, fill: *const c_void);
    d_show_metadata => compat::nc_show_metadata();
    d_inq_unlimdims => files::nc_inq_unlimdims(n: *mut c_int, ids: *mut c_int);
    d_inq_grpname => files::nc_inq_grpname(name: *mut c_char);
    d_inq_grpname_full => files::nc_inq_grpname_full(l: *mut usize, name: *mut c_char);
    d_inq_varids => vars::nc_inq_varids(n: *mut c_int, ids: *mut c_int);
    d_inq_dimids => files::nc_inq_dimids(nd: *mut c_int, ids: *mut c_int, parents: c_int);
    d_inq_typeids => files::nc_inq_typeids(n: *mut c_int, ids: *mut c_int);
    d_rename_grp => files::nc_rename_grp(name: *const c_char);
    d_inq_typeid => files::nc_inq_typeid(name: *const c_char, t: *mut nc_type);
    d_def_compound => compat::nc_def_compound(size: usize, name: *const c_char, t: *mut nc_type);
    d_insert_compound => compat::nc_insert_compound(t: nc_type, name: *const c_char, off: usize, ft: nc_type);
    d_insert_array_compound => compat::nc_insert_array_compound(t: nc_type, name: *const c_char, off: usize, ft: nc_type, nd: c_int, ds: *const c_int);
    d_inq_compound_field => compat::nc_inq_compound_field(t: nc_type, f: c_int, name: *mut c_char, off: *mut usize, ft: *mut nc_type, nd: *mut c_int, ds: *mut c_int);
    d_inq_compound_fieldindex => compat::nc_inq_compound_fieldindex(t: nc_type, name: *const c_char, f: *mut c_int);
    d_def_vlen => compat::nc_def_vlen(name: *const c_char, base: nc_type, t: *mut nc_type);
    d_put_vlen_element => compat::nc_put_vlen_element(t: c_int, e: *mut c_void, l: usize, d: *const c_void);
    d_get_vlen_element => compat::nc_get_vlen_element(t: c_int, e: *const c_void, l: *mut usize, d: *mut c_void);
    d_def_enum => compat::nc_def_enum(base: nc_type, name: *const c_char, t: *mut nc_type);
    d_insert_enum => compat::nc_insert_enum(t: nc_type, name: *const c_char, v: *const c_void);
    d_inq_enum_member => compat::nc_inq_enum_member(t: nc_type, i: c_int, name: *mut c_char, v: *mut c_void);
    d_inq_enum_ident => compat::nc_inq_enum_ident(t: nc_type, v: c_longlong, name: *mut c_char);
    d_def_opaque => compat::nc_def_opaque(size: usize, name: *const c_char, t: *mut nc_type);
    d_def_var_deflate => vars::nc_def_var_deflate(varid: c_int, s: c_int, d: c_int, l: c_int);
    d_def_var_fletcher32 => compat::nc_def_var_fletcher32(varid: c_int, f: c_int);
    d_def_var_chunking => vars::nc_def_var_chunking(varid: c_int, s: c_int, c: *const usize);
    d_def_var_endian => vars::nc_def_var_endian(varid: c_int, e: c_int);
    d_def_var_filter => vars::nc_def_var_filter(varid: c_int, id: c_uint, n: usize, p: *const c_uint);
    d_set_var_chunk_cache => data::nc_set_var_chunk_cache(varid: c_int, s: usize, n: usize, p: f32);
    d_get_var_chunk_cache => data::nc_get_var_chunk_cache(varid: c_int, s: *mut usize, n: *mut usize, p: *mut f32);
    d_inq_var_filter_ids => vars::nc_inq_var_filter_ids(varid: c_int, n: *mut usize, ids: *mut c_uint);
    d_inq_var_filter_info => vars::nc_inq_var_filter_info(varid: c_int, id: c_uint, n: *mut usize, p: *mut c_uint);
    d_def_var_quantize => compat::nc_def_var_quantize(varid: c_int, m: c_int, n: c_int);
    d_inq_var_quantize => vars::nc_inq_var_quantize(varid: c_int, m: *mut c_int, n: *mut c_int);
    d_inq_filter_avail => vars::nc_inq_filter_avail(id: c_uint);
    d_inq_user_type => compat::nc_inq_user_type(t: nc_type, name: *mut c_char, s: *mut usize, b: *mut nc_type, n: *mut usize, c: *mut c_int);
}

unsafe extern "C" fn d_inq_ncid(ncid: c_int, name: *const c_char, grp: *mut c_int) -> c_int {
    theirs_out("nczarr_rs_udf_inq_ncid", ncid, grp, |n, g| files::nc_inq_ncid(n, name, g))
}

unsafe extern "C" fn d_inq_grp_parent(ncid: c_int, parent: *mut c_int) -> c_int {
    theirs_out("nczarr_rs_udf_inq_grp_parent", ncid, parent, |n, g| files::nc_inq_grp_parent(n, g))
}

unsafe extern "C" fn d_inq_grp_full_ncid(ncid: c_int, name: *const c_char, grp: *mut c_int) -> c_int {
    theirs_out("nczarr_rs_udf_inq_grp_full_ncid", ncid, grp, |n, g| files::nc_inq_grp_full_ncid(n, name, g))
}

unsafe extern "C" fn d_def_grp(ncid: c_int, name: *const c_char, grp: *mut c_int) -> c_int {
    theirs_out("nczarr_rs_udf_def_grp", ncid, grp, |n, g| files::nc_def_grp(n, name, g))
}

unsafe extern "C" fn d_inq_grps(ncid: c_int, n_out: *mut c_int, ids: *mut c_int) -> c_int {
    // group ncids come back in this library's numbering: restore netCDF-C's file part
    // (the count is needed even when the caller passes no n_out, as
    // netCDF4-python does when it asks for the ids)
    let mut n = 0;
    let rc = fwd("nczarr_rs_udf_inq_grps", ncid, |nc| files::nc_inq_grps(nc, &mut n, ids));
    if rc == NC_NOERR {
        if !ids.is_null() {
            for i in 0..n as usize {
                *ids.add(i) = (ncid & !0xffff) | (*ids.add(i) & 0xffff);
            }
        }
        if !n_out.is_null() {
            *n_out = n;
        }
    }
    rc
}

/// Forwards a slot that returns a group ncid, in netCDF-C's numbering.
unsafe fn theirs_out(
    name: &'static str,
    ncid: c_int,
    outp: *mut c_int,
    f: impl FnOnce(c_int, *mut c_int) -> c_int,
) -> c_int {
    let mut g = 0;
    let rc = fwd(name, ncid, |n| f(n, &mut g));
    if rc == NC_NOERR && !outp.is_null() {
        *outp = (ncid & !0xffff) | (g & 0xffff);
    }
    rc
}

unsafe extern "C" fn d_inq_type_equal(ncid1: c_int, t1: nc_type, ncid2: c_int, t2: nc_type, eq: *mut c_int) -> c_int {
    fwd("nczarr_rs_udf_inq_type_equal", ncid1, |n1| match ours(ncid2) {
        Ok(n2) => compat::nc_inq_type_equal(n1, t1, n2, t2, eq),
        Err(e) => e.code(),
    })
}

macro_rules! slot {
    ($f:expr) => {
        Some(unsafe { std::mem::transmute::<*const (), unsafe extern "C" fn()>($f as *const ()) })
    };
}

static TABLE: LazyLock<Table> = LazyLock::new(|| Table {
    model: NC_FORMATX_UDF0,
    dispatch_version: 5,
    slots: [
        slot!(d_create),
        slot!(d_open),
        slot!(d_redef),
        slot!(d_enddef),
        slot!(d_sync),
        slot!(d_abort),
        slot!(d_close),
        slot!(d_set_fill),
        slot!(d_inq_format),
        slot!(d_inq_format_extended),
        slot!(d_inq),
        slot!(d_inq_type),
        slot!(d_def_dim),
        slot!(d_inq_dimid),
        slot!(d_inq_dim),
        slot!(d_inq_unlimdim),
        slot!(d_rename_dim),
        slot!(d_inq_att),
        slot!(d_inq_attid),
        slot!(d_inq_attname),
        slot!(d_rename_att),
        slot!(d_del_att),
        slot!(d_get_att),
        slot!(d_put_att),
        slot!(d_def_var),
        slot!(d_inq_varid),
        slot!(d_rename_var),
        slot!(d_get_vara),
        slot!(d_put_vara),
        slot!(d_get_vars),
        slot!(d_put_vars),
        slot!(d_get_varm),
        slot!(d_put_varm),
        slot!(d_inq_var_all),
        slot!(d_var_par_access),
        slot!(d_def_var_fill),
        slot!(d_show_metadata),
        slot!(d_inq_unlimdims),
        slot!(d_inq_ncid),
        slot!(d_inq_grps),
        slot!(d_inq_grpname),
        slot!(d_inq_grpname_full),
        slot!(d_inq_grp_parent),
        slot!(d_inq_grp_full_ncid),
        slot!(d_inq_varids),
        slot!(d_inq_dimids),
        slot!(d_inq_typeids),
        slot!(d_inq_type_equal),
        slot!(d_def_grp),
        slot!(d_rename_grp),
        slot!(d_inq_user_type),
        slot!(d_inq_typeid),
        slot!(d_def_compound),
        slot!(d_insert_compound),
        slot!(d_insert_array_compound),
        slot!(d_inq_compound_field),
        slot!(d_inq_compound_fieldindex),
        slot!(d_def_vlen),
        slot!(d_put_vlen_element),
        slot!(d_get_vlen_element),
        slot!(d_def_enum),
        slot!(d_insert_enum),
        slot!(d_inq_enum_member),
        slot!(d_inq_enum_ident),
        slot!(d_def_opaque),
        slot!(d_def_var_deflate),
        slot!(d_def_var_fletcher32),
        slot!(d_def_var_chunking),
        slot!(d_def_var_endian),
        slot!(d_def_var_filter),
        slot!(d_set_var_chunk_cache),
        slot!(d_get_var_chunk_cache),
        slot!(d_inq_var_filter_ids),
        slot!(d_inq_var_filter_info),
        slot!(d_def_var_quantize),
        slot!(d_inq_var_quantize),
        slot!(d_inq_filter_avail),
    ],
});

/// The dispatch table for netCDF-C's `nc_def_user_format` (and the `INIT`
/// function of netCDF-C 4.10's `.ncrc` UDF plugins). The table is static.
#[no_mangle]
pub extern "C" fn nczarr_rs_udf_dispatch() -> *const NC_Dispatch {
    super::boundary::guard_or("nczarr_rs_udf_dispatch", std::ptr::null(), || {
        &*TABLE as *const Table as *const NC_Dispatch
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn table_has_netcdf_c_layout() {
        // 2 ints + 77 function pointers: 624 bytes on LP64 (netcdf-c-facts §1.1)
        assert_eq!(std::mem::size_of::<super::Table>(), 8 + 77 * std::mem::size_of::<usize>());
        assert_eq!(std::mem::offset_of!(super::Table, slots), 8);
    }
}
