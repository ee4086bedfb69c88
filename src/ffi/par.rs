//! netCDF-C's parallel I/O API (`netcdf_par.h`). A path or ncid that is not
//! ours goes to the real libnetcdf (which may be a parallel build).
//!
//! The default build has no MPI, like a netCDF-C configured without
//! parallel I/O: every function answers `NC_ENOPAR` for what is ours. The
//! MPI build (cargo feature `mpi`, docs/PARALLEL.md) opens and creates
//! datasets with `engine::parallel` over a duplicate of the caller's
//! communicator ([`super::mpi::MpiComm`]); `NC_MPIIO` (also spelled
//! `NC_MPIPOSIX` and `NC_PNETCDF`) is accepted and ignored, and the
//! `MPI_Info` hints are ignored (they tune MPI-IO, which Zarr stores do not
//! use).
//!
//! `MPI_Comm` and `MPI_Info` are an `int` (MPICH, MS-MPI) or a pointer
//! (Open MPI); both travel in one integer register of the C calling
//! conventions this library is built for, so a pointer-sized integer
//! carries either unchanged to the real library, or to the MPI shim, which
//! casts it back to `MPI_Comm`. `nc_create_par` and `nc_open_par` are
//! declared in `netcdf_par.h` (which includes `<mpi.h>`), and in
//! `nczarr_rs.h` only when `<mpi.h>` came first.

use super::boundary::guard;
use super::interpose::{by_ncid, by_path};
use crate::engine::error::NC_ENOPAR;
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_int};

/// An `MPI_Comm` or `MPI_Info` handle, passed on untouched.
pub type MpiHandle = usize;

/// The communicator of a call: C's `MPI_Comm` or Fortran's integer.
#[derive(Clone, Copy)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
enum Comm {
    C(MpiHandle),
    Fortran(c_int),
}

/// `nc_create_par` (`create`) or `nc_open_par`: the dataset enters the
/// table as `nc_create`'s and `nc_open`'s do.
#[cfg(feature = "mpi")]
unsafe fn par_dataset(path: *const c_char, mode: c_int, comm: Comm, ncidp: *mut c_int, create: bool) -> NcResult<()> {
    use super::args::{c_str, out};
    use super::mpi::MpiComm;
    use super::nc::{add_file, make_ncid};
    use crate::engine::consts::NC_MPIIO;
    use crate::engine::parallel::{self, Communicator};
    let path = c_str(path)?;
    let comm: std::sync::Arc<dyn Communicator> = std::sync::Arc::new(match comm {
        Comm::C(h) => MpiComm::dup(h as isize)?,
        Comm::Fortran(f) => MpiComm::dup_fortran(f)?,
    });
    super::external::install();
    let mode = mode & !NC_MPIIO;
    let ds = if create { parallel::create(path, mode, comm)? } else { parallel::open(path, mode, comm)? };
    let id = add_file(ds)?;
    out(ncidp, make_ncid(id, 0));
    Ok(())
}

/// Without MPI: `NC_ENOPAR`, whatever the arguments.
#[cfg(not(feature = "mpi"))]
unsafe fn par_dataset(_: *const c_char, _: c_int, _: Comm, _: *mut c_int, _: bool) -> NcResult<()> {
    Err(NcError::new(NC_ENOPAR))
}

/// `nc_var_par_access`: the mode is checked first, then the ncid, then
/// that the dataset was opened in parallel, as netCDF-C does.
#[cfg(feature = "mpi")]
fn var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> NcResult<()> {
    use crate::engine::consts::{NC_COLLECTIVE, NC_INDEPENDENT};
    use crate::engine::error::NC_EINVAL;
    let collective = match par_access {
        NC_INDEPENDENT => false,
        NC_COLLECTIVE => true,
        _ => return Err(NcError::with(NC_EINVAL, format!("par_access {par_access}: NC_INDEPENDENT or NC_COLLECTIVE"))),
    };
    super::nc::write(ncid, |ds, gid| {
        if !ds.is_parallel() {
            return Err(NcError::with(NC_ENOPAR, "the dataset was not opened with nc_create_par/nc_open_par"));
        }
        ds.var_par_access(gid, varid, collective)
    })
}

/// Without MPI: `NC_ENOPAR` without checking the ncid, as netCDF-C built
/// without parallel I/O.
#[cfg(not(feature = "mpi"))]
fn var_par_access(_: c_int, _: c_int, _: c_int) -> NcResult<()> {
    Err(NcError::new(NC_ENOPAR))
}

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
    guard("nc_create_par", || par_dataset(path, cmode, Comm::C(comm), ncidp, true))
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
    guard("nc_open_par", || par_dataset(path, mode, Comm::C(comm), ncidp, false))
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
    guard("nc_create_par_fortran", || par_dataset(path, cmode, Comm::Fortran(comm), ncidp, true))
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
    guard("nc_open_par_fortran", || par_dataset(path, mode, Comm::Fortran(comm), ncidp, false))
}

/// `NC_INDEPENDENT`/`NC_COLLECTIVE` access to a variable (`NC_ENOPAR`
/// without MPI).
#[no_mangle]
pub extern "C" fn nc_var_par_access(ncid: c_int, varid: c_int, par_access: c_int) -> c_int {
    by_ncid!(ncid => nc_var_par_access(ncid, varid, par_access));
    guard("nc_var_par_access", || var_par_access(ncid, varid, par_access))
}
