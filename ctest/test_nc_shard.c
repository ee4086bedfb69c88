/* Zarr v3 shards through the netCDF API: nczarr_rs_def_var_shard and
 * nczarr_rs_inq_var_shard, their errors, the store they write (one object
 * per shard, sharding_indexed in zarr.json) and the values read back, in
 * whole and element by element. tests/interop/zarr3.py has zarr-python,
 * xarray and TensorStore read a store written the same way. */
#include "test_util.h"

#define NY 10
#define NX 12

static int value(int i, int j) {
    /* inner chunk (0, 1), rows 0-1 x columns 3-5, is never written */
    if (i < 2 && j >= 3 && j < 6) return NC_FILL_INT;
    return i * 100 + j;
}

static int file_contains(const char *path, const char *text) {
    char buf[8192];
    size_t n;
    FILE *f = fopen(path, "r");
    if (!f) return 0;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    return strstr(buf, text) != NULL;
}

int main(int argc, char **argv) {
    char base[4096], url[4400], v2url[4400], path[4400];
    int nc, nc2, dims[2], v, v2, s, sharded = -1, i, j, rc;
    size_t chunks[2] = {2, 3}, shard[2] = {4, 6}, bad[2] = {5, 6}, got[2] = {0, 0};
    size_t start[2], count[2];
    static int data[NY * NX], back[NY * NX];
    if (t_scratch(base, sizeof base, argc, argv, "test_nc_shard")) return 2;
    snprintf(url, sizeof url, "file://%s/shard.zarr#mode=nczarr,v3,file", base);
    snprintf(v2url, sizeof v2url, "file://%s/v2.zarr#mode=nczarr,file", base);

    /* Zarr v2 has no shards */
    OK(nc_create(v2url, NC_CLOBBER | NC_NETCDF4, &nc2));
    OK(nc_def_dim(nc2, "x", NX, &dims[0]));
    OK(nc_def_var(nc2, "v", NC_INT, 1, dims, &v2));
    EXPECT(nczarr_rs_def_var_shard(nc2, v2, shard), NC_EINVAL);
    OK(nc_close(nc2));

    OK(nc_create(url, NC_CLOBBER | NC_NETCDF4, &nc));
    OK(nc_def_dim(nc, "y", NY, &dims[0]));
    OK(nc_def_dim(nc, "x", NX, &dims[1]));
    OK(nc_def_var(nc, "v", NC_INT, 2, dims, &v));
    OK(nc_def_var(nc, "s", NC_INT, 0, dims, &s));
    OK(nc_def_var_chunking(nc, v, NC_CHUNKED, chunks));
    OK(nc_def_var_zstandard(nc, v, 1));
    OK(nczarr_rs_inq_var_shard(nc, v, &sharded, got));
    CHECK(sharded == 0 && got[0] == 0);
    EXPECT(nczarr_rs_def_var_shard(nc, v, bad), NC_EBADCHUNK);
    EXPECT(nczarr_rs_def_var_shard(nc, v, NULL), NC_EINVAL);
    EXPECT(nczarr_rs_def_var_shard(nc, s, shard), NC_EINVAL);
    EXPECT(nczarr_rs_def_var_shard(nc, NC_GLOBAL, shard), NC_EGLOBAL);
    EXPECT(nczarr_rs_def_var_shard(-1, v, shard), NC_EBADID);
    OK(nczarr_rs_def_var_shard(nc, v, shard));
    OK(nczarr_rs_inq_var_shard(nc, v, &sharded, got));
    CHECK(sharded == 1 && got[0] == 4 && got[1] == 6);
    OK(nczarr_rs_inq_var_shard(nc, v, NULL, NULL));
    OK(nc_enddef(nc));
    EXPECT(nczarr_rs_def_var_shard(nc, v, shard), NC_ELATEDEF);

    for (i = 0; i < NY; i++)
        for (j = 0; j < NX; j++) data[i * NX + j] = value(i, j);
    /* rows 0-1 in two pieces around the unwritten inner chunk, then the rest */
    start[0] = 0; start[1] = 0; count[0] = 2; count[1] = 3;
    {
        int piece[6];
        for (i = 0; i < 2; i++)
            for (j = 0; j < 3; j++) piece[i * 3 + j] = value(i, j);
        OK(nc_put_vara_int(nc, v, start, count, piece));
    }
    start[1] = 6; count[1] = 6;
    {
        int piece[12];
        for (i = 0; i < 2; i++)
            for (j = 0; j < 6; j++) piece[i * 6 + j] = value(i, j + 6);
        OK(nc_put_vara_int(nc, v, start, count, piece));
    }
    start[0] = 2; start[1] = 0; count[0] = NY - 2; count[1] = NX;
    OK(nc_put_vara_int(nc, v, start, count, data + 2 * NX));
    OK(nc_close(nc));

    /* one object per shard (3 x 2 of them), sharding_indexed in zarr.json */
    snprintf(path, sizeof path, "%s/shard.zarr/v/zarr.json", base);
    CHECK(file_contains(path, "\"sharding_indexed\""));
    CHECK(file_contains(path, "\"chunk_shape\": [4,6]"));
    snprintf(path, sizeof path, "%s/shard.zarr/v/c/2/1", base);
    CHECK(t_path_exists(path));
    snprintf(path, sizeof path, "%s/shard.zarr/v/c/0/0/0", base);
    CHECK(!t_path_exists(path));

    OK(nc_open(url, NC_NOWRITE, &nc));
    OK(nc_inq_varid(nc, "v", &v));
    OK(nczarr_rs_inq_var_shard(nc, v, &sharded, got));
    CHECK(sharded == 1 && got[0] == 4 && got[1] == 6);
    {
        int storage;
        size_t c[2];
        OK(nc_inq_var_chunking(nc, v, &storage, c));
        CHECK(storage == NC_CHUNKED && c[0] == 2 && c[1] == 3);
    }
    OK(nc_get_var_int(nc, v, back));
    CHECK(memcmp(back, data, sizeof data) == 0);
    rc = 0;
    for (i = 0; i < NY; i++) {
        for (j = 0; j < NX; j++) {
            int one = 0;
            size_t at[2];
            at[0] = (size_t)i;
            at[1] = (size_t)j;
            OK(nc_get_var1_int(nc, v, at, &one));
            rc += one != value(i, j);
        }
    }
    CHECK(rc == 0);
    OK(nc_close(nc));
    return t_finish("test_nc_shard");
}
