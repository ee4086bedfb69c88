//! Kerchunk reference sets (`map::refs`) opened through the netCDF API:
//! every form of reference (inline text, `base64:`, `[url]`,
//! `[url, offset, length]`), templates, `gen` keys, relative, absolute and
//! `file://` targets, versions 0 and 1, the spellings that select them
//! (`mode=kerchunk`, a plain `*.json` path), S3 targets (with the test
//! server), and hostile reference sets: each gives its netCDF error code
//! and a message naming the reference file and the key, never a crash.

use base64::Engine;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::atts::nc_get_att_text;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::library::nczarr_rs_last_error;
use nczarr_rs::ffi::vars::*;
use nczarr_rs::map::refs::RefStore;
use nczarr_rs::map::{ListableStore, ReadableStore, Store, StoreKey, WritableStore};
use std::ffi::{CStr, CString};
use std::os::raw::c_int;
use std::path::Path;

#[path = "support/s3_server.rs"]
mod s3_server;

const ZGROUP: &str = r#"{"zarr_format":2}"#;

fn zarray(shape: u64, chunk: u64, dtype: &str, fill: &str, compressor: &str) -> String {
    format!(
        r#"{{"shape":[{shape}],"chunks":[{chunk}],"dtype":"{dtype}","fill_value":{fill},"order":"C","filters":null,"compressor":{compressor},"zarr_format":2}}"#
    )
}

fn zattrs(dim: &str) -> String {
    format!(r#"{{"_ARRAY_DIMENSIONS":["{dim}"],"units":"m"}}"#)
}

fn i32s(v: impl IntoIterator<Item = i32>) -> Vec<u8> {
    v.into_iter().flat_map(i32::to_le_bytes).collect()
}

fn b64(bytes: &[u8]) -> String {
    format!("base64:{}", base64::engine::general_purpose::STANDARD.encode(bytes))
}

fn last_error() -> String {
    unsafe { CStr::from_ptr(nczarr_rs_last_error()) }.to_str().unwrap().to_string()
}

fn open(path: &str, mode: c_int) -> Result<c_int, c_int> {
    let p = CString::new(path).unwrap();
    let mut nc = -1;
    match unsafe { nc_open(p.as_ptr(), mode, &mut nc) } {
        NC_NOERR => Ok(nc),
        rc => Err(rc),
    }
}

fn varid(nc: c_int, name: &str) -> c_int {
    let n = CString::new(name).unwrap();
    let mut v = -1;
    assert_eq!(unsafe { nc_inq_varid(nc, n.as_ptr(), &mut v) }, NC_NOERR, "{name}");
    v
}

fn get_ints(nc: c_int, name: &str, n: usize) -> Result<Vec<i32>, c_int> {
    let v = varid(nc, name);
    let mut out = vec![0i32; n];
    match unsafe { nc_get_var_int(nc, v, out.as_mut_ptr()) } {
        NC_NOERR => Ok(out),
        rc => Err(rc),
    }
}

fn close(nc: c_int) {
    assert_eq!(nc_close(nc), NC_NOERR);
}

/// A directory with the target files: `data.bin` (i32 0..64 after a
/// 16-byte header), `sub/more.bin` (i32 100..108), `whole.bin` (i32 [7, 8]).
fn targets() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let mut data = b"HEADER-16-BYTES!".to_vec();
    data.extend(i32s(0..64));
    std::fs::write(dir.path().join("data.bin"), data).unwrap();
    std::fs::create_dir(dir.path().join("sub")).unwrap();
    std::fs::write(dir.path().join("sub/more.bin"), i32s(100..108)).unwrap();
    std::fs::write(dir.path().join("whole.bin"), i32s([7, 8])).unwrap();
    dir
}

/// The offset in `data.bin` of value `i`.
fn at(i: u64) -> u64 {
    16 + 4 * i
}

/// A version 1 reference file `name` in `dir` of `refs` (a JSON object).
fn write_v1(dir: &Path, name: &str, refs: serde_json::Value) -> String {
    write_refs(dir, name, &serde_json::json!({"version": 1, "refs": refs}))
}

fn write_refs(dir: &Path, name: &str, refs: &serde_json::Value) -> String {
    let p = dir.join(name);
    std::fs::write(&p, serde_json::to_vec_pretty(refs).unwrap()).unwrap();
    p.to_str().unwrap().to_string()
}

/// A version 1 set with every form of reference: v(12) in chunks of 2.
fn every_form(dir: &Path) -> serde_json::Value {
    let abs = dir.join("data.bin");
    serde_json::json!({
        "version": 1,
        "templates": {"d": "data.bin", "root": dir.to_str().unwrap()},
        "refs": {
            ".zgroup": ZGROUP,
            ".zattrs": r#"{"title":"every form"}"#,
            "v/.zarray": zarray(12, 2, "<i4", "-1", "null"),
            "v/.zattrs": zattrs("x"),
            // base64 inline bytes
            "v/0": b64(&i32s([10, 11])),
            // inline text: the 8 bytes of two i32s as ASCII
            "v/1": "AAAABBBB",
            // a relative path
            "v/2": ["data.bin", at(4), 8],
            // a template
            "v/3": ["{{d}}", at(6), 8],
            // a template in an absolute path, and a file:// URL
            "v/4": ["{{root}}/sub/more.bin", 0, 8],
            "v/5": [format!("file://{}", abs.display()), at(10), 8],
            // "v/6" missing: fill values
            "w/.zarray": zarray(2, 2, "<i4", "null", "null"),
            "w/.zattrs": zattrs("y"),
            // a whole file
            "w/0": ["whole.bin"],
        }
    })
}

#[test]
fn every_form_of_reference_reads() {
    let dir = targets();
    let path = write_refs(dir.path(), "refs.json", &every_form(dir.path()));
    let text = i32::from_le_bytes(*b"AAAA");
    let text2 = i32::from_le_bytes(*b"BBBB");
    let want = vec![10, 11, text, text2, 4, 5, 6, 7, 100, 101, 10, 11];
    // a plain path, by content; a file:// URL with mode=kerchunk
    for p in [path.clone(), format!("file://{path}#mode=kerchunk")] {
        let nc = open(&p, NC_NOWRITE).unwrap_or_else(|rc| panic!("{p}: {rc} {}", last_error()));
        assert_eq!(get_ints(nc, "v", 12).unwrap(), want);
        assert_eq!(get_ints(nc, "w", 2).unwrap(), vec![7, 8]);
        let mut units = [0u8; 1];
        let v = varid(nc, "v");
        assert_eq!(unsafe { nc_get_att_text(nc, v, c"units".as_ptr(), units.as_mut_ptr().cast()) }, 0);
        assert_eq!(&units, b"m");
        // the .zarray fill value is the _FillValue attribute
        let mut fill = 0i32;
        assert_eq!(unsafe { nczarr_rs::ffi::atts::nc_get_att_int(nc, v, c"_FillValue".as_ptr(), &mut fill) }, 0);
        assert_eq!(fill, -1);
        // a slab across an inline chunk and two ranges
        let (start, count) = ([3usize], [4usize]);
        let mut part = [0i32; 4];
        assert_eq!(unsafe { nc_get_vara_int(nc, v, start.as_ptr(), count.as_ptr(), part.as_mut_ptr()) }, 0);
        assert_eq!(part, [text2, 4, 5, 6]);
        close(nc);
    }
}

#[test]
fn a_missing_chunk_is_the_fill_value_and_null_keeps_netcdf_default_fill() {
    let dir = targets();
    let refs = serde_json::json!({
        ".zgroup": ZGROUP,
        "a/.zarray": zarray(4, 2, "<i4", "-5", "null"), "a/.zattrs": zattrs("x"),
        "a/1": ["data.bin", at(0), 8],
        // fill_value null (kerchunk's for a netCDF variable without
        // _FillValue): netCDF's default fill
        "b/.zarray": zarray(4, 2, "<i4", "null", "null"), "b/.zattrs": zattrs("x"),
        "b/0": ["data.bin", at(0), 8],
    });
    let path = write_v1(dir.path(), "fills.json", refs);
    let nc = open(&path, NC_NOWRITE).unwrap();
    assert_eq!(get_ints(nc, "a", 4).unwrap(), vec![-5, -5, 0, 1]);
    assert_eq!(get_ints(nc, "b", 4).unwrap(), vec![0, 1, NC_FILL_INT, NC_FILL_INT]);
    let (mut no_fill, mut fill) = (1, 0i32);
    assert_eq!(unsafe { nc_inq_var_fill(nc, varid(nc, "b"), &mut no_fill, (&mut fill as *mut i32).cast()) }, 0);
    assert_eq!((no_fill, fill), (0, NC_FILL_INT));
    close(nc);
}

#[test]
fn version_0_is_a_flat_key_map() {
    let dir = targets();
    let refs = serde_json::json!({
        ".zgroup": ZGROUP,
        "v/.zarray": zarray(4, 2, "<i4", "0", "null"),
        "v/.zattrs": zattrs("x"),
        "v/0": ["data.bin", at(20), 8],
        "v/1": b64(&i32s([1, 2])),
    });
    let path = write_refs(dir.path(), "v0.json", &refs);
    let nc = open(&path, NC_NOWRITE).unwrap();
    assert_eq!(get_ints(nc, "v", 4).unwrap(), vec![20, 21, 1, 2]);
    close(nc);
}

#[test]
fn gen_keys_are_made_from_their_dimensions() {
    let dir = targets();
    let refs = serde_json::json!({
        "version": 1,
        "templates": {"f": "data"},
        "gen": [
            // g/0 .. g/7: two values each, at 16 + 8 i
            {"key": "g/{{i}}", "url": "{{f}}.bin", "offset": "{{16 + i * 8}}", "length": "8",
             "dimensions": {"i": {"stop": 8}}},
            // h/j.k over j in [0, 1], k in range(1, 4, 2) = [1, 3]
            {"key": "h/{{j}}.{{k // 2}}", "url": "data.bin", "offset": "{{(j * 4 + k) * 4 + 16}}",
             "length": 4, "dimensions": {"j": [0, 1], "k": {"start": 1, "stop": 4, "step": 2}}},
        ],
        "refs": {
            ".zgroup": ZGROUP,
            "g/.zarray": zarray(16, 2, "<i4", "0", "null"), "g/.zattrs": zattrs("x"),
            "h/.zarray": r#"{"shape":[2,2],"chunks":[1,1],"dtype":"<i4","fill_value":0,"order":"C","filters":null,"compressor":null,"zarr_format":2}"#,
            "h/.zattrs": r#"{"_ARRAY_DIMENSIONS":["j","k"]}"#,
        }
    });
    let path = write_refs(dir.path(), "gen.json", &refs);
    let nc = open(&path, NC_NOWRITE).unwrap_or_else(|rc| panic!("{rc} {}", last_error()));
    assert_eq!(get_ints(nc, "g", 16).unwrap(), (0..16).collect::<Vec<_>>());
    assert_eq!(get_ints(nc, "h", 4).unwrap(), vec![1, 3, 5, 7]);
    close(nc);
}

#[test]
fn the_store_lists_and_ranges_like_any_other() {
    let dir = targets();
    let text = serde_json::to_vec(&every_form(dir.path())).unwrap();
    let s = RefStore::from_json("mem-refs", &text, dir.path().to_str().unwrap()).unwrap();
    let k = |k: &str| StoreKey::parse(k).unwrap();
    assert_eq!(s.list_dir(&StoreKey::root()).unwrap().unwrap(), vec![".zattrs", ".zgroup", "v", "w"]);
    assert_eq!(s.list_dir(&k("w")).unwrap().unwrap(), vec![".zarray", ".zattrs", "0"]);
    assert_eq!(s.list_dir(&k("w/0")).unwrap().unwrap(), Vec::<String>::new());
    assert_eq!(s.list_dir(&k("nothing")).unwrap(), None);
    assert_eq!(s.list_prefix(&k("v")).unwrap().len(), 8);
    assert_eq!(s.size(&k("v/2")).unwrap(), Some(8));
    assert_eq!(s.size(&k("w/0")).unwrap(), Some(8));
    assert_eq!(s.get_range(&k("v/2"), 4, 4).unwrap().unwrap(), i32s([5]));
    assert!(s.get_range(&k("v/2"), 4, 5).is_err(), "a range past the reference's length");
    assert_eq!(s.get(&k("v/6")).unwrap(), None);
    assert!(!s.is_writable() && s.set(&k("v/6"), b"x").is_err() && s.destroy().is_err());
}

#[test]
fn writes_are_refused_with_eperm() {
    let dir = targets();
    let path = write_refs(dir.path(), "refs.json", &every_form(dir.path()));
    assert_eq!(open(&path, NC_WRITE), Err(NC_EPERM));
    let nc = open(&path, NC_NOWRITE).unwrap();
    let v = varid(nc, "v");
    let one = [1i32; 12];
    assert_eq!(unsafe { nc_put_var_int(nc, v, one.as_ptr()) }, NC_EPERM);
    assert_eq!(nc_redef(nc), NC_EPERM);
    close(nc);
    let url = CString::new(format!("file://{}/new.json#mode=kerchunk", dir.path().display())).unwrap();
    let mut nc = -1;
    assert_eq!(unsafe { nc_create(url.as_ptr(), NC_CLOBBER, &mut nc) }, NC_EPERM);
}

/// A set with one variable `v` of 4 i32 in 2 chunks, `v/0` as given.
fn one_ref(dir: &Path, name: &str, chunk0: serde_json::Value, zarray_text: Option<String>) -> String {
    let refs = serde_json::json!({
        ".zgroup": ZGROUP,
        "v/.zarray": zarray_text.unwrap_or_else(|| zarray(4, 2, "<i4", "0", "null")),
        "v/.zattrs": zattrs("x"),
        "v/0": chunk0,
        "v/1": ["data.bin", at(0), 8],
    });
    write_v1(dir, name, refs)
}

/// Opens `path`, reads `v`: the error code and message of the read.
fn read_fails(path: &str) -> (c_int, String) {
    let nc = open(path, NC_NOWRITE).unwrap_or_else(|rc| panic!("{path}: open: {rc} {}", last_error()));
    let rc = get_ints(nc, "v", 4).expect_err("the read should fail");
    let e = last_error();
    close(nc);
    (rc, e)
}

#[test]
fn a_missing_target_names_the_reference_and_the_key() {
    let dir = targets();
    let path = one_ref(dir.path(), "missing.json", serde_json::json!(["nope.bin", 0, 8]), None);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_EIO, "{e}");
    assert!(
        e.contains(&path) && e.contains("key v/0") && e.contains("nope.bin") && e.contains("does not exist"),
        "{e}"
    );
    let path = one_ref(dir.path(), "missing-whole.json", serde_json::json!(["nope.bin"]), None);
    assert_eq!(read_fails(&path).0, NC_EIO);
}

#[test]
fn a_range_past_the_end_of_its_target_is_an_error() {
    let dir = targets();
    let path = one_ref(dir.path(), "past.json", serde_json::json!(["data.bin", at(63), 8]), None);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_EIO, "{e}");
    assert!(e.contains(&path) && e.contains("key v/0") && e.contains("pass the end"), "{e}");
}

#[test]
fn a_huge_length_is_refused_before_allocating() {
    let dir = targets();
    let path = one_ref(dir.path(), "huge.json", serde_json::json!(["data.bin", 0, 1u64 << 60]), None);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_ENOMEM, "{e}");
    assert!(e.contains("key v/0"), "{e}");
    // an offset + length past u64: refused at the open
    let path = one_ref(dir.path(), "overflow.json", serde_json::json!(["data.bin", u64::MAX, 8]), None);
    assert_eq!(open(&path, NC_NOWRITE), Err(NC_ENOTNC));
    assert!(last_error().contains("key v/0"), "{}", last_error());
}

#[test]
fn lies_about_sizes_and_codecs_are_errors_not_crashes() {
    let dir = targets();
    // a 6-byte chunk where the array says 8
    let path = one_ref(dir.path(), "short.json", serde_json::json!(["data.bin", at(0), 6]), None);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_ENCZARR, "{e}");
    assert!(e.contains("v/0") && e.contains("6 bytes"), "{e}");
    // zlib declared, raw bytes stored
    let zlib = Some(zarray(4, 2, "<i4", "0", r#"{"id":"zlib","level":1}"#));
    let path = one_ref(dir.path(), "codec.json", serde_json::json!(["data.bin", at(0), 8]), zlib);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_EFILTER, "{e}");
    assert!(e.contains("v/0") && e.contains("zlib"), "{e}");
}

#[test]
fn malformed_reference_files_fail_the_open_with_enotnc() {
    let dir = targets();
    let cases: &[(&str, &str, &str)] = &[
        ("syntax.json", r#"{"version": 1, "refs": {".zgroup": "#, "line 1"),
        ("trailing.json", r#"{".zgroup": "{}"} x"#, "trailing"),
        ("b64.json", r#"{"version": 1, "refs": {".zgroup": "base64:!!!"}}"#, "base64"),
        ("list.json", r#"{"version": 1, "refs": {"v/0": []}}"#, "empty reference"),
        ("list4.json", r#"{"version": 1, "refs": {"v/0": ["a", 1, 2, 3]}}"#, "more than"),
        ("offset.json", r#"{"version": 1, "refs": {"v/0": ["a", 1]}}"#, "without a length"),
        ("negative.json", r#"{"version": 1, "refs": {"v/0": ["a", -1, 2]}}"#, "invalid value"),
        ("key.json", r#"{"version": 1, "refs": {"a/../b": "x"}}"#, "a/../b"),
        ("template.json", r#"{"version": 1, "refs": {"v/0": ["{{f(c='x')}}", 0, 1]}}"#, "key v/0"),
        ("version.json", r#"{"version": 7, "refs": {}}"#, "version 7"),
        ("climb.json", r#"{"version": 1, "refs": {"v/0": ["../../../../../../../../../x", 0, 1]}}"#, "climbs"),
        (
            "gen.json",
            r#"{"version": 1, "gen": [{"key": "k{{i}}", "url": "u", "offset": "1", "dimensions": {"i": {"stop": 2}}}], "refs": {}}"#,
            "gen entry 0",
        ),
    ];
    for (name, text, says) in cases {
        let p = dir.path().join(name);
        std::fs::write(&p, text).unwrap();
        let p = p.to_str().unwrap();
        assert_eq!(open(p, NC_NOWRITE), Err(NC_ENOTNC), "{name}: {}", last_error());
        let e = last_error();
        assert!(e.contains(p) && e.contains(says), "{name}: {e}");
    }
    // not an object: not taken for a reference file (a plain path); named, it fails
    let p = dir.path().join("array.json");
    std::fs::write(&p, "[1, 2]").unwrap();
    assert!(open(p.to_str().unwrap(), NC_NOWRITE).is_err());
    assert_eq!(open(&format!("file://{}#mode=kerchunk", p.display()), NC_NOWRITE), Err(NC_ENOTNC));
    // no such reference file
    let p = format!("file://{}/absent.json#mode=kerchunk", dir.path().display());
    assert_eq!(open(&p, NC_NOWRITE), Err(2), "ENOENT");
}

#[test]
fn too_many_gen_keys_and_too_large_files_are_refused_quickly() {
    let dir = targets();
    let t = std::time::Instant::now();
    let refs = serde_json::json!({"version": 1, "gen": [
        {"key": "g/{{i}}.{{j}}", "url": "data.bin", "offset": "0", "length": "8",
         "dimensions": {"i": {"stop": 1_000_000_000}, "j": {"stop": 1_000_000_000}}}], "refs": {".zgroup": ZGROUP}});
    let path = write_refs(dir.path(), "many.json", &refs);
    assert_eq!(open(&path, NC_NOWRITE), Err(NC_ENOTNC));
    assert!(last_error().contains("exceed the limit"), "{}", last_error());
    // a reference file over the size limit (sparse): refused before reading
    let p = dir.path().join("big.json");
    let f = std::fs::File::create(&p).unwrap();
    std::io::Write::write_all(&mut &f, b"{").unwrap();
    f.set_len(nczarr_rs::limits::limits().max_reference_bytes + 1).unwrap();
    assert_eq!(open(p.to_str().unwrap(), NC_NOWRITE), Err(NC_ENOMEM));
    assert!(last_error().contains("kerchunk reference"), "{}", last_error());
    assert!(t.elapsed() < std::time::Duration::from_secs(10));
}

#[test]
fn an_unknown_scheme_is_an_error_of_the_read() {
    let dir = targets();
    let path = one_ref(dir.path(), "gs.json", serde_json::json!(["gopher://host/x.nc", 0, 8]), None);
    let (rc, e) = read_fails(&path);
    assert_eq!(rc, NC_EURL, "{e}");
    assert!(e.contains(&path) && e.contains("key v/0") && e.contains("gopher"), "{e}");
}

#[test]
fn targets_and_reference_files_on_s3() {
    let Some(base) = s3_server::base_url("kerchunk on S3") else { return };
    let run = std::process::id();
    // the targets and the reference file in one S3 prefix, the targets
    // relative to the reference file
    let prefix = format!("{base}/kerchunk{run}");
    let store = nczarr_rs::map::Driver::S3.open_unverified_with(&prefix, true, nczarr_rs::map::Markers(&[])).unwrap();
    let dir = targets();
    for name in ["data.bin", "whole.bin"] {
        store.set(&StoreKey::parse(name).unwrap(), &std::fs::read(dir.path().join(name)).unwrap()).unwrap();
    }
    let refs = serde_json::json!({"version": 1, "refs": {
        ".zgroup": ZGROUP,
        "v/.zarray": zarray(4, 2, "<i4", "0", "null"), "v/.zattrs": zattrs("x"),
        "v/0": ["data.bin", at(8), 8],
        "v/1": ["whole.bin"],
    }});
    store.set(&StoreKey::parse("refs.json").unwrap(), &serde_json::to_vec(&refs).unwrap()).unwrap();
    let url = format!("{prefix}/refs.json#mode=kerchunk,s3");
    let nc = open(&url, NC_NOWRITE).unwrap_or_else(|rc| panic!("{url}: {rc} {}", last_error()));
    assert_eq!(get_ints(nc, "v", 4).unwrap(), vec![8, 9, 7, 8]);
    close(nc);
    // the S3 reference file's target missing
    let refs = serde_json::json!({"version": 1, "refs": {
        ".zgroup": ZGROUP,
        "v/.zarray": zarray(4, 2, "<i4", "0", "null"), "v/.zattrs": zattrs("x"),
        "v/0": ["absent.bin", 0, 8],
    }});
    store.set(&StoreKey::parse("bad.json").unwrap(), &serde_json::to_vec(&refs).unwrap()).unwrap();
    let (rc, e) = read_fails(&format!("{prefix}/bad.json#mode=kerchunk,s3"));
    assert_eq!(rc, NC_EIO, "{e}");
    assert!(e.contains("key v/0") && e.contains("absent.bin"), "{e}");
    store.destroy().unwrap();
}
