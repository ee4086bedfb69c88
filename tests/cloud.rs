//! The object-store driver on Google Cloud Storage (a GCS-compatible
//! server at NCZARR_RS_GCS_TEST_URL, with GOOGLE_BASE_URL for `gs://`; no
//! emulator installable here serves both the XML API's PUT and listing
//! that object_store uses, so CI has none: docs/CLOUD.md) and Azure Blob
//! Storage (Azurite, scripts/azurite-server.sh: NCZARR_RS_AZURE_TEST_URL): the
//! store conformance suite, and netCDF datasets written and read through
//! the engine and the C API, in each URL form. Without a server the tests
//! say so and pass, unless NCZARR_RS_REQUIRE_CLOUD=1 (as in CI): then they
//! fail (tests/support/cloud_server.rs).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::NC_EEXIST;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, MapError, StoreKey};

#[path = "support/cloud_server.rs"]
mod cloud_server;

fn run_id() -> u128 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos()
}

/// One service under test: its URLs.
pub struct Service {
    pub driver: Driver,
    /// Base URL plus a prefix unique to this run.
    pub base: Option<String>,
    /// The `mode` storage key of its `http://` form.
    pub mode: &'static str,
}

impl Service {
    pub fn url(&self, name: &str) -> Option<String> {
        self.base.as_ref().map(|b| format!("{b}/{name}#mode=nczarr,{}", self.mode))
    }
}

macro_rules! service_tests {
    ($name:ident, $driver:expr, $env:literal, $mode:literal, $scheme_url:expr) => {
        #[allow(clippy::module_inception)]
        mod $name {
            use super::*;
            use std::sync::{Arc, LazyLock};

            pub static SERVICE: LazyLock<Service> = LazyLock::new(|| Service {
                driver: $driver,
                base: cloud_server::base_url(stringify!($name), $env, stringify!($name))
                    .map(|u| format!("{u}/run{}", run_id())),
                mode: $mode,
            });

            struct Fixture;
            impl nczarr_rs::map::conformance::Fixture for Fixture {
                fn create(&self, name: &str) -> Arc<dyn nczarr_rs::map::Store> {
                    SERVICE.driver.create(&SERVICE.url(name).unwrap(), true).unwrap()
                }
                fn reopen(&self, name: &str, writable: bool) -> Arc<dyn nczarr_rs::map::Store> {
                    SERVICE.driver.open(&SERVICE.url(name).unwrap(), writable).unwrap()
                }
                fn available(&self) -> bool {
                    SERVICE.base.is_some()
                }
            }

            nczarr_rs::store_conformance_tests!(Fixture);

            #[test]
            fn netcdf_dataset() {
                super::netcdf_dataset(&SERVICE);
            }

            #[test]
            fn c_api_and_scheme_url() {
                let Some(u) = SERVICE.url("c-api.zarr") else { return };
                super::c_api(&u);
                // the same dataset through the service's own URL form
                let scheme_url: fn(&str) -> String = $scheme_url;
                super::c_api_read(&scheme_url(&u));
            }

            #[test]
            fn zarr_v3_consolidated() {
                super::zarr_v3_consolidated(&SERVICE);
            }

            #[test]
            fn clobber_never_deletes_a_non_zarr_prefix() {
                super::clobber_never_deletes_a_non_zarr_prefix(&SERVICE);
            }

            #[test]
            fn unreachable_and_forbidden() {
                super::unreachable_and_forbidden(&SERVICE);
            }
        }
    };
}

// gs://bucket/key: the emulator through $GOOGLE_BASE_URL
service_tests!(gcs, Driver::GCS, "NCZARR_RS_GCS_TEST_URL", "gs3", |u| {
    let path = u.split("://").nth(1).unwrap().split_once('/').unwrap().1;
    format!("gs://{path}").replace("#mode=nczarr,gs3", "")
});
// az://container/key: Azurite through $AZURE_STORAGE_USE_EMULATOR
service_tests!(azure, Driver::AZURE, "NCZARR_RS_AZURE_TEST_URL", "az", |u| {
    let path = u.split("://").nth(1).unwrap().splitn(3, '/').nth(2).unwrap();
    format!("az://{path}").replace("#mode=nczarr,az", "")
});

fn netcdf_dataset(s: &Service) {
    let Some(u) = s.url("dataset.zarr") else { return };
    let mut ds = file::create(&u, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 100).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_DOUBLE, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[16])).unwrap();
    ds.def_var_deflate(0, v, true, true, 3).unwrap();
    ds.put_att(0, NC_GLOBAL, "where", Values::Char(b"cloud".to_vec())).unwrap();
    ds.enddef().unwrap();
    let vals: Vec<f64> = (0..100).map(|i| i as f64 * 0.25).collect();
    let bytes = Values::Double(vals.clone()).to_ne_bytes();
    let slab = ds.slab(0, v, None, None, None, None, true).unwrap();
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &bytes }).unwrap();
    ds.close().unwrap();

    let ds = file::open(&u, NC_NOWRITE).unwrap();
    assert_eq!(ds.get_att(0, NC_GLOBAL, "where").unwrap(), Values::Char(b"cloud".to_vec()));
    let slab = ds.slab(0, v, Some(&[10]), Some(&[20]), None, None, false).unwrap();
    let mut out = vec![0u8; 20 * 8];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut out }).unwrap();
    assert_eq!(Values::from_ne_bytes(NC_DOUBLE, &out).unwrap(), Values::Double(vals[10..30].to_vec()));
    // the chunks are objects of the service
    let store = s.driver.open(&u, false).unwrap();
    assert!(store.size(&StoreKey::parse("v/0").unwrap()).unwrap().is_some(), "{u}: chunk v/0");

    assert_eq!(file::create(&u, NC_NOCLOBBER).err().unwrap().code(), NC_EEXIST);
    assert_eq!(file::open(&s.url("missing.zarr").unwrap(), 0).err().unwrap().code(), 2);
}

fn c_api(u: &str) {
    use nczarr_rs::ffi::data::nc_put_var_int;
    use nczarr_rs::ffi::files::{nc_close, nc_create, nc_def_dim};
    use nczarr_rs::ffi::vars::nc_def_var;
    let p = std::ffi::CString::new(u).unwrap();
    unsafe {
        let (mut nc, mut x, mut v) = (0, 0, 0);
        assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 6, &mut x), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_INT, 1, &x, &mut v), 0);
        assert_eq!(nc_put_var_int(nc, v, [1, 2, 3, 4, 5, 6].as_ptr()), 0);
        assert_eq!(nc_close(nc), 0);
    }
    c_api_read(u);
}

fn c_api_read(u: &str) {
    use nczarr_rs::ffi::data::nc_get_var_int;
    use nczarr_rs::ffi::files::{nc_close, nc_open};
    let p = std::ffi::CString::new(u).unwrap();
    unsafe {
        let mut nc = 0;
        assert_eq!(nc_open(p.as_ptr(), NC_NOWRITE, &mut nc), 0, "{u}");
        let mut back = [0i32; 6];
        assert_eq!(nc_get_var_int(nc, 0, back.as_mut_ptr()), 0, "{u}");
        assert_eq!(back, [1, 2, 3, 4, 5, 6], "{u}");
        assert_eq!(nc_close(nc), 0);
    }
}

/// Pure Zarr v3 with consolidated metadata: written, then opened both with
/// and without reading the consolidated metadata.
fn zarr_v3_consolidated(s: &Service) {
    let Some(u) = s.url("v3.zarr") else { return };
    let u = u.replace("#mode=nczarr,", "#mode=zarr,v3,consolidated,");
    let mut ds = file::create(&u, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 10).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_FLOAT, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[4])).unwrap();
    ds.enddef().unwrap();
    let vals: Vec<f32> = (0..10).map(|i| i as f32 * 1.5).collect();
    let slab = ds.slab(0, v, None, None, None, None, true).unwrap();
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_FLOAT, buf: &Values::Float(vals.clone()).to_ne_bytes() })
        .unwrap();
    ds.close().unwrap();
    for url in [u.clone(), u.replace(",consolidated", "")] {
        let ds = file::open(&url, NC_NOWRITE).unwrap();
        let slab = ds.slab(0, 0, None, None, None, None, false).unwrap();
        let mut buf = vec![0u8; 40];
        ds.get_slab(0, 0, &slab, MemOut::Bytes { memtype: NC_FLOAT, buf: &mut buf }).unwrap();
        assert_eq!(Values::from_ne_bytes(NC_FLOAT, &buf).unwrap(), Values::Float(vals.clone()), "{url}");
    }
}

fn clobber_never_deletes_a_non_zarr_prefix(s: &Service) {
    let Some(u) = s.url("not-zarr") else { return };
    let st = s.driver.create(&u, true).unwrap();
    st.set(&StoreKey::parse("/thesis/chapter1.tex").unwrap(), b"precious").unwrap();
    assert!(matches!(s.driver.create(&u, true), Err(MapError::NotAStore(_))));
    assert_eq!(st.get(&StoreKey::parse("/thesis/chapter1.tex").unwrap()).unwrap().unwrap(), b"precious");
}

/// A port nobody listens on, and a bucket/container that does not exist
/// (or that the credentials may not touch): a netCDF error with a message,
/// within seconds.
fn unreachable_and_forbidden(s: &Service) {
    use nczarr_rs::ffi::files::nc_open;
    let Some(base) = &s.base else { return };
    let dead = {
        let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
        l.local_addr().unwrap().port()
    };
    let host = base.split("://").nth(1).unwrap().split('/').next().unwrap();
    let unreachable = s.url("x.zarr").unwrap().replace(host, &format!("127.0.0.1:{dead}"));
    let nosuch = s.url("x.zarr").unwrap().replace("/nczarr-rs-test/", "/no-such-bucket-here/");
    for u in [unreachable, nosuch] {
        let start = std::time::Instant::now();
        let p = std::ffi::CString::new(u.clone()).unwrap();
        let mut nc = 0;
        let rc = unsafe { nc_open(p.as_ptr(), NC_NOWRITE, &mut nc) };
        assert_ne!(rc, 0, "{u}");
        let msg = unsafe { std::ffi::CStr::from_ptr(nczarr_rs::ffi::library::nczarr_rs_last_error()) }
            .to_string_lossy()
            .into_owned();
        assert!(!msg.is_empty(), "{u}: rc {rc} without a message");
        assert!(start.elapsed() < std::time::Duration::from_secs(30), "{u}: {:?}", start.elapsed());
        eprintln!("{u}: rc {rc}, {msg}, {:?}", start.elapsed());
    }
}

/// Pure Zarr v2 and v3 datasets at fixed keys (`readback/v2.zarr`,
/// `readback/v3.zarr` below the test bucket), which
/// tests/interop/cloud_readback.py then reads with zarr-python through
/// gcsfs and adlfs: `t` is arange(24).reshape(4, 6) * 0.5 (float64, chunks
/// of 2 x 3), the group's attribute title="from nczarr-rs".
fn for_zarr_python(service: &str, env: &str, mode: &str) {
    let Some(base) = cloud_server::base_url(service, env, "for zarr-python") else { return };
    for (name, fmt) in [("v2.zarr", ""), ("v3.zarr", ",v3")] {
        let u = format!("{base}/readback/{name}#mode=zarr{fmt},{mode}");
        let mut ds = file::create(&u, NC_CLOBBER).unwrap();
        let y = ds.def_dim(0, "y", 4).unwrap() as i32;
        let x = ds.def_dim(0, "x", 6).unwrap() as i32;
        let v = ds.def_var(0, "t", NC_DOUBLE, &[y, x]).unwrap() as i32;
        ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[2, 3])).unwrap();
        ds.put_att(0, NC_GLOBAL, "title", Values::Char(b"from nczarr-rs".to_vec())).unwrap();
        ds.enddef().unwrap();
        let vals: Vec<f64> = (0..24).map(|i| i as f64 * 0.5).collect();
        let slab = ds.slab(0, v, None, None, None, None, true).unwrap();
        ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &Values::Double(vals).to_ne_bytes() })
            .unwrap();
        ds.close().unwrap();
    }
}

#[test]
fn for_zarr_python_gcs() {
    for_zarr_python("gcs", "NCZARR_RS_GCS_TEST_URL", "gs3");
}

#[test]
fn for_zarr_python_azure() {
    for_zarr_python("azure", "NCZARR_RS_AZURE_TEST_URL", "az");
}
