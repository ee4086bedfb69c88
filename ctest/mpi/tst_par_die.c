/* A rank that dies mid-write: every rank writes and nc_sync's, every rank
 * writes more, then the last rank kills itself (SIGKILL: no handler, no
 * exit code of its own, no close) while the others wait; mpirun ends the
 * job. The program never finishes: a non-MPI reader (check_par_stores.py
 * die, run after it by run_then_check.sh) checks what the store holds
 * (docs/PARALLEL.md, "When a rank dies").
 *
 * One dataset, dimensions y (2N+1 rows) and x (NX), NC_INT variables:
 *
 *   whole     independent, chunks of one row: every write is whole chunks
 *   shared    independent, one chunk column spans every row: every write
 *             is part of a chunk that every rank writes
 *   flushed   as shared, but the surviving ranks set a chunk cache of no
 *             elements (nc_set_var_chunk_cache(..., 0, 0, ...)), so their
 *             writes go to the store at once (merged into the stored
 *             chunk); the dying rank keeps the default cache
 *   coll      collective, chunks as shared (two-phase: an owner rank
 *             writes each chunk before the call returns)
 *   coll_zlib collective (a filter makes it so), deflate, chunks as shared
 *   rec       collective, along the unlimited dimension t (t, x), chunks of
 *             one record: rank r writes record r in phase 1 (t grows to
 *             N), record N+r in phase 2 (t grows to 2N on every rank, a
 *             length written to the store at the next nc_sync, never)
 *
 * Phase 1: rank r writes row r of every variable, then nc_sync (collective).
 * Phase 2: rank r writes row N+r of every variable; MPI_Barrier. Row 2N is
 * written by nobody.
 *
 * Element g (row-major) of the variable number k (0..4 in the order above)
 * holds (k+1)*100000 + g*7 + 3.
 *
 * Then the last rank dies in the middle of writes: it writes rows
 * 0..BY/2-1 of `big` (NC_DOUBLE, dimensions by x bx, one row of 2 MiB a
 * chunk, independent), then starts writing rows BY/2..BY-1 in one call (the
 * library writes those chunks on several threads at once) while another
 * thread of it raises SIGKILL as soon as that call has begun. Element g of
 * big holds g * 0.5 + 1. Each chunk of the second half is then stored
 * whole, or not at all (no torn object); a chunk's temporary file may be
 * left (file driver), never under a chunk's name. */
#define _POSIX_C_SOURCE 200809L
#include "par_test.h"
#include <pthread.h>
#include <signal.h>

#define BY 16
#define BX 262144

static int started;

static void pause_us(long us)
{
    struct timespec ts;
    ts.tv_sec = us / 1000000;
    ts.tv_nsec = (us % 1000000) * 1000;
    nanosleep(&ts, NULL);
}

static void *killer(void *arg)
{
    (void)arg;
    while (!__atomic_load_n(&started, __ATOMIC_SEQ_CST)) pause_us(100);
    pause_us(500); /* into the writes of the call */
    raise(SIGKILL);
    return NULL;
}

/* The last rank's end: big's first half, then its second half cut short. */
static void die_writing(int ncid, int big)
{
    size_t start[2] = {0, 0}, count[2] = {BY / 2, BX}, g;
    double *buf = malloc(sizeof(double) * BY / 2 * BX);
    pthread_t t;
    CHECK(buf != NULL);
    for (g = 0; g < (size_t)BY / 2 * BX; g++) buf[g] = (double)g * 0.5 + 1;
    OK(nc_put_vara_double(ncid, big, start, count, buf));
    start[0] = BY / 2;
    for (g = 0; g < (size_t)BY / 2 * BX; g++) buf[g] = (double)(g + (size_t)BY / 2 * BX) * 0.5 + 1;
    CHECK(pthread_create(&t, NULL, killer, NULL) == 0);
    printf("rank %d: killing itself (SIGKILL) while writing, before any nc_sync\n", p_rank);
    fflush(stdout);
    __atomic_store_n(&started, 1, __ATOMIC_SEQ_CST);
    nc_put_vara_double(ncid, big, start, count, buf);
    /* the write ended first: die now */
    raise(SIGKILL);
}

#define NX 4
#define NVARS 5

static const char *vnames[NVARS] = {"whole", "shared", "flushed", "coll", "coll_zlib"};

static int value(int k, size_t g) { return (k + 1) * 100000 + (int)g * 7 + 3; }

/* Row `row` of every variable, and record `row` of rec (variable NVARS). */
static void write_row(int ncid, const int *varids, size_t row)
{
    int k, buf[NX];
    size_t start[2] = {row, 0}, count[2] = {1, NX}, j;
    for (k = 0; k <= NVARS; k++) {
        for (j = 0; j < NX; j++) buf[j] = value(k, row * NX + j);
        OK(nc_put_vara_int(ncid, varids[k], start, count, buf));
    }
}

/* `tst_par_die SCRATCH STORE restart`, run after the job that died: the
 * ranks of a new job reopen the dataset for writing (nc_open_par), find the
 * length of t as last stored (N), and close. That open removes the dead
 * processes' temporary files, and its close the lock file. */
static int restart(void)
{
    int ncid, t;
    size_t len;
    OK(nc_open_par(p_path("die"), NC_WRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_dimid(ncid, "t", &t));
    OK(nc_inq_dimlen(ncid, t, &len));
    CHECK(len == (size_t)p_size);
    OK(nc_close(ncid));
    return p_finish("tst_par_die restart");
}

int main(int argc, char **argv)
{
    int ncid, dimids[2], bdims[2], tdims[2], varids[NVARS + 1], big, k;
    size_t len;
    size_t bchunks[2] = {1, BX};
    size_t ny, whole[2] = {1, NX}, shared[2];
    if (!p_start(&argc, &argv)) return 0;
    if (argc > 3 && strcmp(argv[3], "restart") == 0) return restart();
    if (p_size < 2) p_fail(__FILE__, __LINE__, "needs at least 2 ranks");
    ny = 2 * (size_t)p_size + 1;
    shared[0] = ny;
    shared[1] = NX / 2;

    OK(nc_create_par(p_path("die"), NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "y", ny, &dimids[0]));
    OK(nc_def_dim(ncid, "x", NX, &dimids[1]));
    for (k = 0; k < NVARS; k++) {
        OK(nc_def_var(ncid, vnames[k], NC_INT, 2, dimids, &varids[k]));
        OK(nc_def_var_chunking(ncid, varids[k], NC_CHUNKED, k == 0 ? whole : shared));
        if (k == 4) OK(nc_def_var_deflate(ncid, varids[k], 0, 1, 1));
    }
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &tdims[0]));
    tdims[1] = dimids[1];
    OK(nc_def_var(ncid, "rec", NC_INT, 2, tdims, &varids[NVARS]));
    OK(nc_def_var_chunking(ncid, varids[NVARS], NC_CHUNKED, whole));
    OK(nc_def_dim(ncid, "by", BY, &bdims[0]));
    OK(nc_def_dim(ncid, "bx", BX, &bdims[1]));
    OK(nc_def_var(ncid, "big", NC_DOUBLE, 2, bdims, &big));
    OK(nc_def_var_chunking(ncid, big, NC_CHUNKED, bchunks));
    OK(nc_enddef(ncid));
    OK(nc_var_par_access(ncid, varids[3], NC_COLLECTIVE));
    OK(nc_var_par_access(ncid, varids[4], NC_COLLECTIVE));
    OK(nc_var_par_access(ncid, varids[NVARS], NC_COLLECTIVE));
    if (p_rank != p_size - 1) OK(nc_set_var_chunk_cache(ncid, varids[2], 0, 0, 0.75f));

    /* phase 1, synced */
    write_row(ncid, varids, (size_t)p_rank);
    OK(nc_sync(ncid));

    /* phase 2, never synced */
    write_row(ncid, varids, (size_t)(p_size + p_rank));
    OK(nc_inq_dimlen(ncid, tdims[0], &len));
    CHECK(len == 2 * (size_t)p_size);
    MPI_Barrier(MPI_COMM_WORLD);
    if (p_rank == p_size - 1) die_writing(ncid, big);
    /* the others wait for mpirun to end the job */
    sleep(120);
    fprintf(stderr, "rank %d: still running 120 s after rank %d died: mpirun did not end the job\n", p_rank,
            p_size - 1);
    return 3;
}
