//! Typed C buffers <-> engine value vectors.

use super::args::{c_string_lossy, elems, in_slice, malloc_c_strings, non_null, out_slice};
use super::types::nc_type;
use crate::engine::consts::NC_STRING;
use crate::engine::error::{NC_EBADTYPE, NC_ENOMEM};
use crate::engine::types::{type_size, Values};
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_void};

/// Reads `len` values of `memtype` from a caller buffer (`char*` elements
/// for `NC_STRING`; a NULL string reads as "").
///
/// # Safety
/// `p` is valid for `len` elements of `memtype` (NULL only when `len` is 0).
pub(crate) unsafe fn from_mem(memtype: nc_type, len: usize, p: *const c_void) -> NcResult<Values> {
    if memtype == NC_STRING {
        let ptrs = in_slice(p as *const *const c_char, len)?;
        let nomem = |e: crate::limits::TooLarge| NcError::with(NC_ENOMEM, e.to_string());
        let mut strings = crate::limits::try_filled(len, String::new()).map_err(nomem)?;
        for (s, &c) in strings.iter_mut().zip(ptrs) {
            *s = c_string_lossy(c)?;
        }
        return Ok(Values::String(strings));
    }
    let size = type_size(memtype).ok_or(NcError::new(NC_EBADTYPE))?;
    Values::from_ne_bytes(memtype, elems(p, len, size)?)
}

/// Writes values into a caller buffer (strings are `malloc`ed, to be
/// released with `nc_free_string`). Nothing is written for zero values.
///
/// # Safety
/// `p` is valid for `v.len()` elements of `v`'s type.
pub(crate) unsafe fn to_mem(v: &Values, p: *mut c_void) -> NcResult<()> {
    if v.is_empty() {
        return Ok(());
    }
    non_null(p)?;
    match v {
        Values::String(strings) => {
            out_slice(p as *mut *mut c_char, &malloc_c_strings(strings.iter().map(String::as_str))?)
        }
        other => out_slice(p as *mut u8, &other.to_ne_bytes()),
    }
    Ok(())
}
