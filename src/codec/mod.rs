//! Chunk codecs: the Zarr v2 `filters` and `compressor` of a variable.
//!
//! Codecs know nothing of netCDF: they turn bytes into bytes. A chain is
//! built from the codec JSON of `.zarray` (numcodecs' names and
//! parameters); encoding applies the filters in order and then the
//! compressor, decoding the reverse. Codecs this build does not have make
//! the chain unavailable ([`CodecError::Unknown`]), which the engine reports
//! as `NC_ENOFILTER`, as netCDF-C does without the plugin.

mod blosc;
mod bz2;
mod fletcher32;
mod lz4;
mod shuffle;
pub mod vlen;
mod zlib;
mod zstd;

pub use blosc::CNAMES as BLOSC_CNAMES;
pub use zstd::LEVELS as ZSTD_LEVELS;

use serde_json::Value;

#[derive(Debug, thiserror::Error)]
pub enum CodecError {
    #[error("codec {0:?} is not available in this build")]
    Unknown(String),
    #[error("bad parameters for codec {0}: {1}")]
    BadConfig(&'static str, String),
    #[error("{0}: corrupt or truncated data")]
    Corrupt(&'static str),
    /// The output buffer could not be allocated.
    #[error("cannot allocate {0} bytes")]
    NoMemory(usize),
}

/// A zeroed output buffer of `n` bytes, allocated fallibly.
fn out_buf(n: usize) -> CodecResult<Vec<u8>> {
    crate::limits::try_zeroed(n as u64, u64::MAX).map_err(|_| CodecError::NoMemory(n))
}

pub type CodecResult<T> = Result<T, CodecError>;

/// One codec.
pub trait Codec: Send + Sync + std::fmt::Debug {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>>;
    /// `decoded_len`: the size the decoded data must have, when known.
    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>>;
    /// The size `encode` makes of `decoded_len` bytes, for the codecs that
    /// know it without compressing (filters such as a checksum); a chain
    /// uses it to tell each decoder the size its output must have.
    fn encoded_len(&self, _decoded_len: usize) -> Option<usize> {
        None
    }
    /// The decoded size an encoded buffer announces (a frame or block
    /// header), for decoding chunks whose size is not known in advance.
    fn announced_len(&self, _data: &[u8]) -> Option<usize> {
        None
    }
}

/// A number from a codec parameter: netCDF-C 4.9 writes them as strings.
fn param(cfg: &Value, name: &str) -> Option<i64> {
    match cfg.get(name)? {
        Value::Number(n) => n.as_i64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

/// Builds one codec from its JSON. `elem_size`: the size of the array's
/// elements (shuffle's default).
pub fn from_json(cfg: &Value, elem_size: usize) -> CodecResult<Box<dyn Codec>> {
    let id = cfg.get("id").and_then(Value::as_str).unwrap_or("");
    match id {
        "zlib" | "gzip" => {
            let level = param(cfg, "level").unwrap_or(1);
            if !(-1..=9).contains(&level) {
                return Err(CodecError::BadConfig("zlib", format!("level {level}")));
            }
            Ok(Box::new(zlib::Zlib { level: level as i32, gzip: id == "gzip" }))
        }
        "shuffle" => {
            let size = match param(cfg, "elementsize") {
                None | Some(0) => elem_size,
                Some(n) if n > 0 => n as usize,
                Some(n) => return Err(CodecError::BadConfig("shuffle", format!("elementsize {n}"))),
            };
            Ok(Box::new(shuffle::Shuffle { size }))
        }
        "zstd" => {
            // numcodecs' default level is 1; 0 is libzstd's default (3)
            let level = param(cfg, "level").unwrap_or(1);
            if !zstd::LEVELS.contains(&level) {
                return Err(CodecError::BadConfig("zstd", format!("level {level}")));
            }
            let checksum = match cfg.get("checksum") {
                None | Some(Value::Null) => false,
                Some(Value::Bool(b)) => *b,
                Some(v) => return Err(CodecError::BadConfig("zstd", format!("checksum {v}"))),
            };
            Ok(Box::new(zstd::Zstd { level: level as i32, checksum }))
        }
        "fletcher32" => Ok(Box::new(fletcher32::Fletcher32)),
        "bz2" => {
            // numcodecs' default level is 1
            let level = param(cfg, "level").unwrap_or(1);
            if !(1..=9).contains(&level) {
                return Err(CodecError::BadConfig("bz2", format!("level {level}")));
            }
            Ok(Box::new(bz2::Bz2 { level: level as u32 }))
        }
        // numcodecs' `acceleration` tunes liblz4's encoder only (see lz4.rs)
        "lz4" => Ok(Box::new(lz4::Lz4)),
        "blosc" => {
            let cname = cfg.get("cname").and_then(Value::as_str).unwrap_or("lz4");
            let clevel = param(cfg, "clevel").unwrap_or(5);
            let shuffle = param(cfg, "shuffle").unwrap_or(1);
            let blocksize = param(cfg, "blocksize").unwrap_or(0);
            Ok(Box::new(blosc::Blosc::new(cname, clevel, shuffle, blocksize, elem_size)?))
        }
        other => Err(CodecError::Unknown(other.to_string())),
    }
}

/// The codecs of one array, in `filters`-then-`compressor` order.
#[derive(Debug)]
pub struct Chain {
    codecs: Vec<Box<dyn Codec>>,
}

impl Chain {
    pub fn new(configs: &[Value], elem_size: usize) -> CodecResult<Chain> {
        Ok(Chain { codecs: configs.iter().map(|c| from_json(c, elem_size)).collect::<CodecResult<_>>()? })
    }

    pub fn is_empty(&self) -> bool {
        self.codecs.is_empty()
    }

    pub fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>> {
        let mut cur = data.to_vec();
        for c in &self.codecs {
            cur = c.encode(&cur)?;
        }
        Ok(cur)
    }

    /// Decodes a chunk whose decoded size is not known (variable-length
    /// items), of at most `limit` bytes: each codec is given the size its
    /// encoded data announces, else increasing guesses up to `limit`.
    pub fn decode_unsized(&self, data: &[u8], limit: usize) -> CodecResult<Vec<u8>> {
        let mut cur = data.to_vec();
        for (i, c) in self.codecs.iter().enumerate().rev() {
            cur = decode_unknown(&**c, &cur, if i == 0 { limit } else { stage_limit(limit) })?;
        }
        Ok(cur)
    }

    /// Decodes a chunk whose decoded size is `decoded_len`. Each codec is
    /// told the size its output must have: the chunk's size, grown by the
    /// filters before it that know how much they add (a checksum). Past a
    /// codec that does not know (a compressor under another one), the size
    /// is what the data announces, else found as for an unsized chunk, up to
    /// [`stage_limit`]. (Giving them the chunk's size failed such stacked
    /// chains, found by fuzzing.)
    pub fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>> {
        let mut sizes = Vec::with_capacity(self.codecs.len());
        let mut size = Some(decoded_len);
        for c in &self.codecs {
            sizes.push(size);
            size = size.and_then(|n| c.encoded_len(n));
        }
        let mut cur = data.to_vec();
        for (c, &n) in self.codecs.iter().zip(&sizes).rev() {
            cur = match n {
                Some(n) => c.decode(&cur, n)?,
                None => decode_unknown(&**c, &cur, stage_limit(decoded_len))?,
            };
        }
        Ok(cur)
    }
}

/// The most an intermediate stage of a chain (the encoded form of the
/// codecs before it) can hold for a chunk of `n` bytes: compressors expand
/// incompressible data by far less than 1/16 plus 64 KiB.
fn stage_limit(n: usize) -> usize {
    n.saturating_add(n / 16).saturating_add(1 << 16)
}

/// One codec's decoding of data whose decoded size is not known, of at
/// most `limit` bytes: the size the data announces, else increasing guesses.
fn decode_unknown(c: &dyn Codec, data: &[u8], limit: usize) -> CodecResult<Vec<u8>> {
    if let Some(n) = c.announced_len(data) {
        if n > limit {
            return Err(CodecError::NoMemory(n));
        }
        return c.decode(data, n);
    }
    // (a limit under 4096 made `clamp` panic, found by fuzzing)
    let mut guess = data.len().saturating_mul(4).max(4096).min(limit.max(1));
    loop {
        match c.decode(data, guess) {
            Ok(out) => return Ok(out),
            Err(CodecError::Corrupt(_)) if guess < limit => guess = guess.saturating_mul(4).min(limit),
            Err(e) => return Err(e),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn chains_roundtrip() {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 7).to_le_bytes()).collect();
        for cfg in [
            vec![json!({"id": "zlib", "level": 5})],
            vec![json!({"id": "shuffle", "elementsize": 4}), json!({"id": "zlib", "level": "9"})],
            vec![json!({"id": "shuffle", "elementsize": 0}), json!({"id": "gzip", "level": 1})],
            vec![json!({"id": "zstd", "level": 0, "checksum": false})],
            vec![json!({"id": "shuffle", "elementsize": 4}), json!({"id": "zstd", "level": "19", "checksum": true})],
            vec![json!({"id": "zstd", "level": -5})],
            vec![json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1, "blocksize": 0})],
            vec![json!({"id": "blosc", "cname": "zstd", "clevel": 3, "shuffle": 2, "blocksize": 0})],
            vec![json!({"id": "blosc", "cname": "zlib", "clevel": 9, "shuffle": -1, "blocksize": 256})],
            vec![json!({"id": "blosc", "cname": "blosclz", "clevel": 1, "shuffle": 0})],
            vec![json!({"id": "blosc", "cname": "lz4hc"})],
            vec![json!({"id": "bz2", "level": 9})],
            vec![json!({"id": "shuffle", "elementsize": 4}), json!({"id": "bz2", "level": "1"})],
            vec![json!({"id": "lz4", "acceleration": 1})],
            vec![json!({"id": "shuffle", "elementsize": 4}), json!({"id": "lz4"})],
            vec![json!({"id": "gzip", "level": 9})],
            vec![json!({"id": "fletcher32"}), json!({"id": "zlib", "level": 1})],
            vec![json!({"id": "shuffle"}), json!({"id": "fletcher32"}), json!({"id": "blosc"})],
            vec![json!({"id": "fletcher32"}), json!({"id": "fletcher32"}), json!({"id": "zstd"})],
            vec![json!({"id": "fletcher32"}), json!({"id": "lz4"})],
            vec![json!({"id": "fletcher32"}), json!({"id": "bz2"})],
            vec![],
        ] {
            let chain = Chain::new(&cfg, 4).unwrap();
            let enc = chain.encode(&data).unwrap();
            if !cfg.is_empty() {
                assert!(enc.len() < data.len() / 2, "{cfg:?} compressed to {}", enc.len());
            }
            assert_eq!(chain.decode(&enc, data.len()).unwrap(), data, "{cfg:?}");
        }
    }

    #[test]
    fn fletcher32_checksum() {
        // HDF5's H5_checksum_fletcher32 (numcodecs gives the same values; odd length, more
        // than 360 words, empty)
        assert_eq!(fletcher32::checksum(b""), 0);
        assert_eq!(fletcher32::checksum(b"abcde"), 0x4FF0_29C7);
        assert_eq!(fletcher32::checksum(b"abcdef"), 0x5056_2A2D);
        assert_eq!(fletcher32::checksum(b"abcdefgh"), 0xE1EB_9195);
        let chain = Chain::new(&[json!({"id": "fletcher32"})], 4).unwrap();
        for n in [0usize, 1, 2, 719, 720, 721, 5000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7919 % 251) as u8).collect();
            let enc = chain.encode(&data).unwrap();
            assert_eq!(enc.len(), n + 4);
            assert_eq!(&enc[n..], fletcher32::checksum(&data).to_le_bytes());
            assert_eq!(chain.decode(&enc, n).unwrap(), data);
            // every flipped bit, in the data or the checksum, is caught
            for pos in [0, n / 2, n + 3] {
                if pos < enc.len() {
                    let mut bad = enc.clone();
                    bad[pos] ^= 0x01;
                    assert!(matches!(chain.decode(&bad, n), Err(CodecError::Corrupt(_))), "n {n} pos {pos}");
                }
            }
        }
        assert!(matches!(chain.decode(&[1, 2, 3], 0), Err(CodecError::Corrupt(_))));
    }

    #[test]
    fn bz2_lz4_gzip_formats() {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
        // bzip2: a standard stream ("BZh" + block size digit)
        let bz = Chain::new(&[json!({"id": "bz2", "level": 7})], 4).unwrap();
        let enc = bz.encode(&data).unwrap();
        assert_eq!(&enc[..4], b"BZh7");
        assert!(matches!(bz.decode(&enc[..enc.len() - 5], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(bz.decode(&enc, data.len() - 1), Err(CodecError::Corrupt(_))));
        assert!(matches!(bz.decode(b"BZh9 not really", data.len()), Err(CodecError::Corrupt(_))));
        for bad in [json!({"id": "bz2", "level": 0}), json!({"id": "bz2", "level": 10})] {
            assert!(matches!(Chain::new(&[bad], 4), Err(CodecError::BadConfig(..))));
        }
        // lz4: little-endian size, then a block
        let lz = Chain::new(&[json!({"id": "lz4", "acceleration": 3})], 4).unwrap();
        let enc = lz.encode(&data).unwrap();
        assert_eq!(enc[..4], (data.len() as u32).to_le_bytes());
        assert_eq!(lz4_flex::block::decompress(&enc[4..], data.len()).unwrap(), data);
        assert!(matches!(lz.decode(&enc[..enc.len() - 3], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(lz.decode(&enc, data.len() - 1), Err(CodecError::Corrupt(_))));
        assert!(matches!(lz.decode(&enc[..3], data.len()), Err(CodecError::Corrupt(_))));
        // gzip: a gzip member (magic 1f 8b, deflate)
        let gz = Chain::new(&[json!({"id": "gzip", "level": 5})], 4).unwrap();
        let enc = gz.encode(&data).unwrap();
        assert_eq!(enc[..3], [0x1f, 0x8b, 8]);
        assert_eq!(gz.decode(&enc, data.len()).unwrap(), data);
    }

    #[test]
    fn unknown_and_bad() {
        assert!(matches!(Chain::new(&[json!({"id": "lzma"})], 4), Err(CodecError::Unknown(_))));
        assert!(matches!(Chain::new(&[json!({"id": "blosc", "cname": "snappy"})], 4), Err(CodecError::Unknown(_))));
        for bad in [
            json!({"id": "blosc", "clevel": 10}),
            json!({"id": "blosc", "shuffle": 3}),
            json!({"id": "blosc", "blocksize": -1}),
        ] {
            assert!(matches!(Chain::new(&[bad], 4), Err(CodecError::BadConfig(..))));
        }
        let blosc = Chain::new(&[json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1})], 4).unwrap();
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let enc = blosc.encode(&data).unwrap();
        assert_eq!(blosc.decode(&enc, data.len()).unwrap(), data);
        // truncated, garbage, a header claiming another size, too short for a header
        assert!(matches!(blosc.decode(&enc[..enc.len() - 1], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&[0x55; 64], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&enc, data.len() - 4), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&enc[..8], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(Chain::new(&[json!({"id": "zlib", "level": 42})], 4), Err(CodecError::BadConfig(..))));
        let chain = Chain::new(&[json!({"id": "zlib", "level": 1})], 4).unwrap();
        assert!(matches!(chain.decode(b"not zlib at all", 100), Err(CodecError::Corrupt(_))));
        let enc = chain.encode(&[7u8; 100]).unwrap();
        assert!(matches!(chain.decode(&enc[..enc.len() / 2], 100), Err(CodecError::Corrupt(_))));
        assert!(matches!(Chain::new(&[json!({"id": "zstd", "level": 23})], 4), Err(CodecError::BadConfig(..))));
        assert!(matches!(Chain::new(&[json!({"id": "zstd", "checksum": 1})], 4), Err(CodecError::BadConfig(..))));
        let zstd = Chain::new(&[json!({"id": "zstd", "level": 3})], 4).unwrap();
        let enc = zstd.encode(&[7u8; 1000]).unwrap();
        assert_eq!(zstd.decode(&enc, 1000).unwrap(), vec![7u8; 1000]);
        // truncated, garbage, or decoding to another size than the chunk's
        assert!(matches!(zstd.decode(&enc[..enc.len() - 3], 1000), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(b"not a zstd frame", 1000), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(&enc, 999), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(&enc, 1001), Err(CodecError::Corrupt(_))));
        // a checksummed frame with a flipped payload bit is caught
        let ck = Chain::new(&[json!({"id": "zstd", "checksum": true})], 4).unwrap();
        let data: Vec<u8> = (0..1000u32).flat_map(|i| i.wrapping_mul(2654435761).to_le_bytes()).collect();
        let mut enc = ck.encode(&data).unwrap();
        let mid = enc.len() / 2;
        enc[mid] ^= 0x10;
        assert!(matches!(ck.decode(&enc, data.len()), Err(CodecError::Corrupt(_))));
    }
}
