/* nc_close of a parallel dataset is collective, as MPI_File_close is under
 * netCDF-C's HDF5: when it returns on a rank, every rank has written its
 * part and let go of the store, so that rank may remove the dataset or
 * create it again at once. netCDF-C's own tests do both (tst_parallel.c
 * removes its file on every rank right after nc_close; tst_parallel5.c
 * creates the same file again and again). Each round: the ranks share one
 * chunk (written back at close, merged), rank 0 finds no lock file and no
 * temporary file left the moment its nc_close returns, then removes the
 * store, and the next round creates it again. */
#define _XOPEN_SOURCE 700
#include "par_test.h"
#include <dirent.h>
#include <ftw.h>

#define ROUNDS 12
#define N 64

static int rm_entry(const char *p, const struct stat *st, int flag, struct FTW *f)
{
    (void)st;
    (void)flag;
    (void)f;
    return remove(p);
}

/* Entries of `dir` whose name starts with ".nczarr-rs" (the lock file,
 * temporary files), looked for in `dir` and in its subdirectories. */
static int leftovers(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;
    if (!d) return 0;
    while ((e = readdir(d)) != NULL) {
        char sub[4096];
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strncmp(e->d_name, ".nczarr-rs", 10) == 0) {
            fprintf(stderr, "rank %d: %s/%s is still there after nc_close\n", p_rank, dir, e->d_name);
            n++;
        }
        snprintf(sub, sizeof sub, "%s/%s", dir, e->d_name);
        {
            struct stat st;
            if (lstat(sub, &st) == 0 && S_ISDIR(st.st_mode)) n += leftovers(sub);
        }
    }
    closedir(d);
    return n;
}

int main(int argc, char **argv)
{
    int round;
    char path[4096], dir[4096];

    if (!p_start(&argc, &argv)) return 0;
    snprintf(path, sizeof path, "%s", p_path("close"));
    snprintf(dir, sizeof dir, "%s/close.%s", p_base, strcmp(p_store, "nc") == 0 ? "nc" : "zarr");
    for (round = 0; round < ROUNDS; round++) {
        int ncid, dimid, varid, vals[N / 4], i;
        size_t start = (size_t)p_rank * (N / (size_t)p_size), count = N / (size_t)p_size, chunk = N;
        for (i = 0; i < N / 4; i++) vals[i] = round * 1000 + p_rank;
        OK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        OK(nc_def_dim(ncid, "x", N, &dimid));
        OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
        OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, &chunk));
        OK(nc_enddef(ncid));
        /* one chunk, a part of it each: written back at nc_close */
        if (count > N / 4) count = N / 4;
        OK(nc_put_vara_int(ncid, varid, &start, &count, vals));
        OK(nc_close(ncid));
        if (p_rank == 0 && strcmp(p_store, "s3") != 0) {
            if (strcmp(p_store, "nc") != 0) CHECK(leftovers(dir) == 0);
            CHECK(nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS) == 0);
        }
    }
    return p_finish("tst_par_close");
}
