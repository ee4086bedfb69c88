/*
 * The MPI calls of libnczarr_rs's MPI build (cargo feature `mpi`): a few
 * lines of C compiled with the system's mpicc by build.rs, so that the
 * Rust side (src/ffi/mpi.rs) needs neither <mpi.h> nor bindgen.
 *
 * Handles cross as intptr_t and are cast back to MPI_Comm here: Open MPI's
 * MPI_Comm is a pointer, MPICH's an int; both fit (and an int read from a
 * 64-bit register whose upper half the caller left undefined is truncated
 * back to its 32 bits by the cast). Counts are ints, as MPI's are: the Rust
 * side cuts larger messages into pieces. Every function returns MPI's
 * status (MPI_SUCCESS is 0); the communicators this library duplicates
 * return errors (MPI_ERRORS_RETURN) instead of aborting.
 */
#include <mpi.h>
#include <stdint.h>

#define COMM(h) ((MPI_Comm)(h))

/* 0: MPI_Init has not been called; 1: MPI runs; 2: MPI_Finalize was called. */
int nczarr_rs_mpi_state(void)
{
    int initialized = 0, finalized = 0;
    MPI_Finalized(&finalized);
    if (finalized)
        return 2;
    MPI_Initialized(&initialized);
    return initialized ? 1 : 0;
}

/* MPI_Init (no arguments) and MPI_Finalize, for a Rust program of this
 * crate that is itself the MPI program (nczarr-rs-mpi-check). */
int nczarr_rs_mpi_init(void)
{
    return MPI_Init(NULL, NULL);
}

int nczarr_rs_mpi_finalize(void)
{
    return MPI_Finalize();
}

intptr_t nczarr_rs_mpi_comm_f2c(int fcomm)
{
    return (intptr_t)MPI_Comm_f2c((MPI_Fint)fcomm);
}

/* MPI_COMM_WORLD's handle. */
intptr_t nczarr_rs_mpi_comm_world(void)
{
    return (intptr_t)MPI_COMM_WORLD;
}

/* Duplicates `comm` into *dup (collective over `comm`). MPI_COMM_NULL, and
 * 0 (Open MPI's MPI_Comm_f2c of an invalid Fortran handle is a NULL
 * pointer; no MPICH handle is 0), are MPI_ERR_COMM, not an abort in
 * MPI_COMM_WORLD's error handler. */
int nczarr_rs_mpi_comm_dup(intptr_t comm, intptr_t *dup)
{
    MPI_Comm c = COMM(comm), d = MPI_COMM_NULL;
    int rc;
    if (c == (MPI_Comm)0 || c == MPI_COMM_NULL)
        return MPI_ERR_COMM;
    rc = MPI_Comm_dup(c, &d);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Comm_set_errhandler(d, MPI_ERRORS_RETURN);
    if (rc != MPI_SUCCESS) {
        MPI_Comm_free(&d);
        return rc;
    }
    *dup = (intptr_t)d;
    return MPI_SUCCESS;
}

int nczarr_rs_mpi_comm_free(intptr_t comm)
{
    MPI_Comm c = COMM(comm);
    return MPI_Comm_free(&c);
}

int nczarr_rs_mpi_comm_rank_size(intptr_t comm, int *rank, int *size)
{
    int rc = MPI_Comm_rank(COMM(comm), rank);
    return rc != MPI_SUCCESS ? rc : MPI_Comm_size(COMM(comm), size);
}

int nczarr_rs_mpi_barrier(intptr_t comm)
{
    return MPI_Barrier(COMM(comm));
}

int nczarr_rs_mpi_bcast_bytes(intptr_t comm, void *data, int count, int root)
{
    return MPI_Bcast(data, count, MPI_BYTE, root, COMM(comm));
}

int nczarr_rs_mpi_bcast_u64(intptr_t comm, uint64_t *data, int count, int root)
{
    return MPI_Bcast(data, count, MPI_UINT64_T, root, COMM(comm));
}

/* In place: each of the `count` values becomes its maximum over the ranks. */
int nczarr_rs_mpi_allreduce_max_u64(intptr_t comm, uint64_t *values, int count)
{
    return MPI_Allreduce(MPI_IN_PLACE, values, count, MPI_UINT64_T, MPI_MAX, COMM(comm));
}

/* `per_rank` values to every rank, `per_rank` from every rank. */
int nczarr_rs_mpi_alltoall_u64(intptr_t comm, const uint64_t *send, uint64_t *recv, int per_rank)
{
    return MPI_Alltoall(send, per_rank, MPI_UINT64_T, recv, per_rank, MPI_UINT64_T, COMM(comm));
}

/* An empty Rust buffer's address is its alignment, 1 for bytes: Open MPI's
 * MPI_IN_PLACE. No buffer here is meant in place. */
static char nothing[1];

int nczarr_rs_mpi_alltoallv_bytes(intptr_t comm, const void *send, const int *send_counts, const int *send_displs,
                                  void *recv, const int *recv_counts, const int *recv_displs)
{
    if (send == MPI_IN_PLACE)
        send = nothing;
    if (recv == MPI_IN_PLACE)
        recv = nothing;
    return MPI_Alltoallv(send, send_counts, send_displs, MPI_BYTE, recv, recv_counts, recv_displs, MPI_BYTE,
                         COMM(comm));
}

/* MPI's text for an error code, NUL-terminated in buf (at least
 * MPI_MAX_ERROR_STRING bytes: see nczarr_rs_mpi_max_error_string). */
void nczarr_rs_mpi_error_string(int code, char *buf)
{
    int len = 0;
    buf[0] = '\0';
    if (MPI_Error_string(code, buf, &len) == MPI_SUCCESS && len >= 0 && len < MPI_MAX_ERROR_STRING)
        buf[len] = '\0';
    else
        buf[0] = '\0';
}

int nczarr_rs_mpi_max_error_string(void)
{
    return MPI_MAX_ERROR_STRING;
}
