/* Force-included (cc -include) into netCDF-C's parallel tests when they are
 * built against libnczarr_rs (tests/netcdf_c_par/run.sh): the file names the
 * tests pass to nc_create/nc_open/nc_create_par/nc_open_par and remove()
 * ("tst_parallel.nc", TEMP_LARGE "/tst_parallel3.nc", names made with
 * snprintf at run time) become NCZarr store URLs, without editing the tests.
 * The headers come first, so that the macros below do not touch their
 * prototypes (a function-like macro does not expand inside itself, so each
 * macro calls the real function). */
#ifndef NCZARR_MAP_H
#define NCZARR_MAP_H
#include <stdio.h>
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>

/* path -> $NCZARR_PAR_PREFIX + basename(path) + ".zarr" + $NCZARR_PAR_SUFFIX
 * (a path that is already a URL is left alone) */
const char* nczarr_map_url(const char* path);
/* remove(): the store's directory tree, for a file:// prefix */
int nczarr_map_remove(const char* path);

#define nc_create(path, cmode, ncidp) nc_create(nczarr_map_url(path), cmode, ncidp)
#define nc_open(path, mode, ncidp) nc_open(nczarr_map_url(path), mode, ncidp)
#define nc_create_par(path, ...) nc_create_par(nczarr_map_url(path), __VA_ARGS__)
#define nc_open_par(path, ...) nc_open_par(nczarr_map_url(path), __VA_ARGS__)
#define remove(path) nczarr_map_remove(path)
#endif
