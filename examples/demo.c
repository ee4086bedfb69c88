/* demo: libnczarr_rs on the embedded default, the file driver in a temp dir.
 *
 * Creates a small NCZarr-layout dataset through the zmap C API, lists the
 * tree with nczmap_search, reads a chunk back and deletes the dataset. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call) do { int rc_ = (call); if (rc_ != NC_NOERR) { \
    fprintf(stderr, "%s failed: %s\n", #call, nc_strerror(rc_)); exit(1); } } while (0)

static void put(int map, const char *key, const char *json) {
    TRY(nczmap_write(map, key, 0, strlen(json), json));
}

static void walk(int map, const char *prefix, int depth) {
    size_t i, n = 0;
    char **names = NULL;
    TRY(nczmap_search(map, prefix, &n, &names));
    for (i = 0; i < n; i++) {
        char key[1024];
        size64_t len = 0;
        snprintf(key, sizeof key, "%s/%s", strcmp(prefix, "/") == 0 ? "" : prefix, names[i]);
        if (nczmap_len(map, key, &len) == NC_NOERR)
            printf("%*s%s  (%llu bytes)\n", 2 * depth, "", names[i], (unsigned long long)len);
        else {
            printf("%*s%s/\n", 2 * depth, "", names[i]);
            walk(map, key, depth + 1);
        }
    }
    nczmap_free_names(n, names);
}

int main(int argc, char **argv) {
    char url[4096];
    int map, i;
    float chunk[6], back[6];
    const char *dir = argc > 1 ? argv[1] : "/tmp";

    printf("library: %s\n", nc_inq_libvers());
    snprintf(url, sizeof url, "file://%s/demo.zarr#mode=nczarr,file", dir);
    printf("dataset: %s\n\n", url);

    TRY(nczmap_create(NCZM_FILE, url, NC_CLOBBER, 0, NULL, &map));
    put(map, "/.zgroup",
        "{\"zarr_format\": 2, \"_nczarr_superblock\": {\"version\": \"2.0.0\"}, "
        "\"_nczarr_group\": {\"dims\": {\"x\": 2, \"y\": 3}, \"vars\": [\"t\"], \"groups\": []}}");
    put(map, "/.zattrs", "{\"title\": \"demo\", \"_nczarr_attr\": {\"types\": {\"title\": \">S1\"}}}");
    put(map, "/t/.zarray",
        "{\"zarr_format\": 2, \"shape\": [2,3], \"dtype\": \"<f4\", \"chunks\": [2,3], "
        "\"fill_value\": 9.969209968386869e+36, \"order\": \"C\", \"compressor\": null, \"filters\": null, "
        "\"_nczarr_array\": {\"dimrefs\": [\"/x\",\"/y\"], \"storage\": \"chunked\"}}");
    for (i = 0; i < 6; i++) chunk[i] = 0.5f * (float)i;
    TRY(nczmap_write(map, "/t/0.0", 0, sizeof chunk, chunk));

    printf("tree:\n");
    walk(map, "/", 1);

    TRY(nczmap_read(map, "/t/0.0", 0, sizeof back, back));
    printf("\nchunk /t/0.0:");
    for (i = 0; i < 6; i++) printf(" %g", back[i]);
    printf("\n");
    if (memcmp(chunk, back, sizeof chunk) != 0) { fprintf(stderr, "mismatch\n"); return 1; }

    TRY(nczmap_close(map, 1));
    printf("closed and deleted the dataset\n");
    return 0;
}
