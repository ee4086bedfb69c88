/* A downstream program: a zmap round trip with the file driver. */
#include <netcdf.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp/nczarr_consumer";
    char path[4096];
    char back[32] = {0};
    const char *meta = "{\"zarr_format\": 2}";
    int map, rc;
    mkdir(dir, 0777);
    snprintf(path, sizeof path, "file://%s/consumer.zarr#mode=nczarr,file", dir);
    if ((rc = nczmap_create(NCZM_FILE, path, 0, 0, NULL, &map))
        || (rc = nczmap_write(map, "/.zgroup", 0, strlen(meta), meta))
        || (rc = nczmap_read(map, "/.zgroup", 0, strlen(meta), back))
        || (rc = nczmap_close(map, 1))) {
        fprintf(stderr, "consumer: %s\n", nc_strerror(rc));
        return 1;
    }
    if (strcmp(back, meta) != 0) {
        fprintf(stderr, "consumer: read back %s\n", back);
        return 1;
    }
    printf("consumer: linked %s, zmap round trip ok\n", nc_inq_libvers());
    return 0;
}
