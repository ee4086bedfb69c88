//! Zarr v2 variable-length strings (`"dtype": "|O"` with numcodecs'
//! `vlen-utf8`/`vlen-bytes`), and variables this library cannot decode,
//! from hand-built stores.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::path::Path;

fn vlen(items: &[&str]) -> Vec<u8> {
    let mut out = (items.len() as u32).to_le_bytes().to_vec();
    for s in items {
        out.extend_from_slice(&(s.len() as u32).to_le_bytes());
        out.extend_from_slice(s.as_bytes());
    }
    out
}

fn write(dir: &Path, key: &str, bytes: &[u8]) {
    let p = dir.join(key);
    std::fs::create_dir_all(p.parent().unwrap()).unwrap();
    std::fs::write(p, bytes).unwrap();
}

fn zarray(dtype: &str, filters: &str, compressor: &str, fill: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": [5], "chunks": [2], "dtype": {dtype}, "fill_value": {fill},
            "order": "C", "filters": {filters}, "compressor": {compressor}}}"#
    )
}

/// A store: `plain` (vlen-utf8, no compressor), `zstd` (vlen-utf8 + zstd),
/// `bytes` (vlen-bytes, chunks missing), `filled` (fill "N/A", a chunk
/// missing), and undecodable variables beside them.
fn build(dir: &Path) -> [&'static str; 5] {
    write(dir, ".zgroup", br#"{"zarr_format": 2}"#);
    write(dir, ".zattrs", b"{}");
    let dims = br#"{"_ARRAY_DIMENSIONS": ["x"]}"#;
    let utf8 = r#"[{"id": "vlen-utf8"}]"#;
    let words = ["a", "", "h\u{e9}llo w\u{f6}rld", "\u{65e5}\u{672c}\u{1F600}", "last one"];
    let chunks = [vlen(&words[0..2]), vlen(&words[2..4]), vlen(&words[4..5])];
    for (name, compressor) in [("plain", "null"), ("zstd", r#"{"id": "zstd", "level": 3}"#)] {
        write(dir, &format!("{name}/.zarray"), zarray(r#""|O""#, utf8, compressor, "null").as_bytes());
        write(dir, &format!("{name}/.zattrs"), dims);
        for (i, c) in chunks.iter().enumerate() {
            let c = if name == "zstd" { zstd::bulk::compress(c, 3).unwrap() } else { c.clone() };
            write(dir, &format!("{name}/{i}"), &c);
        }
    }
    // the last chunk is 1 element long: an edge chunk still holds 2 items in
    // numcodecs (the padding item is "")
    for name in ["plain", "zstd"] {
        let c = vlen(&[words[4], ""]);
        let c = if name == "zstd" { zstd::bulk::compress(&c, 3).unwrap() } else { c };
        write(dir, &format!("{name}/2"), &c);
    }
    write(dir, "bytes/.zarray", zarray(r#""|O""#, r#"[{"id": "vlen-bytes"}]"#, "null", "null").as_bytes());
    write(dir, "bytes/.zattrs", dims);
    write(dir, "bytes/0", &vlen(&["b0", "b1"]));
    write(dir, "filled/.zarray", zarray(r#""|O""#, utf8, "null", r#""N/A""#).as_bytes());
    write(dir, "filled/.zattrs", dims);
    write(dir, "filled/1", &vlen(&["x2", "x3"]));
    // undecodable: an unknown dtype, a structured dtype, |O with an unknown
    // object codec, |O without one, an unknown compressor
    write(dir, "complex/.zarray", zarray(r#""<c8""#, "null", "null", "null").as_bytes());
    write(dir, "complex/.zattrs", dims);
    write(dir, "record/.zarray", zarray(r#"[["a", "<i4"], ["b", "<f8"]]"#, "null", "null", "null").as_bytes());
    write(dir, "record/.zattrs", dims);
    write(dir, "pickled/.zarray", zarray(r#""|O""#, r#"[{"id": "pickle"}]"#, "null", "null").as_bytes());
    write(dir, "pickled/.zattrs", dims);
    write(dir, "bare/.zarray", zarray(r#""|O""#, "null", "null", "null").as_bytes());
    write(dir, "bare/.zattrs", dims);
    write(dir, "zfp/.zarray", zarray(r#""<i4""#, "null", r#"{"id": "zfpy", "mode": 4}"#, "null").as_bytes());
    write(dir, "zfp/.zattrs", dims);
    write(dir, "zfp/0", b"not decodable here");
    words
}

unsafe fn open(dir: &Path) -> c_int {
    let p = CString::new(format!("file://{}#mode=zarr,file", dir.display())).unwrap();
    let mut nc = -1;
    assert_eq!(nc_open(p.as_ptr(), NC_NOWRITE, &mut nc), NC_NOERR);
    nc
}

unsafe fn varid(nc: c_int, name: &str) -> c_int {
    let n = CString::new(name).unwrap();
    let mut v = -1;
    assert_eq!(nc_inq_varid(nc, n.as_ptr(), &mut v), NC_NOERR, "{name}");
    v
}

unsafe fn strings(nc: c_int, v: c_int, start: usize, count: usize) -> Result<Vec<String>, c_int> {
    let mut out: Vec<*mut c_char> = vec![std::ptr::null_mut(); count];
    let rc = nc_get_vara_string(nc, v, [start].as_ptr(), [count].as_ptr(), out.as_mut_ptr());
    if rc != NC_NOERR {
        return Err(rc);
    }
    let got = out.iter().map(|&p| CStr::from_ptr(p).to_str().unwrap().to_string()).collect();
    assert_eq!(nc_free_string(count, out.as_mut_ptr()), NC_NOERR);
    Ok(got)
}

#[test]
fn vlen_utf8_reads_as_nc_string() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("vlen.zarr");
    let words = build(&dir);
    unsafe {
        let nc = open(&dir);
        for name in ["plain", "zstd"] {
            let v = varid(nc, name);
            let mut t = 0;
            assert_eq!(nc_inq_vartype(nc, v, &mut t), NC_NOERR);
            assert_eq!(t, NC_STRING);
            assert_eq!(strings(nc, v, 0, 5).unwrap(), words, "{name}");
            // across chunk boundaries, one element, the edge chunk
            assert_eq!(strings(nc, v, 1, 3).unwrap(), &words[1..4], "{name}");
            assert_eq!(strings(nc, v, 4, 1).unwrap(), &words[4..5], "{name}");
            let mut all: Vec<*mut c_char> = vec![std::ptr::null_mut(); 5];
            assert_eq!(nc_get_var_string(nc, v, all.as_mut_ptr()), NC_NOERR);
            assert_eq!(CStr::from_ptr(all[3]).to_str().unwrap(), words[3]);
            assert_eq!(nc_free_string(5, all.as_mut_ptr()), NC_NOERR);
            // no numeric reads of strings; the object codec is not a filter
            let mut ints = [0i32; 5];
            assert_eq!(nc_get_var_int(nc, v, ints.as_mut_ptr()), NC_EBADTYPE);
            let mut nf = 9usize;
            assert_eq!(nc_inq_var_filter_ids(nc, v, &mut nf, std::ptr::null_mut()), NC_NOERR);
            assert_eq!(nf, usize::from(name == "zstd"), "{name}");
        }
        // vlen-bytes: NC_STRING too; missing chunks: "" (fill null)
        let v = varid(nc, "bytes");
        assert_eq!(strings(nc, v, 0, 5).unwrap(), ["b0", "b1", "", "", ""]);
        // a missing chunk reads as the fill value
        let v = varid(nc, "filled");
        assert_eq!(strings(nc, v, 0, 5).unwrap(), ["N/A", "N/A", "x2", "x3", "N/A"]);
        // writing them is not supported (read-only here anyway)
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}

#[test]
fn undecodable_variables_do_not_stop_the_open() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("bad.zarr");
    build(&dir);
    unsafe {
        let nc = open(&dir);
        let mut nvars = 0;
        assert_eq!(nc_inq_nvars(nc, &mut nvars), NC_NOERR);
        assert_eq!(nvars, 9);
        for (name, ty, code) in [
            ("complex", NC_UBYTE, NC_EBADTYPE),
            ("record", NC_UBYTE, NC_EBADTYPE),
            ("pickled", NC_STRING, NC_ENOFILTER),
            ("bare", NC_STRING, NC_ENOFILTER),
            ("zfp", NC_INT, NC_ENOFILTER),
        ] {
            let v = varid(nc, name);
            let (mut t, mut nd) = (0, 0);
            assert_eq!(nc_inq_vartype(nc, v, &mut t), NC_NOERR);
            assert_eq!(t, ty, "{name}");
            assert_eq!(nc_inq_varndims(nc, v, &mut nd), NC_NOERR);
            assert_eq!(nd, 1);
            if ty == NC_STRING {
                assert_eq!(strings(nc, v, 0, 2).unwrap_err(), code, "{name}");
            } else {
                let mut buf = [0i32; 5];
                assert_eq!(nc_get_var_int(nc, v, buf.as_mut_ptr()), code, "{name}");
            }
        }
        // the good variables beside them still read
        assert_eq!(strings(nc, varid(nc, "plain"), 0, 1).unwrap(), ["a"]);
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}
