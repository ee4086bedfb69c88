//! `nczarr-rs-mpi-check`: the MPI build's check of its binding
//! (`ffi::mpi::MpiComm`, the engine's communicator over the system's MPI),
//! built only with the `mpi` feature and not installed
//! (scripts/test-all.sh runs it; docs/PARALLEL.md). Every collective is
//! checked on 4 ranks against what it must give, with whole messages and in
//! small pieces (the path that carries messages larger than MPI's `int`
//! counts).
//!
//!     target/release/nczarr-rs-mpi-check
//!
//! Started by hand, it checks the answers without MPI running (not yet
//! initialised), then runs itself under `mpirun --oversubscribe -np 4`
//! (`$MPIEXEC` names another launcher) and exits with its status: 0 when
//! every rank passed.

use nczarr_rs::engine::error::NC_EMPI;
use nczarr_rs::engine::parallel::{all_equal, Communicator};
use nczarr_rs::ffi::mpi::{self, MpiComm};
use std::process::Command;
use std::time::{Duration, Instant};

/// Set for the ranks mpirun starts.
const CHILD_ENV: &str = "NCZARR_RS_MPI_CHECK_RANK";
const RANKS: usize = 4;

fn main() {
    if std::env::var_os(CHILD_ENV).is_some() {
        rank();
    } else {
        parent();
    }
}

fn parent() {
    // MPI not initialised: an error, not a crash
    let e = MpiComm::dup(MpiComm::world()).unwrap_err();
    assert_eq!(e.code(), NC_EMPI);
    assert!(e.detail().unwrap().contains("MPI_Init"), "{:?}", e.detail());
    assert_eq!(MpiComm::dup_fortran(0).unwrap_err().code(), NC_EMPI);

    let mpiexec = std::env::var("MPIEXEC").unwrap_or_else(|_| "mpirun".into());
    let mut cmd = Command::new(&mpiexec);
    if mpiexec.ends_with("mpirun") || mpiexec.ends_with("mpiexec") {
        cmd.arg("--oversubscribe");
    }
    cmd.args(["-np", &RANKS.to_string()])
        .arg(std::env::current_exe().unwrap())
        .env(CHILD_ENV, "1")
        // Open MPI refuses to run as root without these (containers, CI)
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1");
    let mut child = cmd.spawn().unwrap_or_else(|e| panic!("{mpiexec}: {e}"));
    let start = Instant::now();
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if start.elapsed() > Duration::from_secs(300) {
            let _ = child.kill();
            panic!("{mpiexec}: the ranks did not finish in 300 s (a collective that hangs?)");
        }
        std::thread::sleep(Duration::from_millis(100));
    };
    assert!(status.success(), "{mpiexec} -np {RANKS}: {status}");
    println!("nczarr-rs-mpi-check: {RANKS} ranks passed");
}

/// The bytes rank `from` sends rank `to` in case `case`: lengths from 0 to
/// 60, some larger than the pieces the small `max_message` makes.
fn message(from: usize, to: usize, case: usize) -> Vec<u8> {
    let len = (from * 17 + to * 5 + case * 11) % 61;
    (0..len).map(|i| (from * 31 + to * 7 + i + case) as u8).collect()
}

fn rank() {
    mpi::initialize().unwrap();
    assert_eq!(mpi::initialize().unwrap_err().code(), NC_EMPI);
    let world = MpiComm::world();
    let base = MpiComm::dup(world).unwrap();
    assert_eq!(base.size(), RANKS);
    let me = base.rank();
    base.barrier().unwrap();

    // an invalid communicator is NC_EMPI on every rank, not an abort
    assert_eq!(MpiComm::dup(0).unwrap_err().code(), NC_EMPI);
    assert_eq!(MpiComm::dup_fortran(-1).unwrap_err().code(), NC_EMPI);

    // usize::MAX: the real limit, MPI's (INT_MAX bytes a call)
    for max_message in [usize::MAX, 8, 13, 64] {
        let c = MpiComm::dup(world).unwrap().with_max_message(max_message);
        assert_eq!((c.rank(), c.size()), (me, RANKS));
        for root in 0..RANKS {
            for len in [0usize, 1, 7, 8, 9, 100, 1000] {
                let data: Vec<u8> = (0..len).map(|i| (root * 13 + i) as u8).collect();
                let mine = if me == root { data.clone() } else { vec![0xee; 3] };
                assert_eq!(c.broadcast(root, mine).unwrap(), data, "broadcast of {len} from {root}");
            }
        }
        for n in [0usize, 1, 3, 50] {
            // even: the largest is rank 0's, odd: rank RANKS-1's
            let value = |i: u64, r: u64| if i.is_multiple_of(2) { u64::MAX - 9 - r } else { i * (r + 1) };
            let mut v: Vec<u64> = (0..n as u64).map(|i| value(i, me as u64)).collect();
            c.all_reduce_max(&mut v).unwrap();
            let want: Vec<u64> =
                (0..n as u64).map(|i| value(i, if i.is_multiple_of(2) { 0 } else { RANKS as u64 - 1 })).collect();
            assert_eq!(v, want, "all_reduce_max of {n}");
        }
        for case in 0..6 {
            let send = (0..RANKS).map(|to| message(me, to, case)).collect();
            let got = c.all_to_all(send).unwrap();
            for (from, m) in got.iter().enumerate() {
                assert_eq!(m, &message(from, me, case), "all_to_all case {case}: from {from}");
            }
        }
        // nothing at all, and one rank's large message to everyone
        assert_eq!(c.all_to_all(vec![Vec::new(); RANKS]).unwrap(), vec![Vec::<u8>::new(); RANKS]);
        let big = |from: usize| vec![from as u8 ^ 0x5a; if from == 2 { 300_000 } else { 0 }];
        let got = c.all_to_all(vec![big(me); RANKS]).unwrap();
        for (from, m) in got.iter().enumerate() {
            assert_eq!(m, &big(from));
        }
        assert!(all_equal(&c, 42).unwrap());
        assert!(!all_equal(&c, me as u64).unwrap());
        // errors found before any MPI call, on every rank alike
        assert_eq!(c.all_to_all(vec![Vec::new(); RANKS + 1]).unwrap_err().code(), NC_EMPI);
        assert_eq!(c.broadcast(RANKS, Vec::new()).unwrap_err().code(), NC_EMPI);
        c.barrier().unwrap();
    }

    // at the real limit, a larger message: 8 MiB from rank 1 to rank 3
    let send = (0..RANKS).map(|to| if me == 1 && to == 3 { vec![0xa5; 8 << 20] } else { Vec::new() }).collect();
    let got = base.all_to_all(send).unwrap();
    if me == 3 {
        assert!(got[1].len() == 8 << 20 && got[1].iter().all(|&b| b == 0xa5));
    }

    // A communicator kept past MPI_Finalize is not freed then (no crash),
    // and no new one can be made.
    let kept = MpiComm::dup(world).unwrap();
    mpi::finalize().unwrap();
    assert_eq!(mpi::finalize().unwrap_err().code(), NC_EMPI);
    let e = MpiComm::dup(world).unwrap_err();
    assert_eq!(e.code(), NC_EMPI);
    assert!(e.detail().unwrap().contains("finalised"), "{:?}", e.detail());
    drop(kept);
}
