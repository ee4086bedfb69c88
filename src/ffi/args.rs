//! Checked conversions of C arguments. All pointer handling of the API
//! modules goes through these helpers.

use crate::engine::error::NC_EINVAL;
use crate::engine::{NcError, NcResult};
use std::ffi::CStr;
use std::os::raw::{c_char, c_void};

/// `NC_EINVAL` unless `p` is non-NULL.
pub(crate) fn non_null<T>(p: *const T) -> NcResult<()> {
    if p.is_null() {
        Err(NcError::with(NC_EINVAL, "NULL pointer argument"))
    } else {
        Ok(())
    }
}

/// A required NUL-terminated UTF-8 string argument.
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string valid for `'a`.
pub(crate) unsafe fn c_str<'a>(p: *const c_char) -> NcResult<&'a str> {
    non_null(p)?;
    CStr::from_ptr(p).to_str().map_err(|_| NcError::with(NC_EINVAL, "string argument is not UTF-8"))
}

/// An optional string argument: NULL is `None`.
///
/// # Safety
/// As [`c_str`].
pub(crate) unsafe fn opt_c_str<'a>(p: *const c_char) -> NcResult<Option<&'a str>> {
    if p.is_null() {
        Ok(None)
    } else {
        c_str(p).map(Some)
    }
}

fn len_of(count: u64) -> NcResult<usize> {
    usize::try_from(count)
        .ok()
        .filter(|&n| n <= isize::MAX as usize)
        .ok_or_else(|| NcError::with(NC_EINVAL, "byte count too large"))
}

/// A caller buffer of `count` bytes to read from; NULL is allowed only when
/// `count` is 0.
///
/// # Safety
/// `p` is valid for reads of `count` bytes.
pub(crate) unsafe fn bytes<'a>(p: *const c_void, count: u64) -> NcResult<&'a [u8]> {
    let n = len_of(count)?;
    if n == 0 {
        return Ok(&[]);
    }
    non_null(p)?;
    Ok(std::slice::from_raw_parts(p as *const u8, n))
}

/// A caller buffer of `count` bytes to write into; NULL is allowed only when
/// `count` is 0.
///
/// # Safety
/// `p` is valid for writes of `count` bytes and not aliased.
pub(crate) unsafe fn bytes_mut<'a>(p: *mut c_void, count: u64) -> NcResult<&'a mut [u8]> {
    let n = len_of(count)?;
    if n == 0 {
        return Ok(&mut []);
    }
    non_null(p)?;
    Ok(std::slice::from_raw_parts_mut(p as *mut u8, n))
}

/// Copies `s` into a new C string from the C allocator (free with `free()`).
pub(crate) fn malloc_c_string(s: &str) -> NcResult<*mut c_char> {
    let bytes = s.as_bytes();
    if bytes.contains(&0) {
        return Err(NcError::with(NC_EINVAL, "string contains NUL"));
    }
    // SAFETY: malloc of len+1 bytes, filled completely below.
    unsafe {
        let p = libc::malloc(bytes.len() + 1) as *mut u8;
        if p.is_null() {
            return Err(NcError::new(crate::engine::error::NC_ENOMEM));
        }
        std::ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
        Ok(p as *mut c_char)
    }
}

/// Copies `items` into a new C array of C strings (all from the C allocator).
pub(crate) fn malloc_c_string_array(items: &[String]) -> NcResult<*mut *mut c_char> {
    if items.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    // SAFETY: the array is allocated for items.len() pointers and every slot
    // is written before it is returned; on failure everything is freed.
    unsafe {
        let arr = libc::malloc(items.len() * std::mem::size_of::<*mut c_char>()) as *mut *mut c_char;
        if arr.is_null() {
            return Err(NcError::new(crate::engine::error::NC_ENOMEM));
        }
        for (i, s) in items.iter().enumerate() {
            match malloc_c_string(s) {
                Ok(p) => *arr.add(i) = p,
                Err(e) => {
                    free_c_string_array(i, arr);
                    return Err(e);
                }
            }
        }
        Ok(arr)
    }
}

/// Frees an array made by [`malloc_c_string_array`] (or any `malloc`ed array
/// of `malloc`ed strings). NULL is fine.
///
/// # Safety
/// `arr` is NULL or holds `n` pointers that are NULL or from `malloc`.
pub(crate) unsafe fn free_c_string_array(n: usize, arr: *mut *mut c_char) {
    if arr.is_null() {
        return;
    }
    for i in 0..n {
        libc::free(*arr.add(i) as *mut c_void);
    }
    libc::free(arr as *mut c_void);
}

/// Writes an optional output: netCDF inquiry functions ignore NULL outputs.
///
/// # Safety
/// `p` is NULL or valid for a write of `T`.
pub(crate) unsafe fn out<T>(p: *mut T, v: T) {
    if !p.is_null() {
        p.write(v);
    }
}

/// Copies a name and its NUL into an optional caller buffer (netCDF callers
/// size it `NC_MAX_NAME + 1`, or from a `*_len` inquiry).
///
/// # Safety
/// `p` is NULL or valid for `s.len() + 1` bytes.
pub(crate) unsafe fn out_name(p: *mut c_char, s: &str) {
    if !p.is_null() {
        std::ptr::copy_nonoverlapping(s.as_ptr(), p as *mut u8, s.len());
        *p.add(s.len()) = 0;
    }
}

/// Copies values into an optional caller array.
///
/// # Safety
/// `p` is NULL or valid for `v.len()` elements.
pub(crate) unsafe fn out_slice<T: Copy>(p: *mut T, v: &[T]) {
    if !p.is_null() && !v.is_empty() {
        std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
    }
}

/// A caller array of `n` elements; NULL is allowed only when `n` is 0.
///
/// # Safety
/// `p` is valid for reads of `n` elements.
pub(crate) unsafe fn in_slice<'a, T>(p: *const T, n: usize) -> NcResult<&'a [T]> {
    if n == 0 {
        return Ok(&[]);
    }
    non_null(p)?;
    Ok(std::slice::from_raw_parts(p, n))
}
