//! netCDF C API: reading and writing variable data, in every access family
//! (`var1`, `vara`, `vars`, `varm`, `var`) and memory type, plus the chunk
//! cache settings and `nc_reclaim_data`. The typed functions differ only in
//! the memory type they pass; the untyped ones use the variable's own type.

use super::interpose::{by_ncid, real_fn};
use super::args::{in_slice, non_null, out};
use super::boundary::guard;
use super::nc::{read, write};
use super::types::nc_type;
use super::values::free_strings;
use crate::engine::cache::{self, CacheConfig};
use crate::engine::consts::*;
use crate::engine::convert::elem_size;
use crate::engine::data::{MemIn, MemOut, Slab};
use crate::engine::slab::PerDim;
use crate::engine::error::*;
use crate::engine::model::Dataset;
use crate::engine::{NcError, NcResult};
use std::ffi::CStr;
use std::os::raw::{c_char, c_double, c_float, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort, c_void};
use std::ptr::null;

/// The memory type of C `long`.
const LONG_TYPE: nc_type = if std::mem::size_of::<c_long>() == 8 { NC_INT64 } else { NC_INT };

#[derive(Clone, Copy, PartialEq)]
pub(crate) enum Kind {
    Var1,
    Vara,
    Vars,
    Varm,
    Var,
}

/// Reads the caller's start/count/stride/map arrays and resolves the slab.
#[allow(clippy::too_many_arguments)]
unsafe fn slab(
    ds: &Dataset,
    gid: usize,
    varid: c_int,
    kind: Kind,
    startp: *const usize,
    countp: *const usize,
    stridep: *const isize,
    imapp: *const isize,
    for_write: bool,
) -> NcResult<Slab> {
    let v = ds.var(gid, varid)?;
    let nd = v.dimids.len();
    if nd == 0 {
        return ds.slab(gid, varid, None, None, None, None, for_write);
    }
    // (inline up to rank 4: nothing allocated for a small call)
    let u64s = |p: *const usize| -> NcResult<Option<PerDim<u64>>> {
        if p.is_null() { Ok(None) } else { Ok(Some(in_slice(p, nd)?.iter().map(|&x| x as u64).collect())) }
    };
    let i64s = |p: *const isize| -> NcResult<Option<PerDim<i64>>> {
        if p.is_null() { Ok(None) } else { Ok(Some(in_slice(p, nd)?.iter().map(|&x| x as i64).collect())) }
    };
    let (start, count) = match kind {
        Kind::Var => (None, None),
        Kind::Var1 => {
            non_null(startp)?;
            (u64s(startp)?, Some(PerDim::from_elem(1, nd)))
        }
        _ => (u64s(startp)?, u64s(countp)?),
    };
    let stride = if matches!(kind, Kind::Vars | Kind::Varm) { i64s(stridep)? } else { None };
    let imap = if kind == Kind::Varm { i64s(imapp)? } else { None };
    ds.slab(gid, varid, start.as_deref(), count.as_deref(), stride.as_deref(), imap.as_deref(), for_write)
}

/// The index of a one-element call of a number with non-NULL pointers
/// (`var1`, or `vara` with every count 1), for the one-element paths
/// (`Dataset::get_one`, `Dataset::put_one`); `None` for any other call,
/// which the general path checks and answers.
#[allow(clippy::too_many_arguments)]
unsafe fn one_index(
    ds: &Dataset,
    gid: usize,
    varid: c_int,
    kind: Kind,
    startp: *const usize,
    countp: *const usize,
    data: *const c_void,
    memtype: nc_type,
) -> NcResult<Option<PerDim<u64>>> {
    let one = match kind {
        Kind::Var1 => true,
        Kind::Vara => !countp.is_null(),
        _ => false,
    };
    if !one || startp.is_null() || data.is_null() || !(NC_BYTE..=NC_UINT64).contains(&memtype) {
        return Ok(None);
    }
    let Ok(v) = ds.var(gid, varid) else { return Ok(None) };
    let nd = v.dimids.len();
    if kind == Kind::Vara && in_slice(countp, nd)?.iter().any(|&c| c != 1) {
        return Ok(None);
    }
    Ok(Some(in_slice(startp, nd)?.iter().map(|&x| x as u64).collect()))
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn get(
    ncid: c_int,
    varid: c_int,
    kind: Kind,
    startp: *const usize,
    countp: *const usize,
    stridep: *const isize,
    imapp: *const isize,
    ip: *mut c_void,
    memtype: nc_type,
) -> NcResult<()> {
    read(ncid, |ds, gid| {
        let memtype = if memtype == NC_NAT { ds.var(gid, varid)?.nctype } else { memtype };
        if let Some(index) = one_index(ds, gid, varid, kind, startp, countp, ip, memtype)? {
            let out = std::slice::from_raw_parts_mut(ip as *mut u8, elem_size(memtype));
            if ds.get_one(gid, varid, &index, memtype, out)?.is_some() {
                return Ok(());
            }
        }
        let s = slab(ds, gid, varid, kind, startp, countp, stridep, imapp, false)?;
        let n = s.mem_elems();
        if n == 0 {
            ds.var(gid, varid)?;
            return Ok(());
        }
        non_null(ip)?;
        if memtype == NC_STRING {
            let mut strings = crate::limits::try_filled(n, String::new()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
            let result = ds.get_slab(gid, varid, &s, MemOut::Strings(&mut strings));
            if let Err(e) = &result {
                if e.code() != NC_ERANGE {
                    return result;
                }
            }
            let dst = ip as *mut *mut c_char;
            // All copies are made before the caller's array is touched.
            let mut made = Vec::new();
            for p in s.offsets() {
                match super::args::malloc_c_string(&strings[p]) {
                    Ok(c) => made.push(c),
                    Err(e) => {
                        made.iter().for_each(|&c| libc::free(c as *mut c_void));
                        return Err(e);
                    }
                }
            }
            for (p, &c) in s.offsets().zip(&made) {
                *dst.add(p) = c;
            }
            return result;
        }
        let size = if memtype == NC_CHAR { 1 } else { elem_size(memtype) };
        if !(NC_BYTE..=NC_UINT64).contains(&memtype) {
            return Err(NcError::new(NC_EBADTYPE));
        }
        let buf = std::slice::from_raw_parts_mut(ip as *mut u8, n * size);
        ds.get_slab(gid, varid, &s, MemOut::Bytes { memtype, buf })
    })
}

#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn put(
    ncid: c_int,
    varid: c_int,
    kind: Kind,
    startp: *const usize,
    countp: *const usize,
    stridep: *const isize,
    imapp: *const isize,
    op: *const c_void,
    memtype: nc_type,
) -> NcResult<()> {
    write(ncid, |ds, gid| {
        let memtype = if memtype == NC_NAT { ds.var(gid, varid)?.nctype } else { memtype };
        ds.check_writable()?;
        if let Some(index) = one_index(ds, gid, varid, kind, startp, countp, op, memtype)? {
            let input = std::slice::from_raw_parts(op as *const u8, elem_size(memtype));
            if ds.put_one(gid, varid, &index, memtype, input)?.is_some() {
                return Ok(());
            }
        }
        let s = slab(ds, gid, varid, kind, startp, countp, stridep, imapp, true)?;
        let n = s.mem_elems();
        if n == 0 {
            return Ok(());
        }
        non_null(op)?;
        if memtype == NC_STRING {
            let src = op as *const *const c_char;
            let mut strings = crate::limits::try_filled(n, String::new()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
            for p in s.offsets() {
                let c = *src.add(p);
                if !c.is_null() {
                    strings[p] = crate::limits::try_string_lossy(CStr::from_ptr(c).to_bytes())
                        .map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
                }
            }
            return ds.put_slab(gid, varid, &s, MemIn::Strings(&strings));
        }
        if !(NC_BYTE..=NC_UINT64).contains(&memtype) {
            return Err(NcError::new(NC_EBADTYPE));
        }
        let size = elem_size(memtype);
        let buf = std::slice::from_raw_parts(op as *const u8, n * size);
        ds.put_slab(gid, varid, &s, MemIn::Bytes { memtype, buf })
    })
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_void) -> c_int {
    by_ncid!(ncid => nc_put_var1(ncid, varid, indexp, op));
    guard("nc_put_var1", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_text(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_var1_text(ncid, varid, indexp, op));
    guard("nc_put_var1_text", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_schar(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_schar) -> c_int {
    by_ncid!(ncid => nc_put_var1_schar(ncid, varid, indexp, op));
    guard("nc_put_var1_schar", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_uchar(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_var1_uchar(ncid, varid, indexp, op));
    guard("nc_put_var1_uchar", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_short(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_short) -> c_int {
    by_ncid!(ncid => nc_put_var1_short(ncid, varid, indexp, op));
    guard("nc_put_var1_short", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_int(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_int) -> c_int {
    by_ncid!(ncid => nc_put_var1_int(ncid, varid, indexp, op));
    guard("nc_put_var1_int", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_long(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_long) -> c_int {
    by_ncid!(ncid => nc_put_var1_long(ncid, varid, indexp, op));
    guard("nc_put_var1_long", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_float(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_float) -> c_int {
    by_ncid!(ncid => nc_put_var1_float(ncid, varid, indexp, op));
    guard("nc_put_var1_float", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_double(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_double) -> c_int {
    by_ncid!(ncid => nc_put_var1_double(ncid, varid, indexp, op));
    guard("nc_put_var1_double", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_ubyte(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_var1_ubyte(ncid, varid, indexp, op));
    guard("nc_put_var1_ubyte", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_ushort(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_ushort) -> c_int {
    by_ncid!(ncid => nc_put_var1_ushort(ncid, varid, indexp, op));
    guard("nc_put_var1_ushort", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_uint(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_uint) -> c_int {
    by_ncid!(ncid => nc_put_var1_uint(ncid, varid, indexp, op));
    guard("nc_put_var1_uint", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_longlong(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_longlong) -> c_int {
    by_ncid!(ncid => nc_put_var1_longlong(ncid, varid, indexp, op));
    guard("nc_put_var1_longlong", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_ulonglong(ncid: c_int, varid: c_int, indexp: *const usize, op: *const c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_put_var1_ulonglong(ncid, varid, indexp, op));
    guard("nc_put_var1_ulonglong", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_put_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var1_string(ncid: c_int, varid: c_int, indexp: *const usize, op: *mut *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_var1_string(ncid, varid, indexp, op));
    guard("nc_put_var1_string", || put(ncid, varid, Kind::Var1, indexp, null(), null(), null(), op.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_void) -> c_int {
    by_ncid!(ncid => nc_get_var1(ncid, varid, indexp, ip));
    guard("nc_get_var1", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_text(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_var1_text(ncid, varid, indexp, ip));
    guard("nc_get_var1_text", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_schar(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_schar) -> c_int {
    by_ncid!(ncid => nc_get_var1_schar(ncid, varid, indexp, ip));
    guard("nc_get_var1_schar", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_uchar(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_var1_uchar(ncid, varid, indexp, ip));
    guard("nc_get_var1_uchar", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_short(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_short) -> c_int {
    by_ncid!(ncid => nc_get_var1_short(ncid, varid, indexp, ip));
    guard("nc_get_var1_short", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_int(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_var1_int(ncid, varid, indexp, ip));
    guard("nc_get_var1_int", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_long(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_long) -> c_int {
    by_ncid!(ncid => nc_get_var1_long(ncid, varid, indexp, ip));
    guard("nc_get_var1_long", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_float(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_var1_float(ncid, varid, indexp, ip));
    guard("nc_get_var1_float", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_double(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_double) -> c_int {
    by_ncid!(ncid => nc_get_var1_double(ncid, varid, indexp, ip));
    guard("nc_get_var1_double", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_ubyte(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_var1_ubyte(ncid, varid, indexp, ip));
    guard("nc_get_var1_ubyte", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_ushort(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_ushort) -> c_int {
    by_ncid!(ncid => nc_get_var1_ushort(ncid, varid, indexp, ip));
    guard("nc_get_var1_ushort", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_uint(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_uint) -> c_int {
    by_ncid!(ncid => nc_get_var1_uint(ncid, varid, indexp, ip));
    guard("nc_get_var1_uint", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_longlong(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_longlong) -> c_int {
    by_ncid!(ncid => nc_get_var1_longlong(ncid, varid, indexp, ip));
    guard("nc_get_var1_longlong", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_ulonglong(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_get_var1_ulonglong(ncid, varid, indexp, ip));
    guard("nc_get_var1_ulonglong", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_get_var1`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var1_string(ncid: c_int, varid: c_int, indexp: *const usize, ip: *mut *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_var1_string(ncid, varid, indexp, ip));
    guard("nc_get_var1_string", || get(ncid, varid, Kind::Var1, indexp, null(), null(), null(), ip.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_void) -> c_int {
    by_ncid!(ncid => nc_put_vara(ncid, varid, startp, countp, op));
    guard("nc_put_vara", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_vara_text(ncid, varid, startp, countp, op));
    guard("nc_put_vara_text", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_schar) -> c_int {
    by_ncid!(ncid => nc_put_vara_schar(ncid, varid, startp, countp, op));
    guard("nc_put_vara_schar", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_vara_uchar(ncid, varid, startp, countp, op));
    guard("nc_put_vara_uchar", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_short) -> c_int {
    by_ncid!(ncid => nc_put_vara_short(ncid, varid, startp, countp, op));
    guard("nc_put_vara_short", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_int) -> c_int {
    by_ncid!(ncid => nc_put_vara_int(ncid, varid, startp, countp, op));
    guard("nc_put_vara_int", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_long) -> c_int {
    by_ncid!(ncid => nc_put_vara_long(ncid, varid, startp, countp, op));
    guard("nc_put_vara_long", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_float) -> c_int {
    by_ncid!(ncid => nc_put_vara_float(ncid, varid, startp, countp, op));
    guard("nc_put_vara_float", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_double) -> c_int {
    by_ncid!(ncid => nc_put_vara_double(ncid, varid, startp, countp, op));
    guard("nc_put_vara_double", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_vara_ubyte(ncid, varid, startp, countp, op));
    guard("nc_put_vara_ubyte", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_ushort) -> c_int {
    by_ncid!(ncid => nc_put_vara_ushort(ncid, varid, startp, countp, op));
    guard("nc_put_vara_ushort", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_uint) -> c_int {
    by_ncid!(ncid => nc_put_vara_uint(ncid, varid, startp, countp, op));
    guard("nc_put_vara_uint", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_longlong) -> c_int {
    by_ncid!(ncid => nc_put_vara_longlong(ncid, varid, startp, countp, op));
    guard("nc_put_vara_longlong", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *const c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_put_vara_ulonglong(ncid, varid, startp, countp, op));
    guard("nc_put_vara_ulonglong", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_put_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vara_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, op: *mut *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_vara_string(ncid, varid, startp, countp, op));
    guard("nc_put_vara_string", || put(ncid, varid, Kind::Vara, startp, countp, null(), null(), op.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_void) -> c_int {
    by_ncid!(ncid => nc_get_vara(ncid, varid, startp, countp, ip));
    guard("nc_get_vara", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_vara_text(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_text", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_schar) -> c_int {
    by_ncid!(ncid => nc_get_vara_schar(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_schar", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_vara_uchar(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_uchar", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_short) -> c_int {
    by_ncid!(ncid => nc_get_vara_short(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_short", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_vara_int(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_int", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_long) -> c_int {
    by_ncid!(ncid => nc_get_vara_long(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_long", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_vara_float(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_float", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_double) -> c_int {
    by_ncid!(ncid => nc_get_vara_double(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_double", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_vara_ubyte(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_ubyte", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_ushort) -> c_int {
    by_ncid!(ncid => nc_get_vara_ushort(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_ushort", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_uint) -> c_int {
    by_ncid!(ncid => nc_get_vara_uint(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_uint", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_longlong) -> c_int {
    by_ncid!(ncid => nc_get_vara_longlong(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_longlong", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_get_vara_ulonglong(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_ulonglong", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_get_vara`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vara_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, ip: *mut *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_vara_string(ncid, varid, startp, countp, ip));
    guard("nc_get_vara_string", || get(ncid, varid, Kind::Vara, startp, countp, null(), null(), ip.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_void) -> c_int {
    by_ncid!(ncid => nc_put_vars(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_vars_text(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_text", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_schar) -> c_int {
    by_ncid!(ncid => nc_put_vars_schar(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_schar", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_vars_uchar(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_uchar", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_short) -> c_int {
    by_ncid!(ncid => nc_put_vars_short(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_short", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_int) -> c_int {
    by_ncid!(ncid => nc_put_vars_int(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_int", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_long) -> c_int {
    by_ncid!(ncid => nc_put_vars_long(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_long", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_float) -> c_int {
    by_ncid!(ncid => nc_put_vars_float(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_float", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_double) -> c_int {
    by_ncid!(ncid => nc_put_vars_double(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_double", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_vars_ubyte(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_ubyte", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_ushort) -> c_int {
    by_ncid!(ncid => nc_put_vars_ushort(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_ushort", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_uint) -> c_int {
    by_ncid!(ncid => nc_put_vars_uint(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_uint", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_longlong) -> c_int {
    by_ncid!(ncid => nc_put_vars_longlong(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_longlong", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *const c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_put_vars_ulonglong(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_ulonglong", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_put_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_vars_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, op: *mut *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_vars_string(ncid, varid, startp, countp, stridep, op));
    guard("nc_put_vars_string", || put(ncid, varid, Kind::Vars, startp, countp, stridep, null(), op.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_void) -> c_int {
    by_ncid!(ncid => nc_get_vars(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_vars_text(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_text", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_schar) -> c_int {
    by_ncid!(ncid => nc_get_vars_schar(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_schar", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_vars_uchar(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_uchar", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_short) -> c_int {
    by_ncid!(ncid => nc_get_vars_short(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_short", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_vars_int(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_int", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_long) -> c_int {
    by_ncid!(ncid => nc_get_vars_long(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_long", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_vars_float(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_float", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_double) -> c_int {
    by_ncid!(ncid => nc_get_vars_double(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_double", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_vars_ubyte(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_ubyte", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_ushort) -> c_int {
    by_ncid!(ncid => nc_get_vars_ushort(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_ushort", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_uint) -> c_int {
    by_ncid!(ncid => nc_get_vars_uint(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_uint", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_longlong) -> c_int {
    by_ncid!(ncid => nc_get_vars_longlong(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_longlong", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_get_vars_ulonglong(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_ulonglong", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_get_vars`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_vars_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, ip: *mut *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_vars_string(ncid, varid, startp, countp, stridep, ip));
    guard("nc_get_vars_string", || get(ncid, varid, Kind::Vars, startp, countp, stridep, null(), ip.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_void) -> c_int {
    by_ncid!(ncid => nc_put_varm(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_varm_text(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_text", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_schar) -> c_int {
    by_ncid!(ncid => nc_put_varm_schar(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_schar", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_varm_uchar(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_uchar", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_short) -> c_int {
    by_ncid!(ncid => nc_put_varm_short(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_short", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_int) -> c_int {
    by_ncid!(ncid => nc_put_varm_int(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_int", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_long) -> c_int {
    by_ncid!(ncid => nc_put_varm_long(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_long", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_float) -> c_int {
    by_ncid!(ncid => nc_put_varm_float(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_float", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_double) -> c_int {
    by_ncid!(ncid => nc_put_varm_double(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_double", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_varm_ubyte(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_ubyte", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_ushort) -> c_int {
    by_ncid!(ncid => nc_put_varm_ushort(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_ushort", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_uint) -> c_int {
    by_ncid!(ncid => nc_put_varm_uint(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_uint", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_longlong) -> c_int {
    by_ncid!(ncid => nc_put_varm_longlong(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_longlong", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *const c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_put_varm_ulonglong(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_ulonglong", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_put_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_varm_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, op: *mut *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_varm_string(ncid, varid, startp, countp, stridep, imapp, op));
    guard("nc_put_varm_string", || put(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, op.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_void) -> c_int {
    by_ncid!(ncid => nc_get_varm(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_text(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_varm_text(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_text", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_schar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_schar) -> c_int {
    by_ncid!(ncid => nc_get_varm_schar(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_schar", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_uchar(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_varm_uchar(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_uchar", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_short(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_short) -> c_int {
    by_ncid!(ncid => nc_get_varm_short(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_short", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_int(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_varm_int(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_int", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_long(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_long) -> c_int {
    by_ncid!(ncid => nc_get_varm_long(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_long", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_float(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_varm_float(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_float", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_double(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_double) -> c_int {
    by_ncid!(ncid => nc_get_varm_double(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_double", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_ubyte(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_varm_ubyte(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_ubyte", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_ushort(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_ushort) -> c_int {
    by_ncid!(ncid => nc_get_varm_ushort(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_ushort", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_uint(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_uint) -> c_int {
    by_ncid!(ncid => nc_get_varm_uint(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_uint", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_longlong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_longlong) -> c_int {
    by_ncid!(ncid => nc_get_varm_longlong(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_longlong", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_ulonglong(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_get_varm_ulonglong(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_ulonglong", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_get_varm`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_varm_string(ncid: c_int, varid: c_int, startp: *const usize, countp: *const usize, stridep: *const isize, imapp: *const isize, ip: *mut *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_varm_string(ncid, varid, startp, countp, stridep, imapp, ip));
    guard("nc_get_varm_string", || get(ncid, varid, Kind::Varm, startp, countp, stridep, imapp, ip.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var(ncid: c_int, varid: c_int, op: *const c_void) -> c_int {
    by_ncid!(ncid => nc_put_var(ncid, varid, op));
    guard("nc_put_var", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_text(ncid: c_int, varid: c_int, op: *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_var_text(ncid, varid, op));
    guard("nc_put_var_text", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_schar(ncid: c_int, varid: c_int, op: *const c_schar) -> c_int {
    by_ncid!(ncid => nc_put_var_schar(ncid, varid, op));
    guard("nc_put_var_schar", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_uchar(ncid: c_int, varid: c_int, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_var_uchar(ncid, varid, op));
    guard("nc_put_var_uchar", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_short(ncid: c_int, varid: c_int, op: *const c_short) -> c_int {
    by_ncid!(ncid => nc_put_var_short(ncid, varid, op));
    guard("nc_put_var_short", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_int(ncid: c_int, varid: c_int, op: *const c_int) -> c_int {
    by_ncid!(ncid => nc_put_var_int(ncid, varid, op));
    guard("nc_put_var_int", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_long(ncid: c_int, varid: c_int, op: *const c_long) -> c_int {
    by_ncid!(ncid => nc_put_var_long(ncid, varid, op));
    guard("nc_put_var_long", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_float(ncid: c_int, varid: c_int, op: *const c_float) -> c_int {
    by_ncid!(ncid => nc_put_var_float(ncid, varid, op));
    guard("nc_put_var_float", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_double(ncid: c_int, varid: c_int, op: *const c_double) -> c_int {
    by_ncid!(ncid => nc_put_var_double(ncid, varid, op));
    guard("nc_put_var_double", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_ubyte(ncid: c_int, varid: c_int, op: *const c_uchar) -> c_int {
    by_ncid!(ncid => nc_put_var_ubyte(ncid, varid, op));
    guard("nc_put_var_ubyte", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_ushort(ncid: c_int, varid: c_int, op: *const c_ushort) -> c_int {
    by_ncid!(ncid => nc_put_var_ushort(ncid, varid, op));
    guard("nc_put_var_ushort", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_uint(ncid: c_int, varid: c_int, op: *const c_uint) -> c_int {
    by_ncid!(ncid => nc_put_var_uint(ncid, varid, op));
    guard("nc_put_var_uint", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_longlong(ncid: c_int, varid: c_int, op: *const c_longlong) -> c_int {
    by_ncid!(ncid => nc_put_var_longlong(ncid, varid, op));
    guard("nc_put_var_longlong", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_ulonglong(ncid: c_int, varid: c_int, op: *const c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_put_var_ulonglong(ncid, varid, op));
    guard("nc_put_var_ulonglong", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_put_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_put_var_string(ncid: c_int, varid: c_int, op: *mut *const c_char) -> c_int {
    by_ncid!(ncid => nc_put_var_string(ncid, varid, op));
    guard("nc_put_var_string", || put(ncid, varid, Kind::Var, null(), null(), null(), null(), op.cast(), NC_STRING))
}

/// Untyped: the memory holds values of the variable's own type.
///
/// # Safety
/// The index arrays hold one entry per dimension (or are NULL where netCDF
/// allows it); the data pointer is valid for the slab.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var(ncid: c_int, varid: c_int, ip: *mut c_void) -> c_int {
    by_ncid!(ncid => nc_get_var(ncid, varid, ip));
    guard("nc_get_var", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_NAT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_text(ncid: c_int, varid: c_int, ip: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_var_text(ncid, varid, ip));
    guard("nc_get_var_text", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_CHAR))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_schar(ncid: c_int, varid: c_int, ip: *mut c_schar) -> c_int {
    by_ncid!(ncid => nc_get_var_schar(ncid, varid, ip));
    guard("nc_get_var_schar", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_BYTE))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_uchar(ncid: c_int, varid: c_int, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_var_uchar(ncid, varid, ip));
    guard("nc_get_var_uchar", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_short(ncid: c_int, varid: c_int, ip: *mut c_short) -> c_int {
    by_ncid!(ncid => nc_get_var_short(ncid, varid, ip));
    guard("nc_get_var_short", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_SHORT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_int(ncid: c_int, varid: c_int, ip: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_var_int(ncid, varid, ip));
    guard("nc_get_var_int", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_INT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_long(ncid: c_int, varid: c_int, ip: *mut c_long) -> c_int {
    by_ncid!(ncid => nc_get_var_long(ncid, varid, ip));
    guard("nc_get_var_long", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), LONG_TYPE))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_float(ncid: c_int, varid: c_int, ip: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_var_float(ncid, varid, ip));
    guard("nc_get_var_float", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_FLOAT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_double(ncid: c_int, varid: c_int, ip: *mut c_double) -> c_int {
    by_ncid!(ncid => nc_get_var_double(ncid, varid, ip));
    guard("nc_get_var_double", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_DOUBLE))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_ubyte(ncid: c_int, varid: c_int, ip: *mut c_uchar) -> c_int {
    by_ncid!(ncid => nc_get_var_ubyte(ncid, varid, ip));
    guard("nc_get_var_ubyte", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_UBYTE))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_ushort(ncid: c_int, varid: c_int, ip: *mut c_ushort) -> c_int {
    by_ncid!(ncid => nc_get_var_ushort(ncid, varid, ip));
    guard("nc_get_var_ushort", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_USHORT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_uint(ncid: c_int, varid: c_int, ip: *mut c_uint) -> c_int {
    by_ncid!(ncid => nc_get_var_uint(ncid, varid, ip));
    guard("nc_get_var_uint", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_UINT))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_longlong(ncid: c_int, varid: c_int, ip: *mut c_longlong) -> c_int {
    by_ncid!(ncid => nc_get_var_longlong(ncid, varid, ip));
    guard("nc_get_var_longlong", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_INT64))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_ulonglong(ncid: c_int, varid: c_int, ip: *mut c_ulonglong) -> c_int {
    by_ncid!(ncid => nc_get_var_ulonglong(ncid, varid, ip));
    guard("nc_get_var_ulonglong", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_UINT64))
}

/// # Safety
/// As the untyped `nc_get_var`.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_string(ncid: c_int, varid: c_int, ip: *mut *mut c_char) -> c_int {
    by_ncid!(ncid => nc_get_var_string(ncid, varid, ip));
    guard("nc_get_var_string", || get(ncid, varid, Kind::Var, null(), null(), null(), null(), ip.cast(), NC_STRING))
}

fn cache_config(size: usize, nelems: usize, preemption: f32) -> NcResult<CacheConfig> {
    if !(0.0..=1.0).contains(&preemption) {
        return Err(NcError::new(NC_EINVAL));
    }
    Ok(CacheConfig { size, nelems, preemption })
}

/// Default chunk cache of variables in datasets opened or created later.
#[no_mangle]
pub extern "C" fn nc_set_chunk_cache(size: usize, nelems: usize, preemption: c_float) -> c_int {
    // The setting is process-wide: the real libnetcdf gets it too.
    if let Some(f) = real_fn!(nc_set_chunk_cache(size, nelems, preemption)) {
        let rc = unsafe { f(size, nelems, preemption) };
        if rc != NC_NOERR {
            return rc;
        }
    }
    guard("nc_set_chunk_cache", || {
        cache::set_defaults(cache_config(size, nelems, preemption)?);
        Ok(())
    })
}

/// # Safety
/// Outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_get_chunk_cache(sizep: *mut usize, nelemsp: *mut usize, preemptionp: *mut c_float) -> c_int {
    guard("nc_get_chunk_cache", || {
        let c = cache::defaults();
        out(sizep, c.size);
        out(nelemsp, c.nelems);
        out(preemptionp, c.preemption);
        Ok(())
    })
}

/// `nc_set_chunk_cache` with `int` arguments; preemption in percent.
#[no_mangle]
pub extern "C" fn nc_set_chunk_cache_ints(size: c_int, nelems: c_int, preemption: c_int) -> c_int {
    guard("nc_set_chunk_cache_ints", || {
        if size < 0 || nelems < 0 || !(0..=100).contains(&preemption) {
            return Err(NcError::new(NC_EINVAL));
        }
        cache::set_defaults(cache_config(size as usize, nelems as usize, preemption as f32 / 100.0)?);
        Ok(())
    })
}

/// # Safety
/// Outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_get_chunk_cache_ints(sizep: *mut c_int, nelemsp: *mut c_int, preemptionp: *mut c_int) -> c_int {
    guard("nc_get_chunk_cache_ints", || {
        let c = cache::defaults();
        out(sizep, c.size.min(c_int::MAX as usize) as c_int);
        out(nelemsp, c.nelems.min(c_int::MAX as usize) as c_int);
        out(preemptionp, (c.preemption * 100.0).round() as c_int);
        Ok(())
    })
}

/// The chunk cache of one variable; shrinking it writes evicted chunks.
#[no_mangle]
pub extern "C" fn nc_set_var_chunk_cache(ncid: c_int, varid: c_int, size: usize, nelems: usize, preemption: c_float) -> c_int {
    by_ncid!(ncid => nc_set_var_chunk_cache(ncid, varid, size, nelems, preemption));
    guard("nc_set_var_chunk_cache", || {
        let c = cache_config(size, nelems, preemption)?;
        read(ncid, |ds, gid| ds.set_var_cache(gid, varid, c))
    })
}

/// # Safety
/// Outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_chunk_cache(ncid: c_int, varid: c_int, sizep: *mut usize, nelemsp: *mut usize, preemptionp: *mut c_float) -> c_int {
    by_ncid!(ncid => nc_get_var_chunk_cache(ncid, varid, sizep, nelemsp, preemptionp));
    guard("nc_get_var_chunk_cache", || {
        let c = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.cache.config()))?;
        out(sizep, c.size);
        out(nelemsp, c.nelems);
        out(preemptionp, c.preemption);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn nc_set_var_chunk_cache_ints(ncid: c_int, varid: c_int, size: c_int, nelems: c_int, preemption: c_int) -> c_int {
    by_ncid!(ncid => nc_set_var_chunk_cache_ints(ncid, varid, size, nelems, preemption));
    guard("nc_set_var_chunk_cache_ints", || {
        if size < 0 || nelems < 0 || !(0..=100).contains(&preemption) {
            return Err(NcError::new(NC_EINVAL));
        }
        let c = cache_config(size as usize, nelems as usize, preemption as f32 / 100.0)?;
        read(ncid, |ds, gid| ds.set_var_cache(gid, varid, c))
    })
}

/// # Safety
/// Outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_chunk_cache_ints(ncid: c_int, varid: c_int, sizep: *mut c_int, nelemsp: *mut c_int, preemptionp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_get_var_chunk_cache_ints(ncid, varid, sizep, nelemsp, preemptionp));
    guard("nc_get_var_chunk_cache_ints", || {
        let c = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.cache.config()))?;
        out(sizep, c.size.min(c_int::MAX as usize) as c_int);
        out(nelemsp, c.nelems.min(c_int::MAX as usize) as c_int);
        out(preemptionp, (c.preemption * 100.0).round() as c_int);
        Ok(())
    })
}

/// Frees what the library allocated inside `count` values of `xtypeid`
/// (for `NC_STRING`, each string; atomic types own nothing). The array
/// itself stays the caller's.
///
/// # Safety
/// `memory` is NULL or holds `count` values of `xtypeid`.
#[no_mangle]
pub unsafe extern "C" fn nc_reclaim_data(ncid: c_int, xtypeid: nc_type, memory: *mut c_void, count: usize) -> c_int {
    by_ncid!(ncid => nc_reclaim_data(ncid, xtypeid, memory, count));
    guard("nc_reclaim_data", || reclaim(ncid, xtypeid, memory, count))
}

/// What `nc_reclaim_data` frees: the strings of an `NC_STRING` array.
unsafe fn reclaim(ncid: c_int, xtypeid: nc_type, memory: *mut c_void, count: usize) -> NcResult<()> {
    read(ncid, |_, _| Ok(()))?;
    if !(NC_BYTE..=NC_STRING).contains(&xtypeid) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    if xtypeid == NC_STRING && count > 0 {
        non_null(memory)?;
        free_strings(memory as *mut *mut c_char, count);
    }
    Ok(())
}

/// `nc_reclaim_data`, then frees the array itself.
///
/// # Safety
/// `memory` is NULL or a `malloc`ed array of `count` values of `xtypeid`.
#[no_mangle]
pub unsafe extern "C" fn nc_reclaim_data_all(ncid: c_int, xtypeid: nc_type, memory: *mut c_void, count: usize) -> c_int {
    by_ncid!(ncid => nc_reclaim_data_all(ncid, xtypeid, memory, count));
    guard("nc_reclaim_data_all", || {
        reclaim(ncid, xtypeid, memory, count)?;
        libc::free(memory);
        Ok(())
    })
}
