/*
 * netcdf_mem.h: netCDF-C's in-memory dataset API as provided by
 * libnczarr_rs (same declarations and include guard as netCDF-C's). It
 * includes <netcdf.h> itself.
 *
 * libnczarr_rs's memory images are zip stores: nc_open_mem/nc_open_memio
 * open an image that starts with "PK\x03\x04"; other images (netCDF-3,
 * HDF5) go to netCDF-C's libnetcdf when the process has one, else they are
 * NC_ENOTBUILT/NC_ENOTNC. nc_create_mem on a Zarr path makes a zip store,
 * whose archive nc_close_memio returns (malloc'ed).
 */
#ifndef NETCDF_MEM_H
#define NETCDF_MEM_H 1

#include "netcdf.h"

typedef struct NC_memio {
    size_t size;
    void* memory;
    int flags;
#define NC_MEMIO_LOCKED 1    /* the library never reallocates or frees the memory */
} NC_memio;

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_open_mem(const char* path, int mode, size_t size, void* memory, int* ncidp);
EXTERNL int nc_create_mem(const char* path, int mode, size_t initialsize, int* ncidp);
EXTERNL int nc_open_memio(const char* path, int mode, NC_memio* info, int* ncidp);
EXTERNL int nc_close_memio(int ncid, NC_memio* info);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_MEM_H */
