/*
 * netcdf_filter.h: netCDF-C's filter and plugin-path API as provided by
 * libnczarr_rs. Same names, values, types and prototypes as netCDF-C's
 * header of the same name (4.10), and the same include guard, so the two
 * can meet in one program. It includes <netcdf.h> itself.
 *
 * Filters built into libnczarr_rs: deflate (1), shuffle (2), Zstandard
 * (32015) and Blosc (32001). Others (szip, bzip2, Fletcher-32 on) answer
 * NC_ENOFILTER, as netCDF-C without their plugins. The plugin path is kept
 * and reported; no plugin is ever loaded.
 */
#ifndef NETCDF_FILTER_H
#define NETCDF_FILTER_H 1

#include "netcdf.h"

/* The filter ids (H5Z_FILTER_*), szip masks (H5_SZIP_*, NC_SZIP_*,
 * NC_MAX_PIXELS_PER_BLOCK) and Blosc codes (BLOSC_*) of netCDF-C's
 * netcdf_filter.h come with <netcdf.h> here, with the same values (Blosc's
 * as macros, as in c-blosc's <blosc.h>, where netCDF-C has enums). */

/* A list of plugin directories. */
typedef struct NCPluginList {
    size_t ndirs;
    char** dirs;
} NCPluginList;

#if defined(__cplusplus)
extern "C" {
#endif

EXTERNL int nc_def_var_filter(int ncid, int varid, unsigned int id, size_t nparams, const unsigned int* params);
EXTERNL int nc_inq_var_filter(int ncid, int varid, unsigned int* idp, size_t* nparams, unsigned int* params);
EXTERNL int nc_inq_var_filter_ids(int ncid, int varid, size_t* nfilters, unsigned int* filterids);
EXTERNL int nc_inq_var_filter_info(int ncid, int varid, unsigned int id, size_t* nparams, unsigned int* params);
EXTERNL int nc_inq_filter_avail(int ncid, unsigned id);

EXTERNL int nc_def_var_bzip2(int ncid, int varid, int level);
EXTERNL int nc_inq_var_bzip2(int ncid, int varid, int* hasfilterp, int *levelp);
EXTERNL int nc_def_var_zstandard(int ncid, int varid, int level);
EXTERNL int nc_inq_var_zstandard(int ncid, int varid, int* hasfilterp, int *levelp);
EXTERNL int nc_def_var_blosc(int ncid, int varid, unsigned subcompressor, unsigned level, unsigned blocksize, unsigned addshuffle);
EXTERNL int nc_inq_var_blosc(int ncid, int varid, int* hasfilterp, unsigned* subcompressorp, unsigned* levelp, unsigned* blocksizep, unsigned* addshufflep);

/* Declared by netCDF-C, defined by none of its releases: NC_ENOTBUILT. */
EXTERNL int nc_filter_path_query(int id);

EXTERNL int nc_plugin_path_ndirs(size_t* ndirsp);
EXTERNL int nc_plugin_path_get(NCPluginList* dirs);
EXTERNL int nc_plugin_path_set(NCPluginList* dirs);

#if defined(__cplusplus)
}
#endif

#endif /* NETCDF_FILTER_H */
