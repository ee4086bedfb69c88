//! The C boundary: the only module with `extern "C"` functions and raw
//! pointers.
//!
//! Conventions (also in README.md, "C API conventions"):
//! * Every exported body runs inside [`boundary::guard`] (or
//!   [`boundary::guard_or`] for the few functions that do not return a
//!   status): a panic becomes `NC_EINTERNAL`, never an unwind into C.
//! * Every pointer argument is checked for NULL (`NC_EINVAL`) unless the
//!   netCDF API documents NULL as allowed for it.
//! * Outputs are written only when the call succeeds.
//! * Handles (`ncid`, zmap ids) are integers in thread-safe tables
//!   ([`handles::HandleTable`]); no Rust pointer is ever handed to C.
//! * Memory returned to C (strings, name lists) comes from the C allocator,
//!   so `free()` or the matching `*_free_*` function releases it.

// The C functions that take pointers but do not read them themselves are
// safe Rust functions; forwarding them to another libnetcdf (`interpose`)
// hands the pointers on, which clippy would want marked `unsafe`.
#![allow(clippy::not_unsafe_ptr_arg_deref)]

pub mod aggregate;
pub(crate) mod args;
pub mod atts;
pub mod boundary;
pub mod compat;
pub mod data;
pub mod dispatch;
pub(crate) mod external;
pub mod files;
pub(crate) mod handles;
pub(crate) mod interpose;
pub mod library;
pub mod mem;
// cbindgen declares every foreign function it sees (the shim's): not here
/// cbindgen:ignore
#[cfg(feature = "mpi")]
pub mod mpi;
pub(crate) mod nc;
pub mod par;
pub mod settings;
pub mod types;
pub(crate) mod values;
pub mod vars;
pub mod zmap;

/// Installs into the engine the C libraries it uses at run time (libnetcdf
/// for netCDF files, UDUNITS-2 for units), as the first `nc_open` does:
/// for Rust programs that call the engine directly (`nczarr-rs-aggregate`).
pub fn load_runtime_libraries() {
    external::install();
}
