/* netcdf_mem.h: a zip store made in memory (nc_create_mem, then
 * nc_close_memio) opens again from memory (nc_open_mem, nc_open_memio with
 * NC_WRITE) with its data; images that are not zip stores are refused. */
#include "test_util.h"
#include <netcdf_mem.h>

int main(int argc, char **argv) {
    int nc, x, v, n, vals[4] = {1, 2, 3, 4}, back[4] = {0};
    char path[64];
    size_t len = 0;
    NC_memio image, again;
    char classic[16] = "CDF\001";
    (void)argc; (void)argv;
    OK(nc_create_mem("file://mem.zarr#mode=nczarr,file", NC_NETCDF4, 0, &nc));
    OK(nc_def_dim(nc, "x", 4, &x));
    OK(nc_def_var(nc, "v", NC_INT, 1, &x, &v));
    OK(nc_put_var_int(nc, v, vals));
    OK(nc_inq_path(nc, &len, path));
    CHECK(strcmp(path, "file://mem.zarr#mode=nczarr,file") == 0);
    OK(nc_close_memio(nc, &image));
    CHECK(image.size > 22 && image.memory != NULL && memcmp(image.memory, "PK", 2) == 0);

    OK(nc_open_mem("image.zip", NC_NOWRITE, image.size, image.memory, &nc));
    OK(nc_inq_varid(nc, "v", &v));
    OK(nc_get_var_int(nc, v, back));
    CHECK(back[3] == 4);
    EXPECT(nc_put_var_int(nc, v, vals), NC_EPERM);
    OK(nc_close_memio(nc, &again)); /* read-only: the caller's memory back */
    CHECK(again.memory == image.memory && again.size == image.size);

    /* writable: the changed archive comes back */
    image.flags = 0;
    OK(nc_open_memio("image.zip", NC_WRITE, &image, &nc));
    OK(nc_redef(nc));
    OK(nc_put_att_int(nc, NC_GLOBAL, "added", NC_INT, 1, vals));
    OK(nc_close_memio(nc, &again));
    CHECK(again.memory != NULL && again.memory != image.memory);
    OK(nc_open_mem("again.zip", 0, again.size, again.memory, &nc));
    OK(nc_inq_natts(nc, &n));
    CHECK(n == 1);
    OK(nc_close(nc));
    free(again.memory);
    free(image.memory);

    EXPECT(nc_open_mem("x.nc", NC_WRITE, sizeof classic, classic, &nc), NC_EINVAL);
    EXPECT(nc_open_mem("x.nc", 0, sizeof classic, classic, &nc), NC_ENOTBUILT);
    EXPECT(nc_open_mem("x.nc", 0, 4, classic, &nc), NC_EINVAL);
    EXPECT(nc_create_mem("x.zarr", NC_MMAP, 0, &nc), NC_EINVAL);
    return t_finish("test_nc_mem");
}
