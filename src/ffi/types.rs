//! C type names of the netCDF and zmap APIs.
#![allow(non_camel_case_types)]

use std::os::raw::{c_int, c_ulonglong};

/// netCDF type id.
pub type nc_type = c_int;
/// netCDF-C's 64-bit size type (`unsigned long long`).
pub type size64_t = c_ulonglong;
/// Map implementation selector (an `int` here, an enum in netCDF-C; same values).
pub type NCZM_IMPL = c_int;
/// Feature flags of a map implementation.
pub type NCZM_FEATURES = size64_t;
