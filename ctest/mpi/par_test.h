/* Helpers of the C tests run under MPI (ctest/mpi): every rank runs the
 * same program; a failed check on any rank prints where and aborts the
 * whole job (MPI_Abort), so that no rank waits for ever in a collective
 * call the failed one will never make.
 *
 * Usage of a test: mpirun -np N test SCRATCH_DIR [STORE], where STORE says
 * where the datasets go:
 *   dir  SCRATCH_DIR/<name>.zarr (a plain path: NCZarr, file driver)
 *   url  file://SCRATCH_DIR/<name>.zarr#mode=nczarr,file
 *   s3   $NCZARR_RS_S3_TEST_URL/<run>/<name>#mode=nczarr,s3 (skipped, with
 *        "SKIPPED:", when the variable is unset, unless
 *        NCZARR_RS_REQUIRE_S3=1); <run> is $NCZARR_RS_MPI_S3_RUN when set
 *        (a reader run after the program finds the store there), else
 *        mpi-<time>-<pid of rank 0>
 *   nc   SCRATCH_DIR/<name>.nc: netCDF-4/HDF5, for the same program built
 *        against netCDF-C's parallel library with -DNETCDF_C (the
 *        reference: the *_netcdf_c tests of CMakeLists.txt) */
#ifndef NCZARR_RS_PAR_TEST_H
#define NCZARR_RS_PAR_TEST_H
#include <mpi.h>
#include <netcdf.h>
#include <netcdf_par.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static int p_rank, p_size;
static char p_base[2048];
static const char *p_store = "dir";
static char p_s3[1024];
static int p_checks;

/* The last error's detail, where the library keeps one. */
static inline const char *p_detail(void)
{
#ifdef NETCDF_C
    return "";
#else
    return nczarr_rs_last_error();
#endif
}

/* Prints where and why on stderr, in one write (ranks' lines interleave
 * otherwise), and ends the whole job. */
static inline void p_fail(const char *file, int line, const char *fmt, ...)
{
    char msg[2048];
    int n;
    va_list ap;
    n = snprintf(msg, sizeof msg, "rank %d: %s:%d: ", p_rank, file, line);
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < sizeof msg) vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    va_end(ap);
    fprintf(stderr, "%s\n", msg);
    fflush(stderr);
    {
        int running = 0, finalized = 0;
        MPI_Initialized(&running);
        MPI_Finalized(&finalized);
        if (running && !finalized) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    exit(1);
}

static inline void p_expect(int rc, int want, const char *call, const char *file, int line)
{
    p_checks++;
    if (rc != want)
        p_fail(file, line, "%s returned %d (%s), expected %d (%s) [%s]", call, rc, nc_strerror(rc), want,
               nc_strerror(want), p_detail());
}

#define CHECK(cond) do { p_checks++; if (!(cond)) p_fail(__FILE__, __LINE__, "CHECK failed: %s", #cond); } while (0)

/* An exact netCDF status. */
#define EXPECT(call, want) p_expect((call), (want), #call, __FILE__, __LINE__)
#define OK(call) p_expect((call), NC_NOERR, #call, __FILE__, __LINE__)

/* MPI_Init, then rank, size, scratch directory (argv[1], made absolute,
 * created by rank 0: its parent must exist), store kind (argv[2]). Returns
 * 0 when the store is not available (S3 without a server), having
 * finalised MPI: main then returns 0. */
static inline int p_start(int *argc, char ***argv_p)
{
    char **argv;
    MPI_Init(argc, argv_p);
    argv = *argv_p;
    MPI_Comm_rank(MPI_COMM_WORLD, &p_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &p_size);
    if (*argc < 2) p_fail(__FILE__, __LINE__, "usage: %s SCRATCH_DIR [dir|url|s3|nc]", argv[0]);
    if (argv[1][0] == '/') {
        snprintf(p_base, sizeof p_base, "%s", argv[1]);
    } else {
        char cwd[1024];
        if (!getcwd(cwd, sizeof cwd)) p_fail(__FILE__, __LINE__, "getcwd");
        snprintf(p_base, sizeof p_base, "%s/%s", cwd, argv[1]);
    }
    if (*argc > 2) p_store = argv[2];
    if (p_rank == 0) mkdir(p_base, 0777);
    if (strcmp(p_store, "s3") == 0) {
        const char *url = getenv("NCZARR_RS_S3_TEST_URL");
        const char *required = getenv("NCZARR_RS_REQUIRE_S3");
        long run[2] = {0, 0};
        if (url == NULL || *url == '\0') {
            if (required != NULL && strcmp(required, "1") == 0)
                p_fail(__FILE__, __LINE__, "NCZARR_RS_REQUIRE_S3=1 but NCZARR_RS_S3_TEST_URL is not set");
            if (p_rank == 0) printf("SKIPPED: NCZARR_RS_S3_TEST_URL is not set (no S3 server)\n");
            MPI_Finalize();
            return 0;
        }
        /* one key prefix for the run, the same on every rank */
        if (p_rank == 0) {
            run[0] = (long)time(NULL);
            run[1] = (long)getpid();
        }
        MPI_Bcast(run, 2, MPI_LONG, 0, MPI_COMM_WORLD);
        if (getenv("NCZARR_RS_MPI_S3_RUN") != NULL && *getenv("NCZARR_RS_MPI_S3_RUN") != '\0')
            snprintf(p_s3, sizeof p_s3, "%s/%s", url, getenv("NCZARR_RS_MPI_S3_RUN"));
        else
            snprintf(p_s3, sizeof p_s3, "%s/mpi-%ld-%ld", url, run[0], run[1]);
    } else if (strcmp(p_store, "dir") != 0 && strcmp(p_store, "url") != 0 && strcmp(p_store, "nc") != 0) {
        p_fail(__FILE__, __LINE__, "unknown store kind %s", p_store);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    return 1;
}

/* The path or URL of the dataset `name` in this run's store. */
static inline const char *p_path(const char *name)
{
    static char path[4096];
    if (strcmp(p_store, "url") == 0)
        snprintf(path, sizeof path, "file://%s/%s.zarr#mode=nczarr,file", p_base, name);
    else if (strcmp(p_store, "s3") == 0)
        snprintf(path, sizeof path, "%s/%s#mode=nczarr,s3", p_s3, name);
    else if (strcmp(p_store, "nc") == 0)
        snprintf(path, sizeof path, "%s/%s.nc", p_base, name);
    else
        snprintf(path, sizeof path, "%s/%s.zarr", p_base, name);
    return path;
}

/* Every rank passed: rank 0 says so. Returns main's status. */
static inline int p_finish(const char *name)
{
    int total = 0;
    MPI_Reduce(&p_checks, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
    if (p_rank == 0) printf("%s (%s, %d ranks): %d checks passed\n", name, p_store, p_size, total);
    MPI_Finalize();
    return 0;
}
#endif
