//! A bounded, structure-aware fuzzer for the metadata reader: valid
//! datasets of every layout are mutated (JSON values swapped for other
//! types, keys dropped or renamed, numbers pushed to extremes, bytes
//! flipped, objects truncated) and opened. Any outcome but a panic is fine:
//! bad metadata must come back as a netCDF error.
//!
//! Runs for `NCZARR_RS_FUZZ_SECONDS` (default 5) seconds; the seed is
//! printed so a failure can be replayed with `NCZARR_RS_FUZZ_SEED`.

use nczarr_rs::engine::consts::{NC_NOWRITE, NC_WRITE};
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, StoreKey};
use serde_json::{json, Value};
use std::time::{Duration, Instant};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

fn seeds() -> Vec<Vec<(&'static str, Value)>> {
    let zarray = |dtype: &str, extra: Value| {
        let mut a = json!({"zarr_format": 2, "shape": [4, 3], "dtype": dtype, "chunks": [2, 3], "fill_value": 0,
                           "order": "C", "compressor": null, "filters": null});
        if let Value::Object(e) = extra {
            a.as_object_mut().unwrap().extend(e);
        }
        a
    };
    vec![
        // the spec's layout (ours / netCDF-C 4.9.2)
        vec![
            (
                ".zgroup",
                json!({"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"},
                "_nczarr_group": {"dims": {"x": 4, "y": 3}, "vars": ["v", "s"], "groups": ["g"], "unlimited": []}}),
            ),
            (".zattrs", json!({"title": "t", "n": [1, 2], "_nczarr_attr": {"types": {"title": ">S1", "n": "<i4"}}})),
            ("v/.zarray", zarray("<i4", json!({"_nczarr_array": {"dimrefs": ["/x", "/y"], "storage": "chunked"}}))),
            (
                "v/.zattrs",
                json!({"_FillValue": -1, "units": "m", "_nczarr_attr": {"types": {"_FillValue": "<i4", "units": ">S1"}}}),
            ),
            (
                "s/.zarray",
                json!({"zarr_format": 2, "shape": [1], "dtype": "|S8", "chunks": [1], "fill_value": "", "order": "C",
                "compressor": null, "filters": null, "_nczarr_array": {"dimrefs": [], "storage": "scalar", "scalar": 1}}),
            ),
            ("g/.zgroup", json!({"zarr_format": 2, "_nczarr_group": {"dims": {"z": 2}, "vars": ["w"], "groups": []}})),
            (
                "g/w/.zarray",
                json!({"zarr_format": 2, "shape": [2, 4], "dtype": ">f8", "chunks": [1, 4], "fill_value": "NaN",
                "order": "C", "compressor": {"id": "zlib", "level": 1}, "filters": null, "_nczarr_array": {"dimrefs": ["/g/z", "/x"]}}),
            ),
        ],
        // netCDF-C 4.10 (keys in .zattrs)
        vec![
            (".zgroup", json!({"zarr_format": 2})),
            (
                ".zattrs",
                json!({"_nczarr_group": {"dimensions": {"t": {"size": 2, "unlimited": 1}}, "arrays": ["a"], "groups": []},
                "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"_nczarr_group": "|J0"}}}),
            ),
            (
                "a/.zarray",
                json!({"zarr_format": 2, "shape": [2], "dtype": "<u8", "chunks": [1], "fill_value": 3, "order": "C",
                "compressor": null, "filters": null}),
            ),
            ("a/.zattrs", json!({"_nczarr_array": {"dimension_references": ["/t"], "storage": "chunked"}})),
        ],
        // pure Zarr / xarray, consolidated
        vec![
            (".zgroup", json!({"zarr_format": 2})),
            (".zattrs", json!({"flag": true, "nested": {"a": [1, {"b": null}]}})),
            ("p/.zarray", zarray("<f4", json!({"dimension_separator": "/", "order": "F"}))),
            ("p/.zattrs", json!({"_ARRAY_DIMENSIONS": ["lat", "lon"], "units": "K"})),
            (
                "q/.zarray",
                json!({"zarr_format": 2, "shape": [], "dtype": "|b1", "chunks": [], "fill_value": false, "order": "C",
                "compressor": null, "filters": null}),
            ),
            (".zmetadata", json!({"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1})),
        ],
        // NCZarr v1
        vec![
            (".nczarr", json!({"zarr_format": 2, "nczarr_version": "1.0.0"})),
            (".zgroup", json!({"zarr_format": 2})),
            (".nczgroup", json!({"dims": {"d": 2}, "vars": ["v"], "groups": []})),
            (
                "v/.zarray",
                json!({"zarr_format": 2, "shape": [2], "dtype": "<U1", "chunks": [2], "fill_value": "", "order": "C",
                "compressor": null, "filters": null}),
            ),
            ("v/.nczarray", json!({"dimrefs": ["/d"], "storage": "chunked"})),
        ],
    ]
}

fn random_value(rng: &mut Rng) -> Value {
    match rng.below(12) {
        0 => Value::Null,
        1 => json!(rng.below(2) == 1),
        2 => json!(-(rng.next() as i64).abs()),
        3 => json!(rng.next()),
        4 => {
            let x = f64::from_bits(rng.next());
            json!(if x.is_finite() { x } else { 1e308 })
        }
        5 => json!(""),
        6 => json!(["..", "/x", "a/b", "\u{1}"][rng.below(4)]),
        7 => json!([]),
        8 => json!({}),
        9 => json!([0, -1, 18446744073709551615u64]),
        10 => json!(["<c8", "|S0", ">S1", "<U9", "|J0", "|V2", "<i16", "S"][rng.below(8)]),
        _ => json!([[1, 2], {"k": "v"}]),
    }
}

fn mutate(v: &mut Value, rng: &mut Rng, depth: usize) {
    match v {
        Value::Object(m) if !m.is_empty() => {
            let i = rng.below(m.len());
            let key = m.keys().nth(i).unwrap().clone();
            match rng.below(5) {
                0 => {
                    m.remove(&key);
                }
                1 => {
                    let val = m.remove(&key).unwrap();
                    m.insert(key.to_ascii_uppercase(), val);
                }
                2 => {
                    m.insert(key, random_value(rng));
                }
                _ if depth < 6 => mutate(m.get_mut(&key).unwrap(), rng, depth + 1),
                _ => {}
            }
        }
        Value::Array(a) if !a.is_empty() => {
            let i = rng.below(a.len());
            match rng.below(4) {
                0 => {
                    a.remove(i);
                }
                1 => a.push(random_value(rng)),
                _ if depth < 6 => mutate(&mut a[i], rng, depth + 1),
                _ => {}
            }
        }
        other => *other = random_value(rng),
    }
}

#[test]
fn metadata_reader_never_panics() {
    let seconds: u64 = std::env::var("NCZARR_RS_FUZZ_SECONDS").ok().and_then(|s| s.parse().ok()).unwrap_or(5);
    let seed: u64 = std::env::var("NCZARR_RS_FUZZ_SEED").ok().and_then(|s| s.parse().ok()).unwrap_or_else(|| {
        std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).unwrap().as_nanos() as u64 | 1
    });
    println!("fuzz_metadata: seed {seed}, {seconds} s");
    let mut rng = Rng(seed);
    let deadline = Instant::now() + Duration::from_secs(seconds);
    let seeds = seeds();
    let (mut cases, mut opened) = (0u64, 0u64);
    while Instant::now() < deadline {
        let mut objects = seeds[rng.below(seeds.len())].clone();
        for _ in 0..=rng.below(4) {
            let i = rng.below(objects.len());
            mutate(&mut objects[i].1, &mut rng, 0);
        }
        let url = format!("mem://fuzz/{}", cases % 64);
        let store = Driver::Memory.create(&url, true).unwrap();
        for (key, value) in &objects {
            let mut bytes = serde_json::to_vec(value).unwrap();
            match rng.below(10) {
                0 if !bytes.is_empty() => {
                    let n = rng.below(bytes.len());
                    bytes.truncate(n)
                }
                1 if !bytes.is_empty() => {
                    let i = rng.below(bytes.len());
                    bytes[i] ^= 1 << rng.below(8);
                }
                _ => {}
            }
            store.set(&StoreKey::parse(key).unwrap(), &bytes).unwrap();
        }
        let mode = if rng.below(2) == 0 { NC_NOWRITE } else { NC_WRITE };
        let fragment = ["", "#mode=zarr", "#mode=nczarr,noxarray", "#mode=nczarr,consolidated"][rng.below(4)];
        let result = std::panic::catch_unwind(|| {
            if let Ok(mut ds) = file::open(&format!("{url}{fragment}"), mode) {
                // Whatever was read must also be writable back without a panic.
                let _ = ds.close();
                return true;
            }
            false
        });
        match result {
            Ok(true) => opened += 1,
            Ok(false) => {}
            Err(_) => panic!("panic on fuzz case {cases} (seed {seed}): {objects:?} {fragment}"),
        }
        cases += 1;
    }
    println!("fuzz_metadata: {cases} cases, {opened} opened, no panic");
    assert!(cases > 100, "the fuzzer ran only {cases} cases");
}
