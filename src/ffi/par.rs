//! netCDF-C's parallel I/O API (`netcdf_par.h`). This library is built
//! without MPI, like a netCDF-C configured without parallel I/O: every
//! function answers `NC_ENOPAR` for what is ours, and a path or ncid that
//! is not ours goes to the real libnetcdf (which may be a parallel build).
//!
//! `MPI_Comm` and `MPI_Info` are an `int` (MPICH, MS-MPI) or a pointer
//! (Open MPI); both travel in one integer register of the C calling
//! conventions this library is built for, so a pointer-sized integer
//! carries either unchanged to the real library. `nc_create_par` and
//! `nc_open_par` are declared in `netcdf_par.h` (which includes `<mpi.h>`),
//! and in `nczarr_rs.h` only when `<mpi.h>` came first.

use super::boundary::guard;
use super::interpose::{by_ncid, by_path};
use crate::engine::error::NC_ENOPAR;
use crate::engine::NcError;
use std::os::raw::{c_char, c_int};

/// An `MPI_Comm` or `MPI_Info` handle, passed on untouched.
pub type MpiHandle = usize;

/// # Safety
/// As netCDF-C's `nc_create_par`.
#[no_mangle]
pub unsafe extern "C" fn nc_create_par(
    path: *const c_char,
    cmode: c_int,
    comm: MpiHandle,
    info: MpiHandle,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, true => nc_create_par(path, cmode, comm, info, ncidp));
    guard("nc_create_par", || Err(NcError::new(NC_ENOPAR)))
}

/// # Safety
/// As netCDF-C's `nc_open_par`.
#[no_mangle]
pub unsafe extern "C" fn nc_open_par(
    path: *const c_char,
    mode: c_int,
    comm: MpiHandle,
    info: MpiHandle,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, false => nc_open_par(path, mode, comm, info, ncidp));
    guard("nc_open_par", || Err(NcError::new(NC_ENOPAR)))
}

/// `nc_create_par` with Fortran's integer communicator and info.
///
/// # Safety
/// As netCDF-C's `nc_create_par_fortran`.
#[no_mangle]
pub unsafe extern "C" fn nc_create_par_fortran(
    path: *const c_char,
    cmode: c_int,
    comm: c_int,
    info: c_int,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, true => nc_create_par_fortran(path, cmode, comm, info, ncidp));
    guard("nc_create_par_fortran", || Err(NcError::new(NC_ENOPAR)))
}

/// `nc_open_par` with Fortran's integer communicator and info.
///
/// # Safety
/// As netCDF-C's `nc_open_par_fortran`.
#[no_mangle]
pub unsafe extern "C" fn nc_open_par_fortran(
    path: *const c_char,
    mode: c_int,
    comm: c_int,
    info: c_int,
    ncidp: *mut c_int,
) -> c_int {
    by_path!(path, false => nc_open_par_fortran(path, mode, comm, info, ncidp));
    guard("nc_open_par_fortran", || Err(NcError::new(NC_ENOPAR)))
}

/// `NC_INDEPENDENT`/`NC_COLLECTIVE` access: `NC_ENOPAR` without checking
/// the ncid, as netCDF-C built without parallel I/O.
#[no_mangle]
pub extern "C" fn nc_var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> c_int {
    by_ncid!(ncid => nc_var_par_access(ncid, varid, par_access));
    guard("nc_var_par_access", || Err(NcError::new(NC_ENOPAR)))
}
