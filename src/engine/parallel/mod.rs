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
mod threads;

pub use comm::{agree, all_equal, Communicator};
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

use crate::engine::error::NC_ENOPAR;
use crate::engine::model::Dataset;
use crate::engine::{NcError, NcResult};

/// `nc_create_par`: every rank of `comm` calls it with the same arguments.
pub fn create(_path: &str, _cmode: i32, _comm: Arc<dyn Communicator>) -> NcResult<Dataset> {
    Err(NcError::with(NC_ENOPAR, "parallel create: in progress"))
}

/// `nc_open_par`: every rank of `comm` calls it with the same arguments.
pub fn open(_path: &str, _omode: i32, _comm: Arc<dyn Communicator>) -> NcResult<Dataset> {
    Err(NcError::with(NC_ENOPAR, "parallel open: in progress"))
}

impl Dataset {
    /// Opened with [`create`] or [`open`].
    pub fn is_parallel(&self) -> bool {
        self.par.is_some()
    }

    /// `nc_var_par_access`: `NC_COLLECTIVE` (true) or `NC_INDEPENDENT`.
    pub fn var_par_access(&mut self, _gid: usize, _varid: i32, _collective: bool) -> NcResult<()> {
        Err(NcError::with(NC_ENOPAR, "in progress"))
    }
}
