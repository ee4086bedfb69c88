/* netCDF-C's NULL-argument conventions (docs/NULL_ARGS.md): every optional
 * output accepts NULL, and the few input pointers netCDF-C accepts as NULL
 * do too; required pointers are NC_EINVAL. Each row is one call; its
 * expected status is the table's.
 *
 * Built twice: against libnczarr_rs (CTest), and with -DNETCDF_C against
 * netCDF-C's libnetcdf (Debian's 4.9.0), on an NCZarr store written by the
 * library under test, so the two results can be compared. Rows marked
 * OURS hold only for libnczarr_rs (filters that Debian's NCZarr cannot
 * store, 4.10 functions that 4.9.0 lacks). Prints one line per row. */
#include <netcdf.h>
#include <netcdf_filter.h>
#include <netcdf_mem.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures = 0, rows = 0;

static void row(const char *call, int rc, int want) {
    rows++;
    if (rc != want) failures++;
    printf("%-4s %-72s %4d %s\n", rc == want ? "ok" : "FAIL", call, rc, rc == want ? "" : "(unexpected)");
}
#define T(want, call) row(#call, (call), (want))
#ifdef NETCDF_C
#define OURS(want, call) ((void)0)
#else
#define OURS(want, call) T(want, call)
#endif

int main(int argc, char **argv) {
    char dir[2048], url[4200];
    int ncid, grp, d0, d1, v, vc, id, n;
    int dims[2];
    size_t chunks[2] = {2, 3};
    nc_type t;
    size_t len;
    char name[NC_MAX_NAME + 1];
    int ival = 7;
    const char *dirarg = argc > 1 ? argv[1] : "/tmp/nczarr_test_null_args";

    snprintf(dir, sizeof dir, "%s", dirarg);
    mkdir(dir, 0777);
    snprintf(url, sizeof url, "file://%s/null.zarr#mode=nczarr,file", dir);

    /* required pointers */
    T(NC_NOERR, nc_create(url, NC_CLOBBER | NC_NETCDF4, NULL)); /* ncidp optional (the dataset stays open, unreachable) */
    if (nc_create(url, NC_CLOBBER | NC_NETCDF4, &ncid)) { printf("cannot create %s\n", url); return 2; }
    T(NC_NOERR, nc_def_dim(ncid, "x", 4, NULL));                 /* idp optional */
    T(NC_NOERR, nc_def_dim(ncid, "t", 3, &d1));
    T(NC_NOERR, nc_inq_dimid(ncid, "x", &d0));
    dims[0] = d1; dims[1] = d0;
    T(NC_NOERR, nc_def_var(ncid, "s", NC_INT, 0, NULL, NULL));  /* scalar: dimids and varidp NULL */
    T(NC_NOERR, nc_def_var(ncid, "v", NC_INT, 2, dims, &v));
    T(NC_NOERR, nc_def_var(ncid, "c", NC_FLOAT, 1, &d0, &vc));
    T(NC_NOERR, nc_def_var_chunking(ncid, v, NC_CHUNKED, chunks));
    T(NC_NOERR, nc_def_var_chunking(ncid, vc, NC_CONTIGUOUS, NULL)); /* chunksizes unused */
    T(NC_NOERR, nc_def_var_fill(ncid, vc, NC_FILL, NULL));       /* default fill value */
    T(NC_NOERR, nc_put_att_int(ncid, NC_GLOBAL, "g", NC_INT, 1, &ival));
    T(NC_NOERR, nc_put_att_int(ncid, v, "a", NC_INT, 1, &ival));
    T(NC_NOERR, nc_put_att_int(ncid, NC_GLOBAL, "empty", NC_INT, 0, NULL)); /* len 0: data unused */
    T(NC_EINVAL, nc_put_att_int(ncid, NC_GLOBAL, "bad", NC_INT, 1, NULL));
    T(NC_NOERR, nc_def_grp(ncid, "g1", NULL));                   /* new_ncid optional */
    T(NC_NOERR, nc_inq_ncid(ncid, "g1", &grp));
    OURS(NC_NOERR, nc_def_var_deflate(ncid, v, 1, 1, 1));
    T(NC_NOERR, nc_set_fill(ncid, NC_FILL, NULL));               /* old_modep optional */
    T(NC_NOERR, nc_enddef(ncid));

    /* file and group inquiries: every output optional */
    T(NC_NOERR, nc_inq(ncid, NULL, NULL, NULL, NULL));
    T(NC_NOERR, nc_inq_ndims(ncid, NULL));
    T(NC_NOERR, nc_inq_nvars(ncid, NULL));
    T(NC_NOERR, nc_inq_natts(ncid, NULL));
    T(NC_NOERR, nc_inq_unlimdim(ncid, NULL));
    T(NC_NOERR, nc_inq_unlimdims(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_format(ncid, NULL));
    T(NC_NOERR, nc_inq_format_extended(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_path(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_ncid(ncid, "g1", NULL));
    T(NC_NOERR, nc_inq_ncid(ncid, NULL, &id));                   /* name NULL: the root group */
    T(NC_NOERR, nc_inq_grp_ncid(ncid, "g1", NULL));
    T(NC_NOERR, nc_inq_grps(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_grpname(grp, NULL));
    T(NC_NOERR, nc_inq_grpname_full(grp, NULL, NULL));
    T(NC_NOERR, nc_inq_grpname_len(grp, NULL));
    T(NC_NOERR, nc_inq_grp_parent(grp, NULL));
    T(NC_NOERR, nc_inq_grp_full_ncid(ncid, "/g1", NULL));
    T(NC_NOERR, nc_inq_typeids(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_type(ncid, NC_INT, NULL, NULL));
    T(NC_NOERR, nc_inq_typeid(ncid, "int", NULL));
    T(NC_NOERR, nc_inq_type_equal(ncid, NC_INT, ncid, NC_INT, NULL));

    /* dimensions */
    T(NC_NOERR, nc_inq_dimid(ncid, "x", NULL));
    T(NC_EINVAL, nc_inq_dimid(ncid, NULL, &id));
    T(NC_NOERR, nc_inq_dim(ncid, d0, NULL, NULL));
    T(NC_NOERR, nc_inq_dimname(ncid, d0, NULL));
    T(NC_NOERR, nc_inq_dimlen(ncid, d0, NULL));
    T(NC_NOERR, nc_inq_dimids(ncid, NULL, NULL, 1));

    /* variables */
    T(NC_NOERR, nc_inq_varid(ncid, "v", NULL));
    T(NC_EINVAL, nc_inq_varid(ncid, NULL, &id));
    T(NC_NOERR, nc_inq_varids(ncid, NULL, NULL));
    T(NC_NOERR, nc_inq_var(ncid, v, NULL, NULL, NULL, NULL, NULL));
    T(NC_NOERR, nc_inq_varname(ncid, v, NULL));
    T(NC_NOERR, nc_inq_vartype(ncid, v, NULL));
    T(NC_NOERR, nc_inq_varndims(ncid, v, NULL));
    T(NC_NOERR, nc_inq_vardimid(ncid, v, NULL));
    T(NC_NOERR, nc_inq_varnatts(ncid, v, NULL));
    T(NC_NOERR, nc_inq_varnatts(ncid, NC_GLOBAL, NULL));
    T(NC_NOERR, nc_inq_var_chunking(ncid, v, NULL, NULL));
    T(NC_NOERR, nc_inq_var_fill(ncid, v, NULL, NULL));
    T(NC_NOERR, nc_inq_var_endian(ncid, v, NULL));
    T(NC_NOERR, nc_inq_var_fletcher32(ncid, v, NULL));
    T(NC_NOERR, nc_inq_var_deflate(ncid, v, NULL, NULL, NULL));
    T(NC_NOERR, nc_inq_var_szip(ncid, vc, NULL, NULL));
    T(NC_NOERR, nc_inq_var_filter(ncid, v, NULL, NULL, NULL));
    T(NC_NOERR, nc_inq_var_filter_ids(ncid, v, NULL, NULL));
    OURS(NC_NOERR, nc_inq_var_filter_info(ncid, v, H5Z_FILTER_DEFLATE, NULL, NULL));
    T(NC_ENOFILTER, nc_inq_var_filter_info(ncid, vc, H5Z_FILTER_DEFLATE, NULL, NULL));
    OURS(NC_NOERR, nc_inq_var_zstandard(ncid, v, NULL, NULL));
    OURS(NC_NOERR, nc_inq_var_blosc(ncid, v, NULL, NULL, NULL, NULL, NULL));
    OURS(NC_NOERR, nc_inq_var_bzip2(ncid, v, NULL, NULL));
    T(NC_NOERR, nc_inq_var_quantize(ncid, vc, NULL, NULL));
    T(NC_NOERR, nc_get_var_chunk_cache(ncid, v, NULL, NULL, NULL));

    /* attributes */
    T(NC_NOERR, nc_inq_att(ncid, v, "a", NULL, NULL));
    T(NC_NOERR, nc_inq_atttype(ncid, v, "a", NULL));
    T(NC_NOERR, nc_inq_attlen(ncid, v, "a", NULL));
    T(NC_NOERR, nc_inq_attid(ncid, v, "a", NULL));
    T(NC_NOERR, nc_inq_attname(ncid, v, 0, NULL));
    T(NC_NOERR, nc_inq_att(ncid, NC_GLOBAL, "g", NULL, NULL));
    T(NC_NOERR, nc_get_att_int(ncid, NC_GLOBAL, "empty", NULL)); /* nothing to copy */

    /* library-wide */
    T(NC_NOERR, nc_get_chunk_cache(NULL, NULL, NULL));
    T(NC_NOERR, nc_set_default_format(NC_FORMAT_NETCDF4, NULL));
    T(NC_NOERR, nc_get_alignment(NULL, NULL));
    OURS(NC_NOERR, nc_get_meta_block_size(NULL));
    OURS(NC_NOERR, nc_plugin_path_ndirs(NULL));
    OURS(NC_NOERR, nc_plugin_path_get(NULL));
    OURS(NC_EINVAL, nc_plugin_path_set(NULL));
    OURS(NC_EINVAL, nc_rc_set(NULL, "v"));

    /* values are still right after all that */
    T(NC_NOERR, nc_inq(ncid, &n, NULL, NULL, NULL));
    T(NC_NOERR, nc_inq_att(ncid, v, "a", &t, &len));
    T(NC_NOERR, nc_inq_dimname(ncid, d0, name));
    printf("ndims %d, att type %d len %d, dim %s\n", n, (int)t, (int)len, name);
    if (n != 2 || t != NC_INT || len != 1 || strcmp(name, "x") != 0) failures++;

    T(NC_NOERR, nc_close(ncid));
    /* ncidp optional, as nc_create (Debian 4.9.0 crashes reading this store back: its NCZarr reader) */
    OURS(NC_NOERR, nc_open(url, NC_NOWRITE, NULL));
    T(NC_EINVAL, nc_open_mem("m.nc", 0, 0, NULL, &id));
    T(NC_EINVAL, nc_open_memio("m.nc", 0, NULL, &id));
    printf("test_null_args: %d rows, %d failed\n", rows, failures);
    return failures != 0;
}
