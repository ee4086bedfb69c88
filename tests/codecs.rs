//! The codecs beyond netCDF-C's, against numcodecs itself: known answers
//! written by numcodecs 0.16 / numpy 2 (tests/interop/codec_vectors.py ->
//! tests/data/numcodecs_vectors.jsonl), round trips, corrupt input, the
//! dtype flowing through array -> array codecs, and variables using them
//! through the engine.

use nczarr_rs::codec::{CodecError, Pipeline};
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::types::Values;
use serde_json::{json, Value};

fn hex(s: &str) -> Vec<u8> {
    (0..s.len()).step_by(2).map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap()).collect()
}

struct Vector {
    name: String,
    config: Value,
    dtype: String,
    raw: Vec<u8>,
    enc: Vec<u8>,
    dec: Vec<u8>,
}

fn vectors() -> Vec<Vector> {
    include_str!("data/numcodecs_vectors.jsonl")
        .lines()
        .map(|l| {
            let v: Vec<String> = serde_json::from_str(l).unwrap();
            Vector {
                name: v[0].clone(),
                config: serde_json::from_str(&v[1]).unwrap(),
                dtype: v[2].clone(),
                raw: hex(&v[3]),
                enc: hex(&v[4]),
                dec: hex(&v[5]),
            }
        })
        .collect()
}

/// numcodecs' stored bytes decode to what numcodecs decodes; we encode
/// what numcodecs encodes (liblzma's output is checked by decoding it:
/// another liblzma version may choose other matches); our encoding round
/// trips to numcodecs' decoding of its own.
#[test]
fn numcodecs_known_answers() {
    let vs = vectors();
    assert!(vs.len() >= 20);
    let mut seen = std::collections::BTreeSet::new();
    for v in &vs {
        let p = Pipeline::from_zarr_v2(std::slice::from_ref(&v.config), None, &v.dtype);
        let chain = p.chain().unwrap_or_else(|e| panic!("{}: {e}", v.name));
        assert_eq!(chain.decode(&v.enc, v.dec.len()).unwrap(), v.dec, "{}: decode", v.name);
        let ours = chain.encode(&v.raw).unwrap();
        if !v.name.starts_with("lzma") {
            assert_eq!(ours, v.enc, "{}: encode", v.name);
        }
        assert_eq!(chain.decode(&ours, v.dec.len()).unwrap(), v.dec, "{}: round trip", v.name);
        // the JSON is kept as given
        assert_eq!(p.configs().next(), Some(&v.config));
        seen.insert(v.config["id"].as_str().unwrap().to_string());
    }
    for id in [
        "delta",
        "fixedscaleoffset",
        "quantize",
        "bitround",
        "packbits",
        "astype",
        "categorize",
        "crc32",
        "adler32",
        "lzma",
    ] {
        assert!(seen.contains(id), "no known answer for {id}");
    }
}

/// Each new codec round trips a chunk alone and before a compressor, and
/// refuses corrupt input (never panics on it).
#[test]
fn round_trips_and_corrupt_input() {
    let f8: Vec<u8> = (0..500).flat_map(|i| (f64::from(i) * 0.37 - 20.0).to_le_bytes()).collect();
    let i4: Vec<u8> = (0..500i32).flat_map(|i| (i * 3 - 700).to_le_bytes()).collect();
    let cases: Vec<(Value, &str, &[u8])> = vec![
        (json!({"id": "lzma"}), "<f8", &f8),
        (json!({"id": "lzma", "format": 2, "preset": 0}), "<f8", &f8),
        (json!({"id": "lzma", "format": 1, "check": 10, "preset": 3}), "<i4", &i4),
        (json!({"id": "lzma", "format": 3, "filters": [{"id": 33, "preset": 1, "dict_size": 65536}]}), "<i4", &i4),
        (
            json!({"id": "lzma", "filters": [{"id": 4}, {"id": 33, "lc": 0, "lp": 2, "pb": 2, "mode": 1, "mf": 4}]}),
            "<i4",
            &i4,
        ),
        (json!({"id": "crc32"}), "<f8", &f8),
        (json!({"id": "adler32", "location": "end"}), "<f8", &f8),
        (json!({"id": "delta", "dtype": "<i4"}), "<i4", &i4),
        (json!({"id": "astype", "encode_dtype": "<i8", "decode_dtype": "<i4"}), "<i4", &i4),
        (json!({"id": "fixedscaleoffset", "offset": 0, "scale": 1, "dtype": "<i4", "astype": "<i2"}), "<i4", &i4),
        (json!({"id": "quantize", "digits": 20, "dtype": "<f8"}), "<f8", &f8),
        (json!({"id": "bitround", "keepbits": 52}), "<f8", &f8),
    ];
    for (cfg, dtype, data) in cases {
        for with in [None, Some(json!({"id": "zlib", "level": 9}))] {
            let p = Pipeline::from_zarr_v2(std::slice::from_ref(&cfg), with.as_ref(), dtype);
            let chain = p.chain().unwrap_or_else(|e| panic!("{cfg}: {e}"));
            let enc = chain.encode(data).unwrap();
            assert_eq!(chain.decode(&enc, data.len()).unwrap(), data, "{cfg} then {with:?}");
            // truncated, bit-flipped or garbage data: an error or other bytes, no panic
            for bad in [&enc[..enc.len() / 2], &enc[..enc.len().saturating_sub(1)], b"\x00\x01\x02".as_slice()] {
                if let Ok(out) = chain.decode(bad, data.len()) {
                    assert_ne!(out, data, "{cfg}: corrupt input decoded to the data");
                }
            }
            let mut flipped = enc.clone();
            let mid = flipped.len() / 2;
            flipped[mid] ^= 0x40;
            let array_filter =
                ["delta", "astype", "fixedscaleoffset", "quantize", "bitround"].contains(&cfg["id"].as_str().unwrap());
            if !array_filter && with.is_none() {
                // compressors and checksums notice; plain array filters cannot
                assert!(chain.decode(&flipped, data.len()).is_err(), "{cfg}: a flipped bit was not noticed");
            }
        }
    }
    // the checksums catch every flipped bit in the data or the sum
    for id in ["crc32", "adler32"] {
        let chain = Pipeline::from_zarr_v2(&[json!({"id": id})], None, "|u1").chain().unwrap();
        let enc = chain.encode(b"some chunk").unwrap();
        assert_eq!(enc.len(), 14);
        for bit in 0..enc.len() * 8 {
            let mut bad = enc.clone();
            bad[bit / 8] ^= 1 << (bit % 8);
            assert!(matches!(chain.decode(&bad, 10), Err(CodecError::Corrupt(_))), "{id} bit {bit}");
        }
        assert!(chain.decode(&enc[..3], 10).is_err());
    }
    // packbits: a bad padding count; lzma: more output than the chunk
    let pb = Pipeline::from_zarr_v2(&[json!({"id": "packbits"})], None, "|b1").chain().unwrap();
    assert!(pb.decode(&[9, 0xff], 0).is_err());
    assert!(pb.decode(&[3, 0xff], 4).is_err());
    assert_eq!(pb.decode(&[3, 0xa0], 5).unwrap(), [1, 0, 1, 0, 0]);
    let lz = Pipeline::from_zarr_v2(&[json!({"id": "lzma"})], None, "<f8").chain().unwrap();
    let enc = lz.encode(&f8).unwrap();
    assert!(lz.decode(&enc, f8.len() - 8).is_err());
}

#[test]
fn bad_and_unavailable_configs() {
    let unknown = |cfg: Value, dtype: &str| {
        let e = Pipeline::from_zarr_v2(std::slice::from_ref(&cfg), None, dtype).chain().unwrap_err();
        assert!(matches!(e, CodecError::Unknown(_)), "{cfg}: {e}");
    };
    unknown(json!({"id": "categorize", "labels": ["a"], "dtype": "|O"}), "|O");
    unknown(json!({"id": "delta", "dtype": "|b1"}), "|b1");
    unknown(json!({"id": "zfpy", "mode": 4}), "<f8");
    let bad = |cfg: Value| {
        let e = Pipeline::from_zarr_v2(std::slice::from_ref(&cfg), None, "<f8").chain().unwrap_err();
        assert!(matches!(e, CodecError::BadConfig(..)), "{cfg}: {e}");
    };
    bad(json!({"id": "lzma", "format": 3}));
    bad(json!({"id": "lzma", "format": 2, "check": 1}));
    bad(json!({"id": "lzma", "format": 7}));
    bad(json!({"id": "lzma", "filters": [{"id": 99}]}));
    bad(json!({"id": "lzma", "filters": [{"id": 3, "dist": 0}]}));
    bad(json!({"id": "crc32", "location": "middle"}));
    bad(json!({"id": "quantize", "digits": 2, "dtype": "<i4"}));
    bad(json!({"id": "fixedscaleoffset", "scale": 10, "dtype": "<f8"}));
    bad(json!({"id": "delta", "dtype": "<f7"}));
    bad(json!({"id": "bitround"}));
    bad(json!({"id": "categorize", "labels": [1], "dtype": "<U1"}));
    bad(json!({"id": "astype", "encode_dtype": "<f4"}));
    // bitround encodes floats only; it still decodes anything (identity)
    let br = Pipeline::from_zarr_v2(&[json!({"id": "bitround", "keepbits": 3})], None, "<i4").chain().unwrap();
    assert!(br.encode(&[0; 8]).is_err());
    assert_eq!(br.decode(&[1; 8], 8).unwrap(), [1; 8]);
    // a Python integer outside the integer array's type: numpy 2's OverflowError
    let fso = json!({"id": "fixedscaleoffset", "offset": 100000, "scale": 1, "dtype": "<i2"});
    assert!(Pipeline::from_zarr_v2(&[fso], None, "<i2").chain().unwrap().encode(&[0; 4]).is_err());
}

/// The dtype flows through array -> array codecs: a compressor after
/// `fixedscaleoffset` to `|u1` sees one-byte elements (Blosc's header
/// records them), and the chunk's sizes follow each stage.
#[test]
fn dtype_flows_between_stages() {
    let fso = json!({"id": "fixedscaleoffset", "offset": 0, "scale": 10, "dtype": "<f8", "astype": "|u1"});
    let blosc = json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0});
    let p = Pipeline::from_zarr_v2(std::slice::from_ref(&fso), Some(&blosc), "<f8");
    let data: Vec<u8> = (0..256).flat_map(|i| (f64::from(i % 25) / 10.0).to_le_bytes()).collect();
    let chain = p.chain().unwrap();
    let enc = chain.encode(&data).unwrap();
    assert_eq!(enc[3], 1, "Blosc typesize: the u1 elements fixedscaleoffset made");
    assert_eq!(u32::from_le_bytes(enc[4..8].try_into().unwrap()), 256, "Blosc holds 256 one-byte elements");
    assert_eq!(chain.decode(&enc, data.len()).unwrap(), data);
    // unsized decoding (each stage announces its size) gives the same
    assert_eq!(chain.decode_unsized(&enc, 1 << 20).unwrap(), data);
    // shuffle with elementsize 0 after astype works on the stored elements
    let astype = json!({"id": "astype", "encode_dtype": "<i2", "decode_dtype": "<f8"});
    let p = Pipeline::from_zarr_v2(&[astype, json!({"id": "shuffle", "elementsize": 0})], None, "<f8");
    let data: Vec<u8> = [1.0f64, 258.0, -3.0].iter().flat_map(|x| x.to_le_bytes()).collect();
    let enc = p.chain().unwrap().encode(&data).unwrap();
    assert_eq!(enc, [1, 2, 0xfd, 0, 1, 0xff], "i2 [1, 258, -3] shuffled by 2-byte elements");
    // the filter view and .zarray JSON are untouched by resolution
    assert_eq!(p.to_zarr_v2().1.as_array().unwrap().len(), 2);
    assert!(p.hdf5_filters() == vec![(2, vec![])]);
}

fn put_all(ds: &mut Dataset, v: i32, vals: &Values, n: u64) {
    let slab = ds.slab(0, v, Some(&[0]), Some(&[n]), None, None, true).unwrap();
    let bytes = vals.to_ne_bytes();
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: vals.nc_type(), buf: &bytes }).unwrap();
}

fn get(ds: &Dataset, v: i32, t: NcType, start: u64, n: u64) -> Result<Vec<u8>, i32> {
    let slab = ds.slab(0, v, Some(&[start]), Some(&[n]), None, None, false).unwrap();
    let mut buf = vec![0u8; slab.mem_elems() * nczarr_rs::engine::convert::elem_size(t)];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: t, buf: &mut buf }).map_err(|e| e.code())?;
    Ok(buf)
}

/// Variables with the new codecs, defined through the engine (their
/// numcodecs JSON), written, closed, reopened and read, element by element
/// too; the .zarray keeps the JSON as given.
#[test]
fn variables_with_new_codecs() {
    let dir = tempfile::tempdir().unwrap();
    let url = format!("file://{}/c.zarr#mode=zarr,file", dir.path().display());
    let n = 100u64;
    let ints = Values::Int((0..n as i32).map(|i| i * i - 50).collect());
    let doubles = Values::Double((0..n).map(|i| i as f64 * 0.1 + 1000.0).collect());
    let defs: Vec<(&str, NcType, Vec<Value>)> = vec![
        ("lzma", NC_INT, vec![json!({"id": "lzma", "format": 1, "check": -1, "preset": null, "filters": null})]),
        ("crc32", NC_INT, vec![json!({"id": "crc32"}), json!({"id": "zstd", "level": 3})]),
        ("adler32", NC_DOUBLE, vec![json!({"id": "adler32", "location": "end"})]),
        (
            "delta",
            NC_INT,
            vec![json!({"id": "delta", "dtype": "<i4", "astype": "<i4"}), json!({"id": "zlib", "level": 1})],
        ),
        (
            "fso",
            NC_DOUBLE,
            vec![
                json!({"id": "fixedscaleoffset", "scale": 10, "offset": 1000, "dtype": "<f8", "astype": "<u2"}),
                json!({"id": "lzma", "preset": 1}),
            ],
        ),
    ];
    {
        let mut ds = file::create(&url, NC_CLOBBER).unwrap();
        let x = ds.def_dim(0, "x", n).unwrap() as i32;
        for (name, t, codecs) in &defs {
            let v = ds.def_var(0, name, *t, &[x]).unwrap() as i32;
            ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[30])).unwrap();
            for c in codecs {
                ds.def_var_codec(0, v, c.clone(), true).unwrap();
            }
            put_all(&mut ds, v, if *t == NC_INT { &ints } else { &doubles }, n);
        }
        ds.close().unwrap();
    }
    for (name, _, codecs) in &defs {
        let z: Value =
            serde_json::from_slice(&std::fs::read(dir.path().join(format!("c.zarr/{name}/.zarray"))).unwrap()).unwrap();
        let (comp, filters) = codecs.split_last().unwrap();
        assert_eq!(&z["compressor"], comp, "{name}");
        assert_eq!(z["filters"], if filters.is_empty() { Value::Null } else { json!(filters) }, "{name}");
    }
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    for (name, t, _) in &defs {
        let v = ds.find_var(0, name).unwrap() as i32;
        let got = get(&ds, v, *t, 0, n).unwrap();
        let want = if *t == NC_INT { ints.to_ne_bytes() } else { doubles.to_ne_bytes() };
        assert_eq!(got, want, "{name}");
        // one element at a time (the pipeline is not rebuilt per call)
        let esize = if *t == NC_INT { 4 } else { 8 };
        for i in [0u64, 29, 30, 99] {
            let one = get(&ds, v, *t, i, 1).unwrap();
            assert_eq!(one, want[i as usize * esize..][..esize], "{name}[{i}]");
        }
    }
    // a corrupt chunk of a checksummed variable is NC_EFILTER
    let chunk = dir.path().join("c.zarr/adler32/1");
    let mut b = std::fs::read(&chunk).unwrap();
    b[5] ^= 1;
    std::fs::write(&chunk, b).unwrap();
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    let v = ds.find_var(0, "adler32").unwrap() as i32;
    assert_eq!(get(&ds, v, NC_DOUBLE, 0, n), Err(NC_EFILTER));
}

/// `.zarray`'s split between `filters` and `compressor` is kept as read
/// (zarr-python writes filters with no compressor); codecs defined here
/// are written as netCDF-C writes them (the last one is the compressor).
#[test]
fn filters_and_compressor_as_read() {
    let delta = json!({"id": "delta", "dtype": "<i4"});
    let zlib = json!({"id": "zlib", "level": 1});
    let p = Pipeline::from_zarr_v2(std::slice::from_ref(&delta), None, "<i4");
    assert_eq!(p.to_zarr_v2(), (Value::Null, json!([delta])));
    let p = Pipeline::from_zarr_v2(&[], Some(&zlib), "<i4");
    assert_eq!(p.to_zarr_v2(), (zlib.clone(), Value::Null));
    let p = Pipeline::from_zarr_v2(std::slice::from_ref(&delta), Some(&zlib), "<i4");
    assert_eq!(p.to_zarr_v2(), (zlib.clone(), json!([delta])));
    assert_eq!(Pipeline::from_zarr_v2(&[], None, "<i4").to_zarr_v2(), (Value::Null, Value::Null));
    let mut p = Pipeline::new(nczarr_rs::codec::DataType::parse("<i4").unwrap());
    p.push(delta.clone());
    assert_eq!(p.to_zarr_v2(), (delta.clone(), Value::Null));
    p.push(zlib.clone());
    assert_eq!(p.to_zarr_v2(), (zlib, json!([delta])));
}
