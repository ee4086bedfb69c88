//! Target `attrs`: attribute and fill values through the JSON conventions
//! of spec Appendix G (`engine::json`): tolerant parsing (bare `NaN`),
//! netCDF-C's text layout, typed reading, type inference, and char text
//! holding JSON.
//!
//! Modes (first byte): fuzzed JSON text read as an attribute of a fuzzed
//! type (or with the type inferred); or fuzzed typed values written. Either
//! way the values are then written as the library writes `.zattrs` (JSON
//! text) and read back with their type, as NCZarr's `_nczarr_attr` gives
//! it. Findings: a panic; text the library writes that it cannot parse; a
//! value that does not read back bit for bit.

use super::input::Input;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::json::{json_to_values, parse, to_text, values_to_json};
use nczarr_rs::engine::types::{type_size, Values};

/// Every atomic type.
pub const TYPES: &[i32] = &[
    NC_BYTE, NC_CHAR, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64,
    NC_STRING,
];

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    if inp.bool() {
        let t = if inp.bool() { Some(inp.pick(TYPES)) } else { None };
        let Ok(j) = parse(inp.rest()) else { return };
        let text = to_text(&j);
        let again =
            parse(text.as_bytes()).unwrap_or_else(|e| panic!("{j:?} written as {text:?}, which does not parse: {e}"));
        assert_eq!(again, j, "{text:?} reads back differently");
        if let Ok(v) = json_to_values(&j, t) {
            roundtrip(&v);
        }
    } else {
        roundtrip(&values(&mut inp));
    }
}

/// Typed values made of the input's bytes.
pub fn values(inp: &mut Input) -> Values {
    let t = inp.pick(TYPES);
    match t {
        NC_STRING => {
            Values::String((0..inp.below(5)).map(|_| String::from_utf8_lossy(inp.bytes(12)).into_owned()).collect())
        }
        NC_CHAR => Values::Char(String::from_utf8_lossy(inp.bytes(24)).into_owned().into_bytes()),
        _ => {
            let size = type_size(t).expect("an atomic type");
            let n = inp.below(6);
            let bytes: Vec<u8> = (0..n * size).map(|_| inp.u8()).collect();
            Values::from_ne_bytes(t, &bytes).expect("whole elements")
        }
    }
}

/// Writes `v` as an attribute value (JSON text) and reads it back with its
/// type.
pub fn roundtrip(v: &Values) {
    // char values are written up to their first trailing NUL, as C strings
    if matches!(v, Values::Char(c) if c.last() == Some(&0)) {
        return;
    }
    let text = to_text(&values_to_json(v));
    let j = parse(text.as_bytes()).unwrap_or_else(|e| panic!("{v:?} written as {text:?}, which does not parse: {e}"));
    let back = json_to_values(&j, Some(v.nc_type())).unwrap_or_else(|e| panic!("{v:?} written as {text:?}: {e}"));
    assert!(same(v, &back), "{v:?} written as {text:?} reads back as {back:?}");
}

/// Equal, with floats compared by their bits (NaN payloads aside).
pub fn same(a: &Values, b: &Values) -> bool {
    match (a, b) {
        (Values::Float(x), Values::Float(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan())
        }
        (Values::Double(x), Values::Double(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| p.to_bits() == q.to_bits() || p.is_nan() && q.is_nan())
        }
        _ => a == b,
    }
}
