//! Parallel access: many ranks (MPI processes, or threads with
//! [`ThreadComm`]) open one dataset together, as netCDF-C's `netcdf_par.h`
//! describes, and write it without losing anyone's data. docs/PARALLEL.md
//! gives the semantics; this module is the one place that coordinates the
//! ranks, over the [`Communicator`] trait (no MPI type in the engine):
//!
//! - create and open ([`create`], [`open`]): one rank creates the store or
//!   reads the metadata, and the others get it by broadcast;
//! - metadata is collective: at `nc_enddef`, `nc_redef`, `nc_sync` and
//!   `nc_close` the ranks check that they defined the same metadata (a
//!   hash), and rank 0 alone writes it;
//! - data: independent access writes as any writer does (chunks shared with
//!   other writers are merged, docs/RELIABILITY.md), and may not grow an
//!   unlimited dimension (`NC_ECANTEXTEND`); collective access agrees on
//!   the new lengths and aggregates the pieces of chunks several ranks
//!   write on one owner rank, which writes each once (two-phase I/O).

mod comm;
mod replay;
mod threads;

pub use comm::{agree, all_equal, Communicator};
use comm::{code_from_wire, code_to_wire, Unwire, Wire};
pub use threads::ThreadComm;

use std::collections::HashSet;
use std::sync::Arc;

/// A dataset's parallel state: its communicator (the caller's, duplicated
/// by the C layer, freed when this is dropped at close) and the variables
/// set to collective access.
#[derive(Debug, Clone)]
pub struct Parallel {
    pub(in crate::engine) comm: Arc<dyn Communicator>,
    /// (group, variable) pairs with `NC_COLLECTIVE` access.
    pub(in crate::engine) collective: HashSet<(usize, usize)>,
}

use crate::engine::consts::*;
use crate::engine::error::*;
use crate::engine::model::Dataset;
use crate::engine::slab::{Runs, Slab};
use crate::engine::url::Storage;
use crate::engine::{data::MemIn, file, format, NcError, NcResult};
use crate::map::StoreKey;

/// What a parallel dataset cannot be: one image in memory, one archive, or
/// a store in this process's memory (netCDF-C: `NC_EINVAL` for
/// `NC_DISKLESS`, `NC_INMEMORY`, `NC_MMAP`). `NC_MPIIO` is ignored.
fn check_mode(path: &str, mode: i32) -> NcResult<i32> {
    let mode = mode & !NC_MPIIO;
    if mode & (NC_DISKLESS | NC_INMEMORY | NC_MMAP) != 0 {
        return Err(NcError::with(NC_EINVAL, "a parallel dataset cannot be diskless, in memory or mapped"));
    }
    match file::storage_of(path, mode)? {
        Storage::Zip => Err(NcError::with(NC_EINVAL, "a zip archive cannot be written by several processes at once")),
        Storage::Memory => Err(NcError::with(NC_EINVAL, "a parallel dataset cannot be in memory")),
        Storage::File | Storage::S3 | Storage::Refs | Storage::Gcs | Storage::Azure | Storage::Http => Ok(mode),
    }
}

fn parallel(mut ds: Dataset, comm: Arc<dyn Communicator>) -> Dataset {
    ds.par = Some(Parallel { comm, collective: HashSet::new() });
    ds
}

/// `nc_create_par`: every rank of `comm` calls it with the same arguments.
/// Rank 0 creates the store (clobbering as `cmode` says); the others then
/// open it. The dataset is in define mode on every rank.
pub fn create(path: &str, cmode: i32, comm: Arc<dyn Communicator>) -> NcResult<Dataset> {
    let checked = check_mode(path, cmode);
    let made = match (&checked, comm.rank()) {
        (Ok(mode), 0) => Some(file::create(path, *mode)),
        _ => None,
    };
    let status = checked.as_ref().map(drop).map_err(Clone::clone);
    let status = status.and(made.as_ref().map_or(Ok(()), |m| m.as_ref().map(drop).map_err(Clone::clone)));
    agree(&*comm, status)?;
    let ds = match made {
        Some(made) => made,
        None => file::create_joined(path, checked?),
    };
    // the others' store handles exist before anyone writes
    let joined = ds.as_ref().map(drop).map_err(Clone::clone);
    agree(&*comm, joined)?;
    Ok(parallel(ds?, comm))
}

/// `nc_open_par`: every rank of `comm` calls it with the same arguments.
/// Rank 0 reads the metadata, noting every request and its answer; the
/// others get the log by broadcast and read the metadata from it (N ranks
/// make one open's requests).
pub fn open(path: &str, omode: i32, comm: Arc<dyn Communicator>) -> NcResult<Dataset> {
    let mode = check_mode(path, omode);
    if comm.rank() == 0 {
        let mut log = Vec::new();
        let opened = mode.clone().and_then(|mode| {
            let mut recorder = None;
            let ds = file::open_through(path, mode, |store| {
                let r = Arc::new(replay::Recorder::new(store));
                recorder = Some(r.clone());
                r
            });
            log = recorder.map(|r| r.log()).unwrap_or_default();
            ds
        });
        let mut w = Wire::default();
        match &opened {
            Ok(_) => w.u64(0).bytes(&log),
            Err(e) => w.u64(code_to_wire(e.code())).bytes(e.to_string().as_bytes()),
        };
        comm.broadcast(0, w.0)?;
        return Ok(parallel(opened?, comm));
    }
    let msg = comm.broadcast(0, Vec::new())?;
    let mut r = Unwire(&msg);
    let code = r.u64()?;
    let body = r.bytes()?;
    if code != 0 {
        let code = code_from_wire(code);
        let why = String::from_utf8_lossy(body);
        return Err(NcError::with(code, format!("rank 0 could not open {path}: {why}")));
    }
    let mode = mode?;
    let mut failed = None;
    let ds = file::open_through(path, mode, |store| match replay::Replayer::new(store.clone(), body) {
        Ok(r) => Arc::new(r),
        Err(e) => {
            failed = Some(e);
            store
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    Ok(parallel(ds?, comm))
}

/// Part of a chunk that a collective write changes, sent to the rank that
/// writes the chunk: the runs of elements (offset and count in the chunk)
/// and their bytes in the variable's type, one after another.
#[derive(Debug)]
pub(in crate::engine) struct Piece {
    pub key: StoreKey,
    runs: Vec<(u64, u64)>,
    data: Vec<u8>,
}

impl Piece {
    /// The runs of `runs` in one chunk, each converted by `convert` into
    /// its bytes; returns it and whether a value was out of range.
    pub fn of(
        key: StoreKey,
        runs: &Runs,
        esize: usize,
        convert: impl Fn(crate::engine::slab::Run, &mut [u8]) -> bool,
    ) -> NcResult<(Piece, bool)> {
        let n = usize::try_from(runs.elements()).map_err(|_| NcError::new(NC_ENOMEM))?;
        let bytes = n.checked_mul(esize).ok_or(NcError::new(NC_ENOMEM))?;
        let mut data = crate::limits::try_zeroed(bytes as u64, crate::limits::limits().max_chunk_bytes)
            .map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
        let mut list = Vec::new();
        let (mut at, mut range) = (0usize, false);
        runs.for_each(|run| {
            list.push((run.chunk as u64, run.n as u64));
            range |= convert(run, &mut data[at..at + run.n * esize]);
            at += run.n * esize;
        });
        Ok((Piece { key, runs: list, data }, range))
    }

    /// Each run's offset and count.
    pub fn runs(&self, mut f: impl FnMut(usize, usize)) {
        self.runs.iter().for_each(|&(at, n)| f(at as usize, n as usize));
    }

    /// The runs fit a chunk of `elems` elements of `esize` bytes, and the
    /// bytes are theirs (a piece from another rank is checked before use).
    pub fn check(&self, elems: usize, esize: usize) -> NcResult<()> {
        let mut total = 0u64;
        for &(at, n) in &self.runs {
            let end = at.checked_add(n).filter(|&e| e <= elems as u64);
            total = total.checked_add(n).filter(|_| end.is_some()).ok_or_else(bad_piece)?;
        }
        match total.checked_mul(esize as u64) == Some(self.data.len() as u64) {
            true => Ok(()),
            false => Err(bad_piece()),
        }
    }

    /// Copies the runs' bytes into `chunk` (checked with [`Piece::check`]).
    pub fn lay_into(&self, chunk: &mut [u8], esize: usize) {
        let mut from = 0usize;
        for &(at, n) in &self.runs {
            let (at, len) = (at as usize * esize, n as usize * esize);
            chunk[at..at + len].copy_from_slice(&self.data[from..from + len]);
            from += len;
        }
    }

    fn put(&self, w: &mut Wire) {
        w.bytes(self.key.as_str().as_bytes()).u64(self.runs.len() as u64);
        self.runs.iter().for_each(|&(at, n)| {
            w.u64(at).u64(n);
        });
        w.bytes(&self.data);
    }

    fn take(r: &mut Unwire<'_>) -> NcResult<Piece> {
        let key = std::str::from_utf8(r.bytes()?).ok().and_then(|k| StoreKey::parse(k).ok()).ok_or_else(bad_piece)?;
        let n = r.u64()?;
        if n > (r.0.len() / 16) as u64 {
            return Err(bad_piece());
        }
        let runs = (0..n).map(|_| Ok((r.u64()?, r.u64()?))).collect::<NcResult<Vec<_>>>()?;
        Ok(Piece { key, runs, data: r.bytes()?.to_vec() })
    }
}

fn bad_piece() -> NcError {
    NcError::with(NC_EMPI, "a malformed chunk piece from another rank")
}

/// The rank that writes a chunk in collective writes: a hash of its key
/// (FNV-1a), the same on every rank.
fn owner(key: &StoreKey, ranks: usize) -> usize {
    let h = crate::map::key::fnv1a(crate::map::key::FNV_OFFSET, key.as_str().as_bytes());
    (h % ranks.max(1) as u64) as usize
}

impl Dataset {
    /// Opened with [`create`] or [`open`].
    pub fn is_parallel(&self) -> bool {
        self.par.is_some()
    }

    /// The communicator of a parallel dataset (`None` otherwise): the C
    /// layer waits on it at `nc_close` once the dataset is dropped.
    pub fn communicator(&self) -> Option<Arc<dyn Communicator>> {
        self.par.as_ref().map(|p| p.comm.clone())
    }

    fn comm(&self) -> NcResult<Arc<dyn Communicator>> {
        self.communicator().ok_or(NcError::new(NC_ENOPAR))
    }

    /// Whether writes of a variable are collective: set so, or filtered
    /// (netCDF-C makes a filtered variable's access collective).
    pub fn is_collective(&self, gid: usize, varid: i32) -> bool {
        let Some(p) = &self.par else { return false };
        let Ok(v) = self.var(gid, varid) else { return false };
        p.collective.contains(&(gid, varid as usize)) || !v.codecs.is_empty()
    }

    /// `nc_var_par_access`: `NC_COLLECTIVE` (true) or `NC_INDEPENDENT`
    /// access for one variable, or with `NC_GLOBAL` for every variable of
    /// the group. A filtered variable's access stays collective: asking for
    /// independent access is `NC_EINVAL` (netCDF-C). `NC_ENOPAR` if the
    /// dataset was not opened in parallel.
    pub fn var_par_access(&mut self, gid: usize, varid: i32, collective: bool) -> NcResult<()> {
        self.group(gid)?;
        if self.par.is_none() {
            return Err(NcError::new(NC_ENOPAR));
        }
        let vars: Vec<usize> = match varid {
            NC_GLOBAL => (0..self.groups[gid].vars.len()).collect(),
            v => vec![self.var(gid, v).map(|_| v as usize)?],
        };
        for &v in &vars {
            if !collective && !self.groups[gid].vars[v].codecs.is_empty() {
                return Err(NcError::with(NC_EINVAL, "a filtered variable's parallel access is collective"));
            }
        }
        let p = self.par.as_mut().expect("parallel");
        for v in vars {
            match collective {
                true => p.collective.insert((gid, v)),
                false => p.collective.remove(&(gid, v)),
            };
        }
        Ok(())
    }

    /// An independent write may not grow an unlimited dimension: the
    /// others would not know (netCDF-C: `NC_ECANTEXTEND`).
    pub(in crate::engine) fn check_not_extending(&self, gid: usize, varid: i32, slab: &Slab) -> NcResult<()> {
        let v = self.var(gid, varid)?;
        if slab.is_empty() {
            return Ok(());
        }
        for (d, &dimid) in v.dimids.iter().enumerate() {
            let dim = &self.dims[dimid];
            if dim.unlimited && slab.end(d).is_none_or(|end| end > dim.len) {
                return Err(NcError::new(NC_ECANTEXTEND));
            }
        }
        Ok(())
    }

    /// A collective write: every rank calls it for the same variable (with
    /// its own slab, perhaps empty). The ranks agree on its checks and on
    /// the new lengths of unlimited dimensions (the largest any rank
    /// writes to); each writes the chunks its slab covers whole, and sends
    /// the parts of the others to the chunk's owner rank, which lays every
    /// rank's parts into the chunk and writes it once (two-phase I/O).
    /// Every rank returns the same status (but `NC_ERANGE`, its own).
    pub(in crate::engine) fn put_slab_collective(
        &mut self,
        gid: usize,
        varid: i32,
        slab: &Slab,
        input: MemIn,
    ) -> NcResult<()> {
        self.put_collective(gid, varid, Ok(Some((slab.clone(), input))))
    }

    /// A collective write of a request: a slab and the caller's values,
    /// `None` when this rank writes nothing, or the error this rank's
    /// request has (it still takes part: the others get an error too,
    /// rather than wait for it).
    pub fn put_collective(&mut self, gid: usize, varid: i32, request: NcResult<Option<(Slab, MemIn)>>) -> NcResult<()> {
        let comm = self.comm()?;
        // 1. checks, agreed with the variable (every rank must name the
        // same one: the next step's reduction has one value per unlimited
        // dimension of it)
        let (checked, request) = match request {
            Ok(r) => (Ok(()), r),
            Err(e) => (Err(e), None),
        };
        let var = self.var(gid, varid).map(|v| v.dimids.clone());
        let dimids = var.as_ref().cloned().unwrap_or_default();
        let unlimited: Vec<(usize, usize)> =
            dimids.iter().enumerate().filter(|(_, &d)| self.dims[d].unlimited).map(|(i, &d)| (i, d)).collect();
        let mut ends: Vec<u64> = unlimited.iter().map(|&(_, d)| self.dims[d].len).collect();
        let checked = checked.and(var.map(drop)).and_then(|()| self.check_writable()).and_then(|()| {
            if self.define_mode && self.classic_model {
                return Err(NcError::new(NC_EINDEFINE));
            }
            let Some((slab, _)) = &request else { return Ok(()) };
            self.check_slab(self.var(gid, varid)?, slab, true)?;
            if !slab.is_empty() {
                for (e, &(i, _)) in ends.iter_mut().zip(&unlimited) {
                    *e = (*e).max(slab.end(i).ok_or(NcError::new(NC_ENOMEM))?);
                }
            }
            Ok(())
        });
        let which = (gid as u64) << 32 ^ (varid as u32 as u64) ^ (unlimited.len() as u64) << 48;
        if !comm::agree_on(&*comm, checked, which)? {
            return Err(NcError::with(NC_EINVAL, "the ranks of a collective write named different variables"));
        }
        // 2. the ends of the unlimited dimensions, agreed
        comm.all_reduce_max(&mut ends)?;
        // 3. data mode (collective itself), the agreed lengths
        if self.define_mode {
            self.enddef()?;
        }
        for (&(_, d), &e) in unlimited.iter().zip(&ends) {
            self.dims[d].len = self.dims[d].len.max(e);
        }
        // 4. whole chunks written, parts collected
        let pieces = std::sync::Mutex::new(Vec::new());
        let local = match request {
            Some((slab, input)) => self.put_slab_with(gid, varid, &slab, input, Some(&pieces)),
            None => Ok(()),
        };
        let range = matches!(&local, Err(e) if e.code() == NC_ERANGE);
        let local = if range { Ok(()) } else { local };
        // 5. parts to their owners
        let ranks = comm.size();
        let mut out: Vec<Wire> = (0..ranks).map(|_| Wire::default()).collect();
        for p in pieces.into_inner().unwrap_or_else(|p| p.into_inner()) {
            p.put(&mut out[owner(&p.key, ranks)]);
        }
        let sent = local.is_ok();
        let got = comm.all_to_all(out.into_iter().map(|w| if sent { w.0 } else { Vec::new() }).collect())?;
        comm::agree_with(&*comm, local, &mut [])?;
        // 6. this rank's chunks written
        let written = (|| {
            let mut mine = Vec::new();
            for msg in &got {
                let mut r = Unwire(msg);
                while !r.is_empty() {
                    mine.push(Piece::take(&mut r)?);
                }
            }
            self.write_pieces(gid, varid as usize, mine)
        })();
        comm::agree_with(&*comm, written, &mut [])?;
        // 7. what other ranks wrote is read again
        self.groups[gid].vars[varid as usize].cache.drop_clean();
        match range {
            true => Err(NcError::new(NC_ERANGE)),
            false => Ok(()),
        }
    }

    /// The collective metadata step of `nc_enddef`, `nc_sync` and
    /// `nc_close` on a parallel dataset (`local`: this rank's result so far,
    /// the write of its own chunks). The ranks agree on their status and on
    /// the metadata (its digest: a mismatch is `NC_EINVAL` on every rank,
    /// nothing written); rank 0 writes it, merging lengths stored by other
    /// writers, and sends the lengths and its status to the others.
    pub(in crate::engine) fn par_write_metadata(&mut self, local: NcResult<()>) -> NcResult<()> {
        let comm = self.comm()?;
        self.par_check_metadata(local)?;
        let written = match comm.rank() {
            0 => self.write_metadata_merged(),
            _ => Ok(()),
        };
        let mut w = Wire::default();
        match &written {
            Ok(()) => {
                w.u64(0).u64(self.dims.len() as u64);
                self.dims.iter().for_each(|d| {
                    w.u64(d.len);
                });
            }
            Err(e) => {
                w.u64(code_to_wire(e.code())).bytes(e.to_string().as_bytes());
            }
        }
        let msg = comm.broadcast(0, w.0)?;
        if comm.rank() == 0 {
            return written;
        }
        let mut r = Unwire(&msg);
        let code = r.u64()?;
        if code != 0 {
            let code = code_from_wire(code);
            let why = String::from_utf8_lossy(r.bytes()?).into_owned();
            return Err(NcError::with(code, format!("rank 0 could not write the metadata: {why}")));
        }
        if r.u64()? != self.dims.len() as u64 {
            return Err(NcError::with(NC_EMPI, "rank 0 has other dimensions"));
        }
        for d in 0..self.dims.len() {
            self.dims[d].len = r.u64()?;
        }
        format::metadata_written_elsewhere(self)
    }

    /// The ranks agree on their status (`local`) and on the metadata to
    /// write (its digest: a mismatch is `NC_EINVAL` on every rank).
    pub(in crate::engine) fn par_check_metadata(&mut self, local: NcResult<()>) -> NcResult<()> {
        let comm = self.comm()?;
        let digest = local.as_ref().ok().map(|()| format::metadata_digest(self));
        let (local, d) = match digest {
            Some(Ok(d)) => (local, d),
            Some(Err(e)) => (Err(e), 0),
            None => (local, 0),
        };
        if !comm::agree_on(&*comm, local, d)? {
            return Err(NcError::with(
                NC_EINVAL,
                "the ranks of this parallel dataset defined different metadata (every rank must make the same \
                 define calls): nothing written",
            ));
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A parallel open's other ranks read no metadata from the store: the
    /// log of rank 0's reads answers them all. Replayed over an empty
    /// directory, the open still shows the dataset the log was taken from.
    #[test]
    fn a_replayed_open_asks_the_store_nothing() {
        let dir = tempfile::tempdir().unwrap();
        for mode in ["nczarr", "zarr", "nczarr,v3", "zarr,v3", "nczarr,consolidated"] {
            let name = mode.replace(',', "-");
            let url = format!("file://{}/{name}.zarr#mode={mode},file", dir.path().display());
            let mut ds = file::create(&url, NC_CLOBBER).unwrap();
            let g = ds.def_grp(0, "g").unwrap();
            let x = ds.def_dim(g, "x", 3).unwrap() as i32;
            ds.def_var(g, "v", NC_INT, &[x]).unwrap();
            ds.close().unwrap();

            let mut recorder = None;
            file::open_through(&url, NC_NOWRITE, |s| {
                let r = Arc::new(replay::Recorder::new(s));
                recorder = Some(r.clone());
                r
            })
            .unwrap();
            let log = recorder.unwrap().log();

            let empty = dir.path().join(format!("{name}-empty.zarr"));
            std::fs::create_dir(&empty).unwrap();
            let other = format!("file://{}#mode={mode},file", empty.display());
            assert!(file::open(&other, NC_NOWRITE).is_err(), "{mode}: the empty store is not a dataset");
            let ds = file::open_through(&other, NC_NOWRITE, |s| Arc::new(replay::Replayer::new(s, &log).unwrap()))
                .unwrap_or_else(|e| panic!("{mode}: {e}"));
            let g = ds.child_group(0, "g").unwrap();
            assert_eq!(ds.find_var(g, "v"), Some(0), "{mode}");
        }
    }

    #[test]
    fn owners_spread_chunks_over_the_ranks() {
        let mut per_rank = [0usize; 4];
        for i in 0..400 {
            per_rank[owner(&StoreKey::parse(&format!("v/0.{i}")).unwrap(), 4)] += 1;
        }
        assert!(per_rank.iter().all(|&n| n > 60), "{per_rank:?}");
    }
}
