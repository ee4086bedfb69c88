//! Typed C buffers <-> engine value vectors.

use super::args::{in_slice, malloc_c_string, non_null};
use super::types::nc_type;
use crate::engine::consts::NC_STRING;
use crate::engine::error::{NC_EBADTYPE, NC_EINVAL, NC_ENOMEM};
use crate::engine::types::{type_size, Values};
use crate::engine::{NcError, NcResult};
use std::ffi::CStr;
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
            if !c.is_null() {
                *s = crate::limits::try_string_lossy(CStr::from_ptr(c).to_bytes()).map_err(nomem)?;
            }
        }
        return Ok(Values::String(strings));
    }
    let size = type_size(memtype).ok_or(NcError::new(NC_EBADTYPE))?;
    let n = len.checked_mul(size).ok_or(NcError::new(NC_EINVAL))?;
    let bytes = in_slice(p as *const u8, n)?;
    Values::from_ne_bytes(memtype, bytes)
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
            let mut made: Vec<*mut c_char> = Vec::with_capacity(strings.len());
            for s in strings {
                match malloc_c_string(s) {
                    Ok(c) => made.push(c),
                    Err(e) => {
                        made.iter().for_each(|&c| libc::free(c as *mut c_void));
                        return Err(e);
                    }
                }
            }
            std::ptr::copy_nonoverlapping(made.as_ptr(), p as *mut *mut c_char, made.len());
        }
        other => {
            let bytes = other.to_ne_bytes();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), p as *mut u8, bytes.len());
        }
    }
    Ok(())
}

/// Frees `n` strings (NULLs are fine) of a caller's `char*` array.
///
/// # Safety
/// `p` holds `n` pointers that are NULL or from `malloc`.
pub(crate) unsafe fn free_strings(p: *mut *mut c_char, n: usize) {
    for i in 0..n {
        libc::free(*p.add(i) as *mut c_void);
    }
}
