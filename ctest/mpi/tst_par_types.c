/* Every rank writes its slab of a variable of each netCDF type, then every
 * rank reads all the values back from a dataset opened with nc_open_par:
 *
 *   whole        independent access, each rank's rows a whole chunk
 *   shared       independent access, every chunk written by every rank
 *   collective   collective access, every chunk written by every rank
 *   collective-whole  collective access, each rank's rows a whole chunk
 *   zlib         deflate (which makes the variable collective, as in
 *                netCDF-C >= 4.7.4: NC_INDEPENDENT is then NC_EINVAL), each
 *                rank's rows a whole chunk
 *   zlib-shared  deflate, every chunk written by every rank
 *
 * Rows 0..2N-1 belong two to a rank; row 2N is written by the last rank
 * alone (the others, in collective access, take part writing nothing) and
 * row 2N+1 by nobody: it reads as the type's fill value. NC_STRING is
 * in the cases without deflate, except against netCDF-C (HDF5 cannot write
 * variable-length data in parallel). */
#include "par_test.h"

#define NX 6
#define NTYPES 12

static const nc_type types[NTYPES] = {NC_BYTE,  NC_CHAR, NC_SHORT,  NC_INT,  NC_FLOAT, NC_DOUBLE,
                                      NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64, NC_STRING};

static size_t type_size(nc_type t)
{
    switch (t) {
    case NC_BYTE: case NC_CHAR: case NC_UBYTE: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_STRING: return sizeof(char *);
    default: return 8;
    }
}

/* The value of element g (row-major index) of the variable of type t. */
static void value(nc_type t, size_t g, void *out)
{
    static char strings[64][16];
    switch (t) {
    case NC_BYTE: *(signed char *)out = (signed char)((int)(g % 200) - 100); break;
    case NC_CHAR: *(char *)out = (char)('a' + g % 26); break;
    case NC_SHORT: *(short *)out = (short)((int)g * 37 - 1000); break;
    case NC_INT: *(int *)out = (int)g * 100003 - 5000; break;
    case NC_FLOAT: *(float *)out = (float)g * 0.5f - 3.0f; break;
    case NC_DOUBLE: *(double *)out = (double)g * 0.25 - 7.0; break;
    case NC_UBYTE: *(unsigned char *)out = (unsigned char)(g % 250); break;
    case NC_USHORT: *(unsigned short *)out = (unsigned short)(g * 101 % 65000); break;
    case NC_UINT: *(unsigned int *)out = (unsigned int)g * 4000037u; break;
    case NC_INT64: *(long long *)out = (long long)g * 1000000007LL - 42; break;
    case NC_UINT64: *(unsigned long long *)out = (unsigned long long)g * 0x9E3779B97F4A7C15ULL; break;
    case NC_STRING:
        snprintf(strings[g % 64], sizeof strings[0], "s%u", (unsigned)g);
        *(char **)out = strings[g % 64];
        break;
    }
}

/* The default fill value of type t. */
static void fill(nc_type t, void *out)
{
    switch (t) {
    case NC_BYTE: *(signed char *)out = NC_FILL_BYTE; break;
    case NC_CHAR: *(char *)out = NC_FILL_CHAR; break;
    case NC_SHORT: *(short *)out = NC_FILL_SHORT; break;
    case NC_INT: *(int *)out = NC_FILL_INT; break;
    case NC_FLOAT: *(float *)out = NC_FILL_FLOAT; break;
    case NC_DOUBLE: *(double *)out = NC_FILL_DOUBLE; break;
    case NC_UBYTE: *(unsigned char *)out = NC_FILL_UBYTE; break;
    case NC_USHORT: *(unsigned short *)out = NC_FILL_USHORT; break;
    case NC_UINT: *(unsigned int *)out = NC_FILL_UINT; break;
    case NC_INT64: *(long long *)out = NC_FILL_INT64; break;
    case NC_UINT64: *(unsigned long long *)out = NC_FILL_UINT64; break;
    case NC_STRING: *(const char **)out = ""; break;
    }
}

/* Whether element g of type t read back as `got` holds `want`. */
static int same(nc_type t, const void *got, const void *want)
{
    if (t == NC_STRING) {
        const char *a = *(char *const *)got, *b = *(char *const *)want;
        return strcmp(a ? a : "", b) == 0;
    }
    return memcmp(got, want, type_size(t)) == 0;
}

enum layout { WHOLE, SHARED, COLLECTIVE, ZLIB, ZLIB_SHARED, COLLECTIVE_WHOLE };
static const char *names[] = {"whole", "shared", "collective", "zlib", "zlib-shared", "collective-whole"};

static int with_strings(enum layout l)
{
#ifdef NETCDF_C
    (void)l;
    return 0;
#else
    return l != ZLIB && l != ZLIB_SHARED;
#endif
}

static void run(enum layout l)
{
    int ncid, dimids[2], varids[NTYPES], i, n = with_strings(l) ? NTYPES : NTYPES - 1;
    const int deflate = l == ZLIB || l == ZLIB_SHARED;
    const int collective = l == COLLECTIVE || l == COLLECTIVE_WHOLE || deflate;
    const size_t ny = 2 * (size_t)p_size + 2;
    size_t chunks[2], start[2], count[2];
    char name[64];
    void *buf = malloc(ny * NX * 8);
    CHECK(buf != NULL);
    if (l == WHOLE || l == ZLIB || l == COLLECTIVE_WHOLE) {
        chunks[0] = 2; /* rank r's rows 2r, 2r+1 */
        chunks[1] = NX;
    } else {
        chunks[0] = ny; /* every chunk spans every rank's rows */
        chunks[1] = NX / 2;
    }
    snprintf(name, sizeof name, "types-%s", names[l]);

    OK(nc_create_par(p_path(name), NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "y", ny, &dimids[0]));
    OK(nc_def_dim(ncid, "x", NX, &dimids[1]));
    for (i = 0; i < n; i++) {
        char vname[16];
        snprintf(vname, sizeof vname, "v%d", (int)types[i]);
        OK(nc_def_var(ncid, vname, types[i], 2, dimids, &varids[i]));
        OK(nc_def_var_chunking(ncid, varids[i], NC_CHUNKED, chunks));
        if (deflate) {
            OK(nc_def_var_deflate(ncid, varids[i], 0, 1, 1));
            /* a filter makes the variable collective */
            EXPECT(nc_var_par_access(ncid, varids[i], NC_INDEPENDENT), NC_EINVAL);
        }
    }
    OK(nc_enddef(ncid));
    for (i = 0; i < n; i++) {
        size_t g, k;
        if (collective) OK(nc_var_par_access(ncid, varids[i], NC_COLLECTIVE));
        /* this rank's two rows */
        start[0] = 2 * (size_t)p_rank;
        start[1] = 0;
        count[0] = 2;
        count[1] = NX;
        for (k = 0; k < 2 * NX; k++) {
            g = start[0] * NX + k;
            value(types[i], g, (char *)buf + k * type_size(types[i]));
        }
        OK(nc_put_vara(ncid, varids[i], start, count, buf));
        /* row 2N: the last rank alone (in collective access the others
         * take part with nothing to write) */
        start[0] = 2 * (size_t)p_size;
        count[0] = p_rank == p_size - 1 ? 1 : 0;
        for (k = 0; k < NX; k++) value(types[i], start[0] * NX + k, (char *)buf + k * type_size(types[i]));
        if (collective || p_rank == p_size - 1) OK(nc_put_vara(ncid, varids[i], start, count, buf));
    }
    OK(nc_close(ncid));

    /* every rank reads everything */
    OK(nc_open_par(p_path(name), NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    for (i = 0; i < n; i++) {
        char vname[16];
        nc_type t;
        size_t got_chunks[2], g;
        int storage, shuffle, has_deflate, level;
        snprintf(vname, sizeof vname, "v%d", (int)types[i]);
        OK(nc_inq_varid(ncid, vname, &varids[i]));
        OK(nc_inq_vartype(ncid, varids[i], &t));
        CHECK(t == types[i]);
        OK(nc_inq_var_chunking(ncid, varids[i], &storage, got_chunks));
        CHECK(storage == NC_CHUNKED && got_chunks[0] == chunks[0] && got_chunks[1] == chunks[1]);
        OK(nc_inq_var_deflate(ncid, varids[i], &shuffle, &has_deflate, &level));
        CHECK(has_deflate == deflate);
        if (deflate) CHECK(level == 1);
        if (collective) OK(nc_var_par_access(ncid, varids[i], NC_COLLECTIVE));
        memset(buf, 0, ny * NX * 8);
        OK(nc_get_var(ncid, varids[i], buf));
        for (g = 0; g < ny * NX; g++) {
            char want[8];
            const void *got = (char *)buf + g * type_size(t);
            if (g < (ny - 1) * NX)
                value(t, g, want);
            else
                fill(t, want);
            if (!same(t, got, want))
                p_fail(__FILE__, __LINE__, "%s: %s element %u differs", name, vname, (unsigned)g);
            p_checks++;
        }
        if (t == NC_STRING) OK(nc_free_string(ny * NX, (char **)buf));
    }
    OK(nc_close(ncid));
    free(buf);
}

int main(int argc, char **argv)
{
    int l;
    if (!p_start(&argc, &argv)) return 0;
    for (l = WHOLE; l <= COLLECTIVE_WHOLE; l++) run((enum layout)l);
    return p_finish("tst_par_types");
}
