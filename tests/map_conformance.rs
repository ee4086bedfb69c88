//! Runs the store conformance suite against every driver of this build.

use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, Store};
use std::sync::Arc;

mod memory {
    use super::*;

    struct Mem;
    impl nczarr_rs::map::conformance::Fixture for Mem {
        fn create(&self, name: &str) -> Arc<dyn Store> {
            Driver::Memory.create(&format!("mem://conformance/{name}"), true).unwrap()
        }
        fn reopen(&self, name: &str, writable: bool) -> Arc<dyn Store> {
            Driver::Memory.open(&format!("mem://conformance/{name}"), writable).unwrap()
        }
    }

    nczarr_rs::store_conformance_tests!(Mem);
}

mod file {
    use super::*;
    use std::path::PathBuf;
    use std::sync::LazyLock;

    static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

    struct Files;
    impl Files {
        fn path(name: &str) -> PathBuf {
            DIR.path().join(format!("{name}.zarr"))
        }
    }
    impl nczarr_rs::map::conformance::Fixture for Files {
        fn create(&self, name: &str) -> Arc<dyn Store> {
            Driver::File.create(Self::path(name).to_str().unwrap(), true).unwrap()
        }
        fn reopen(&self, name: &str, writable: bool) -> Arc<dyn Store> {
            // Reopen through a file:// URL with a fragment, as netCDF passes it.
            let url = format!("file://{}#mode=nczarr,file", Self::path(name).display());
            Driver::File.open(&url, writable).unwrap()
        }
    }
    impl nczarr_rs::map::conformance::SymlinkFixture for Files {
        fn symlink(&self, name: &str, key: &str, target: &std::path::Path) {
            let link = Self::path(name).join(key.trim_start_matches('/'));
            std::fs::create_dir_all(link.parent().unwrap()).unwrap();
            let _ = std::fs::remove_file(&link);
            std::os::unix::fs::symlink(target, link).unwrap();
        }
    }

    nczarr_rs::store_conformance_tests!(Files, symlinks);
}

mod zip {
    use super::*;
    use std::path::PathBuf;
    use std::sync::LazyLock;

    static DIR: LazyLock<tempfile::TempDir> = LazyLock::new(|| tempfile::tempdir().unwrap());

    struct Zips;
    impl Zips {
        fn path(name: &str) -> PathBuf {
            DIR.path().join(format!("{name}.zip"))
        }
    }
    impl nczarr_rs::map::conformance::Fixture for Zips {
        fn create(&self, name: &str) -> Arc<dyn Store> {
            Driver::Zip.create(Self::path(name).to_str().unwrap(), true).unwrap()
        }
        fn reopen(&self, name: &str, writable: bool) -> Arc<dyn Store> {
            let url = format!("file://{}#mode=nczarr,zip", Self::path(name).display());
            Driver::Zip.open(&url, writable).unwrap()
        }
    }

    nczarr_rs::store_conformance_tests!(Zips);
}
