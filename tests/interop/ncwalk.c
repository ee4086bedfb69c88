/* ncwalk: prints any netCDF dataset canonically, using only the standard
 * netCDF C API, so that the same source built against two netCDF libraries
 * can be compared line by line (tests/interop/run.sh).
 *
 *   group <full name>
 *   dim <name> <len> [unlimited]
 *   var <name> <type> (<dim>,<dim>) [chunks=<c>,<c>] [fill=<value>|nofill] endian=<n>
 *   att <owner> <name> <type> <values>
 *   data <var> n=<count> fill=<elements equal to the fill value> <values>
 *   strided <var> <values of every other element along each dimension>
 *
 * Values: integers exactly, floats with %.9g, doubles with %.17g, char
 * attributes as one JSON string, string attributes as a JSON list. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int status = 0;
static int with_data = 1;
#define TRY(call) do { int rc_ = (call); if (rc_ != NC_NOERR) { \
    fprintf(stderr, "ncwalk: %s: %s\n", #call, nc_strerror(rc_)); status = 1; return; } } while (0)

static const char *tname(nc_type t) {
    static const char *names[] = {"nat", "byte", "char", "short", "int", "float", "double",
                                  "ubyte", "ushort", "uint", "int64", "uint64", "string"};
    return (t >= 0 && t <= NC_STRING) ? names[t] : "usertype";
}

static void print_json_string(const char *s, size_t n) {
    size_t i;
    putchar('"');
    for (i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void print_values(nc_type t, size_t n, const void *p) {
    size_t i;
    for (i = 0; i < n; i++) {
        if (i) putchar(',');
        switch (t) {
        case NC_BYTE: printf("%d", ((const signed char *)p)[i]); break;
        case NC_UBYTE: printf("%u", ((const unsigned char *)p)[i]); break;
        case NC_SHORT: printf("%d", ((const short *)p)[i]); break;
        case NC_USHORT: printf("%u", ((const unsigned short *)p)[i]); break;
        case NC_INT: printf("%d", ((const int *)p)[i]); break;
        case NC_UINT: printf("%u", ((const unsigned int *)p)[i]); break;
        case NC_INT64: printf("%lld", ((const long long *)p)[i]); break;
        case NC_UINT64: printf("%llu", ((const unsigned long long *)p)[i]); break;
        case NC_FLOAT: printf("%.9g", (double)((const float *)p)[i]); break;
        case NC_DOUBLE: printf("%.17g", ((const double *)p)[i]); break;
        default: printf("?"); break;
        }
    }
}

static size_t type_size(nc_type t) {
    switch (t) {
    case NC_BYTE: case NC_UBYTE: case NC_CHAR: return 1;
    case NC_SHORT: case NC_USHORT: return 2;
    case NC_INT: case NC_UINT: case NC_FLOAT: return 4;
    case NC_STRING: return sizeof(char *);
    default: return 8;
    }
}

static void walk_atts(int ncid, int varid, const char *owner, int natts) {
    int a;
    for (a = 0; a < natts; a++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        size_t len;
        void *buf;
        TRY(nc_inq_attname(ncid, varid, a, name));
        TRY(nc_inq_att(ncid, varid, name, &t, &len));
        printf("att %s %s %s ", owner, name, tname(t));
        buf = calloc(len + 1, type_size(t));
        if (t == NC_STRING) {
            size_t i;
            TRY(nc_get_att_string(ncid, varid, name, (char **)buf));
            putchar('[');
            for (i = 0; i < len; i++) {
                const char *s = ((char **)buf)[i];
                if (i) putchar(',');
                print_json_string(s ? s : "", s ? strlen(s) : 0);
            }
            putchar(']');
            nc_free_string(len, (char **)buf);
        } else if (t == NC_CHAR) {
            TRY(nc_get_att_text(ncid, varid, name, (char *)buf));
            print_json_string((const char *)buf, len);
        } else {
            TRY(nc_get_att(ncid, varid, name, buf));
            print_values(t, len, buf);
        }
        putchar('\n');
        free(buf);
    }
}

/* FNV-1a over the printed values of large variables. */
static unsigned long long fnv(unsigned long long h, const char *s) {
    for (; *s; s++) { h ^= (unsigned char)*s; h *= 1099511628211ULL; }
    return h;
}

static void print_elem(nc_type t, const void *p, size_t i, char *out, size_t outlen) {
    switch (t) {
    case NC_BYTE: snprintf(out, outlen, "%d", ((const signed char *)p)[i]); break;
    case NC_UBYTE: snprintf(out, outlen, "%u", ((const unsigned char *)p)[i]); break;
    case NC_CHAR: snprintf(out, outlen, "%u", ((const unsigned char *)p)[i]); break;
    case NC_SHORT: snprintf(out, outlen, "%d", ((const short *)p)[i]); break;
    case NC_USHORT: snprintf(out, outlen, "%u", ((const unsigned short *)p)[i]); break;
    case NC_INT: snprintf(out, outlen, "%d", ((const int *)p)[i]); break;
    case NC_UINT: snprintf(out, outlen, "%u", ((const unsigned int *)p)[i]); break;
    case NC_INT64: snprintf(out, outlen, "%lld", ((const long long *)p)[i]); break;
    case NC_UINT64: snprintf(out, outlen, "%llu", ((const unsigned long long *)p)[i]); break;
    case NC_FLOAT: snprintf(out, outlen, "%.9g", (double)((const float *)p)[i]); break;
    case NC_DOUBLE: snprintf(out, outlen, "%.17g", ((const double *)p)[i]); break;
    case NC_STRING: {
        /* netCDF-C returns NULL for an empty string, nczarr-rs "": print both as "" */
        const char *s = ((char *const *)p)[i];
        size_t n = 0;
        out[n++] = '"';
        for (; s && *s && n + 8 < outlen; s++) {
            if (*s == '"' || *s == '\\') out[n++] = '\\';
            out[n++] = *s;
        }
        out[n++] = '"';
        out[n] = 0;
        break;
    }
    default: snprintf(out, outlen, "?");
    }
}

/* Prints "data": all values (a digest past 512 elements) and the number of
 * elements equal to the fill value; then a strided read. */
static void walk_data(int ncid, int varid, const char *name, nc_type t, int ndims, const int *dimids) {
    size_t shape[NC_MAX_VAR_DIMS], count[NC_MAX_VAR_DIMS], start[NC_MAX_VAR_DIMS];
    ptrdiff_t stride[NC_MAX_VAR_DIMS];
    size_t n = 1, i, nfill = 0, sz = type_size(t);
    unsigned char fill[64];
    int nofill = 1, j, pass;
    char buf[1024];
    void *data;
    for (j = 0; j < ndims; j++) {
        TRY(nc_inq_dimlen(ncid, dimids[j], &shape[j]));
        n *= shape[j];
    }
    if (n > 50000000) { printf("data %s n=%lu skipped\n", name, (unsigned long)n); return; }
    if (t != NC_STRING && nc_inq_var_fill(ncid, varid, &nofill, fill) != NC_NOERR) nofill = 1;
    for (pass = 0; pass < 2; pass++) {
        size_t m = 1;
        for (j = 0; j < ndims; j++) {
            start[j] = 0;
            stride[j] = pass ? 2 : 1;
            count[j] = pass ? (shape[j] + 1) / 2 : shape[j];
            m *= count[j];
        }
        data = calloc(m ? m : 1, sz);
        if (m > 0) {
            if (pass) TRY(nc_get_vars(ncid, varid, start, count, stride, data));
            else TRY(nc_get_vara(ncid, varid, start, count, data));
        }
        if (!pass) {
            for (i = 0; i < m; i++)
                if (!nofill && t != NC_STRING && memcmp((char *)data + i * sz, fill, sz) == 0) nfill++;
            printf("data %s n=%lu fill=%lu", name, (unsigned long)m, (unsigned long)nfill);
        } else {
            printf("strided %s", name);
        }
        if (m <= 512) {
            for (i = 0; i < m; i++) {
                print_elem(t, data, i, buf, sizeof buf);
                printf("%s%s", i ? "," : " ", buf);
            }
        } else {
            unsigned long long h = 1469598103934665603ULL;
            for (i = 0; i < m; i++) {
                print_elem(t, data, i, buf, sizeof buf);
                h = fnv(fnv(h, buf), ",");
            }
            printf(" digest=%016llx", h);
        }
        printf("\n");
        if (t == NC_STRING && m > 0) nc_free_string(m, (char **)data);
        free(data);
    }
}

static void walk_group(int ncid) {
    char full[4096];
    size_t len;
    int ndims, dimids[NC_MAX_DIMS], nunlim, unlim[NC_MAX_DIMS], nvars, natts, ngrps, *grps, i, j;
    TRY(nc_inq_grpname_full(ncid, &len, full));
    printf("group %s\n", full);
    TRY(nc_inq_dimids(ncid, &ndims, dimids, 0));
    TRY(nc_inq_unlimdims(ncid, &nunlim, unlim));
    for (i = 0; i < ndims; i++) {
        char name[NC_MAX_NAME + 1];
        int u = 0;
        TRY(nc_inq_dim(ncid, dimids[i], name, &len));
        for (j = 0; j < nunlim; j++) if (unlim[j] == dimids[i]) u = 1;
        printf("dim %s %lu%s\n", name, (unsigned long)len, u ? " unlimited" : "");
    }
    TRY(nc_inq_natts(ncid, &natts));
    walk_atts(ncid, NC_GLOBAL, "/", natts);
    TRY(nc_inq_nvars(ncid, &nvars));
    for (i = 0; i < nvars; i++) {
        char name[NC_MAX_NAME + 1];
        nc_type t;
        int vdims[NC_MAX_VAR_DIMS], vndims, vnatts, storage, nofill, endian;
        size_t chunks[NC_MAX_VAR_DIMS];
        unsigned char fill[64];
        TRY(nc_inq_var(ncid, i, name, &t, &vndims, vdims, &vnatts));
        printf("var %s %s (", name, tname(t));
        for (j = 0; j < vndims; j++) {
            char dname[NC_MAX_NAME + 1];
            TRY(nc_inq_dimname(ncid, vdims[j], dname));
            printf("%s%s", j ? "," : "", dname);
        }
        printf(")");
        if (vndims > 0 && nc_inq_var_chunking(ncid, i, &storage, chunks) == NC_NOERR && storage == NC_CHUNKED) {
            printf(" chunks=");
            for (j = 0; j < vndims; j++) printf("%s%lu", j ? "," : "", (unsigned long)chunks[j]);
        }
        memset(fill, 0xA5, sizeof fill);
        if (t != NC_STRING && t != NC_CHAR && nc_inq_var_fill(ncid, i, &nofill, fill) == NC_NOERR) {
            /* netCDF-C leaves the buffer of a NOFILL variable alone */
            if (nofill) printf(" nofill%s", fill[0] == 0xA5 ? "" : " (fill buffer written)");
            else { printf(" fill="); print_values(t, 1, fill); }
        }
        if (nc_inq_var_endian(ncid, i, &endian) == NC_NOERR) printf(" endian=%d", endian);
        printf("\n");
        walk_atts(ncid, i, name, vnatts);
        if (with_data) walk_data(ncid, i, name, t, vndims, vdims);
    }
    TRY(nc_inq_grps(ncid, &ngrps, NULL));
    grps = malloc(sizeof(int) * (size_t)(ngrps + 1));
    TRY(nc_inq_grps(ncid, NULL, grps));
    for (i = 0; i < ngrps; i++) walk_group(grps[i]);
    free(grps);
}

int main(int argc, char **argv) {
    int ncid, rc, format;
    if (argc == 3 && strcmp(argv[1], "-h") == 0) {
        with_data = 0;
        argv++;
        argc--;
    }
    if (argc != 2) {
        fprintf(stderr, "usage: ncwalk [-h] PATH-OR-URL\n");
        return 2;
    }
    if ((rc = nc_open(argv[1], NC_NOWRITE, &ncid)) != NC_NOERR) {
        fprintf(stderr, "ncwalk: open %s: %s\n", argv[1], nc_strerror(rc));
        return 1;
    }
    if (nc_inq_format(ncid, &format) == NC_NOERR) printf("format %d\n", format);
    walk_group(ncid);
    nc_close(ncid);
    return status;
}
