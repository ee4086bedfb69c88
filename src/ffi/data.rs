//! netCDF C API: reading and writing variable data, in every access family
//! (`var1`, `vara`, `vars`, `varm`, `var`) and memory type, plus the chunk
//! cache settings and `nc_reclaim_data`. The typed functions differ only in
//! the memory type they pass; the untyped ones use the variable's own type.

use super::args::{
    c_string_lossy, elems, elems_mut, free_strings, in_slice, malloc_c_strings, non_null, out, slice_mut,
};
use super::boundary::guard;
use super::interpose::{by_ncid, real_fn};
use super::nc::{read, write};
use super::types::nc_type;
use crate::engine::cache::{self, CacheConfig};
use crate::engine::consts::*;
use crate::engine::convert::elem_size;
use crate::engine::data::{MemIn, MemOut, Slab};
use crate::engine::error::*;
use crate::engine::model::Dataset;
use crate::engine::slab::PerDim;
use crate::engine::{NcError, NcResult};
use std::os::raw::{
    c_char, c_double, c_float, c_int, c_long, c_longlong, c_schar, c_short, c_uchar, c_uint, c_ulonglong, c_ushort,
    c_void,
};
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

/// The caller's index arrays of one data call, as its access family
/// passes them (NULL where the family has none).
#[derive(Clone, Copy)]
pub(crate) struct Request {
    kind: Kind,
    startp: *const usize,
    countp: *const usize,
    stridep: *const isize,
    imapp: *const isize,
}

/// Reads the caller's start/count/stride/map arrays and resolves the slab.
unsafe fn slab(ds: &Dataset, gid: usize, varid: c_int, req: Request, for_write: bool) -> NcResult<Slab> {
    let Request { kind, startp, countp, stridep, imapp } = req;
    let v = ds.var(gid, varid)?;
    let nd = v.dimids.len();
    if nd == 0 {
        return ds.slab(gid, varid, None, None, None, None, for_write);
    }
    // (inline up to rank 4: nothing allocated for a small call)
    let u64s = |p: *const usize| -> NcResult<Option<PerDim<u64>>> {
        if p.is_null() {
            Ok(None)
        } else {
            Ok(Some(in_slice(p, nd)?.iter().map(|&x| x as u64).collect()))
        }
    };
    let i64s = |p: *const isize| -> NcResult<Option<PerDim<i64>>> {
        if p.is_null() {
            Ok(None)
        } else {
            Ok(Some(in_slice(p, nd)?.iter().map(|&x| x as i64).collect()))
        }
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
unsafe fn one_index(
    ds: &Dataset,
    gid: usize,
    varid: c_int,
    req: Request,
    data: *const c_void,
    memtype: nc_type,
) -> NcResult<Option<PerDim<u64>>> {
    let Request { kind, startp, countp, .. } = req;
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
    let req = Request { kind, startp, countp, stridep, imapp };
    read(ncid, |ds, gid| {
        let memtype = if memtype == NC_NAT { ds.var(gid, varid)?.nctype } else { memtype };
        if let Some(index) = one_index(ds, gid, varid, req, ip, memtype)? {
            let out = elems_mut(ip, 1, elem_size(memtype))?;
            if ds.get_one(gid, varid, &index, memtype, out)?.is_some() {
                return Ok(());
            }
        }
        let s = slab(ds, gid, varid, req, false)?;
        let n = s.mem_elems();
        if n == 0 {
            ds.var(gid, varid)?;
            return Ok(());
        }
        non_null(ip)?;
        if memtype == NC_STRING {
            let mut strings =
                crate::limits::try_filled(n, String::new()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
            let result = ds.get_slab(gid, varid, &s, MemOut::Strings(&mut strings));
            if let Err(e) = &result {
                if e.code() != NC_ERANGE {
                    return result;
                }
            }
            // All copies are made before the caller's array is touched.
            let made = malloc_c_strings(s.offsets().map(|p| strings[p].as_str()))?;
            let dst = slice_mut(ip as *mut *mut c_char, n)?;
            for (p, c) in s.offsets().zip(made) {
                dst[p] = c;
            }
            return result;
        }
        let size = if memtype == NC_CHAR { 1 } else { elem_size(memtype) };
        if !(NC_BYTE..=NC_UINT64).contains(&memtype) {
            return Err(NcError::new(NC_EBADTYPE));
        }
        let buf = elems_mut(ip, n, size)?;
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
    let req = Request { kind, startp, countp, stridep, imapp };
    write(ncid, |ds, gid| {
        // A collective write is made by every rank: a rank whose request is
        // bad, or empty, still takes part (with its error, or nothing).
        if ds.is_collective(gid, varid) {
            let mut strings = Vec::new();
            let request = put_request(ds, gid, varid, req, op, memtype, &mut strings);
            return ds.put_collective(gid, varid, request);
        }
        let memtype = if memtype == NC_NAT { ds.var(gid, varid)?.nctype } else { memtype };
        ds.check_writable()?;
        if let Some(index) = one_index(ds, gid, varid, req, op, memtype)? {
            let input = elems(op, 1, elem_size(memtype))?;
            if ds.put_one(gid, varid, &index, memtype, input)?.is_some() {
                return Ok(());
            }
        }
        let mut strings = Vec::new();
        match put_request(ds, gid, varid, req, op, memtype, &mut strings)? {
            Some((s, input)) => ds.put_slab(gid, varid, &s, input),
            None => Ok(()),
        }
    })
}

/// The slab and the caller's values of a write (`None`: no values), the
/// strings copied into `strings`.
unsafe fn put_request<'a>(
    ds: &Dataset,
    gid: usize,
    varid: c_int,
    req: Request,
    op: *const c_void,
    memtype: nc_type,
    strings: &'a mut Vec<String>,
) -> NcResult<Option<(Slab, MemIn<'a>)>> {
    let memtype = if memtype == NC_NAT { ds.var(gid, varid)?.nctype } else { memtype };
    ds.check_writable()?;
    let s = slab(ds, gid, varid, req, true)?;
    let n = s.mem_elems();
    if n == 0 {
        return Ok(None);
    }
    non_null(op)?;
    if memtype == NC_STRING {
        let src = in_slice(op as *const *const c_char, n)?;
        *strings = crate::limits::try_filled(n, String::new()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
        for p in s.offsets() {
            strings[p] = c_string_lossy(src[p])?;
        }
        return Ok(Some((s, MemIn::Strings(strings))));
    }
    if !(NC_BYTE..=NC_UINT64).contains(&memtype) {
        return Err(NcError::new(NC_EBADTYPE));
    }
    let size = elem_size(memtype);
    let buf = elems(op, n, size)?;
    Ok(Some((s, MemIn::Bytes { memtype, buf })))
}

// The exported functions of every access family and memory type
// (`nc_put_var1`, `nc_get_vara_float`, ...), written by build.rs from the
// table in codegen/typed_exports.rs: each routes with `by_ncid!` and calls
// `put` or `get` above inside `guard`.
include!(concat!(env!("OUT_DIR"), "/ffi_data_exports.rs"));

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
pub unsafe extern "C" fn nc_get_chunk_cache(
    sizep: *mut usize,
    nelemsp: *mut usize,
    preemptionp: *mut c_float,
) -> c_int {
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
pub unsafe extern "C" fn nc_get_chunk_cache_ints(
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
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
pub extern "C" fn nc_set_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    size: usize,
    nelems: usize,
    preemption: c_float,
) -> c_int {
    by_ncid!(ncid => nc_set_var_chunk_cache(ncid, varid, size, nelems, preemption));
    guard("nc_set_var_chunk_cache", || {
        let c = cache_config(size, nelems, preemption)?;
        read(ncid, |ds, gid| ds.set_var_cache(gid, varid, c))
    })
}

/// # Safety
/// Outputs are NULL or valid.
#[no_mangle]
pub unsafe extern "C" fn nc_get_var_chunk_cache(
    ncid: c_int,
    varid: c_int,
    sizep: *mut usize,
    nelemsp: *mut usize,
    preemptionp: *mut c_float,
) -> c_int {
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
pub extern "C" fn nc_set_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    size: c_int,
    nelems: c_int,
    preemption: c_int,
) -> c_int {
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
pub unsafe extern "C" fn nc_get_var_chunk_cache_ints(
    ncid: c_int,
    varid: c_int,
    sizep: *mut c_int,
    nelemsp: *mut c_int,
    preemptionp: *mut c_int,
) -> c_int {
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
pub unsafe extern "C" fn nc_reclaim_data_all(
    ncid: c_int,
    xtypeid: nc_type,
    memory: *mut c_void,
    count: usize,
) -> c_int {
    by_ncid!(ncid => nc_reclaim_data_all(ncid, xtypeid, memory, count));
    guard("nc_reclaim_data_all", || {
        reclaim(ncid, xtypeid, memory, count)?;
        libc::free(memory);
        Ok(())
    })
}
