//! The netCDF engine: netCDF-4 semantics on Zarr v2 + NCZarr metadata.
//!
//! Nothing in here knows about C: no raw pointers, no `extern "C"`. The
//! `ffi` layer translates C calls into calls on this module.

pub mod aggregate;
pub mod cache;
mod chunk_codec;
mod chunk_plan;
pub mod consts;
pub mod convert;
pub mod copy;
pub mod data;
pub mod error;
pub mod file;
pub mod filters;
pub mod format;
pub mod json;
pub mod model;
pub mod names;
pub mod ncfile;
pub mod parallel;
mod process;
pub mod quantize;
mod shard_read;
pub mod slab;
mod slab_check;
mod strings;
pub mod types;
pub mod url;

pub use error::{NcError, NcResult};

/// Version of this library, as reported by `nc_inq_libvers`.
pub const LIBRARY_VERSION: &str = env!("CARGO_PKG_VERSION");
/// NCZarr metadata version this library writes (spec: `_nczarr_superblock`).
pub const NCZARR_VERSION: &str = "2.0.0";
