//! The communicator the parallel engine talks through: the half-dozen
//! collective operations it needs, over byte vectors and integers. The
//! engine knows no MPI type: the C layer implements this trait over MPI
//! (`ffi::mpi`, in builds with the `mpi` feature), and
//! [`super::ThreadComm`] implements it over threads of one process, for the
//! tests. Every operation is collective: every rank of the communicator
//! calls it, in the same order. A failure is `NC_EMPI`.

use crate::engine::error::NC_EMPI;
use crate::engine::{NcError, NcResult};

/// One process's (or one thread's) view of a group of ranks.
pub trait Communicator: Send + Sync + std::fmt::Debug {
    /// This rank, `0..size()`.
    fn rank(&self) -> usize;
    /// How many ranks there are.
    fn size(&self) -> usize;
    /// Whether collective calls can still be made (`false` once MPI has
    /// been finalised: every collective is then `NC_EMPI`).
    fn running(&self) -> bool {
        true
    }
    /// Returns when every rank has called it.
    fn barrier(&self) -> NcResult<()>;
    /// `root`'s `data` on every rank (the other ranks' `data` is ignored).
    fn broadcast(&self, root: usize, data: Vec<u8>) -> NcResult<Vec<u8>>;
    /// Replaces each element by its maximum over the ranks (every rank
    /// passes the same number of them).
    fn all_reduce_max(&self, values: &mut [u64]) -> NcResult<()>;
    /// Sends `send[r]` to rank `r` (one entry per rank); returns what each
    /// rank sent to this one, indexed by the sender.
    fn all_to_all(&self, send: Vec<Vec<u8>>) -> NcResult<Vec<Vec<u8>>>;
}

/// Whether every rank passed the same `value`, in one reduction: the
/// maximum of the values and of their complements (the minimum's).
pub fn all_equal(comm: &dyn Communicator, value: u64) -> NcResult<bool> {
    agree_on(comm, Ok(()), value)
}

/// [`agree`] on the status and, in the same reduction, whether every rank
/// passed the same `value` ([`all_equal`]).
pub(crate) fn agree_on(comm: &dyn Communicator, mine: NcResult<()>, value: u64) -> NcResult<bool> {
    let mut v = [value, !value];
    agree_with(comm, mine, &mut v)?;
    Ok(v[0] == !v[1])
}

/// Every rank's netCDF status of a step, agreed: `Ok` if every rank's is,
/// else the same error on every rank: a rank's own error, and on the ranks
/// that succeeded the most negative code any rank had (netCDF codes are
/// negative), naming it as another rank's.
pub fn agree(comm: &dyn Communicator, mine: NcResult<()>) -> NcResult<()> {
    agree_with(comm, mine, &mut [])
}

/// [`agree`], reducing `values` to their maxima in the same call.
pub(crate) fn agree_with(comm: &dyn Communicator, mine: NcResult<()>, values: &mut [u64]) -> NcResult<()> {
    let code: i32 = mine.as_ref().err().map_or(0, |e| e.code());
    let mut v = Vec::with_capacity(values.len() + 1);
    v.push(code_to_wire(code));
    v.extend_from_slice(values);
    comm.all_reduce_max(&mut v)?;
    values.copy_from_slice(&v[1..]);
    match (mine, v[0]) {
        (Err(e), _) => Err(e),
        (Ok(()), 0) => Ok(()),
        (Ok(()), worst) => Err(NcError::with(code_from_wire(worst), "another rank failed this collective call")),
    }
}

/// A status code as a number whose maximum over the ranks is the code of
/// the largest magnitude (netCDF's are negative, errno values positive);
/// 0 is success.
pub(crate) fn code_to_wire(code: i32) -> u64 {
    (u64::from(code.unsigned_abs()) << 1) | u64::from(code > 0)
}

/// The code [`code_to_wire`] made (`NC_EMPI` for what it cannot have made).
pub(crate) fn code_from_wire(v: u64) -> i32 {
    match i32::try_from(v >> 1) {
        Ok(abs) if v & 1 == 1 => abs,
        Ok(abs) => -abs,
        Err(_) => NC_EMPI,
    }
}

/// A little-endian byte writer and reader for the messages ranks exchange.
#[derive(Default)]
pub(crate) struct Wire(pub Vec<u8>);

impl Wire {
    pub fn u64(&mut self, v: u64) -> &mut Self {
        self.0.extend_from_slice(&v.to_le_bytes());
        self
    }
    pub fn bytes(&mut self, b: &[u8]) -> &mut Self {
        self.u64(b.len() as u64);
        self.0.extend_from_slice(b);
        self
    }
}

/// Reads what a [`Wire`] wrote; running past the end is `NC_EMPI` (a
/// message from another rank of this library is never short).
pub(crate) struct Unwire<'a>(pub &'a [u8]);

impl<'a> Unwire<'a> {
    pub fn u64(&mut self) -> NcResult<u64> {
        let (head, rest) = self.0.split_first_chunk::<8>().ok_or_else(short)?;
        self.0 = rest;
        Ok(u64::from_le_bytes(*head))
    }
    pub fn bytes(&mut self) -> NcResult<&'a [u8]> {
        let n = usize::try_from(self.u64()?).map_err(|_| short())?;
        if n > self.0.len() {
            return Err(short());
        }
        let (b, rest) = self.0.split_at(n);
        self.0 = rest;
        Ok(b)
    }
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

fn short() -> NcError {
    NcError::with(NC_EMPI, "a message from another rank ends early")
}
