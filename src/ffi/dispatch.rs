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
//! netCDF-C hands every slot its own ncid (`file << 16 | group`); the
//! dataset table of [`super::nc`] knows each dataset opened here by
//! netCDF-C's file number too, and the slots forward to the same functions
//! the C API uses, with this library's ncid. The table is a typed
//! `#[repr(C)]` struct ([`NcDispatch`]): a slot of the wrong signature does
//! not compile, and a unit test compares its layout and signatures with
//! the installed `netcdf_dispatch.h`. netCDF-C 4.10's `.ncrc` plugin loading takes
//! `NETCDF.UDF0.INIT=nczarr_rs_udf_dispatch`. User-defined types answer
//! `NC_ENOTNC4`, as in netCDF-C's own NCZarr table.
#![allow(clippy::too_many_arguments)]

use super::args::{out, slice_mut};
use super::boundary::{guard, status};
use super::compat::NC_Dispatch;
use super::nc::{udf_attach, udf_ncid};
use super::types::nc_type;
use super::{atts, compat, data, files, vars};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::NcResult;
use std::os::raw::{c_char, c_int, c_longlong, c_uint, c_void};
use std::ptr::null;

/// Runs `f` with this library's ncid, in the panic boundary.
fn fwd_result(name: &'static str, ncid: c_int, f: impl FnOnce(c_int) -> NcResult<()>) -> c_int {
    guard(name, || f(udf_ncid(ncid)?))
}

/// Runs a C API function `f` with this library's ncid; its status is the slot's.
fn fwd(name: &'static str, ncid: c_int, f: impl FnOnce(c_int) -> c_int) -> c_int {
    fwd_result(name, ncid, |n| status(f(n)))
}

/// Opens or creates a dataset for netCDF-C, known by its ncid `theirs`.
unsafe fn new_dataset(path: *const c_char, mode: c_int, theirs: c_int, create: bool) -> NcResult<()> {
    let mut id = 0;
    files::new_dataset(path, mode & !(NC_UDF0 | NC_UDF1), &mut id, create)?;
    udf_attach(theirs, id)
}

unsafe extern "C" fn d_create(
    path: *const c_char,
    cmode: c_int,
    _initialsz: usize,
    _basepe: c_int,
    _hint: *mut usize,
    _parameters: *mut c_void,
    _table: *const NcDispatch,
    ncid: c_int,
) -> c_int {
    guard("nczarr_rs_udf_create", || new_dataset(path, cmode, ncid, true))
}

unsafe extern "C" fn d_open(
    path: *const c_char,
    mode: c_int,
    _basepe: c_int,
    _hint: *mut usize,
    _parameters: *mut c_void,
    _table: *const NcDispatch,
    ncid: c_int,
) -> c_int {
    guard("nczarr_rs_udf_open", || new_dataset(path, mode, ncid, false))
}

// Closing the dataset also forgets netCDF-C's number for it (nc::udf_attach).
unsafe extern "C" fn d_close(ncid: c_int, _memio: *mut c_void) -> c_int {
    fwd("nczarr_rs_udf_close", ncid, |n| files::nc_close(n))
}

unsafe extern "C" fn d_abort(ncid: c_int) -> c_int {
    fwd("nczarr_rs_udf_abort", ncid, |n| files::nc_abort(n))
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
            if rc == NC_NOERR {
                out(contiguousp, storage);
            }
        }
        if rc == NC_NOERR && (!no_fill.is_null() || !fill_valuep.is_null()) {
            rc = vars::nc_inq_var_fill(n, varid, no_fill, fill_valuep);
        }
        if rc == NC_NOERR && !endiannessp.is_null() {
            rc = vars::nc_inq_var_endian(n, varid, endiannessp);
        }
        if rc == NC_NOERR {
            out(idp, 0);
            out(nparamsp, 0);
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
            // (non-NULL and filled by nc_inq_grps: the slice cannot fail)
            if let Ok(ids) = slice_mut(ids, n.max(0) as usize) {
                ids.iter_mut().for_each(|id| *id = (ncid & !0xffff) | (*id & 0xffff));
            }
        }
        out(n_out, n);
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
    if rc == NC_NOERR {
        out(outp, (ncid & !0xffff) | (g & 0xffff));
    }
    rc
}

unsafe extern "C" fn d_inq_type_equal(ncid1: c_int, t1: nc_type, ncid2: c_int, t2: nc_type, eq: *mut c_int) -> c_int {
    fwd("nczarr_rs_udf_inq_type_equal", ncid1, |n1| match udf_ncid(ncid2) {
        Ok(n2) => compat::nc_inq_type_equal(n1, t1, n2, t2, eq),
        Err(e) => e.code(),
    })
}

/// `struct NC_Dispatch` of netCDF-C's `netcdf_dispatch.h` ([`DISPATCH_VERSION`]):
/// the field order and every slot's C signature, as a typed `#[repr(C)]`
/// struct. A slot given a function of another signature does not compile;
/// the unit test below compiles the real header and compares every offset
/// and signature.
macro_rules! dispatch_struct {
    ($($field:ident ( $($arg:ty),* );)*) => {
        #[repr(C)]
        pub(crate) struct NcDispatch {
            model: c_int,
            dispatch_version: c_int,
            $($field: Option<unsafe extern "C" fn($($arg),*) -> c_int>,)*
        }

        /// Every slot: its name, its offset and its parameter types.
        #[cfg(test)]
        const SLOTS: &[(&str, usize, &[&str])] =
            &[$((stringify!($field), std::mem::offset_of!(NcDispatch, $field), &[$(stringify!($arg)),*])),*];
    };
}

dispatch_struct! {
    create(*const c_char, c_int, usize, c_int, *mut usize, *mut c_void, *const NcDispatch, c_int);
    open(*const c_char, c_int, c_int, *mut usize, *mut c_void, *const NcDispatch, c_int);
    redef(c_int);
    _enddef(c_int, usize, usize, usize, usize);
    sync(c_int);
    abort(c_int);
    close(c_int, *mut c_void);
    set_fill(c_int, c_int, *mut c_int);
    inq_format(c_int, *mut c_int);
    inq_format_extended(c_int, *mut c_int, *mut c_int);
    inq(c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int);
    inq_type(c_int, nc_type, *mut c_char, *mut usize);
    def_dim(c_int, *const c_char, usize, *mut c_int);
    inq_dimid(c_int, *const c_char, *mut c_int);
    inq_dim(c_int, c_int, *mut c_char, *mut usize);
    inq_unlimdim(c_int, *mut c_int);
    rename_dim(c_int, c_int, *const c_char);
    inq_att(c_int, c_int, *const c_char, *mut nc_type, *mut usize);
    inq_attid(c_int, c_int, *const c_char, *mut c_int);
    inq_attname(c_int, c_int, c_int, *mut c_char);
    rename_att(c_int, c_int, *const c_char, *const c_char);
    del_att(c_int, c_int, *const c_char);
    get_att(c_int, c_int, *const c_char, *mut c_void, nc_type);
    put_att(c_int, c_int, *const c_char, nc_type, usize, *const c_void, nc_type);
    def_var(c_int, *const c_char, nc_type, c_int, *const c_int, *mut c_int);
    inq_varid(c_int, *const c_char, *mut c_int);
    rename_var(c_int, c_int, *const c_char);
    get_vara(c_int, c_int, *const usize, *const usize, *mut c_void, nc_type);
    put_vara(c_int, c_int, *const usize, *const usize, *const c_void, nc_type);
    get_vars(c_int, c_int, *const usize, *const usize, *const isize, *mut c_void, nc_type);
    put_vars(c_int, c_int, *const usize, *const usize, *const isize, *const c_void, nc_type);
    get_varm(c_int, c_int, *const usize, *const usize, *const isize, *const isize, *mut c_void, nc_type);
    put_varm(c_int, c_int, *const usize, *const usize, *const isize, *const isize, *const c_void, nc_type);
    inq_var_all(
        c_int, c_int, *mut c_char, *mut nc_type, *mut c_int, *mut c_int, *mut c_int, *mut c_int, *mut c_int,
        *mut c_int, *mut c_int, *mut c_int, *mut usize, *mut c_int, *mut c_void, *mut c_int, *mut c_uint,
        *mut usize, *mut c_uint
    );
    var_par_access(c_int, c_int, c_int);
    def_var_fill(c_int, c_int, c_int, *const c_void);
    show_metadata(c_int);
    inq_unlimdims(c_int, *mut c_int, *mut c_int);
    inq_ncid(c_int, *const c_char, *mut c_int);
    inq_grps(c_int, *mut c_int, *mut c_int);
    inq_grpname(c_int, *mut c_char);
    inq_grpname_full(c_int, *mut usize, *mut c_char);
    inq_grp_parent(c_int, *mut c_int);
    inq_grp_full_ncid(c_int, *const c_char, *mut c_int);
    inq_varids(c_int, *mut c_int, *mut c_int);
    inq_dimids(c_int, *mut c_int, *mut c_int, c_int);
    inq_typeids(c_int, *mut c_int, *mut c_int);
    inq_type_equal(c_int, nc_type, c_int, nc_type, *mut c_int);
    def_grp(c_int, *const c_char, *mut c_int);
    rename_grp(c_int, *const c_char);
    inq_user_type(c_int, nc_type, *mut c_char, *mut usize, *mut nc_type, *mut usize, *mut c_int);
    inq_typeid(c_int, *const c_char, *mut nc_type);
    def_compound(c_int, usize, *const c_char, *mut nc_type);
    insert_compound(c_int, nc_type, *const c_char, usize, nc_type);
    insert_array_compound(c_int, nc_type, *const c_char, usize, nc_type, c_int, *const c_int);
    inq_compound_field(c_int, nc_type, c_int, *mut c_char, *mut usize, *mut nc_type, *mut c_int, *mut c_int);
    inq_compound_fieldindex(c_int, nc_type, *const c_char, *mut c_int);
    def_vlen(c_int, *const c_char, nc_type, *mut nc_type);
    put_vlen_element(c_int, c_int, *mut c_void, usize, *const c_void);
    get_vlen_element(c_int, c_int, *const c_void, *mut usize, *mut c_void);
    def_enum(c_int, nc_type, *const c_char, *mut nc_type);
    insert_enum(c_int, nc_type, *const c_char, *const c_void);
    inq_enum_member(c_int, nc_type, c_int, *mut c_char, *mut c_void);
    inq_enum_ident(c_int, nc_type, c_longlong, *mut c_char);
    def_opaque(c_int, usize, *const c_char, *mut nc_type);
    def_var_deflate(c_int, c_int, c_int, c_int, c_int);
    def_var_fletcher32(c_int, c_int, c_int);
    def_var_chunking(c_int, c_int, c_int, *const usize);
    def_var_endian(c_int, c_int, c_int);
    def_var_filter(c_int, c_int, c_uint, usize, *const c_uint);
    set_var_chunk_cache(c_int, c_int, usize, usize, f32);
    get_var_chunk_cache(c_int, c_int, *mut usize, *mut usize, *mut f32);
    inq_var_filter_ids(c_int, c_int, *mut usize, *mut c_uint);
    inq_var_filter_info(c_int, c_int, c_uint, *mut usize, *mut c_uint);
    def_var_quantize(c_int, c_int, c_int, c_int);
    inq_var_quantize(c_int, c_int, *mut c_int, *mut c_int);
    inq_filter_avail(c_int, c_uint);
}

/// `NC_DISPATCH_VERSION` of the layout above: 5 in every netCDF-C from
/// 4.9.0 to 4.10.1 (the header is unchanged between them), which refuse a
/// table of another version.
pub(crate) const DISPATCH_VERSION: c_int = 5;

static TABLE: NcDispatch = NcDispatch {
    model: NC_FORMATX_UDF0,
    dispatch_version: DISPATCH_VERSION,
    create: Some(d_create),
    open: Some(d_open),
    redef: Some(d_redef),
    _enddef: Some(d_enddef),
    sync: Some(d_sync),
    abort: Some(d_abort),
    close: Some(d_close),
    set_fill: Some(d_set_fill),
    inq_format: Some(d_inq_format),
    inq_format_extended: Some(d_inq_format_extended),
    inq: Some(d_inq),
    inq_type: Some(d_inq_type),
    def_dim: Some(d_def_dim),
    inq_dimid: Some(d_inq_dimid),
    inq_dim: Some(d_inq_dim),
    inq_unlimdim: Some(d_inq_unlimdim),
    rename_dim: Some(d_rename_dim),
    inq_att: Some(d_inq_att),
    inq_attid: Some(d_inq_attid),
    inq_attname: Some(d_inq_attname),
    rename_att: Some(d_rename_att),
    del_att: Some(d_del_att),
    get_att: Some(d_get_att),
    put_att: Some(d_put_att),
    def_var: Some(d_def_var),
    inq_varid: Some(d_inq_varid),
    rename_var: Some(d_rename_var),
    get_vara: Some(d_get_vara),
    put_vara: Some(d_put_vara),
    get_vars: Some(d_get_vars),
    put_vars: Some(d_put_vars),
    get_varm: Some(d_get_varm),
    put_varm: Some(d_put_varm),
    inq_var_all: Some(d_inq_var_all),
    var_par_access: Some(d_var_par_access),
    def_var_fill: Some(d_def_var_fill),
    show_metadata: Some(d_show_metadata),
    inq_unlimdims: Some(d_inq_unlimdims),
    inq_ncid: Some(d_inq_ncid),
    inq_grps: Some(d_inq_grps),
    inq_grpname: Some(d_inq_grpname),
    inq_grpname_full: Some(d_inq_grpname_full),
    inq_grp_parent: Some(d_inq_grp_parent),
    inq_grp_full_ncid: Some(d_inq_grp_full_ncid),
    inq_varids: Some(d_inq_varids),
    inq_dimids: Some(d_inq_dimids),
    inq_typeids: Some(d_inq_typeids),
    inq_type_equal: Some(d_inq_type_equal),
    def_grp: Some(d_def_grp),
    rename_grp: Some(d_rename_grp),
    inq_user_type: Some(d_inq_user_type),
    inq_typeid: Some(d_inq_typeid),
    def_compound: Some(d_def_compound),
    insert_compound: Some(d_insert_compound),
    insert_array_compound: Some(d_insert_array_compound),
    inq_compound_field: Some(d_inq_compound_field),
    inq_compound_fieldindex: Some(d_inq_compound_fieldindex),
    def_vlen: Some(d_def_vlen),
    put_vlen_element: Some(d_put_vlen_element),
    get_vlen_element: Some(d_get_vlen_element),
    def_enum: Some(d_def_enum),
    insert_enum: Some(d_insert_enum),
    inq_enum_member: Some(d_inq_enum_member),
    inq_enum_ident: Some(d_inq_enum_ident),
    def_opaque: Some(d_def_opaque),
    def_var_deflate: Some(d_def_var_deflate),
    def_var_fletcher32: Some(d_def_var_fletcher32),
    def_var_chunking: Some(d_def_var_chunking),
    def_var_endian: Some(d_def_var_endian),
    def_var_filter: Some(d_def_var_filter),
    set_var_chunk_cache: Some(d_set_var_chunk_cache),
    get_var_chunk_cache: Some(d_get_var_chunk_cache),
    inq_var_filter_ids: Some(d_inq_var_filter_ids),
    inq_var_filter_info: Some(d_inq_var_filter_info),
    def_var_quantize: Some(d_def_var_quantize),
    inq_var_quantize: Some(d_inq_var_quantize),
    inq_filter_avail: Some(d_inq_filter_avail),
};

/// The dispatch table for netCDF-C's `nc_def_user_format` (and the `INIT`
/// function of netCDF-C 4.10's `.ncrc` UDF plugins). The table is static.
#[no_mangle]
pub extern "C" fn nczarr_rs_udf_dispatch() -> *const NC_Dispatch {
    super::boundary::guard_or("nczarr_rs_udf_dispatch", std::ptr::null(), || {
        &TABLE as *const NcDispatch as *const NC_Dispatch
    })
}

#[cfg(test)]
mod tests {
    use super::{NcDispatch, DISPATCH_VERSION, SLOTS};
    use std::path::Path;
    use std::process::Command;

    /// A Rust parameter type of [`SLOTS`] (`stringify!`d) in C.
    fn c_type(rust: &str) -> String {
        let t: String = rust.split_whitespace().collect();
        if let Some(inner) = t.strip_prefix("*const") {
            return format!("const {} *", c_type(inner));
        }
        if let Some(inner) = t.strip_prefix("*mut") {
            return format!("{} *", c_type(inner));
        }
        match t.as_str() {
            "c_int" => "int",
            "c_uint" => "unsigned int",
            "c_char" => "char",
            "c_void" => "void",
            "c_longlong" => "long long",
            "usize" => "size_t",
            "isize" => "ptrdiff_t",
            "f32" => "float",
            "nc_type" => "nc_type",
            "NcDispatch" => "struct NC_Dispatch",
            other => panic!("no C spelling for {other}"),
        }
        .to_string()
    }

    /// A C program that takes every slot of netCDF-C's own `NC_Dispatch`
    /// into a pointer of the type the Rust table declares (an incompatible
    /// signature does not compile with -Werror), then prints the size, the
    /// version and every slot's offset.
    fn layout_program() -> String {
        let mut c = String::from(
            "#include <stddef.h>\n#include <stdio.h>\n#include <netcdf.h>\n#include <netcdf_dispatch.h>\n\
             int main(void) {\n    static NC_Dispatch t;\n",
        );
        for (name, _, args) in SLOTS {
            let params: Vec<String> = args.iter().map(|a| c_type(a)).collect();
            c += &format!("    int (*s_{name})({}) = t.{name};\n    (void)s_{name};\n", params.join(", "));
        }
        c += "    printf(\"size %zu\\n\", sizeof(NC_Dispatch));\n";
        c += "    printf(\"version %d\\n\", NC_DISPATCH_VERSION);\n";
        c += "    printf(\"model %zu\\n\", offsetof(NC_Dispatch, model));\n";
        c += "    printf(\"dispatch_version %zu\\n\", offsetof(NC_Dispatch, dispatch_version));\n";
        for (name, _, _) in SLOTS {
            c += &format!("    printf(\"{name} %zu\\n\", offsetof(NC_Dispatch, {name}));\n");
        }
        c + "    return 0;\n}\n"
    }

    #[test]
    fn layout_and_signatures_match_netcdf_c_header() {
        use std::mem::{offset_of, size_of};
        // netCDF-C's 2 ints and 77 slots: 624 bytes on LP64 (netcdf-c-facts §1.1)
        assert_eq!(SLOTS.len(), 77);
        assert_eq!(size_of::<NcDispatch>(), 8 + 77 * size_of::<usize>());
        let header = Path::new("/usr/include/netcdf_dispatch.h");
        if !header.exists() {
            eprintln!("{} is not installed (libnetcdf-dev): the C comparison is skipped", header.display());
            return;
        }
        let dir = tempfile::tempdir().unwrap();
        let src = dir.path().join("layout.c");
        let exe = dir.path().join("layout");
        std::fs::write(&src, layout_program()).unwrap();
        let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
        let out = Command::new(&cc)
            .args(["-std=c99", "-Wall", "-Werror", "-o"])
            .arg(&exe)
            .arg(&src)
            .output()
            .unwrap_or_else(|e| panic!("{cc}: {e}"));
        assert!(
            out.status.success(),
            "the slots do not match netcdf_dispatch.h:\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        let out = Command::new(&exe).output().unwrap();
        assert!(out.status.success());
        let text = String::from_utf8(out.stdout).unwrap();
        let c: std::collections::HashMap<&str, usize> =
            text.lines().filter_map(|l| l.split_once(' ')).map(|(k, v)| (k, v.parse().unwrap())).collect();
        assert_eq!(c["size"], size_of::<NcDispatch>());
        assert_eq!(c["version"], DISPATCH_VERSION as usize);
        assert_eq!(c["model"], offset_of!(NcDispatch, model));
        assert_eq!(c["dispatch_version"], offset_of!(NcDispatch, dispatch_version));
        for (name, offset, _) in SLOTS {
            assert_eq!(c[name], *offset, "offset of {name}");
        }
    }
}
