//! Resource limits for everything whose size comes from input: metadata,
//! chunk shapes and headers, zip headers, caller arguments.
//!
//! A store is untrusted input. Every buffer sized from it is checked
//! against one of these limits and allocated fallibly ([`try_zeroed`],
//! [`try_reserve`]), so a hostile or corrupt store gives an error (the
//! engine reports `NC_ENOMEM`, `NC_EMAXDIMS`, `NC_ENCZARR`, ...) instead of
//! aborting the process. The limits are read once, from the environment
//! variables below, falling back to the documented defaults
//! (docs/RELIABILITY.md). This module knows nothing of netCDF, so every
//! layer may use it.

use std::sync::LazyLock;

const GIB: u64 = 1 << 30;
const MIB: u64 = 1 << 20;

/// The limits in force.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest decoded chunk held in memory (`NCZARR_RS_MAX_CHUNK_BYTES`,
    /// default 4 GiB). Larger chunks are still readable through byte
    /// ranges when uncompressed, and missing ones read as fill values.
    pub max_chunk_bytes: u64,
    /// Largest object a driver reads or writes whole, and the end offset of
    /// a ranged write (`NCZARR_RS_MAX_OBJECT_BYTES`, default 8 GiB): zip
    /// entries, `nczmap_write` offsets, stored chunks.
    pub max_object_bytes: u64,
    /// Largest JSON metadata object (`.zgroup`, `.zarray`, `.zattrs`,
    /// `.zmetadata`, ...) (`NCZARR_RS_MAX_METADATA_BYTES`, default 16 MiB).
    /// Parsed JSON takes up to ~16 times its text size in memory, so this
    /// bounds what one object costs at open.
    pub max_metadata_bytes: u64,
    /// Most groups in one dataset (`NCZARR_RS_MAX_GROUPS`, default and
    /// maximum 65535: the group id is the low 16 bits of an ncid).
    pub max_groups: usize,
    /// Deepest group nesting (`NCZARR_RS_MAX_DEPTH`, default 10000).
    pub max_depth: usize,
    /// Largest kerchunk reference file (`NCZARR_RS_MAX_REFERENCE_BYTES`,
    /// default 1 GiB): it is read whole and parsed into its key map.
    pub max_reference_bytes: u64,
    /// Most keys of one kerchunk reference set, `gen` keys included
    /// (`NCZARR_RS_MAX_REFERENCE_KEYS`, default 10 million: about 1 GiB
    /// of key map).
    pub max_reference_keys: u64,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_chunk_bytes: 4 * GIB,
            max_object_bytes: 8 * GIB,
            max_metadata_bytes: 16 * MIB,
            max_groups: 0xffff,
            max_depth: 10_000,
            max_reference_bytes: GIB,
            max_reference_keys: 10_000_000,
        }
    }
}

fn env_u64(name: &str) -> Option<u64> {
    std::env::var(name).ok()?.trim().parse().ok().filter(|&n| n > 0)
}

static LIMITS: LazyLock<Limits> = LazyLock::new(|| {
    let d = Limits::default();
    let size = |n: &str, dflt: u64| env_u64(n).unwrap_or(dflt);
    let count = |n: &str, dflt: usize| env_u64(n).map(|v| v.min(usize::MAX as u64) as usize).unwrap_or(dflt);
    Limits {
        max_chunk_bytes: size("NCZARR_RS_MAX_CHUNK_BYTES", d.max_chunk_bytes),
        max_object_bytes: size("NCZARR_RS_MAX_OBJECT_BYTES", d.max_object_bytes),
        max_metadata_bytes: size("NCZARR_RS_MAX_METADATA_BYTES", d.max_metadata_bytes),
        max_groups: count("NCZARR_RS_MAX_GROUPS", d.max_groups).min(0xffff),
        max_depth: count("NCZARR_RS_MAX_DEPTH", d.max_depth),
        max_reference_bytes: size("NCZARR_RS_MAX_REFERENCE_BYTES", d.max_reference_bytes),
        max_reference_keys: size("NCZARR_RS_MAX_REFERENCE_KEYS", d.max_reference_keys),
    }
});

/// The limits in force (read from the environment on first use).
pub fn limits() -> &'static Limits {
    &LIMITS
}

/// Why a buffer could not be had.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TooLarge {
    pub wanted: u64,
    pub limit: u64,
}

impl std::fmt::Display for TooLarge {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if self.wanted > self.limit {
            write!(f, "{} bytes exceed the limit of {} bytes", self.wanted, self.limit)
        } else {
            write!(f, "cannot allocate {} bytes", self.wanted)
        }
    }
}

/// Checks `n` against `limit` and converts it to `usize`.
pub fn check(n: u64, limit: u64) -> Result<usize, TooLarge> {
    match usize::try_from(n) {
        Ok(u) if n <= limit && u <= isize::MAX as usize => Ok(u),
        _ => Err(TooLarge { wanted: n, limit }),
    }
}

/// Makes room for `additional` more bytes in `buf`, or fails (never aborts).
pub fn try_reserve(buf: &mut Vec<u8>, additional: usize) -> Result<(), TooLarge> {
    buf.try_reserve_exact(additional).map_err(|_| TooLarge { wanted: additional as u64, limit: u64::MAX })
}

/// `n` copies of `value` (say `n` empty strings for a caller's request), or
/// an error when the memory cannot be had (never an abort).
pub fn try_filled<T: Clone>(n: usize, value: T) -> Result<Vec<T>, TooLarge> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| TooLarge { wanted: n as u64, limit: u64::MAX })?;
    v.resize(n, value);
    Ok(v)
}

/// A caller's bytes as text (invalid UTF-8 replaced by U+FFFD, as
/// `String::from_utf8_lossy`), in memory reserved fallibly: the length is
/// the caller's.
pub fn try_string_lossy(bytes: &[u8]) -> Result<String, TooLarge> {
    let too_large = |n: usize| TooLarge { wanted: n as u64, limit: u64::MAX };
    let mut s = String::new();
    s.try_reserve_exact(bytes.len()).map_err(|_| too_large(bytes.len()))?;
    for chunk in bytes.utf8_chunks() {
        s.try_reserve(chunk.valid().len()).map_err(|_| too_large(bytes.len()))?;
        s.push_str(chunk.valid());
        if !chunk.invalid().is_empty() {
            s.try_reserve(char::REPLACEMENT_CHARACTER.len_utf8()).map_err(|_| too_large(bytes.len()))?;
            s.push(char::REPLACEMENT_CHARACTER);
        }
    }
    Ok(s)
}

/// A zeroed buffer of `n` bytes, `n` at most `limit`, or an error.
pub fn try_zeroed(n: u64, limit: u64) -> Result<Vec<u8>, TooLarge> {
    let n = check(n, limit)?;
    let mut v = Vec::new();
    try_reserve(&mut v, n)?;
    v.resize(n, 0);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_lossy() {
        for b in [&b""[..], b"abc", "h\u{e9}\u{1F600}".as_bytes(), b"a\xffb\xc3", b"\xf0\x9f\x98"] {
            assert_eq!(try_string_lossy(b).unwrap(), String::from_utf8_lossy(b), "{b:?}");
        }
    }

    #[test]
    fn fallible() {
        assert_eq!(try_zeroed(16, 16).unwrap(), vec![0; 16]);
        assert!(try_zeroed(17, 16).is_err());
        assert!(try_zeroed(1 << 62, u64::MAX).is_err());
        let mut v = vec![1u8];
        assert!(try_reserve(&mut v, usize::MAX / 2).is_err());
        assert!(try_filled(usize::MAX / 64, String::new()).is_err());
        assert_eq!(try_filled(2, 7u8).unwrap(), vec![7, 7]);
        assert!(check(u64::MAX, u64::MAX).is_err());
    }
}
