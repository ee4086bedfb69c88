/*
 * netcdf_par.h: netCDF-C's parallel I/O API as provided by libnczarr_rs
 * (same declarations and include guard as netCDF-C's). Like netCDF-C's, it
 * needs MPI's <mpi.h>; it includes <netcdf.h> itself.
 *
 * libnczarr_rs is built without parallel I/O (NC_HAS_PARALLEL is 0 in
 * <netcdf_meta.h>): for its own datasets every function here returns
 * NC_ENOPAR, as a netCDF-C built without it does. Paths and ncids that are
 * netCDF-C's go to the process's libnetcdf.
 */
#ifndef NETCDF_PAR_H
#define NETCDF_PAR_H 1

#include <mpi.h>
#include "netcdf.h"

#define NC_INDEPENDENT 0
#define NC_COLLECTIVE 1

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_create_par(const char *path, int cmode, MPI_Comm comm, MPI_Info info, int *ncidp);
EXTERNL int nc_open_par(const char *path, int mode, MPI_Comm comm, MPI_Info info, int *ncidp);
EXTERNL int nc_var_par_access(int ncid, int varid, int par_access);
EXTERNL int nc_create_par_fortran(const char *path, int cmode, int comm, int info, int *ncidp);
EXTERNL int nc_open_par_fortran(const char *path, int mode, int comm, int info, int *ncidp);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_PAR_H */
