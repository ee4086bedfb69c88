/* Metadata is collective: ranks that define different things must not
 * leave a store that depends on which rank wrote it. Each case below makes
 * one rank's definitions differ, and nc_enddef must fail on every rank
 * (nc_close then returns, on every rank, whatever it answers).
 *
 * netCDF-C 4.9 with HDF5 does not check: there every call succeeds (run
 * with -DNETCDF_C, this program expects that and says so), and with a
 * dimension of different lengths or a variable only one rank defines its
 * nc_enddef or nc_close never returns (HDF5's collective metadata writes
 * wait for each other): those two cases are not run against it. */
#include "par_test.h"

enum kind { VAR_NAME, VAR_TYPE, ATT_VALUE, DIM_LEN, EXTRA_VAR };
static const char *names[] = {"var-name", "var-type", "att-value", "dim-len", "extra-var"};

static void run(enum kind k)
{
    int ncid, dimid, varid, rc, odd = p_rank == p_size - 1;
    char name[64];
    snprintf(name, sizeof name, "mismatch-%s", names[k]);
    OK(nc_create_par(p_path(name), NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "x", k == DIM_LEN && odd ? 5 : 4, &dimid));
    OK(nc_def_var(ncid, k == VAR_NAME && odd ? "w" : "v", k == VAR_TYPE && odd ? NC_FLOAT : NC_INT, 1, &dimid,
                  &varid));
    if (k == EXTRA_VAR && odd) OK(nc_def_var(ncid, "extra", NC_INT, 1, &dimid, &varid));
    {
        int a = k == ATT_VALUE && odd ? 2 : 1;
        OK(nc_put_att_int(ncid, NC_GLOBAL, "a", NC_INT, 1, &a));
    }
    rc = nc_enddef(ncid);
#ifdef NETCDF_C
    if (p_rank == 0 && rc == NC_NOERR) printf("netCDF-C: %s: nc_enddef succeeds on every rank\n", names[k]);
    CHECK(rc == NC_NOERR);
#else
    if (rc == NC_NOERR) p_fail(__FILE__, __LINE__, "%s: nc_enddef succeeded with different definitions", names[k]);
    p_checks++;
#endif
    (void)nc_close(ncid);
    MPI_Barrier(MPI_COMM_WORLD);
}

int main(int argc, char **argv)
{
    int k;
    if (!p_start(&argc, &argv)) return 0;
    if (p_size < 2) {
        if (p_rank == 0) printf("SKIPPED: needs 2 ranks or more\n");
        MPI_Finalize();
        return 0;
    }
#ifdef NETCDF_C
    for (k = VAR_NAME; k <= ATT_VALUE; k++) run((enum kind)k);
#else
    for (k = VAR_NAME; k <= EXTRA_VAR; k++) run((enum kind)k);
#endif
    return p_finish("tst_par_mismatch");
}
