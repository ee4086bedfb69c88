/* Parallel cases on S3 (not a test; bench/par_s3_run.sh runs it behind
 * bench/latency_proxy.py, which adds a latency to every request and
 * counts them in a file). Built against libnczarr_rs's MPI build.
 *
 *   mpirun -np N par_s3_bench data URL      v(512, 1024) float32 in 512
 *       chunks of one row (4 KiB), uncompressed, no fill: every rank
 *       writes its share of the rows (independent access, whole chunks),
 *       then reads them back after nc_open_par.
 *   par_s3_bench meta-create URL            one process (nc_create) writes
 *       a dataset of NVARS (1000) variables, 3 attributes each.
 *   mpirun -np N par_s3_bench meta-open URL     nc_open_par by N ranks, each
 *       walking every variable and attribute, then nc_close.
 *   par_s3_bench meta-open-serial URL       the same with nc_open, one process.
 *
 * COUNT_FILE (environment): the proxy's request count, read by rank 0
 * between barriers. Rank 0 prints "RESULT <case> <s> <requests>" per phase:
 * wall time from a barrier before the first call to a barrier after the
 * last, and the requests the proxy counted in between. */
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NT 512
#define NX 1024

static int rank, size;

static void check(int rc, const char *what)
{
    if (rc != NC_NOERR) {
        fprintf(stderr, "rank %d: %s: %s\n", rank, what, nc_strerror(rc));
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
}

static long requests(void)
{
    const char *f = getenv("COUNT_FILE");
    long n = -1;
    FILE *fp = f ? fopen(f, "r") : NULL;
    if (fp) {
        if (fscanf(fp, "%ld", &n) != 1) n = -1;
        fclose(fp);
    }
    return n;
}

/* A phase: a barrier, the clock and the count, the work, a barrier. */
static double t_start;
static long n_start;
static void begin(void)
{
    MPI_Barrier(MPI_COMM_WORLD);
    t_start = MPI_Wtime();
    if (rank == 0) n_start = requests();
}
static void end(const char *what)
{
    MPI_Barrier(MPI_COMM_WORLD);
    double t = MPI_Wtime() - t_start;
    if (rank == 0) printf("RESULT %s %.4f %ld\n", what, t, requests() - n_start);
    fflush(stdout);
}

static void data(const char *url)
{
    size_t per = NT / (size_t)size, t0 = per * (size_t)rank;
    float *buf = malloc(per * NX * sizeof(float));
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 3);
    for (size_t i = 0; i < per * NX; i++) buf[i] = (float)(t0 * NX + i);
    int ncid, dims[2], v;
    size_t chunk[2] = {1, NX}, start[2] = {t0, 0}, count[2] = {per, NX};
    begin();
    check(nc_create_par(url, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "create");
    check(nc_def_dim(ncid, "t", NT, &dims[0]), "def_dim");
    check(nc_def_dim(ncid, "x", NX, &dims[1]), "def_dim");
    check(nc_def_var(ncid, "v", NC_FLOAT, 2, dims, &v), "def_var");
    check(nc_def_var_chunking(ncid, v, NC_CHUNKED, chunk), "chunking");
    check(nc_def_var_fill(ncid, v, NC_NOFILL, NULL), "nofill");
    check(nc_enddef(ncid), "enddef");
    check(nc_put_vara_float(ncid, v, start, count, buf), "put");
    check(nc_close(ncid), "close");
    end("write");
    memset(buf, 0, per * NX * sizeof(float));
    begin();
    check(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "open");
    check(nc_inq_varid(ncid, "v", &v), "inq_varid");
    check(nc_get_vara_float(ncid, v, start, count, buf), "get");
    check(nc_close(ncid), "close");
    end("read");
    for (size_t i = 0; i < per * NX; i++)
        if (buf[i] != (float)(t0 * NX + i)) {
            fprintf(stderr, "rank %d: wrong value at %zu\n", rank, i);
            MPI_Abort(MPI_COMM_WORLD, 4);
        }
    free(buf);
}

static void meta_create(const char *url, int nvars)
{
    int ncid, dim, v;
    begin();
    if (rank == 0) {
        check(nc_create(url, NC_NETCDF4 | NC_CLOBBER, &ncid), "create");
        check(nc_def_dim(ncid, "x", 10, &dim), "def_dim");
        for (int i = 0; i < nvars; i++) {
            char name[32], lname[64];
            snprintf(name, sizeof name, "var%04d", i);
            snprintf(lname, sizeof lname, "variable %d", i);
            check(nc_def_var(ncid, name, NC_FLOAT, 1, &dim, &v), "def_var");
            check(nc_put_att_text(ncid, v, "units", 1, "m"), "att");
            check(nc_put_att_text(ncid, v, "long_name", strlen(lname), lname), "att");
            check(nc_put_att_int(ncid, v, "index", NC_INT, 1, &i), "att");
        }
        check(nc_close(ncid), "close");
    }
    end("meta-create");
}

/* Every variable's name, type, dimensions and attributes. */
static void walk(int ncid)
{
    int nvars, natts, nd, dimids[NC_MAX_VAR_DIMS];
    nc_type t;
    char name[NC_MAX_NAME + 1], att[NC_MAX_NAME + 1];
    size_t len;
    check(nc_inq_nvars(ncid, &nvars), "nvars");
    for (int v = 0; v < nvars; v++) {
        check(nc_inq_var(ncid, v, name, &t, &nd, dimids, &natts), "inq_var");
        for (int a = 0; a < natts; a++) {
            check(nc_inq_attname(ncid, v, a, att), "attname");
            check(nc_inq_att(ncid, v, att, &t, &len), "inq_att");
        }
    }
}

static void meta_open(const char *url, int par)
{
    int ncid;
    begin();
    if (par) {
        check(nc_open_par(url, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), "open_par");
        walk(ncid);
        check(nc_close(ncid), "close");
    } else if (rank == 0) {
        check(nc_open(url, NC_NOWRITE, &ncid), "open");
        walk(ncid);
        check(nc_close(ncid), "close");
    }
    end(par ? "meta-open-par" : "meta-open");
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (argc < 3) {
        fprintf(stderr, "usage: par_s3_bench data|meta-create|meta-open|meta-open-serial URL\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const char *c = argv[1], *url = argv[2];
    int nvars = getenv("NVARS") ? atoi(getenv("NVARS")) : 1000;
    if (!strcmp(c, "data")) data(url);
    else if (!strcmp(c, "meta-create")) meta_create(url, nvars);
    else if (!strcmp(c, "meta-open")) meta_open(url, 1);
    else if (!strcmp(c, "meta-open-serial")) meta_open(url, 0);
    else MPI_Abort(MPI_COMM_WORLD, 2);
    MPI_Finalize();
    return 0;
}
