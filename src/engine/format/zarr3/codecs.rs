//! Zarr v3 codec lists in the engine's terms: the byte order and memory
//! order of the `bytes` and `transpose` codecs, the object codec of a
//! variable-length data type, and the bytes-to-bytes codecs as the codec
//! chain runs them (numcodecs' names and parameters).

use serde_json::{json, Value};

/// A v3 codec list, translated.
#[derive(Debug, Default)]
pub struct Translated {
    /// Byte order of multi-byte elements (`bytes` codec).
    pub endian: i32,
    /// `transpose` to Fortran order.
    pub order_f: bool,
    /// `vlen-utf8` / `vlen-bytes`.
    pub object_codec: Option<Value>,
    /// Bytes-to-bytes codecs, in encoding order.
    pub codecs: Vec<Value>,
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
                let order: Vec<u64> = conf
                    .get("order")
                    .and_then(Value::as_array)
                    .map(|o| o.iter().filter_map(Value::as_u64).collect())
                    .ok_or_else(|| format!("transpose {conf}"))?;
                let n = order.len() as u64;
                if order.iter().enumerate().all(|(i, &o)| o == i as u64) {
                } else if order.iter().enumerate().all(|(i, &o)| o == n - 1 - i as u64) {
                    t.order_f = !t.order_f;
                } else {
                    return Err(format!("transpose order {order:?} is not supported"));
                }
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
                if inner.order_f
                    || index.order_f
                    || index.endian != NC_ENDIAN_LITTLE
                    || !index.codecs.iter().all(|c| c["id"] == "crc32c")
                {
                    return Err("sharding_indexed: transposed inner chunks or an index codec other than crc32c".into());
                }
                t.endian = inner.endian;
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
            "gzip" => t.codecs.push(json!({ "id": "gzip", "level": conf.get("level").cloned().unwrap_or(json!(6)) })),
            "zstd" => t.codecs.push(json!({ "id": "zstd", "level": conf.get("level").cloned().unwrap_or(json!(0)) })),
            "blosc" => {
                let shuffle = match conf.get("shuffle").and_then(Value::as_str) {
                    Some("noshuffle") => 0,
                    Some("shuffle") | None => 1,
                    Some("bitshuffle") => 2,
                    Some(s) => return Err(format!("blosc shuffle {s:?}")),
                };
                t.codecs.push(json!({
                    "id": "blosc",
                    "cname": conf.get("cname").cloned().unwrap_or(json!("lz4")),
                    "clevel": conf.get("clevel").cloned().unwrap_or(json!(5)),
                    "shuffle": shuffle,
                    "blocksize": conf.get("blocksize").cloned().unwrap_or(json!(0)),
                }));
            }
            "crc32c" => t.codecs.push(json!({ "id": "crc32c" })),
            // zarr-python's wrapping of numcodecs (what we write for the
            // codecs v3 has no name for: zlib, shuffle, bz2, ...)
            n if n.starts_with("numcodecs.") => {
                let mut c = conf.as_object().cloned().unwrap_or_default();
                c.insert("id".into(), json!(&n["numcodecs.".len()..]));
                t.codecs.push(Value::Object(c));
            }
            other => return Err(format!("codec {other:?} is not available")),
        }
    }
    if !seen_array_to_bytes {
        return Err("no array-to-bytes codec".into());
    }
    Ok(t)
}
