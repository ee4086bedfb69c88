/* The zmap C API end to end on the file driver (and the memory driver). */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include <unistd.h>

static char root[4096];
static char url[4200];

static int names_equal(size_t n, char **names, const char **want, size_t nwant) {
    size_t i;
    if (n != nwant) return 0;
    for (i = 0; i < n; i++)
        if (strcmp(names[i], want[i]) != 0) return 0;
    return 1;
}

static void check_search(int map, const char *prefix, const char **want, size_t nwant) {
    size_t n = 0;
    char **names = NULL;
    int rc = nczmap_search(map, prefix, &n, &names);
    EXPECT(rc, NC_NOERR);
    if (rc != NC_NOERR) return;
    CHECK(names_equal(n, names, want, nwant));
    if (!names_equal(n, names, want, nwant)) {
        size_t i;
        fprintf(stderr, "  search(%s) gave %lu names:", prefix ? prefix : "NULL", (unsigned long)n);
        for (i = 0; i < n; i++) fprintf(stderr, " %s", names[i]);
        fprintf(stderr, "\n");
    }
    OK(nczmap_free_names(n, names));
}

static void put(int map, const char *key, const char *text) {
    OK(nczmap_write(map, key, 0, strlen(text), text));
}

static void test_file_driver(const char *scratch) {
    int map = -1, ro = -1, other = -1;
    int ints[25], back[25], i;
    size64_t len = 0;
    char buf[64];

    snprintf(root, sizeof root, "%s/ds.file", scratch);
    snprintf(url, sizeof url, "file://%s#mode=nczarr,file", root);

    /* create (clobbering any leftover from an earlier run) */
    OK(nczmap_create(NCZM_FILE, url, 0, 0, NULL, &map));
    CHECK(map > 0);
    CHECK(t_path_exists(root));

    /* NC_NOCLOBBER on an existing dataset */
    EXPECT(nczmap_create(NCZM_FILE, url, NC_NOCLOBBER, 0, NULL, &other), NC_EOBJECT);

    /* metadata objects and a chunk; intermediate directories are implicit */
    put(map, "/.zgroup", "{\"zarr_format\": 2}");
    put(map, "/.zattrs", "{}");
    put(map, "/meta1/.zarray", "{\"zarr_format\": 2, \"shape\": [25]}");
    put(map, "/grp/sub/.zgroup", "{\"zarr_format\": 2}");
    for (i = 0; i < 25; i++) ints[i] = i * i;
    OK(nczmap_write(map, "/data1/0", 0, sizeof ints, ints));

    /* exists / len */
    OK(nczmap_exists(map, "/.zgroup"));
    OK(nczmap_exists(map, "/data1/0"));
    EXPECT(nczmap_exists(map, "/data1"), NC_EEMPTY);        /* interior key: no content */
    EXPECT(nczmap_exists(map, "/nosuch"), NC_EEMPTY);
    OK(nczmap_len(map, "/data1/0", &len));
    CHECK(len == sizeof ints);
    len = 99;
    EXPECT(nczmap_len(map, "/nosuch", &len), NC_EEMPTY);
    CHECK(len == 99); /* outputs only on success */

    /* ranged reads */
    memset(back, 0, sizeof back);
    OK(nczmap_read(map, "/data1/0", 0, sizeof ints, back));
    CHECK(memcmp(ints, back, sizeof ints) == 0);
    OK(nczmap_read(map, "/data1/0", 10 * sizeof(int), 5 * sizeof(int), back));
    CHECK(back[0] == 100 && back[4] == 196);
    EXPECT(nczmap_read(map, "/data1/0", 24 * sizeof(int), 2 * sizeof(int), back), NC_EEDGE);
    EXPECT(nczmap_read(map, "/nosuch", 0, 1, buf), NC_EEMPTY);
    OK(nczmap_read(map, "/data1/0", 0, 0, NULL));

    /* writing in pieces, then overwriting with a shorter object */
    OK(nczmap_write(map, "/pieces", 0, 3, "abc"));
    OK(nczmap_write(map, "/pieces", 3, 3, "def"));
    memset(buf, 0, sizeof buf);
    OK(nczmap_read(map, "/pieces", 0, 6, buf));
    CHECK(strcmp(buf, "abcdef") == 0);
    OK(nczmap_write(map, "/pieces", 0, 2, "xy"));
    OK(nczmap_len(map, "/pieces", &len));
    CHECK(len == 2);

    /* search at several depths */
    {
        const char *top[] = {".zattrs", ".zgroup", "data1", "grp", "meta1", "pieces"};
        const char *meta1[] = {".zarray"};
        const char *grp[] = {"sub"};
        const char *sub[] = {".zgroup"};
        check_search(map, NULL, top, 6);
        check_search(map, "", top, 6);
        check_search(map, "/", top, 6);
        check_search(map, "/meta1", meta1, 1);
        check_search(map, "/grp", grp, 1);
        check_search(map, "/grp/sub", sub, 1);
        check_search(map, "/grp/sub/.zgroup", NULL, 0); /* an object has no children */
    }
    {
        size_t n = 7;
        char **names = (char **)1;
        EXPECT(nczmap_search(map, "/nosuch", &n, &names), NC_ENOOBJECT);
        CHECK(n == 7 && names == (char **)1);
        EXPECT(nczmap_search(map, "/", NULL, &names), NC_EINVAL);
        EXPECT(nczmap_search(map, "/", &n, NULL), NC_EINVAL);
    }

    /* bad keys: escapes, empty segments, control characters */
    EXPECT(nczmap_write(map, "/../escape", 0, 1, "x"), NC_EINVAL);
    EXPECT(nczmap_write(map, "/a/../../escape", 0, 1, "x"), NC_EINVAL);
    EXPECT(nczmap_write(map, "/a//b", 0, 1, "x"), NC_EINVAL);
    EXPECT(nczmap_write(map, "/a/\x01", 0, 1, "x"), NC_EINVAL);
    EXPECT(nczmap_exists(map, "/./x"), NC_EINVAL);
    EXPECT(nczmap_read(map, "/..", 0, 1, buf), NC_EINVAL);
    {
        char escaped[4200];
        snprintf(escaped, sizeof escaped, "%s/../escape", root);
        CHECK(!t_path_exists(escaped));
    }
    /* the tree rule: an object key may not prefix another */
    EXPECT(nczmap_write(map, "/data1/0/x", 0, 1, "x"), NC_EOBJECT);
    EXPECT(nczmap_write(map, "/data1", 0, 1, "x"), NC_EOBJECT);

    /* NULL pointers */
    EXPECT(nczmap_exists(map, NULL), NC_EINVAL);
    EXPECT(nczmap_len(map, "/.zgroup", NULL), NC_EINVAL);
    EXPECT(nczmap_read(map, "/.zgroup", 0, 4, NULL), NC_EINVAL);
    EXPECT(nczmap_write(map, "/k", 0, 4, NULL), NC_EINVAL);
    EXPECT(nczmap_create(NCZM_FILE, NULL, 0, 0, NULL, &other), NC_EINVAL);
    EXPECT(nczmap_create(NCZM_FILE, url, 0, 0, NULL, NULL), NC_EINVAL);
    EXPECT(nczmap_open(NCZM_FILE, url, 0, 0, NULL, NULL), NC_EINVAL);
    EXPECT(nczmap_open(NCZM_FILE, "", 0, 0, NULL, &other), NC_EINVAL);

    /* a second, read-only map on the same dataset */
    OK(nczmap_open(NCZM_FILE, url, NC_NOWRITE, 0, NULL, &ro));
    CHECK(ro > 0 && ro != map);
    OK(nczmap_exists(ro, "/meta1/.zarray"));
    EXPECT(nczmap_write(ro, "/new", 0, 1, "x"), NC_EPERM);
    EXPECT(nczmap_close(ro, 1), NC_EPERM); /* a read-only map cannot delete */
    CHECK(t_path_exists(root));
    EXPECT(nczmap_exists(ro, "/.zgroup"), NC_EBADID); /* closed even so */

    /* invalid and closed handles */
    EXPECT(nczmap_exists(0, "/.zgroup"), NC_EBADID);
    EXPECT(nczmap_exists(-5, "/.zgroup"), NC_EBADID);
    EXPECT(nczmap_len(424242, "/.zgroup", &len), NC_EBADID);
    EXPECT(nczmap_close(424242, 0), NC_EBADID);

    /* close keeps the data; reopen sees it; close with delete removes it */
    OK(nczmap_close(map, 0));
    EXPECT(nczmap_exists(map, "/.zgroup"), NC_EBADID);
    EXPECT(nczmap_close(map, 0), NC_EBADID);
    OK(nczmap_open(NCZM_FILE, url, NC_WRITE, 0, NULL, &map));
    OK(nczmap_read(map, "/data1/0", 0, sizeof ints, back));
    CHECK(memcmp(ints, back, sizeof ints) == 0);
    OK(nczmap_close(map, 1));
    CHECK(!t_path_exists(root));
    EXPECT(nczmap_open(NCZM_FILE, url, 0, 0, NULL, &map), NC_ENOOBJECT);

    /* plain paths work as well as file:// URLs; other schemes do not */
    OK(nczmap_create(NCZM_FILE, root, 0, 0, NULL, &map));
    OK(nczmap_close(map, 1));
    EXPECT(nczmap_create(NCZM_FILE, "https://example.com/x", 0, 0, NULL, &map), NC_EURL);

    /* implementations */
    CHECK(nczmap_features(NCZM_FILE) == 0);
    CHECK(nczmap_features(NCZM_MEMORY) == 0);
    CHECK(nczmap_features(NCZM_UNDEF) == NCZM_UNIMPLEMENTED);
    EXPECT(nczmap_open(NCZM_UNDEF, url, 0, 0, NULL, &map), NC_EINVAL);
}

/* The zip driver: an archive written at close, read back. */
static void test_zip_driver(const char *scratch) {
    int map = -1;
    char zurl[4200], buf[16] = {0};
    snprintf(zurl, sizeof zurl, "file://%s/ds.zip#mode=nczarr,zip", scratch);
    CHECK(nczmap_features(NCZM_ZIP) == 0);
    OK(nczmap_create(NCZM_ZIP, zurl, 0, 0, NULL, &map));
    put(map, "/.zgroup", "{\"zarr_format\": 2}");
    put(map, "/v/0.0", "chunk");
    OK(nczmap_close(map, 0));
    OK(nczmap_open(NCZM_ZIP, zurl, NC_NOWRITE, 0, NULL, &map));
    OK(nczmap_read(map, "/v/0.0", 0, 5, buf));
    CHECK(strcmp(buf, "chunk") == 0);
    {
        const char *top[] = {".zgroup", "v"};
        check_search(map, "/", top, 2);
    }
    EXPECT(nczmap_write(map, "/w", 0, 1, "x"), NC_EPERM);
    OK(nczmap_close(map, 0));
    OK(nczmap_open(NCZM_ZIP, zurl, NC_WRITE, 0, NULL, &map));
    OK(nczmap_close(map, 1));
    EXPECT(nczmap_open(NCZM_ZIP, zurl, 0, 0, NULL, &map), NC_ENOOBJECT);
}

static void test_memory_driver(void) {
    int a = -1, b = -1;
    char buf[8] = {0};
    OK(nczmap_create(NCZM_MEMORY, "mem://ctest", 0, 0, NULL, &a));
    put(a, "/v/.zarray", "{}");
    put(a, "/v/0", "chunk");
    OK(nczmap_open(NCZM_MEMORY, "mem://ctest", 0, 0, NULL, &b));
    OK(nczmap_read(b, "/v/0", 0, 5, buf));
    CHECK(strcmp(buf, "chunk") == 0);
    {
        const char *v[] = {".zarray", "0"};
        check_search(b, "/v", v, 2);
    }
    OK(nczmap_close(b, 0));
    OK(nczmap_close(a, 1));
    EXPECT(nczmap_open(NCZM_MEMORY, "mem://ctest", 0, 0, NULL, &b), NC_ENOOBJECT);
}

int main(int argc, char **argv) {
    char scratch[2048];
    /* file:// URLs need an absolute path */
    if (argc > 1 && argv[1][0] == '/') snprintf(scratch, sizeof scratch, "%s", argv[1]);
    else if (argc > 1) {
        char cwd[1024];
        if (!getcwd(cwd, sizeof cwd)) return 2;
        snprintf(scratch, sizeof scratch, "%s/%s", cwd, argv[1]);
    } else snprintf(scratch, sizeof scratch, "/tmp/nczarr_test_zmap");
    t_mkdirs(scratch);
    test_file_driver(scratch);
    test_zip_driver(scratch);
    test_memory_driver();
    return t_finish("test_zmap");
}
