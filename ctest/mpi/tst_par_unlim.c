/* An unlimited dimension in parallel, as netCDF-C (libhdf5/hdf5var.c,
 * nc_test4/tst_parallel6.c): a collective write extends it, and after the
 * call every rank sees the new length (the largest any rank wrote to); an
 * independent write that would extend it is NC_ECANTEXTEND and changes
 * nothing; independent writes within the length succeed. Once without and
 * once with deflate. */
#include "par_test.h"

#define NX 4

static void run(int deflate)
{
    int ncid, dimids[2], varid, vals[NX], i;
    size_t len, start[2] = {0, 0}, count[2] = {1, NX}, chunks[2] = {1, NX};
    const size_t n = (size_t)p_size;
    const char *path = p_path(deflate ? "unlim-zlib" : "unlim");

    OK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "t", NC_UNLIMITED, &dimids[0]));
    OK(nc_def_dim(ncid, "x", NX, &dimids[1]));
    OK(nc_def_var(ncid, "v", NC_INT, 2, dimids, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, chunks));
    if (deflate) OK(nc_def_var_deflate(ncid, varid, 1, 1, 4));
    OK(nc_enddef(ncid));
    OK(nc_inq_dimlen(ncid, dimids[0], &len));
    CHECK(len == 0);

    /* independent: no extending */
    if (!deflate) {
        OK(nc_var_par_access(ncid, varid, NC_INDEPENDENT));
        start[0] = (size_t)p_rank;
        for (i = 0; i < NX; i++) vals[i] = -1;
        EXPECT(nc_put_vara_int(ncid, varid, start, count, vals), NC_ECANTEXTEND);
        OK(nc_inq_dimlen(ncid, dimids[0], &len));
        CHECK(len == 0);
    }

    /* collective: rank r writes record r; then everyone sees N records */
    OK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
    start[0] = (size_t)p_rank;
    for (i = 0; i < NX; i++) vals[i] = 100 * p_rank + i;
    OK(nc_put_vara_int(ncid, varid, start, count, vals));
    OK(nc_inq_dimlen(ncid, dimids[0], &len));
    CHECK(len == n);

    /* collective, only the last rank writes, past the end: record 2N+1 */
    start[0] = p_rank == p_size - 1 ? 2 * n + 1 : 0;
    count[0] = p_rank == p_size - 1 ? 1 : 0;
    for (i = 0; i < NX; i++) vals[i] = 7000 + i;
    OK(nc_put_vara_int(ncid, varid, start, count, vals));
    OK(nc_inq_dimlen(ncid, dimids[0], &len));
    CHECK(len == 2 * n + 2);
    count[0] = 1;

    if (!deflate) {
        /* independent again: writing inside the length succeeds, past it not */
        OK(nc_var_par_access(ncid, varid, NC_INDEPENDENT));
        if (p_rank == 0) {
            start[0] = n; /* record N, inside */
            for (i = 0; i < NX; i++) vals[i] = 5000 + i;
            OK(nc_put_vara_int(ncid, varid, start, count, vals));
            start[0] = 2 * n + 2; /* one past the end */
            EXPECT(nc_put_vara_int(ncid, varid, start, count, vals), NC_ECANTEXTEND);
        }
        OK(nc_inq_dimlen(ncid, dimids[0], &len));
        CHECK(len == 2 * n + 2);
    }
    OK(nc_close(ncid));

    OK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_dimid(ncid, "t", &dimids[0]));
    OK(nc_inq_dimlen(ncid, dimids[0], &len));
    CHECK(len == 2 * n + 2);
    OK(nc_inq_varid(ncid, "v", &varid));
    {
        int *all = malloc(len * NX * sizeof(int));
        size_t r;
        CHECK(all != NULL);
        OK(nc_get_var_int(ncid, varid, all));
        for (r = 0; r < len; r++) {
            for (i = 0; i < NX; i++) {
                int want = NC_FILL_INT;
                if (r < n) want = 100 * (int)r + i;
                else if (r == n && !deflate) want = 5000 + i;
                else if (r == 2 * n + 1) want = 7000 + i;
                if (all[r * NX + (size_t)i] != want)
                    p_fail(__FILE__, __LINE__, "record %u, x %d: %d, expected %d", (unsigned)r, i,
                           all[r * NX + (size_t)i], want);
                p_checks++;
            }
        }
        free(all);
    }
    OK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    if (!p_start(&argc, &argv)) return 0;
    run(0);
    run(1);
    return p_finish("tst_par_unlim");
}
