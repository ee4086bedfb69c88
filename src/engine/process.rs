//! The engine's thread pools, and the loop that runs a request's chunk
//! work on them. Chunk work on a network store goes to [`IO_POOL`], which
//! keeps as many requests in flight as [`IO_IN_FLIGHT`]; on a local store
//! to [`CPU_POOL`], one thread per core. Both are per process (made again
//! in a forked child, `crate::process`), not rayon's global pool. The data
//! path (`engine::data`), the metadata readers and writers
//! (`engine::format`) and aggregation (`engine::aggregate`) use them.

use super::NcResult;
use crate::map::Store;
use crate::process::PerProcess;
use rayon::prelude::*;

/// Requests in flight on a network store: reading 512 chunks at 20 ms a
/// request takes 8 round trips (bench/s3_bench.py).
const IO_IN_FLIGHT: usize = 64;

/// Chunk work on network stores (`Store::io_bound`): as many requests in
/// flight as [`IO_IN_FLIGHT`], whatever the number of cores. Per process
/// (`fork`).
pub(crate) static IO_POOL: PerProcess<rayon::ThreadPool> = PerProcess::new(|| {
    rayon::ThreadPoolBuilder::new()
        .num_threads(IO_IN_FLIGHT)
        .thread_name(|i| format!("nczarr-rs-io-{i}"))
        .build()
        .expect("a thread pool can be built")
});

/// Chunk work on local stores: one thread per core. Not rayon's global pool,
/// which a forked child could not use (`crate::process`).
pub(crate) static CPU_POOL: PerProcess<rayon::ThreadPool> = PerProcess::new(|| {
    rayon::ThreadPoolBuilder::new()
        .thread_name(|i| format!("nczarr-rs-cpu-{i}"))
        .build()
        .expect("a thread pool can be built")
});

/// Runs `work` over chunks `0..n` of a request's [`Grid`], in parallel when
/// there are several (`parallel`), on the pool that suits the store.
/// Sequential work goes in the grid's order.
pub(super) fn for_chunks<F>(store: &dyn Store, n: usize, parallel: bool, work: F) -> NcResult<()>
where
    F: Fn(usize) -> NcResult<()> + Sync + Send,
{
    any_chunks(store, n, parallel, |i| work(i).map(|()| false)).map(|_| ())
}

/// [`for_chunks`] for work that answers a flag (a value out of range): is
/// any set? Called from a worker of the pool, it runs inside that pool.
pub(super) fn any_chunks<F>(store: &dyn Store, n: usize, parallel: bool, work: F) -> NcResult<bool>
where
    F: Fn(usize) -> NcResult<bool> + Sync + Send,
{
    if !parallel || n < 2 {
        return (0..n).try_fold(false, |a, i| Ok(a | work(i)?));
    }
    let pool = if store.io_bound() { &IO_POOL } else { &CPU_POOL };
    pool.get().install(|| (0..n).into_par_iter().map(work).try_reduce(|| false, |a, b| Ok(a | b)))
}
