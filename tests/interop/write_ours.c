/* write_ours: writes the harness's datasets through nczarr-rs's netCDF API.
 *
 *   write_ours DIR
 *
 * DIR/ours_full.zarr      every atomic type, groups, scalar, char/string vars
 * DIR/ours_portable.zarr  what netCDF-C 4.9.0 can read (no scalar, no char var)
 * DIR/ours_oldkeys.zarr   the portable content in netCDF-C 4.9.2's layout (mode=oldkeys)
 * DIR/ours_zarr.zarr      the portable content in pure Zarr (mode=zarr)
 * DIR/ours_zip.zip        the portable content in a zip archive (mode=zip)
 *
 *   write_ours DIR KIND MODE
 *
 * writes one dataset of the writer x reader matrix (tests/interop/matrix.py)
 * to DIR with fragment #mode=MODE: KIND is fixed, unlimited, scalar, string
 * or grouped; every dataset has a title attribute. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define E(x) do { int r_ = (x); if (r_) { fprintf(stderr, "write_ours: %s:%d %s: %s\n", \
    __FILE__, __LINE__, #x, nc_strerror(r_)); exit(1); } } while (0)

static void common(int nc, int full) {
    int x, y, z, d2[2], v, g, s, i, sub;
    int ints[3] = {1, -2, 3};
    short sh = -7;
    float f = 0.1f;
    double pi = 3.14159265358979323846;
    unsigned long long u64 = 18446744073709551615ULL;
    long long i64 = -9007199254740993LL;
    int fill = -99;
    float ffill = -1.5f;
    E(nc_put_att_text(nc, NC_GLOBAL, "title", 21, "written by nczarr-rs"));
    E(nc_put_att_int(nc, NC_GLOBAL, "ints", NC_INT, 3, ints));
    E(nc_put_att_short(nc, NC_GLOBAL, "short", NC_SHORT, 1, &sh));
    E(nc_put_att_float(nc, NC_GLOBAL, "f", NC_FLOAT, 1, &f));
    E(nc_put_att_double(nc, NC_GLOBAL, "pi", NC_DOUBLE, 1, &pi));
    E(nc_put_att_ulonglong(nc, NC_GLOBAL, "u64", NC_UINT64, 1, &u64));
    E(nc_put_att_longlong(nc, NC_GLOBAL, "i64", NC_INT64, 1, &i64));
    E(nc_def_dim(nc, "x", 4, &x));
    E(nc_def_dim(nc, "y", 3, &y));
    d2[0] = x; d2[1] = y;
    E(nc_def_var(nc, "v", NC_INT, 2, d2, &v));
    E(nc_def_var_fill(nc, v, 0, &fill));
    E(nc_put_att_text(nc, v, "units", 1, "m"));
    E(nc_def_var(nc, "temp", NC_FLOAT, 2, d2, &v));
    E(nc_def_var_fill(nc, v, 0, &ffill));
    E(nc_put_att_text(nc, v, "long_name", 11, "temperature"));
    E(nc_def_var(nc, "d", NC_DOUBLE, 1, &y, &v));
    E(nc_def_var(nc, "b", NC_BYTE, 1, &x, &v));
    E(nc_def_var(nc, "ub", NC_UBYTE, 1, &x, &v));
    E(nc_def_var(nc, "us", NC_USHORT, 2, d2, &v));
    E(nc_def_var(nc, "ui", NC_UINT, 1, &x, &v));
    E(nc_def_var(nc, "i8", NC_INT64, 1, &x, &v));
    E(nc_def_var(nc, "u8", NC_UINT64, 1, &x, &v));
    E(nc_def_var(nc, "nofill", NC_INT, 1, &x, &v));
    E(nc_def_var_fill(nc, v, 1, NULL));
    E(nc_def_var(nc, "chunked", NC_DOUBLE, 2, d2, &v));
    {
        size_t ch[2] = {2, 2};
        E(nc_def_var_chunking(nc, v, NC_CHUNKED, ch));
    }
    E(nc_def_grp(nc, "g", &g));
    E(nc_put_att_text(g, NC_GLOBAL, "comment", 15, "group attribute"));
    E(nc_def_dim(g, "z", 5, &z));
    d2[0] = z; d2[1] = x;
    E(nc_def_var(g, "s", NC_SHORT, 2, d2, &s));
    E(nc_put_att_text(g, s, "long_name", 10, "in a group"));
    E(nc_def_grp(g, "deeper", &sub));
    E(nc_def_var(sub, "w", NC_FLOAT, 1, &z, &i));
    if (full) {
        const char *tags[2] = {"alpha", "beta"};
        E(nc_put_att_string(nc, NC_GLOBAL, "tags", 2, tags));
        E(nc_def_var(nc, "scalar", NC_DOUBLE, 0, NULL, &v));
        E(nc_put_att_text(nc, v, "units", 1, "s"));
        E(nc_def_var(nc, "c", NC_CHAR, 1, &y, &v));
        E(nc_def_var(nc, "str", NC_STRING, 1, &x, &v));
        {   /* a string variable with a fill value and a chunk never written */
            const char *na[1] = {"N/A"};
            size_t ch[1] = {2};
            E(nc_def_var(nc, "sfill", NC_STRING, 1, &x, &v));
            E(nc_def_var_chunking(nc, v, NC_CHUNKED, ch));
            E(nc_def_var_fill(nc, v, 0, na));
        }
        E(nc_put_att_text(nc, NC_GLOBAL, "json_spaced", 13, "{\"a\": [1, 2]}"));
        E(nc_put_att_text(nc, NC_GLOBAL, "json_canonical", 12, "{\"a\": [1,2]}"));
        d2[0] = x; d2[1] = y;
        E(nc_def_var(nc, "big", NC_FLOAT, 2, d2, &v));
        E(nc_def_var_endian(nc, v, NC_ENDIAN_BIG));
        E(nc_def_var(nc, "zipped", NC_INT, 2, d2, &v));
        E(nc_def_var_deflate(nc, v, 1, 1, 4));
        E(nc_def_var(nc, "squeezed", NC_DOUBLE, 2, d2, &v));
        E(nc_def_var_zstandard(nc, v, 3));
        E(nc_def_var(nc, "blosced", NC_SHORT, 2, d2, &v));
        E(nc_def_var_blosc(nc, v, BLOSC_LZ4, 5, 0, BLOSC_SHUFFLE));
    }
}

/* Data: full writes, partial writes (leaving missing chunks that read as
 * fill), strided writes, strings and chars. */
static void data(int nc, int full) {
    int v, i, g, s;
    int vi[12];
    float tf[12];
    double dd[3] = {0.5, -1.25, 1e300};
    signed char b[4] = {-128, -1, 0, 127};
    unsigned char ub[4] = {0, 1, 254, 255};
    unsigned short us[12];
    unsigned int ui[4] = {0, 1, 4000000000U, 4294967295U};
    long long i8[4] = {-9223372036854775807LL - 1, -1, 0, 9223372036854775807LL};
    unsigned long long u8[4] = {0, 1, 18446744073709551614ULL, 18446744073709551615ULL};
    size_t start[2] = {1, 0}, count[2] = {2, 3};
    ptrdiff_t stride[2] = {2, 1};
    for (i = 0; i < 12; i++) { vi[i] = i * 10 - 50; tf[i] = (float)i / 3.0f; us[i] = (unsigned short)(i * 5000); }
    E(nc_inq_varid(nc, "v", &v));
    E(nc_put_vars_int(nc, v, start, count, stride, vi)); /* rows 1 and 3 */
    E(nc_inq_varid(nc, "temp", &v));
    E(nc_put_var_float(nc, v, tf));
    E(nc_inq_varid(nc, "d", &v));
    E(nc_put_var_double(nc, v, dd));
    E(nc_inq_varid(nc, "b", &v));
    E(nc_put_var_schar(nc, v, b));
    E(nc_inq_varid(nc, "ub", &v));
    E(nc_put_var_uchar(nc, v, ub));
    E(nc_inq_varid(nc, "us", &v));
    E(nc_put_var_ushort(nc, v, us));
    E(nc_inq_varid(nc, "ui", &v));
    E(nc_put_var_uint(nc, v, ui));
    E(nc_inq_varid(nc, "i8", &v));
    E(nc_put_var_longlong(nc, v, i8));
    E(nc_inq_varid(nc, "u8", &v));
    E(nc_put_var_ulonglong(nc, v, u8));
    E(nc_inq_varid(nc, "chunked", &v));
    {
        size_t s1[2] = {2, 2}, c1[2] = {2, 1};
        double two[2] = {42.0, 43.0};
        E(nc_put_vara_double(nc, v, s1, c1, two)); /* one chunk of six */
    }
    E(nc_inq_ncid(nc, "g", &g));
    E(nc_inq_varid(g, "s", &s));
    {
        short sv[20];
        for (i = 0; i < 20; i++) sv[i] = (short)(i - 10);
        E(nc_put_var_short(g, s, sv));
    }
    if (full) {
        const char *strs[4] = {"alpha", "", "beta", "gamma"};
        double sc = 6.5;
        float big[12];
        for (i = 0; i < 12; i++) big[i] = 1.5f * (float)i;
        E(nc_inq_varid(nc, "scalar", &v));
        E(nc_put_var_double(nc, v, &sc));
        E(nc_inq_varid(nc, "c", &v));
        E(nc_put_var_text(nc, v, "abc"));
        E(nc_inq_varid(nc, "str", &v));
        E(nc_put_var_string(nc, v, strs));
        {
            size_t st[1] = {2}, ct[1] = {2};
            E(nc_inq_varid(nc, "sfill", &v));
            E(nc_put_vara_string(nc, v, st, ct, strs + 2)); /* chunk 0 stays missing */
        }
        E(nc_inq_varid(nc, "big", &v));
        E(nc_put_var_float(nc, v, big));
        E(nc_inq_varid(nc, "zipped", &v));
        E(nc_put_var_int(nc, v, vi));
        for (i = 0; i < 12; i++) big[i] = 0.25f * (float)i;
        E(nc_inq_varid(nc, "squeezed", &v));
        E(nc_put_var_float(nc, v, big)); /* converted to double */
        E(nc_inq_varid(nc, "blosced", &v));
        E(nc_put_var_int(nc, v, vi)); /* converted to short */
    }
}

/* One dataset of the matrix: the same content matrix.py writes with the
 * netCDF4 wheel and ncgen. */
static int matrix(const char *dir, const char *kind, const char *mode) {
    char path[4096];
    int nc, x, t, v, d2[2], g, z;
    snprintf(path, sizeof path, "file://%s#mode=%s", dir, mode);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    E(nc_put_att_text(nc, NC_GLOBAL, "title", strlen(kind), kind));
    E(nc_def_dim(nc, "x", 3, &x));
    if (strcmp(kind, "fixed") == 0) {
        int vals[3] = {1, 2, 3};
        E(nc_def_var(nc, "v", NC_INT, 1, &x, &v));
        E(nc_put_var_int(nc, v, vals));
    } else if (strcmp(kind, "unlimited") == 0) {
        int vals[6] = {1, 2, 3, 4, 5, 6};
        size_t start[2] = {0, 0}, count[2] = {2, 3};
        E(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
        d2[0] = t; d2[1] = x;
        E(nc_def_var(nc, "v", NC_INT, 2, d2, &v));
        E(nc_put_vara_int(nc, v, start, count, vals));
    } else if (strcmp(kind, "scalar") == 0) {
        int val = 17;
        E(nc_def_var(nc, "v", NC_INT, 0, NULL, &v));
        E(nc_put_var_int(nc, v, &val));
    } else if (strcmp(kind, "string") == 0) {
        const char *vals[3] = {"ab", "", "cde"};
        E(nc_def_var(nc, "v", NC_STRING, 1, &x, &v));
        E(nc_put_var_string(nc, v, vals));
    } else if (strcmp(kind, "grouped") == 0) {
        short vals[6] = {1, 2, 3, 4, 5, 6};
        E(nc_def_grp(nc, "g", &g));
        E(nc_def_dim(g, "z", 2, &z));
        d2[0] = z; d2[1] = x;
        E(nc_def_var(g, "v", NC_SHORT, 2, d2, &v));
        E(nc_put_var_short(g, v, vals));
    } else {
        fprintf(stderr, "write_ours: unknown kind %s\n", kind);
        return 2;
    }
    E(nc_close(nc));
    return 0;
}

int main(int argc, char **argv) {
    char path[4096];
    int nc;
    if (argc == 4) return matrix(argv[1], argv[2], argv[3]);
    if (argc != 2) { fprintf(stderr, "usage: write_ours DIR\n"); return 2; }
    snprintf(path, sizeof path, "file://%s/ours_full.zarr#mode=nczarr,file", argv[1]);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    common(nc, 1);
    data(nc, 1);
    E(nc_close(nc));
    snprintf(path, sizeof path, "file://%s/ours_portable.zarr#mode=nczarr,file", argv[1]);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    common(nc, 0);
    data(nc, 0);
    E(nc_close(nc));
    snprintf(path, sizeof path, "file://%s/ours_oldkeys.zarr#mode=nczarr,file,oldkeys", argv[1]);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    common(nc, 0);
    data(nc, 0);
    E(nc_close(nc));
    snprintf(path, sizeof path, "file://%s/ours_zarr.zarr#mode=zarr,file", argv[1]);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    common(nc, 0);
    data(nc, 0);
    E(nc_close(nc));
    snprintf(path, sizeof path, "file://%s/ours_zip.zip#mode=nczarr,zip", argv[1]);
    E(nc_create(path, NC_CLOBBER | NC_NETCDF4, &nc));
    common(nc, 0);
    data(nc, 0);
    E(nc_close(nc));
    printf("write_ours: wrote 5 datasets in %s\n", argv[1]);
    return 0;
}
