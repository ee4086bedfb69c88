/* nczarr_rs_last_error: the detail behind a failed call (the store key and
 * the JSON position, or the reason), and the note of an open that skipped a
 * malformed consolidated .zmetadata. */
#include "test_util.h"

static void put(const char *dir, const char *key, const char *text) {
    char p[4200];
    FILE *f;
    snprintf(p, sizeof p, "%s/%s", dir, key);
    t_mkdirs(p); /* makes the key a directory... */
    rmdir(p);    /* ...whose parents stay */
    f = fopen(p, "w");
    CHECK(f != NULL);
    if (f) { fputs(text, f); fclose(f); }
}

#define ZGROUP "{\"zarr_format\": 2}"
#define ZARRAY "{\"zarr_format\": 2, \"shape\": [4], \"chunks\": [2], \"dtype\": \"<i4\", " \
               "\"fill_value\": 0, \"order\": \"C\", \"compressor\": null, \"filters\": null}"

int main(int argc, char **argv) {
    char base[4096], bad[4200], cons[4200], url[4400];
    const char *e;
    int nc = -1, varid = -1;
    if (t_scratch(base, sizeof base, argc, argv, "test_last_error")) return 2;

    CHECK(strcmp(nczarr_rs_last_error(), "") == 0);

    /* bad JSON: the key and the position */
    snprintf(bad, sizeof bad, "%s/bad.zarr", base);
    put(bad, ".zgroup", ZGROUP);
    put(bad, "v/.zarray", "{\"zarr_format\": 2,\n \"shape\": [4,]}");
    EXPECT(nc_open(bad, NC_NOWRITE, &nc), NC_ENCZARR);
    e = nczarr_rs_last_error();
    CHECK(strncmp(e, "nc_open: /v/.zarray: bad JSON", 29) == 0);
    CHECK(strstr(e, "line 2 column") != NULL);
    CHECK(e == nczarr_rs_last_error()); /* the same string until the next failure */
    printf("%s\n", e);

    /* a failure without more to say: the function and nc_strerror's text */
    EXPECT(nc_inq_varid(-5, "v", &varid), NC_EBADID);
    CHECK(strcmp(nczarr_rs_last_error(), "nc_inq_varid: NetCDF: Not a valid ID") == 0);

    /* a malformed .zmetadata with consolidated reading: skipped, with a note */
    snprintf(cons, sizeof cons, "%s/cons.zarr", base);
    put(cons, ".zgroup", ZGROUP);
    put(cons, "v/.zarray", ZARRAY);
    put(cons, ".zmetadata", "{\"metadata\": {");
    snprintf(url, sizeof url, "file://%s#mode=zarr,file,consolidated", cons);
    OK(nc_open(url, NC_NOWRITE, &nc));
    e = nczarr_rs_last_error();
    CHECK(strncmp(e, "nc_open: /.zmetadata: bad JSON", 30) == 0);
    CHECK(strstr(e, "ignored") != NULL);
    printf("%s\n", e);
    OK(nc_inq_varid(nc, "v", &varid));
    CHECK(varid == 0);
    /* a success leaves the text as it was */
    OK(nc_close(nc));
    CHECK(strncmp(nczarr_rs_last_error(), "nc_open: /.zmetadata", 20) == 0);
    return t_finish("test_last_error");
}
