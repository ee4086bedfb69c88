/* append: opens a dataset of the matrix for writing (NC_WRITE), appends one
 * record (7,8,9) to the variable "v" along its unlimited dimension, adds the
 * global attribute appended = "yes", and closes. Built against each
 * library, so that each one updates a dataset the other wrote
 * (tests/interop/matrix.py).
 *
 *   append URL */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>

#define E(x) do { int r_ = (x); if (r_) { fprintf(stderr, "append: %s: %s\n", #x, nc_strerror(r_)); return 1; } } while (0)

int main(int argc, char **argv) {
    int nc, v, dims[2], ndims;
    size_t t, start[2], count[2] = {1, 3};
    int rec[3] = {7, 8, 9};
    if (argc != 2) { fprintf(stderr, "usage: append URL\n"); return 2; }
    E(nc_open(argv[1], NC_WRITE, &nc));
    E(nc_inq_varid(nc, "v", &v));
    E(nc_inq_varndims(nc, v, &ndims));
    if (ndims != 2) { fprintf(stderr, "append: v has %d dimensions, not 2\n", ndims); return 1; }
    E(nc_inq_vardimid(nc, v, dims));
    E(nc_inq_dimlen(nc, dims[0], &t));
    start[0] = t; start[1] = 0;
    E(nc_put_vara_int(nc, v, start, count, rec));
    E(nc_put_att_text(nc, NC_GLOBAL, "appended", 3, "yes"));
    E(nc_close(nc));
    return 0;
}
