//! Zarr v3 codec lists in the engine's terms: the byte order and memory
//! order of the `bytes` and `transpose` codecs, the object codec of a
//! variable-length data type, `sharding_indexed` (whose configuration
//! nests codec lists of the same kind), and the bytes-to-bytes codecs as
//! the codec chain runs them: each codec's v3 name and configuration are
//! its registry declaration's ([`registry::from_v3`]).

use crate::codec::registry;
use serde_json::{json, Value};

/// A v3 codec list, translated.
#[derive(Debug, Default)]
pub struct Translated {
    /// Byte order of multi-byte elements (`bytes` codec).
    pub endian: i32,
    /// The `transpose` codecs' order, composed (`None`: none, or the
    /// identity).
    pub transpose: Option<Vec<usize>>,
    /// `vlen-utf8` / `vlen-bytes`.
    pub object_codec: Option<Value>,
    /// Bytes-to-bytes codecs, in encoding order.
    pub codecs: Vec<Value>,
    /// The array-to-bytes codec is `sharding_indexed` (it is also in
    /// `codecs`, as the whole-shard codec): its parts.
    pub shard: Option<Sharded>,
}

/// The parts of a `sharding_indexed` codec.
#[derive(Debug, Clone)]
pub struct Sharded {
    /// The inner chunks' shape.
    pub inner: Vec<u64>,
    /// The inner chunks' bytes-to-bytes codecs (numcodecs JSON).
    pub codecs: Vec<Value>,
    /// The index's bytes-to-bytes codecs.
    pub index_codecs: Vec<Value>,
    pub index_at_start: bool,
}

fn cfg(c: &Value) -> &Value {
    c.get("configuration").unwrap_or(&Value::Null)
}

/// Translates `codecs` of an array. `vlen`: the data type is
/// variable-length (an object codec must come first).
pub fn translate(list: &[Value], vlen: bool, chunks: &[u64]) -> Result<Translated, String> {
    use crate::engine::consts::{NC_ENDIAN_BIG, NC_ENDIAN_LITTLE};
    let mut t = Translated { endian: NC_ENDIAN_LITTLE, ..Default::default() };
    let mut seen_array_to_bytes = false;
    for c in list {
        let name = match c {
            Value::String(s) => s.as_str(),
            _ => c.get("name").and_then(Value::as_str).ok_or_else(|| format!("codec {c} has no name"))?,
        };
        let conf = cfg(c);
        match name {
            "transpose" if !seen_array_to_bytes => {
                // any permutation of the array's dimensions (zarr-python
                // also writes "C" and "F", the identity and the reverse)
                let n = chunks.len();
                let order: Vec<usize> = match conf.get("order") {
                    Some(Value::String(s)) if s == "C" => (0..n).collect(),
                    Some(Value::String(s)) if s == "F" => (0..n).rev().collect(),
                    Some(Value::Array(o)) => o
                        .iter()
                        .map(|x| x.as_u64().and_then(|x| usize::try_from(x).ok()))
                        .collect::<Option<_>>()
                        .ok_or_else(|| format!("transpose {conf}"))?,
                    _ => return Err(format!("transpose {conf}")),
                };
                if !crate::engine::chunk_plan::is_permutation(&order, n) {
                    return Err(format!("transpose order {order:?} of an array of {n} dimensions"));
                }
                // a second transpose permutes the first's result
                let before = t.transpose.take().unwrap_or_else(|| (0..n).collect());
                let composed: Vec<usize> = order.iter().map(|&i| before[i]).collect();
                t.transpose = composed.iter().enumerate().any(|(i, &d)| i != d).then_some(composed);
            }
            "bytes" if !seen_array_to_bytes && !vlen => {
                seen_array_to_bytes = true;
                t.endian = match conf.get("endian").and_then(Value::as_str) {
                    Some("big") => NC_ENDIAN_BIG,
                    Some("little") | None => NC_ENDIAN_LITTLE,
                    Some(e) => return Err(format!("bytes endian {e:?}")),
                };
            }
            "sharding_indexed" if !seen_array_to_bytes && !vlen && !chunks.is_empty() => {
                seen_array_to_bytes = true;
                let inner_shape: Vec<u64> = conf
                    .get("chunk_shape")
                    .and_then(Value::as_array)
                    .map(|o| o.iter().filter_map(Value::as_u64).collect())
                    .ok_or_else(|| format!("sharding_indexed {conf}"))?;
                let list = |k: &str| conf.get(k).and_then(Value::as_array).cloned().unwrap_or_default();
                let inner = translate(&list("codecs"), false, &inner_shape)?;
                let index = translate(&list("index_codecs"), false, &[])?;
                if inner.transpose.is_some()
                    || index.transpose.is_some()
                    || index.endian != NC_ENDIAN_LITTLE
                    || !index.codecs.iter().all(|c| c["id"] == "crc32c")
                {
                    return Err("sharding_indexed: transposed inner chunks or an index codec other than crc32c".into());
                }
                t.endian = inner.endian;
                let index_at_start = match conf.get("index_location").and_then(Value::as_str) {
                    Some("start") => true,
                    Some("end") | None => false,
                    Some(o) => return Err(format!("sharding_indexed index_location {o:?}")),
                };
                t.shard = Some(Sharded {
                    inner: inner_shape.clone(),
                    codecs: inner.codecs.clone(),
                    index_codecs: index.codecs.clone(),
                    index_at_start,
                });
                t.codecs.push(json!({
                    "id": "sharding_indexed",
                    "shard_shape": chunks,
                    "chunk_shape": inner_shape,
                    "codecs": inner.codecs,
                    "index_codecs": index.codecs,
                    "index_location": conf.get("index_location").cloned().unwrap_or(json!("end")),
                }));
            }
            "vlen-utf8" | "vlen-bytes" if !seen_array_to_bytes && vlen => {
                seen_array_to_bytes = true;
                t.object_codec = Some(json!({ "id": name }));
            }
            _ if !seen_array_to_bytes => return Err(format!("codec {name:?} is not supported here")),
            // the bytes-to-bytes codecs, by their registry declarations
            _ => t.codecs.push(registry::from_v3(name, conf)?),
        }
    }
    if !seen_array_to_bytes {
        return Err("no array-to-bytes codec".into());
    }
    Ok(t)
}

#[cfg(test)]
mod tests {
    use crate::codec::registry::REGISTRY;
    use crate::engine::consts::*;
    use crate::engine::format::DatasetDriver;
    use crate::engine::types::Values;
    use crate::map::{Driver, StoreKey};
    use serde_json::{json, Value};

    /// A codec list as zarr-python writes it, for an array of `float64`:
    /// little-endian `bytes`, then `codecs`.
    fn after_bytes(codecs: &[Value]) -> Value {
        let mut l = vec![json!({"name": "bytes", "configuration": {"endian": "little"}})];
        l.extend(codecs.iter().cloned());
        Value::Array(l)
    }

    /// The v3 codec lists a store may hold: every registry codec (its v3
    /// name, or zarr-python's `numcodecs.<id>`), with its parameters as
    /// zarr-python writes them.
    fn lists() -> Vec<Value> {
        let le = json!({"name": "bytes", "configuration": {"endian": "little"}});
        let be = json!({"name": "bytes", "configuration": {"endian": "big"}});
        let crc = json!({"name": "crc32c"});
        let nc = |id: &str, conf: Value| json!({"name": format!("numcodecs.{id}"), "configuration": conf});
        let shard = |inner: u64, codecs: Value, index: Value, at: &str| {
            json!({"name": "sharding_indexed", "configuration": {
                "chunk_shape": [inner], "codecs": codecs, "index_codecs": index, "index_location": at}})
        };
        let mut l: Vec<Value> = [
            vec![json!({"name": "gzip", "configuration": {"level": 9}})],
            vec![json!({"name": "zstd", "configuration": {"level": 3, "checksum": true}})],
            vec![json!({"name": "zstd", "configuration": {"level": -2, "checksum": false}})],
            vec![json!({"name": "blosc", "configuration":
                {"typesize": 8, "cname": "zstd", "clevel": 9, "shuffle": "bitshuffle", "blocksize": 256}})],
            vec![json!({"name": "blosc", "configuration":
                {"typesize": 4, "cname": "lz4", "clevel": 5, "shuffle": "shuffle", "blocksize": 0}})],
            vec![json!({"name": "blosc", "configuration":
                {"typesize": 8, "cname": "blosclz", "clevel": 1, "shuffle": "noshuffle", "blocksize": 0}})],
            vec![crc.clone()],
            vec![nc("zlib", json!({"level": 3}))],
            vec![nc("shuffle", json!({"elementsize": 8})), nc("fletcher32", json!({}))],
            vec![nc("szip", json!({"mask": 4, "pixels_per_block": 32}))],
            vec![nc("bz2", json!({"level": 7})), nc("crc32", json!({})), nc("adler32", json!({"location": "end"}))],
            vec![nc("lz4", json!({"acceleration": 2}))],
            vec![nc("lzma", json!({"format": 1, "check": -1, "preset": 2, "filters": null}))],
            vec![nc("delta", json!({"dtype": "<f8", "astype": "<f4"}))],
            vec![nc("fixedscaleoffset", json!({"offset": 1.5, "scale": 10, "dtype": "<f8", "astype": "<i4"}))],
            vec![nc("quantize", json!({"digits": 3, "dtype": "<f8", "astype": "<f4"}))],
            vec![nc("bitround", json!({"keepbits": 12}))],
            vec![nc("packbits", json!({}))],
            vec![nc("astype", json!({"encode_dtype": "<f4", "decode_dtype": "<f8"}))],
            vec![nc("categorize", json!({"labels": ["a", "b"], "dtype": "<U1", "astype": "|u1"}))],
        ]
        .iter()
        .map(|c| after_bytes(c))
        .collect();
        l.extend([
            json!([be, {"name": "gzip", "configuration": {"level": 1}}]),
            json!([shard(
                4,
                json!([le, {"name": "zstd", "configuration": {"level": 5, "checksum": true}}]),
                json!([le, crc]),
                "end"
            )]),
            json!([shard(
                4,
                json!([be, {"name": "blosc", "configuration":
                {"typesize": 8, "cname": "zstd", "clevel": 4, "shuffle": "bitshuffle", "blocksize": 0}}]),
                json!([le]),
                "start"
            )]),
            json!([shard(4, json!([le]), json!([le, crc]), "end"), {"name": "gzip", "configuration": {"level": 3}}]),
            json!([shard(
                8,
                json!([shard(
                    4,
                    json!([le, {"name": "zstd", "configuration": {"level": 2, "checksum": true}}]),
                    json!([le, crc]),
                    "start"
                )]),
                json!([le, crc]),
                "end"
            )]),
        ]);
        l
    }

    /// Every registry codec's v3 form survives a rewrite: a store holding
    /// one array per codec list, opened for writing, an attribute added to
    /// each, closed; every `codecs` is then the one written by zarr-python.
    #[test]
    fn every_codec_survives_a_rewrite() {
        let lists = lists();
        let mut covered: Vec<&str> = vec!["sharding_indexed"];
        let url = "mem://zarr3_codecs/rewrite";
        let s = Driver::Memory.create(url, true).unwrap();
        let put = |k: &str, v: &Value| s.set(&StoreKey::parse(k).unwrap(), v.to_string().as_bytes()).unwrap();
        put("/zarr.json", &json!({"zarr_format": 3, "node_type": "group", "attributes": {}}));
        for (i, list) in lists.iter().enumerate() {
            for c in list.as_array().unwrap() {
                let name = c["name"].as_str().unwrap();
                let id = name.strip_prefix("numcodecs.").unwrap_or(name);
                covered.extend(REGISTRY.iter().map(|d| d.id).find(|&d| d == id));
            }
            put(
                &format!("/a{i}/zarr.json"),
                &json!({"zarr_format": 3, "node_type": "array", "shape": [16], "data_type": "float64",
                    "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [8]}},
                    "chunk_key_encoding": {"name": "default", "configuration": {"separator": "/"}},
                    "fill_value": 0.0, "codecs": list, "attributes": {}, "dimension_names": ["x"]}),
            );
        }
        for d in REGISTRY {
            assert!(covered.contains(&d.id), "no v3 sample for {}", d.id);
        }
        let mut ds = crate::engine::file::open(&format!("{url}#mode=zarr,v3"), NC_WRITE).unwrap();
        for i in 0..lists.len() {
            let vid = ds.find_var(0, &format!("a{i}")).unwrap() as i32;
            ds.put_att(0, vid, "rewritten", Values::Int(vec![1])).unwrap();
        }
        ds.close().unwrap();
        for (i, list) in lists.iter().enumerate() {
            let meta = s.get(&StoreKey::parse(&format!("/a{i}/zarr.json")).unwrap()).unwrap().unwrap();
            let meta: Value = serde_json::from_slice(&meta).unwrap();
            assert_eq!(meta["attributes"]["rewritten"], json!(1), "a{i} was rewritten");
            assert_eq!(&meta["codecs"], list, "a{i}");
        }
    }
}
