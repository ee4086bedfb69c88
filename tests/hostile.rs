//! Hostile and faulty stores (issue 10): every case gives an error code,
//! never an abort, a hang, a write outside the store or lost data. The
//! table in docs/RELIABILITY.md points at these tests.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::ffi::atts::*;
use nczarr_rs::ffi::compat::nc_delete;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::zmap::*;
use nczarr_rs::map::{Driver, StoreKey};
use std::ffi::CString;
use std::os::raw::{c_char, c_int};
use std::path::{Path, PathBuf};
use std::ptr::null_mut;
use std::time::Duration;

const ZGROUP: &str = r#"{"zarr_format": 2}"#;

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Writes `objects` (key, content) as files below `root`.
fn write_tree(root: &Path, objects: &[(&str, &[u8])]) {
    for (k, v) in objects {
        let p = root.join(k.trim_start_matches('/'));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, v).unwrap();
    }
}

/// A pure Zarr directory store with one variable `v` described by `zarray`.
fn zarr_dir(zarray: &str) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let root = dir.path().join("ds.zarr");
    write_tree(&root, &[(".zgroup", ZGROUP.as_bytes()), ("v/.zarray", zarray.as_bytes())]);
    (dir, root)
}

fn zarray(shape: &str, chunks: &str, dtype: &str, fill: &str, compressor: &str) -> String {
    format!(
        r#"{{"zarr_format": 2, "shape": {shape}, "chunks": {chunks}, "dtype": "{dtype}", "fill_value": {fill}, "order": "C", "compressor": {compressor}, "filters": null}}"#
    )
}

fn nc_open_path(path: &str, mode: c_int) -> Result<c_int, c_int> {
    let mut nc = -1;
    match unsafe { nc_open(cs(path).as_ptr(), mode, &mut nc) } {
        NC_NOERR => Ok(nc),
        rc => Err(rc),
    }
}

fn open_err(url: &str) -> i32 {
    match file::open(url, NC_NOWRITE) {
        Ok(_) => panic!("{url} opened"),
        Err(e) => e.code(),
    }
}

/// Runs the test `name` of this binary alone in a child process (fresh
/// counters, its own peak RSS) and checks that it passed. Returns true in
/// the child, where the caller then does the work.
fn in_child(name: &str) -> bool {
    if std::env::var("HOSTILE_CHILD").as_deref() == Ok(name) {
        return true;
    }
    let out = std::process::Command::new(std::env::current_exe().unwrap())
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env("HOSTILE_CHILD", name)
        .output()
        .unwrap();
    let text = format!("{}{}", String::from_utf8_lossy(&out.stdout), String::from_utf8_lossy(&out.stderr));
    assert!(out.status.success() && text.contains("1 passed"), "child {name} failed:\n{text}");
    false
}

/// Peak resident memory of this process, in bytes.
fn peak_rss() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap();
    let line = status.lines().find(|l| l.starts_with("VmHWM:")).unwrap();
    line.split_whitespace().nth(1).unwrap().parse::<u64>().unwrap() * 1024
}

/// Runs `f` on a thread and fails the test if it does not finish in time.
fn within<T: Send + 'static>(secs: u64, f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(secs)).expect("the call hung")
}

// ---- crashes --------------------------------------------------------------

#[test]
fn chunk_of_2_pow_40_elements() {
    let z = zarray("[1099511627776]", "[1099511627776]", "<i4", "42", r#"{"id": "zlib", "level": 1}"#);
    let (_d, root) = zarr_dir(&z);
    let path = root.display().to_string();
    let nc = nc_open_path(&path, NC_NOWRITE).unwrap();
    let mut v = 0;
    unsafe {
        // a missing chunk too large to hold reads as fill values, run by run
        assert_eq!(nc_get_var1_int(nc, 0, [12345usize].as_ptr(), &mut v), NC_NOERR);
        assert_eq!(v, 42);
        let mut two = [0i32; 2];
        assert_eq!(nc_get_vara_int(nc, 0, [7usize].as_ptr(), [2usize].as_ptr(), two.as_mut_ptr()), NC_NOERR);
        assert_eq!(two, [42, 42]);
    }
    assert_eq!(nc_close(nc), NC_NOERR);
    // an existing one would have to be decoded whole: NC_ENOMEM
    std::fs::write(root.join("v/0"), b"not even zlib").unwrap();
    let nc = nc_open_path(&path, NC_WRITE).unwrap();
    unsafe {
        assert_eq!(nc_get_var1_int(nc, 0, [1usize].as_ptr(), &mut v), NC_ENOMEM);
        assert_eq!(nc_put_var1_int(nc, 0, [1usize].as_ptr(), &7), NC_ENOMEM);
    }
    assert_eq!(nc_close(nc), NC_NOERR);
}

#[test]
fn chunk_element_count_overflowing_64_bits() {
    let big = "[4294967296, 4294967296, 4294967296]";
    let (_d, root) = zarr_dir(&zarray(big, big, "|i1", "0", "null"));
    let nc = nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap();
    let mut b = 0i8;
    assert_eq!(unsafe { nc_get_var1_schar(nc, 0, [0usize, 0, 0].as_ptr(), &mut b) }, NC_EBADCHUNK);
    assert_eq!(nc_close(nc), NC_NOERR);
}

#[test]
fn huge_string_dtypes() {
    // the last one's byte width (4 × 2^62) overflows 64 bits
    for dtype in ["|S1000000000000", "<U4000000000", "<U4611686018427387904"] {
        let (_d, root) = zarr_dir(&zarray("[2]", "[2]", dtype, "null", "null"));
        let nc = nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap();
        let mut s: *mut c_char = null_mut();
        assert_eq!(unsafe { nc_get_var1_string(nc, 0, [0usize].as_ptr(), &mut s) }, NC_ENOMEM, "{dtype}");
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}

#[test]
fn string_requests_of_2_pow_40_elements_are_refused() {
    // A store's shape makes a whole-variable string read 2^40 values: the
    // strings gathered for it are allocated fallibly (it aborted before).
    let (_d, root) = zarr_dir(&zarray("[1099511627776]", "[1048576]", "|S4", "null", "null"));
    let nc = nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap();
    let mut one: *mut c_char = null_mut(); // never written: the call fails first
    assert_eq!(unsafe { nc_get_var_string(nc, 0, &mut one) }, NC_ENOMEM);
    assert!(one.is_null());
    assert_eq!(nc_close(nc), NC_NOERR);
}

/// A stored zip entry, optionally with a forged uncompressed size.
struct Entry<'a> {
    name: &'a str,
    data: &'a [u8],
    /// Uncompressed size to claim (zip64 when over 32 bits).
    claim: Option<u64>,
    /// Deflate method (the data is then not valid deflate: never read).
    deflated: bool,
}

fn entry<'a>(name: &'a str, data: &'a [u8]) -> Entry<'a> {
    Entry { name, data, claim: None, deflated: false }
}

/// Builds a zip archive by hand, so that headers can lie.
fn forge_zip(entries: &[Entry]) -> Vec<u8> {
    let crc = |d: &[u8]| unsafe { libz_sys::crc32(0, d.as_ptr(), d.len() as u32) as u32 };
    let (mut out, mut central) = (Vec::new(), Vec::new());
    for e in entries {
        let offset = out.len() as u32;
        let claim = e.claim.unwrap_or(e.data.len() as u64);
        let zip64 = claim >= 0xffff_ffff;
        let extra: Vec<u8> = if zip64 {
            [1u16.to_le_bytes(), 8u16.to_le_bytes()].concat().into_iter().chain(claim.to_le_bytes()).collect()
        } else {
            vec![]
        };
        let small = if zip64 { 0xffff_ffffu32 } else { claim as u32 };
        let method: u16 = if e.deflated { 8 } else { 0 };
        let common = |v: &mut Vec<u8>| {
            v.extend_from_slice(&45u16.to_le_bytes()); // version needed
            v.extend_from_slice(&0u16.to_le_bytes()); // flags
            v.extend_from_slice(&method.to_le_bytes());
            v.extend_from_slice(&[0u8; 4]); // time, date
            v.extend_from_slice(&crc(e.data).to_le_bytes());
            v.extend_from_slice(&(e.data.len() as u32).to_le_bytes());
            v.extend_from_slice(&small.to_le_bytes());
            v.extend_from_slice(&(e.name.len() as u16).to_le_bytes());
            v.extend_from_slice(&(extra.len() as u16).to_le_bytes());
        };
        out.extend_from_slice(&0x04034b50u32.to_le_bytes());
        common(&mut out);
        out.extend_from_slice(e.name.as_bytes());
        out.extend_from_slice(&extra);
        out.extend_from_slice(e.data);
        central.extend_from_slice(&0x02014b50u32.to_le_bytes());
        central.extend_from_slice(&(0x0300u16 | 45).to_le_bytes()); // made by: unix
        common(&mut central);
        central.extend_from_slice(&[0u8; 6]); // comment len, disk, internal attrs
        central.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
        central.extend_from_slice(&offset.to_le_bytes());
        central.extend_from_slice(e.name.as_bytes());
        central.extend_from_slice(&extra);
    }
    let cd_offset = out.len() as u32;
    out.extend_from_slice(&central);
    out.extend_from_slice(&0x06054b50u32.to_le_bytes());
    out.extend_from_slice(&[0u8; 4]);
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(entries.len() as u16).to_le_bytes());
    out.extend_from_slice(&(central.len() as u32).to_le_bytes());
    out.extend_from_slice(&cd_offset.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out
}

const I1_ZARRAY: &str = r#"{"zarr_format": 2, "shape": [4], "chunks": [4], "dtype": "|i1", "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#;

fn zip_url(dir: &Path, bytes: &[u8]) -> String {
    let p = dir.join("ds.zip");
    std::fs::write(&p, bytes).unwrap();
    format!("file://{}#mode=zarr,zip", p.display())
}

#[test]
fn zip_entries_claiming_huge_sizes() {
    let dir = tempfile::tempdir().unwrap();
    for (claim, code) in [(1u64 << 50, NC_ENOMEM), (0xffff_fff0, NC_ENOTNC), (4 << 30, NC_ENOTNC)] {
        let url = zip_url(
            dir.path(),
            &forge_zip(&[
                entry(".zgroup", ZGROUP.as_bytes()),
                entry("v/.zarray", I1_ZARRAY.as_bytes()),
                Entry { name: "v/0", data: &[1, 2, 3, 4], claim: Some(claim), deflated: false },
            ]),
        );
        let nc = nc_open_path(&url, NC_NOWRITE).unwrap();
        let mut b = [0i8; 4];
        assert_eq!(unsafe { nc_get_var_schar(nc, 0, b.as_mut_ptr()) }, code, "claim {claim}");
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}

#[test]
fn zip_bomb_entries_are_not_read_at_open() {
    if !in_child("zip_bomb_entries_are_not_read_at_open") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let names: Vec<String> = (0..8).map(|i| format!("junk/{i}")).collect();
    let mut entries = vec![entry(".zgroup", ZGROUP.as_bytes()), entry("v/.zarray", I1_ZARRAY.as_bytes())];
    for n in &names {
        // eight entries of 1 GiB each, as their headers say
        entries.push(Entry { name: n, data: &[0x03, 0x00], claim: Some(1 << 30), deflated: true });
    }
    let url = zip_url(dir.path(), &forge_zip(&entries));
    let before = peak_rss();
    let nc = nc_open_path(&url, NC_NOWRITE).unwrap();
    let mut b = [9i8; 4];
    assert_eq!(unsafe { nc_get_var_schar(nc, 0, b.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(b, [0; 4]);
    assert_eq!(nc_close(nc), NC_NOERR);
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 64 << 20, "open grew the peak RSS by {grown} bytes");
    // reading one: an error, not 1 GiB
    let mut map = 0;
    let p = cs(&dir.path().join("ds.zip").display().to_string());
    unsafe {
        assert_eq!(nczmap_open(NCZM_ZIP, p.as_ptr(), 0, 0, null_mut(), &mut map), NC_NOERR);
        let mut byte = [0u8; 1];
        assert_ne!(nczmap_read(map, cs("/junk/0").as_ptr(), 0, 1, byte.as_mut_ptr().cast()), NC_NOERR);
    }
    assert_eq!(nczmap_close(map, 0), NC_NOERR);
    assert!(peak_rss().saturating_sub(before) < 64 << 20);
}

#[test]
fn nczmap_write_far_offsets() {
    let dir = tempfile::tempdir().unwrap();
    for (imp, name) in [(NCZM_FILE, "f.zarr"), (NCZM_ZIP, "z.zip"), (NCZM_MEMORY, "hostile-far")] {
        let path = if imp == NCZM_MEMORY { name.to_string() } else { dir.path().join(name).display().to_string() };
        let mut map = 0;
        unsafe {
            assert_eq!(nczmap_create(imp, cs(&path).as_ptr(), 0, 0, null_mut(), &mut map), NC_NOERR);
            let rc = nczmap_write(map, cs("/v/0").as_ptr(), 1 << 50, 1, [7u8].as_ptr().cast());
            assert_eq!(rc, NC_ENOMEM, "{name}");
        }
        assert_eq!(nczmap_close(map, 1), NC_NOERR);
    }
    // below the limit the file driver makes a sparse file, not 1 GiB of zeros
    let path = dir.path().join("sparse.zarr").display().to_string();
    let mut map = 0;
    unsafe {
        assert_eq!(nczmap_create(NCZM_FILE, cs(&path).as_ptr(), 0, 0, null_mut(), &mut map), NC_NOERR);
        assert_eq!(nczmap_write(map, cs("/v/0").as_ptr(), 1 << 30, 1, [7u8].as_ptr().cast()), NC_NOERR);
        let mut byte = [0u8; 1];
        assert_eq!(nczmap_read(map, cs("/v/0").as_ptr(), 1 << 30, 1, byte.as_mut_ptr().cast()), NC_NOERR);
        assert_eq!(byte, [7]);
    }
    assert_eq!(nczmap_close(map, 0), NC_NOERR);
    use std::os::unix::fs::MetadataExt;
    let meta = std::fs::metadata(dir.path().join("sparse.zarr/v/0")).unwrap();
    assert_eq!(meta.len(), (1 << 30) + 1);
    assert!(meta.blocks() * 512 < 16 << 20, "{} bytes on disk", meta.blocks() * 512);
}

// ---- hangs ----------------------------------------------------------------

#[test]
fn fifo_as_chunk_or_metadata_is_refused() {
    let (_d, root) = zarr_dir(I1_ZARRAY);
    let fifo = cs(&root.join("v/0").display().to_string());
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o644) }, 0);
    let path = root.display().to_string();
    let rc = within(20, move || {
        let nc = nc_open_path(&path, NC_NOWRITE).unwrap();
        let mut b = [0i8; 4];
        let rc = unsafe { nc_get_var_schar(nc, 0, b.as_mut_ptr()) };
        assert_eq!(nc_close(nc), NC_NOERR);
        rc
    });
    assert_eq!(rc, NC_EIO);
    // a FIFO as .zattrs: open fails, without blocking
    let zattrs = cs(&root.join(".zattrs").display().to_string());
    assert_eq!(unsafe { libc::mkfifo(zattrs.as_ptr(), 0o644) }, 0);
    let path = root.display().to_string();
    assert_eq!(within(20, move || nc_open_path(&path, NC_NOWRITE).unwrap_err()), NC_EIO);
}

// ---- escapes --------------------------------------------------------------

#[test]
fn planted_temporary_symlinks_are_not_followed() {
    if !in_child("planted_temporary_symlinks_are_not_followed") {
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let victim = dir.path().join("victim");
    std::fs::write(&victim, b"precious").unwrap();
    let root = dir.path().join("ds.zarr");
    write_tree(&root, &[(".zgroup", ZGROUP.as_bytes()), ("v/.zarray", I1_ZARRAY.as_bytes())]);
    // every temporary name this fresh process will pick first, in both directories
    for d in [root.clone(), root.join("v")] {
        for n in 0..32 {
            std::os::unix::fs::symlink(&victim, d.join(format!(".nczarr-rs-tmp.{}.{n}", std::process::id()))).unwrap();
        }
    }
    let nc = nc_open_path(&root.display().to_string(), NC_WRITE).unwrap();
    unsafe {
        let vals = [1i8, 2, 3, 4];
        assert_eq!(nc_put_var_schar(nc, 0, vals.as_ptr()), NC_NOERR);
        assert_eq!(nc_put_att_text(nc, NC_GLOBAL, c"title".as_ptr(), 2, c"hi".as_ptr()), NC_NOERR);
    }
    assert_eq!(nc_close(nc), NC_NOERR);
    assert_eq!(std::fs::read(&victim).unwrap(), b"precious");
    assert_eq!(std::fs::read(root.join("v/0")).unwrap(), [1, 2, 3, 4]);
}

#[test]
fn symlinks_inside_a_store_receive_no_writes() {
    let dir = tempfile::tempdir().unwrap();
    let outside = dir.path().join("outside");
    std::fs::create_dir(&outside).unwrap();
    std::fs::write(outside.join("0"), b"keep").unwrap();
    let root = dir.path().join("ds.zarr");
    write_tree(
        &root,
        &[(".zgroup", ZGROUP.as_bytes()), ("v/.zarray", I1_ZARRAY.as_bytes()), ("w/.zarray", I1_ZARRAY.as_bytes())],
    );
    // the chunk of v is a symlink to a file outside: reading follows it,
    // writing replaces the link, never the file
    std::os::unix::fs::symlink(outside.join("0"), root.join("v/0")).unwrap();
    // w's chunks live in a directory reached through a symlink
    let w = root.join("w");
    std::fs::rename(&w, outside.join("w")).unwrap();
    std::os::unix::fs::symlink(outside.join("w"), &w).unwrap();
    let nc = nc_open_path(&root.display().to_string(), NC_WRITE).unwrap();
    unsafe {
        let mut b = [0i8; 4];
        assert_eq!(nc_get_var_schar(nc, 0, b.as_mut_ptr()), NC_NOERR);
        assert_eq!(&b, b"keep".map(|c| c as i8).as_slice());
        assert_eq!(nc_put_var_schar(nc, 0, [1i8, 2, 3, 4].as_ptr()), NC_NOERR);
        assert_eq!(nc_put_var_schar(nc, 1, [1i8, 2, 3, 4].as_ptr()), NC_EPERM);
        // (a whole chunk goes straight to the store: the refused one is not
        // kept) and w's metadata, once changed, cannot be written there
        // either: the close says so
        assert_eq!(nc_put_att_text(nc, 1, c"units".as_ptr(), 1, c"m".as_ptr()), NC_NOERR);
    }
    assert_eq!(nc_close(nc), NC_EPERM);
    assert_eq!(std::fs::read(outside.join("0")).unwrap(), b"keep");
    assert!(!std::fs::symlink_metadata(root.join("v/0")).unwrap().file_type().is_symlink());
    assert_eq!(std::fs::read(root.join("v/0")).unwrap(), [1, 2, 3, 4]);
    assert!(!outside.join("w/0").exists(), "a chunk was written through the symlinked directory");
}

#[test]
fn nc_delete_only_deletes_datasets() {
    let dir = tempfile::tempdir().unwrap();
    let plain = dir.path().join("photos");
    write_tree(&plain, &[("a.jpg", b"x"), ("sub/b.jpg", b"y")]);
    assert_eq!(unsafe { nc_delete(cs(&plain.display().to_string()).as_ptr()) }, NC_ENOTNC);
    assert!(plain.join("sub/b.jpg").exists());
    let (_d, root) = zarr_dir(I1_ZARRAY);
    assert_eq!(unsafe { nc_delete(cs(&root.display().to_string()).as_ptr()) }, NC_NOERR);
    assert!(!root.exists());
}

#[test]
fn zip_entries_outside_the_root_survive_a_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let url = zip_url(
        dir.path(),
        &forge_zip(&[
            entry(".zgroup", ZGROUP.as_bytes()),
            entry("v/.zarray", I1_ZARRAY.as_bytes()),
            entry("../escape.txt", b"dot-dot"),
            entry("/abs.txt", b"absolute"),
            entry("docs/", b""),
        ]),
    );
    let nc = nc_open_path(&url, NC_WRITE).unwrap();
    unsafe {
        assert_eq!(nc_put_var_schar(nc, 0, [1i8, 2, 3, 4].as_ptr()), NC_NOERR);
    }
    assert_eq!(nc_close(nc), NC_NOERR);
    let mut z = zip::ZipArchive::new(std::fs::File::open(dir.path().join("ds.zip")).unwrap()).unwrap();
    let mut names: Vec<String> = z.file_names().map(|n| n.unwrap().into_owned()).collect();
    names.sort();
    // (the writer defined nothing: no metadata object is added)
    assert_eq!(names, ["../escape.txt", ".zgroup", "/abs.txt", "docs/", "v/.zarray", "v/0"]);
    let mut s = String::new();
    std::io::Read::read_to_string(&mut z.by_name("../escape.txt").unwrap(), &mut s).unwrap();
    assert_eq!(s, "dot-dot");
    // and the dataset reads back
    let nc = nc_open_path(&url, NC_NOWRITE).unwrap();
    let mut b = [0i8; 4];
    assert_eq!(unsafe { nc_get_var_schar(nc, 0, b.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(b, [1, 2, 3, 4]);
    assert_eq!(nc_close(nc), NC_NOERR);
}

#[test]
fn stale_temporary_files_are_removed_at_open_for_write() {
    let (_d, root) = zarr_dir(I1_ZARRAY);
    let mut child = std::process::Command::new("true").spawn().unwrap();
    let dead = child.id();
    child.wait().unwrap();
    let stale = root.join(format!("v/.nczarr-rs-tmp.{dead}.3"));
    let mine = root.join(format!("v/.nczarr-rs-tmp.{}.999999", std::process::id()));
    // names with a host tag: this machine's dead writer's is stale; another
    // machine's (sharing the file system) cannot be judged here and stays
    let host: String = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .unwrap()
        .bytes()
        .filter(|b| b.is_ascii_alphanumeric() || *b == b'-')
        .take(64)
        .map(char::from)
        .collect();
    let stale_here = root.join(format!("v/.nczarr-rs-tmp.{dead}.4.{host}"));
    let elsewhere = root.join(format!("v/.nczarr-rs-tmp.{dead}.5.{host}x-other-node"));
    std::fs::write(&stale_here, b"torn").unwrap();
    std::fs::write(&elsewhere, b"another machine's, in progress").unwrap();
    std::fs::write(&stale, b"torn").unwrap();
    std::fs::write(&mine, b"in progress").unwrap();
    let path = root.display().to_string();
    assert_eq!(nc_close(nc_open_path(&path, NC_NOWRITE).unwrap()), NC_NOERR);
    assert!(stale.exists(), "a read-only open changes nothing");
    assert_eq!(nc_close(nc_open_path(&path, NC_WRITE).unwrap()), NC_NOERR);
    assert!(!stale.exists());
    assert!(!stale_here.exists());
    assert!(mine.exists(), "a live writer's temporary file stays");
    assert!(elsewhere.exists(), "another machine's temporary file stays");
}

// ---- unchecked input ------------------------------------------------------

/// An in-memory NCZarr store with a root group listing `vars`, each with
/// the given `.zarray`, and root attributes `zattrs`.
fn mem_store(name: &str, objects: &[(String, String)]) -> String {
    let url = format!("mem://hostile/{name}");
    let s = Driver::Memory.create(&url, true).unwrap();
    for (k, v) in objects {
        s.set(&StoreKey::parse(k).unwrap(), v.as_bytes()).unwrap();
    }
    url
}

fn nczarr_root(vars: &[&str], groups: &[&str]) -> (String, String) {
    let info = serde_json::json!({"dims": {}, "vars": vars, "groups": groups});
    (
        "/.zgroup".into(),
        serde_json::json!({"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": info})
            .to_string(),
    )
}

#[test]
fn bad_names_from_a_store_are_refused() {
    for bad in ["", "bad/name", ".zarray", "a\u{1}b", &"n".repeat(300)] {
        let url = mem_store("badvar", &[nczarr_root(&[bad], &[])]);
        assert_eq!(open_err(&url), NC_ENCZARR, "variable {bad:?}");
        let url = mem_store("badgrp", &[nczarr_root(&[], &[bad])]);
        assert_eq!(open_err(&url), NC_ENCZARR, "group {bad:?}");
        if bad != ".zarray" {
            // attribute names keep netCDF-C's leniency, but not these
            let attrs = serde_json::json!({ bad: 1 }).to_string();
            let url = mem_store("badatt", &[nczarr_root(&[], &[]), ("/.zattrs".into(), attrs)]);
            assert_eq!(open_err(&url), NC_ENCZARR, "attribute {bad:?}");
        }
    }
    // the longest legal attribute name fits nc_inq_attname's NC_MAX_NAME + 1 buffer
    let long = "a".repeat(NC_MAX_NAME as usize);
    let attrs = serde_json::json!({ &long: 1 }).to_string();
    let url = mem_store("longatt", &[nczarr_root(&[], &[]), ("/.zattrs".into(), attrs)]);
    let nc = nc_open_path(&url, NC_NOWRITE).unwrap();
    let mut name = [0 as c_char; NC_MAX_NAME as usize + 1];
    assert_eq!(unsafe { nc_inq_attname(nc, NC_GLOBAL, 0, name.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(name[NC_MAX_NAME as usize], 0);
    assert_eq!(nc_close(nc), NC_NOERR);
}

#[test]
fn more_than_nc_max_var_dims_dimensions() {
    let shape = format!("[{}]", vec!["1"; 2000].join(","));
    let (_d, root) = zarr_dir(&zarray(&shape, &shape, "|i1", "0", "null"));
    assert_eq!(nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap_err(), NC_EMAXDIMS);
}

#[test]
fn fill_value_out_of_range() {
    let (_d, root) = zarr_dir(&zarray("[4]", "[4]", "<i4", "1e200", "null"));
    assert_eq!(nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap_err(), NC_ERANGE);
    let (_d, root) = zarr_dir(&zarray("[4]", "[4]", "|u1", "-1", "null"));
    assert_eq!(nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap_err(), NC_ERANGE);
}

/// A chain of `depth` nested groups g/g/g/..., NCZarr layout, consolidated
/// into one `.zmetadata` (cheaper to build than thousands of deep keys).
fn nested(name: &str, depth: usize) -> String {
    let (_, root) = nczarr_root(&[], &["g"]);
    let mut meta = serde_json::Map::new();
    meta.insert(".zgroup".into(), serde_json::from_str(&root).unwrap());
    let mut key = String::new();
    for i in 0..depth {
        key.push_str("g/");
        let children: &[&str] = if i + 1 < depth { &["g"] } else { &[] };
        let info = serde_json::json!({"dims": {}, "vars": [], "groups": children});
        meta.insert(format!("{key}.zgroup"), serde_json::json!({"zarr_format": 2, "_nczarr_group": info}));
    }
    let doc = serde_json::json!({"metadata": meta, "zarr_consolidated_format": 1});
    mem_store(name, &[("/.zmetadata".to_string(), doc.to_string())])
}

#[test]
fn three_thousand_nested_groups_on_a_small_stack() {
    let url = nested("deep", 3000);
    let groups = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(move || file::open(&url, NC_NOWRITE).map(|ds| ds.groups().len()))
        .unwrap()
        .join()
        .expect("the open overflowed its stack");
    assert_eq!(groups.unwrap(), 3001);
}

#[test]
fn group_ids_past_0xffff_are_refused() {
    let names: Vec<String> = (0..0x10000).map(|i| format!("g{i}")).collect();
    let refs: Vec<&str> = names.iter().map(String::as_str).collect();
    let mut objects = vec![nczarr_root(&[], &refs)];
    for n in &names {
        objects.push((format!("/{n}/.zgroup"), ZGROUP.to_string()));
    }
    let url = mem_store("wide", &objects);
    assert_eq!(open_err(&url), NC_ENCZARR);
}

#[test]
fn memory_map_overflow_is_refused() {
    let (_d, root) = zarr_dir(&zarray("[4, 4]", "[4, 4]", "|i1", "0", "null"));
    let nc = nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap();
    let mut b = [0i32; 16];
    let imap = [isize::MAX / 2, 1];
    let rc = unsafe {
        nc_get_varm_int(nc, 0, [0usize, 0].as_ptr(), [4usize, 4].as_ptr(), null_mut(), imap.as_ptr(), b.as_mut_ptr())
    };
    assert_eq!(rc, NC_EINVAL);
    assert_eq!(nc_close(nc), NC_NOERR);
}

// ---- bounded memory -------------------------------------------------------

#[test]
fn fifty_megabyte_zattrs_is_refused_in_bounded_memory() {
    if !in_child("fifty_megabyte_zattrs_is_refused_in_bounded_memory") {
        return;
    }
    let (_d, root) = zarr_dir(I1_ZARRAY);
    let mut text = String::from(r#"{"big": ["#);
    while text.len() < 50 << 20 {
        text.push_str("1,");
    }
    text.push_str("1]}");
    std::fs::write(root.join(".zattrs"), &text).unwrap();
    drop(text);
    let before = peak_rss();
    assert_eq!(nc_open_path(&root.display().to_string(), NC_NOWRITE).unwrap_err(), NC_ENOMEM);
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 64 << 20, "the open grew the peak RSS by {grown} bytes");
}

#[test]
fn unused_zip_entry_is_not_loaded_at_open() {
    if !in_child("unused_zip_entry_is_not_loaded_at_open") {
        return;
    }
    // a real 1 GiB stored entry, as a hole in a sparse archive
    let dir = tempfile::tempdir().unwrap();
    let head = forge_zip(&[entry(".zgroup", ZGROUP.as_bytes()), entry("v/.zarray", I1_ZARRAY.as_bytes())]);
    let cd_at = cd_offset(&head);
    let (files, central) = head.split_at(cd_at);
    let name = b"big/0";
    let size: u32 = 1 << 30;
    let zeros_crc = {
        let block = vec![0u8; 1 << 20];
        let mut c = 0;
        for _ in 0..1024 {
            c = unsafe { libz_sys::crc32(c, block.as_ptr(), block.len() as u32) };
        }
        c as u32
    };
    let mut local = Vec::new();
    local.extend_from_slice(&0x04034b50u32.to_le_bytes());
    let fields = |v: &mut Vec<u8>| {
        v.extend_from_slice(&[20, 0, 0, 0, 0, 0, 0, 0, 0, 0]);
        v.extend_from_slice(&zeros_crc.to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&size.to_le_bytes());
        v.extend_from_slice(&(name.len() as u16).to_le_bytes());
        v.extend_from_slice(&0u16.to_le_bytes());
    };
    fields(&mut local);
    local.extend_from_slice(name);
    let big_offset = files.len() as u32;
    let mut cd = central[..central.len() - 22].to_vec();
    cd.extend_from_slice(&0x02014b50u32.to_le_bytes());
    cd.extend_from_slice(&20u16.to_le_bytes());
    fields(&mut cd);
    cd.extend_from_slice(&[0u8; 6]);
    cd.extend_from_slice(&(0o100644u32 << 16).to_le_bytes());
    cd.extend_from_slice(&big_offset.to_le_bytes());
    cd.extend_from_slice(name);
    let cd_start = files.len() as u64 + local.len() as u64 + size as u64;
    let mut eocd = Vec::new();
    eocd.extend_from_slice(&0x06054b50u32.to_le_bytes());
    eocd.extend_from_slice(&[0u8; 4]);
    eocd.extend_from_slice(&3u16.to_le_bytes());
    eocd.extend_from_slice(&3u16.to_le_bytes());
    eocd.extend_from_slice(&(cd.len() as u32).to_le_bytes());
    eocd.extend_from_slice(&(cd_start as u32).to_le_bytes());
    eocd.extend_from_slice(&0u16.to_le_bytes());
    let path = dir.path().join("ds.zip");
    {
        use std::io::{Seek, SeekFrom, Write};
        let mut f = std::fs::File::create(&path).unwrap();
        f.write_all(files).unwrap();
        f.write_all(&local).unwrap();
        f.seek(SeekFrom::Current(size as i64)).unwrap();
        f.write_all(&cd).unwrap();
        f.write_all(&eocd).unwrap();
    }
    let url = format!("file://{}#mode=zarr,zip", path.display());
    let before = peak_rss();
    let nc = nc_open_path(&url, NC_NOWRITE).unwrap();
    let mut b = [9i8; 4];
    assert_eq!(unsafe { nc_get_var_schar(nc, 0, b.as_mut_ptr()) }, NC_NOERR);
    assert_eq!(nc_close(nc), NC_NOERR);
    let grown = peak_rss().saturating_sub(before);
    assert!(grown < 64 << 20, "the open grew the peak RSS by {grown} bytes");
}

/// The central directory offset recorded in an archive's end record.
fn cd_offset(zip: &[u8]) -> usize {
    let e = zip.len() - 22;
    u32::from_le_bytes(zip[e + 16..e + 20].try_into().unwrap()) as usize
}

#[test]
fn zip_objects_read_lazily_stay_right_across_rewrites() {
    let dir = tempfile::tempdir().unwrap();
    let loc = dir.path().join("lazy.zip").display().to_string();
    let k = |s: &str| StoreKey::parse(s).unwrap();
    let s = Driver::Zip.create(&loc, true).unwrap();
    s.set(&k("/a/0"), b"0123456789").unwrap();
    s.set(&k("/b"), b"bee").unwrap();
    s.flush().unwrap();
    // after the rewrite both are entries of the new archive
    assert_eq!(s.get(&k("/a/0")).unwrap().unwrap(), b"0123456789");
    assert_eq!(s.get_range(&k("/a/0"), 3, 4).unwrap().unwrap(), b"3456");
    s.set_range(&k("/a/0"), 8, b"XYZ").unwrap();
    s.erase(&k("/b")).unwrap();
    s.set(&k("/c"), b"sea").unwrap();
    s.flush().unwrap();
    s.flush().unwrap();
    drop(s);
    let s = Driver::Zip.open(&loc, false).unwrap();
    assert_eq!(s.get(&k("/a/0")).unwrap().unwrap(), b"01234567XYZ");
    assert_eq!(s.get(&k("/b")).unwrap(), None);
    assert_eq!(s.get(&k("/c")).unwrap().unwrap(), b"sea");
    assert_eq!(s.size(&k("/a/0")).unwrap(), Some(11));
    assert!(s.get_max(&k("/a/0"), 4).unwrap_err().to_string().contains("limit"));
}
