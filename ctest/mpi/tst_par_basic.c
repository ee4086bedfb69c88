/* nc_create_par/nc_open_par and nc_var_par_access as netCDF-C defines
 * them: the modes parallel I/O refuses, NC_MPIIO accepted and ignored, the
 * Fortran variants, nc_var_par_access on a parallel dataset, and the
 * communicator: the library's own duplicate (the caller may free theirs at
 * once), a sub-communicator per dataset, MPI_COMM_SELF. What needs no
 * parallel dataset is in tst_par_init.c. */
#include "par_test.h"

#define NX 8

/* A dataset with one int variable "v"(x) of NX values, chunks of 2:
 * written by the ranks of `comm` round-robin (chunk c by rank c % size),
 * independently; the values are base + index. With `free_comm`, the
 * caller's communicator is freed right after nc_create_par (the library
 * works on its own duplicate, as netCDF-C's does). */
static void write_small(const char *path, MPI_Comm comm, int base, int free_comm)
{
    int ncid, dimid, varid, r, n;
    size_t chunk = 2, c;
    MPI_Comm_rank(comm, &r);
    MPI_Comm_size(comm, &n);
    OK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER, comm, MPI_INFO_NULL, &ncid));
    if (free_comm) MPI_Comm_free(&comm);
    OK(nc_def_dim(ncid, "x", NX, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    OK(nc_def_var_chunking(ncid, varid, NC_CHUNKED, &chunk));
    OK(nc_enddef(ncid));
    for (c = (size_t)r; c < NX / chunk; c += (size_t)n) {
        size_t start = c * chunk;
        int vals[2];
        vals[0] = base + (int)start;
        vals[1] = base + (int)start + 1;
        OK(nc_put_vara_int(ncid, varid, &start, &chunk, vals));
    }
    OK(nc_close(ncid));
}

/* Every rank of `comm` reads `path` back. */
static void check_small(const char *path, MPI_Comm comm, int base)
{
    int ncid, varid, vals[NX], i;
    OK(nc_open_par(path, NC_NOWRITE, comm, MPI_INFO_NULL, &ncid));
    OK(nc_inq_varid(ncid, "v", &varid));
    OK(nc_get_var_int(ncid, varid, vals));
    for (i = 0; i < NX; i++) CHECK(vals[i] == base + i);
    OK(nc_close(ncid));
}

int main(int argc, char **argv)
{
    int ncid, varid, dimid;
    char path[4096];
    MPI_Comm half, mine;

    if (!p_start(&argc, &argv)) return 0;
    snprintf(path, sizeof path, "%s", p_path("basic"));

    /* modes that parallel I/O refuses (netCDF-C's check_create_mode) */
    EXPECT(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER | NC_DISKLESS, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid),
           NC_EINVAL);
    EXPECT(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER | NC_INMEMORY, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid),
           NC_EINVAL);
    EXPECT(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER | NC_MMAP, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NC_EINVAL);
#ifndef NETCDF_C
    {
        /* a zip store cannot be written by several processes */
        char zip[4096];
        snprintf(zip, sizeof zip, "file://%s/basic.zip#mode=nczarr,zip", p_base);
        EXPECT(nc_create_par(zip, NC_NETCDF4 | NC_CLOBBER, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid), NC_EINVAL);
    }
#endif

    /* NC_MPIIO (= NC_MPIPOSIX = NC_PNETCDF) is accepted and means nothing
     * more; NC_NETCDF4 as netCDF-C needs it without PnetCDF */
    write_small(path, MPI_COMM_WORLD, 0, 0);
    OK(nc_create_par(path, NC_NETCDF4 | NC_CLOBBER | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_def_dim(ncid, "x", NX, &dimid));
    OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
    OK(nc_enddef(ncid));
    /* nc_var_par_access: the mode first, then the variable */
    EXPECT(nc_var_par_access(ncid, varid, 2), NC_EINVAL);
    EXPECT(nc_var_par_access(ncid, varid, -1), NC_EINVAL);
    EXPECT(nc_var_par_access(ncid, 99, NC_COLLECTIVE), NC_ENOTVAR);
    EXPECT(nc_var_par_access(ncid + 77, varid, NC_COLLECTIVE), NC_EBADID);
    OK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
    OK(nc_var_par_access(ncid, varid, NC_INDEPENDENT));
    {
        size_t start = (size_t)p_rank % NX, one = 1;
        int v = 1000 + p_rank;
        OK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
        /* collective: every rank calls; ranks past NX write nothing */
        if (p_rank >= NX) one = 0;
        OK(nc_put_vara_int(ncid, varid, &start, &one, &v));
    }
    OK(nc_close(ncid));
    OK(nc_open_par(path, NC_NOWRITE | NC_MPIIO, MPI_COMM_WORLD, MPI_INFO_NULL, &ncid));
    OK(nc_inq_varid(ncid, "v", &varid));
    {
        int vals[NX], i;
        OK(nc_get_var_int(ncid, varid, vals));
        for (i = 0; i < NX && i < p_size; i++) CHECK(vals[i] == 1000 + i);
    }
    OK(nc_close(ncid));

    /* the Fortran variants: integer handles */
    {
        int fcomm = (int)MPI_Comm_c2f(MPI_COMM_WORLD), finfo = (int)MPI_Info_c2f(MPI_INFO_NULL);
        OK(nc_create_par_fortran(path, NC_NETCDF4 | NC_CLOBBER, fcomm, finfo, &ncid));
        OK(nc_def_dim(ncid, "x", NX, &dimid));
        OK(nc_def_var(ncid, "v", NC_INT, 1, &dimid, &varid));
        OK(nc_enddef(ncid));
        OK(nc_var_par_access(ncid, varid, NC_COLLECTIVE));
        {
            int vals[NX], i;
            size_t start = 0, count = p_rank == 0 ? NX : 0;
            for (i = 0; i < NX; i++) vals[i] = 7 * i;
            OK(nc_put_vara_int(ncid, varid, &start, &count, vals));
        }
        OK(nc_close(ncid));
        OK(nc_open_par_fortran(path, NC_NOWRITE, fcomm, finfo, &ncid));
        {
            int vals[NX], i;
            OK(nc_get_var_int(ncid, varid, vals));
            for (i = 0; i < NX; i++) CHECK(vals[i] == 7 * i);
        }
        OK(nc_close(ncid));
    }

    /* A sub-communicator per dataset: even and odd ranks each write their
     * own, through a communicator they free right after nc_create_par (the
     * library works on its duplicate, as netCDF-C's does). */
    MPI_Comm_split(MPI_COMM_WORLD, p_rank % 2, p_rank, &half);
    MPI_Comm_dup(half, &mine);
    {
        char hpath[4096];
        char name[32];
        snprintf(name, sizeof name, "half%d", p_rank % 2);
        snprintf(hpath, sizeof hpath, "%s", p_path(name));
        write_small(hpath, mine, 100 * (p_rank % 2 + 1), 1);
        /* both halves read both datasets, through the world */
        MPI_Barrier(MPI_COMM_WORLD);
        if (p_size > 1) {
            snprintf(hpath, sizeof hpath, "%s", p_path("half1"));
            check_small(hpath, MPI_COMM_WORLD, 200);
        }
        snprintf(hpath, sizeof hpath, "%s", p_path("half0"));
        check_small(hpath, MPI_COMM_WORLD, 100);
    }
    MPI_Comm_free(&half);

    /* MPI_COMM_SELF: each rank alone, its own dataset */
    {
        char name[32], spath[4096];
        snprintf(name, sizeof name, "self%d", p_rank);
        snprintf(spath, sizeof spath, "%s", p_path(name));
        write_small(spath, MPI_COMM_SELF, 10 * p_rank, 0);
        check_small(spath, MPI_COMM_SELF, 10 * p_rank);
    }

    return p_finish("tst_par_basic");
}
