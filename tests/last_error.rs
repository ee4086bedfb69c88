//! `nczarr_rs_last_error`: the detail behind a failed call (the key, the
//! byte or JSON position, the reason), per thread; and the note left by an
//! open that skipped a malformed `.zmetadata`.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::compat::nc__open_mp;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::library::nczarr_rs_last_error;
use nczarr_rs::ffi::vars::nc_inq_varid;
use std::ffi::{CStr, CString};
use std::os::raw::c_int;
use std::path::{Path, PathBuf};

const ZGROUP: &[u8] = br#"{"zarr_format": 2}"#;
const ZARRAY: &[u8] = br#"{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<i4", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#;

fn last_error() -> String {
    unsafe { CStr::from_ptr(nczarr_rs_last_error()) }.to_str().unwrap().to_string()
}

/// A directory store holding `objects` (key, content).
fn store(objects: &[(&str, &[u8])]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds.zarr");
    for (k, v) in objects {
        let p = root.join(k);
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v).unwrap();
    }
    (dir, root)
}

fn open(path: &str) -> Result<c_int, c_int> {
    let p = CString::new(path).unwrap();
    let mut nc = -1;
    match unsafe { nc_open(p.as_ptr(), NC_NOWRITE, &mut nc) } {
        NC_NOERR => Ok(nc),
        rc => Err(rc),
    }
}

fn url(root: &Path, mode: &str) -> String {
    format!("file://{}#mode={mode}", root.display())
}

#[test]
fn bad_json_names_the_key_and_the_position() {
    std::thread::spawn(|| {
        assert_eq!(last_error(), "", "a thread starts with no error");
        let (_d, root) = store(&[(".zgroup", ZGROUP), ("v/.zarray", b"{\"zarr_format\": 2,\n  \"shape\": [4,]}")]);
        assert_eq!(open(root.to_str().unwrap()), Err(NC_ENCZARR));
        let e = last_error();
        assert!(e.starts_with("nc_open: /v/.zarray: bad JSON"), "{e}");
        assert!(e.contains("line 2 column"), "{e}");
    })
    .join()
    .unwrap();
}

#[test]
fn errors_without_a_key_get_the_object_they_are_about() {
    let (_d, root) =
        store(&[(".zgroup", ZGROUP), ("g/.zgroup", ZGROUP), ("g/v/.zarray", br#"{"zarr_format": 2, "shape": "x"}"#)]);
    assert_eq!(open(&url(&root, "zarr,file")), Err(NC_ENCZARR));
    assert_eq!(last_error(), "nc_open: /g/v: shape is missing or not a list");
    // an attribute whose value its declared type cannot hold
    let (_d, root) = store(&[
        (".zgroup", ZGROUP),
        ("v/.zarray", ZARRAY),
        ("v/.zattrs", br#"{"a": {"x": 1}, "_nczarr_attr": {"types": {"a": "<i4"}}}"#),
    ]);
    assert_eq!(open(&url(&root, "nczarr,file")), Err(NC_ENCZARR));
    let e = last_error();
    assert!(e.starts_with("nc_open: /v: attribute a: "), "{e}");
}

#[test]
fn metadata_that_is_not_utf8_gives_the_byte() {
    // byte 9 (from 0) is the 0xff
    let (_d, root) = store(&[(".zgroup", ZGROUP), (".zattrs", b"{\"t\": \"ab\xff\"}")]);
    assert_eq!(open(root.to_str().unwrap()), Err(NC_ENCZARR));
    assert_eq!(last_error(), "nc_open: /.zattrs: not UTF-8 at byte 9");
}

#[test]
fn nested_calls_keep_the_inner_detail_and_success_keeps_the_record() {
    let (_d, root) = store(&[(".zgroup", ZGROUP), ("v/.zarray", b"[")]);
    let p = CString::new(root.to_str().unwrap()).unwrap();
    let mut nc = -1;
    // nc__open_mp calls nc__open through the C API
    assert_eq!(unsafe { nc__open_mp(p.as_ptr(), NC_NOWRITE, 0, std::ptr::null_mut(), &mut nc) }, NC_ENCZARR);
    let e = last_error();
    assert!(e.starts_with("nc__open_mp: /v/.zarray: bad JSON"), "{e}");
    // a success changes nothing
    let (_d2, good) = store(&[(".zgroup", ZGROUP), ("v/.zarray", ZARRAY)]);
    let nc = open(good.to_str().unwrap()).unwrap();
    assert_eq!(last_error(), e);
    // a failure without a detail: the function and nc_strerror's text
    let mut varid = 0;
    let name = CString::new("nothere").unwrap();
    assert_eq!(unsafe { nc_inq_varid(nc, name.as_ptr(), &mut varid) }, NC_ENOTVAR);
    assert_eq!(last_error(), "nc_inq_varid: NetCDF: Variable not found");
    assert_eq!(nc_close(nc), NC_NOERR);
}

#[test]
fn a_malformed_zmetadata_is_skipped_with_a_note() {
    // consolidated reading asked for, the .zmetadata broken: the objects
    // themselves are read, and the open says what it skipped
    let (_d, root) =
        store(&[(".zgroup", ZGROUP), ("v/.zarray", ZARRAY), (".zmetadata", b"{\"metadata\": {\"v/.zarray\": ")]);
    std::thread::spawn(move || {
        let nc = open(&url(&root, "zarr,file,consolidated")).unwrap();
        let e = last_error();
        assert!(e.starts_with("nc_open: /.zmetadata: bad JSON"), "{e}");
        assert!(e.ends_with(": ignored"), "{e}");
        let mut varid = -1;
        let name = CString::new("v").unwrap();
        assert_eq!(unsafe { nc_inq_varid(nc, name.as_ptr(), &mut varid) }, NC_NOERR);
        assert_eq!(varid, 0);
        assert_eq!(nc_close(nc), NC_NOERR);
        // a .zmetadata without "metadata"
        std::fs::write(root.join(".zmetadata"), b"{\"zarr_consolidated_format\": 1}").unwrap();
        let nc = open(&url(&root, "zarr,file,consolidated")).unwrap();
        assert_eq!(last_error(), "nc_open: /.zmetadata: no \"metadata\" object: ignored");
        assert_eq!(nc_close(nc), NC_NOERR);
    })
    .join()
    .unwrap();
}
