//! Chunk codecs: the Zarr v2 `filters` and `compressor` of a variable.
//!
//! Codecs know nothing of netCDF: they turn arrays and bytes into bytes.
//! Each codec is declared once in the [`registry`] (numcodecs id, HDF5
//! filter id, stage, JSON <-> HDF5 parameters). A variable's codecs are
//! resolved once into a [`Pipeline`] of typed codecs; encoding applies the
//! filters in order and then the compressor, decoding the reverse. Codecs
//! this build does not have make the pipeline unrunnable
//! ([`CodecError::Unknown`]), which the engine reports as `NC_ENOFILTER`, as
//! netCDF-C does without the plugin.

mod astype;
mod bitround;
mod blosc;
mod bz2;
mod categorize;
mod checksum32;
mod crc32c;
mod delta;
pub mod dtype;
mod fixedscaleoffset;
mod fletcher32;
mod lz4;
mod lzma;
mod packbits;
mod pipeline;
mod quantize;
pub mod registry;
pub mod sharding;
mod shuffle;
mod szip;
pub mod vlen;
mod zlib;
mod zstd;

pub use blosc::CNAMES as BLOSC_CNAMES;
pub use dtype::{DataType, Kind};
pub use pipeline::{Chain, Pipeline};
pub use registry::{hdf5_available, ParamError, Stage};
pub use zstd::LEVELS as ZSTD_LEVELS;

#[derive(Debug, Clone, thiserror::Error)]
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
    let mut out = Vec::new();
    sized_buf(&mut out, n)?;
    Ok(out)
}

/// What a `decode_into` writes, in a new buffer: the `decode` of the codecs
/// that implement `decode_into`.
fn decoded(decode_into: impl FnOnce(&mut Vec<u8>) -> CodecResult<()>) -> CodecResult<Vec<u8>> {
    let mut out = Vec::new();
    decode_into(&mut out)?;
    Ok(out)
}

/// `out` made `n` zero bytes, its allocation reused (a reader that decodes
/// chunk after chunk into one buffer allocates and faults in nothing).
fn sized_buf(out: &mut Vec<u8>, n: usize) -> CodecResult<()> {
    out.clear();
    crate::limits::try_reserve(out, n).map_err(|_| CodecError::NoMemory(n))?;
    out.resize(n, 0);
    Ok(())
}

pub type CodecResult<T> = Result<T, CodecError>;

/// One typed codec, built from its JSON for the dtype it encodes.
pub trait Codec: Send + Sync + std::fmt::Debug {
    fn encode(&self, data: &[u8]) -> CodecResult<Vec<u8>>;
    /// `decoded_len`: the size the decoded data must have, when known.
    fn decode(&self, data: &[u8], decoded_len: usize) -> CodecResult<Vec<u8>>;
    /// [`Codec::decode`] into `out`, reusing its allocation (what it held
    /// is replaced). The codecs that decode to a known size in one step
    /// override it.
    fn decode_into(&self, data: &[u8], decoded_len: usize, out: &mut Vec<u8>) -> CodecResult<()> {
        *out = self.decode(data, decoded_len)?;
        Ok(())
    }
    /// The size `encode` makes of `decoded_len` bytes, for the codecs that
    /// know it without compressing (a checksum, a dtype change); a chain
    /// uses it to tell each decoder the size its output must have.
    fn encoded_len(&self, decoded_len: usize) -> Option<usize> {
        self.retype().and_then(|r| dtype::resized(decoded_len, r.decoded, r.encoded))
    }
    /// The decoded size an encoded buffer announces (a frame or block
    /// header), for decoding chunks whose size is not known in advance.
    fn announced_len(&self, data: &[u8]) -> Option<usize> {
        self.retype().and_then(|r| dtype::resized(data.len(), r.encoded, r.decoded))
    }
    /// The dtype of what `encode` makes of an array of `decoded`: another
    /// for the array -> array codecs that change it (`astype`,
    /// `fixedscaleoffset`, ...), the same for the others.
    fn encoded_dtype(&self, decoded: DataType) -> DataType {
        self.retype().map_or(decoded, |r| r.encoded)
    }
    /// For an array -> array codec that maps each element of one dtype to
    /// one of another: the two (its sizes and dtype follow from them).
    fn retype(&self) -> Option<Retype> {
        None
    }
    /// The sharding codec, which also decodes partially.
    fn as_sharding(&self) -> Option<&sharding::Sharding> {
        None
    }
}

/// The element types an array -> array codec converts between.
#[derive(Clone, Copy, Debug)]
pub struct Retype {
    /// The array's type (what `encode` takes, `decode` gives).
    pub decoded: DataType,
    /// The stored type.
    pub encoded: DataType,
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::{json, Value};
    use std::sync::Arc;

    /// The runnable chain of codecs for 4-byte elements.
    fn chain(cfg: &[Value]) -> CodecResult<Arc<Chain>> {
        Pipeline::from_zarr_v2(cfg, None, "<u4").chain()
    }

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
            let ch = chain(&cfg).unwrap();
            let enc = ch.encode(&data).unwrap();
            if !cfg.is_empty() {
                assert!(enc.len() < data.len() / 2, "{cfg:?} compressed to {}", enc.len());
            }
            assert_eq!(ch.decode(&enc, data.len()).unwrap(), data, "{cfg:?}");
            // into buffers that held something else (longer, then shorter),
            // twice, so that the thread's spare buffer is reused too
            for junk in [vec![0xAAu8; 3 * data.len()], vec![0x55u8; 10], vec![]] {
                let mut out = junk;
                ch.decode_into(&enc, data.len(), &mut out).unwrap();
                assert_eq!(out, data, "{cfg:?} into a used buffer");
            }
            if !cfg.is_empty() {
                let mut out = vec![1u8; 100];
                assert!(ch.decode_into(&enc[..enc.len() / 2], data.len(), &mut out).is_err(), "{cfg:?} half");
            }
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
        let ch = chain(&[json!({"id": "fletcher32"})]).unwrap();
        for n in [0usize, 1, 2, 719, 720, 721, 5000] {
            let data: Vec<u8> = (0..n).map(|i| (i * 7919 % 251) as u8).collect();
            let enc = ch.encode(&data).unwrap();
            assert_eq!(enc.len(), n + 4);
            assert_eq!(&enc[n..], fletcher32::checksum(&data).to_le_bytes());
            assert_eq!(ch.decode(&enc, n).unwrap(), data);
            // every flipped bit, in the data or the checksum, is caught
            for pos in [0, n / 2, n + 3] {
                if pos < enc.len() {
                    let mut bad = enc.clone();
                    bad[pos] ^= 0x01;
                    assert!(matches!(ch.decode(&bad, n), Err(CodecError::Corrupt(_))), "n {n} pos {pos}");
                }
            }
        }
        assert!(matches!(ch.decode(&[1, 2, 3], 0), Err(CodecError::Corrupt(_))));
    }

    #[test]
    fn bz2_lz4_gzip_formats() {
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 5).to_le_bytes()).collect();
        // bzip2: a standard stream ("BZh" + block size digit)
        let bz = chain(&[json!({"id": "bz2", "level": 7})]).unwrap();
        let enc = bz.encode(&data).unwrap();
        assert_eq!(&enc[..4], b"BZh7");
        assert!(matches!(bz.decode(&enc[..enc.len() - 5], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(bz.decode(&enc, data.len() - 1), Err(CodecError::Corrupt(_))));
        assert!(matches!(bz.decode(b"BZh9 not really", data.len()), Err(CodecError::Corrupt(_))));
        for bad in [json!({"id": "bz2", "level": 0}), json!({"id": "bz2", "level": 10})] {
            assert!(matches!(chain(&[bad]), Err(CodecError::BadConfig(..))));
        }
        // lz4: little-endian size, then a block
        let lz = chain(&[json!({"id": "lz4", "acceleration": 3})]).unwrap();
        let enc = lz.encode(&data).unwrap();
        assert_eq!(enc[..4], (data.len() as u32).to_le_bytes());
        assert_eq!(lz4_flex::block::decompress(&enc[4..], data.len()).unwrap(), data);
        assert!(matches!(lz.decode(&enc[..enc.len() - 3], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(lz.decode(&enc, data.len() - 1), Err(CodecError::Corrupt(_))));
        assert!(matches!(lz.decode(&enc[..3], data.len()), Err(CodecError::Corrupt(_))));
        // gzip: a gzip member (magic 1f 8b, deflate)
        let gz = chain(&[json!({"id": "gzip", "level": 5})]).unwrap();
        let enc = gz.encode(&data).unwrap();
        assert_eq!(enc[..3], [0x1f, 0x8b, 8]);
        assert_eq!(gz.decode(&enc, data.len()).unwrap(), data);
    }

    #[test]
    fn unknown_and_bad() {
        assert!(matches!(chain(&[json!({"id": "zfpy"})]), Err(CodecError::Unknown(_))));
        assert!(matches!(chain(&[json!({"id": "blosc", "cname": "snappy"})]), Err(CodecError::Unknown(_))));
        for bad in [
            json!({"id": "blosc", "clevel": 10}),
            json!({"id": "blosc", "shuffle": 3}),
            json!({"id": "blosc", "blocksize": -1}),
        ] {
            assert!(matches!(chain(&[bad]), Err(CodecError::BadConfig(..))));
        }
        let blosc = chain(&[json!({"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1})]).unwrap();
        let data: Vec<u8> = (0..4000u32).flat_map(|i| (i / 3).to_le_bytes()).collect();
        let enc = blosc.encode(&data).unwrap();
        assert_eq!(blosc.decode(&enc, data.len()).unwrap(), data);
        // truncated, garbage, a header claiming another size, too short for a header
        assert!(matches!(blosc.decode(&enc[..enc.len() - 1], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&[0x55; 64], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&enc, data.len() - 4), Err(CodecError::Corrupt(_))));
        assert!(matches!(blosc.decode(&enc[..8], data.len()), Err(CodecError::Corrupt(_))));
        assert!(matches!(chain(&[json!({"id": "zlib", "level": 42})]), Err(CodecError::BadConfig(..))));
        let ch = chain(&[json!({"id": "zlib", "level": 1})]).unwrap();
        assert!(matches!(ch.decode(b"not zlib at all", 100), Err(CodecError::Corrupt(_))));
        let enc = ch.encode(&[7u8; 100]).unwrap();
        assert!(matches!(ch.decode(&enc[..enc.len() / 2], 100), Err(CodecError::Corrupt(_))));
        assert!(matches!(chain(&[json!({"id": "zstd", "level": 23})]), Err(CodecError::BadConfig(..))));
        assert!(matches!(chain(&[json!({"id": "zstd", "checksum": 1})]), Err(CodecError::BadConfig(..))));
        let zstd = chain(&[json!({"id": "zstd", "level": 3})]).unwrap();
        let enc = zstd.encode(&[7u8; 1000]).unwrap();
        assert_eq!(zstd.decode(&enc, 1000).unwrap(), vec![7u8; 1000]);
        // truncated, garbage, or decoding to another size than the chunk's
        assert!(matches!(zstd.decode(&enc[..enc.len() - 3], 1000), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(b"not a zstd frame", 1000), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(&enc, 999), Err(CodecError::Corrupt(_))));
        assert!(matches!(zstd.decode(&enc, 1001), Err(CodecError::Corrupt(_))));
        // a checksummed frame with a flipped payload bit is caught
        let ck = chain(&[json!({"id": "zstd", "checksum": true})]).unwrap();
        let data: Vec<u8> = (0..1000u32).flat_map(|i| i.wrapping_mul(2654435761).to_le_bytes()).collect();
        let mut enc = ck.encode(&data).unwrap();
        let mid = enc.len() / 2;
        enc[mid] ^= 0x10;
        assert!(matches!(ck.decode(&enc, data.len()), Err(CodecError::Corrupt(_))));
    }
}
