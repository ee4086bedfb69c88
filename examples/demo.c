/* demo: libnczarr_rs doing its main job on the embedded default, the file
 * driver in a temporary directory.
 *
 * Creates an NCZarr dataset through the netCDF API (dimensions, a group,
 * attributes, a compressed chunked variable), writes and reads data, then
 * shows the Zarr objects it made through the zmap API. */
#include <netcdf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define TRY(call) do { int rc_ = (call); if (rc_ != NC_NOERR) { \
    fprintf(stderr, "%s failed: %s\n", #call, nc_strerror(rc_)); exit(1); } } while (0)

static void walk(int map, const char *prefix, int depth) {
    size_t i, n = 0;
    char **names = NULL;
    TRY(nczmap_search(map, prefix, &n, &names));
    for (i = 0; i < n; i++) {
        char key[1024];
        size64_t len = 0;
        snprintf(key, sizeof key, "%s/%s", strcmp(prefix, "/") == 0 ? "" : prefix, names[i]);
        if (nczmap_len(map, key, &len) == NC_NOERR)
            printf("%*s%-10s %6llu bytes\n", 2 * depth, "", names[i], (unsigned long long)len);
        else {
            printf("%*s%s/\n", 2 * depth, "", names[i]);
            walk(map, key, depth + 1);
        }
    }
    nczmap_free_names(n, names);
}

int main(int argc, char **argv) {
    char url[4096];
    int nc, grp, dims[2], temp, count, map, i, j;
    size_t chunks[2] = {16, 32}, start[2] = {10, 20}, edge[2] = {2, 3};
    float field[64][128], block[6];
    int counts[64];
    const char *dir = argc > 1 ? argv[1] : "/tmp";

    printf("library: %s\n", nc_inq_libvers());
    snprintf(url, sizeof url, "file://%s/demo.zarr#mode=nczarr,file", dir);
    printf("dataset: %s\n\n", url);

    /* define */
    TRY(nc_create(url, NC_CLOBBER | NC_NETCDF4, &nc));
    TRY(nc_put_att_text(nc, NC_GLOBAL, "title", 19, "nczarr-rs demo data"));
    TRY(nc_def_dim(nc, "lat", 64, &dims[0]));
    TRY(nc_def_dim(nc, "lon", 128, &dims[1]));
    TRY(nc_def_var(nc, "temperature", NC_FLOAT, 2, dims, &temp));
    TRY(nc_def_var_chunking(nc, temp, NC_CHUNKED, chunks));
    TRY(nc_def_var_deflate(nc, temp, 1, 1, 4));
    TRY(nc_put_att_text(nc, temp, "units", 4, "degC"));
    TRY(nc_def_grp(nc, "stations", &grp));
    TRY(nc_def_var(grp, "count", NC_INT, 1, &dims[0], &count));
    TRY(nc_enddef(nc));

    /* write */
    for (i = 0; i < 64; i++) {
        counts[i] = i * i;
        for (j = 0; j < 128; j++) field[i][j] = 15.0f + 0.1f * (float)i - 0.05f * (float)j;
    }
    TRY(nc_put_var_float(nc, temp, &field[0][0]));
    TRY(nc_put_var_int(grp, count, counts));
    TRY(nc_close(nc));

    /* read back */
    TRY(nc_open(url, NC_NOWRITE, &nc));
    TRY(nc_inq_varid(nc, "temperature", &temp));
    TRY(nc_get_vara_float(nc, temp, start, edge, block));
    printf("temperature[10:12, 20:23] =");
    for (i = 0; i < 6; i++) printf(" %.2f", block[i]);
    printf("\n");
    for (i = 0; i < 6; i++)
        if (block[i] != field[10 + i / 3][20 + i % 3]) { fprintf(stderr, "mismatch\n"); return 1; }
    TRY(nc_close(nc));

    /* what is on disk: Zarr v2 objects with NCZarr metadata */
    printf("\nstore:\n");
    TRY(nczmap_open(NCZM_FILE, url, NC_NOWRITE, 0, NULL, &map));
    walk(map, "/", 1);
    TRY(nczmap_close(map, 0));

    TRY(nc_delete(url));
    printf("\ndeleted the dataset\n");
    return 0;
}
