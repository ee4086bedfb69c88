//! Target `zarr3`, structure-aware: a Zarr v3 store (`zarr.json` of a
//! group and of one array) with fuzzed data type, shape, chunk grid, chunk
//! key encoding, fill value, dimension names and codecs (`bytes` of either
//! endian, `transpose`, `gzip`, `zstd`, `blosc`, `crc32c`, numcodecs'
//! codecs, and `sharding_indexed` with inner codecs, its index codecs and
//! the index at the start or the end), and chunks holding fuzzed values
//! encoded by this library's codecs.
//!
//! Then, some of: the chunks' bytes are changed (the shard index above all:
//! entries pointing past the shard, overlapping, of huge sizes, with the
//! index checksum made right again so that the entries are believed),
//! truncated or extended, and the metadata is made hostile (huge or zero
//! shapes, inner chunks that do not divide the shard, nested sharding,
//! unknown codecs, wrong types).
//!
//! Findings: a panic, or an allocation past the limits, anywhere; for a
//! store that was not changed: any element that does not read back as
//! written (or as the fill value where no chunk or inner chunk is stored),
//! values written through the engine that do not read back after close and
//! reopen, and the checks of [`super::metadata`] (a rewrite at close
//! changes nothing). Input starting with `#text`: a text store as the
//! `metadata` target reads it, opened as v3 (hand-made seeds in zarr-python's
//! layout).

use super::input::Input;
use nczarr_rs::codec::Pipeline;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::zarr3::codecs::translate;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::map::{Driver, StoreKey};
use serde_json::{json, Value};

/// The v3 core types netCDF has: name, netCDF type, size.
const TYPES: &[(&str, i32, usize)] = &[
    ("bool", NC_UBYTE, 1),
    ("int8", NC_BYTE, 1),
    ("uint8", NC_UBYTE, 1),
    ("int16", NC_SHORT, 2),
    ("uint16", NC_USHORT, 2),
    ("int32", NC_INT, 4),
    ("uint32", NC_UINT, 4),
    ("int64", NC_INT64, 8),
    ("uint64", NC_UINT64, 8),
    ("float32", NC_FLOAT, 4),
    ("float64", NC_DOUBLE, 8),
];

/// The array as generated: what must read back.
struct Array {
    nctype: i32,
    size: usize,
    shape: Vec<u64>,
    /// Every element, native byte order, C order.
    values: Vec<u8>,
    /// One element of the fill value, native byte order.
    fill: Vec<u8>,
}

/// Bytes-to-bytes codecs (v3 JSON).
fn bytes_codec(inp: &mut Input) -> Value {
    match inp.below(6) {
        0 => json!({"name": "gzip", "configuration": {"level": inp.below(10)}}),
        1 => json!({"name": "zstd", "configuration": {"level": inp.below(8) as i64 - 1, "checksum": inp.bool()}}),
        2 => json!({"name": "crc32c"}),
        3 => json!({"name": "blosc", "configuration": {
            "cname": inp.pick(&["lz4", "zstd", "zlib", "blosclz"]),
            "clevel": inp.below(10),
            "shuffle": inp.pick(&["noshuffle", "shuffle", "bitshuffle"]),
            "typesize": 4, "blocksize": 0}}),
        4 => json!({"name": "numcodecs.zlib", "configuration": {"level": inp.below(10)}}),
        _ => json!({"name": "numcodecs.shuffle", "configuration": {"elementsize": inp.pick(&[0u64, 1, 2, 4, 8])}}),
    }
}

fn endian_codec(inp: &mut Input) -> (Value, bool) {
    let big = inp.bool();
    (json!({"name": "bytes", "configuration": {"endian": if big { "big" } else { "little" }}}), big)
}

/// One element of `t` from the input (booleans 0 or 1), native order.
fn element(inp: &mut Input, name: &str, size: usize) -> Vec<u8> {
    if name == "bool" {
        return vec![inp.u8() & 1];
    }
    (0..size).map(|_| inp.u8()).collect()
}

/// The fill value's JSON for an element (native order) of type `name`.
fn fill_json(inp: &mut Input, name: &str, e: &[u8]) -> Value {
    match name {
        "bool" => json!(e[0] == 1),
        "int8" => json!(e[0] as i8),
        "uint8" => json!(e[0]),
        "int16" => json!(i16::from_ne_bytes([e[0], e[1]])),
        "uint16" => json!(u16::from_ne_bytes([e[0], e[1]])),
        "int32" => json!(i32::from_ne_bytes(e.try_into().expect("4"))),
        "uint32" => json!(u32::from_ne_bytes(e.try_into().expect("4"))),
        "int64" => json!(i64::from_ne_bytes(e.try_into().expect("8"))),
        "uint64" => json!(u64::from_ne_bytes(e.try_into().expect("8"))),
        "float32" => {
            let x = f32::from_ne_bytes(e.try_into().expect("4"));
            if x.is_finite() && inp.bool() {
                json!(x)
            } else {
                json!(format!("0x{:08x}", x.to_bits()))
            }
        }
        _ => {
            let x = f64::from_ne_bytes(e.try_into().expect("8"));
            if x.is_finite() && inp.bool() {
                json!(x)
            } else {
                json!(format!("0x{:016x}", x.to_bits()))
            }
        }
    }
}

/// Row-major strides of `shape`.
fn strides(shape: &[u64]) -> Vec<u64> {
    let mut s = vec![1u64; shape.len()];
    for i in (0..shape.len().saturating_sub(1)).rev() {
        s[i] = s[i + 1] * shape[i + 1];
    }
    s
}

/// Every index of `shape`, in C order.
fn indices(shape: &[u64]) -> Vec<Vec<u64>> {
    let total: u64 = shape.iter().product();
    let st = strides(shape);
    (0..total).map(|n| st.iter().zip(shape).map(|(&s, &d)| (n / s) % d).collect()).collect()
}

/// The generated store: objects, the array, and whether its chunks can be
/// checked (nothing was made hostile).
struct Generated {
    objects: Vec<(String, Vec<u8>)>,
    array: Array,
    exact: bool,
    pure_zarr: bool,
    sharded: bool,
}

fn generate(inp: &mut Input) -> Option<Generated> {
    let (tname, nctype, size) = inp.pick(TYPES);
    let nd = inp.below(4);
    let shape: Vec<u64> = (0..nd).map(|_| inp.below(9) as u64).collect();
    let sharded = nd > 0 && inp.below(3) != 0;
    // the chunk (the shard when sharded) and the inner chunk
    let mut chunk = Vec::new();
    let mut inner = Vec::new();
    for &n in &shape {
        let i = 1 + inp.below(4) as u64;
        let c = if sharded { i * (1 + inp.below(3) as u64) } else { 1 + inp.below(n.max(1) as usize + 2) as u64 };
        inner.push(i);
        chunk.push(c);
    }
    let fill = element(inp, tname, size);
    let total: u64 = shape.iter().product();
    let mut values = Vec::with_capacity(total as usize * size);
    for _ in 0..total {
        // mostly the fill value, so that whole inner chunks are left out
        if inp.below(3) == 0 {
            values.extend_from_slice(&fill);
        } else {
            values.extend(element(inp, tname, size));
        }
    }
    let mut array = Array { nctype, size, shape: shape.clone(), values, fill: fill.clone() };

    let (bytes, big) = endian_codec(inp);
    let mut codecs = Vec::new();
    let transpose = !sharded && nd > 1 && inp.below(4) == 0;
    if transpose {
        let order: Vec<usize> = (0..nd).rev().collect();
        codecs.push(json!({"name": "transpose", "configuration": {"order": order}}));
    }
    if sharded {
        let mut inner_codecs = vec![bytes];
        for _ in 0..inp.below(3) {
            inner_codecs.push(bytes_codec(inp));
        }
        let mut index_codecs = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
        if inp.below(4) != 0 {
            index_codecs.push(json!({"name": "crc32c"}));
        }
        codecs.push(json!({"name": "sharding_indexed", "configuration": {
            "chunk_shape": inner,
            "codecs": inner_codecs,
            "index_codecs": index_codecs,
            "index_location": if inp.bool() { "start" } else { "end" }}}));
    } else {
        codecs.push(bytes);
    }
    for _ in 0..inp.below(2) {
        codecs.push(bytes_codec(inp));
    }
    let v2_keys = inp.below(4) == 0;
    let sep = if inp.bool() { "/" } else { "." };
    let key_encoding = json!({"name": if v2_keys { "v2" } else { "default" }, "configuration": {"separator": sep}});
    let dim_names = match inp.below(3) {
        0 => Value::Null,
        1 => json!((0..nd).map(|i| format!("d{i}")).collect::<Vec<_>>()),
        _ => json!((0..nd).map(|i| if i == 0 { Value::Null } else { json!(format!("d{i}")) }).collect::<Vec<_>>()),
    };
    let pure_zarr = inp.below(4) != 0;
    let mut meta = json!({
        "zarr_format": 3,
        "node_type": "array",
        "shape": shape,
        "data_type": tname,
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": chunk}},
        "chunk_key_encoding": key_encoding,
        "fill_value": fill_json(inp, tname, &fill),
        "codecs": codecs,
        "attributes": {"units": "m"},
    });
    if !dim_names.is_null() || inp.bool() {
        meta["dimension_names"] = dim_names;
    }

    // the chunks, encoded by the codecs the engine builds for this list
    let list = meta["codecs"].as_array().cloned().unwrap_or_default();
    let chunks_for_codecs: Vec<u64> = if nd == 0 { vec![] } else { chunk.clone() };
    let mut translated = translate(&list, false, &chunks_for_codecs).ok()?;
    let v2 = match (size, big) {
        (1, _) => format!("|{}1", if matches!(nctype, NC_BYTE) { 'i' } else { 'u' }),
        (_, b) => {
            let kind = match nctype {
                NC_FLOAT | NC_DOUBLE => 'f',
                NC_SHORT | NC_INT | NC_INT64 => 'i',
                _ => 'u',
            };
            format!("{}{kind}{size}", if b { '>' } else { '<' })
        }
    };
    let stored = |e: &[u8]| -> Vec<u8> {
        let mut e = e.to_vec();
        if big == cfg!(target_endian = "little") {
            e.reverse();
        }
        e
    };
    if let Some(c) = translated.codecs.iter_mut().find(|c| c["id"] == "sharding_indexed") {
        c["fill"] = json!(stored(&fill).iter().map(|b| format!("{b:02x}")).collect::<String>());
    }
    let chain = Pipeline::from_zarr_v2(&translated.codecs, None, &v2).chain().ok()?;

    let mut objects = vec![
        ("zarr.json".to_string(), br#"{"zarr_format": 3, "node_type": "group", "attributes": {}}"#.to_vec()),
        ("v/zarr.json".to_string(), serde_json::to_vec_pretty(&meta).expect("JSON")),
    ];
    let grid: Vec<u64> = shape.iter().zip(&chunk).map(|(&n, &c)| n.div_ceil(c)).collect();
    let cshape: Vec<u64> = if nd == 0 { vec![] } else { chunk.clone() };
    let astrides = strides(&shape);
    for at in indices(&grid) {
        let skipped = inp.below(8) == 0; // a chunk not stored: the fill value
        let n: u64 = cshape.iter().product();
        let mut buf = Vec::with_capacity(n as usize * size);
        for local in indices(&cshape) {
            let global: Vec<u64> = local.iter().zip(&at).zip(&cshape).map(|((&l, &a), &c)| a * c + l).collect();
            let inside = global.iter().zip(&shape).all(|(g, n)| g < n);
            let e = if inside {
                let i = global.iter().zip(&astrides).map(|(g, s)| g * s).sum::<u64>() as usize * size;
                if skipped {
                    array.values[i..i + size].copy_from_slice(&fill);
                }
                &array.values[i..i + size]
            } else {
                &fill[..]
            };
            buf.extend(stored(e));
        }
        if skipped {
            continue;
        }
        if transpose {
            // Fortran order: the first index varies fastest
            let mut f = vec![0u8; buf.len()];
            let fshape: Vec<u64> = cshape.iter().rev().copied().collect();
            let fstrides = strides(&fshape);
            for (k, local) in indices(&cshape).iter().enumerate() {
                let j: u64 = local.iter().rev().zip(&fstrides).map(|(l, s)| l * s).sum();
                f[j as usize * size..(j as usize + 1) * size].copy_from_slice(&buf[k * size..(k + 1) * size]);
            }
            buf = f;
        }
        let enc = chain.encode(&buf).ok()?;
        let key = if v2_keys {
            if nd == 0 {
                "0".to_string()
            } else {
                at.iter().map(u64::to_string).collect::<Vec<_>>().join(sep)
            }
        } else if nd == 0 {
            "c".to_string()
        } else {
            format!("c{sep}{}", at.iter().map(u64::to_string).collect::<Vec<_>>().join(sep))
        };
        objects.push((format!("v/{key}"), enc));
    }
    let mut g = Generated { objects, array, exact: true, pure_zarr, sharded };
    hostile(inp, &mut g, sharded, &meta);
    Some(g)
}

/// The changes that make a store hostile: shard indexes, chunk bytes,
/// metadata. Any of them makes the data unchecked.
fn hostile(inp: &mut Input, g: &mut Generated, sharded: bool, meta: &Value) {
    let chunk_objects: Vec<usize> = (2..g.objects.len()).collect();
    for _ in 0..inp.below(4) {
        g.exact = false;
        match inp.below(6) {
            0 | 1 if sharded && !chunk_objects.is_empty() => {
                let i = chunk_objects[inp.below(chunk_objects.len())];
                shard_index_change(inp, &mut g.objects[i].1, meta);
            }
            2 if !chunk_objects.is_empty() => {
                let b = &mut g.objects[chunk_objects[inp.below(chunk_objects.len())]].1;
                if !b.is_empty() {
                    let at = inp.below(b.len());
                    b[at] ^= inp.u8() | 1;
                }
            }
            3 if !chunk_objects.is_empty() => {
                let b = &mut g.objects[chunk_objects[inp.below(chunk_objects.len())]].1;
                if inp.bool() {
                    let n = inp.below(b.len() + 1);
                    b.truncate(n);
                } else {
                    b.extend_from_slice(inp.bytes(32));
                }
            }
            _ => {
                let mut m: Value = serde_json::from_slice(&g.objects[1].1).expect("JSON");
                metadata_change(inp, &mut m);
                g.objects[1].1 = serde_json::to_vec(&m).expect("JSON");
            }
        }
    }
}

/// The index of a shard: where it is and how many entries it has.
fn index_span(shard: &[u8], meta: &Value) -> Option<(usize, usize, bool)> {
    let conf = meta["codecs"].as_array()?.iter().find(|c| c["name"] == "sharding_indexed")?["configuration"].clone();
    let outer = meta["chunk_grid"]["configuration"]["chunk_shape"].as_array()?;
    let inner = conf["chunk_shape"].as_array()?;
    let n: u64 =
        outer.iter().zip(inner).map(|(o, i)| o.as_u64().unwrap_or(1) / i.as_u64().unwrap_or(1).max(1)).product();
    let crc = conf["index_codecs"].as_array()?.iter().any(|c| c["name"] == "crc32c");
    let len = n as usize * 16 + if crc { 4 } else { 0 };
    if len > shard.len() {
        return None;
    }
    let at = if conf["index_location"] == "start" { 0 } else { shard.len() - len };
    Some((at, n as usize, crc))
}

/// Rewrites one entry of a shard's index with a hostile (offset, nbytes),
/// and its checksum so that the entry is believed.
fn shard_index_change(inp: &mut Input, shard: &mut [u8], meta: &Value) {
    let Some((at, n, crc)) = index_span(shard, meta) else { return };
    if n == 0 {
        return;
    }
    let e = at + 16 * inp.below(n);
    let len = shard.len() as u64;
    let (offset, nbytes) = match inp.below(8) {
        0 => (u64::MAX, u64::MAX),          // "absent"
        1 => (u64::MAX, 0),                 // half absent
        2 => (len, 1),                      // past the end
        3 => (len - 1, u64::MAX - len + 2), // offset + nbytes overflows
        4 => (0, len),                      // the whole shard, index included
        5 => (u64::MAX - 3, 8),
        6 => (inp.u64() % (len + 1), inp.u64() % (len + 1)), // overlapping
        _ => (0, 0),
    };
    shard[e..e + 8].copy_from_slice(&offset.to_le_bytes());
    shard[e + 8..e + 16].copy_from_slice(&nbytes.to_le_bytes());
    if crc && inp.below(4) != 0 {
        let body = at..at + n * 16;
        let sum = crc32c(&shard[body.clone()]);
        shard[body.end..body.end + 4].copy_from_slice(&sum.to_le_bytes());
    }
}

/// CRC-32C (Castagnoli), as the `crc32c` codec appends it.
fn crc32c(data: &[u8]) -> u32 {
    let mut c = !0u32;
    for &b in data {
        c ^= b as u32;
        for _ in 0..8 {
            c = if c & 1 == 1 { (c >> 1) ^ 0x82F6_3B78 } else { c >> 1 };
        }
    }
    !c
}

/// Sets the value at JSON pointer `at` when there is one (earlier changes
/// may have changed the shapes).
fn put(m: &mut Value, at: &str, v: Value) {
    if let Some(x) = m.pointer_mut(at) {
        *x = v;
    }
}

/// One hostile change of an array's `zarr.json`.
fn metadata_change(inp: &mut Input, m: &mut Value) {
    let huge = json!(1u64 << inp.below(64));
    let nd = m["shape"].as_array().map_or(0, Vec::len).max(1);
    let dim = inp.below(nd);
    let grid = "/chunk_grid/configuration/chunk_shape";
    let sharding = m["codecs"].as_array().and_then(|c| c.iter().position(|c| c["name"] == "sharding_indexed"));
    let conf = format!("/codecs/{}/configuration", sharding.unwrap_or(usize::MAX));
    match inp.below(14) {
        0 => put(m, &format!("/shape/{dim}"), huge),
        1 => put(m, &format!("{grid}/{dim}"), huge),
        2 => put(m, &format!("{grid}/{dim}"), json!(0)),
        3 => put(m, "/shape", json!((1..=34).collect::<Vec<u64>>())),
        4 => {
            let t = inp.pick(&["float16", "complex64", "r16", "string", "bytes", "int3", "", "fixed_length_utf32"]);
            put(m, "/data_type", json!(t))
        }
        5 => put(m, "/fill_value", json!(inp.pick(&["NaN", "0x7fc0", "-Infinity", "zz", "0x", ""]))),
        6 => put(m, "/codecs", json!([{"name": inp.pick(&["bytes", "zstd", "vlen-utf8", "nothing"])}])),
        7 => {
            let name = inp.pick(&["v2", "default", "other"]);
            let sep = inp.pick(&["/", ".", "-", ""]);
            put(m, "/chunk_key_encoding", json!({"name": name, "configuration": {"separator": sep}}))
        }
        8 => m["dimension_names"] = json!(["a", "a", "b", "c"][..inp.below(4) + 1]),
        9 => match inp.below(5) {
            0 => put(m, &format!("{conf}/chunk_shape/{dim}"), huge),
            1 => put(m, &format!("{conf}/chunk_shape/{dim}"), json!(1 + inp.below(7))),
            2 => put(m, &format!("{conf}/index_location"), json!(inp.pick(&["middle", "start", "end", ""]))),
            3 => {
                let list = json!([{"name": "bytes", "configuration": {"endian": "big"}}, {"name": "gzip"}]);
                put(m, &format!("{conf}/index_codecs"), list)
            }
            _ => {
                // sharding inside sharding
                if let Some(c) = m.pointer(&conf).cloned() {
                    put(m, &format!("{conf}/codecs"), json!([{"name": "sharding_indexed", "configuration": c}]));
                }
            }
        },
        10 => {
            // every inner chunk one element: the largest index
            let n = m.pointer(grid).and_then(Value::as_array).map_or(0, Vec::len);
            put(m, &format!("{conf}/chunk_shape"), json!(vec![1; n]));
            if inp.bool() {
                put(m, &format!("{grid}/0"), huge);
            }
        }
        11 => put(m, "/zarr_format", json!(inp.pick(&[2, 4, 3]))),
        12 => m["storage_transformers"] = json!([{"name": "x"}]),
        _ => put(m, "/node_type", json!(inp.pick(&["group", "array", "other"]))),
    }
}

/// Where `got` first differs from the array's values.
fn first_difference(got: &[u8], a: &Array) -> String {
    let k = got.chunks(a.size).zip(a.values.chunks(a.size)).position(|(g, w)| g != w);
    match k {
        Some(k) => format!(
            "element {k} of {}: {:02x?}, not {:02x?} (fill {:02x?})",
            a.values.len() / a.size,
            &got[k * a.size..(k + 1) * a.size],
            &a.values[k * a.size..(k + 1) * a.size],
            a.fill
        ),
        None => format!("{} bytes, not {}", got.len(), a.values.len()),
    }
}

/// Reads the whole array through the engine (native order).
fn read_back(ds: &nczarr_rs::engine::model::Dataset, a: &Array) -> Result<Vec<u8>, String> {
    let slab = ds.slab(0, 0, None, None, None, None, false).map_err(|e| e.to_string())?;
    let mut buf = vec![0u8; slab.mem_elems() * a.size];
    ds.get_slab(0, 0, &slab, MemOut::Bytes { memtype: a.nctype, buf: &mut buf }).map_err(|e| e.to_string())?;
    Ok(buf)
}

pub fn run(data: &[u8]) {
    super::init();
    if let Some(text) = data.strip_prefix(b"#text") {
        return text_store(text);
    }
    let mut inp = Input::new(data);
    let Some(mut g) = generate(&mut inp) else { return };
    let name = super::unique("fuzz-zarr3");
    let store = Driver::Memory.create(&name, true).expect("a memory store can be made");
    for (k, v) in &g.objects {
        store.set(&StoreKey::parse(k).expect("a key"), v).expect("a store of this shape");
    }
    let url = format!("mem://{name}#mode={}", if g.pure_zarr { "zarr" } else { "nczarr" });
    if g.exact {
        check_exact(&url, &mut g, &mut inp);
    }
    super::metadata::check_open_walk_rewrite(&url);
    let _ = store.destroy();
}

/// A store made as generated: its data reads back, and values written
/// through the engine read back after close and reopen.
fn check_exact(url: &str, g: &mut Generated, inp: &mut Input) {
    let a = &mut g.array;
    let ds = file::open(url, NC_NOWRITE).unwrap_or_else(|e| panic!("{url}: a store as zarr-python writes it: {e}"));
    let v = ds.var(0, 0).expect("the array");
    assert_eq!(v.nctype, a.nctype, "{url}: type");
    assert_eq!(ds.var_shape(v), a.shape, "{url}: shape");
    let got = read_back(&ds, a).unwrap_or_else(|e| panic!("{url}: read: {e}"));
    assert!(got == a.values, "{url}: the data does not read back ({})", first_difference(&got, a));
    drop(ds);
    if a.shape.contains(&0) {
        return;
    }
    // a write of a slab of new values, then close: through the codecs
    // (the sharding codec's encoding of a whole shard)
    let mut ds = file::open(url, NC_WRITE).unwrap_or_else(|e| panic!("{url}: open for writing: {e}"));
    let start: Vec<u64> = a.shape.iter().map(|&n| inp.below(n as usize) as u64).collect();
    let count: Vec<u64> = a.shape.iter().zip(&start).map(|(&n, &s)| 1 + inp.below((n - s) as usize) as u64).collect();
    let n: u64 = count.iter().product();
    let mut new = Vec::with_capacity(n as usize * a.size);
    for _ in 0..n {
        if inp.below(3) == 0 {
            new.extend_from_slice(&a.fill);
        } else {
            let mut e: Vec<u8> = (0..a.size).map(|_| inp.u8()).collect();
            if a.size == 1 && a.nctype == NC_UBYTE {
                e[0] &= 1; // booleans stay booleans
            }
            new.extend(e);
        }
    }
    let slab = ds.slab(0, 0, Some(&start), Some(&count), None, None, true).expect("a slab inside the array");
    ds.put_slab(0, 0, &slab, MemIn::Bytes { memtype: a.nctype, buf: &new })
        .unwrap_or_else(|e| panic!("{url}: write: {e}"));
    ds.close().unwrap_or_else(|e| panic!("{url}: close after a write: {e}"));
    drop(ds);
    let st = strides(&a.shape);
    for (k, local) in indices(&count).iter().enumerate() {
        let i = local.iter().zip(&start).zip(&st).map(|((l, s), t)| (l + s) * t).sum::<u64>() as usize * a.size;
        a.values[i..i + a.size].copy_from_slice(&new[k * a.size..(k + 1) * a.size]);
    }
    let ds = file::open(url, NC_NOWRITE).unwrap_or_else(|e| panic!("{url}: reopen after a write: {e}"));
    let got = read_back(&ds, a).unwrap_or_else(|e| panic!("{url}: read after a write: {e}"));
    assert!(got == a.values, "{url}: written values do not read back ({})", first_difference(&got, a));
}

/// The store `data` generates, as `#text` input (seed corpora); with
/// `sharded`, only a sharded store left as generated.
pub fn store_text(data: &[u8], sharded: bool) -> Option<Vec<u8>> {
    let g = generate(&mut Input::new(data))?;
    if sharded && !(g.sharded && g.exact) {
        return None;
    }
    let objects: Vec<(&str, Vec<u8>)> = g.objects.iter().map(|(k, v)| (k.as_str(), v.clone())).collect();
    let mut out = b"#text".to_vec();
    out.extend(super::metadata::format("zarr", &objects));
    Some(out)
}

/// `#text` input: the `metadata` target's text store, read as Zarr v3.
fn text_store(text: &[u8]) {
    super::metadata::check_text_store(text, "fuzz-zarr3-text", Some("zarr"));
}
