//! [`ThreadComm`]: a communicator whose ranks are threads of one process,
//! so that the parallel engine is tested without MPI (each thread opens the
//! dataset with its own handle, as each MPI process would).

use super::comm::Communicator;
use crate::engine::error::NC_EMPI;
use crate::engine::{NcError, NcResult};
use std::sync::{Arc, Condvar, Mutex};

#[derive(Debug, Default)]
struct Round {
    /// what each rank put in, one entry per destination rank
    deposits: Vec<Option<Vec<Vec<u8>>>>,
    arrived: usize,
    left: usize,
    /// every rank has arrived: the ranks are taking their results
    leaving: bool,
    /// a rank's thread panicked or went away: every call fails
    broken: bool,
}

#[derive(Debug)]
struct Shared {
    size: usize,
    round: Mutex<Round>,
    turn: Condvar,
}

/// One rank of a group made by [`ThreadComm::group`]. Dropping a rank
/// while the others still use the group (a thread that panicked) breaks
/// it: their calls fail with `NC_EMPI` instead of waiting for ever.
#[derive(Debug)]
pub struct ThreadComm {
    rank: usize,
    shared: Arc<Shared>,
    done: std::sync::atomic::AtomicBool,
}

impl ThreadComm {
    /// `n` ranks, one per thread that will use them.
    pub fn group(n: usize) -> Vec<ThreadComm> {
        let shared = Arc::new(Shared {
            size: n,
            round: Mutex::new(Round { deposits: vec![None; n], ..Round::default() }),
            turn: Condvar::new(),
        });
        (0..n).map(|rank| ThreadComm { rank, shared: shared.clone(), done: false.into() }).collect()
    }

    /// Deposits `mine` (one entry per rank, or one for all) and returns
    /// what every rank deposited for this one, by sender.
    fn exchange(&self, mine: Vec<Vec<u8>>, column: bool) -> NcResult<Vec<Vec<u8>>> {
        let broken = || NcError::with(NC_EMPI, "a rank of this thread group went away");
        let s = &*self.shared;
        let mut r = s.round.lock().map_err(|_| broken())?;
        while r.leaving && !r.broken {
            r = s.turn.wait(r).map_err(|_| broken())?;
        }
        if r.broken {
            return Err(broken());
        }
        r.deposits[self.rank] = Some(mine);
        r.arrived += 1;
        if r.arrived == s.size {
            r.leaving = true;
            s.turn.notify_all();
        }
        while !r.leaving && !r.broken {
            r = s.turn.wait(r).map_err(|_| broken())?;
        }
        if r.broken {
            return Err(broken());
        }
        let me = self.rank;
        let got = (0..s.size)
            .map(|src| {
                let d = r.deposits[src].as_mut().expect("every rank deposited");
                if column {
                    std::mem::take(&mut d[me])
                } else {
                    d[0].clone()
                }
            })
            .collect();
        r.left += 1;
        if r.left == s.size {
            r.deposits.iter_mut().for_each(|d| *d = None);
            r.arrived = 0;
            r.left = 0;
            r.leaving = false;
            s.turn.notify_all();
        }
        Ok(got)
    }

    /// This rank is finished with the group: later calls by the others
    /// are not waited for by it. (Dropping it does the same.)
    fn leave(&self) {
        if self.done.swap(true, std::sync::atomic::Ordering::SeqCst) {
            return;
        }
        if std::thread::panicking() {
            if let Ok(mut r) = self.shared.round.lock() {
                r.broken = true;
                self.shared.turn.notify_all();
            }
        }
    }
}

impl Drop for ThreadComm {
    fn drop(&mut self) {
        self.leave();
    }
}

impl Communicator for ThreadComm {
    fn rank(&self) -> usize {
        self.rank
    }

    fn size(&self) -> usize {
        self.shared.size
    }

    fn barrier(&self) -> NcResult<()> {
        self.exchange(vec![Vec::new()], false).map(drop)
    }

    fn broadcast(&self, root: usize, data: Vec<u8>) -> NcResult<Vec<u8>> {
        if root >= self.size() {
            return Err(NcError::with(NC_EMPI, "broadcast from a rank outside the group"));
        }
        let send = if self.rank == root { data } else { Vec::new() };
        let mut got = self.exchange(vec![send], false)?;
        Ok(std::mem::take(&mut got[root]))
    }

    fn all_reduce_max(&self, values: &mut [u64]) -> NcResult<()> {
        let mine: Vec<u8> = values.iter().flat_map(|v| v.to_le_bytes()).collect();
        for theirs in self.exchange(vec![mine], false)? {
            if theirs.len() != values.len() * 8 {
                return Err(NcError::with(NC_EMPI, "ranks reduced different numbers of values"));
            }
            for (v, b) in values.iter_mut().zip(theirs.chunks_exact(8)) {
                *v = (*v).max(u64::from_le_bytes(b.try_into().expect("8 bytes")));
            }
        }
        Ok(())
    }

    fn all_to_all(&self, send: Vec<Vec<u8>>) -> NcResult<Vec<Vec<u8>>> {
        if send.len() != self.size() {
            return Err(NcError::with(NC_EMPI, "all_to_all needs one message per rank"));
        }
        self.exchange(send, true)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn collectives_over_threads() {
        let group = ThreadComm::group(4);
        std::thread::scope(|s| {
            for c in &group {
                s.spawn(move || {
                    let me = c.rank() as u64;
                    for round in 0..50u64 {
                        let mut v = [me + round, 10 - me];
                        c.all_reduce_max(&mut v).unwrap();
                        assert_eq!(v, [3 + round, 10]);
                        let b = c.broadcast(2, vec![me as u8; round as usize]).unwrap();
                        assert_eq!(b, vec![2u8; round as usize]);
                        let send = (0..4).map(|to| vec![me as u8, to as u8]).collect();
                        let got = c.all_to_all(send).unwrap();
                        for (from, m) in got.iter().enumerate() {
                            assert_eq!(m, &vec![from as u8, me as u8]);
                        }
                        assert!(super::super::comm::all_equal(c, 7).unwrap());
                        assert!(!super::super::comm::all_equal(c, me).unwrap());
                        c.barrier().unwrap();
                    }
                });
            }
        });
    }

    #[test]
    fn a_failed_rank_is_every_rank_s_error() {
        use crate::engine::error::{NC_EINVAL, NC_ENOMEM};
        let group = ThreadComm::group(3);
        std::thread::scope(|s| {
            for c in &group {
                s.spawn(move || {
                    let mine = match c.rank() {
                        1 => Err(NcError::new(NC_EINVAL)),
                        2 => Err(NcError::new(NC_ENOMEM)),
                        _ => Ok(()),
                    };
                    let got = super::super::comm::agree(c, mine).unwrap_err().code();
                    let want = [NC_ENOMEM, NC_EINVAL, NC_ENOMEM][c.rank()];
                    assert_eq!(got, want);
                });
            }
        });
    }

    #[test]
    fn a_panicking_rank_breaks_the_group_instead_of_hanging_it() {
        let mut group = ThreadComm::group(2);
        let second = group.pop().unwrap();
        let first = group.pop().unwrap();
        let t = std::thread::spawn(move || {
            let _c = first;
            panic!("rank 0 fails");
        });
        assert!(t.join().is_err());
        assert_eq!(second.barrier().unwrap_err().code(), NC_EMPI);
    }
}
