//! Whole uncompressed chunks on the file driver are read with one copy
//! (`engine::data`'s raw read): straight into the caller's memory when the
//! chunk is one run of it in the stored type and byte order and the
//! destination is not just past a page boundary, else through a
//! page-aligned buffer. Both give the same values as the general path,
//! for big-endian chunks, missing chunks (fill values), a memory type that
//! converts, and chunks of the wrong length (an error, never their bytes).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use std::ffi::CString;
use std::os::raw::c_int;
use std::path::Path;

/// A Zarr v2 store at `dir/name` holding `v`, int32 of 4 x 4 in chunks of
/// 2 x 4 (a chunk is one run of the whole array), of byte order `order`,
/// with fill value -7; chunk `c` holds `16 * c + i` at element `i`, or
/// the bytes `chunks[c]` returns.
fn store(dir: &Path, name: &str, order: char, chunks: impl Fn(usize) -> Option<Vec<u8>>) -> CString {
    let root = dir.join(name);
    std::fs::create_dir_all(root.join("v")).unwrap();
    std::fs::write(root.join(".zgroup"), r#"{"zarr_format": 2}"#).unwrap();
    let zarray = format!(
        r#"{{"zarr_format": 2, "shape": [4, 4], "chunks": [2, 4], "dtype": "{order}i4", "compressor": null,
            "fill_value": -7, "filters": null, "order": "C"}}"#
    );
    std::fs::write(root.join("v/.zarray"), zarray).unwrap();
    std::fs::write(root.join("v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": ["y", "x"]}"#).unwrap();
    for c in 0..2 {
        if let Some(bytes) = chunks(c) {
            std::fs::write(root.join(format!("v/{c}.0")), bytes).unwrap();
        }
    }
    CString::new(format!("file://{}#mode=zarr,file", root.display())).unwrap()
}

fn values(order: char, c: usize) -> Vec<u8> {
    (0..8i32)
        .flat_map(|i| {
            let x = 16 * c as i32 + i;
            if order == '<' {
                x.to_le_bytes()
            } else {
                x.to_be_bytes()
            }
        })
        .collect()
}

/// Reads the whole of `v` into memory `past` bytes after a page boundary
/// (so both the direct read and the page-aligned buffer are taken).
fn read_at(url: &CString, past: usize) -> Result<Vec<i32>, c_int> {
    let mut mem = vec![0u8; 3 * 4096 + 64];
    let at = mem.as_ptr().align_offset(4096) + past;
    let (mut nc, mut v) = (0, 0);
    unsafe {
        assert_eq!(nc_open(url.as_ptr(), NC_NOWRITE, &mut nc), NC_NOERR);
        assert_eq!(nc_inq_varid(nc, c"v".as_ptr(), &mut v), NC_NOERR);
        let rc = nc_get_var_int(nc, v, mem[at..].as_mut_ptr() as *mut c_int);
        assert_eq!(nc_close(nc), NC_NOERR);
        if rc != NC_NOERR {
            return Err(rc);
        }
    }
    Ok(mem[at..at + 64].chunks(4).map(|b| i32::from_ne_bytes(b.try_into().unwrap())).collect())
}

fn expected() -> Vec<i32> {
    (0..2).flat_map(|c| (0..8).map(move |i| 16 * c + i)).collect()
}

#[test]
fn whole_raw_chunks_read_alike_wherever_the_memory_starts() {
    let dir = tempfile::tempdir().unwrap();
    for order in ['<', '>'] {
        let url = store(dir.path(), &format!("o{}", order as u8), order, |c| Some(values(order, c)));
        // 0: on a page boundary; 16: just past one (the buffer); 64, 2048: past that
        for past in [0, 4, 16, 28, 64, 2048] {
            assert_eq!(read_at(&url, past).unwrap(), expected(), "byte order {order}, memory at page + {past}");
        }
    }
}

#[test]
fn a_missing_raw_chunk_reads_as_fill_values() {
    let dir = tempfile::tempdir().unwrap();
    let url = store(dir.path(), "missing", '<', |c| (c == 1).then(|| values('<', 1)));
    let mut want = expected();
    want[..8].fill(-7);
    for past in [0, 16] {
        assert_eq!(read_at(&url, past).unwrap(), want, "memory at page + {past}");
    }
}

#[test]
fn a_raw_chunk_of_the_wrong_length_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    for (name, len) in [("short", 31), ("long", 33), ("empty", 0)] {
        let url = store(dir.path(), name, '<', |c| {
            let mut b = values('<', c);
            if c == 0 {
                b.resize(len, 1);
            }
            Some(b)
        });
        for past in [0, 16] {
            assert_eq!(read_at(&url, past), Err(NC_ENCZARR), "a {name} chunk, memory at page + {past}");
        }
    }
}

#[test]
fn a_raw_chunk_converted_to_another_memory_type() {
    let dir = tempfile::tempdir().unwrap();
    let url = store(dir.path(), "convert", '>', |c| Some(values('>', c)));
    let (mut nc, mut v) = (0, 0);
    let mut got = [0f64; 16];
    unsafe {
        assert_eq!(nc_open(url.as_ptr(), NC_NOWRITE, &mut nc), NC_NOERR);
        assert_eq!(nc_inq_varid(nc, c"v".as_ptr(), &mut v), NC_NOERR);
        assert_eq!(nc_get_var_double(nc, v, got.as_mut_ptr()), NC_NOERR);
        // a part of one chunk: one row
        let mut row = [0i32; 4];
        assert_eq!(nc_get_vara_int(nc, v, [3usize, 0].as_ptr(), [1usize, 4].as_ptr(), row.as_mut_ptr()), NC_NOERR);
        assert_eq!(row, [20, 21, 22, 23]);
        assert_eq!(nc_close(nc), NC_NOERR);
    }
    assert_eq!(got.to_vec(), expected().iter().map(|&x| x as f64).collect::<Vec<_>>());
}
