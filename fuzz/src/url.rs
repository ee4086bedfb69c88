//! Target `url`: dataset paths and URLs with their `#mode=...` fragments
//! (`engine::url`), S3 locations (`map::s3::parse_location`), store keys
//! (`map::StoreKey`) and Zarr dtypes (`engine::meta::parse_dtype`), all
//! parsers of caller or store text. The input is the text (lossy UTF-8).
//!
//! Findings: a panic; a parse result that breaks its own rules (a key that
//! escapes its dataset or does not parse back to itself, a mode list with
//! duplicates or without `nczarr`, an S3 location without a bucket, a
//! dtype that is not written back as the same type).

use nczarr_rs::engine::consts::NC_CHAR;
use nczarr_rs::engine::format::zarr2::dtype::{format_dtype, parse_dtype};
use nczarr_rs::engine::url;
use nczarr_rs::map::s3::parse_location;
use nczarr_rs::map::StoreKey;

pub fn run(data: &[u8]) {
    super::init();
    let text = String::from_utf8_lossy(data);
    let s = text.as_ref();

    if let Ok(u) = url::parse(s) {
        assert!(u.modes.iter().any(|m| m == "nczarr"), "{s:?}: modes {:?} lack nczarr", u.modes);
        let mut sorted = u.modes.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted.len(), u.modes.len(), "{s:?}: duplicate modes {:?}", u.modes);
        assert!(!u.pure_zarr || u.modes.iter().any(|m| m == "zarr"), "{s:?}");
        if u.storage == url::Storage::Memory {
            assert!(!u.location.contains('#'), "{s:?}: memory location {:?} keeps its fragment", u.location);
        }
    }
    let _ = url::zarr_url(s);

    if let Ok(loc) = parse_location(s) {
        assert!(!loc.bucket.is_empty(), "{s:?}: no bucket");
        assert!(!loc.bucket.contains('/'), "{s:?}: bucket {:?}", loc.bucket);
        assert!(!loc.prefix.starts_with('/') && !loc.prefix.ends_with('/'), "{s:?}: prefix {:?}", loc.prefix);
    }

    if let Ok(k) = StoreKey::parse(s) {
        let again = StoreKey::parse(k.as_str()).unwrap_or_else(|e| panic!("{s:?}: canonical {k} does not parse: {e}"));
        assert_eq!(again, k, "{s:?}");
        if !k.is_root() {
            for seg in k.segments() {
                assert!(!seg.is_empty() && seg != "." && seg != "..", "{s:?}: segment {seg:?}");
                assert!(!seg.chars().any(char::is_control), "{s:?}: segment {seg:?}");
            }
        }
    }

    for pure_zarr in [false, true] {
        if let Ok(d) = parse_dtype(s, pure_zarr) {
            if d.json {
                continue;
            }
            let written = format_dtype(d.nctype, d.endian, d.strlen.unwrap_or(1), pure_zarr);
            let back = parse_dtype(&written, pure_zarr)
                .unwrap_or_else(|e| panic!("{s:?}: written back as {written:?}, which does not parse: {e}"));
            // pure Zarr writes char as `|S1`, which reads as a string: on
            // purpose (meta.rs), the type comes back from `_nczarr_attr`
            if !(pure_zarr && d.nctype == NC_CHAR) {
                assert_eq!(back.nctype, d.nctype, "{s:?} -> {written:?}");
            }
        }
    }
}
