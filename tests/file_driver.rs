//! File-driver behaviour beyond the conformance suite: safety on disk.

use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, MapError, StoreKey};
use std::fs;
use std::path::PathBuf;

fn k(s: &str) -> StoreKey {
    StoreKey::parse(s).unwrap()
}

#[test]
fn keys_cannot_escape_the_root() {
    let dir = tempfile::tempdir().unwrap();
    for bad in ["/../outside", "../outside", "/a/../../outside", "/a/./b", "/a\u{1}b"] {
        assert!(matches!(StoreKey::parse(bad), Err(MapError::InvalidKey { .. })), "{bad}");
    }
    let s = Driver::File.create(dir.path().join("ds").to_str().unwrap(), true).unwrap();
    s.set(&k("/a/b"), b"1").unwrap();
    // Nothing was written outside the dataset.
    let names: Vec<_> = fs::read_dir(dir.path()).unwrap().map(|e| e.unwrap().file_name()).collect();
    assert_eq!(names, vec![std::ffi::OsString::from("ds")]);
}

#[test]
fn create_noclobber_and_clobber() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds.zarr");
    let loc = root.to_str().unwrap();
    let s = Driver::File.create(loc, false).unwrap();
    s.set(&k("/.zgroup"), b"{}").unwrap();
    s.set(&k("/v/0"), b"old").unwrap();
    assert!(matches!(Driver::File.create(loc, false), Err(MapError::AlreadyExists(_))));
    assert!(root.join("v/0").exists());
    let s = Driver::File.create(loc, true).unwrap();
    assert!(!root.join("v/0").exists());
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), Some(vec![]));
}

#[test]
fn clobber_refuses_foreign_directories() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("precious");
    fs::create_dir(&root).unwrap();
    fs::write(root.join("thesis.tex"), b"do not lose me").unwrap();
    let err = Driver::File.create(root.to_str().unwrap(), true).err().unwrap();
    assert!(matches!(err, MapError::NotAStore(_)), "{err}");
    assert_eq!(fs::read(root.join("thesis.tex")).unwrap(), b"do not lose me");
}

#[test]
fn open_missing_root() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("missing");
    assert!(matches!(Driver::File.open(missing.to_str().unwrap(), false), Err(MapError::RootNotFound(_))));
    fs::write(&missing, b"a file, not a dataset").unwrap();
    assert!(matches!(Driver::File.open(missing.to_str().unwrap(), false), Err(MapError::RootNotFound(_))));
}

#[test]
fn writes_are_atomic_and_temp_files_invisible() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds");
    let s = Driver::File.create(root.to_str().unwrap(), true).unwrap();
    s.set(&k("/.zattrs"), b"{\"a\": 1}").unwrap();
    // A crash between writing a temp file and renaming leaves a stray temp file;
    // it must not appear as an object, and the old object stays intact.
    fs::write(root.join(".nczarr-rs-tmp.999.0"), b"{\"a\": 2, torn").unwrap();
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap(), Some(vec![".zattrs".to_string()]));
    assert_eq!(s.get(&k("/.zattrs")).unwrap().unwrap(), b"{\"a\": 1}");
    // No temp file of ours is left behind by a successful write.
    s.set(&k("/.zattrs"), b"{}").unwrap();
    let leftovers = fs::read_dir(&root)
        .unwrap()
        .filter(|e| e.as_ref().unwrap().file_name().to_string_lossy().starts_with(".nczarr-rs-tmp."))
        .count();
    assert_eq!(leftovers, 1, "only the simulated stray file");
}

#[test]
fn file_urls_and_relative_paths() {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("with space");
    let url = format!("file://{}#mode=nczarr,file", root.display()).replace(' ', "%20");
    let s = Driver::File.create(&url, true).unwrap();
    s.set(&k("/.zgroup"), b"{}").unwrap();
    assert!(root.join(".zgroup").exists());
    assert!(matches!(Driver::File.open("s3://bucket/key", false), Err(MapError::InvalidLocation(_))));
    // Relative file:// URLs resolve against the working directory, as in
    // netCDF-C's own tests (`file://tmp.zarr#mode=nczarr,file`).
    let cwd = std::env::current_dir().unwrap();
    assert_eq!(nczarr_rs::map::file::local_path("file://relative/path#mode=zarr").unwrap(), cwd.join("relative/path"));
    assert_eq!(nczarr_rs::map::file::local_path("file://localhost/abs/p").unwrap(), PathBuf::from("/abs/p"));
    assert_eq!(nczarr_rs::map::file::local_path("file:///abs/p").unwrap(), PathBuf::from("/abs/p"));
}

#[test]
fn zip_refuses_to_clobber_non_zip_files_and_rejects_them_on_open() {
    let dir = tempfile::tempdir().unwrap();
    let notes = dir.path().join("notes.txt");
    fs::write(&notes, b"not a zip archive").unwrap();
    assert!(matches!(Driver::Zip.create(notes.to_str().unwrap(), true), Err(MapError::NotAStore(_))));
    assert_eq!(fs::read(&notes).unwrap(), b"not a zip archive");
    assert!(matches!(Driver::Zip.open(notes.to_str().unwrap(), false), Err(MapError::Corrupt(_))));
    let e = nczarr_rs::engine::file::open(&format!("file://{}#mode=nczarr,zip", notes.display()), 0).err().unwrap();
    assert_eq!(e.code(), nczarr_rs::engine::error::NC_ENOTNC);
    // an existing archive is replaced on clobber, and only at flush
    let z = dir.path().join("d.zip");
    let s = Driver::Zip.create(z.to_str().unwrap(), true).unwrap();
    s.set(&k("/.zgroup"), b"{}").unwrap();
    s.flush().unwrap();
    assert!(matches!(Driver::Zip.create(z.to_str().unwrap(), false), Err(MapError::AlreadyExists(_))));
    let s2 = Driver::Zip.create(z.to_str().unwrap(), true).unwrap();
    assert_eq!(s2.list_dir(&StoreKey::root()).unwrap(), Some(vec![]));
}

#[test]
fn zip_archives_in_netcdf_c_layout_are_read_and_rewritten_with_their_root() {
    // netCDF-C's NCZarr writes x.zip as "x/", "x/.zgroup", ...: the first
    // entry's name is the dataset root.
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.zip");
    {
        let mut zw = zip::ZipWriter::new(fs::File::create(&path).unwrap());
        let o = zip::write::SimpleFileOptions::default().compression_method(zip::CompressionMethod::Stored);
        zw.add_directory("x/", o).unwrap();
        zw.start_file("x/.zgroup", o).unwrap();
        zw.write_all(br#"{"zarr_format": 2}"#).unwrap();
        zw.start_file("x/v/.zarray", o).unwrap();
        zw.write_all(b"{}").unwrap();
        zw.finish().unwrap();
    }
    let loc = path.to_str().unwrap();
    let s = Driver::Zip.open(loc, true).unwrap();
    assert_eq!(s.get(&k("/.zgroup")).unwrap().unwrap(), br#"{"zarr_format": 2}"#);
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap().unwrap(), vec![".zgroup".to_string(), "v".to_string()]);
    s.set(&k("/v/0"), b"chunk").unwrap();
    s.flush().unwrap();
    drop(s);
    let archive = zip::ZipArchive::new(fs::File::open(&path).unwrap()).unwrap();
    let names: Vec<String> = archive.file_names().map(|n| n.unwrap().into_owned()).collect();
    assert_eq!(names[0], "x/", "the root entry stays first, as netCDF-C reads it");
    assert!(names.contains(&"x/v/0".to_string()) && !names.contains(&"v/0".to_string()), "{names:?}");
    let s = Driver::Zip.open(loc, false).unwrap();
    assert_eq!(s.get(&k("/v/0")).unwrap().unwrap(), b"chunk");
}

/// An NCZarr zip archive is created in netCDF-C's layout (`x.zip`: `x/`
/// first, every key below it), which netCDF-C takes as the dataset root;
/// a pure Zarr one at the archive's root, as zarr-python's `ZipStore`
/// writes and reads it. Each is read back and rewritten in its layout.
#[test]
fn new_zip_archives_nczarr_in_netcdf_c_layout_pure_zarr_at_the_root() {
    use nczarr_rs::engine::consts::*;
    use nczarr_rs::engine::data::MemIn;
    use nczarr_rs::engine::file;
    let dir = tempfile::tempdir().unwrap();
    let names = |p: &std::path::Path| -> Vec<String> {
        let a = zip::ZipArchive::new(fs::File::open(p).unwrap()).unwrap();
        a.file_names().map(|n| n.unwrap().into_owned()).collect()
    };
    for (mode, prefix) in [("nczarr", "x/"), ("zarr", "")] {
        let path = dir.path().join(format!("{mode}.d/x.zip"));
        fs::create_dir_all(path.parent().unwrap()).unwrap();
        let url = format!("file://{}#mode={mode},zip", path.display());
        let mut ds = file::create(&url, NC_CLOBBER).unwrap();
        let x = ds.def_dim(0, "x", 3).unwrap();
        ds.def_var(0, "v", NC_INT, &[x as i32]).unwrap();
        ds.enddef().unwrap();
        let bytes: Vec<u8> = [1i32, 2, 3].iter().flat_map(|v| v.to_ne_bytes()).collect();
        let slab = ds.slab(0, 0, None, None, None, None, true).unwrap();
        ds.put_slab(0, 0, &slab, MemIn::Bytes { memtype: NC_INT, buf: &bytes }).unwrap();
        ds.close().unwrap();
        let got = names(&path);
        assert!(got.contains(&format!("{prefix}.zgroup")) && got.contains(&format!("{prefix}v/0")), "{mode}: {got:?}");
        if !prefix.is_empty() {
            assert_eq!(got[0], prefix, "{mode}: the root entry first, as netCDF-C reads it");
            assert!(got.iter().all(|n| n.starts_with(prefix)), "{mode}: {got:?}");
        }
        // rewritten: a second variable, same layout; both read back
        let mut ds = file::open(&url, NC_WRITE).unwrap();
        ds.redef().unwrap();
        ds.def_var(0, "w", NC_INT, &[x as i32]).unwrap();
        ds.close().unwrap();
        let again = names(&path);
        assert!(again.contains(&format!("{prefix}w/.zarray")), "{mode}: {again:?}");
        assert_eq!(again[0], got[0], "{mode}");
        let ds = file::open(&url, NC_NOWRITE).unwrap();
        let mut out = [0u8; 12];
        let slab = ds.slab(0, 0, None, None, None, None, false).unwrap();
        ds.get_slab(0, 0, &slab, nczarr_rs::engine::data::MemOut::Bytes { memtype: NC_INT, buf: &mut out }).unwrap();
        assert_eq!(out, bytes.as_slice(), "{mode}");
    }
}
