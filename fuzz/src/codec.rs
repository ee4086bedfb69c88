//! Target `codec`: a codec pipeline (`codec::Pipeline`, built through the
//! registry as a `.zarray`'s `filters` and `compressor` are) from fuzzed
//! numcodecs JSON (every registered id: compressors, checksums, numcodecs'
//! array filters; levels, element sizes, dtypes, Blosc back ends, LZMA
//! filter chains; numbers or netCDF-C's strings, in range or not) for a
//! fuzzed array dtype, then fed fuzzed data.
//!
//! Modes (first byte): data round-tripped through encode and decode (it
//! must come back byte for byte, sized or unsized, through lossless
//! codecs; at its size through the others); fuzzed bytes decoded as
//! if read from a store (an error or some bytes, never a panic, never more
//! than the size asked for); an encoded chunk with fuzzed bytes changed,
//! decoded; and the `vlen-utf8`/`vlen-bytes` object codec.

use super::input::Input;
use nczarr_rs::codec::{vlen, Pipeline};
use serde_json::{json, Value};

const IDS: &[&str] = &[
    "zlib",
    "gzip",
    "shuffle",
    "zstd",
    "fletcher32",
    "bz2",
    "lz4",
    "blosc",
    "unknown",
    "lzma",
    "crc32",
    "adler32",
    "crc32c",
    "delta",
    "fixedscaleoffset",
    "quantize",
    "bitround",
    "packbits",
    "astype",
    "categorize",
    "szip",
];

/// Codecs whose decoding gives back exactly what was encoded, whatever
/// the data (the array filters round values, wrap or map them).
const LOSSLESS: &[&str] =
    &["zlib", "gzip", "shuffle", "zstd", "fletcher32", "bz2", "lz4", "blosc", "lzma", "crc32", "adler32", "crc32c"];

/// Array dtypes (`.zarray`'s spelling).
const DTYPES: &[&str] =
    &["|u1", "|i1", "<i2", ">u2", "<i4", ">i4", "<u8", "<f4", ">f4", "<f8", "|b1", "|S4", "<U2", "|O"];

/// A number parameter: mostly in range, sometimes anything, sometimes in
/// netCDF-C 4.9's string form.
fn number(inp: &mut Input, lo: i64, hi: i64) -> Value {
    let n = match inp.below(8) {
        0 => inp.u64() as i64,
        1 => inp.u8() as i8 as i64,
        _ => lo + inp.below((hi - lo + 1) as usize) as i64,
    };
    if inp.below(4) == 0 {
        Value::String(n.to_string())
    } else {
        json!(n)
    }
}

/// A number parameter that must be a JSON number: mostly in range.
fn number_plain(inp: &mut Input, lo: i64, hi: i64) -> Value {
    match inp.below(8) {
        0 => json!(inp.u64() as i64),
        _ => json!(lo + inp.below((hi - lo + 1) as usize) as i64),
    }
}

/// One codec's JSON, for an array of `dtype`.
pub fn config(inp: &mut Input, dtype: &str) -> Value {
    let id = inp.pick(IDS);
    let mut c = json!({ "id": id });
    let o = c.as_object_mut().expect("an object");
    match id {
        "zlib" | "gzip" | "bz2" if inp.bool() => {
            o.insert("level".into(), number(inp, -1, 9));
        }
        "shuffle" if inp.bool() => {
            o.insert("elementsize".into(), number(inp, 0, 16));
        }
        "zstd" => {
            if inp.bool() {
                o.insert("level".into(), number(inp, -5, 9));
            }
            if inp.bool() {
                o.insert("checksum".into(), json!(inp.bool()));
            }
        }
        "lz4" if inp.bool() => {
            o.insert("acceleration".into(), number(inp, 1, 10));
        }
        "blosc" => {
            let cnames = ["blosclz", "lz4", "lz4hc", "zlib", "zstd", "snappy"];
            o.insert("cname".into(), json!(inp.pick(&cnames)));
            o.insert("clevel".into(), number(inp, 0, 9));
            o.insert("shuffle".into(), number(inp, -1, 2));
            if inp.bool() {
                o.insert("blocksize".into(), number(inp, 0, 4096));
            }
        }
        "lzma" => {
            for (k, lo, hi) in [("format", 0, 3), ("check", -1, 10), ("preset", 0, 9)] {
                if inp.bool() {
                    o.insert(k.into(), number_plain(inp, lo, hi));
                }
            }
            if inp.below(4) == 0 {
                // a raw filter chain (LZMA2 = 33, delta = 3, x86 = 4)
                let f: Vec<Value> = (0..1 + inp.below(2))
                    .map(|_| {
                        let mut f = json!({ "id": inp.pick(&[33u64, 33, 3, 4, 0x21 + 1]) });
                        if inp.bool() {
                            f["dict_size"] = number_plain(inp, 4096, 1 << 24);
                        }
                        if inp.bool() {
                            f["preset"] = number_plain(inp, 0, 9);
                        }
                        f
                    })
                    .collect();
                o.insert("filters".into(), json!(f));
            }
        }
        "crc32" | "adler32" if inp.bool() => {
            o.insert("location".into(), json!(inp.pick(&["start", "end", "middle"])));
        }
        "delta" | "fixedscaleoffset" | "quantize" | "categorize" => {
            o.insert("dtype".into(), json!(if inp.below(4) == 0 { inp.pick(DTYPES) } else { dtype }));
            if inp.bool() {
                o.insert("astype".into(), json!(inp.pick(DTYPES)));
            }
            match id {
                "fixedscaleoffset" => {
                    o.insert("offset".into(), number_plain(inp, -100, 100));
                    o.insert("scale".into(), if inp.bool() { number_plain(inp, 0, 1000) } else { json!(0.5) });
                }
                "quantize" => {
                    o.insert("digits".into(), number(inp, -2, 20));
                }
                "categorize" => {
                    let labels: Vec<Value> = (0..inp.below(5)).map(|i| json!(format!("l{i}"))).collect();
                    o.insert("labels".into(), json!(labels));
                }
                _ => {}
            }
        }
        "bitround" => {
            o.insert("keepbits".into(), number(inp, -1, 60));
        }
        "astype" => {
            o.insert("encode_dtype".into(), json!(inp.pick(DTYPES)));
            o.insert("decode_dtype".into(), json!(if inp.bool() { dtype } else { inp.pick(DTYPES) }));
        }
        _ => {}
    }
    c
}

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    let mode = inp.below(4);
    if mode == 3 {
        return object_codec(&mut inp);
    }
    let dtype = inp.pick(DTYPES);
    let configs: Vec<Value> = (0..1 + inp.below(3)).map(|_| config(&mut inp, dtype)).collect();
    // the last one the compressor, or all filters
    let pipeline = match configs.split_last() {
        Some((last, rest)) if inp.bool() => Pipeline::from_zarr_v2(rest, Some(last), dtype),
        _ => Pipeline::from_zarr_v2(&configs, None, dtype),
    };
    let Ok(chain) = pipeline.chain() else { return };
    let lossless = configs.iter().all(|c| LOSSLESS.contains(&c["id"].as_str().unwrap_or("")));
    match mode {
        0 => {
            let plain = inp.rest();
            let Ok(enc) = chain.encode(plain) else { return };
            if lossless {
                let dec =
                    chain.decode(&enc, plain.len()).unwrap_or_else(|e| panic!("{configs:?}: decode of encode: {e}"));
                assert!(dec == plain, "{configs:?}: round trip changed the data");
                let dec = chain
                    .decode_unsized(&enc, plain.len().max(1))
                    .unwrap_or_else(|e| panic!("{configs:?}: unsized decode of encode: {e}"));
                assert!(dec == plain, "{configs:?}: unsized round trip changed the data");
            } else if let Ok(dec) = chain.decode(&enc, plain.len()) {
                // a lossy stage may leave the next one corrupt input (packbits
                // of what is not booleans, astype out of range); a decoded
                // chunk still has the chunk's size
                assert_eq!(dec.len(), plain.len(), "{configs:?} ({dtype}): round trip changed the size");
            }
        }
        1 => {
            let want = inp.u16() as usize;
            let stored = inp.rest();
            // sizes a header claims must not be believed beyond the limits
            // (libFuzzer's malloc limit reports an allocation past 2 GB)
            let _ = chain.decode(stored, want);
            let _ = chain.decode_unsized(stored, 1 << 20);
        }
        _ => {
            let flips: Vec<(u16, u8)> = (0..1 + inp.below(4)).map(|_| (inp.u16(), inp.u8())).collect();
            let plain = inp.rest();
            let Ok(mut enc) = chain.encode(plain) else { return };
            if enc.is_empty() {
                return;
            }
            for (at, x) in flips {
                let i = at as usize % enc.len();
                enc[i] ^= x;
            }
            let _ = chain.decode(&enc, plain.len());
            let _ = chain.decode_unsized(&enc, plain.len().max(1));
        }
    }
}

/// numcodecs' vlen codecs: fuzzed buffers decoded, and items round-tripped.
fn object_codec(inp: &mut Input) {
    let expected = inp.u16() as usize;
    if inp.bool() {
        let _ = vlen::decode(inp.rest(), expected);
        return;
    }
    let mut items = Vec::new();
    while !inp.is_empty() && items.len() < 1000 {
        items.push(inp.bytes(64));
    }
    let enc = vlen::encode(items.iter().copied(), usize::MAX).expect("items this small encode");
    let ranges = vlen::decode(&enc, items.len()).expect("an encoded buffer decodes");
    let back: Vec<&[u8]> = ranges.into_iter().map(|r| &enc[r]).collect();
    assert_eq!(back, items, "vlen round trip changed the items");
}
