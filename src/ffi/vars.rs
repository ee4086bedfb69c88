//! netCDF C API: variable definitions and inquiries.

use super::args::{c_str, in_slice, out, out_name, out_slice};
use super::boundary::{guard, status};
use super::interpose::{always, by_ncid};
use super::nc::{read, write};
use super::types::nc_type;
use super::values::{from_mem, to_mem};
use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::filters;
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_int, c_uint, c_void};

fn not_global(varid: c_int) -> NcResult<()> {
    if varid == NC_GLOBAL {
        Err(NcError::new(NC_EGLOBAL))
    } else {
        Ok(())
    }
}

/// # Safety
/// `name` is a NUL-terminated string; `dimidsp` holds `ndims` ids; `varidp`
/// is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_def_var(
    ncid: c_int,
    name: *const c_char,
    xtype: nc_type,
    ndims: c_int,
    dimidsp: *const c_int,
    varidp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_def_var(ncid, name, xtype, ndims, dimidsp, varidp));
    guard("nc_def_var", || {
        let name = c_str(name)?;
        let n = usize::try_from(ndims).map_err(|_| NcError::new(NC_EINVAL))?;
        let dims = in_slice(dimidsp, n)?;
        let id = write(ncid, |ds, gid| ds.def_var(gid, name, xtype, dims))?;
        out(varidp, id as c_int);
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string; `varidp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_varid(ncid: c_int, name: *const c_char, varidp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_varid(ncid, name, varidp));
    guard("nc_inq_varid", || {
        let name = c_str(name)?;
        let id = read(ncid, |ds, gid| ds.find_var(gid, name).ok_or(NcError::new(NC_ENOTVAR)))?;
        out(varidp, id as c_int);
        Ok(())
    })
}

/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var(
    ncid: c_int,
    varid: c_int,
    name: *mut c_char,
    xtypep: *mut nc_type,
    ndimsp: *mut c_int,
    dimidsp: *mut c_int,
    nattsp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var(ncid, varid, name, xtypep, ndimsp, dimidsp, nattsp));
    guard("nc_inq_var", || {
        let (n, t, dims, na) = read(ncid, |ds, gid| {
            if varid == NC_GLOBAL {
                return Ok((String::new(), NC_NAT, vec![], ds.group(gid)?.atts.len()));
            }
            let v = ds.var(gid, varid)?;
            Ok((v.name.clone(), v.nctype, v.dimids.iter().map(|&d| d as c_int).collect::<Vec<_>>(), v.atts.len()))
        })?;
        if varid != NC_GLOBAL {
            out_name(name, &n);
            out(xtypep, t);
            out(ndimsp, dims.len() as c_int);
            out_slice(dimidsp, &dims);
        }
        out(nattsp, na as c_int);
        Ok(())
    })
}

/// # Safety
/// `name` is NULL or holds `NC_MAX_NAME + 1` bytes.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_varname(ncid: c_int, varid: c_int, name: *mut c_char) -> c_int {
    by_ncid!(ncid => nc_inq_varname(ncid, varid, name));
    guard("nc_inq_varname", || {
        let n = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.name.clone()))?;
        out_name(name, &n);
        Ok(())
    })
}

/// # Safety
/// `xtypep` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_vartype(ncid: c_int, varid: c_int, xtypep: *mut nc_type) -> c_int {
    by_ncid!(ncid => nc_inq_vartype(ncid, varid, xtypep));
    guard("nc_inq_vartype", || {
        let t = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.nctype))?;
        out(xtypep, t);
        Ok(())
    })
}

/// # Safety
/// `ndimsp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_varndims(ncid: c_int, varid: c_int, ndimsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_varndims(ncid, varid, ndimsp));
    guard("nc_inq_varndims", || {
        let n = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.dimids.len()))?;
        out(ndimsp, n as c_int);
        Ok(())
    })
}

/// # Safety
/// `dimidsp` is NULL or holds the variable's number of dimensions.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_vardimid(ncid: c_int, varid: c_int, dimidsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_vardimid(ncid, varid, dimidsp));
    guard("nc_inq_vardimid", || {
        let d: Vec<c_int> = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.dimids.iter().map(|&d| d as c_int).collect()))?;
        out_slice(dimidsp, &d);
        Ok(())
    })
}

/// Number of attributes of a variable (`NC_GLOBAL`: of the group).
///
/// # Safety
/// `nattsp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_varnatts(ncid: c_int, varid: c_int, nattsp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_varnatts(ncid, varid, nattsp));
    guard("nc_inq_varnatts", || {
        let n = read(ncid, |ds, gid| Ok(ds.atts(gid, varid)?.len()))?;
        out(nattsp, n as c_int);
        Ok(())
    })
}

/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_varids(ncid: c_int, nvars: *mut c_int, varids: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_varids(ncid, nvars, varids));
    guard("nc_inq_varids", || {
        let n = read(ncid, |ds, gid| Ok(ds.group(gid)?.vars.len()))?;
        let ids: Vec<c_int> = (0..n as c_int).collect();
        out(nvars, n as c_int);
        out_slice(varids, &ids);
        Ok(())
    })
}

/// # Safety
/// `name` is a NUL-terminated string.
#[no_mangle]
pub unsafe extern "C" fn nc_rename_var(ncid: c_int, varid: c_int, name: *const c_char) -> c_int {
    by_ncid!(ncid => nc_rename_var(ncid, varid, name));
    guard("nc_rename_var", || {
        let name = c_str(name)?;
        write(ncid, |ds, gid| ds.rename_var(gid, varid, name))
    })
}

/// Chunking: `NC_CHUNKED` with sizes (NULL: netCDF-C's defaults), or
/// `NC_CONTIGUOUS`/`NC_COMPACT` (stored as one chunk).
///
/// # Safety
/// `chunksizesp` is NULL or holds one size per dimension.
#[no_mangle]
pub unsafe extern "C" fn nc_def_var_chunking(
    ncid: c_int,
    varid: c_int,
    storage: c_int,
    chunksizesp: *const usize,
) -> c_int {
    by_ncid!(ncid => nc_def_var_chunking(ncid, varid, storage, chunksizesp));
    guard("nc_def_var_chunking", || {
        not_global(varid)?;
        write(ncid, |ds, gid| {
            let ndims = ds.var(gid, varid)?.dimids.len();
            let sizes: Option<Vec<u64>> = if chunksizesp.is_null() || storage != NC_CHUNKED {
                None
            } else {
                Some(in_slice(chunksizesp, ndims)?.iter().map(|&c| c as u64).collect())
            };
            ds.def_var_chunking(gid, varid, storage, sizes.as_deref())
        })
    })
}

/// # Safety
/// `storagep` is NULL or points to an `int`; `chunksizesp` is NULL or holds
/// one `size_t` per dimension.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_chunking(
    ncid: c_int,
    varid: c_int,
    storagep: *mut c_int,
    chunksizesp: *mut usize,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_chunking(ncid, varid, storagep, chunksizesp));
    guard("nc_inq_var_chunking", || {
        not_global(varid)?;
        let (s, c) = read(ncid, |ds, gid| ds.inq_var_chunking(gid, varid))?;
        out(storagep, s);
        out_slice(chunksizesp, &c.iter().map(|&x| x as usize).collect::<Vec<_>>());
        Ok(())
    })
}

/// Stores the variable's chunks in shards of `shard_shape` elements (Zarr
/// v3's `sharding_indexed` codec; index at the end, with `crc32c`): one
/// object per shard, from which a reader fetches just the chunks it needs.
/// The chunks (`nc_def_var_chunking`, defined first) are the shards' inner
/// chunks; the variable's filters apply to each of them. A dataset created
/// with `mode=...,v3` only (`NC_EINVAL` otherwise: Zarr v2 has no shards);
/// `shard_shape` holds one size per dimension, each a multiple of the
/// chunk size (`NC_EBADCHUNK`); not for scalars or contiguous variables
/// (`NC_EINVAL`); in define mode before the variable is written
/// (`NC_ELATEDEF`). Not a netCDF-C function.
///
/// # Safety
/// `shard_shape` holds one `size_t` per dimension of the variable.
#[no_mangle]
pub unsafe extern "C" fn nczarr_rs_def_var_shard(ncid: c_int, varid: c_int, shard_shape: *const usize) -> c_int {
    guard("nczarr_rs_def_var_shard", || {
        not_global(varid)?;
        write(ncid, |ds, gid| {
            let ndims = ds.var(gid, varid)?.dimids.len();
            if shard_shape.is_null() {
                return Err(NcError::with(NC_EINVAL, "shard_shape is NULL"));
            }
            let shape: Vec<u64> = in_slice(shard_shape, ndims)?.iter().map(|&c| c as u64).collect();
            ds.def_var_shard(gid, varid, &shape)
        })
    })
}

/// Whether the variable's chunks are stored in shards (`*shardedp`: 1 or
/// 0) and the shard shape (`shard_shape`, one `size_t` per dimension,
/// untouched when there are no shards). Either pointer may be NULL. Not a
/// netCDF-C function.
///
/// # Safety
/// `shardedp` is NULL or points to an `int`; `shard_shape` is NULL or
/// holds one `size_t` per dimension of the variable.
#[no_mangle]
pub unsafe extern "C" fn nczarr_rs_inq_var_shard(
    ncid: c_int,
    varid: c_int,
    shardedp: *mut c_int,
    shard_shape: *mut usize,
) -> c_int {
    guard("nczarr_rs_inq_var_shard", || {
        not_global(varid)?;
        let shape = read(ncid, |ds, gid| ds.inq_var_shard(gid, varid))?;
        out(shardedp, shape.is_some() as c_int);
        if let Some(s) = shape {
            out_slice(shard_shape, &s.iter().map(|&x| x as usize).collect::<Vec<_>>());
        }
        Ok(())
    })
}

/// # Safety
/// `fill_value` is NULL or points to one value of the variable's type.
#[no_mangle]
pub unsafe extern "C" fn nc_def_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: c_int,
    fill_value: *const c_void,
) -> c_int {
    by_ncid!(ncid => nc_def_var_fill(ncid, varid, no_fill, fill_value));
    guard("nc_def_var_fill", || {
        not_global(varid)?;
        write(ncid, |ds, gid| {
            let t = ds.var(gid, varid)?.nctype;
            let value = if fill_value.is_null() { None } else { Some(from_mem(t, 1, fill_value)?) };
            ds.def_var_fill(gid, varid, no_fill != 0, value)
        })
    })
}

/// # Safety
/// `no_fill` is NULL or points to an `int`; `fill_valuep` is NULL or holds
/// one value of the variable's type (a `char*` to free for strings).
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_fill(
    ncid: c_int,
    varid: c_int,
    no_fill: *mut c_int,
    fill_valuep: *mut c_void,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_fill(ncid, varid, no_fill, fill_valuep));
    guard("nc_inq_var_fill", || {
        not_global(varid)?;
        let (nf, value) = read(ncid, |ds, gid| ds.inq_var_fill(gid, varid))?;
        // netCDF-C leaves the buffer alone for a NOFILL variable
        if !fill_valuep.is_null() && !nf {
            to_mem(&value, fill_valuep)?;
        }
        out(no_fill, nf as c_int);
        Ok(())
    })
}

#[no_mangle]
pub extern "C" fn nc_def_var_endian(ncid: c_int, varid: c_int, endian: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_endian(ncid, varid, endian));
    guard("nc_def_var_endian", || {
        not_global(varid)?;
        write(ncid, |ds, gid| ds.def_var_endian(gid, varid, endian))
    })
}

/// # Safety
/// `endianp` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_endian(ncid: c_int, varid: c_int, endianp: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_var_endian(ncid, varid, endianp));
    guard("nc_inq_var_endian", || {
        not_global(varid)?;
        let e = read(ncid, |ds, gid| ds.inq_var_endian(gid, varid))?;
        out(endianp, e);
        Ok(())
    })
}

/// Shuffle and deflate settings, from the variable's codecs.
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_deflate(
    ncid: c_int,
    varid: c_int,
    shufflep: *mut c_int,
    deflatep: *mut c_int,
    deflate_levelp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_deflate(ncid, varid, shufflep, deflatep, deflate_levelp));
    guard("nc_inq_var_deflate", || {
        not_global(varid)?;
        let (sh, level) = read(ncid, |ds, gid| {
            let v = ds.var(gid, varid)?;
            let sh = v.filter(H5Z_FILTER_SHUFFLE).is_some();
            let level = v.filter(H5Z_FILTER_DEFLATE).map(|p| p[0] as c_int);
            Ok((sh, level))
        })?;
        out(shufflep, sh as c_int);
        out(deflatep, level.is_some() as c_int);
        out(deflate_levelp, level.unwrap_or(0));
        Ok(())
    })
}

/// # Safety
/// `fletcher32p` is NULL or points to an `int`.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_fletcher32(ncid: c_int, varid: c_int, fletcher32p: *mut c_int) -> c_int {
    by_ncid!(ncid => nc_inq_var_fletcher32(ncid, varid, fletcher32p));
    guard("nc_inq_var_fletcher32", || {
        not_global(varid)?;
        let f = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.filter(H5Z_FILTER_FLETCHER32).is_some()))?;
        out(fletcher32p, f as c_int);
        Ok(())
    })
}

/// The HDF5 filter ids of the variable's codecs, in chain order.
///
/// # Safety
/// `nfiltersp` is NULL or points to a `size_t`; `ids` is NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_filter_ids(
    ncid: c_int,
    varid: c_int,
    nfiltersp: *mut usize,
    ids: *mut c_uint,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_filter_ids(ncid, varid, nfiltersp, ids));
    guard("nc_inq_var_filter_ids", || {
        not_global(varid)?;
        let f: Vec<c_uint> =
            read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.filters().into_iter().map(|(id, _)| id).collect()))?;
        out(nfiltersp, f.len());
        out_slice(ids, &f);
        Ok(())
    })
}

/// Parameters of one filter of the variable (`NC_ENOFILTER` if absent).
///
/// # Safety
/// `nparamsp` is NULL or points to a `size_t`; `params` is NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_filter_info(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparamsp: *mut usize,
    params: *mut c_uint,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_filter_info(ncid, varid, id, nparamsp, params));
    guard("nc_inq_var_filter_info", || {
        not_global(varid)?;
        let p: Vec<c_uint> = read(ncid, |ds, gid| {
            let v = ds.var(gid, varid)?;
            v.filter(id).ok_or(NcError::new(NC_ENOFILTER))
        })?;
        out(nparamsp, p.len());
        out_slice(params, &p);
        Ok(())
    })
}

/// The first filter of the variable (its HDF5 id and parameters); id 0
/// when it has none.
///
/// # Safety
/// Outputs are NULL or large enough.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_filter(
    ncid: c_int,
    varid: c_int,
    idp: *mut c_uint,
    nparamsp: *mut usize,
    params: *mut c_uint,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_filter(ncid, varid, idp, nparamsp, params));
    guard("nc_inq_var_filter", || {
        not_global(varid)?;
        let (id, p) = read(ncid, |ds, gid| {
            let v = ds.var(gid, varid)?;
            Ok(v.filters().into_iter().next().unwrap_or((0, vec![])))
        })?;
        out(idp, id);
        out(nparamsp, p.len());
        out_slice(params, &p);
        Ok(())
    })
}

/// Deflate (zlib) and shuffle, stored as the Zarr codecs `zlib` and
/// `shuffle`. Only before the variable is on disk (`NC_ELATEDEF`).
#[no_mangle]
pub extern "C" fn nc_def_var_deflate(
    ncid: c_int,
    varid: c_int,
    shuffle: c_int,
    deflate: c_int,
    deflate_level: c_int,
) -> c_int {
    by_ncid!(ncid => nc_def_var_deflate(ncid, varid, shuffle, deflate, deflate_level));
    guard("nc_def_var_deflate", || {
        not_global(varid)?;
        write(ncid, |ds, gid| ds.def_var_deflate(gid, varid, shuffle != 0, deflate != 0, deflate_level))
    })
}

/// The HDF5-style filter API for the filters this build has: deflate (1,
/// one parameter: the level), shuffle (2), Fletcher-32 (3, no parameter),
/// bzip2 (307, one parameter: the level 1-9), Zstandard (32015, one
/// parameter: the level, negative ones as their two's complement), Blosc
/// (32001, seven parameters as `nc_def_var_blosc` passes them) and LZ4
/// (32004, optionally one parameter: numcodecs' acceleration). Others:
/// `NC_ENOFILTER`.
///
/// # Safety
/// `parms` holds `nparams` values (it may be NULL when `nparams` is 0).
#[no_mangle]
pub unsafe extern "C" fn nc_def_var_filter(
    ncid: c_int,
    varid: c_int,
    id: c_uint,
    nparams: usize,
    parms: *const c_uint,
) -> c_int {
    by_ncid!(ncid => nc_def_var_filter(ncid, varid, id, nparams, parms));
    guard("nc_def_var_filter", || {
        not_global(varid)?;
        let params = in_slice(parms, nparams)?;
        write(ncid, |ds, gid| ds.def_var_codec_filter(gid, varid, id, params))
    })
}

/// `NC_NOERR` for the filters this build can encode and decode (the codec
/// registry's: deflate, shuffle, fletcher32, bzip2, zstd, blosc, lz4),
/// `NC_ENOFILTER` for any other.
#[no_mangle]
pub extern "C" fn nc_inq_filter_avail(ncid: c_int, id: c_uint) -> c_int {
    by_ncid!(ncid => nc_inq_filter_avail(ncid, id));
    guard("nc_inq_filter_avail", || filter_avail(ncid, id))
}

fn filter_avail(ncid: c_int, id: c_uint) -> NcResult<()> {
    read(ncid, |_, _| Ok(()))?;
    // netCDF-C's NCZarr: an id outside HDF5's filter range (H5Z_FILTER_MAX,
    // 65535, in HDF5's H5Zpublic.h) is NC_EINVAL.
    const H5Z_FILTER_MAX: c_uint = 65535;
    if id == 0 || id >= H5Z_FILTER_MAX {
        return Err(NcError::new(NC_EINVAL));
    }
    if filters::available(id) {
        Ok(())
    } else {
        Err(NcError::new(NC_ENOFILTER))
    }
}

/// bzip2 at `level` 1-9 (netCDF-C's `netcdf_filter.h`, filter 307), stored
/// as numcodecs' `bz2`; another level is `NC_EINVAL`.
#[no_mangle]
pub extern "C" fn nc_def_var_bzip2(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_bzip2(ncid, varid, level));
    guard("nc_def_var_bzip2", || {
        filter_avail(ncid, H5Z_FILTER_BZIP2)?;
        if !(1..=9).contains(&level) {
            return Err(NcError::new(NC_EINVAL));
        }
        // SAFETY: one parameter, from a live local
        status(unsafe { nc_def_var_filter(ncid, varid, H5Z_FILTER_BZIP2, 1, &(level as c_uint)) })
    })
}

/// Whether the variable is bzip2-compressed, and at which level (0
/// without the filter).
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_bzip2(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_bzip2(ncid, varid, hasfilterp, levelp));
    guard("nc_inq_var_bzip2", || {
        let avail = filter_avail(ncid, H5Z_FILTER_BZIP2);
        // netCDF-C writes both outputs whatever the outcome
        let level = match &avail {
            Ok(()) => read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.filter(H5Z_FILTER_BZIP2)))?,
            Err(_) => None,
        };
        out(hasfilterp, level.is_some() as c_int);
        out(levelp, level.and_then(|p| p.first().copied()).unwrap_or(0) as c_int);
        avail
    })
}

/// Declared by netCDF-C's `netcdf_filter.h` but defined by no netCDF-C
/// release: `NC_ENOTBUILT`.
#[no_mangle]
pub extern "C" fn nc_filter_path_query(id: c_int) -> c_int {
    always!(nc_filter_path_query(id));
    guard("nc_filter_path_query", || Err(NcError::new(NC_ENOTBUILT)))
}

/// Zstandard compression at a libzstd level (`NC_EINVAL` outside
/// -131072..=22), stored as the Zarr codec `zstd` (netCDF-C's
/// `netcdf_filter.h`).
#[no_mangle]
pub extern "C" fn nc_def_var_zstandard(ncid: c_int, varid: c_int, level: c_int) -> c_int {
    by_ncid!(ncid => nc_def_var_zstandard(ncid, varid, level));
    guard("nc_def_var_zstandard", || {
        not_global(varid)?;
        write(ncid, |ds, gid| ds.def_var_codec_filter(gid, varid, H5Z_FILTER_ZSTD, &[level as c_uint]))
    })
}

/// Whether the variable is Zstandard-compressed, and at which level.
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_zstandard(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    levelp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_zstandard(ncid, varid, hasfilterp, levelp));
    guard("nc_inq_var_zstandard", || {
        not_global(varid)?;
        let level = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.filter(H5Z_FILTER_ZSTD).map(|p| p[0] as c_int)))?;
        out(hasfilterp, level.is_some() as c_int);
        out(levelp, level.unwrap_or(0)); // 0 without the filter, as netCDF-C
        Ok(())
    })
}

/// Blosc compression (netCDF-C's `netcdf_filter.h`): `subcompressor` one of
/// `BLOSC_LZ`, `BLOSC_LZ4`, `BLOSC_LZ4HC`, `BLOSC_ZLIB`, `BLOSC_ZSTD`
/// (Snappy is not built), `level` 0-9, `blocksize` 0 for automatic,
/// `addshuffle` `BLOSC_NOSHUFFLE`/`BLOSC_SHUFFLE`/`BLOSC_BITSHUFFLE`;
/// anything else is `NC_EINVAL`. Stored as the Zarr codec `blosc`.
#[no_mangle]
pub extern "C" fn nc_def_var_blosc(
    ncid: c_int,
    varid: c_int,
    subcompressor: c_uint,
    level: c_uint,
    blocksize: c_uint,
    addshuffle: c_uint,
) -> c_int {
    by_ncid!(ncid => nc_def_var_blosc(ncid, varid, subcompressor, level, blocksize, addshuffle));
    guard("nc_def_var_blosc", || {
        not_global(varid)?;
        // the seven parameters of filter 32001, as netCDF-C passes them
        let params = [0, 0, 0, blocksize, level, addshuffle, subcompressor];
        write(ncid, |ds, gid| ds.def_var_codec_filter(gid, varid, H5Z_FILTER_BLOSC, &params))
    })
}

/// Whether the variable is Blosc-compressed, and its settings (all 0
/// without the filter, as netCDF-C).
///
/// # Safety
/// Outputs are NULL or point to `int`/`unsigned int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_blosc(
    ncid: c_int,
    varid: c_int,
    hasfilterp: *mut c_int,
    subcompressorp: *mut c_uint,
    levelp: *mut c_uint,
    blocksizep: *mut c_uint,
    addshufflep: *mut c_uint,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_blosc(ncid, varid, hasfilterp, subcompressorp, levelp, blocksizep, addshufflep));
    guard("nc_inq_var_blosc", || {
        not_global(varid)?;
        let p = read(ncid, |ds, gid| Ok(ds.var(gid, varid)?.filter(H5Z_FILTER_BLOSC)))?;
        out(hasfilterp, p.is_some() as c_int);
        let p = p.unwrap_or_else(|| vec![0; 7]);
        out(subcompressorp, p[6]);
        out(levelp, p[4]);
        out(blocksizep, p[3]);
        out(addshufflep, p[5]);
        Ok(())
    })
}

/// The quantize mode and number of significant digits (bits for BitRound)
/// of a variable: as set, or from its quantize attribute when read.
///
/// # Safety
/// Outputs are NULL or point to `int`s.
#[no_mangle]
pub unsafe extern "C" fn nc_inq_var_quantize(
    ncid: c_int,
    varid: c_int,
    quantize_modep: *mut c_int,
    nsdp: *mut c_int,
) -> c_int {
    by_ncid!(ncid => nc_inq_var_quantize(ncid, varid, quantize_modep, nsdp));
    guard("nc_inq_var_quantize", || {
        not_global(varid)?;
        let q = read(ncid, |ds, gid| ds.var(gid, varid).map(|v| v.quantize))?;
        out(quantize_modep, q.mode);
        out(nsdp, q.nsd);
        Ok(())
    })
}
