//! The zmap C API called from Rust: handles, NULLs and error codes.

use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::library::nc_strerror;
use nczarr_rs::ffi::zmap::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_void};
use std::ptr::{null, null_mut};

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

fn create(dir: &std::path::Path) -> i32 {
    let path = cs(&format!("file://{}/ds.zarr#mode=nczarr,file", dir.display()));
    let mut id = -1;
    let rc = unsafe { nczmap_create(NCZM_FILE, path.as_ptr(), 0, 0, null_mut(), &mut id) };
    assert_eq!(rc, NC_NOERR);
    assert!(id > 0);
    id
}

#[test]
fn roundtrip_and_search() {
    let dir = tempfile::tempdir().unwrap();
    let id = create(dir.path());
    let data = b"{\"zarr_format\": 2}";
    unsafe {
        assert_eq!(nczmap_write(id, cs("/.zgroup").as_ptr(), 0, data.len() as u64, data.as_ptr().cast()), NC_NOERR);
        assert_eq!(nczmap_write(id, cs("/v/0.0").as_ptr(), 0, 4, [1u8, 2, 3, 4].as_ptr().cast()), NC_NOERR);
        let mut len = 0u64;
        assert_eq!(nczmap_len(id, cs("/.zgroup").as_ptr(), &mut len), NC_NOERR);
        assert_eq!(len, data.len() as u64);
        let mut buf = [0u8; 2];
        assert_eq!(nczmap_read(id, cs("/v/0.0").as_ptr(), 1, 2, buf.as_mut_ptr().cast()), NC_NOERR);
        assert_eq!(buf, [2, 3]);
        assert_eq!(nczmap_read(id, cs("/v/0.0").as_ptr(), 3, 2, buf.as_mut_ptr().cast()), NC_EEDGE);
        let (mut n, mut names): (usize, *mut *mut c_char) = (0, null_mut());
        assert_eq!(nczmap_search(id, null(), &mut n, &mut names), NC_NOERR);
        let got: Vec<String> = (0..n).map(|i| CStr::from_ptr(*names.add(i)).to_str().unwrap().to_string()).collect();
        assert_eq!(got, [".zgroup", "v"]);
        assert_eq!(nczmap_free_names(n, names), NC_NOERR);
        assert_eq!(nczmap_search(id, cs("/missing").as_ptr(), &mut n, &mut names), NC_ENOOBJECT);
    }
    assert_eq!(nczmap_close(id, 1), NC_NOERR);
    assert!(!dir.path().join("ds.zarr").exists());
}

#[test]
fn exact_error_codes() {
    let dir = tempfile::tempdir().unwrap();
    let id = create(dir.path());
    unsafe {
        let mut len = 7u64;
        // Missing content.
        assert_eq!(nczmap_exists(id, cs("/nothing").as_ptr()), NC_EEMPTY);
        assert_eq!(nczmap_len(id, cs("/nothing").as_ptr(), &mut len), NC_EEMPTY);
        assert_eq!(len, 7, "outputs are written only on success");
        // Keys escaping the root.
        for bad in ["/../x", "/a/../../x", "/a//b", "/a\u{1}b"] {
            assert_eq!(nczmap_write(id, cs(bad).as_ptr(), 0, 1, b"x".as_ptr().cast()), NC_EINVAL, "{bad}");
            assert_eq!(nczmap_exists(id, cs(bad).as_ptr()), NC_EINVAL, "{bad}");
        }
        // NULL pointers.
        assert_eq!(nczmap_exists(id, null()), NC_EINVAL);
        assert_eq!(nczmap_len(id, cs("/a").as_ptr(), null_mut()), NC_EINVAL);
        assert_eq!(nczmap_write(id, cs("/a").as_ptr(), 0, 3, null::<c_void>()), NC_EINVAL);
        assert_eq!(nczmap_read(id, cs("/a").as_ptr(), 0, 3, null_mut()), NC_EINVAL);
        assert_eq!(nczmap_create(NCZM_FILE, null(), 0, 0, null_mut(), &mut 0), NC_EINVAL);
        assert_eq!(nczmap_create(NCZM_FILE, cs("/tmp/x").as_ptr(), 0, 0, null_mut(), null_mut()), NC_EINVAL);
        // Invalid and closed handles.
        assert_eq!(nczmap_exists(987654, cs("/a").as_ptr()), NC_EBADID);
        assert_eq!(nczmap_close(id, 0), NC_NOERR);
        assert_eq!(nczmap_exists(id, cs("/a").as_ptr()), NC_EBADID);
        assert_eq!(nczmap_close(id, 0), NC_EBADID);
        // Unbuilt and unknown implementations.
        assert_eq!(nczmap_open(NCZM_GS3, cs("gs3://b/k").as_ptr(), 0, 0, null_mut(), &mut 0), NC_ENOTBUILT);
        assert_eq!(nczmap_open(77, cs("x").as_ptr(), 0, 0, null_mut(), &mut 0), NC_EINVAL);
        assert_eq!(nczmap_features(NCZM_GS3), NCZM_UNIMPLEMENTED);
        assert_eq!(nczmap_features(NCZM_S3), 0);
        assert_eq!(nczmap_features(NCZM_FILE), 0);
    }
}

#[test]
fn strerror_matches_netcdf_c() {
    let text = |c| unsafe { CStr::from_ptr(nc_strerror(c)).to_str().unwrap().to_string() };
    assert_eq!(text(NC_NOERR), "No error");
    assert_eq!(text(NC_EBADID), "NetCDF: Not a valid ID");
    assert_eq!(text(NC_EEMPTY), "NetCDF: Attempt to read empty NCZarr map key");
    assert_eq!(text(NC_ENOTZARR), "Unknown Error");
    assert_eq!(text(-31), "Unknown Error");
    assert_eq!(text(-100000), "Unknown Error");
    assert_eq!(text(2), "No such file or directory");
}
