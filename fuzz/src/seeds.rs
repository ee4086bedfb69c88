//! The hand-made seed corpora (`fuzz/seeds/<target>/seed-*`), written by
//! `NCZARR_RS_WRITE_SEEDS=1 cargo test --release --test fuzz_corpus
//! committed_seeds`. Metadata seeds are datasets this library writes in
//! each layout, plus the layouts of other writers.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::MemIn;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, StoreKey};

/// (target, file name, bytes).
pub type Seed = (&'static str, String, Vec<u8>);

pub fn all() -> Vec<Seed> {
    let mut out = Vec::new();
    out.extend(metadata());
    out.extend(codec());
    out.extend(url());
    out.extend(attrs());
    out.extend(zarr3());
    out.extend(slab());
    for (target, sizes) in [
        ("zip", &[16usize, 48, 96, 200][..]),
        ("store", &[24, 64, 160, 400, 1000][..]),
        ("aggregate", &[8, 24, 48, 96, 160, 240, 400, 640][..]),
    ] {
        for (i, &n) in sizes.iter().enumerate() {
            out.push((target, format!("seed-random-{i}"), pseudo_random(n, i as u64 + 1)));
        }
    }
    out
}

/// `n` bytes of a fixed pseudo-random (incompressible) sequence.
pub fn pseudo_random(n: usize, seed: u64) -> Vec<u8> {
    let mut x = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            (x >> 24) as u8
        })
        .collect()
}

/// A small dataset written by this library with `modes` (groups, an
/// unlimited dimension, deflate, strings, attributes), as the `metadata`
/// target's text.
pub fn dataset_text(modes: &str) -> Vec<u8> {
    let name = super::unique("seed-metadata");
    let url = format!("mem://{name}#mode={modes}");
    let mut ds = file::create(&url, NC_CLOBBER).expect("create");
    let pure = modes.contains("zarr,") || modes == "zarr" || modes.contains("noxarray");
    let t = ds.def_dim(0, "t", if pure { 2 } else { NC_UNLIMITED as u64 }).expect("dim") as i32;
    let x = ds.def_dim(0, "x", 3).expect("dim") as i32;
    let g = ds.def_grp(0, "g").expect("group");
    let v = ds.def_var(0, "v", NC_INT, &[t, x]).expect("var") as i32;
    ds.def_var_deflate(0, v, true, true, 1).expect("deflate");
    let s = ds.def_var(g, "s", NC_STRING, &[x]).expect("var") as i32;
    let c = ds.def_var(g, "c", if pure { NC_DOUBLE } else { NC_CHAR }, &[]).expect("var") as i32;
    ds.put_att(0, NC_GLOBAL, "title", Values::Char(b"seed".to_vec())).expect("att");
    ds.put_att(0, v, "scale", Values::Float(vec![0.5, f32::NAN])).expect("att");
    ds.put_att(g, s, "n", Values::UInt64(vec![u64::MAX])).expect("att");
    ds.enddef().expect("enddef");
    let vals = Values::Int(vec![1, 2, 3, 4, 5, 6]).to_ne_bytes();
    let slab = ds.slab(0, v, Some(&[0, 0]), Some(&[2, 3]), None, None, true).expect("slab");
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_INT, buf: &vals }).expect("write");
    let strings = vec!["a".to_string(), "".into(), "ccc".into()];
    let slab = ds.slab(g, s, None, None, None, None, true).expect("slab");
    ds.put_slab(g, s, &slab, MemIn::Strings(&strings)).expect("write");
    let _ = c;
    ds.close().expect("close");
    let store = Driver::Memory.open(&name, false).expect("open");
    let objects: Vec<(String, Vec<u8>)> = store
        .list_prefix(&StoreKey::root())
        .expect("list")
        .into_iter()
        .map(|k| (k.to_string(), store.get(&k).expect("get").expect("object")))
        .collect();
    let objects: Vec<(&str, Vec<u8>)> = objects.iter().map(|(k, b)| (k.as_str(), b.clone())).collect();
    let text = super::metadata::format(modes, &objects);
    drop(store);
    let _ = Driver::Memory.open(&name, true).map(|s| s.destroy());
    text
}

/// Zarr v3: structured inputs (some sharded), the text of stores the
/// generator makes, and datasets this library writes with `mode=v3`.
fn zarr3() -> Vec<Seed> {
    let mut out = Vec::new();
    for (i, n) in [24usize, 48, 96, 160, 240, 400, 640, 1000].into_iter().enumerate() {
        out.push(("zarr3", format!("seed-random-{i}"), pseudo_random(n, 100 + i as u64)));
    }
    let mut texts = 0;
    for seed in 200..400 {
        if texts == 4 {
            break;
        }
        if let Some(t) = super::zarr3::store_text(&pseudo_random(300, seed), true) {
            out.push(("zarr3", format!("seed-sharded-{texts}"), t));
            texts += 1;
        }
    }
    for modes in ["nczarr,v3", "zarr,v3"] {
        let mut t = b"#text".to_vec();
        t.extend(dataset_text(modes));
        out.push(("zarr3", format!("seed-written-{}", modes.replace(',', "-")), t));
    }
    out
}

/// A start or count of a `slab` seed, as `slab::index` decodes it.
#[derive(Clone, Copy)]
enum Ix {
    Small(u8),
    /// u64::MAX minus this.
    Max(u8),
    /// 2^63 minus this.
    Half(u8),
    /// 2^33 plus this.
    Big(u8),
}

/// A stride or map entry of a `slab` seed, as `slab::step` decodes it.
#[derive(Clone, Copy)]
enum St {
    S(u8),
    Zero,
    /// i32::MAX, the largest stride.
    I32Max,
    /// 2^(32 + this).
    Pow(u8),
}

/// One call of a `slab` seed: a put?, start, count, stride, map.
type Call<'a> = (bool, Option<&'a [Ix]>, Option<&'a [Ix]>, Option<&'a [St]>, Option<&'a [St]>);

/// The bytes `slab::run` decodes into: dimensions (0 unlimited, 1 of
/// length 0, n > 1 fixed of n - 1), chunk shape, calls.
fn slab_seed(dims: &[u8], chunks: Option<&[u8]>, calls: &[Call]) -> Vec<u8> {
    let mut b = vec![dims.len() as u8];
    for &d in dims {
        b.extend(if d < 2 { vec![d] } else { vec![2, d - 2] });
    }
    if !dims.is_empty() {
        b.push(chunks.is_some() as u8);
        b.extend(chunks.unwrap_or_default().iter().map(|c| c - 1));
    }
    b.push(calls.len() as u8 - 1);
    let ix = |b: &mut Vec<u8>, v: Option<&[Ix]>| {
        b.push(v.is_some() as u8);
        for x in v.unwrap_or_default() {
            b.extend(match *x {
                Ix::Small(n) => vec![0, 5, n],
                Ix::Max(k) => vec![k, 0],
                Ix::Half(k) => vec![k, 1],
                Ix::Big(k) => vec![k, 3],
            });
        }
    };
    let st = |b: &mut Vec<u8>, v: Option<&[St]>| {
        for x in v.unwrap_or_default() {
            b.extend(match *x {
                St::S(n) => vec![7, n - 1],
                St::Zero => vec![0],
                St::I32Max => vec![2, 0],
                St::Pow(k) => vec![5, k],
            });
        }
    };
    for &(put, start, count, stride, imap) in calls {
        b.extend([put as u8, 1]);
        ix(&mut b, start);
        ix(&mut b, count);
        b.push(stride.is_some() as u8);
        st(&mut b, stride);
        b.push(imap.is_none() as u8);
        st(&mut b, imap);
    }
    b
}

/// The `slab` target: hand-made calls on each kind of dimension, and
/// pseudo-random inputs.
fn slab() -> Vec<Seed> {
    use Ix::Small;
    use {Ix::*, St::*};
    let one = Some(&[Small(1)][..]);
    let hand: Vec<(&str, Vec<u8>)> = vec![
        // unlimited: records written, read back, all of it read (NULLs)
        (
            "put-get-unlimited",
            slab_seed(
                &[0],
                Some(&[2]),
                &[
                    (true, Some(&[Small(1)]), Some(&[Small(3)]), None, None),
                    (false, Some(&[Small(0)]), Some(&[Small(4)]), None, None),
                    (false, None, None, None, None),
                ],
            ),
        ),
        // the far end of an unlimited dimension: refused; the limit: held
        (
            "far-end",
            slab_seed(
                &[0],
                None,
                &[
                    (true, Some(&[Max(0)]), one, None, None),
                    (true, Some(&[Half(0)]), one, None, None),
                    (true, Some(&[Max(1)]), Some(&[Small(4)]), None, None),
                    (true, Some(&[Half(2)]), one, None, None),
                    (false, Some(&[Half(2)]), one, None, None),
                ],
            ),
        ),
        // fixed by unlimited, chunks 2x2: a strided write, a transposed read
        (
            "strided-mapped",
            slab_seed(
                &[4, 0],
                Some(&[2, 2]),
                &[
                    (true, Some(&[Small(0), Small(1)]), Some(&[Small(2), Small(3)]), Some(&[S(2), S(2)]), None),
                    (false, Some(&[Small(0), Small(0)]), Some(&[Small(3), Small(6)]), None, Some(&[S(1), S(3)])),
                ],
            ),
        ),
        // strides: 0, the largest, with a count past u64 in the product
        (
            "stride-count",
            slab_seed(
                &[0, 5],
                None,
                &[
                    (true, Some(&[Small(0), Small(0)]), Some(&[Small(2), Small(1)]), Some(&[Zero, S(1)]), None),
                    (true, Some(&[Half(0), Small(0)]), Some(&[Small(2), Small(1)]), Some(&[I32Max, S(1)]), None),
                    (true, Some(&[Small(0), Small(0)]), Some(&[Big(1), Small(1)]), Some(&[I32Max, S(1)]), None),
                    (false, Some(&[Small(0), Small(0)]), Some(&[Big(0), Small(1)]), Some(&[I32Max, S(1)]), None),
                ],
            ),
        ),
        // maps past the address space
        (
            "map-overflow",
            slab_seed(
                &[3, 0],
                None,
                &[
                    (true, Some(&[Small(0), Small(0)]), Some(&[Small(2), Small(2)]), None, Some(&[Pow(30), S(1)])),
                    (false, Some(&[Small(0), Small(0)]), Some(&[Small(2), Small(1)]), None, Some(&[Pow(28), Pow(29)])),
                ],
            ),
        ),
        // a scalar; a zero-length dimension among three
        ("scalar", slab_seed(&[], None, &[(true, None, None, None, None), (false, None, None, None, None)])),
        (
            "zero-length",
            slab_seed(
                &[3, 1, 0],
                Some(&[1, 2, 3]),
                &[
                    (true, Some(&[Small(0), Small(0), Small(0)]), Some(&[Small(1), Small(0), Small(2)]), None, None),
                    (true, Some(&[Small(0), Small(0), Small(0)]), Some(&[Small(1), Small(1), Small(2)]), None, None),
                    (false, None, None, None, None),
                ],
            ),
        ),
    ];
    let mut out: Vec<Seed> = hand.into_iter().map(|(name, b)| ("slab", format!("seed-{name}"), b)).collect();
    for (i, n) in [16usize, 32, 64, 128].into_iter().enumerate() {
        out.push(("slab", format!("seed-random-{i}"), pseudo_random(n, 300 + i as u64)));
    }
    out
}

/// Datasets written by this library in each layout, with small chunks.
fn metadata() -> Vec<Seed> {
    let mut out = Vec::new();
    for (i, modes) in ["nczarr", "nczarr,oldkeys", "zarr", "nczarr,consolidated", "nczarr,noxarray"].iter().enumerate()
    {
        out.push(("metadata", format!("seed-{i}-{}", modes.replace(',', "-")), dataset_text(modes)));
    }
    // other writers' layouts: netCDF-C 4.9.0 (uppercase keys), NCZarr v1,
    // netCDF-C 4.10 (keys in .zattrs, dimension_references), xarray
    let text = |objects: &[(&str, &str)]| -> Vec<(&'static str, Vec<u8>)> {
        objects.iter().map(|(k, v)| (leak(k), v.as_bytes().to_vec())).collect()
    };
    type Layout = (&'static str, &'static str, Vec<(&'static str, Vec<u8>)>);
    let others: [Layout; 4] = [
        (
            "seed-netcdf-c-4.9.0",
            "nczarr",
            text(&[
                (
                    ".zgroup",
                    r#"{"zarr_format": 2, "_NCZARR_SUPERBLOCK": {"version": "2.0.0"}, "_NCZARR_GROUP": {"dims": {"x": 2}, "vars": ["v"], "groups": []}}"#,
                ),
                (
                    "v/.zarray",
                    r#"{"zarr_format": 2, "shape": [2], "dtype": "<U1", "chunks": [2], "fill_value": NaN, "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": ["/x"], "storage": "chunked"}}"#,
                ),
                ("v/.zattrs", r#"{"_NCZARR_ATTR": {"types": {}}}"#),
            ]),
        ),
        (
            "seed-nczarr-v1",
            "nczarr",
            text(&[
                (".nczarr", r#"{"zarr_format": 2, "nczarr_version": "1.0.0"}"#),
                (".zgroup", r#"{"zarr_format": 2}"#),
                (".nczgroup", r#"{"dims": {"d": 2}, "vars": ["v"], "groups": []}"#),
                (
                    "v/.zarray",
                    r#"{"zarr_format": 2, "shape": [2], "dtype": "<f4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
                ),
                ("v/.nczarray", r#"{"dimrefs": ["/d"], "storage": "chunked"}"#),
            ]),
        ),
        (
            "seed-netcdf-c-4.10",
            "nczarr",
            text(&[
                (".zgroup", r#"{"zarr_format": 2}"#),
                (
                    ".zattrs",
                    r#"{"_nczarr_group": {"dimensions": {"t": {"size": 2, "unlimited": 1}}, "arrays": ["a"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"_nczarr_group": "|J0"}}}"#,
                ),
                (
                    "a/.zarray",
                    r#"{"zarr_format": 2, "shape": [2], "dtype": "<u8", "chunks": [1], "fill_value": 3, "order": "C", "compressor": null, "filters": null}"#,
                ),
                ("a/.zattrs", r#"{"_nczarr_array": {"dimension_references": ["/t"], "storage": "chunked"}}"#),
            ]),
        ),
        (
            "seed-xarray",
            "zarr,consolidated",
            text(&[
                (".zgroup", r#"{"zarr_format": 2}"#),
                (".zattrs", r#"{"flag": true, "nested": {"a": [1, {"b": null}]}}"#),
                (
                    "p/.zarray",
                    r#"{"zarr_format": 2, "shape": [4, 3], "dtype": "<f4", "chunks": [2, 3], "fill_value": "NaN", "order": "F", "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0}, "filters": null, "dimension_separator": "/"}"#,
                ),
                ("p/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat", "lon"], "units": "K"}"#),
                (
                    "o/.zarray",
                    r#"{"zarr_format": 2, "shape": [2], "dtype": "|O", "chunks": [2], "fill_value": null, "order": "C", "compressor": null, "filters": [{"id": "vlen-utf8"}]}"#,
                ),
                ("o/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat"]}"#),
                (".zmetadata", r#"{"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1}"#),
            ]),
        ),
    ];
    for (name, modes, objects) in others {
        out.push(("metadata", name.to_string(), super::metadata::format(modes, &objects)));
    }
    out
}

fn leak(s: &str) -> &'static str {
    Box::leak(s.to_string().into_boxed_str())
}

/// Each codec in each mode, with compressible data.
fn codec() -> Vec<Seed> {
    let data: Vec<u8> = (0..600u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
    let mut out = Vec::new();
    for mode in 0..3u8 {
        for id in 0..8u8 {
            // mode, chain length, id, a few parameter bytes, element size
            let mut seed = vec![mode, 0, id, 3, 2, 1, 1, 2, 0, 0, 2];
            seed.extend_from_slice(&data);
            out.push(("codec", format!("seed-mode{mode}-codec{id}"), seed));
        }
    }
    out.push(("codec", "seed-shuffle-zlib".into(), [&[0u8, 1, 2, 1, 0, 0, 1, 5, 3][..], &data].concat()));
    out.push(("codec", "seed-vlen".into(), vec![3, 2, 0, 0, 3, b'a', b'b', b'c', 1, b'x', 0]));
    out
}

fn url() -> Vec<Seed> {
    [
        "file:///tmp/x.zarr#mode=nczarr,file",
        "file:///tmp/x#mode=zarr,file&log",
        "/plain/path.zarr",
        "mem://abc#mode=zarr,consolidated",
        "s3://bucket/key/x.zarr#aws.region=eu-west-1&aws.profile=none",
        "https://bkt.s3.us-west-2.amazonaws.com/k/x#mode=nczarr,s3",
        "https://s3.amazonaws.com/bkt/k#mode=zarr,s3",
        "http://127.0.0.1:9000/bucket/ds.zarr#mode=nczarr,s3",
        "file:///x.zip#mode=nczarr,zip",
        "file:///b#noxarray&xarray",
        "a/b/.zarray",
        "/a//b",
        "../x",
        "|S8",
        "<U4",
        ">f8",
        "|J0",
        "=i2",
    ]
    .iter()
    .enumerate()
    .map(|(i, s)| ("url", format!("seed-{i}"), s.as_bytes().to_vec()))
    .collect()
}

fn attrs() -> Vec<Seed> {
    let texts = [
        "1",
        "[1, 2.5]",
        "\"text\"",
        r#"{"a": [1, {"b": null}]}"#,
        "NaN",
        "[1.5, NaN, -Infinity]",
        "true",
        "[18446744073709551615, -1]",
        "[\"a\", \"bc\"]",
        "3.4028235e38",
        "[]",
    ];
    let mut out = Vec::new();
    for (i, t) in texts.iter().enumerate() {
        // JSON mode, inferred type
        out.push(("attrs", format!("seed-json-{i}"), [&[1u8, 0][..], t.as_bytes()].concat()));
        // JSON mode, a type (index i into the target's list)
        out.push(("attrs", format!("seed-typed-{i}"), [&[1u8, 1, i as u8][..], t.as_bytes()].concat()));
    }
    for t in 0..12u8 {
        // values mode: type t, a few elements
        let mut seed = vec![0u8, t, 4];
        seed.extend(pseudo_random(40, t as u64 + 7));
        out.push(("attrs", format!("seed-values-{t}"), seed));
    }
    out
}
