//! Regression tests for what fuzzing found (fuzz/, scripts/fuzz.sh). Each
//! test failed (panicked, or lost data) before its fix; the input that found
//! it is also in the target's committed corpus (`fuzz/seeds/`), replayed by
//! tests/fuzz_corpus.rs. docs/RELIABILITY.md ("Fuzzing") lists them.

#[allow(dead_code)]
#[path = "../fuzz/src/lib.rs"]
mod targets;

use nczarr_rs::codec::{Chain, Pipeline};
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, StoreKey};
use serde_json::json;

/// The runnable chain of `codecs` (as `.zarray` filters) for bytes.
fn chain(codecs: &[serde_json::Value]) -> std::sync::Arc<Chain> {
    Pipeline::from_zarr_v2(codecs, None, "|u1").chain().unwrap()
}

/// A memory store `name` holding `objects` (key, JSON text).
fn mem_store(name: &str, objects: &[(&str, &str)]) {
    let store = Driver::Memory.create(name, true).unwrap();
    for (k, v) in objects {
        store.set(&StoreKey::parse(k).unwrap(), v.as_bytes()).unwrap();
    }
}

/// `codec` target: a chunk of unknown size (a `|O` vlen chunk) decoded
/// with a size limit under 4096 bytes (`NCZARR_RS_MAX_CHUNK_BYTES=1000`)
/// panicked in `clamp` (min > max).
#[test]
fn unsized_decode_with_a_small_limit() {
    let chain = chain(&[json!({"id": "zlib", "level": 1})]);
    let plain = vec![7u8; 900];
    let enc = chain.encode(&plain).unwrap();
    assert_eq!(chain.decode_unsized(&enc, 1000).unwrap(), plain);
    assert!(chain.decode_unsized(&enc, 100).is_err());
}

/// `codec` target: Fletcher-32 announced its whole buffer (chunk plus
/// checksum) as the decoded size, so a chunk of exactly the size limit was
/// refused as too large.
#[test]
fn fletcher32_chunk_of_exactly_the_limit() {
    let chain = chain(&[json!({"id": "fletcher32"})]);
    let plain: Vec<u8> = (0..2407u32).map(|i| i as u8).collect();
    let enc = chain.encode(&plain).unwrap();
    assert_eq!(chain.decode_unsized(&enc, plain.len()).unwrap(), plain);
}

/// `metadata` target (netCDF-C 4.9.0 seed: a char variable with a bare
/// `NaN` fill value) and `attrs` target: a char or string value starting
/// with U+0001 was written back as a bare JSON token (`"fill_value": ,`),
/// and the dataset no longer opened after `nc_close`.
#[test]
fn values_starting_with_u0001_keep_the_dataset_readable() {
    let url = "mem://fuzz-finding-u0001#mode=nczarr";
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 2).unwrap() as i32;
    let c = ds.def_var(0, "c", NC_CHAR, &[x]).unwrap() as i32;
    ds.def_var_fill(0, c, false, Some(Values::Char(vec![1]))).unwrap();
    ds.put_att(0, NC_GLOBAL, "text", Values::Char(b"\x01abc".to_vec())).unwrap();
    ds.put_att(0, NC_GLOBAL, "strings", Values::String(vec!["\u{1}x".into(), "\u{1}".into()])).unwrap();
    ds.put_att(0, c, "one", Values::Char(vec![1])).unwrap();
    // exactly the text of a bare token's marker (`attrs` target)
    ds.put_att(0, c, "nan", Values::Char(b"\x01NaN".to_vec())).unwrap();
    ds.put_att(0, c, "inf", Values::String(vec!["\u{1}-Infinity".into()])).unwrap();
    ds.close().unwrap();

    let ds = file::open(url, NC_NOWRITE).expect("the dataset opens after close");
    assert_eq!(ds.inq_var_fill(0, 0).unwrap().1, Values::Char(vec![1]));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "text").unwrap(), Values::Char(b"\x01abc".to_vec()));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "strings").unwrap(), Values::String(vec!["\u{1}x".into(), "\u{1}".into()]));
    assert_eq!(ds.get_att(0, 0, "one").unwrap(), Values::Char(vec![1]));
    assert_eq!(ds.get_att(0, 0, "nan").unwrap(), Values::Char(b"\x01NaN".to_vec()));
    assert_eq!(ds.get_att(0, 0, "inf").unwrap(), Values::String(vec!["\u{1}-Infinity".into()]));
    // and bare tokens are still numbers
    let j = nczarr_rs::engine::json::parse(b"[NaN, -Infinity]").unwrap();
    let v = nczarr_rs::engine::json::json_to_values(&j, None).unwrap();
    assert!(matches!(v, Values::Double(d) if d[0].is_nan() && d[1] == f64::NEG_INFINITY));
    assert_eq!(nczarr_rs::engine::json::to_text(&j), "[NaN,-Infinity]");
}

/// The same through a store netCDF-C 4.9.0 wrote: a char variable whose
/// `.zarray` has a bare `NaN` fill value survives a rewrite.
#[test]
fn netcdf_c_4_9_0_char_with_nan_fill_survives_a_rewrite() {
    let name = "fuzz-finding-490";
    mem_store(
        name,
        &[
            (
                ".zgroup",
                r#"{"zarr_format": 2, "_NCZARR_SUPERBLOCK": {"version": "2.0.0"}, "_NCZARR_GROUP": {"dims": {"x": 2}, "vars": ["v"], "groups": []}}"#,
            ),
            (
                "v/.zarray",
                r#"{"zarr_format": 2, "shape": [2], "dtype": "<U1", "chunks": [2], "fill_value": NaN, "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": ["/x"], "storage": "chunked"}}"#,
            ),
        ],
    );
    let url = format!("mem://{name}#mode=nczarr");
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    let fill = ds.inq_var_fill(0, 0).unwrap().1;
    ds.close().unwrap();
    let ds = file::open(&url, NC_NOWRITE).expect("the rewritten dataset opens");
    assert_eq!(ds.inq_var_fill(0, 0).unwrap().1, fill);
}

/// Incompressible bytes.
fn noise(n: usize) -> Vec<u8> {
    targets::seeds::pseudo_random(n, 1)
}

/// `codec` target: a compressor under another one (`filters: [zlib]`,
/// `compressor: zlib` or `zstd`) was decoded with the chunk's size as the
/// size of the intermediate stage, which the inner compressor makes larger
/// (incompressible data) or smaller: the data did not read back.
#[test]
fn stacked_compressors_decode() {
    let plain = noise(5000);
    for codecs in [
        vec![json!({"id": "zlib", "level": 0}), json!({"id": "zlib"})],
        vec![json!({"id": "zlib"}), json!({"id": "zstd", "level": 1})],
        vec![json!({"id": "zlib"}), json!({"id": "zlib", "level": "0"}), json!({"id": "zlib"})],
        vec![json!({"id": "bz2"}), json!({"id": "lz4"}), json!({"id": "fletcher32"})],
    ] {
        let c = chain(&codecs);
        let enc = c.encode(&plain).unwrap();
        assert_eq!(c.decode(&enc, plain.len()).unwrap(), plain, "{codecs:?}");
        assert_eq!(c.decode_unsized(&enc, plain.len()).unwrap(), plain, "{codecs:?} unsized");
    }
}

/// The same through the netCDF API: `nc_def_var_deflate` then
/// `nc_def_var_zstandard` on one variable gave a variable whose data could
/// not be read back (`NC_EFILTER`).
#[test]
fn deflate_then_zstandard_reads_back() {
    let url = "mem://fuzz-finding-stacked#mode=nczarr";
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 4096).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_UBYTE, &[x]).unwrap() as i32;
    ds.def_var_deflate(0, v, false, true, 1).unwrap();
    ds.def_var_codec_filter(0, v, H5Z_FILTER_ZSTD, &[3]).unwrap();
    ds.enddef().unwrap();
    let data = noise(4096);
    ds.write_all(0, v, &Ok(Values::UByte(data.clone()))).unwrap();
    ds.close().unwrap();
    let ds = file::open(url, NC_NOWRITE).unwrap();
    assert_eq!(ds.read_all(0, v).unwrap().unwrap(), Values::UByte(data));
}

/// `metadata` target: a pure Zarr variable in a subgroup without dimension
/// names gets an anonymous dimension in the root; written back, its
/// `_ARRAY_DIMENSIONS` names it, and read again that name is declared in
/// the subgroup, as netCDF-C reads it (its ref_newformatpure). The fuzz
/// target compares anonymous dimensions wherever declared; this pins that
/// the name, length and values survive the rewrite.
#[test]
fn anonymous_dimensions_keep_name_length_and_values_across_a_rewrite() {
    let name = "fuzz-finding-anonymous";
    mem_store(
        name,
        &[
            (".zgroup", r#"{"zarr_format": 2}"#),
            ("g/.zgroup", r#"{"zarr_format": 2}"#),
            (
                "g/s/.zarray",
                r#"{"zarr_format": 2, "shape": [3], "dtype": "<i4", "chunks": [3], "fill_value": 7, "order": "C", "compressor": null, "filters": null}"#,
            ),
        ],
    );
    let url = format!("mem://{name}#mode=zarr");
    let outline = |ds: &nczarr_rs::engine::model::Dataset| -> Vec<(String, u64, usize)> {
        ds.dims().iter().map(|d| (d.name.clone(), d.len, d.group)).collect()
    };
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    assert_eq!(outline(&ds), [("_Anonymous_Dim_3".to_string(), 3, 0)]);
    ds.rewrite_metadata();
    ds.close().unwrap();
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(outline(&ds), [("_Anonymous_Dim_3".to_string(), 3, 1)], "declared in the subgroup, as netCDF-C");
    assert_eq!(ds.read_all(1, 0).unwrap().unwrap(), Values::Int(vec![7, 7, 7]));
}

/// `zip` target: an archive with an object `v` and an entry `v/.zattrs`
/// that the tree rule refuses (kept verbatim). Written back, the refused
/// entry came first and took `v`'s place: `v` could no longer be read.
#[test]
fn zip_rewrite_keeps_which_entry_is_the_object() {
    use std::io::Write;
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("a.zip");
    let mut zw = zip::ZipWriter::new(std::fs::File::create(&path).unwrap());
    for (name, data) in [("v", &b"object"[..]), ("v/.zattrs", b"{}"), (".zgroup", b"{\"zarr_format\": 2}")] {
        zw.start_file(name, zip::write::SimpleFileOptions::default()).unwrap();
        zw.write_all(data).unwrap();
    }
    zw.finish().unwrap();
    let location = path.to_str().unwrap();
    let v = StoreKey::parse("v").unwrap();
    let store = Driver::Zip.open(location, true).unwrap();
    assert_eq!(store.get(&v).unwrap().unwrap(), b"object");
    store.set(&StoreKey::parse("added").unwrap(), b"x").unwrap();
    store.flush().unwrap();
    drop(store);
    for _ in 0..2 {
        let store = Driver::Zip.open(location, true).unwrap();
        assert_eq!(store.get(&v).unwrap().as_deref(), Some(&b"object"[..]));
        assert_eq!(store.list_prefix(&StoreKey::root()).unwrap().len(), 3, "v, .zgroup, added");
        store.set(&StoreKey::parse("added").unwrap(), b"y").unwrap();
        store.flush().unwrap();
    }
    let archive = zip::ZipArchive::new(std::fs::File::open(&path).unwrap()).unwrap();
    assert!(archive.index_for_name("v/.zattrs").is_some(), "the refused entry is kept");
}

/// `metadata` target: a pure Zarr char variable as netCDF-C 4.9.0 writes it
/// (`<U1`) was written back as `|S1` at close, which reads as a string:
/// opening for writing and closing changed the variable's type.
#[test]
fn pure_zarr_u1_char_keeps_its_type_across_a_rewrite() {
    let name = "fuzz-finding-u1";
    mem_store(
        name,
        &[
            (".zgroup", r#"{"zarr_format": 2}"#),
            (
                "v/.zarray",
                r#"{"zarr_format": 2, "shape": [2], "dtype": "<U1", "chunks": [2], "fill_value": "", "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("v/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#),
            ("v/0", "ab"),
        ],
    );
    let url = format!("mem://{name}#mode=zarr");
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    assert_eq!(ds.var(0, 0).unwrap().nctype, NC_CHAR);
    ds.close().unwrap();
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    assert_eq!(ds.var(0, 0).unwrap().nctype, NC_CHAR, "still char after the rewrite");
    assert_eq!(ds.read_all(0, 0).unwrap().unwrap(), Values::Char(b"ab".to_vec()));
}

/// `url` target: `https://.s3.amazonaws.com/` parsed as a location whose
/// bucket is "" (and `a..s3` as bucket `a.`).
#[test]
fn s3_locations_with_empty_bucket_labels_are_refused() {
    use nczarr_rs::map::s3::parse_location;
    for bad in
        ["https://.s3.amazonaws.com/?,s6", "https://a..s3.amazonaws.com/k", "https://.b.s3.us-east-1.amazonaws.com/"]
    {
        assert!(parse_location(bad).is_err(), "{bad}");
    }
    assert_eq!(parse_location("https://my.bucket.s3.amazonaws.com/k").unwrap().bucket, "my.bucket");
}

/// `codec` target: an empty chunk through numcodecs' LZMA in the `.lzma`
/// format (`"format": 2`) did not decode: liblzma's decoder of that format
/// makes no progress without room for output, and the output had none.
#[test]
fn lzma_alone_format_empty_chunk() {
    for codecs in
        [vec![json!({"id": "lzma", "format": 2})], vec![json!({"id": "lzma", "format": 2}), json!({"id": "zlib"})]]
    {
        let c = chain(&codecs);
        for plain in [&b""[..], b"x", &[9u8; 300][..]] {
            let enc = c.encode(plain).unwrap();
            assert_eq!(c.decode(&enc, plain.len()).unwrap(), plain, "{codecs:?}");
        }
        // a stream longer than the chunk is still refused
        let enc = c.encode(b"abc").unwrap();
        assert!(c.decode(&enc, 2).is_err());
    }
}

/// `zarr3` target: a float fill value that is a NaN with a payload
/// (`"0xffffffffffffffff"`) was written back as `"NaN"` when the dataset
/// was rewritten, so the values of a chunk left out as all-fill read back
/// as the canonical NaN, not the bits written. Non-canonical NaNs are now
/// written in the hex form.
#[test]
fn a_nan_fill_value_keeps_its_bits_across_a_rewrite() {
    mem_store(
        "finding-nan-fill",
        &[
            ("zarr.json", r#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#),
            (
                "v/zarr.json",
                r#"{"zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "float64",
                   "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}},
                   "chunk_key_encoding": {"name": "default"}, "fill_value": "0xffffffffffffffff",
                   "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}],
                   "dimension_names": ["x"], "attributes": {}}"#,
            ),
        ],
    );
    let url = "mem://finding-nan-fill#mode=zarr,v3";
    let bits = |ds: &nczarr_rs::engine::model::Dataset| {
        let slab = ds.slab(0, 0, None, None, None, None, false).unwrap();
        let mut buf = vec![0u8; 32];
        ds.get_slab(0, 0, &slab, nczarr_rs::engine::data::MemOut::Bytes { memtype: NC_DOUBLE, buf: &mut buf }).unwrap();
        buf.chunks(8).map(|b| u64::from_le_bytes(b.try_into().unwrap())).collect::<Vec<_>>()
    };
    let ds = file::open(url, NC_NOWRITE).unwrap();
    assert_eq!(bits(&ds), vec![u64::MAX; 4]);
    drop(ds);
    // a rewrite: a value written, the metadata written back
    let mut ds = file::open(url, NC_WRITE).unwrap();
    let slab = ds.slab(0, 0, Some(&[0]), Some(&[1]), None, None, true).unwrap();
    let one = Values::Double(vec![1.0]).to_ne_bytes();
    ds.put_slab(0, 0, &slab, nczarr_rs::engine::data::MemIn::Bytes { memtype: NC_DOUBLE, buf: &one }).unwrap();
    ds.close().unwrap();
    let ds = file::open(url, NC_NOWRITE).unwrap();
    assert_eq!(bits(&ds), vec![1f64.to_bits(), u64::MAX, u64::MAX, u64::MAX]);
}
