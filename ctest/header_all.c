/* Every public header of netCDF-C that libnczarr_rs ships compiles
 * together, in either order (HEADER_ORDER_REVERSE), as strict C99 and as
 * C++ (header_all.cpp includes this file), and the values a program would
 * use agree. With NETCDF_C_HEADERS (the directory of Debian's headers),
 * netCDF-C's own netcdf_filter.h, netcdf_mem.h and netcdf_meta.h follow
 * ours, as in a program that finds both include directories. */
#ifndef HEADER_ORDER_REVERSE
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>
#include <netcdf_par.h>
#include <netcdf_meta.h>
#else
#include <netcdf_meta.h>
#include <netcdf_par.h>
#include <netcdf_mem.h>
#include <netcdf_filter.h>
#include <netcdf.h>
#endif
#ifdef NETCDF_C_HEADERS
#define NCZ_STR2(x) #x
#define NCZ_STR(x) NCZ_STR2(x)
#include NCZ_STR(NETCDF_C_HEADERS/netcdf_filter.h)
#include NCZ_STR(NETCDF_C_HEADERS/netcdf_mem.h)
#include NCZ_STR(NETCDF_C_HEADERS/netcdf_meta.h)
#endif
#include <stdio.h>
#include <string.h>

/* netcdf_meta.h describes the installed build: the MPI build, or not (the
 * package config's NCZARR_RS_HAS_MPI, defined by CMakeLists.txt) */
#if NC_HAS_PARALLEL != NCZARR_RS_HAS_MPI || NC_HAS_PARALLEL4 != NCZARR_RS_HAS_MPI || \
    NC_HAS_PAR_FILTERS != NCZARR_RS_HAS_MPI
#error "netcdf_meta.h's NC_HAS_PARALLEL* do not describe the installed build"
#endif

#define CHECK(c) do { if (!(c)) { printf("header_all: %s failed\n", #c); return 1; } } while (0)

int main(void) {
    NC_memio memio;
    NCPluginList dirs;
    size_t n = 99;
    int (*open_par)(const char *, int, MPI_Comm, MPI_Info, int *) = nc_open_par;
    int (*filter_ids)(int, int, size_t *, unsigned int *) = nc_inq_var_filter_ids;
    void (*advise)(const char *, int, const char *, ...) = nc_advise;
    memset(&memio, 0, sizeof memio);
    memset(&dirs, 0, sizeof dirs);
    CHECK(BLOSC_LZ4 == 1 && BLOSC_ZSTD == 5 && BLOSC_BITSHUFFLE == 2);
    CHECK(H5Z_FILTER_ZSTD == 32015 && H5Z_FILTER_BZIP2 == 307 && H5Z_FILTER_SZIP == 4);
    CHECK(H5_SZIP_ALL_MASKS == 38 && NC_MAX_PIXELS_PER_BLOCK == 32);
    CHECK(NC_MEMIO_LOCKED == 1 && NC_INDEPENDENT == 0 && NC_COLLECTIVE == 1);
    CHECK(NC_HAS_NCZARR == 1 && NC_DISPATCH_VERSION == 5);
    CHECK(open_par != NULL && filter_ids != NULL && advise != NULL);
    /* library-wide calls work without a dataset */
    CHECK(nc_get_meta_block_size(&n) == NC_NOERR);
    CHECK(nc_plugin_path_ndirs(&n) == NC_NOERR);
#if NC_HAS_PARALLEL
    /* the MPI build, MPI not initialised: the handles are not looked at */
    CHECK(nc_open_par("x.nc", 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL) == NC_EMPI);
    CHECK(nc_var_par_access(0, 0, NC_COLLECTIVE) == NC_EBADID);
#else
    CHECK(nc_open_par("x.nc", 0, MPI_COMM_WORLD, MPI_INFO_NULL, NULL) == NC_ENOPAR);
    CHECK(nc_var_par_access(0, 0, NC_COLLECTIVE) == NC_ENOPAR);
#endif
    printf("header_all: ok\n");
    return 0;
}
