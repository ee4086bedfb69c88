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
    // object codec, |O without one, an unknown compressor, vlen-array
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
    // numcodecs vlen-array (ragged int arrays): netCDF's NC_VLEN, a user type
    write(
        dir,
        "ragged/.zarray",
        zarray(r#""|O""#, r#"[{"id": "vlen-array", "dtype": "<i4"}]"#, "null", "null").as_bytes(),
    );
    write(dir, "ragged/.zattrs", dims);
    write(dir, "ragged/0", &[2, 0, 0, 0, 4, 0, 0, 0, 7, 0, 0, 0, 0, 0, 0, 0]);
    words
}

unsafe fn open(dir: &Path) -> c_int {
    open_mode(dir, NC_NOWRITE)
}

unsafe fn open_mode(dir: &Path, mode: c_int) -> c_int {
    let p = CString::new(format!("file://{}#mode=zarr,file", dir.display())).unwrap();
    let mut nc = -1;
    assert_eq!(nc_open(p.as_ptr(), mode, &mut nc), NC_NOERR);
    nc
}

/// `nc_put_vara_string` of `items` at `start` (1-d).
unsafe fn put(nc: c_int, v: c_int, start: usize, items: &[&str]) -> c_int {
    let owned: Vec<CString> = items.iter().map(|s| CString::new(*s).unwrap()).collect();
    let ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
    nc_put_vara_string(nc, v, &start, &items.len(), ptrs.as_ptr() as *mut *const c_char)
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
        assert_eq!(nvars, 10);
        for (name, ty, code) in [
            ("complex", NC_UBYTE, NC_EBADTYPE),
            ("record", NC_UBYTE, NC_EBADTYPE),
            ("pickled", NC_STRING, NC_ENOFILTER),
            ("bare", NC_STRING, NC_ENOFILTER),
            ("zfp", NC_INT, NC_ENOFILTER),
            ("ragged", NC_UBYTE, NC_EBADTYPE),
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
        let r = varid(nc, "ragged");
        let mut buf = [0u8; 2];
        assert_eq!(nc_get_var_uchar(nc, r, buf.as_mut_ptr()), NC_EBADTYPE);
        let detail = CStr::from_ptr(nczarr_rs::ffi::library::nczarr_rs_last_error()).to_str().unwrap().to_string();
        assert!(detail.contains("vlen-array") && detail.contains("NC_VLEN"), "{detail}");
        // the good variables beside them still read
        assert_eq!(strings(nc, varid(nc, "plain"), 0, 1).unwrap(), ["a"]);
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}

/// Writing into `|O` arrays as zarr-python wrote them: into a stored chunk
/// (read-modify-write), across chunks, into a missing chunk (the rest is
/// the fill value), with a compressor, vlen-bytes; the arrays keep their
/// codecs, and the chunks are numcodecs' encoding.
#[test]
fn vlen_writes_into_zarr_python_arrays() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().join("vlen.zarr");
    let words = build(&dir);
    let zarray = |name: &str| -> serde_json::Value {
        serde_json::from_slice(&std::fs::read(dir.join(name).join(".zarray")).unwrap()).unwrap()
    };
    let zarray_before = zarray("zstd");
    unsafe {
        let nc = open_mode(&dir, NC_WRITE);
        for name in ["plain", "zstd"] {
            let v = varid(nc, name);
            assert_eq!(put(nc, v, 1, &["one", "\u{e9}t\u{e9}", ""]), NC_NOERR, "{name}");
        }
        let b = varid(nc, "bytes");
        assert_eq!(put(nc, b, 3, &["b3"]), NC_NOERR);
        let f = varid(nc, "filled");
        assert_eq!(put(nc, f, 4, &["x4"]), NC_NOERR);
        // numbers into strings: as netCDF-C
        let one = [1i32];
        assert_eq!(nc_put_var1_int(nc, f, &0, one.as_ptr()), NC_EBADTYPE);
        // the undecodable stay read-only
        assert_eq!(put(nc, varid(nc, "pickled"), 0, &["p"]), NC_ENOFILTER);
        assert_eq!(nc_close(nc), NC_NOERR);

        let nc = open(&dir);
        for name in ["plain", "zstd"] {
            let v = varid(nc, name);
            assert_eq!(strings(nc, v, 0, 5).unwrap(), [words[0], "one", "\u{e9}t\u{e9}", "", words[4]], "{name}");
        }
        assert_eq!(strings(nc, varid(nc, "bytes"), 0, 5).unwrap(), ["b0", "b1", "", "b3", ""]);
        assert_eq!(strings(nc, varid(nc, "filled"), 0, 5).unwrap(), ["N/A", "N/A", "x2", "x3", "x4"]);
        assert_eq!(nc_close(nc), NC_NOERR);
    }
    assert_eq!(zarray("zstd"), zarray_before, "dtype, codecs and fill kept");
    // chunk 0 of plain as numcodecs encodes ["a", "one"]
    assert_eq!(std::fs::read(dir.join("plain/0")).unwrap(), vlen(&["a", "one"]));
    // the edge chunk of filled holds its padding item as the fill value
    assert_eq!(std::fs::read(dir.join("filled/2")).unwrap(), vlen(&["x4", "N/A"]));
    assert_eq!(std::fs::read(dir.join("bytes/1")).unwrap(), vlen(&["", "b3"]));
}

/// In `mode=zarr`, an `NC_STRING` variable is `|O` + `vlen-utf8`, unless a
/// maximum string length asks for netCDF-C's fixed-width strings
/// (`_nczarr_maxstrlen` on the variable, `_nczarr_default_maxstrlen` at the
/// root, before or after the variable is defined), as netCDF-C's
/// `run_strings.sh` expects; NCZarr mode is `|Sn` always.
#[test]
fn maximum_string_length_asks_for_fixed_width() {
    use nczarr_rs::ffi::atts::nc_put_att_int;
    let tmp = tempfile::tempdir().unwrap();
    let dtype = |dir: &Path, var: &str| -> String {
        let z: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join(var).join(".zarray")).unwrap()).unwrap();
        z["dtype"].as_str().unwrap().to_string()
    };
    unsafe {
        let make = |name: &str, mode: &str, default_len: Option<c_int>| -> std::path::PathBuf {
            let dir = tmp.path().join(name);
            let p = CString::new(format!("file://{}#mode={mode},file", dir.display())).unwrap();
            let mut nc = -1;
            assert_eq!(nc_create(p.as_ptr(), NC_NETCDF4, &mut nc), NC_NOERR);
            let (mut x, mut a, mut b, mut c) = (0, 0, 0, 0);
            assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 2, &mut x), NC_NOERR);
            assert_eq!(nc_def_var(nc, c"plain".as_ptr(), NC_STRING, 1, &x, &mut a), NC_NOERR);
            assert_eq!(nc_def_var(nc, c"short".as_ptr(), NC_STRING, 1, &x, &mut b), NC_NOERR);
            let four = 4;
            assert_eq!(nc_put_att_int(nc, b, c"_nczarr_maxstrlen".as_ptr(), NC_INT, 1, &four), NC_NOERR);
            if let Some(n) = default_len {
                assert_eq!(
                    nc_put_att_int(nc, NC_GLOBAL, c"_nczarr_default_maxstrlen".as_ptr(), NC_INT, 1, &n),
                    NC_NOERR
                );
            }
            assert_eq!(nc_def_var(nc, c"later".as_ptr(), NC_STRING, 1, &x, &mut c), NC_NOERR);
            assert_eq!(put(nc, b, 0, &["0123456789", "ab"]), NC_NOERR);
            assert_eq!(put(nc, a, 0, &["0123456789", "ab"]), NC_NOERR);
            assert_eq!(nc_close(nc), NC_NOERR);
            let nc = open(&dir);
            assert_eq!(strings(nc, varid(nc, "short"), 0, 2).unwrap(), ["0123", "ab"], "truncated, as netCDF-C");
            let plain = strings(nc, varid(nc, "plain"), 0, 2).unwrap();
            assert_eq!(plain[1], "ab");
            assert_eq!(nc_close(nc), NC_NOERR);
            dir
        };
        let d = make("zarr.zarr", "zarr", None);
        assert_eq!(
            (dtype(&d, "plain"), dtype(&d, "short"), dtype(&d, "later")),
            ("|O".into(), "|S4".into(), "|O".into())
        );
        let d = make("default.zarr", "zarr", Some(6));
        assert_eq!(
            (dtype(&d, "plain"), dtype(&d, "short"), dtype(&d, "later")),
            ("|S6".into(), "|S4".into(), "|S6".into())
        );
        let d = make("nczarr.zarr", "nczarr", None);
        assert_eq!(dtype(&d, "plain"), "|S128");
    }
}
