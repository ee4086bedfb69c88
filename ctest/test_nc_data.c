/* Every put/get family (var1, vara, vars, varm, var) for every memory type
 * (typed and untyped), conversions, NC_ERANGE, fill values for missing
 * chunks, strings, chars, scalars, big-endian variables, unlimited growth. */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include <math.h>
#include <unistd.h>

static char base[2048];
static char path[4200];

/* A 4x6 variable of the given netCDF type, chunked 3x4 (edge chunks), in a
 * fresh dataset; the same test body runs for each C type. */
#define TYPE_TEST(SUFFIX, CTYPE, NCTYPE)                                                   \
    static void test_##SUFFIX(void) {                                                        \
        int nc, d[2], v, i, j;                                                               \
        size_t ch[2] = {3, 4}, start[2], count[2], idx[2];                                   \
        ptrdiff_t stride[2], imap[2];                                                        \
        CTYPE all[24], back[24], one, sub[6], t[24];                                         \
        snprintf(path, sizeof path, "file://%s/" #SUFFIX ".zarr#mode=nczarr,file", base);    \
        OK(nc_create(path, NC_CLOBBER, &nc));                                                \
        OK(nc_def_dim(nc, "x", 4, &d[0]));                                                   \
        OK(nc_def_dim(nc, "y", 6, &d[1]));                                                   \
        OK(nc_def_var(nc, "v", NCTYPE, 2, d, &v));                                           \
        OK(nc_def_var_chunking(nc, v, NC_CHUNKED, ch));                                      \
        OK(nc_enddef(nc));                                                                   \
        for (i = 0; i < 24; i++) all[i] = (CTYPE)(i + 1);                                    \
        /* var: whole variable */                                                           \
        OK(nc_put_var_##SUFFIX(nc, v, all));                                                 \
        memset(back, 0, sizeof back);                                                        \
        OK(nc_get_var_##SUFFIX(nc, v, back));                                                \
        CHECK(memcmp(all, back, sizeof all) == 0);                                           \
        /* var1 */                                                                          \
        idx[0] = 3; idx[1] = 5; one = (CTYPE)99;                                             \
        OK(nc_put_var1_##SUFFIX(nc, v, idx, &one));                                          \
        one = 0;                                                                             \
        OK(nc_get_var1_##SUFFIX(nc, v, idx, &one));                                          \
        CHECK(one == (CTYPE)99);                                                             \
        EXPECT(nc_get_var1_##SUFFIX(nc, v, NULL, &one), NC_EINVAL);                          \
        idx[0] = 4;                                                                          \
        EXPECT(nc_get_var1_##SUFFIX(nc, v, idx, &one), NC_EINVALCOORDS);                     \
        /* vara: a 2x3 block across chunk boundaries */                                     \
        start[0] = 1; start[1] = 2; count[0] = 2; count[1] = 3;                              \
        for (i = 0; i < 6; i++) sub[i] = (CTYPE)(50 + i);                                    \
        OK(nc_put_vara_##SUFFIX(nc, v, start, count, sub));                                  \
        memset(sub, 0, sizeof sub);                                                          \
        OK(nc_get_vara_##SUFFIX(nc, v, start, count, sub));                                  \
        CHECK(sub[0] == (CTYPE)50 && sub[5] == (CTYPE)55);                                   \
        OK(nc_get_var_##SUFFIX(nc, v, back));                                                \
        CHECK(back[1 * 6 + 2] == (CTYPE)50 && back[2 * 6 + 4] == (CTYPE)55 && back[0] == (CTYPE)1); \
        count[1] = 5;                                                                        \
        EXPECT(nc_get_vara_##SUFFIX(nc, v, start, count, sub), NC_EEDGE);                    \
        /* vars: every other row and column */                                              \
        start[0] = 0; start[1] = 1; count[0] = 2; count[1] = 3; stride[0] = 2; stride[1] = 2; \
        OK(nc_get_vars_##SUFFIX(nc, v, start, count, stride, sub));                          \
        CHECK(sub[0] == back[0 * 6 + 1] && sub[2] == back[0 * 6 + 5] && sub[3] == back[2 * 6 + 1]); \
        for (i = 0; i < 6; i++) sub[i] = (CTYPE)(70 + i);                                    \
        OK(nc_put_vars_##SUFFIX(nc, v, start, count, stride, sub));                          \
        OK(nc_get_var_##SUFFIX(nc, v, back));                                                \
        CHECK(back[0 * 6 + 3] == (CTYPE)71 && back[2 * 6 + 5] == (CTYPE)75);                 \
        stride[1] = 0;                                                                       \
        EXPECT(nc_get_vars_##SUFFIX(nc, v, start, count, stride, sub), NC_ESTRIDE);          \
        /* varm: read transposed (6x4 in memory) */                                         \
        start[0] = 0; start[1] = 0; count[0] = 4; count[1] = 6;                              \
        stride[0] = 1; stride[1] = 1; imap[0] = 1; imap[1] = 4;                              \
        OK(nc_get_varm_##SUFFIX(nc, v, start, count, stride, imap, t));                      \
        for (i = 0; i < 4; i++)                                                              \
            for (j = 0; j < 6; j++) CHECK(t[j * 4 + i] == back[i * 6 + j]);                  \
        OK(nc_put_varm_##SUFFIX(nc, v, start, count, stride, imap, t));                      \
        memset(all, 0, sizeof all);                                                          \
        OK(nc_get_var_##SUFFIX(nc, v, all));                                                 \
        CHECK(memcmp(all, back, sizeof all) == 0);                                           \
        OK(nc_close(nc));                                                                    \
        /* persisted */                                                                     \
        OK(nc_open(path, NC_NOWRITE, &nc));                                                  \
        memset(all, 0, sizeof all);                                                          \
        OK(nc_get_var_##SUFFIX(nc, v, all));                                                 \
        CHECK(memcmp(all, back, sizeof all) == 0);                                           \
        EXPECT(nc_put_var_##SUFFIX(nc, v, all), NC_EPERM);                                   \
        OK(nc_close(nc));                                                                    \
    }

TYPE_TEST(schar, signed char, NC_BYTE)
TYPE_TEST(uchar, unsigned char, NC_UBYTE)
TYPE_TEST(short, short, NC_SHORT)
TYPE_TEST(int, int, NC_INT)
TYPE_TEST(long, long, NC_INT64)
TYPE_TEST(float, float, NC_FLOAT)
TYPE_TEST(double, double, NC_DOUBLE)
TYPE_TEST(ubyte, unsigned char, NC_UBYTE)
TYPE_TEST(ushort, unsigned short, NC_USHORT)
TYPE_TEST(uint, unsigned int, NC_UINT)
TYPE_TEST(longlong, long long, NC_INT64)
TYPE_TEST(ulonglong, unsigned long long, NC_UINT64)

/* The untyped functions use the variable's own type. */
static void test_untyped(void) {
    int nc, d, v;
    size_t idx = 2, start = 1, count = 3;
    ptrdiff_t stride = 2, imap = 1;
    double all[8], back[8], one = -1.5, sub[3];
    int i;
    snprintf(path, sizeof path, "file://%s/untyped.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 8, &d));
    OK(nc_def_var(nc, "v", NC_DOUBLE, 1, &d, &v));
    for (i = 0; i < 8; i++) all[i] = i * 0.5;
    OK(nc_put_var(nc, v, all));
    OK(nc_get_var(nc, v, back));
    CHECK(memcmp(all, back, sizeof all) == 0);
    OK(nc_put_var1(nc, v, &idx, &one));
    OK(nc_get_var1(nc, v, &idx, &one));
    CHECK(one == -1.5);
    sub[0] = 7; sub[1] = 8; sub[2] = 9;
    OK(nc_put_vara(nc, v, &start, &count, sub));
    OK(nc_get_vara(nc, v, &start, &count, sub));
    CHECK(sub[0] == 7 && sub[2] == 9);
    OK(nc_put_vars(nc, v, &start, &count, &stride, sub));
    OK(nc_get_vars(nc, v, &start, &count, &stride, sub));
    CHECK(sub[1] == 8);
    OK(nc_put_varm(nc, v, &start, &count, &stride, &imap, sub));
    OK(nc_get_varm(nc, v, &start, &count, &stride, &imap, sub));
    CHECK(sub[2] == 9);
    OK(nc_close(nc));
}

/* Conversions between memory and variable types, NC_ERANGE, NC_ECHAR. */
static void test_conversions(void) {
    int nc, d, b, f, u, c;
    double in[4] = {1.9, -2.9, 300.0, -129.0};
    signed char sb[4];
    int ints[4];
    float fl[4];
    double big[2] = {1e40, 1.0};
    snprintf(path, sizeof path, "file://%s/convert.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 4, &d));
    OK(nc_def_var(nc, "b", NC_BYTE, 1, &d, &b));
    OK(nc_def_var(nc, "f", NC_FLOAT, 1, &d, &f));
    OK(nc_def_var(nc, "u", NC_UINT, 1, &d, &u));
    OK(nc_def_var(nc, "c", NC_CHAR, 1, &d, &c));
    /* in-range values are still written when others are out of range */
    EXPECT(nc_put_var_double(nc, b, in), NC_ERANGE);
    OK(nc_get_var_schar(nc, b, sb));
    CHECK(sb[0] == 1 && sb[1] == -2);
    OK(nc_get_var_int(nc, b, ints));
    CHECK(ints[0] == 1 && ints[1] == -2);
    {
        size_t s = 0, n = 2;
        EXPECT(nc_put_vara_double(nc, f, &s, &n, big), NC_ERANGE);
    }
    ints[0] = -1; ints[1] = 2; ints[2] = 3; ints[3] = 4;
    EXPECT(nc_put_var_int(nc, u, ints), NC_ERANGE);
    OK(nc_get_var_float(nc, u, fl));
    CHECK(fl[1] == 2.0f && fl[3] == 4.0f);
    /* the variable holds 4294967295 now: it does not fit an int */
    EXPECT(nc_get_var_int(nc, u, ints), NC_ERANGE);
    CHECK(ints[1] == 2);
    EXPECT(nc_put_var_int(nc, c, ints), NC_ECHAR);
    EXPECT(nc_get_var_text(nc, b, (char *)sb), NC_ECHAR);
    OK(nc_put_var_text(nc, c, "abcd"));
    {
        char t[5] = {0};
        OK(nc_get_var_text(nc, c, t));
        CHECK(strcmp(t, "abcd") == 0);
    }
    OK(nc_close(nc));
}

/* Missing chunks read as the fill value (or zeros with no fill). */
static void test_fill(void) {
    int nc, d, v, w, s;
    size_t ch = 2, idx = 5;
    int vals[8], one = 7;
    float fv = -1.5f, fb[8];
    snprintf(path, sizeof path, "file://%s/fill.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 8, &d));
    OK(nc_def_var(nc, "v", NC_INT, 1, &d, &v));
    OK(nc_def_var_chunking(nc, v, NC_CHUNKED, &ch));
    OK(nc_def_var(nc, "w", NC_FLOAT, 1, &d, &w));
    OK(nc_def_var_fill(nc, w, 0, &fv));
    OK(nc_def_var(nc, "s", NC_SHORT, 1, &d, &s));
    OK(nc_def_var_fill(nc, s, 1, NULL));
    OK(nc_put_var1_int(nc, v, &idx, &one));
    OK(nc_close(nc));
    OK(nc_open(path, NC_NOWRITE, &nc));
    OK(nc_get_var_int(nc, v, vals));
    CHECK(vals[0] == NC_FILL_INT && vals[4] == NC_FILL_INT && vals[5] == 7 && vals[7] == NC_FILL_INT);
    OK(nc_get_var_float(nc, w, fb));
    CHECK(fb[0] == -1.5f && fb[7] == -1.5f);
    {
        short sh[8];
        OK(nc_get_var_short(nc, s, sh));
        CHECK(sh[0] == 0 && sh[7] == 0);
    }
    OK(nc_close(nc));
    /* only the chunk that was written exists */
    {
        char chunk[4300];
        snprintf(chunk, sizeof chunk, "%s/fill.zarr/v/2", base);
        CHECK(t_path_exists(chunk));
        snprintf(chunk, sizeof chunk, "%s/fill.zarr/v/0", base);
        CHECK(!t_path_exists(chunk));
    }
}

/* Strings: fixed width storage, truncation at _nczarr_maxstrlen, NULLs. */
static void test_strings(void) {
    int nc, d, v, w, maxlen = 4;
    const char *in[4] = {"alpha", "", NULL, "ünï"};
    char *out[4] = {NULL, NULL, NULL, NULL};
    size_t start = 1, count = 2;
    snprintf(path, sizeof path, "file://%s/strings.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 4, &d));
    OK(nc_def_var(nc, "s", NC_STRING, 1, &d, &v));
    OK(nc_def_var(nc, "short", NC_STRING, 1, &d, &w));
    OK(nc_put_att_int(nc, w, "_nczarr_maxstrlen", NC_INT, 1, &maxlen));
    OK(nc_put_var_string(nc, v, in));
    OK(nc_put_var_string(nc, w, in));
    OK(nc_close(nc));
    OK(nc_open(path, NC_NOWRITE, &nc));
    OK(nc_get_var_string(nc, v, out));
    CHECK(out[0] && strcmp(out[0], "alpha") == 0 && out[1] && out[1][0] == 0 && out[2] && out[2][0] == 0);
    CHECK(out[3] && strcmp(out[3], "ünï") == 0);
    OK(nc_free_string(4, out));
    OK(nc_get_var_string(nc, w, out));
    CHECK(strcmp(out[0], "alph") == 0 && strcmp(out[3], "ün") == 0); /* truncated to 4 bytes */
    OK(nc_reclaim_data(nc, NC_STRING, out, 4));
    OK(nc_get_vara_string(nc, v, &start, &count, out));
    CHECK(out[1][0] == 0);
    OK(nc_free_string(2, out));
    EXPECT(nc_get_var_int(nc, v, &maxlen), NC_EBADTYPE);
    OK(nc_close(nc));
    {
        char zarray[4300];
        FILE *f;
        char buf[512] = {0};
        snprintf(zarray, sizeof zarray, "%s/strings.zarr/short/.zarray", base);
        f = fopen(zarray, "r");
        CHECK(f != NULL);
        if (f) {
            CHECK(fread(buf, 1, sizeof buf - 1, f) > 0);
            fclose(f);
            CHECK(strstr(buf, "\"|S4\"") != NULL);
        }
    }
}

/* Scalars, big-endian storage, unlimited dimensions, and the chunk cache. */
static void test_misc(void) {
    int nc, d, t, sc, be, rec, dims[2];
    double x = 2.25;
    int v = 0x01020304, vb;
    size_t start[2] = {0, 0}, count[2] = {3, 2}, len, sz, ne;
    float pre, recs[6] = {1, 2, 3, 4, 5, 6};
    snprintf(path, sizeof path, "file://%s/misc.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_var(nc, "scalar", NC_DOUBLE, 0, NULL, &sc));
    OK(nc_def_dim(nc, "x", 1, &d));
    OK(nc_def_var(nc, "be", NC_INT, 1, &d, &be));
    OK(nc_def_var_endian(nc, be, NC_ENDIAN_BIG));
    OK(nc_def_dim(nc, "t", NC_UNLIMITED, &t));
    OK(nc_def_dim(nc, "y", 2, &dims[1]));
    dims[0] = t;
    OK(nc_def_var(nc, "rec", NC_FLOAT, 2, dims, &rec));
    OK(nc_put_var_double(nc, sc, &x));
    OK(nc_put_var_int(nc, be, &v));
    OK(nc_put_vara_float(nc, rec, start, count, recs));
    OK(nc_inq_dimlen(nc, t, &len));
    CHECK(len == 3);
    OK(nc_set_var_chunk_cache(nc, rec, 1 << 20, 10, 0.5f));
    OK(nc_get_var_chunk_cache(nc, rec, &sz, &ne, &pre));
    CHECK(sz == (1 << 20) && ne == 10 && pre == 0.5f);
    EXPECT(nc_set_var_chunk_cache(nc, rec, 1, 1, 2.0f), NC_EINVAL);
    OK(nc_close(nc));
    OK(nc_open(path, NC_NOWRITE, &nc));
    x = 0;
    OK(nc_get_var_double(nc, sc, &x));
    CHECK(x == 2.25);
    OK(nc_get_var_int(nc, be, &vb));
    CHECK(vb == 0x01020304);
    OK(nc_inq_dimlen(nc, t, &len));
    CHECK(len == 3);
    memset(recs, 0, sizeof recs);
    OK(nc_get_var_float(nc, rec, recs));
    CHECK(recs[0] == 1 && recs[5] == 6);
    OK(nc_close(nc));
    {
        /* the big-endian chunk holds big-endian bytes */
        char chunk[4300];
        unsigned char bytes[4] = {0};
        FILE *f;
        snprintf(chunk, sizeof chunk, "%s/misc.zarr/be/0", base);
        f = fopen(chunk, "rb");
        CHECK(f != NULL);
        if (f) {
            CHECK(fread(bytes, 1, 4, f) == 4);
            fclose(f);
        }
        CHECK(bytes[0] == 1 && bytes[3] == 4);
    }
    OK(nc_set_chunk_cache(32 << 20, 2000, 0.25f));
    OK(nc_get_chunk_cache(&sz, &ne, &pre));
    CHECK(sz == (32 << 20) && ne == 2000 && pre == 0.25f);
}

/* Deflate and shuffle: round trip, inquiry, and netCDF-C's error codes. */
static void test_deflate(void) {
    int nc, d, v, sc, sh, de, lv, i;
    size_t ch = 100, nf;
    unsigned int ids[4], level = 3;
    double in[1000], out[1000];
    for (i = 0; i < 1000; i++) in[i] = (double)(i % 10);
    snprintf(path, sizeof path, "file://%s/deflate.zarr#mode=nczarr,file", base);
    OK(nc_create(path, NC_CLOBBER, &nc));
    OK(nc_def_dim(nc, "x", 1000, &d));
    OK(nc_def_var(nc, "v", NC_DOUBLE, 1, &d, &v));
    OK(nc_def_var_chunking(nc, v, NC_CHUNKED, &ch));
    OK(nc_def_var_deflate(nc, v, 1, 1, 9));
    EXPECT(nc_def_var_deflate(nc, v, 0, 1, 10), NC_EINVAL);
    OK(nc_def_var(nc, "sc", NC_INT, 0, NULL, &sc));
    EXPECT(nc_def_var_deflate(nc, sc, 0, 1, 1), NC_EINVAL);
    EXPECT(nc_def_var_filter(nc, v, 32013, 1, &level), NC_ENOFILTER); /* zfp: not built */
    OK(nc_inq_filter_avail(nc, 1));
    OK(nc_inq_filter_avail(nc, 2));
    OK(nc_inq_filter_avail(nc, 32001));  /* blosc */
    OK(nc_inq_filter_avail(nc, 32015));  /* zstd */
    OK(nc_inq_filter_avail(nc, 3));      /* fletcher32 */
    OK(nc_inq_filter_avail(nc, 307));    /* bzip2 */
    OK(nc_inq_filter_avail(nc, 32004));  /* lz4 */
    EXPECT(nc_inq_filter_avail(nc, 32013), NC_ENOFILTER); /* zfp (HDF5 plugin): not built */
    OK(nc_put_var_double(nc, v, in));
    OK(nc_close(nc));
    OK(nc_open(path, NC_WRITE, &nc));
    OK(nc_get_var_double(nc, v, out));
    CHECK(memcmp(in, out, sizeof in) == 0);
    OK(nc_inq_var_deflate(nc, v, &sh, &de, &lv));
    CHECK(sh == 1 && de == 1 && lv == 9);
    OK(nc_inq_var_filter_ids(nc, v, &nf, ids));
    CHECK(nf == 2 && ids[0] == 2 && ids[1] == 1);
    EXPECT(nc_def_var_deflate(nc, v, 0, 1, 1), NC_ELATEDEF);
    {
        /* partial write into a compressed chunk: read-modify-write */
        size_t s1 = 150, c1 = 1;
        double x = -1;
        OK(nc_put_vara_double(nc, v, &s1, &c1, &x));
        OK(nc_get_var_double(nc, v, out));
        CHECK(out[150] == -1 && out[149] == 9 && out[151] == 1);
    }
    OK(nc_close(nc));
    {
        /* 1000 doubles that compress well: the chunk on disk is small */
        char chunk[4300];
        struct stat st;
        snprintf(chunk, sizeof chunk, "%s/deflate.zarr/v/0", base);
        CHECK(stat(chunk, &st) == 0 && st.st_size < 400);
    }
}

int main(int argc, char **argv) {
    if (t_scratch(base, sizeof base, argc, argv, "nc_data_scratch")) return 2;
    test_schar(); test_uchar(); test_short(); test_int(); test_long(); test_float();
    test_double(); test_ubyte(); test_ushort(); test_uint(); test_longlong(); test_ulonglong();
    test_untyped();
    test_conversions();
    test_fill();
    test_strings();
    test_misc();
    test_deflate();
    return t_finish("test_nc_data");
}
