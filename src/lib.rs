//! nczarr-rs: netCDF-C's NCZarr reimplemented in Rust, as a C-ABI library.
//!
//! Layers, one-way (see `docs/ARCHITECTURE.md`):
//! * [`ffi`]: the only code with `extern "C"` and raw pointers; the netCDF C
//!   API and the zmap C API over integer handle tables.
//! * [`engine`]: netCDF semantics (constants, errors, data model, metadata).
//! * [`map`]: key/object stores and their drivers; knows nothing of netCDF.
//! * [`limits`]: the resource limits every layer checks input against.
//! * `process`: thread pools and runtimes made again in a forked child.

pub mod codec;
pub mod engine;
pub mod ffi;
pub mod limits;
pub mod map;
pub(crate) mod process;
