//! Target `metadata`: a store made of fuzzed `.zgroup`/`.zarray`/`.zattrs`/
//! `.zmetadata` (and NCZarr v1) objects, opened, walked, written back and
//! opened again.
//!
//! Input (text, so that corpora are readable and libFuzzer's mutations of
//! JSON stay meaningful):
//!
//! ```text
//! mode=nczarr,consolidated        <- first line: mode words for the URL
//! @@ .zgroup                      <- an object: "@@ <key>", then its bytes
//! {"zarr_format": 2}
//! @@ v/.zarray
//! {...}
//! ```
//!
//! Findings: a panic anywhere; a dataset that opens for writing and closes
//! without error but then no longer opens, or opens with other groups,
//! dimensions, variables or attributes (data loss by a rewrite).

use super::walk::walk;
use nczarr_rs::engine::consts::{NC_NOWRITE, NC_WRITE};
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, StoreKey};

/// The mode words a fuzzed URL may carry (not the storage ones: the store
/// is in memory).
const MODES: &[&str] = &["nczarr", "zarr", "xarray", "noxarray", "consolidated", "oldkeys"];

/// The mode words of the first line, and the objects.
/// One object of an input: key and bytes.
pub type Object<'a> = (&'a [u8], &'a [u8]);

pub fn parse(data: &[u8]) -> (Vec<&'static str>, Vec<Object<'_>>) {
    let mut sections = split(data, b"\n@@ ");
    let header = sections.remove(0);
    let header = String::from_utf8_lossy(header);
    let modes = MODES.iter().copied().filter(|m| header.split([',', '=', ' ', '&']).any(|w| w == *m)).collect();
    let objects = sections
        .into_iter()
        .map(|s| match s.iter().position(|&b| b == b'\n') {
            Some(i) => (&s[..i], &s[i + 1..]),
            None => (s, &s[s.len()..]),
        })
        .collect();
    (modes, objects)
}

fn split<'a>(data: &'a [u8], sep: &[u8]) -> Vec<&'a [u8]> {
    let mut out = Vec::new();
    let mut rest = data;
    while let Some(i) = rest.windows(sep.len()).position(|w| w == sep) {
        out.push(&rest[..i]);
        rest = &rest[i + sep.len()..];
    }
    out.push(rest);
    out
}

/// The inverse of [`parse`] (seed corpora are written with it).
pub fn format(modes: &str, objects: &[(&str, Vec<u8>)]) -> Vec<u8> {
    let mut out = modes.as_bytes().to_vec();
    for (key, bytes) in objects {
        out.extend_from_slice(b"\n@@ ");
        out.extend_from_slice(key.as_bytes());
        out.push(b'\n');
        out.extend_from_slice(bytes);
    }
    out
}

pub fn run(data: &[u8]) {
    super::init();
    check_text_store(data, "fuzz-metadata", None);
}

/// The store of a text input (see the top of this file), opened with its
/// mode words, else `default_modes`, then [`check_open_walk_rewrite`].
pub fn check_text_store(data: &[u8], prefix: &str, default_modes: Option<&str>) {
    let (modes, objects) = parse(data);
    let name = super::unique(prefix);
    let store = Driver::Memory.create(&name, true).expect("a memory store can be made");
    for (key, bytes) in &objects {
        let Ok(key) = std::str::from_utf8(key) else { continue };
        let Ok(key) = StoreKey::parse(key) else { continue };
        // the tree rule may refuse an object: the store then lacks it
        let _ = store.set(&key, bytes);
    }
    let url = match (modes.is_empty(), default_modes) {
        (false, _) => format!("mem://{name}#mode={}", modes.join(",")),
        (true, Some(m)) => format!("mem://{name}#mode={m}"),
        (true, None) => format!("mem://{name}"),
    };
    check_open_walk_rewrite(&url);
    let _ = store.destroy();
}

/// Opens `url` read-only and walks it; opens it for writing, walks it and
/// closes it, asking for the metadata to be written back; then, if that close
/// succeeded, the dataset must open again and look the same.
pub fn check_open_walk_rewrite(url: &str) {
    if let Ok(ds) = file::open(url, NC_NOWRITE) {
        walk(&ds);
    }
    let Ok(mut ds) = file::open(url, NC_WRITE) else { return };
    let before = walk(&ds);
    // a writer that defines nothing writes no metadata: this one rewrites
    // every object that the store does not hold as this library writes it
    ds.rewrite_metadata();
    // A `.zmetadata` may hide objects that are not consolidated (read when
    // the root has no `.zgroup`); once the rewrite adds one, the objects
    // themselves are read, garbage included: the dataset may then differ,
    // or be refused with an error. Not compared.
    let consolidated = ds.is_consolidated();
    if ds.close().is_err() {
        return;
    }
    drop(ds);
    let again = match file::open(url, NC_NOWRITE) {
        Ok(ds) => ds,
        Err(_) if consolidated => return,
        Err(e) => panic!("{url}: opened, closed without error, then cannot be opened: {e}"),
    };
    if consolidated {
        walk(&again);
        return;
    }
    let (mut before, mut after) = (before, walk(&again));
    anonymous_dims_anywhere(&mut before);
    anonymous_dims_anywhere(&mut after);
    assert_eq!(before, after, "{url}: the rewrite at close changed the dataset");
}

/// Takes netCDF-C's anonymous dimensions out of their groups into one list
/// of the root: a subgroup variable's anonymous dimension is declared in
/// the root when the store names none, and, written back with its name
/// `_Anonymous_Dim_<n>`, in the subgroup (as netCDF-C reads such a name).
/// Same name and length, so no loss; the group that declares it may move.
fn anonymous_dims_anywhere(o: &mut super::walk::Outline) {
    let mut anon = Vec::new();
    for g in &mut o.groups {
        g.dims.retain(|d| {
            let keep = !d.0.starts_with("_Anonymous_Dim_");
            if !keep {
                anon.push(d.clone());
            }
            keep
        });
    }
    anon.sort();
    anon.dedup();
    if let Some(root) = o.groups.first_mut() {
        root.dims.extend(anon);
    }
}
