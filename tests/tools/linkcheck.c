/* One netCDF program for every link pattern of docs/TOOLS.md: it reads a .nc
 * file, then creates, writes and reads back a Zarr store, and prints what it
 * saw. tests/tools/run.sh builds it against Debian's libnetcdf alone, against
 * ours and libnetcdf in both orders, and against ours alone (with
 * NCZARR_RS_LIBNETCDF), and expects the same output from each.
 *
 * Usage: linkcheck DIR FILE.nc STORE-URL */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>

#define CHECK(call)                                                                   \
    do {                                                                              \
        int rc_ = (call);                                                             \
        if (rc_ != NC_NOERR) {                                                        \
            fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #call, nc_strerror(rc_)); \
            exit(1);                                                                  \
        }                                                                             \
    } while (0)

int main(int argc, char **argv) {
    if (argc != 4) {
        fprintf(stderr, "usage: linkcheck DIR FILE.nc STORE-URL\n");
        return 2;
    }
    int ncid, varid, ndims, nvars, format;
    float temp[24];
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", argv[1], argv[2]);
    CHECK(nc_open(path, NC_NOWRITE, &ncid));
    CHECK(nc_inq(ncid, &ndims, &nvars, NULL, NULL));
    CHECK(nc_inq_format(ncid, &format));
    CHECK(nc_inq_varid(ncid, "temp", &varid));
    CHECK(nc_get_var_float(ncid, varid, temp));
    printf("%s: format %d, %d dims, %d vars, temp[0]=%g temp[23]=%g\n", argv[2], format, ndims, nvars, temp[0], temp[23]);

    int out, dims[2], v;
    double data[6] = {1.5, 2.5, 3.5, 4.5, 5.5, 6.5}, back[6];
    CHECK(nc_create(argv[3], NC_CLOBBER | NC_NETCDF4, &out));
    CHECK(nc_def_dim(out, "y", 2, &dims[0]));
    CHECK(nc_def_dim(out, "x", 3, &dims[1]));
    CHECK(nc_def_var(out, "d", NC_DOUBLE, 2, dims, &v));
    CHECK(nc_put_att_text(out, v, "units", 1, "m"));
    /* nc_copy_var from the .nc file (netCDF-C's) into the store (ours under
     * preload): definition, attributes and data cross the two libraries. */
    int tdims[3];
    CHECK(nc_def_dim(out, "time", 2, &tdims[0]));
    CHECK(nc_def_dim(out, "lat", 3, &tdims[1]));
    CHECK(nc_def_dim(out, "lon", 4, &tdims[2]));
    CHECK(nc_enddef(out));
    CHECK(nc_copy_var(ncid, varid, out));
    CHECK(nc_put_var_double(out, v, data));
    CHECK(nc_close(out));
    CHECK(nc_open(argv[3], NC_NOWRITE, &out));
    CHECK(nc_inq_varid(out, "d", &v));
    CHECK(nc_get_var_double(out, v, back));
    CHECK(nc_inq_format(out, &format));
    printf("store: format %d, d = %g %g %g %g %g %g\n", format, back[0], back[1], back[2], back[3], back[4], back[5]);
    float copied[24];
    char units[8] = "";
    CHECK(nc_inq_varid(out, "temp", &v));
    CHECK(nc_get_var_float(out, v, copied));
    CHECK(nc_get_att_text(out, v, "units", units));
    printf("copied temp: [0]=%g [6]=%g [23]=%g units=%s\n", copied[0], copied[6], copied[23], units);
    CHECK(nc_close(out));
    CHECK(nc_close(ncid));
    return 0;
}
