//! JSON in NCZarr metadata: tolerant parsing, netCDF-C's text layout, and
//! the conversion of attribute and fill values (spec Appendix G).

use super::consts::*;
use super::error::NC_ENCZARR;
use super::types::{Num, Values};
use super::{NcError, NcResult};
use serde_json::{Map, Number, Value};

fn bad(what: impl Into<String>) -> NcError {
    NcError::with(NC_ENCZARR, what)
}

/// Marks a bare `NaN`/`Infinity`/`-Infinity` token read by [`parse`] (as a
/// string starting with this prefix): a number, unlike the string `"NaN"`.
/// [`to_text`] writes it back bare. The prefix is U+0001, a tag random per
/// process, and `:`, so no text from a store or a caller can carry it: a
/// char or string value `"\u0001NaN"` stays text (it was written back bare,
/// and one starting with U+0001 was written as invalid JSON, found by
/// fuzzing).
static BARE: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| {
    use std::hash::{BuildHasher, Hasher};
    let tag = std::collections::hash_map::RandomState::new().build_hasher().finish();
    format!("\u{1}{tag:016x}:")
});

/// The number token of a [`BARE`]-marked string.
fn bare_token(s: &str) -> Option<&str> {
    s.strip_prefix(BARE.as_str()).filter(|t| matches!(*t, "NaN" | "Infinity" | "-Infinity"))
}

/// Marks a number token of an attribute value kept as written (`1.50`,
/// `1e3`, an integer past 64 bits), read by [`parse`] as a string starting
/// with this prefix (the [`BARE`] tag with `#`): serde_json keeps a number's
/// value, not its text, and netCDF-C returns the text of a JSON-valued
/// `char` attribute as stored. [`to_text`] writes the token back as it was;
/// it reads as the number. Tokens serde_json writes back the same stay
/// numbers.
static NUMBER: std::sync::LazyLock<String> = std::sync::LazyLock::new(|| format!("{}#", &BARE[..BARE.len() - 1]));

/// The token of a [`NUMBER`]-marked string (a JSON number's text).
fn number_token(s: &str) -> Option<&str> {
    s.strip_prefix(NUMBER.as_str()).filter(|t| serde_json::from_str::<Number>(t).is_ok())
}

/// The text a string value stands for: a marked number's or bare token's
/// text, else the string itself.
fn token_or_str(s: &str) -> &str {
    bare_token(s).or_else(|| number_token(s)).unwrap_or(s)
}

/// Whether a string value is a marked number or bare token.
fn is_marked(s: &str) -> bool {
    bare_token(s).is_some() || number_token(s).is_some()
}

/// Where a JSON container sits, for [`mark_numbers`].
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    /// metadata
    Other,
    /// an attributes object: each key an attribute
    Attrs,
    /// inside an attribute's value
    InAttr,
}

/// A container open in [`mark_numbers`]'s scan.
struct Frame {
    object: bool,
    ctx: Ctx,
    /// the last key read (objects)
    key: Option<String>,
    /// its key in its parent object
    name: Option<String>,
}

/// NCZarr's own keys among the attributes: metadata, not attribute values.
fn is_nczarr_key(key: &str) -> bool {
    key.get(..7).is_some_and(|p| p.eq_ignore_ascii_case("_nczarr"))
}

/// Whether the object at `path` (its keys from the document's root) is an
/// attributes object: Zarr v3's `attributes` (in a node, or in the root's
/// inline consolidated metadata), or a `.zattrs` in a `.zmetadata`.
fn is_attrs_path(path: &[&str]) -> bool {
    match path {
        ["attributes"] | ["consolidated_metadata", "metadata", _, "attributes"] => true,
        ["metadata", k] => *k == ".zattrs" || k.ends_with("/.zattrs"),
        _ => false,
    }
}

/// Whether serde_json writes the number `token` back as the same text.
fn is_canonical_number(token: &str) -> bool {
    let digits = token.strip_prefix('-').unwrap_or(token);
    if digits.len() <= 18 && digits.bytes().all(|c| c.is_ascii_digit()) {
        return token != "-0";
    }
    serde_json::from_str::<Number>(token).is_ok_and(|n| n.to_string() == token)
}

/// The JSON `text` with each number of an attribute value whose text
/// serde_json would not keep written as a [`NUMBER`]-marked string; `None`
/// when there is none (or the text is not well formed: the parser then says
/// why). `root` is where the document's top container sits. Attribute
/// values are the values of an attributes object (not NCZarr's `_nczarr_*`
/// keys) and all they hold.
fn mark_numbers(text: &str, root: Ctx) -> Option<String> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut out = String::new();
    let mut copied = 0;
    let mut expect_key = false;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b' ' | b'\t' | b'\n' | b'\r' | b':' => i += 1,
            b',' => {
                expect_key = stack.last().is_some_and(|f| f.object);
                i += 1;
            }
            b'{' | b'[' => {
                let (ctx, name) = match stack.last() {
                    None => (root, None),
                    Some(p) => {
                        let name = if p.object { p.key.clone() } else { None };
                        let ctx = match p.ctx {
                            Ctx::InAttr => Ctx::InAttr,
                            Ctx::Attrs if p.object && !name.as_deref().is_some_and(is_nczarr_key) => Ctx::InAttr,
                            Ctx::Attrs => Ctx::Other,
                            Ctx::Other => {
                                let mut path: Vec<&str> =
                                    stack[1..].iter().map(|f| f.name.as_deref().unwrap_or("")).collect();
                                path.push(name.as_deref().unwrap_or(""));
                                if is_attrs_path(&path) {
                                    Ctx::Attrs
                                } else {
                                    Ctx::Other
                                }
                            }
                        };
                        (ctx, name)
                    }
                };
                expect_key = c == b'{';
                stack.push(Frame { object: expect_key, ctx, key: None, name });
                i += 1;
            }
            b'}' | b']' => {
                stack.pop()?;
                expect_key = false;
                i += 1;
            }
            b'"' => {
                let start = i;
                i += 1;
                loop {
                    match *b.get(i)? {
                        b'"' => break,
                        b'\\' => i += 2,
                        _ => i += 1,
                    }
                }
                i += 1;
                if expect_key {
                    let raw = text.get(start..i)?;
                    let key = match raw.contains('\\') {
                        false => raw.get(1..raw.len() - 1)?.to_string(),
                        true => serde_json::from_str::<String>(raw).ok()?,
                    };
                    stack.last_mut()?.key = Some(key);
                    expect_key = false;
                }
            }
            b'-' | b'0'..=b'9' => {
                let start = i;
                i += 1;
                if c == b'-' && b.get(i).is_some_and(u8::is_ascii_alphabetic) {
                    continue; // -Infinity: the letters follow
                }
                while b.get(i).is_some_and(|c| matches!(c, b'0'..=b'9' | b'.' | b'e' | b'E' | b'+' | b'-')) {
                    i += 1;
                }
                let marks = stack.last().is_some_and(|f| match f.ctx {
                    Ctx::InAttr => true,
                    Ctx::Attrs => f.object && !f.key.as_deref().is_some_and(is_nczarr_key),
                    Ctx::Other => false,
                });
                let token = text.get(start..i)?;
                if marks && !is_canonical_number(token) {
                    if out.is_empty() {
                        out.reserve(text.len() + 256);
                    }
                    out.push_str(text.get(copied..start)?);
                    // the marker as JSON string text
                    out.push_str("\"\\u0001");
                    out.push_str(&NUMBER[1..]);
                    out.push_str(token);
                    out.push('"');
                    copied = i;
                }
            }
            c if c.is_ascii_alphabetic() => {
                while b.get(i).is_some_and(u8::is_ascii_alphabetic) {
                    i += 1;
                }
            }
            _ => return None,
        }
    }
    if copied == 0 {
        return None;
    }
    out.push_str(text.get(copied..)?);
    Some(out)
}

/// Parses a metadata object. Bare `NaN`, `Infinity` and `-Infinity` tokens
/// (invalid JSON that netCDF-C 4.9.0, zarr-python and xarray write) are read
/// as [`BARE`]-marked strings, which read as numbers. The numbers of
/// attribute values (Zarr v3's `attributes`, a `.zmetadata`'s `.zattrs`)
/// keep their text ([`NUMBER`]).
pub fn parse(bytes: &[u8]) -> NcResult<Value> {
    parse_in(bytes, Ctx::Other, true)
}

/// [`parse`] for the metadata object `key`: in a `.zattrs`, each key is an
/// attribute.
pub fn parse_object(key: &crate::map::StoreKey, bytes: &[u8]) -> NcResult<Value> {
    parse_in(bytes, if key.name() == ".zattrs" { Ctx::Attrs } else { Ctx::Other }, true)
}

fn parse_in(bytes: &[u8], root: Ctx, tolerant: bool) -> NcResult<Value> {
    let marked = std::str::from_utf8(bytes).ok().and_then(|t| mark_numbers(t, root));
    let bytes = marked.as_deref().map_or(bytes, str::as_bytes);
    match serde_json::from_slice(bytes) {
        Ok(v) => Ok(v),
        Err(first) if tolerant => {
            let text = std::str::from_utf8(bytes).map_err(|e| bad(format!("not UTF-8 at byte {}", e.valid_up_to())))?;
            let fixed = quote_bare_specials(text);
            serde_json::from_str(&fixed).map_err(|_| bad(format!("bad JSON: {first}")))
        }
        Err(e) => Err(bad(format!("bad JSON: {e}"))),
    }
}

fn quote_bare_specials(text: &str) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    let mut in_str = false;
    let mut escaped = false;
    let mut rest = text;
    while let Some(c) = rest.chars().next() {
        if in_str {
            out.push(c);
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_str = false;
            }
            rest = &rest[c.len_utf8()..];
            continue;
        }
        if c == '"' {
            in_str = true;
        } else {
            for tok in ["-Infinity", "Infinity", "NaN"] {
                if rest.starts_with(tok) {
                    // the marker as JSON string text
                    out.push_str("\"\\u0001");
                    out.push_str(&BARE[1..]);
                    out.push_str(tok);
                    out.push('"');
                    rest = &rest[tok.len()..];
                    break;
                }
            }
            if !rest.starts_with(c) {
                continue;
            }
        }
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}

/// Serialises like netCDF-C's `NCJunparse`: `{"k": v, "k2": v2}` and
/// `[a,b,c]`, keys in insertion order, no trailing newline.
pub fn to_text(v: &Value) -> String {
    let mut s = String::with_capacity(256);
    write_value(v, &mut s);
    s
}

/// `s` as a JSON string, escaped as serde_json escapes it (`"`, `\\`, and
/// the control characters; `\b \f \n \r \t` by name, the others `\u00XX`).
fn write_str(s: &str, out: &mut String) {
    out.push('"');
    let mut plain = 0;
    for (i, b) in s.bytes().enumerate() {
        let esc = match b {
            b'"' => "\\\"",
            b'\\' => "\\\\",
            b'\n' => "\\n",
            b'\r' => "\\r",
            b'\t' => "\\t",
            0x08 => "\\b",
            0x0c => "\\f",
            0..=0x1f => "",
            _ => continue,
        };
        out.push_str(&s[plain..i]);
        if esc.is_empty() {
            out.push_str(&format!("\\u{b:04x}"));
        } else {
            out.push_str(esc);
        }
        plain = i + 1;
    }
    out.push_str(&s[plain..]);
    out.push('"');
}

fn write_value(v: &Value, out: &mut String) {
    match v {
        Value::Object(m) => {
            out.push('{');
            for (i, (k, v)) in m.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_str(k, out);
                out.push_str(": ");
                write_value(v, out);
            }
            out.push('}');
        }
        Value::Array(a) => {
            out.push('[');
            for (i, v) in a.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                write_value(v, out);
            }
            out.push(']');
        }
        Value::String(s) => match bare_token(s).or_else(|| number_token(s)) {
            Some(token) => out.push_str(token),
            None => write_str(s, out),
        },
        // numbers, booleans, null: serde_json's text, written in place
        other => {
            use std::fmt::Write;
            let _ = write!(out, "{other}");
        }
    }
}

pub fn f64_json(x: f64) -> Value {
    if x.is_nan() {
        Value::String("NaN".into())
    } else if x.is_infinite() {
        Value::String(if x > 0.0 { "Infinity" } else { "-Infinity" }.into())
    } else {
        Value::Number(Number::from_f64(x).expect("finite"))
    }
}

/// A float written with the shortest text that reads back (as a double,
/// then rounded to float) to the same bits.
pub fn f32_json(x: f32) -> Value {
    if !x.is_finite() {
        return f64_json(x as f64);
    }
    let short: f64 = format!("{x}").parse().expect("Display of f32 parses");
    if short as f32 == x {
        Value::Number(Number::from_f64(short).expect("finite"))
    } else {
        f64_json(x as f64)
    }
}

fn one_or_many(mut items: Vec<Value>) -> Value {
    if items.len() == 1 {
        items.pop().expect("one item")
    } else {
        Value::Array(items)
    }
}

/// An attribute or fill value as JSON (spec Appendix G, "Writing"). A char
/// value is written as a JSON string, except that text holding a JSON object
/// or array is written as that JSON (the GDAL-style convention).
pub fn values_to_json(v: &Values) -> Value {
    macro_rules! ints {
        ($x:expr) => {
            one_or_many($x.iter().map(|n| Value::from(*n)).collect())
        };
    }
    match v {
        Values::Byte(x) => ints!(x),
        Values::Short(x) => ints!(x),
        Values::Int(x) => ints!(x),
        Values::UByte(x) => ints!(x),
        Values::UShort(x) => ints!(x),
        Values::UInt(x) => ints!(x),
        Values::Int64(x) => ints!(x),
        Values::UInt64(x) => ints!(x),
        Values::Float(x) => one_or_many(x.iter().map(|f| f32_json(*f)).collect()),
        Values::Double(x) => one_or_many(x.iter().map(|f| f64_json(*f)).collect()),
        Values::String(x) => one_or_many(x.iter().map(|s| Value::String(s.clone())).collect()),
        Values::Char(bytes) => {
            // JSON text is written as that JSON only when netCDF-C's layout
            // of it is the same text, so that it reads back byte for byte
            // (netCDF-C re-serialises what it reads); else as a string.
            let text = String::from_utf8_lossy(bytes);
            let text = text.trim_end_matches('\0');
            if text.starts_with('{') || text.starts_with('[') {
                if let Ok(j @ (Value::Object(_) | Value::Array(_))) = parse_in(text.as_bytes(), Ctx::InAttr, false) {
                    if to_text(&j) == text {
                        return j;
                    }
                }
            }
            Value::String(text.to_string())
        }
    }
}

/// A JSON number or special float string as a number.
fn json_num(j: &Value) -> Option<Num> {
    match j {
        Value::Number(n) => {
            if let Some(i) = n.as_i64() {
                Some(Num::I(i as i128))
            } else if let Some(u) = n.as_u64() {
                Some(Num::I(u as i128))
            } else {
                n.as_f64().map(Num::F)
            }
        }
        Value::Bool(b) => Some(Num::I(*b as i128)),
        Value::String(s) if number_token(s).is_some() => {
            let t = number_token(s)?;
            match (t.parse::<i64>(), t.parse::<u64>()) {
                (Ok(i), _) => Some(Num::I(i as i128)),
                (_, Ok(u)) => Some(Num::I(u as i128)),
                _ => t.parse::<f64>().ok().map(Num::F),
            }
        }
        Value::String(s) => match bare_token(s).unwrap_or(s).to_ascii_lowercase().as_str() {
            "nan" | "-nan" | "nanf" => Some(Num::F(f64::NAN)),
            "infinity" | "infinityf" | "inf" => Some(Num::F(f64::INFINITY)),
            "-infinity" | "-infinityf" | "-inf" => Some(Num::F(f64::NEG_INFINITY)),
            _ => None,
        },
        _ => None,
    }
}

fn is_integral(j: &Value) -> bool {
    match j {
        Value::Number(n) => n.is_i64() || n.is_u64(),
        Value::String(s) => number_token(s).is_some_and(|t| t.parse::<i64>().is_ok() || t.parse::<u64>().is_ok()),
        _ => false,
    }
}

/// netCDF-C's integer type inference: int, uint, int64, uint64.
fn infer_int_type(nums: &[Num]) -> NcType {
    let (mut lo, mut hi) = (0i128, 0i128);
    for n in nums {
        if let Num::I(i) = n {
            lo = lo.min(*i);
            hi = hi.max(*i);
        }
    }
    if lo >= i32::MIN as i128 && hi <= i32::MAX as i128 {
        NC_INT
    } else if lo >= 0 && hi <= u32::MAX as i128 {
        NC_UINT
    } else if lo >= i64::MIN as i128 && hi <= i64::MAX as i128 {
        NC_INT64
    } else {
        NC_UINT64
    }
}

/// An attribute value read from JSON (spec Appendix G, "Reading"), with
/// the type from `_nczarr_attr` when known, else inferred from the JSON.
pub fn json_to_values(j: &Value, t: Option<NcType>) -> NcResult<Values> {
    let items: Vec<&Value> = match j {
        Value::Array(a) => a.iter().collect(),
        other => vec![other],
    };
    match t {
        Some(NC_CHAR) => Ok(Values::Char(match j {
            Value::String(s) => token_or_str(s).as_bytes().to_vec(),
            other => to_text(other).into_bytes(),
        })),
        Some(NC_STRING) => Ok(Values::String(
            items
                .iter()
                .map(|v| match v {
                    Value::String(s) => token_or_str(s).to_string(),
                    other => to_text(other),
                })
                .collect(),
        )),
        Some(t) => Ok(json_to_values_ranged(j, t)?.0),
        None => {
            // A string is char; a list of strings, a dictionary or a nested
            // list is its JSON text, as netCDF-C reads them.
            if let Value::String(s) = j {
                if !is_marked(s) {
                    return Ok(Values::Char(s.as_bytes().to_vec()));
                }
            }
            let nums: Option<Vec<Num>> = items
                .iter()
                .map(|v| match v {
                    Value::Number(_) | Value::Bool(_) => json_num(v),
                    Value::String(s) if is_marked(s) => json_num(v),
                    _ => None,
                })
                .collect();
            match nums {
                Some(nums) if !nums.is_empty() => {
                    let t = if items.iter().all(|v| v.is_boolean()) {
                        NC_UBYTE
                    } else if items.iter().all(|v| is_integral(v) || v.is_boolean()) {
                        infer_int_type(&nums)
                    } else {
                        NC_DOUBLE
                    };
                    Ok(Values::from_nums(t, &nums)?.0)
                }
                _ => Ok(Values::Char(to_text(j).into_bytes())),
            }
        }
    }
}

/// Numbers from JSON as numeric type `t`, and whether one did not fit it
/// (the values are then converted as netCDF-C converts them).
pub fn json_to_values_ranged(j: &Value, t: NcType) -> NcResult<(Values, bool)> {
    let num = |v: &Value| json_num(v).or_else(|| quoted_num(v));
    let nums: Option<Vec<Num>> = match j {
        Value::Array(a) => a.iter().map(num).collect(),
        other => num(other).map(|n| vec![n]),
    };
    let nums = nums.ok_or_else(|| bad(format!("attribute value {} does not fit its type", to_text(j))))?;
    Values::from_nums(t, &nums)
}

/// A string holding a number (`"1.5"`, `"7"`), where a number of a numeric
/// type is expected: read as that number, as netCDF-C's development head
/// reads a quoted fill value (4.10.1 aborts on one).
fn quoted_num(j: &Value) -> Option<Num> {
    let s = j.as_str()?.trim();
    match (s.parse::<i64>(), s.parse::<u64>()) {
        (Ok(i), _) => Some(Num::I(i as i128)),
        (_, Ok(u)) => Some(Num::I(u as i128)),
        _ => s.parse::<f64>().ok().filter(|f| f.is_finite()).map(Num::F),
    }
}

/// Looks up `key` (or its uppercase 4.9.0 spelling) in an object.
pub fn get_either<'a>(obj: &'a Map<String, Value>, lower: &str) -> Option<&'a Value> {
    obj.get(lower).or_else(|| obj.get(&lower.to_ascii_uppercase()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Strings and keys are escaped exactly as serde_json escapes them
    /// (the text netCDF-C and the interop tests compare byte for byte).
    #[test]
    fn strings_are_escaped_as_serde_json_does() {
        let mut samples: Vec<String> = (0u32..0x80).map(|c| char::from_u32(c).unwrap().to_string()).collect();
        samples.extend(
            ["", "plain", "a\"b\\c\u{1}d\u{7f}e", "é中\u{1F600}\n", "\\u0000", "x\ty\r\u{8}\u{c}\u{1f}"]
                .map(String::from),
        );
        for s in samples {
            let v = Value::Object(Map::from_iter([(s.clone(), Value::String(s.clone()))]));
            let want = format!("{{{}: {}}}", Value::String(s.clone()), Value::String(s.clone()));
            assert_eq!(to_text(&v), want, "{s:?}");
        }
        let v = serde_json::json!({"n": [1, -2.5, 1e300, true, null], "u": 18446744073709551615u64});
        assert_eq!(to_text(&v), r#"{"n": [1,-2.5,1e+300,true,null], "u": 18446744073709551615}"#);
    }

    #[test]
    fn tolerant_parse() {
        let text = r#"{"fill_value": NaN, "s": "NaN inside", "x": -Infinity, "q": "NaN"}"#;
        let v = parse(text.as_bytes()).unwrap();
        assert_eq!(v["s"], "NaN inside");
        assert_eq!(to_text(&v), text, "bare tokens are written back bare");
        // bare tokens are numbers (NC_DOUBLE), quoted ones text
        assert!(matches!(json_to_values(&v["fill_value"], None).unwrap(), Values::Double(d) if d[0].is_nan()));
        assert_eq!(json_to_values(&v["x"], None).unwrap(), Values::Double(vec![f64::NEG_INFINITY]));
        assert_eq!(json_to_values(&v["q"], None).unwrap(), Values::Char(b"NaN".to_vec()));
        assert_eq!(json_to_values(&v["x"], Some(NC_FLOAT)).unwrap(), Values::Float(vec![f32::NEG_INFINITY]));
        let list = parse(br#"[1.5, NaN, Infinity]"#).unwrap();
        assert!(matches!(json_to_values(&list, None).unwrap(), Values::Double(d) if d.len() == 3 && d[1].is_nan()));
        assert!(parse(b"{not json").is_err());
    }

    #[test]
    fn netcdf_c_text_layout() {
        let v: Value = serde_json::from_str(r#"{"zarr_format":2,"shape":[4,3],"a":{"b":null}}"#).unwrap();
        assert_eq!(to_text(&v), r#"{"zarr_format": 2, "shape": [4,3], "a": {"b": null}}"#);
    }

    #[test]
    fn floats_roundtrip_exactly() {
        for x in [0.1f32, NC_FILL_FLOAT, 3.4028235e38, 1e-45, 16777217.0] {
            let j = f32_json(x);
            let back = json_to_values(&j, Some(NC_FLOAT)).unwrap();
            assert_eq!(back, Values::Float(vec![x]), "{j}");
        }
        assert_eq!(f32_json(0.1).to_string(), "0.1");
        for x in [std::f64::consts::PI, NC_FILL_DOUBLE, 123456789.0, 5e-324] {
            assert_eq!(json_to_values(&f64_json(x), Some(NC_DOUBLE)).unwrap(), Values::Double(vec![x]));
        }
        assert_eq!(f64_json(f64::NAN), "NaN");
    }

    #[test]
    fn attribute_inference() {
        let j: Value = serde_json::from_str(r#"[1, 2, 3]"#).unwrap();
        assert_eq!(json_to_values(&j, None).unwrap(), Values::Int(vec![1, 2, 3]));
        let j: Value = serde_json::from_str(r#"[1, 5000000000]"#).unwrap();
        assert_eq!(json_to_values(&j, None).unwrap().nc_type(), NC_INT64);
        let j: Value = serde_json::from_str(r#"[1, 2.5]"#).unwrap();
        assert_eq!(json_to_values(&j, None).unwrap(), Values::Double(vec![1.0, 2.5]));
        let j: Value = serde_json::from_str(r#"["a", "bc"]"#).unwrap();
        assert_eq!(json_to_values(&j, None).unwrap(), Values::Char(br#"["a","bc"]"#.to_vec()));
        assert_eq!(json_to_values(&j, Some(NC_STRING)).unwrap(), Values::String(vec!["a".into(), "bc".into()]));
        let j: Value = serde_json::from_str(r#"{"a": [1, {"b": 2}]}"#).unwrap();
        assert_eq!(json_to_values(&j, None).unwrap(), Values::Char(br#"{"a": [1,{"b": 2}]}"#.to_vec()));
        assert_eq!(json_to_values(&Value::Bool(true), None).unwrap(), Values::UByte(vec![1]));
    }

    /// The numbers of attribute values keep their text (issue 27, point 3);
    /// metadata's numbers, and NCZarr's own keys, stay numbers.
    #[test]
    fn attribute_numbers_keep_their_text() {
        let zattrs = br#"{"j": {"f": 1.50, "e": [1e3, 1E+3, -0.0, 2]}, "d": 2.50, "_nczarr_group": {"x": 1.50}}"#;
        let v = parse_object(&crate::map::StoreKey::parse("g/.zattrs").unwrap(), zattrs).unwrap();
        assert_eq!(to_text(&v["j"]), r#"{"f": 1.50, "e": [1e3,1E+3,-0.0,2]}"#);
        assert_eq!(v["j"]["e"][3], 2, "integers serde_json keeps stay numbers");
        assert_eq!(json_to_values(&v["d"], None).unwrap(), Values::Double(vec![2.5]));
        assert_eq!(to_text(&v["d"]), "2.50");
        assert_eq!(json_to_values(&v["j"]["e"], None).unwrap(), Values::Double(vec![1e3, 1e3, -0.0, 2.0]));
        assert_eq!(v["_nczarr_group"]["x"], 1.5, "NCZarr's keys are metadata");
        let zarray = br#"{"fill_value": 1.50, "compressor": {"level": 1e0}}"#;
        let v = parse_object(&crate::map::StoreKey::parse("v/.zarray").unwrap(), zarray).unwrap();
        assert_eq!((&v["fill_value"], &v["compressor"]["level"]), (&json!(1.5), &json!(1.0)));
        let v3 = br#"{"fill_value": 1.50, "codecs": [{"configuration": {"level": 1e0}}], "attributes": {"a": [1.50]},
            "consolidated_metadata": {"metadata": {"v": {"fill_value": 2.50, "attributes": {"b": 2.50}}}}}"#;
        let v = parse(v3).unwrap();
        assert_eq!((&v["fill_value"], &v["codecs"][0]["configuration"]["level"]), (&json!(1.5), &json!(1.0)));
        assert_eq!(v["consolidated_metadata"]["metadata"]["v"]["fill_value"], 2.5);
        assert_eq!(to_text(&v["attributes"]), r#"{"a": [1.50]}"#);
        assert_eq!(to_text(&v["consolidated_metadata"]["metadata"]["v"]["attributes"]), r#"{"b": 2.50}"#);
        let zmetadata =
            br#"{"metadata": {".zattrs": {"a": 1.50}, "v/.zattrs": {"b": [2.50]}, "v/.zarray": {"fill_value": 1.50}}}"#;
        let v = parse(zmetadata).unwrap();
        assert_eq!(
            to_text(&v["metadata"]),
            r#"{".zattrs": {"a": 1.50}, "v/.zattrs": {"b": [2.50]}, "v/.zarray": {"fill_value": 1.5}}"#
        );
        // the text of a char attribute: written as that JSON, exactly
        let text = r#"{"k": "v", "n": null, "f": 1.50, "i": 123456789012345678901234}"#;
        let j = values_to_json(&Values::Char(text.as_bytes().to_vec()));
        assert!(j.is_object());
        assert_eq!(to_text(&j), text);
        assert_eq!(json_to_values(&j, Some(NC_CHAR)).unwrap(), Values::Char(text.as_bytes().to_vec()));
        // malformed text: no marks, the parser's error
        for bad_text in [&br#"{"a": [1.50"#[..], br#"{"a": 1.5]]]"#, br#"{"a": "1.50"#, b"\xff1.50", br#"{"\u"#] {
            assert!(parse_object(&crate::map::StoreKey::parse(".zattrs").unwrap(), bad_text).is_err());
        }
    }

    #[test]
    fn json_convention_for_char() {
        assert_eq!(values_to_json(&Values::Char(br#"{"a": 1}"#.to_vec())), serde_json::json!({"a": 1}));
        assert_eq!(values_to_json(&Values::Char(br#"{"a": [1,2]}"#.to_vec())), serde_json::json!({"a": [1, 2]}));
        // text netCDF-C would lay out differently stays text, byte for byte
        for text in [r#"{"a": [1, 2]}"#, r#"{"a":1}"#, r#" [1,2]"#, r#"[1, 2]"#] {
            let j = values_to_json(&Values::Char(text.as_bytes().to_vec()));
            assert_eq!(j, Value::String(text.into()));
            assert_eq!(json_to_values(&j, Some(NC_CHAR)).unwrap(), Values::Char(text.as_bytes().to_vec()));
        }
        assert_eq!(values_to_json(&Values::Char(b"0".to_vec())), Value::String("0".into()));
        assert_eq!(values_to_json(&Values::Char(b"[not json".to_vec())), Value::String("[not json".into()));
    }
}
