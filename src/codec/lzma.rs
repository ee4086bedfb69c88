//! numcodecs' `lzma` (`{"id": "lzma", "format": 1, "check": -1, "preset":
//! null, "filters": null}`): Python's `lzma.compress`/`decompress` with
//! those arguments, through liblzma (the `liblzma` crate, built
//! statically: no runtime library, no exported `lzma_*` symbol).
//!
//! - `format`: 1 `.xz` (numcodecs' default), 2 `.lzma` ("alone"), 3 raw
//!   (needs `filters`), 0 automatic (decoding only, `.xz` or `.lzma`).
//! - `check` (`.xz` only): -1 the default (CRC-64), 0 none, 1 CRC-32,
//!   4 CRC-64, 10 SHA-256.
//! - `preset`: 0-9, optionally with `PRESET_EXTREME` (`0x80000000`); null
//!   is 6.
//! - `filters`: Python's filter chain dicts: `{"id": 33}` LZMA2 or
//!   `{"id": 4611686018427387905}` LZMA1, with `preset`, `dict_size`,
//!   `lc`, `lp`, `pb`, `mode`, `nice_len`, `mf`, `depth`; `{"id": 3,
//!   "dist": n}` delta; the branch filters (4 x86, 5 PowerPC, 6 IA-64,
//!   7 ARM, 8 ARM-Thumb, 9 SPARC) with `start_offset`.
//!
//! Decoding, like Python's `lzma.decompress`, reads concatenated streams
//! and ignores trailing bytes that are not a stream. numcodecs passes its
//! filters to the `.xz` decoder, which Python refuses; here they are
//! ignored there (an `.xz` stream names its own filters). The decoder's
//! memory (mostly the dictionary a stream asks for) is limited to
//! [`MEMLIMIT`].

use super::registry::{Ctx, Decl, Stage};
use super::{Codec, CodecError, CodecResult};
use liblzma::stream::{Action, Check, Filters, LzmaOptions, MatchFinder, Mode, Status, Stream};
use serde_json::Value;

pub const DECL: Decl = Decl::numcodecs("lzma", Stage::BytesToBytes, build);

/// The most memory a decoder may use. A stream's header names its
/// dictionary size (up to 4 GiB); xz's presets use at most 64 MiB, and
/// this admits custom dictionaries up to about 1 GiB.
const MEMLIMIT: u64 = 1 << 30;

const FORMAT_AUTO: i64 = 0;
const FORMAT_XZ: i64 = 1;
const FORMAT_ALONE: i64 = 2;
const FORMAT_RAW: i64 = 3;
const FILTER_LZMA1: u64 = 0x4000_0000_0000_0001;
const FILTER_LZMA2: u64 = 0x21;
const FILTER_DELTA: u64 = 0x03;
/// Python's `PRESET_DEFAULT`.
const PRESET_DEFAULT: u32 = 6;

#[derive(Debug)]
pub struct Lzma {
    format: i64,
    check: Check,
    preset: u32,
    /// The filter chain's JSON, when given (a `Filters` holds raw
    /// pointers, so it is built for each use).
    filters: Option<Vec<Value>>,
}

fn bad(what: String) -> CodecError {
    CodecError::BadConfig("lzma", what)
}

fn int(cfg: &Value, name: &str) -> CodecResult<Option<i64>> {
    match cfg.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(v) => v.as_i64().map(Some).ok_or_else(|| bad(format!("{name} {v}"))),
    }
}

fn build(cfg: &Value, _: &Ctx) -> CodecResult<Box<dyn Codec>> {
    let format = int(cfg, "format")?.unwrap_or(FORMAT_XZ);
    if !(FORMAT_AUTO..=FORMAT_RAW).contains(&format) {
        return Err(bad(format!("format {format}")));
    }
    let check = match int(cfg, "check")?.unwrap_or(-1) {
        -1 if format == FORMAT_XZ => Check::Crc64,
        -1 | 0 => Check::None,
        1 if format == FORMAT_XZ => Check::Crc32,
        4 if format == FORMAT_XZ => Check::Crc64,
        10 if format == FORMAT_XZ => Check::Sha256,
        c => return Err(bad(format!("check {c} with format {format}"))),
    };
    let preset = match int(cfg, "preset")? {
        None => PRESET_DEFAULT,
        Some(p) => u32::try_from(p).map_err(|_| bad(format!("preset {p}")))?,
    };
    let filters = match cfg.get("filters") {
        None | Some(Value::Null) => None,
        Some(Value::Array(f)) => Some(f.clone()),
        Some(v) => return Err(bad(format!("filters {v}"))),
    };
    if format == FORMAT_RAW && filters.is_none() {
        return Err(bad("format 3 (raw) needs filters".into()));
    }
    let codec = Lzma { format, check, preset, filters };
    if let Some(f) = &codec.filters {
        chain(f)?; // the chain must be valid
    }
    Ok(Box::new(codec))
}

/// LZMA1/LZMA2 options from Python's filter dict.
fn lzma_options(f: &Value) -> CodecResult<LzmaOptions> {
    let get = |name: &str| -> CodecResult<Option<u32>> {
        match f.get(name) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => {
                v.as_u64().and_then(|n| u32::try_from(n).ok()).map(Some).ok_or_else(|| bad(format!("{name} {v}")))
            }
        }
    };
    let mut o =
        LzmaOptions::new_preset(get("preset")?.unwrap_or(PRESET_DEFAULT)).map_err(|e| bad(format!("preset: {e}")))?;
    if let Some(v) = get("dict_size")? {
        o.dict_size(v);
    }
    if let Some(v) = get("lc")? {
        o.literal_context_bits(v);
    }
    if let Some(v) = get("lp")? {
        o.literal_position_bits(v);
    }
    if let Some(v) = get("pb")? {
        o.position_bits(v);
    }
    if let Some(v) = get("mode")? {
        o.mode(match v {
            1 => Mode::Fast,
            2 => Mode::Normal,
            m => return Err(bad(format!("mode {m}"))),
        });
    }
    if let Some(v) = get("nice_len")? {
        o.nice_len(v);
    }
    if let Some(v) = get("mf")? {
        o.match_finder(match v {
            0x03 => MatchFinder::HashChain3,
            0x04 => MatchFinder::HashChain4,
            0x12 => MatchFinder::BinaryTree2,
            0x13 => MatchFinder::BinaryTree3,
            0x14 => MatchFinder::BinaryTree4,
            m => return Err(bad(format!("mf {m}"))),
        });
    }
    if let Some(v) = get("depth")? {
        o.depth(v);
    }
    Ok(o)
}

/// A liblzma filter chain from Python's list of filter dicts.
fn chain(spec: &[Value]) -> CodecResult<Filters> {
    let mut filters = Filters::new();
    for f in spec {
        let id = f.get("id").and_then(Value::as_u64).ok_or_else(|| bad(format!("filter {f}")))?;
        let prop = |e: liblzma::stream::Error| bad(format!("filter {f}: {e}"));
        match id {
            FILTER_LZMA1 => {
                filters.lzma1(&lzma_options(f)?);
            }
            FILTER_LZMA2 => {
                filters.lzma2(&lzma_options(f)?);
            }
            FILTER_DELTA => {
                let dist = f.get("dist").map_or(Some(1), Value::as_u64).filter(|d| (1..=256).contains(d));
                let dist = dist.ok_or_else(|| bad(format!("filter {f}")))?;
                filters.delta_properties(&[(dist - 1) as u8]).map_err(prop)?;
            }
            4..=9 => {
                let start = f.get("start_offset").map_or(Some(0), Value::as_u64).and_then(|s| u32::try_from(s).ok());
                let start = start.ok_or_else(|| bad(format!("filter {f}")))?;
                let props = if start == 0 { vec![] } else { start.to_le_bytes().to_vec() };
                match id {
                    4 => filters.x86_properties(&props),
                    5 => filters.powerpc_properties(&props),
                    6 => filters.ia64_properties(&props),
                    7 => filters.arm_properties(&props),
                    8 => filters.arm_thumb_properties(&props),
                    _ => filters.sparc_properties(&props),
                }
                .map_err(prop)?;
            }
            other => return Err(bad(format!("filter id {other}"))),
        }
    }
    Ok(filters)
}

impl Lzma {
    fn encoder(&self) -> CodecResult<Stream> {
        let fail = |e: liblzma::stream::Error| bad(e.to_string());
        match (self.format, &self.filters) {
            (FORMAT_XZ, None) => Stream::new_easy_encoder(self.preset, self.check).map_err(fail),
            (FORMAT_XZ, Some(f)) => Stream::new_stream_encoder(&chain(f)?, self.check).map_err(fail),
            (FORMAT_ALONE, None) => {
                Stream::new_lzma_encoder(&LzmaOptions::new_preset(self.preset).map_err(fail)?).map_err(fail)
            }
            (FORMAT_ALONE, Some(f)) => match f.as_slice() {
                [one] if one.get("id").and_then(Value::as_u64) == Some(FILTER_LZMA1) => {
                    Stream::new_lzma_encoder(&lzma_options(one)?).map_err(fail)
                }
                _ => Err(bad("format 2 (alone) takes one LZMA1 filter".into())),
            },
            (FORMAT_RAW, Some(f)) => Stream::new_raw_encoder(&chain(f)?).map_err(fail),
            _ => Err(bad(format!("cannot encode format {}", self.format))),
        }
    }

    fn decoder(&self) -> CodecResult<Stream> {
        let fail = |e: liblzma::stream::Error| bad(e.to_string());
        match (self.format, &self.filters) {
            (FORMAT_AUTO, _) => Stream::new_auto_decoder(MEMLIMIT, 0).map_err(fail),
            (FORMAT_XZ, _) => Stream::new_stream_decoder(MEMLIMIT, 0).map_err(fail),
            (FORMAT_ALONE, _) => Stream::new_lzma_decoder(MEMLIMIT).map_err(fail),
            (_, Some(f)) => Stream::new_raw_decoder(&chain(f)?).map_err(fail),
            (_, None) => Err(bad("format 3 (raw) needs filters".into())),
        }
    }
}

/// Runs `s` over `input` into `out` (within its capacity) to the end of
/// its stream. `Ok(consumed)`, or `Err` when the data is corrupt, ends
/// early, or the output does not fit.
fn run(s: &mut Stream, input: &[u8], out: &mut Vec<u8>, action: Action) -> Result<usize, CodecError> {
    let corrupt = CodecError::Corrupt("lzma");
    loop {
        let (in0, out0) = (s.total_in(), out.len());
        let consumed = usize::try_from(s.total_in()).map_err(|_| corrupt.clone())?;
        match s.process_vec(&input[consumed.min(input.len())..], out, action) {
            Ok(Status::StreamEnd) => return usize::try_from(s.total_in()).map_err(|_| corrupt),
            Ok(_) if s.total_in() != in0 || out.len() != out0 => {}
            Err(liblzma::stream::Error::MemLimit) => return Err(CodecError::NoMemory(MEMLIMIT as usize)),
            _ => return Err(corrupt),
        }
    }
}

impl Codec for Lzma {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut s = self.encoder()?;
        let mut out = Vec::new();
        let mut cap = data.len() / 2 + 1024;
        loop {
            out.try_reserve(cap).map_err(|_| CodecError::NoMemory(cap))?;
            let consumed = usize::try_from(s.total_in()).unwrap_or(data.len()).min(data.len());
            match s.process_vec(&data[consumed..], &mut out, Action::Finish) {
                Ok(Status::StreamEnd) => return Ok(out),
                Ok(_) => cap = out.capacity().max(4096),
                Err(e) => return Err(bad(e.to_string())),
            }
        }
    }

    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let mut out = Vec::new();
        // one byte more than the chunk: liblzma's .lzma (format 2) decoder
        // makes no progress without room for output, so an empty chunk's
        // stream never reached its end marker (found by fuzzing); a stream
        // that fills the extra byte is refused below
        let room = decoded_len.checked_add(1).ok_or(CodecError::NoMemory(decoded_len))?;
        out.try_reserve_exact(room).map_err(|_| CodecError::NoMemory(room))?;
        let mut rest = data;
        let mut first = true;
        // concatenated streams, as Python's lzma.decompress reads them
        while !rest.is_empty() {
            let mut s = self.decoder()?;
            let mark = out.len();
            match run(&mut s, rest, &mut out, Action::Run) {
                Ok(n) => rest = &rest[n.min(rest.len())..],
                // trailing bytes that are not a stream are ignored
                Err(CodecError::Corrupt(_)) if !first => {
                    out.truncate(mark);
                    break;
                }
                Err(e) => return Err(e),
            }
            first = false;
            if self.format == FORMAT_RAW {
                break;
            }
        }
        // more output than `decoded_len` does not fit; less is the caller's to judge
        if first || out.len() > decoded_len {
            return Err(CodecError::Corrupt("lzma"));
        }
        Ok(out)
    }
}
