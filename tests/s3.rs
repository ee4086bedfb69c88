//! The S3 driver against an S3-compatible server (moto, started by
//! scripts/test-all.sh, which sets NCZARR_RS_S3_TEST_URL). Without a server
//! the tests say so and pass, unless NCZARR_RS_REQUIRE_S3=1 (as in CI):
//! then they fail (tests/support/s3_server.rs).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, MapError, Store, StoreKey};
use std::sync::{Arc, LazyLock};

#[path = "support/s3_server.rs"]
mod s3_server;

/// Base URL (`http://host:port/bucket`) plus a prefix unique to this run.
static BASE: LazyLock<Option<String>> = LazyLock::new(|| {
    let run = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos();
    s3_server::base_url("s3 tests").map(|u| format!("{u}/run{run}"))
});

fn url(name: &str) -> Option<String> {
    BASE.as_ref().map(|b| format!("{b}/{name}#mode=nczarr,s3"))
}

mod conformance {
    use super::*;

    struct S3;
    impl nczarr_rs::map::conformance::Fixture for S3 {
        fn create(&self, name: &str) -> Arc<dyn Store> {
            Driver::S3.create(&url(name).unwrap(), true).unwrap()
        }
        fn reopen(&self, name: &str, writable: bool) -> Arc<dyn Store> {
            Driver::S3.open(&url(name).unwrap(), writable).unwrap()
        }
        /// The checks run when a server is there (else `BASE` panics
        /// when one is required).
        fn available(&self) -> bool {
            BASE.is_some()
        }
    }

    nczarr_rs::store_conformance_tests!(S3);
}

#[test]
fn netcdf_dataset_on_s3() {
    let Some(u) = url("dataset.zarr") else { return };
    let mut ds = file::create(&u, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 100).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_DOUBLE, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[16])).unwrap();
    ds.def_var_deflate(0, v, true, true, 3).unwrap();
    ds.put_att(0, NC_GLOBAL, "where", Values::Char(b"s3".to_vec())).unwrap();
    ds.enddef().unwrap();
    let vals: Vec<f64> = (0..100).map(|i| i as f64 * 0.25).collect();
    let bytes = Values::Double(vals.clone()).to_ne_bytes();
    let slab = ds.slab(0, v, None, None, None, None, true).unwrap();
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &bytes }).unwrap();
    ds.close().unwrap();

    let ds = file::open(&u, NC_NOWRITE).unwrap();
    assert_eq!(ds.get_att(0, NC_GLOBAL, "where").unwrap(), Values::Char(b"s3".to_vec()));
    let slab = ds.slab(0, v, Some(&[10]), Some(&[20]), None, None, false).unwrap();
    let mut out = vec![0u8; 20 * 8];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut out }).unwrap();
    assert_eq!(Values::from_ne_bytes(NC_DOUBLE, &out).unwrap(), Values::Double(vals[10..30].to_vec()));

    // create over it without clobber; open of a missing dataset
    assert_eq!(file::create(&u, NC_NOCLOBBER).err().unwrap().code(), nczarr_rs::engine::error::NC_EEXIST);
    assert_eq!(file::open(&url("missing.zarr").unwrap(), 0).err().unwrap().code(), 2);
}

#[test]
fn clobber_never_deletes_a_non_zarr_prefix() {
    let Some(u) = url("not-zarr") else { return };
    let s = Driver::S3.create(&u, true).unwrap();
    s.set(&StoreKey::parse("/thesis/chapter1.tex").unwrap(), b"precious").unwrap();
    assert!(matches!(Driver::S3.create(&u, true), Err(MapError::NotAStore(_))));
    assert_eq!(s.get(&StoreKey::parse("/thesis/chapter1.tex").unwrap()).unwrap().unwrap(), b"precious");
}

#[test]
fn c_api_on_s3() {
    use nczarr_rs::ffi::data::{nc_get_var_int, nc_put_var_int};
    use nczarr_rs::ffi::files::{nc_close, nc_create, nc_def_dim, nc_open};
    use nczarr_rs::ffi::vars::nc_def_var;
    let Some(u) = url("c-api.zarr") else { return };
    let p = std::ffi::CString::new(u).unwrap();
    unsafe {
        let (mut nc, mut x, mut v) = (0, 0, 0);
        assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 6, &mut x), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_INT, 1, &x, &mut v), 0);
        let vals = [1, 2, 3, 4, 5, 6];
        assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
        assert_eq!(nc_close(nc), 0);
        assert_eq!(nc_open(p.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut back = [0i32; 6];
        assert_eq!(nc_get_var_int(nc, v, back.as_mut_ptr()), 0);
        assert_eq!(back, vals);
        assert_eq!(nc_close(nc), 0);
    }
}

#[test]
fn many_variables_open_and_consolidate_on_s3() {
    let Some(u) = url("many.zarr") else { return };
    let u = u.replace("#mode=nczarr,s3", "#mode=nczarr,s3,consolidated");
    let mut ds = file::create(&u, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 3).unwrap() as i32;
    for i in 0..120 {
        let v = ds.def_var(0, &format!("v{i}"), NC_FLOAT, &[x]).unwrap() as i32;
        ds.put_att(0, v, "index", Values::Int(vec![i])).unwrap();
    }
    ds.close().unwrap();
    for url in [u.clone(), u.replace(",consolidated", "")] {
        let ds = file::open(&url, NC_NOWRITE).unwrap();
        assert_eq!(ds.groups()[0].vars.len(), 120, "{url}");
        assert_eq!(ds.get_att(0, 77, "index").unwrap(), Values::Int(vec![77]));
    }
}

#[path = "support/sharded.rs"]
mod sharded;

/// Zarr v3 on S3, without shards: written, reopened, read (whole and in part).
#[test]
fn zarr_v3_on_s3() {
    for mode in ["nczarr", "zarr"] {
        let Some(u) = url(&format!("v3-{mode}.zarr")) else { return };
        let u = u.replace("#mode=nczarr,s3", &format!("#mode={mode},v3,s3"));
        let mut ds = file::create(&u, NC_CLOBBER).unwrap();
        let x = ds.def_dim(0, "x", 10).unwrap() as i32;
        let v = ds.def_var(0, "v", NC_DOUBLE, &[x]).unwrap() as i32;
        ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[4])).unwrap();
        ds.def_var_codec_filter(0, v, 32015, &[1]).unwrap();
        ds.enddef().unwrap();
        let vals: Vec<f64> = (0..10).map(|i| i as f64 / 4.0).collect();
        let slab = ds.slab(0, v, None, None, None, None, true).unwrap();
        let bytes = Values::Double(vals.clone()).to_ne_bytes();
        ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &bytes }).unwrap();
        ds.close().unwrap();
        let store = Driver::S3.open(&u, false).unwrap();
        assert!(store.size(&StoreKey::parse("zarr.json").unwrap()).unwrap().is_some(), "{u}: a v3 root");
        assert!(store.size(&StoreKey::parse("v/c/2").unwrap()).unwrap().is_some(), "{u}: chunk keys c/<n>");
        let ds = file::open(&u, NC_NOWRITE).unwrap();
        let slab = ds.slab(0, v, Some(&[3]), Some(&[5]), None, None, false).unwrap();
        let mut buf = vec![0u8; 5 * 8];
        ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut buf }).unwrap();
        assert_eq!(Values::from_ne_bytes(NC_DOUBLE, &buf).unwrap(), Values::Double(vals[3..8].to_vec()), "{u}");
    }
}

/// Sharded v3 on S3: a one-element read is two ranged GETs (the index as a
/// suffix range, then one inner chunk) of a few hundred bytes, not the
/// shard; writes into cached shards stay visible.
#[test]
fn sharded_v3_on_s3() {
    let Some(u) = url("sharded.zarr") else { return };
    sharded::check_partial_reads(&u.replace("#mode=nczarr,s3", "#mode=nczarr,v3,s3"), true);
    let Some(u) = url("sharded-w.zarr") else { return };
    sharded::check_writes(&u.replace("#mode=nczarr,s3", "#mode=zarr,v3,s3"));
}
