/* Parallel write and read of one variable by the ranks of an MPI job (not
 * a test; bench/par_run.sh runs it). Every rank writes, then reads, its
 * share of the planes of a float variable v(z, y, x), chunked one plane per
 * chunk (4 MiB), with independent access: whole chunks, each rank its own.
 * Built against libnczarr_rs (a store URL) or against netCDF-C's parallel
 * library (a .nc path: netCDF-4/HDF5), the reference.
 *
 *   mpirun -np N par_bench PATH          (BENCH_NZ planes, 256: 1 GiB)
 *
 * BENCH_READ_ONLY=1 skips the write (PATH must hold the variable already):
 * for profiling the read alone.
 *
 * Rank 0 prints "RESULT write <s> read <s> cpu <s> <s>": wall time from
 * before nc_create_par to after nc_close on every rank (a barrier before
 * and after), and the same for nc_open_par, the reads, nc_close; then the
 * CPU time (user + system, every thread) all ranks spent in each of the
 * two, summed: on a machine shared with other work, the wall time varies
 * with the load, the CPU time much less. */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>

#define NY 1024
#define NX 1024

static double cpu(void)
{
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return (double)(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + (double)(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
}

static void check(int rc, const char *what)
{
    if (rc != NC_NOERR) {
        fprintf(stderr, "%s: %s\n", what, nc_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 2) {
        fprintf(stderr, "usage: par_bench PATH\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *path = argv[1];
    size_t nz = getenv("BENCH_NZ") ? (size_t)atol(getenv("BENCH_NZ")) : 256;
    size_t per = nz / (size_t)size, z0 = per * (size_t)rank;
    float *buf = malloc(per * NY * NX * sizeof(float));
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    for (size_t i = 0; i < per * NY * NX; i++) buf[i] = (float)(z0 * NY * NX + i);

    int ncid, dims[3], v;
    size_t chunk[3] = {1, NY, NX};
    size_t start[3] = {z0, 0, 0}, count[3] = {per, NY, NX};
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime(), c0 = cpu();
    int read_only = getenv("BENCH_READ_ONLY") && atoi(getenv("BENCH_READ_ONLY"));
    if (!read_only) {
        check(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "create");
        check(nc_def_dim(ncid, "z", nz, &dims[0]), "def_dim");
        check(nc_def_dim(ncid, "y", NY, &dims[1]), "def_dim");
        check(nc_def_dim(ncid, "x", NX, &dims[2]), "def_dim");
        check(nc_def_var(ncid, "v", NC_FLOAT, 3, dims, &v), "def_var");
        check(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunk), "chunking");
        check(nc_def_var_fill(ncid, v, NC_NOFILL, NULL), "nofill");
        check(nc_enddef(ncid), "enddef");
        check(nc_put_vara_float(ncid, v, start, count, buf), "put");
        check(nc_close(ncid), "close");
    }
    MPI_Barrier(MPI_COMM_WORLD);
    double t1 = MPI_Wtime(), c1 = cpu();
    check(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "open");
    check(nc_inq_varid(ncid, "v", &v), "inq_varid");
    check(nc_get_vara_float(ncid, v, start, count, buf), "get");
    check(nc_close(ncid), "close");
    MPI_Barrier(MPI_COMM_WORLD);
    double t2 = MPI_Wtime(), c2 = cpu();
    double mine[2] = {c1 - c0, c2 - c1}, all[2];
    MPI_Reduce(mine, all, 2, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    for (size_t i = 0; i < per * NY * NX; i += 4099)
        if (buf[i] != (float)(z0 * NY * NX + i)) {
            fprintf(stderr, "rank %d: wrong value at %zu\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    if (rank == 0) printf("RESULT write %.4f read %.4f cpu %.4f %.4f\n", t1 - t0, t2 - t1, all[0], all[1]);
    free(buf);
    MPI_Finalize();
    return 0;
}
