/*
 * zmapio: lists every object of a Zarr/NCZarr store through the zmap API
 * (nczmap_*) of libnczarr_rs, in the output format of netCDF-C's test
 * utility of the same name (nczarr_test/zmapio), which netCDF-C's
 * nczarr_test/run_*.sh scripts call as ${execdir}/zmapio.
 *
 *   zmapio [-h] [-t TYPE] [-F FORMAT] [-x objdump] [-X m] [-d] URL
 *
 * URL is a netCDF-C dataset URL whose fragment selects the store:
 * file:///abs/path#mode=nczarr,file, file://relative.zip#mode=zarr,zip, ...
 * A plain path ending in .zip (or .nzf, .nz4) becomes
 * file://PATH#mode=nczarr,EXT, as in netCDF-C.
 *
 * Every key of the store is walked depth first from the root, children in
 * strcmp order, and numbered in that order, keys without content included.
 * Each key with content is printed as one line:
 *   [N] KEY : (LEN) |CONTENT|          metadata objects (last segment
 *                                      starting with '.'), LEN in bytes
 *   [N] KEY : (COUNT) (TYPE) |V, V|    other objects (chunks), COUNT values
 *                                      of TYPE (-t, default ubyte); -h
 *                                      prints "..." for the values
 *   [N] KEY : (COUNT) |S, S|           chunks with -t string/LEN
 *   [N] KEY : (0) ||                   empty objects
 * Multi-byte values are byte-swapped when the dtype of the .zarray next to
 * the chunk has the other byte order than the host.
 *
 * Written for nczarr-rs against its public API; built and run by
 * tests/netcdf_c/run.sh.
 */
#define _POSIX_C_SOURCE 200809L

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <netcdf.h>

/* ---------------------------------------------------------------------- */
/* Errors */

static void die(const char *fmt, ...)
{
    va_list ap;
    fputs("zmapio: ", stderr);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    exit(1);
}

static void usage(void)
{
    fprintf(stderr, "usage: zmapio [-h] [-t <type>[/<strlen>]] [-F <format>] [-x objdump] [-X m] [-d] <url>\n");
    exit(1);
}

/* Dies with the netCDF error text of a failed zmap call. */
static void check(int stat, const char *what, const char *key)
{
    if (stat != NC_NOERR)
        die("%s%s%s: %s", what, key ? " " : "", key ? key : "", nc_strerror(stat));
}

static void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (p == NULL)
        die("out of memory (%zu bytes)", n);
    return p;
}

static void *xcalloc(size_t n)
{
    void *p = calloc(1, n ? n : 1);
    if (p == NULL)
        die("out of memory (%zu bytes)", n);
    return p;
}

static char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    return memcpy(xmalloc(n), s, n);
}

/* a + b + c, newly allocated. */
static char *concat3(const char *a, const char *b, const char *c)
{
    size_t la = strlen(a), lb = strlen(b), lc = strlen(c);
    char *r;
    if (la > SIZE_MAX - lb - lc - 1)
        die("string too long");
    r = xmalloc(la + lb + lc + 1);
    memcpy(r, a, la);
    memcpy(r + la, b, lb);
    memcpy(r + la + lb, c, lc + 1);
    return r;
}

/* ---------------------------------------------------------------------- */
/* Types and value formats */

enum vclass { V_SIGNED, V_UNSIGNED, V_FLOAT, V_STRING };

struct vtype {
    const char *name;
    size_t size; /* bytes per value; a pointer's size for string, as netCDF-C */
    enum vclass cls;
    const char *format; /* default format of one value */
};

static const struct vtype vtypes[] = {
    {"ubyte", 1, V_UNSIGNED, "%u"},
    {"byte", 1, V_SIGNED, "%d"},
    {"ushort", 2, V_UNSIGNED, "%u"},
    {"short", 2, V_SIGNED, "%d"},
    {"uint", 4, V_UNSIGNED, "%u"},
    {"int", 4, V_SIGNED, "%d"},
    {"uint64", 8, V_UNSIGNED, "%llu"},
    {"int64", 8, V_SIGNED, "%lld"},
    {"float", 4, V_FLOAT, "%f"},
    {"double", 8, V_FLOAT, "%lf"},
    {"char", 1, V_SIGNED, "'%c'"},
    {"string", sizeof(char *), V_STRING, "%*s"},
};
#define NVTYPES (sizeof(vtypes) / sizeof(vtypes[0]))

/* A printf format for one value, checked against the value type and
 * rewritten with the length modifier of the argument that is passed. */
struct vformat {
    char *text;
    char conv;     /* conversion character */
    int star;      /* '*' width: the string length is passed first */
};

/* Parses `spec` (one conversion, any other text, "%%" allowed) for values
 * of type `t`. Returns 0, or -1 with a message in `why`. */
static int parse_format(const char *spec, const struct vtype *t, struct vformat *out, const char **why)
{
    const char *p = spec, *mods_start = NULL, *mods_end = NULL;
    char conv = 0;
    int star = 0;
    const char *allowed;
    const char *length;
    size_t n;

    while (*p) {
        if (*p != '%') {
            p++;
            continue;
        }
        if (p[1] == '%') {
            p += 2;
            continue;
        }
        if (conv) {
            *why = "more than one conversion";
            return -1;
        }
        p++;
        while (*p && strchr("-+ #0", *p))
            p++;
        if (*p == '*') {
            star = 1;
            p++;
        } else {
            while (isdigit((unsigned char)*p))
                p++;
        }
        if (*p == '.') {
            p++;
            while (isdigit((unsigned char)*p))
                p++;
        }
        mods_start = p;
        while (*p && strchr("hlLqjzt", *p))
            p++;
        mods_end = p;
        if (*p == '\0') {
            *why = "incomplete conversion";
            return -1;
        }
        conv = *p++;
    }
    if (!conv) {
        *why = "no conversion";
        return -1;
    }
    switch (t->cls) {
    case V_SIGNED:
    case V_UNSIGNED: allowed = "diouxXc"; break;
    case V_FLOAT: allowed = "fFeEgGaA"; break;
    default: allowed = "s"; break;
    }
    if (strchr(allowed, conv) == NULL) {
        *why = "conversion does not fit the type";
        return -1;
    }
    if (star && t->cls != V_STRING) {
        *why = "'*' width is only for strings";
        return -1;
    }
    length = (t->size == 8 && strchr("diouxX", conv)) ? "ll" : "";
    n = strlen(spec) + 3;
    out->text = xmalloc(n);
    memcpy(out->text, spec, (size_t)(mods_start - spec));
    out->text[mods_start - spec] = '\0';
    strcat(out->text, length);
    strcat(out->text, mods_end);
    out->conv = conv;
    out->star = star;
    return 0;
}

/* ---------------------------------------------------------------------- */
/* Options */

static struct {
    int debug;
    int meta_only;
    int ignore_zmetadata; /* -X m */
    const struct vtype *type;
    long strlen;          /* N of -t string/N */
    struct vformat format;
} opt;

static const struct vtype *decode_type(const char *name)
{
    size_t i;
    if (strncmp(name, "string/", 7) == 0) {
        char *end;
        errno = 0;
        long n = strtol(name + 7, &end, 10);
        if (errno || end == name + 7 || *end != '\0' || n < 0 || n > INT_MAX) {
            fprintf(stderr, "zmapio: bad string length in -t %s\n", name);
            return NULL;
        }
        opt.strlen = n;
        name = "string";
    }
    for (i = 0; i < NVTYPES; i++)
        if (strcasecmp(vtypes[i].name, name) == 0)
            return &vtypes[i];
    fprintf(stderr, "zmapio: unknown type %s\n", name);
    return NULL;
}

/* ---------------------------------------------------------------------- */
/* Dataset names */

/* Removes shell escapes: "\c" becomes "c". */
static char *shell_unescape(const char *s)
{
    char *r = xmalloc(strlen(s) + 1), *q = r;
    for (; *s; s++) {
        if (*s == '\\' && s[1] != '\0')
            s++;
        *q++ = *s;
    }
    *q = '\0';
    return r;
}

/* scheme://... */
static int is_url(const char *s)
{
    const char *p = s;
    if (!isalpha((unsigned char)*p))
        return 0;
    while (isalnum((unsigned char)*p) || *p == '+' || *p == '-' || *p == '.')
        p++;
    return strncmp(p, "://", 3) == 0;
}

/* A plain path ending in .nzf, .zip or .nz4 becomes a file:// URL with that
 * extension as the storage mode; anything else is kept. */
static char *dataset_url(const char *arg)
{
    static const char *const exts[] = {"nzf", "zip", "nz4"};
    const char *dot;
    size_t i;
    if (is_url(arg) || (dot = strrchr(arg, '.')) == NULL)
        return xstrdup(arg);
    for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
        if (strcmp(dot + 1, exts[i]) == 0) {
            char *base = concat3("file://", arg, "#mode=nczarr,");
            char *url = concat3(base, exts[i], "");
            free(base);
            return url;
        }
    }
    return xstrdup(arg);
}

/* The zmap implementation the "mode" of the URL's fragment names (its
 * first of file, zip, s3), or NCZM_UNDEF. */
static NCZM_IMPL impl_for(const char *url)
{
    const char *frag = strchr(url, '#');
    NCZM_IMPL impl = NCZM_UNDEF;
    char *copy, *pair, *save1 = NULL;
    if (!is_url(url) || frag == NULL)
        return NCZM_UNDEF;
    copy = xstrdup(frag + 1);
    for (pair = strtok_r(copy, "&", &save1); pair && impl == NCZM_UNDEF; pair = strtok_r(NULL, "&", &save1)) {
        char *eq = strchr(pair, '='), *v, *save2 = NULL;
        if (eq == NULL)
            continue;
        *eq = '\0';
        if (strcasecmp(pair, "mode") != 0)
            continue;
        for (v = strtok_r(eq + 1, ",", &save2); v; v = strtok_r(NULL, ",", &save2)) {
            if (strcmp(v, "file") == 0) impl = NCZM_FILE;
            else if (strcmp(v, "zip") == 0) impl = NCZM_ZIP;
            else if (strcmp(v, "s3") == 0) impl = NCZM_S3;
            if (impl != NCZM_UNDEF)
                break;
        }
        break; /* the first mode= counts */
    }
    free(copy);
    return impl;
}

/* ---------------------------------------------------------------------- */
/* The key walk */

struct keys {
    char **v;
    size_t n, cap;
};

static void keys_push(struct keys *k, char *key)
{
    if (k->n == k->cap) {
        size_t cap = k->cap ? 2 * k->cap : 64;
        char **v = realloc(k->v, cap * sizeof(*v));
        if (v == NULL)
            die("out of memory");
        k->v = v;
        k->cap = cap;
    }
    k->v[k->n++] = key;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Appends every key below `prefix` ("/" for the root) to `out`: each child
 * in strcmp order, followed by its own subtree. */
static void walk(int map, const char *prefix, struct keys *out)
{
    size_t n = 0, i;
    char **names = NULL;
    int root = strcmp(prefix, "/") == 0;
    check(nczmap_search(map, prefix, &n, &names), "cannot list", prefix);
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_names);
    for (i = 0; i < n; i++) {
        char *key = concat3(root ? "" : prefix, "/", names[i]);
        keys_push(out, key);
        walk(map, key, out);
    }
    check(nczmap_free_names(n, names), "cannot free names under", prefix);
}

/* ---------------------------------------------------------------------- */
/* Chunk byte order */

static int host_is_little(void)
{
    const unsigned int one = 1;
    return *(const unsigned char *)&one == 1;
}

/* A minimal JSON reader: enough to find "dtype" in a .zarray. */
struct json {
    const char *p, *end;
};

static void json_ws(struct json *j)
{
    while (j->p < j->end && *j->p && strchr(" \t\r\n", *j->p))
        j->p++;
}

/* Reads a string; stores it (escapes dropped, good enough for dtypes) in
 * *out when out is not NULL. */
static int json_string(struct json *j, char **out)
{
    const char *start;
    char *s, *q;
    if (j->p >= j->end || *j->p != '"')
        return -1;
    start = ++j->p;
    while (j->p < j->end && *j->p != '"') {
        if (*j->p == '\\')
            j->p++;
        j->p++;
    }
    if (j->p >= j->end)
        return -1;
    if (out) {
        s = q = xmalloc((size_t)(j->p - start) + 1);
        for (; start < j->p; start++) {
            if (*start == '\\')
                start++;
            *q++ = *start;
        }
        *q = '\0';
        *out = s;
    }
    j->p++;
    return 0;
}

static int json_value(struct json *j, int depth);

static int json_container(struct json *j, int depth, char close, const char *want, char **found)
{
    j->p++;
    json_ws(j);
    if (j->p < j->end && *j->p == close) {
        j->p++;
        return 0;
    }
    for (;;) {
        json_ws(j);
        if (close == '}') {
            char *name = NULL;
            int match;
            if (json_string(j, &name))
                return -1;
            match = want && strcmp(name, want) == 0;
            free(name);
            json_ws(j);
            if (j->p >= j->end || *j->p != ':')
                return -1;
            j->p++;
            json_ws(j);
            if (match && j->p < j->end && *j->p == '"') {
                free(*found);
                *found = NULL;
                if (json_string(j, found))
                    return -1;
            } else if (json_value(j, depth + 1)) {
                return -1;
            }
        } else if (json_value(j, depth + 1)) {
            return -1;
        }
        json_ws(j);
        if (j->p >= j->end)
            return -1;
        if (*j->p == close) {
            j->p++;
            return 0;
        }
        if (*j->p != ',')
            return -1;
        j->p++;
    }
}

static int json_value(struct json *j, int depth)
{
    if (depth > 512)
        return -1;
    json_ws(j);
    if (j->p >= j->end)
        return -1;
    switch (*j->p) {
    case '"': return json_string(j, NULL);
    case '{': return json_container(j, depth, '}', NULL, NULL);
    case '[': return json_container(j, depth, ']', NULL, NULL);
    default:
        if (*j->p == '\0' || !strchr("-+.0123456789eEtruefalsn", *j->p))
            return -1;
        while (j->p < j->end && *j->p && strchr("-+.0123456789eEtruefalsn", *j->p))
            j->p++;
        return 0;
    }
}

/* Whether the values of chunk `key` must be byte-swapped: the dtype of the
 * .zarray beside it says its byte order ('<' little, '>' big, anything else
 * the host's). A chunk with no .zarray beside it is in host order. */
static int chunk_needs_swap(int map, const char *key)
{
    const char *slash = strrchr(key, '/');
    char *prefix, *zarray, *text, *dtype = NULL;
    size64_t len = 0;
    struct json j;
    int stat, little = host_is_little();
    if (slash == NULL || slash == key)
        return 0;
    prefix = xmalloc((size_t)(slash - key) + 1);
    memcpy(prefix, key, (size_t)(slash - key));
    prefix[slash - key] = '\0';
    zarray = concat3(prefix, "/.zarray", "");
    free(prefix);
    stat = nczmap_len(map, zarray, &len);
    if (stat == NC_EEMPTY || stat == NC_ENOOBJECT) {
        free(zarray);
        return 0;
    }
    check(stat, "cannot get the size of", zarray);
    if (len >= SIZE_MAX)
        die("%s is too large", zarray);
    text = xcalloc((size_t)len + 1);
    check(nczmap_read(map, zarray, 0, len, text), "cannot read", zarray);
    j.p = text;
    j.end = text + len;
    json_ws(&j);
    if (j.p >= j.end || *j.p != '{' || json_container(&j, 0, '}', "dtype", &dtype))
        die("%s is not a JSON object", zarray);
    if (dtype == NULL)
        die("%s has no string \"dtype\"", zarray);
    if (dtype[0] == '<')
        little = 1;
    else if (dtype[0] == '>')
        little = 0;
    /* fixed-length strings have no byte order */
    if (strchr("<>|", dtype[0]) && dtype[0] != '\0' && dtype[1] == 'S')
        little = host_is_little();
    free(dtype);
    free(text);
    free(zarray);
    return little != host_is_little();
}

/* ---------------------------------------------------------------------- */
/* Printing */

/* Prints `count` values of chunk `key` from `content` (`size` bytes
 * followed by at least a value's size of zeros and a NUL). */
static void print_values(int map, const char *key, const unsigned char *content, size_t size, size_t count)
{
    const struct vtype *t = opt.type;
    const struct vformat *f = &opt.format;
    int swap = 0;
    size_t i, k;
    if (t->size > 1 && t->cls != V_STRING)
        swap = chunk_needs_swap(map, key);
    for (i = 0; i < count; i++) {
        unsigned char raw[8];
        if (i > 0)
            fputs(", ", stdout);
        if (t->cls == V_STRING) {
            size_t at = (size_t)opt.strlen * i;
            const char *s = at < size ? (const char *)content + at : "";
            if (f->star)
                printf(f->text, (int)opt.strlen, s);
            else
                printf(f->text, s);
            continue;
        }
        for (k = 0; k < t->size; k++)
            raw[k] = content[i * t->size + (swap ? t->size - 1 - k : k)];
        if (t->cls == V_FLOAT) {
            double d;
            if (t->size == 4) {
                float v;
                memcpy(&v, raw, 4);
                d = v;
            } else {
                memcpy(&d, raw, 8);
            }
            printf(f->text, d);
            continue;
        }
        {
            /* the value's bits, extended to 64 with the type's sign */
            unsigned long long bits = 0;
            if (t->size == 1) bits = raw[0];
            else if (t->size == 2) { unsigned short v; memcpy(&v, raw, 2); bits = v; }
            else if (t->size == 4) { unsigned int v; memcpy(&v, raw, 4); bits = v; }
            else { memcpy(&bits, raw, 8); }
            if (t->cls == V_SIGNED && t->size < 8 && ((bits >> (8 * t->size - 1)) & 1))
                bits |= ~0ULL << (8 * t->size);
            switch (f->conv) {
            case 'd':
            case 'i':
                if (t->size == 8)
                    printf(f->text, (long long)bits);
                else
                    printf(f->text, (int)(long long)bits);
                break;
            case 'c':
                printf(f->text, (int)(unsigned char)bits);
                break;
            default:
                if (t->size == 8)
                    printf(f->text, bits);
                else
                    printf(f->text, (unsigned int)bits);
                break;
            }
        }
    }
}

/* netCDF-C's key kinds: metadata (last segment starts with '.'), or chunk. */
enum kind { K_META, K_CHUNK, K_IGNORE };

static enum kind key_kind(const char *key)
{
    const char *last = strrchr(key, '/');
    last = last ? last + 1 : key;
    if (last[0] == '.')
        return (opt.ignore_zmetadata && strcmp(last, ".zmetadata") == 0) ? K_IGNORE : K_META;
    return K_CHUNK;
}

static void dump(int map, const struct keys *keys)
{
    size_t i;
    for (i = 0; i < keys->n; i++) {
        const char *key = keys->v[i];
        enum kind kind = key_kind(key);
        size64_t len = 0;
        size_t size, count;
        unsigned char *content;
        int stat = nczmap_len(map, key, &len);
        if (stat == NC_EEMPTY || stat == NC_ENOOBJECT || stat == NC_EACCESS)
            continue; /* not a content-bearing key */
        check(stat, "cannot get the size of", key);
        if (len == 0) {
            printf("[%zu] %s : (0) ||\n", i, key);
            continue;
        }
        if (len > SIZE_MAX - opt.type->size - 1)
            die("%s is too large", key);
        size = (size_t)len;
        count = size;
        if (kind == K_CHUNK)
            count = size / opt.type->size + (size % opt.type->size != 0);
        printf("[%zu] %s : (%zu)", i, key, count);
        if (kind == K_CHUNK && opt.type->cls != V_STRING)
            printf(" (%s)", opt.type->name);
        fputs(" |", stdout);
        if (kind != K_IGNORE && !(kind == K_CHUNK && opt.meta_only)) {
            content = xcalloc(size + opt.type->size + 1);
            check(nczmap_read(map, key, 0, len, content), "cannot read", key);
            if (kind == K_META)
                fwrite(content, 1, size, stdout);
            else
                print_values(map, key, content, size, count);
            free(content);
        } else if (kind == K_CHUNK) {
            fputs("...", stdout);
        }
        fputs("|\n", stdout);
    }
}

/* ---------------------------------------------------------------------- */

int main(int argc, char **argv)
{
    const char *format = NULL, *why = NULL;
    char *arg, *url;
    NCZM_IMPL impl;
    struct keys keys = {NULL, 0, 0};
    int c, map = -1, objdump_asked = 0;
    size_t i;

    while ((c = getopt(argc, argv, "dhvx:t:F:T:X:")) != -1) {
        switch (c) {
        case 'd': opt.debug = 1; break;
        case 'h': opt.meta_only = 1; break;
        case 't':
            if ((opt.type = decode_type(optarg)) == NULL)
                usage();
            break;
        case 'x':
            /* objdump is the only action; netCDF-C accepts "clear" too and
             * dumps anyway */
            if (strcasecmp(optarg, "objdump") == 0)
                objdump_asked = 1;
            else if (strcasecmp(optarg, "clear") != 0)
                usage();
            break;
        case 'F': format = optarg; break;
        case 'T': break; /* netCDF-C's trace level: nothing to trace here */
        case 'X':
            for (arg = optarg; *arg; arg++) {
                if (*arg == 'm')
                    opt.ignore_zmetadata = 1;
                else
                    die("unknown -X flag '%c'", *arg);
            }
            break;
        default: usage();
        }
    }
    if (opt.type == NULL) {
        opt.type = &vtypes[0];
        fprintf(stderr, "Default type: %s\n", opt.type->name);
    }
    if (parse_format(format ? format : opt.type->format, opt.type, &opt.format, &why))
        die("bad format '%s' for type %s: %s", format ? format : opt.type->format, opt.type->name, why);
    if (argc - optind > 1)
        die("only one input file argument permitted");
    if (argc - optind == 0)
        die("no input file specified");

    arg = shell_unescape(argv[optind]);
    url = dataset_url(arg);
    free(arg);
    if ((impl = impl_for(url)) == NCZM_UNDEF) {
        fprintf(stderr, "zmapio: %s: not a URL with #mode=...,file|zip|s3\n", url);
        usage();
    }
    if (!objdump_asked)
        fprintf(stderr, "Default action: objdump\n");

    check(nczmap_open(impl, url, NC_NOWRITE, 0, NULL, &map), "cannot open", url);
    walk(map, "/", &keys);
    if (opt.debug) {
        fprintf(stderr, "stack:\n");
        for (i = 0; i < keys.n; i++)
            fprintf(stderr, "[%zu] %s\n", i, keys.v[i]);
    }
    dump(map, &keys);
    check(nczmap_close(map, 0), "cannot close", url);

    for (i = 0; i < keys.n; i++)
        free(keys.v[i]);
    free(keys.v);
    free(opt.format.text);
    free(url);
    if (fflush(stdout) != 0 || ferror(stdout))
        die("cannot write the output: %s", strerror(errno));
    return 0;
}
