/* What the parallel API answers before any dataset is parallel: MPI not
 * yet initialised or already finalised (NC_EMPI, not a crash; so is
 * closing a writable parallel dataset after MPI_Finalize, and a read-only
 * one closes), a null or
 * invalid communicator (NC_EMPI on every rank, not MPI's fatal error
 * handler), and nc_var_par_access on a dataset opened with nc_open or
 * nc_create (NC_ENOPAR; a bad mode is NC_EINVAL first, a bad ncid
 * NC_EBADID), as netCDF-C answers. Parts that netCDF-C leaves undefined
 * (MPI not running, MPI_COMM_NULL) are not run against it. */
#include "par_test.h"

int main(int argc, char **argv)
{
    int ncid, varid, dimid;
    char path[4096];

#ifndef NETCDF_C
    /* Before MPI_Init: no rank, no scratch directory yet; the path is
     * never reached. */
    EXPECT(nc_create_par("/nonexistent/par.zarr", NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid),
           NC_EMPI);
    CHECK(strstr(nczarr_rs_last_error(), "MPI_Init") != NULL);
    EXPECT(nc_open_par("/nonexistent/par.zarr", NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NC_EMPI);
    EXPECT(nc_create_par_fortran("/nonexistent/par.zarr", NC_NETCDF4, 0, 0, &ncid), NC_EMPI);
    EXPECT(nc_open_par_fortran("/nonexistent/par.zarr", NC_NOWRITE, 0, 0, &ncid), NC_EMPI);
#endif
    if (!p_start(&argc, &argv)) return 0;

    /* a dataset each rank opens on its own is not parallel */
    {
        char name[32];
        snprintf(name, sizeof name, "serial%d", p_rank);
        snprintf(path, sizeof path, "%s", p_path(name));
    }
    OK(nc_create(path, NC_NETCDF4 | NC_CLOBBER, &ncid));
    OK(nc_def_dim(ncid, "x", 4, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    EXPECT(nc_var_par_access(ncid, varid, NC_COLLECTIVE), NC_ENOPAR);
    OK(nc_close(ncid));
    OK(nc_open(path, NC_NOWRITE, &ncid));
    OK(nc_inq_varid(ncid, "v", &varid));
    EXPECT(nc_var_par_access(ncid, varid, NC_COLLECTIVE), NC_ENOPAR);
    EXPECT(nc_var_par_access(ncid, varid, NC_INDEPENDENT), NC_ENOPAR);
    EXPECT(nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE), NC_ENOPAR);
    EXPECT(nc_var_par_access(ncid, varid, 5), NC_EINVAL);
    EXPECT(nc_var_par_access(ncid, varid, -1), NC_EINVAL);
    OK(nc_close(ncid));
    EXPECT(nc_var_par_access(ncid, varid, NC_COLLECTIVE), NC_EBADID);

#ifndef NETCDF_C
    snprintf(path, sizeof path, "%s", p_path("init"));
    /* no communicator: refused on every rank, before any collective call */
    EXPECT(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_NULL, MPI_INFO_NULL, &ncid), NC_EMPI);
    EXPECT(nc_open_par(path, NC_NOWRITE, MPI_COMM_NULL, MPI_INFO_NULL, &ncid), NC_EMPI);
    EXPECT(nc_create_par_fortran(path, NC_NETCDF4 | NC_CLOBBER, (int)MPI_Comm_c2f(MPI_COMM_NULL), 0, &ncid),
           NC_EMPI);
    /* a Fortran handle that names no communicator */
    EXPECT(nc_open_par_fortran(path, NC_NOWRITE, -7, 0, &ncid), NC_EMPI);
    /* NULL path: NC_EINVAL */
    EXPECT(nc_create_par(NULL, NC_NETCDF4, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NC_EINVAL);
    {
        int total = 0, before = p_checks, rd, wr;
        char wpath[4096];
        /* parallel datasets still open at MPI_Finalize: one read-only, one
         * writable */
        OK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
        OK(nc_def_dim(ncid, "x", 4, &dimid));
        OK(nc_close(ncid));
        OK(nc_open_par(path, NC_NOWRITE, MPI_COMM_WORLD, MPI_INFO_NULL, &rd));
        snprintf(wpath, sizeof wpath, "%s", p_path("init_w"));
        OK(nc_create_par(wpath, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &wr));
        MPI_Reduce(&p_checks, &total, 1, MPI_INT, MPI_SUM, 0, MPI_COMM_WORLD);
        MPI_Finalize();
        /* after MPI_Finalize: NC_EMPI, not a crash */
        EXPECT(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NC_EMPI);
        CHECK(strstr(nczarr_rs_last_error(), "finalised") != NULL);
        /* closing: nothing to wait for or write (read-only), or a
         * collective step MPI can no longer make (writable) */
        OK(nc_close(rd));
        EXPECT(nc_close(wr), NC_EMPI);
        CHECK(strstr(nczarr_rs_last_error(), "finalised") != NULL);
        total += (p_checks - before) * p_size;
        if (p_rank == 0) printf("tst_par_init (%s, %d ranks): %d checks passed\n", p_store, p_size, total);
        return 0;
    }
#else
    return p_finish("tst_par_init");
#endif
}
