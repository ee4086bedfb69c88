//! Target `zip`, structure-aware: a zip archive is built with the `zip`
//! crate from fuzzed entries (Zarr metadata, chunks, names outside the
//! root, directories, netCDF-C's top directory, stored or deflated), then
//! its bytes are mutated (bytes changed, truncated, garbage appended) and
//! it is given to the zip driver and opened as a dataset.
//!
//! Findings: a panic; an object read differently by two reads; an object
//! that was readable but is lost or changed when the archive is written
//! back with one more object; the checks of [`super::metadata`] on the
//! dataset.

use super::input::Input;
use ::zip::write::SimpleFileOptions;
use ::zip::{CompressionMethod, ZipWriter};
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, Store, StoreKey};
use std::collections::BTreeMap;
use std::io::Write;

const NAMES: &[&str] = &[
    ".zgroup",
    ".zattrs",
    ".zmetadata",
    "v/.zarray",
    "v/.zattrs",
    "v/0",
    "v/1",
    "g/.zgroup",
    "g/w/.zarray",
    "g/w/0.0",
    "../escape",
    "/abs",
    "docs/",
    "ds/",
    "ds/.zgroup",
    "ds/v/.zarray",
    "ds/v/0",
    "./v/0",
    "v",
];

const CONTENTS: &[&[u8]] = &[
    br#"{"zarr_format": 2}"#,
    br#"{"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
    br#"{"zarr_format": 2, "shape": [2, 2], "dtype": "<f8", "chunks": [1, 2], "fill_value": "NaN", "order": "C", "compressor": {"id": "zlib", "level": 1}, "filters": null}"#,
    br#"{"_ARRAY_DIMENSIONS": ["x"], "units": "m"}"#,
    br#"{"metadata": {".zgroup": {"zarr_format": 2}, "v/.zarray": {"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}}, "zarr_consolidated_format": 1}"#,
    &[1, 0, 0, 0, 2, 0, 0, 0],
];

/// The archive the input describes, before mutation.
pub fn build(inp: &mut Input) -> Vec<u8> {
    let mut zw = ZipWriter::new(std::io::Cursor::new(Vec::new()));
    for _ in 0..inp.below(12) {
        let name = if inp.below(5) == 0 {
            String::from_utf8_lossy(inp.bytes(16)).into_owned()
        } else {
            inp.pick(NAMES).to_string()
        };
        let method = if inp.bool() { CompressionMethod::Deflated } else { CompressionMethod::Stored };
        let options = SimpleFileOptions::default().compression_method(method);
        if name.ends_with('/') {
            let _ = zw.add_directory(name, options);
            continue;
        }
        let contents: Vec<u8> = if inp.bool() { inp.pick(CONTENTS).to_vec() } else { inp.bytes(64).to_vec() };
        // a duplicate name is refused by the writer: the entry is left out
        if zw.start_file(name, options).is_ok() {
            zw.write_all(&contents).expect("writes to memory succeed");
        }
    }
    zw.finish().map(|c| c.into_inner()).unwrap_or_default()
}

/// Changes to the built archive's bytes.
fn mutate(inp: &mut Input, archive: &mut Vec<u8>) {
    for _ in 0..inp.below(5) {
        let at = inp.u16() as usize;
        match inp.below(4) {
            _ if archive.is_empty() => break,
            0 => archive.truncate(at % archive.len()),
            1 => archive.extend_from_slice(inp.bytes(32)),
            _ => {
                let i = at % archive.len();
                archive[i] ^= inp.u8() | 1;
            }
        }
    }
}

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    let mut archive = build(&mut inp);
    mutate(&mut inp, &mut archive);
    let dir = super::scratch_dir();
    let path = dir.join(format!("{}.zip", super::unique("fuzz")));
    std::fs::write(&path, &archive).expect("the scratch directory is writable");
    let location = path.to_str().expect("a UTF-8 path").to_string();

    if let Ok(store) = Driver::Zip.open(&location, false) {
        let first = read_all(&*store);
        assert_eq!(first, read_all(&*store), "{location}: two reads of the archive differ");
    }
    rewrite_keeps_objects(&location);
    super::metadata::check_open_walk_rewrite(&format!("file://{location}#mode=nczarr,zip"));
    let _ = std::fs::remove_file(&path);
}

/// Every object of the store, by key: its bytes, or `None` when it cannot
/// be read (corrupt entry). Ranged reads and sizes are exercised on the way.
fn read_all(store: &dyn Store) -> BTreeMap<StoreKey, Option<Vec<u8>>> {
    let mut out = BTreeMap::new();
    let _ = store.list_dir(&StoreKey::root());
    let Ok(keys) = store.list_prefix(&StoreKey::root()) else { return out };
    for key in keys {
        let whole = store.get(&key).ok().flatten();
        if let Some(bytes) = &whole {
            assert_eq!(store.size(&key).ok().flatten(), Some(bytes.len() as u64), "{key}: size");
            if bytes.len() > 2 {
                let part = store.get_range(&key, 1, bytes.len() as u64 - 2).ok().flatten();
                assert_eq!(part.as_deref(), Some(&bytes[1..bytes.len() - 1]), "{key}: ranged read");
            }
        }
        out.insert(key, whole);
    }
    out
}

/// Opens the archive for writing, adds an object and writes the archive
/// back: every object readable before must read the same after.
fn rewrite_keeps_objects(location: &str) {
    let Ok(store) = Driver::Zip.open(location, true) else { return };
    let before = read_all(&*store);
    let new = StoreKey::parse("fuzz-added").expect("a valid key");
    if store.set(&new, b"added").is_err() || store.flush().is_err() {
        return;
    }
    drop(store);
    let store = Driver::Zip.open(location, false).expect("an archive this driver wrote opens");
    let after = read_all(&*store);
    for (key, bytes) in before {
        if let Some(bytes) = bytes {
            assert_eq!(after.get(&key), Some(&Some(bytes)), "{location}: {key} lost or changed by a rewrite");
        }
    }
    assert_eq!(after.get(&new), Some(&Some(b"added".to_vec())), "{location}: the added object");
}
