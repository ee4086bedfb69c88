/* A stand-in for MPI's <mpi.h> (MPICH's handle types), enough to compile
 * netcdf_par.h in header_all.c where no MPI is installed. */
#ifndef NCZARR_RS_FAKE_MPI_H
#define NCZARR_RS_FAKE_MPI_H
#define MPI_VERSION 3
typedef int MPI_Comm;
typedef int MPI_Info;
#define MPI_COMM_WORLD ((MPI_Comm)0x44000000)
#define MPI_INFO_NULL ((MPI_Info)0x1c000000)
#endif
