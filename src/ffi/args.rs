//! Checked conversions of C arguments. The pointer handling of the API
//! modules goes through these helpers (docs/ARCHITECTURE.md names the few
//! places that handle pointers themselves, and why).

use crate::engine::error::{NC_EINVAL, NC_ENOMEM};
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

fn elems_len(n: usize, size: usize) -> NcResult<u64> {
    (n as u64).checked_mul(size as u64).ok_or_else(|| NcError::with(NC_EINVAL, "byte count too large"))
}

/// The bytes of a caller array of `n` elements of `size` bytes to read
/// from; NULL is allowed only when the array is empty.
///
/// # Safety
/// `p` is valid for reads of `n * size` bytes.
pub(crate) unsafe fn elems<'a>(p: *const c_void, n: usize, size: usize) -> NcResult<&'a [u8]> {
    bytes(p, elems_len(n, size)?)
}

/// The bytes of a caller array of `n` elements of `size` bytes to write
/// into; NULL is allowed only when the array is empty.
///
/// # Safety
/// `p` is valid for writes of `n * size` bytes and not aliased.
pub(crate) unsafe fn elems_mut<'a>(p: *mut c_void, n: usize, size: usize) -> NcResult<&'a mut [u8]> {
    bytes_mut(p, elems_len(n, size)?)
}

/// A caller's C string as a Rust string, invalid UTF-8 replaced; NULL is "".
///
/// # Safety
/// `p` is NULL or points to a NUL-terminated string.
pub(crate) unsafe fn c_string_lossy(p: *const c_char) -> NcResult<String> {
    if p.is_null() {
        return Ok(String::new());
    }
    crate::limits::try_string_lossy(CStr::from_ptr(p).to_bytes()).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))
}

/// Copies each of `items` into a new C string (see [`malloc_c_string`]):
/// all of them, or none (those made are freed) and the error.
pub(crate) fn malloc_c_strings<'s>(items: impl IntoIterator<Item = &'s str>) -> NcResult<Vec<*mut c_char>> {
    let mut made = Vec::new();
    for s in items {
        match malloc_c_string(s) {
            Ok(c) => made.push(c),
            Err(e) => {
                // SAFETY: each was just made by malloc_c_string.
                made.iter().for_each(|&c| unsafe { libc::free(c as *mut c_void) });
                return Err(e);
            }
        }
    }
    Ok(made)
}

/// Copies `data` into a new buffer from the C allocator (at least one byte,
/// so that an empty one is not NULL).
pub(crate) fn malloc_bytes(data: &[u8]) -> NcResult<*mut c_void> {
    // SAFETY: malloc of data.len() bytes (at least 1), filled completely.
    unsafe {
        let buf = libc::malloc(data.len().max(1));
        if buf.is_null() {
            return Err(NcError::new(NC_ENOMEM));
        }
        std::ptr::copy_nonoverlapping(data.as_ptr(), buf as *mut u8, data.len());
        Ok(buf)
    }
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
            return Err(NcError::new(NC_ENOMEM));
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
            return Err(NcError::new(NC_ENOMEM));
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
    free_strings(arr, n);
    libc::free(arr as *mut c_void);
}

/// Frees `n` strings (NULLs are fine) of a caller's `char*` array (the
/// array itself stays).
///
/// # Safety
/// `p` holds `n` pointers that are NULL or from `malloc`.
pub(crate) unsafe fn free_strings(p: *mut *mut c_char, n: usize) {
    if n > 0 {
        for &c in std::slice::from_raw_parts(p, n) {
            libc::free(c as *mut c_void);
        }
    }
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

/// A caller's struct to read; NULL is `NC_EINVAL`.
///
/// # Safety
/// `p` is NULL or points to a valid `T`.
pub(crate) unsafe fn in_ref<'a, T>(p: *const T) -> NcResult<&'a T> {
    non_null(p)?;
    Ok(&*p)
}

/// A caller's struct to read and update; NULL is `NC_EINVAL`.
///
/// # Safety
/// `p` is NULL or points to a valid `T`, not aliased.
pub(crate) unsafe fn in_mut<'a, T>(p: *mut T) -> NcResult<&'a mut T> {
    non_null(p)?;
    Ok(&mut *p)
}

/// A caller array of `n` elements to write into; NULL is allowed only when
/// `n` is 0.
///
/// # Safety
/// `p` is valid for reads and writes of `n` elements and not aliased.
pub(crate) unsafe fn slice_mut<'a, T>(p: *mut T, n: usize) -> NcResult<&'a mut [T]> {
    if n == 0 {
        return Ok(&mut []);
    }
    non_null(p)?;
    Ok(std::slice::from_raw_parts_mut(p, n))
}
