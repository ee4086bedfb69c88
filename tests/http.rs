//! The read-only HTTP driver against nginx (scripts/http-server.sh:
//! NCZARR_RS_HTTP_TEST_URL serving NCZARR_RS_HTTP_TEST_DIR), on the stores
//! zarr-python made there and read over HTTP itself
//! (tests/interop/http_stores.py: v2 and v3, consolidated or not) and on
//! NCZarr datasets this test writes there as files. Without a server the
//! tests say so and pass, unless NCZARR_RS_REQUIRE_CLOUD names `http` (as in CI).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::{NC_EPERM, NC_EURL};
use nczarr_rs::engine::file;
use nczarr_rs::engine::types::Values;
use std::ffi::CString;

#[path = "support/cloud_server.rs"]
mod cloud_server;

/// The server's URL and the directory it serves.
fn server() -> Option<(String, String)> {
    let url = cloud_server::base_url("http", "NCZARR_RS_HTTP_TEST_URL", "http tests")?;
    let dir = std::env::var("NCZARR_RS_HTTP_TEST_DIR").expect("NCZARR_RS_HTTP_TEST_DIR with NCZARR_RS_HTTP_TEST_URL");
    Some((url, dir))
}

fn last_error() -> String {
    unsafe { std::ffi::CStr::from_ptr(nczarr_rs::ffi::library::nczarr_rs_last_error()) }.to_string_lossy().into_owned()
}

fn read_doubles(u: &str, var: i32, n: usize) -> Vec<f64> {
    let ds = file::open(u, NC_NOWRITE).unwrap_or_else(|e| panic!("{u}: {e}"));
    let slab = ds.slab(0, var, None, None, None, None, false).unwrap();
    let mut buf = vec![0u8; n * 8];
    ds.get_slab(0, var, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut buf }).unwrap();
    match Values::from_ne_bytes(NC_DOUBLE, &buf).unwrap() {
        Values::Double(v) => v,
        other => panic!("{other:?}"),
    }
}

/// zarr-python's consolidated stores, v2 (`.zmetadata`) and v3
/// (`zarr.json`'s consolidated metadata): what zarr-python read over HTTP.
#[test]
fn consolidated_stores_of_zarr_python() {
    let Some((url, _)) = server() else { return };
    let want: Vec<f64> = (0..48).map(|i| i as f64 * 1.5).collect();
    for name in ["v2c.zarr", "v3c.zarr"] {
        let u = format!("{url}/{name}#mode=zarr,consolidated,http");
        assert_eq!(read_doubles(&u, 0, 48), want, "{u}");
        let ds = file::open(&u, NC_NOWRITE).unwrap();
        assert_eq!(ds.get_att(0, NC_GLOBAL, "title").unwrap(), Values::Char(b"over http".to_vec()), "{u}");
        let dims: Vec<(String, u64)> =
            ds.groups()[0].dims.iter().map(|&d| (ds.dims()[d].name.clone(), ds.dims()[d].len)).collect();
        assert_eq!(dims, [("y".to_string(), 6), ("x".to_string(), 8)], "{u}");
    }
}

/// Pure Zarr without consolidated metadata: a web server cannot list the
/// group's children, so opening says so (rather than showing no variables).
#[test]
fn unconsolidated_pure_zarr_is_an_error_that_says_why() {
    let Some((url, _)) = server() else { return };
    for name in ["v2.zarr", "v3.zarr"] {
        let u = CString::new(format!("{url}/{name}#mode=zarr,http")).unwrap();
        let mut nc = 0;
        let rc = unsafe { nczarr_rs::ffi::files::nc_open(u.as_ptr(), NC_NOWRITE, &mut nc) };
        assert_ne!(rc, 0, "{name}");
        assert!(last_error().contains("cannot list"), "{name}: {}", last_error());
    }
}

/// NCZarr datasets (v2 and v3, groups, no consolidated metadata) written
/// here as files: over HTTP their metadata names every child, so no
/// listing is needed; a write is NC_EPERM.
#[test]
fn nczarr_datasets_without_consolidation() {
    let Some((url, dir)) = server() else { return };
    let vals: Vec<f64> = (0..30).map(|i| i as f64 - 7.25).collect();
    for (name, mode) in [("ncz2.zarr", "nczarr"), ("ncz3.zarr", "nczarr,v3")] {
        let path = format!("file://{dir}/{name}#mode={mode},file");
        let mut ds = file::create(&path, NC_CLOBBER).unwrap();
        let g = ds.def_grp(0, "sub").unwrap();
        let x = ds.def_dim(g, "x", 30).unwrap() as i32;
        let v = ds.def_var(g, "v", NC_DOUBLE, &[x]).unwrap() as i32;
        ds.def_var_chunking(g, v, NC_CHUNKED, Some(&[7])).unwrap();
        ds.put_att(g, v, "units", Values::Char(b"m".to_vec())).unwrap();
        ds.enddef().unwrap();
        let slab = ds.slab(g, v, None, None, None, None, true).unwrap();
        ds.put_slab(g, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &Values::Double(vals.clone()).to_ne_bytes() })
            .unwrap();
        ds.close().unwrap();

        let u = format!("{url}/{name}#mode={mode},http");
        let ds = file::open(&u, NC_NOWRITE).unwrap_or_else(|e| panic!("{u}: {e}"));
        let g = ds.groups()[0].children[0];
        assert_eq!(ds.groups()[g].name, "sub");
        assert_eq!(ds.get_att(g, 0, "units").unwrap(), Values::Char(b"m".to_vec()));
        let slab = ds.slab(g, 0, Some(&[5]), Some(&[20]), None, None, false).unwrap();
        let mut buf = vec![0u8; 20 * 8];
        ds.get_slab(g, 0, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut buf }).unwrap();
        assert_eq!(Values::from_ne_bytes(NC_DOUBLE, &buf).unwrap(), Values::Double(vals[5..25].to_vec()), "{u}");

        // read-only: open for writing and create are NC_EPERM
        let c = CString::new(u.clone()).unwrap();
        let mut nc = 0;
        let rc = unsafe { nczarr_rs::ffi::files::nc_open(c.as_ptr(), NC_WRITE, &mut nc) };
        assert_eq!(rc, NC_EPERM, "{u}: open for writing");
        let rc = unsafe { nczarr_rs::ffi::files::nc_create(c.as_ptr(), NC_CLOBBER, &mut nc) };
        assert_eq!(rc, NC_EPERM, "{u}: create");
        assert!(!last_error().is_empty());
    }
}

/// A missing dataset, a dead port, a bad URL: errors with messages, soon.
#[test]
fn missing_unreachable_and_bad() {
    let Some((url, _)) = server() else { return };
    let dead = std::net::TcpListener::bind("127.0.0.1:0").unwrap().local_addr().unwrap().port();
    for (u, code) in [
        (format!("{url}/no-such.zarr#mode=zarr,http"), None),
        (format!("http://127.0.0.1:{dead}/x.zarr#mode=zarr,consolidated,http"), None),
        ("http:///x.zarr#mode=zarr,http".to_string(), Some(NC_EURL)),
    ] {
        let start = std::time::Instant::now();
        let c = CString::new(u.clone()).unwrap();
        let mut nc = 0;
        let rc = unsafe { nczarr_rs::ffi::files::nc_open(c.as_ptr(), NC_NOWRITE, &mut nc) };
        assert_ne!(rc, 0, "{u}");
        if let Some(code) = code {
            assert_eq!(rc, code, "{u}");
        }
        assert!(!last_error().is_empty(), "{u}");
        assert!(start.elapsed().as_secs() < 30, "{u}: {:?}", start.elapsed());
        eprintln!("{u}: rc {rc}: {} ({:?})", last_error(), start.elapsed());
    }
}
