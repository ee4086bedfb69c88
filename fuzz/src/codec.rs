//! Target `codec`: a codec chain built from a fuzzed numcodecs JSON config
//! (ids, levels, element sizes, Blosc back ends; numbers or netCDF-C's
//! strings, in range or not), then fed fuzzed data.
//!
//! Modes (second byte): data round-tripped through encode and decode (it
//! must come back byte for byte, sized or unsized); fuzzed bytes decoded as
//! if read from a store (an error or some bytes, never a panic, never more
//! than the size asked for); an encoded chunk with fuzzed bytes changed,
//! decoded; and the `vlen-utf8`/`vlen-bytes` object codec.

use super::input::Input;
use nczarr_rs::codec::{vlen, Chain};
use serde_json::{json, Value};

const IDS: &[&str] = &["zlib", "gzip", "shuffle", "zstd", "fletcher32", "bz2", "lz4", "blosc", "unknown"];

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

/// One codec's JSON.
pub fn config(inp: &mut Input) -> Value {
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
    let configs: Vec<Value> = (0..1 + inp.below(3)).map(|_| config(&mut inp)).collect();
    let elem_size = inp.pick(&[1usize, 2, 4, 8, 16, 3, 255, 256]);
    let Ok(chain) = Chain::new(&configs, elem_size) else { return };
    match mode {
        0 => {
            let plain = inp.rest();
            let Ok(enc) = chain.encode(plain) else { return };
            let dec = chain.decode(&enc, plain.len()).unwrap_or_else(|e| panic!("{configs:?}: decode of encode: {e}"));
            assert!(dec == plain, "{configs:?}: round trip changed the data");
            let dec = chain
                .decode_unsized(&enc, plain.len().max(1))
                .unwrap_or_else(|e| panic!("{configs:?}: unsized decode of encode: {e}"));
            assert!(dec == plain, "{configs:?}: unsized round trip changed the data");
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
    let enc = vlen::encode(items.iter().copied()).expect("items this small encode");
    let ranges = vlen::decode(&enc, items.len()).expect("an encoded buffer decodes");
    let back: Vec<&[u8]> = ranges.into_iter().map(|r| &enc[r]).collect();
    assert_eq!(back, items, "vlen round trip changed the items");
}
