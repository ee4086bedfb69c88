/* The netCDF metadata API from C: define, persist, reopen, inquire, and the
 * exact error codes of netCDF-C. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include <unistd.h>

static char base[2048];
static char url[4200];

static const char *ds_url(const char *name, const char *mode) {
    snprintf(url, sizeof url, "file://%s/%s#mode=%s", base, name, mode);
    return url;
}

static void test_roundtrip(void) {
    int nc, x, y, z, t, v, s, c, str, sc, g, g2, sub, ids[8], n, i;
    int dims[2];
    int ints[3] = {1, -2, 3};
    short sh = -7;
    float fl[2] = {0.1f, NC_FILL_FLOAT};
    double pi = 3.14159265358979323846, dd[2];
    long long big = 9007199254740993LL, bigback = 0;
    unsigned long long ubig = 18446744073709551615ULL, ubigback = 0;
    signed char sc_ = -128;
    unsigned char uc = 255;
    const char *strs[2] = {"alpha", "béta"};
    char *strback[2] = {NULL, NULL};
    char name[NC_MAX_NAME + 1], text[64];
    nc_type type;
    size_t len, chunks[2];
    int storage, nofill, fill = -99, fillback = 0, endian;
    const char *path = ds_url("meta.zarr", "nczarr,file");
    char pathcopy[4200];
    snprintf(pathcopy, sizeof pathcopy, "%s", path);

    OK(nc_create(pathcopy, NC_CLOBBER | NC_NETCDF4, &nc));
    OK(nc_put_att_text(nc, NC_GLOBAL, "title", 5, "hello"));
    OK(nc_put_att_int(nc, NC_GLOBAL, "ints", NC_INT, 3, ints));
    OK(nc_put_att_short(nc, NC_GLOBAL, "short", NC_SHORT, 1, &sh));
    OK(nc_put_att_float(nc, NC_GLOBAL, "floats", NC_FLOAT, 2, fl));
    OK(nc_put_att_double(nc, NC_GLOBAL, "pi", NC_DOUBLE, 1, &pi));
    OK(nc_put_att_longlong(nc, NC_GLOBAL, "big", NC_INT64, 1, &big));
    OK(nc_put_att_ulonglong(nc, NC_GLOBAL, "ubig", NC_UINT64, 1, &ubig));
    OK(nc_put_att_schar(nc, NC_GLOBAL, "sc", NC_BYTE, 1, &sc_));
    OK(nc_put_att_uchar(nc, NC_GLOBAL, "uc", NC_UBYTE, 1, &uc));
    OK(nc_put_att_string(nc, NC_GLOBAL, "strs", 2, strs));
    OK(nc_put_att_text(nc, NC_GLOBAL, "json", 8, "{\"a\": 1}"));
    OK(nc_put_att_text(nc, NC_GLOBAL, "zero", 1, "0"));
    OK(nc_def_dim(nc, "x", 4, &x));
    OK(nc_def_dim(nc, "y", 3, &y));
    OK(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
    dims[0] = x; dims[1] = y;
    OK(nc_def_var(nc, "v", NC_INT, 2, dims, &v));
    OK(nc_def_var_fill(nc, v, 0, &fill));
    OK(nc_put_att_text(nc, v, "units", 1, "m"));
    OK(nc_def_var(nc, "s", NC_SHORT, 1, &x, &s));
    chunks[0] = 2;
    OK(nc_def_var_chunking(nc, s, NC_CHUNKED, chunks));
    OK(nc_def_var_endian(nc, s, NC_ENDIAN_BIG));
    OK(nc_def_var(nc, "c", NC_CHAR, 1, &y, &c));
    OK(nc_def_var(nc, "str", NC_STRING, 1, &x, &str));
    OK(nc_def_var(nc, "scalar", NC_DOUBLE, 0, NULL, &sc));
    OK(nc_def_var(nc, "rec", NC_FLOAT, 1, &t, &i));
    OK(nc_def_grp(nc, "g", &g));
    OK(nc_def_grp(g, "g2", &g2));
    OK(nc_def_dim(g, "z", 5, &z));
    dims[0] = z; dims[1] = x;
    OK(nc_def_var(g, "gv", NC_UINT64, 2, dims, &i));
    OK(nc_put_att_text(g, NC_GLOBAL, "gatt", 3, "sub"));
    OK(nc_enddef(nc));
    OK(nc_close(nc));

    /* reopen read-only and check everything */
    OK(nc_open(pathcopy, NC_NOWRITE, &nc));
    OK(nc_inq(nc, &n, &i, NULL, NULL));
    CHECK(n == 3 && i == 6);
    OK(nc_inq_natts(nc, &n));
    CHECK(n == 12);
    OK(nc_inq_attname(nc, NC_GLOBAL, 0, name));
    CHECK(strcmp(name, "title") == 0);
    OK(nc_inq_att(nc, NC_GLOBAL, "title", &type, &len));
    CHECK(type == NC_CHAR && len == 5);
    memset(text, 0, sizeof text);
    OK(nc_get_att_text(nc, NC_GLOBAL, "title", text));
    CHECK(strcmp(text, "hello") == 0);
    OK(nc_inq_att(nc, NC_GLOBAL, "short", &type, &len));
    CHECK(type == NC_SHORT && len == 1);
    OK(nc_get_att_double(nc, NC_GLOBAL, "floats", dd));
    CHECK(dd[0] == (double)0.1f && dd[1] == (double)NC_FILL_FLOAT);
    OK(nc_get_att_double(nc, NC_GLOBAL, "pi", dd));
    CHECK(dd[0] == pi); /* exact, not netCDF-C's 6 digits */
    OK(nc_get_att_longlong(nc, NC_GLOBAL, "big", &bigback));
    CHECK(bigback == big);
    OK(nc_get_att_ulonglong(nc, NC_GLOBAL, "ubig", &ubigback));
    CHECK(ubigback == ubig);
    OK(nc_inq_att(nc, NC_GLOBAL, "sc", &type, &len));
    CHECK(type == NC_BYTE);
    OK(nc_inq_att(nc, NC_GLOBAL, "strs", &type, &len));
    CHECK(type == NC_STRING && len == 2);
    OK(nc_get_att_string(nc, NC_GLOBAL, "strs", strback));
    CHECK(strback[0] && strcmp(strback[0], "alpha") == 0 && strback[1] && strcmp(strback[1], "béta") == 0);
    OK(nc_free_string(2, strback));
    memset(text, 0, sizeof text);
    OK(nc_inq_attlen(nc, NC_GLOBAL, "json", &len));
    OK(nc_get_att_text(nc, NC_GLOBAL, "json", text));
    CHECK(text[0] == '{' && strstr(text, "\"a\"") != NULL);
    OK(nc_inq_att(nc, NC_GLOBAL, "zero", &type, &len));
    CHECK(type == NC_CHAR && len == 1);
    /* hidden attributes: readable, not counted */
    OK(nc_inq_att(nc, NC_GLOBAL, "_NCProperties", &type, &len));
    CHECK(type == NC_CHAR && len > 10);
    OK(nc_get_att_int(nc, NC_GLOBAL, "_SuperblockVersion", &n));
    CHECK(n == 2);
    EXPECT(nc_inq_attid(nc, NC_GLOBAL, "_NCProperties", &n), NC_ENOTATT);

    OK(nc_inq_varid(nc, "v", &v));
    OK(nc_inq_var(nc, v, name, &type, &n, ids, &i));
    CHECK(strcmp(name, "v") == 0 && type == NC_INT && n == 2 && ids[0] == x && ids[1] == y && i == 2);
    OK(nc_inq_var_fill(nc, v, &nofill, &fillback));
    CHECK(nofill == 0 && fillback == -99);
    OK(nc_inq_var_chunking(nc, v, &storage, chunks));
    CHECK(storage == NC_CHUNKED && chunks[0] == 4 && chunks[1] == 3);
    OK(nc_inq_varid(nc, "s", &s));
    OK(nc_inq_var_chunking(nc, s, &storage, chunks));
    CHECK(chunks[0] == 2);
    OK(nc_inq_var_endian(nc, s, &endian));
    CHECK(endian == NC_ENDIAN_BIG);
    OK(nc_inq_var_fill(nc, s, &nofill, &sh));
    CHECK(sh == NC_FILL_SHORT);
    OK(nc_inq_varid(nc, "c", &c));
    OK(nc_inq_vartype(nc, c, &type));
    CHECK(type == NC_CHAR);
    OK(nc_inq_varid(nc, "str", &str));
    OK(nc_inq_vartype(nc, str, &type));
    CHECK(type == NC_STRING);
    OK(nc_inq_varid(nc, "scalar", &sc));
    OK(nc_inq_varndims(nc, sc, &n));
    CHECK(n == 0);
    OK(nc_inq_unlimdim(nc, &n));
    CHECK(n == t);
    OK(nc_inq_dim(nc, t, name, &len));
    CHECK(strcmp(name, "t") == 0 && len == 0);

    OK(nc_inq_grps(nc, &n, ids));
    CHECK(n == 1);
    OK(nc_inq_grpname(ids[0], name));
    CHECK(strcmp(name, "g") == 0);
    OK(nc_inq_grp_full_ncid(nc, "/g/g2", &sub));
    OK(nc_inq_grpname_full(sub, &len, text));
    CHECK(strcmp(text, "/g/g2") == 0 && len == 5);
    OK(nc_inq_grp_parent(sub, &g));
    CHECK(g == ids[0]);
    EXPECT(nc_inq_grp_parent(nc, &g), NC_ENOGRP);
    OK(nc_inq_ncid(nc, "g", &g));
    OK(nc_inq_dimid(g, "x", &n)); /* found in the parent */
    CHECK(n == x);
    OK(nc_inq_dimids(g, &n, ids, 0));
    CHECK(n == 1);
    OK(nc_inq_dimids(g, &n, ids, 1));
    CHECK(n == 4);
    OK(nc_inq_varid(g, "gv", &i));
    OK(nc_inq_vardimid(g, i, ids));
    OK(nc_inq_dimname(g, ids[0], name));
    CHECK(strcmp(name, "z") == 0);
    OK(nc_get_att_text(g, NC_GLOBAL, "gatt", text));
    CHECK(strncmp(text, "sub", 3) == 0);

    /* format and path */
    OK(nc_inq_format(nc, &n));
    CHECK(n == NC_FORMAT_NETCDF4);
    OK(nc_inq_format_extended(nc, &n, &i));
    CHECK(n == NC_FORMATX_NCZARR && (i & NC_NETCDF4));
    /* the path is longer than text[64]: its own buffer (AddressSanitizer
       caught the overflow, scripts/sanitize.sh) */
    {
        char pathback[sizeof pathcopy];
        OK(nc_inq_path(nc, &len, pathback));
        CHECK(len == strlen(pathcopy) && strcmp(pathback, pathcopy) == 0);
    }

    /* read-only: every change is NC_EPERM */
    EXPECT(nc_redef(nc), NC_EPERM);
    EXPECT(nc_def_dim(nc, "w", 1, &n), NC_EPERM);
    EXPECT(nc_put_att_text(nc, NC_GLOBAL, "new", 1, "x"), NC_EPERM);
    EXPECT(nc_rename_var(nc, v, "vv"), NC_EPERM);
    OK(nc_close(nc));
}

static void test_errors(void) {
    int nc, x, v, n, i;
    char name[NC_MAX_NAME + 1];
    int ints[2] = {1, 300};
    signed char bytes[2];
    double d = 1e40;
    float f;
    OK(nc_create(ds_url("errors.zarr", "nczarr,file"), NC_CLOBBER, &nc));
    EXPECT(nc_create(ds_url("errors.zarr", "nczarr,file"), NC_NOCLOBBER, &n), NC_EEXIST);
    OK(nc_def_dim(nc, "x", 2, &x));
    EXPECT(nc_def_dim(nc, "x", 3, &n), NC_ENAMEINUSE);
    EXPECT(nc_def_dim(nc, "bad/name", 3, &n), NC_EBADNAME);
    EXPECT(nc_def_dim(nc, "", 3, &n), NC_EBADNAME);
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &v));
    EXPECT(nc_def_var(nc, "v", NC_INT, 1, &x, &n), NC_ENAMEINUSE);
    EXPECT(nc_def_var(nc, "w", NC_INT, 1, &ints[1], &n), NC_EBADDIM);
    EXPECT(nc_def_var(nc, "w", 99, 1, &x, &n), NC_EBADTYPE);
    EXPECT(nc_def_var(nc, "w", NC_INT, -1, &x, &n), NC_EINVAL);
    EXPECT(nc_def_var(nc, NULL, NC_INT, 1, &x, &n), NC_EINVAL);
    EXPECT(nc_inq_varid(nc, "nope", &n), NC_ENOTVAR);
    EXPECT(nc_inq_varname(nc, 42, name), NC_ENOTVAR);
    EXPECT(nc_inq_dimname(nc, 42, name), NC_EBADDIM);
    EXPECT(nc_get_att_int(nc, v, "nope", &n), NC_ENOTATT);
    EXPECT(nc_put_att_text(nc, NC_GLOBAL, "_NCProperties", 1, "x"), NC_ENAMEINUSE);
    EXPECT(nc_def_var_fill(nc, NC_GLOBAL, 0, NULL), NC_EGLOBAL);
    /* _FillValue must have the variable's type */
    EXPECT(nc_put_att_double(nc, v, "_FillValue", NC_DOUBLE, 1, &d), NC_EBADTYPE);
    /* conversions */
    EXPECT(nc_put_att_int(nc, v, "r", NC_BYTE, 2, ints), NC_ERANGE); /* stored anyway */
    OK(nc_get_att_schar(nc, v, "r", bytes));
    CHECK(bytes[0] == 1);
    EXPECT(nc_put_att_double(nc, v, "f", NC_FLOAT, 1, &d), NC_ERANGE);
    EXPECT(nc_put_att_text(nc, v, "t", 1, "a"), NC_NOERR);
    EXPECT(nc_get_att_int(nc, v, "t", &n), NC_ECHAR);
    EXPECT(nc_get_att_text(nc, v, "r", name), NC_ECHAR);
    d = 2.5;
    OK(nc_put_att_double(nc, v, "dbl", NC_DOUBLE, 1, &d));
    OK(nc_get_att_float(nc, v, "dbl", &f));
    CHECK(f == 2.5f);
    OK(nc_get_att_int(nc, v, "dbl", &n));
    CHECK(n == 2);
    /* rename, delete, copy */
    OK(nc_rename_att(nc, v, "dbl", "dbl2"));
    EXPECT(nc_rename_att(nc, v, "dbl2", "t"), NC_ENAMEINUSE);
    OK(nc_del_att(nc, v, "t"));
    EXPECT(nc_del_att(nc, v, "t"), NC_ENOTATT);
    OK(nc_copy_att(nc, v, "dbl2", nc, NC_GLOBAL));
    OK(nc_inq_attid(nc, NC_GLOBAL, "dbl2", &i));
    CHECK(i == 0);
    /* define/data mode */
    EXPECT(nc_redef(nc), NC_EINDEFINE);
    OK(nc_enddef(nc));
    EXPECT(nc_enddef(nc), NC_ENOTINDEFINE);
    /* netCDF-4: definitions in data mode re-enter define mode */
    OK(nc_def_dim(nc, "later", 5, &n));
    OK(nc_enddef(nc));
    /* properties that are fixed once the variable is on disk */
    EXPECT(nc_def_var_chunking(nc, v, NC_CONTIGUOUS, NULL), NC_ELATEDEF);
    EXPECT(nc_def_var_endian(nc, v, NC_ENDIAN_BIG), NC_ELATEDEF);
    OK(nc_rename_var(nc, v, "v2"));
    OK(nc_rename_dim(nc, x, "x2"));
    OK(nc_close(nc));
    EXPECT(nc_close(nc), NC_EBADID);
    EXPECT(nc_inq_nvars(nc, &n), NC_EBADID);
    EXPECT(nc_inq_nvars(-1, &n), NC_EBADID);
    EXPECT(nc_inq_nvars(0x7fff0000, &n), NC_EBADID);

    OK(nc_open(ds_url("errors.zarr", "nczarr,file"), NC_WRITE, &nc));
    OK(nc_inq_varid(nc, "v2", &v));
    OK(nc_inq_dimid(nc, "x2", &x));
    OK(nc_inq_dimid(nc, "later", &x));
    EXPECT(nc_inq_grp_ncid(nc, "nosuch", &n), NC_ENOGRP);
    EXPECT(nc_inq_nvars(nc | 0x55, &n), NC_EBADID); /* no such group */
    OK(nc_close(nc));

    /* opening things that are not datasets */
    EXPECT(nc_open(ds_url("missing.zarr", "nczarr,file"), 0, &nc), 2 /* ENOENT */);
    EXPECT(nc_open("gopher://example.com/x#mode=nczarr", 0, &nc), NC_EINVAL);
    EXPECT(nc_open(NULL, 0, &nc), NC_EINVAL);
    OK(nc_open(ds_url("errors.zarr", "nczarr,file"), 0, NULL)); /* ncidp optional, as in netCDF-C */
    EXPECT(nc_create(ds_url("x.zarr", "nczarr,file"), NC_64BIT_OFFSET, &nc), NC_EINVAL);
}

static void test_abort_sync_and_modes(void) {
    int nc, x, v, n;
    char check[4300];
    /* abort of a freshly created dataset deletes it */
    OK(nc_create(ds_url("aborted.zarr", "nczarr,file"), NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 2, &x));
    OK(nc_abort(nc));
    snprintf(check, sizeof check, "%s/aborted.zarr", base);
    CHECK(!t_path_exists(check));
    EXPECT(nc_inq_ndims(nc, &n), NC_EBADID);

    /* nc_sync persists: a second handle sees the variable before close */
    OK(nc_create(ds_url("synced.zarr", "nczarr,file"), NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 2, &x));
    OK(nc_def_var(nc, "v", NC_FLOAT, 1, &x, &v));
    OK(nc_sync(nc));
    {
        int other;
        OK(nc_open(ds_url("synced.zarr", "nczarr,file"), 0, &other));
        OK(nc_inq_varid(other, "v", &n));
        OK(nc_close(other));
    }
    OK(nc_abort(nc)); /* after sync the dataset is kept */
    snprintf(check, sizeof check, "%s/synced.zarr/v/.zarray", base);
    CHECK(t_path_exists(check));

    /* pure Zarr: no NCZarr keys, _ARRAY_DIMENSIONS carries the names */
    OK(nc_create(ds_url("pure.zarr", "zarr,file"), NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "lat", 3, &x));
    OK(nc_def_var(nc, "temp", NC_FLOAT, 1, &x, &v));
    OK(nc_close(nc));
    OK(nc_open(ds_url("pure.zarr", "zarr,file"), 0, &nc));
    OK(nc_inq_dimid(nc, "lat", &n));
    OK(nc_close(nc));
    /* read back without xarray names: anonymous dimensions */
    OK(nc_open(ds_url("pure.zarr", "zarr,noxarray,file"), 0, &nc));
    OK(nc_inq_dimid(nc, "_Anonymous_Dim_3", &n));
    EXPECT(nc_inq_dimid(nc, "lat", &n), NC_EBADDIM);
    OK(nc_close(nc));
    /* a plain path opens too */
    snprintf(check, sizeof check, "%s/pure.zarr", base);
    OK(nc_open(check, 0, &nc));
    OK(nc_close(nc));

    /* set_fill returns the old mode */
    OK(nc_create(ds_url("fill.zarr", "nczarr,file"), NC_CLOBBER, &nc));
    OK(nc_set_fill(nc, NC_NOFILL, &n));
    CHECK(n == NC_FILL);
    OK(nc_def_dim(nc, "x", 2, &x));
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &v));
    OK(nc_inq_var_fill(nc, v, &n, NULL));
    CHECK(n == 1);
    OK(nc_close(nc));
}

static void test_default_chunks(void) {
    int nc, d[2], v;
    size_t chunks[2];
    OK(nc_create("mem://chunks", NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 2000, &d[0]));
    OK(nc_def_dim(nc, "y", 1500, &d[1]));
    OK(nc_def_var(nc, "big", NC_FLOAT, 2, d, &v));
    OK(nc_inq_var_chunking(nc, v, NULL, chunks));
    CHECK(chunks[0] == 1000 && chunks[1] == 750); /* netCDF-C's choice */
    OK(nc_close(nc));
}

int main(int argc, char **argv) {
    if (t_scratch(base, sizeof base, argc, argv, "nc_meta_scratch")) return 2;
    test_roundtrip();
    test_errors();
    test_abort_sync_and_modes();
    test_default_chunks();
    return t_finish("test_nc_meta");
}
