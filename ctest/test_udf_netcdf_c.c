/* netCDF-C itself, routing a dataset to libnczarr_rs as a user-defined
 * format: built against Debian's netcdf.h and libnetcdf only, this program
 * loads libnczarr_rs with dlopen, registers its NC_Dispatch table as UDF0,
 * and then uses nothing but netCDF-C's API.
 *
 *   test_udf_netcdf_c /path/to/libnczarr_rs.so SCRATCH_DIR */
#define _XOPEN_SOURCE 700
#include <dlfcn.h>
#include <netcdf.h>
#include <netcdf_dispatch.h>
#include <netcdf_meta.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int failures = 0, checks = 0;
#define CHECK(c) do { checks++; if (!(c)) { failures++; fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define OK(call) do { int r_ = (call); checks++; if (r_) { failures++; fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(r_)); } } while (0)

int main(int argc, char **argv) {
    void *lib;
    NC_Dispatch *(*get_table)(void);
    NC_Dispatch *table;
    char path[4096], name[NC_MAX_NAME + 1], text[32] = {0}, zgroup[4200];
    int nc, x, y, d2[2], v, g, gv, ndims, nvars, natts, fmt, i, grps[4], ngrps;
    size_t len, start[2] = {1, 1}, count[2] = {2, 2};
    float data[12], back[12], block[4];
    nc_type t;
    struct stat st;
    if (argc != 3) { fprintf(stderr, "usage: %s LIBNCZARR_RS SCRATCH\n", argv[0]); return 2; }
    mkdir(argv[2], 0777);
    snprintf(path, sizeof path, "%s/udf.zarr", argv[2]);

    lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    if (!lib) { fprintf(stderr, "dlopen: %s\n", dlerror()); return 1; }
    *(void **)&get_table = dlsym(lib, "nczarr_rs_udf_dispatch");
    if (!get_table) { fprintf(stderr, "dlsym: %s\n", dlerror()); return 1; }
    table = get_table();
    CHECK(table != NULL && table->dispatch_version == NC_DISPATCH_VERSION);
    OK(nc_def_user_format(NC_UDF0, table, NULL));

    /* write through netCDF-C's API */
    for (i = 0; i < 12; i++) data[i] = (float)i * 1.5f;
    OK(nc_create(path, NC_UDF0 | NC_CLOBBER, &nc));
    OK(nc_put_att_text(nc, NC_GLOBAL, "title", 7, "via UDF"));
    OK(nc_def_dim(nc, "x", 3, &x));
    OK(nc_def_dim(nc, "y", 4, &y));
    d2[0] = x; d2[1] = y;
    OK(nc_def_var(nc, "v", NC_FLOAT, 2, d2, &v));
    OK(nc_def_var_deflate(nc, v, 1, 1, 4));
    OK(nc_put_att_text(nc, v, "units", 1, "m"));
    OK(nc_def_grp(nc, "sub", &g));
    OK(nc_def_var(g, "gv", NC_INT, 1, &x, &gv));
    OK(nc_enddef(nc));
    OK(nc_put_var_float(nc, v, data));
    {
        int gi[3] = {7, 8, 9};
        OK(nc_put_var_int(g, gv, gi));
    }
    OK(nc_close(nc));
    /* it is an NCZarr store on disk */
    snprintf(zgroup, sizeof zgroup, "%s/.zgroup", path);
    CHECK(stat(zgroup, &st) == 0);

    /* read back through netCDF-C */
    OK(nc_open(path, NC_UDF0, &nc));
    OK(nc_inq(nc, &ndims, &nvars, &natts, NULL));
    CHECK(ndims == 2 && nvars == 1 && natts == 1);
    OK(nc_inq_format(nc, &fmt));
    CHECK(fmt == NC_FORMAT_NETCDF4);
    OK(nc_get_att_text(nc, NC_GLOBAL, "title", text));
    CHECK(strcmp(text, "via UDF") == 0);
    OK(nc_inq_var(nc, 0, name, &t, &ndims, d2, &natts));
    CHECK(strcmp(name, "v") == 0 && t == NC_FLOAT && ndims == 2 && natts == 1);
    OK(nc_inq_dimids(nc, &ndims, d2, 0));
    CHECK(ndims == 2 && d2[0] == 0 && d2[1] == 1);
    OK(nc_inq_dim(nc, d2[1], name, &len));
    CHECK(strcmp(name, "y") == 0 && len == 4);
    OK(nc_get_var_float(nc, 0, back));
    CHECK(memcmp(data, back, sizeof data) == 0);
    OK(nc_get_vara_float(nc, 0, start, count, block));
    CHECK(block[0] == data[5] && block[3] == data[10]);
    {
        double dbl[12];
        ptrdiff_t stride[2] = {2, 3};
        size_t s0[2] = {0, 0}, c0[2] = {2, 2};
        OK(nc_get_vars_double(nc, 0, s0, c0, stride, dbl)); /* converted by us */
        CHECK(dbl[0] == 0.0 && dbl[1] == data[3] && dbl[2] == data[8]);
    }
    OK(nc_inq_grps(nc, &ngrps, grps));
    CHECK(ngrps == 1);
    OK(nc_inq_grpname(grps[0], name));
    CHECK(strcmp(name, "sub") == 0);
    {
        int gi[3] = {0, 0, 0}, nofill = -1;
        OK(nc_get_var_int(grps[0], 0, gi));
        CHECK(gi[0] == 7 && gi[2] == 9);
        OK(nc_inq_var_fill(nc, 0, &nofill, NULL));
        CHECK(nofill == 0);
    }
    {
        int shuffle = -1, deflate = -1, level = -1;
        OK(nc_inq_var_deflate(nc, 0, &shuffle, &deflate, &level)); /* via inq_var_filter_info */
        CHECK(shuffle == 1 && deflate == 1 && level == 4);
    }
    {
        nc_type ct;
        CHECK(nc_def_compound(nc, 8, "c", &ct) == NC_ENOTNC4);
    }
    OK(nc_close(nc));
    CHECK(nc_inq(nc, &ndims, NULL, NULL, NULL) == NC_EBADID);

#if NC_VERSION_MAJOR == 4 && NC_VERSION_MINOR == 9 && NC_VERSION_PATCH == 0
    /* 4.9.0 also routes a file:// URL with mode=udf0 (rewritten to
       mode=udf0,udf0) to the table; later versions probe magic bytes first. */
    {
        char url[4200], abs[4096];
        CHECK(realpath(path, abs) != NULL);
        snprintf(url, sizeof url, "file://%s#mode=udf0", abs);
        OK(nc_open(url, 0, &nc));
        OK(nc_get_var_float(nc, 0, back));
        CHECK(memcmp(data, back, sizeof data) == 0);
        OK(nc_close(nc));
    }
#endif

    /* two netCDF-C ncids for the same path are two datasets of ours: closing
       one leaves the other */
    {
        int nc2;
        OK(nc_open(path, NC_UDF0, &nc));
        OK(nc_open(path, NC_UDF0, &nc2));
        CHECK(nc != nc2);
        OK(nc_close(nc));
        OK(nc_get_var_float(nc2, 0, back));
        CHECK(memcmp(data, back, sizeof data) == 0);
        OK(nc_close(nc2));
        CHECK(nc_inq(nc2, &ndims, NULL, NULL, NULL) == NC_EBADID);
    }

    /* a store netCDF-C routed to us fails with NC_ENCZARR; the detail is in
       nczarr_rs_last_error */
    {
        const char *(*last_error)(void);
        char zarray[4200];
        FILE *f;
        *(void **)&last_error = dlsym(lib, "nczarr_rs_last_error");
        CHECK(last_error != NULL);
        snprintf(zarray, sizeof zarray, "%s/v/.zarray", path);
        f = fopen(zarray, "w");
        CHECK(f != NULL);
        if (f) { fputs("{\"zarr_format\": 2, ", f); fclose(f); }
        CHECK(nc_open(path, NC_UDF0, &nc) == NC_ENCZARR);
        if (last_error) {
            const char *e = last_error();
            CHECK(strncmp(e, "nczarr_rs_udf_open: /v/.zarray: bad JSON", 40) == 0);
            printf("nczarr_rs_last_error: %s\n", e);
        }
    }
    printf("test_udf_netcdf_c: %d checks, %d failed\n", checks, failures);
    return failures != 0;
}
