/* ncwalk: prints any netCDF dataset canonically, using only the standard
 * netCDF C API, so that the same source built against two netCDF libraries
 * can be compared line by line (tests/interop/run.sh).
 *
 *   group <full name>
 *   dim <name> <len> [unlimited]
 *   var <name> <type> (<dim>,<dim>) [chunks=<c>,<c>] [fill=<value>|nofill]
 *   att <owner> <name> <type> <values>
 *
 * Values: integers exactly, floats with %.9g, doubles with %.17g, char
 * attributes as one JSON string, string attributes as a JSON list. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int status = 0;
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
        int vdims[NC_MAX_VAR_DIMS], vndims, vnatts, storage, nofill;
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
        if (t != NC_STRING && t != NC_CHAR && nc_inq_var_fill(ncid, i, &nofill, fill) == NC_NOERR) {
            if (nofill) printf(" nofill");
            else { printf(" fill="); print_values(t, 1, fill); }
        }
        printf("\n");
        walk_atts(ncid, i, name, vnatts);
    }
    TRY(nc_inq_grps(ncid, &ngrps, NULL));
    grps = malloc(sizeof(int) * (size_t)(ngrps + 1));
    TRY(nc_inq_grps(ncid, NULL, grps));
    for (i = 0; i < ngrps; i++) walk_group(grps[i]);
    free(grps);
}

int main(int argc, char **argv) {
    int ncid, rc, format;
    if (argc != 2) {
        fprintf(stderr, "usage: ncwalk PATH-OR-URL\n");
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
