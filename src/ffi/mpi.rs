//! MPI for the parallel engine, in the MPI build (cargo feature `mpi`):
//! [`MpiComm`] implements [`Communicator`] over a duplicate of the
//! caller's communicator, through the C shim `mpi_shim.c` (compiled with
//! the system's `mpicc` by build.rs; docs/PARALLEL.md, "Building with
//! MPI").
//!
//! As netCDF-C does, the dataset works on its own duplicate of the
//! communicator given to `nc_create_par`/`nc_open_par` (its messages never
//! mix with the caller's), freed when the dataset is dropped at `nc_close`
//! unless MPI has been finalised by then. The duplicate returns MPI errors
//! (`MPI_ERRORS_RETURN`), which become `NC_EMPI` with MPI's text.
//!
//! MPI's counts are `int`s: larger messages go in pieces of at most
//! [`MAX_MESSAGE`] bytes. MPI is called on the thread that called the
//! netCDF function, so a program initialised with `MPI_THREAD_FUNNELED`
//! makes its parallel netCDF calls on its main thread.

use crate::engine::error::{NC_EMPI, NC_ENOMEM};
use crate::engine::parallel::Communicator;
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_int};

// The shim's functions (mpi_shim.c; cbindgen skips this module: see
// ffi/mod.rs). Handles cross as `intptr_t`
// (`isize`): Open MPI's pointer or MPICH's `int`, cast back to `MPI_Comm`
// on the C side.
extern "C" {
    fn nczarr_rs_mpi_state() -> c_int;
    fn nczarr_rs_mpi_init() -> c_int;
    fn nczarr_rs_mpi_finalize() -> c_int;
    fn nczarr_rs_mpi_comm_f2c(fcomm: c_int) -> isize;
    fn nczarr_rs_mpi_comm_world() -> isize;
    fn nczarr_rs_mpi_comm_dup(comm: isize, dup: *mut isize) -> c_int;
    fn nczarr_rs_mpi_comm_free(comm: isize) -> c_int;
    fn nczarr_rs_mpi_comm_rank_size(comm: isize, rank: *mut c_int, size: *mut c_int) -> c_int;
    fn nczarr_rs_mpi_barrier(comm: isize) -> c_int;
    fn nczarr_rs_mpi_bcast_bytes(comm: isize, data: *mut u8, count: c_int, root: c_int) -> c_int;
    fn nczarr_rs_mpi_bcast_u64(comm: isize, data: *mut u64, count: c_int, root: c_int) -> c_int;
    fn nczarr_rs_mpi_allreduce_max_u64(comm: isize, values: *mut u64, count: c_int) -> c_int;
    fn nczarr_rs_mpi_alltoall_u64(comm: isize, send: *const u64, recv: *mut u64, per_rank: c_int) -> c_int;
    fn nczarr_rs_mpi_alltoallv_bytes(
        comm: isize,
        send: *const u8,
        send_counts: *const c_int,
        send_displs: *const c_int,
        recv: *mut u8,
        recv_counts: *const c_int,
        recv_displs: *const c_int,
    ) -> c_int;
    fn nczarr_rs_mpi_error_string(code: c_int, buf: *mut c_char);
    fn nczarr_rs_mpi_max_error_string() -> c_int;
}

/// The most bytes one MPI call moves (MPI's counts are `int`s).
const MAX_MESSAGE: usize = i32::MAX as usize;

/// `MPI_SUCCESS`, 0 in every implementation.
const MPI_SUCCESS: c_int = 0;

/// A dataset's communicator: a duplicate of the caller's.
#[derive(Debug)]
pub struct MpiComm {
    handle: isize,
    rank: usize,
    size: usize,
    /// the most bytes one MPI call moves ([`MAX_MESSAGE`]; less in tests)
    max_message: usize,
}

/// `NC_EMPI` unless MPI has been initialised and not yet finalised.
fn running() -> NcResult<()> {
    // SAFETY: MPI_Initialized and MPI_Finalized may be called at any time.
    match unsafe { nczarr_rs_mpi_state() } {
        1 => Ok(()),
        0 => Err(NcError::with(NC_EMPI, "MPI is not initialised: call MPI_Init before nc_create_par/nc_open_par")),
        _ => Err(NcError::with(NC_EMPI, "MPI has been finalised")),
    }
}

/// `MPI_Init`, for a Rust program that is itself the MPI program (a C
/// program initialises MPI itself). `NC_EMPI` if MPI runs or has run.
pub fn initialize() -> NcResult<()> {
    // SAFETY: MPI_Initialized/MPI_Finalized may be called at any time.
    if unsafe { nczarr_rs_mpi_state() } != 0 {
        return Err(NcError::with(NC_EMPI, "MPI has already been initialised"));
    }
    // SAFETY: MPI is not initialised; no arguments.
    check(unsafe { nczarr_rs_mpi_init() }, "MPI_Init")
}

/// `MPI_Finalize`, after [`initialize`]. Communicators still alive are
/// not freed when dropped later.
pub fn finalize() -> NcResult<()> {
    running()?;
    // SAFETY: MPI runs.
    check(unsafe { nczarr_rs_mpi_finalize() }, "MPI_Finalize")
}

/// An MPI status as a result: `NC_EMPI` with MPI's text, naming `what`.
fn check(rc: c_int, what: &str) -> NcResult<()> {
    if rc == MPI_SUCCESS {
        return Ok(());
    }
    // SAFETY: the buffer has MPI_MAX_ERROR_STRING bytes and one more; the
    // shim writes a NUL-terminated text into it.
    let text = unsafe {
        let len = usize::try_from(nczarr_rs_mpi_max_error_string()).unwrap_or(0) + 1;
        let mut buf = vec![0 as c_char; len];
        nczarr_rs_mpi_error_string(rc, buf.as_mut_ptr());
        std::ffi::CStr::from_ptr(buf.as_ptr()).to_string_lossy().into_owned()
    };
    Err(NcError::with(NC_EMPI, format!("{what}: {text} (MPI error {rc})")))
}

/// An MPI count (`int`) for a length that the callers keep within
/// [`MAX_MESSAGE`].
fn count(n: usize) -> c_int {
    c_int::try_from(n).expect("a piece of at most MAX_MESSAGE")
}

/// MPI's counts and displacements of consecutive pieces, and their total.
fn layout(lens: impl Iterator<Item = usize>) -> (Vec<c_int>, Vec<c_int>, usize) {
    let (mut counts, mut displs, mut at) = (Vec::new(), Vec::new(), 0);
    for n in lens {
        counts.push(count(n));
        displs.push(count(at));
        at += n;
    }
    (counts, displs, at)
}

fn no_memory(n: usize) -> NcError {
    NcError::with(NC_ENOMEM, format!("a message of {n} bytes from another rank"))
}

impl MpiComm {
    /// A duplicate of the caller's `MPI_Comm` (collective over `comm`).
    /// `NC_EMPI` when MPI is not running or `comm` is `MPI_COMM_NULL`.
    pub fn dup(comm: isize) -> NcResult<MpiComm> {
        running()?;
        let mut handle: isize = 0;
        // SAFETY: the shim writes the duplicate's handle on success.
        check(unsafe { nczarr_rs_mpi_comm_dup(comm, &mut handle) }, "MPI_Comm_dup")?;
        let (mut rank, mut size) = (0, 0);
        // made before the `MpiComm`, which frees the handle if this fails
        let mut comm = MpiComm { handle, rank: 0, size: 1, max_message: MAX_MESSAGE };
        // SAFETY: the shim writes two ints.
        check(unsafe { nczarr_rs_mpi_comm_rank_size(handle, &mut rank, &mut size) }, "MPI_Comm_rank")?;
        match (usize::try_from(rank), usize::try_from(size)) {
            (Ok(r), Ok(s)) if r < s => {
                (comm.rank, comm.size) = (r, s);
                Ok(comm)
            }
            _ => Err(NcError::with(NC_EMPI, format!("MPI says rank {rank} of {size}"))),
        }
    }

    /// A duplicate of a Fortran communicator (`MPI_Comm_f2c`).
    pub fn dup_fortran(comm: c_int) -> NcResult<MpiComm> {
        running()?;
        // SAFETY: MPI runs; MPI_Comm_f2c takes any integer.
        Self::dup(unsafe { nczarr_rs_mpi_comm_f2c(comm) })
    }

    /// `MPI_COMM_WORLD`'s handle.
    pub fn world() -> isize {
        // SAFETY: reads a link-time constant.
        unsafe { nczarr_rs_mpi_comm_world() }
    }

    /// The same communicator moving at most `n` bytes per MPI call (from
    /// 8), so that tests cover messages in pieces without gigabytes.
    pub fn with_max_message(mut self, n: usize) -> MpiComm {
        self.max_message = n.clamp(8, MAX_MESSAGE);
        self
    }

    fn bcast_u64(&self, values: &mut [u64], root: c_int) -> NcResult<()> {
        for piece in values.chunks_mut(self.max_message / 8) {
            // SAFETY: `piece` holds `count` u64s.
            let rc = unsafe { nczarr_rs_mpi_bcast_u64(self.handle, piece.as_mut_ptr(), count(piece.len()), root) };
            check(rc, "MPI_Bcast")?;
        }
        Ok(())
    }

    /// One round of `MPI_Alltoallv`: `send[j]` to rank `j`, `recv_len[i]`
    /// bytes from rank `i` appended to `recv[i]`. The caller keeps the
    /// sums within [`MAX_MESSAGE`].
    fn all_to_all_round(&self, send: &[&[u8]], recv_len: &[usize], recv: &mut [Vec<u8>]) -> NcResult<()> {
        let (send_counts, send_displs, _) = layout(send.iter().map(|s| s.len()));
        let (recv_counts, recv_displs, total) = layout(recv_len.iter().copied());
        let packed: Vec<u8> = send.concat();
        let mut got = crate::limits::try_zeroed(total as u64, u64::MAX).map_err(|_| no_memory(total))?;
        // SAFETY: the counts and displacements lie within `packed` and
        // `got`, one of each per rank.
        let rc = unsafe {
            nczarr_rs_mpi_alltoallv_bytes(
                self.handle,
                packed.as_ptr(),
                send_counts.as_ptr(),
                send_displs.as_ptr(),
                got.as_mut_ptr(),
                recv_counts.as_ptr(),
                recv_displs.as_ptr(),
            )
        };
        check(rc, "MPI_Alltoallv")?;
        let mut rest = &got[..];
        for (r, &n) in recv.iter_mut().zip(recv_len) {
            let (piece, tail) = rest.split_at(n);
            r.extend_from_slice(piece);
            rest = tail;
        }
        Ok(())
    }
}

impl Drop for MpiComm {
    fn drop(&mut self) {
        // After MPI_Finalize no MPI call is allowed (MPI frees it there).
        // SAFETY: MPI_Initialized/Finalized may be called at any time, and
        // the handle is this communicator's own duplicate.
        unsafe {
            if nczarr_rs_mpi_state() == 1 {
                nczarr_rs_mpi_comm_free(self.handle);
            }
        }
    }
}

impl Communicator for MpiComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.size
    }

    fn running(&self) -> bool {
        running().is_ok()
    }

    // Each collective is NC_EMPI once MPI has been finalised: no MPI call
    // may be made then (Open MPI aborts the process).
    fn barrier(&self) -> NcResult<()> {
        running()?;
        // SAFETY: a valid communicator.
        check(unsafe { nczarr_rs_mpi_barrier(self.handle) }, "MPI_Barrier")
    }

    fn broadcast(&self, root: usize, data: Vec<u8>) -> NcResult<Vec<u8>> {
        running()?;
        if root >= self.size {
            return Err(NcError::with(NC_EMPI, format!("broadcast from rank {root} of {}", self.size)));
        }
        let root_c = count(root);
        // the length first: the other ranks make room for the message
        let mut len = [data.len() as u64];
        self.bcast_u64(&mut len, root_c)?;
        let mut buf = if self.rank == root {
            data
        } else {
            crate::limits::try_zeroed(len[0], isize::MAX as u64).map_err(|_| no_memory(len[0] as usize))?
        };
        for piece in buf.chunks_mut(self.max_message) {
            // SAFETY: `piece` holds `count` bytes.
            let rc = unsafe { nczarr_rs_mpi_bcast_bytes(self.handle, piece.as_mut_ptr(), count(piece.len()), root_c) };
            check(rc, "MPI_Bcast")?;
        }
        Ok(buf)
    }

    fn all_reduce_max(&self, values: &mut [u64]) -> NcResult<()> {
        running()?;
        for piece in values.chunks_mut(self.max_message / 8) {
            // SAFETY: `piece` holds `count` u64s, reduced in place.
            let rc = unsafe { nczarr_rs_mpi_allreduce_max_u64(self.handle, piece.as_mut_ptr(), count(piece.len())) };
            check(rc, "MPI_Allreduce")?;
        }
        Ok(())
    }

    fn all_to_all(&self, send: Vec<Vec<u8>>) -> NcResult<Vec<Vec<u8>>> {
        running()?;
        let n = self.size;
        if send.len() != n {
            return Err(NcError::with(NC_EMPI, format!("all_to_all: {} messages for {n} ranks", send.len())));
        }
        // The lengths first, each with the sender's longest message: every
        // rank learns the longest message of all, hence the rounds.
        let longest = send.iter().map(Vec::len).max().unwrap_or(0) as u64;
        let header: Vec<u64> = send.iter().flat_map(|m| [m.len() as u64, longest]).collect();
        let mut theirs = vec![0u64; 2 * n];
        // SAFETY: two u64s to and from each of the `n` ranks.
        check(
            unsafe { nczarr_rs_mpi_alltoall_u64(self.handle, header.as_ptr(), theirs.as_mut_ptr(), 2) },
            "MPI_Alltoall",
        )?;
        let recv_len: Vec<u64> = theirs.iter().step_by(2).copied().collect();
        let longest_of_all = theirs.iter().skip(1).step_by(2).copied().max().unwrap_or(0);
        let mut recv = Vec::with_capacity(n);
        for &len in &recv_len {
            let len = usize::try_from(len).map_err(|_| no_memory(usize::MAX))?;
            let mut v = Vec::new();
            v.try_reserve_exact(len).map_err(|_| no_memory(len))?;
            recv.push(v);
        }
        // Each round moves at most `piece` bytes per pair: at most
        // `max_message` per rank and call.
        let piece = (self.max_message / n).max(1) as u64;
        let rounds = longest_of_all.div_ceil(piece);
        let part = |len: u64, round: u64| {
            let from = (round * piece).min(len);
            (from as usize, (len.min(from + piece) - from) as usize)
        };
        for round in 0..rounds {
            let sends: Vec<&[u8]> = send
                .iter()
                .map(|m| {
                    let (from, len) = part(m.len() as u64, round);
                    &m[from..from + len]
                })
                .collect();
            let lens: Vec<usize> = recv_len.iter().map(|&l| part(l, round).1).collect();
            self.all_to_all_round(&sends, &lens, &mut recv)?;
        }
        Ok(recv)
    }
}
