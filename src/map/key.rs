//! Store keys: the zmap key syntax of the spec, validated once.
//!
//! ```text
//! key:     '/' | keypath ;
//! keypath: '/' segment | keypath '/' segment ;
//! segment: <UTF-8 characters except control characters and '/'>
//! ```
//! On top of the grammar, `.` and `..` segments and empty segments (`a//b`)
//! are rejected, so that no key can name a location outside its dataset.
//! The leading `/` is optional on input; a trailing `/` is ignored.

use super::MapError;
use std::fmt;

/// A validated key. The canonical form has no leading `/`; the root is "".
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StoreKey(String);

/// `key` checked, without its leading and trailing `/` ("" for the root).
fn canonical(key: &str) -> Result<&str, MapError> {
    let bad = |why: &'static str| MapError::InvalidKey { key: key.to_string(), why };
    let body = key.strip_prefix('/').unwrap_or(key);
    if body.starts_with('/') {
        return Err(bad("empty segment"));
    }
    let body = body.strip_suffix('/').unwrap_or(body);
    if body.is_empty() {
        return Ok(body);
    }
    for seg in body.split('/') {
        if seg.is_empty() {
            return Err(bad("empty segment"));
        }
        if seg == "." || seg == ".." {
            return Err(bad("'.' and '..' segments are not allowed"));
        }
        if seg.chars().any(char::is_control) {
            return Err(bad("control characters are not allowed"));
        }
    }
    Ok(body)
}

/// FNV-1a's starting value (see [`fnv1a`]).
pub(crate) const FNV_OFFSET: u64 = 0xcbf2_9ce4_8422_2325;

/// FNV-1a of `bytes` continued from `h` ([`FNV_OFFSET`] to start): a hash
/// that is the same in every process and every build (the file driver's
/// lock stripes, the owner rank of a chunk, the metadata digest that the
/// ranks of a parallel dataset compare).
pub(crate) fn fnv1a(h: u64, bytes: &[u8]) -> u64 {
    bytes.iter().fold(h, |h, &b| (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3))
}

impl StoreKey {
    /// The root key `/`.
    pub fn root() -> Self {
        StoreKey(String::new())
    }

    /// Parses and validates `key`.
    pub fn parse(key: &str) -> Result<Self, MapError> {
        Ok(StoreKey(canonical(key)?.to_string()))
    }

    /// [`StoreKey::parse`] of a key built in a `String`, kept without a
    /// copy when it is already canonical (no leading or trailing `/`).
    pub fn parse_owned(key: String) -> Result<Self, MapError> {
        let body = canonical(&key)?;
        if body.len() == key.len() {
            return Ok(StoreKey(key));
        }
        Ok(StoreKey(body.to_string()))
    }

    pub fn is_root(&self) -> bool {
        self.0.is_empty()
    }

    /// The canonical form without a leading `/` ("" for the root).
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The segments of the key (none for the root).
    pub fn segments(&self) -> impl Iterator<Item = &str> {
        self.0.split('/').filter(|s| !s.is_empty())
    }

    /// The key `self/name`. `name` must be a single valid segment.
    pub fn child(&self, name: &str) -> Result<Self, MapError> {
        if name.contains('/') {
            return Err(MapError::InvalidKey { key: name.to_string(), why: "not a single segment" });
        }
        StoreKey::parse(&format!("{}/{}", self.0, name))
    }

    /// The last segment, or "" for the root.
    pub fn name(&self) -> &str {
        self.0.rsplit('/').next().unwrap_or("")
    }

    /// A bound that sorts before every key strictly below `self` (and after
    /// every other key sharing its text as a prefix, such as `a.b` for `a`):
    /// the keys below `a` are exactly the contiguous run `a/...` in byte order.
    pub(crate) fn below_bound(&self) -> StoreKey {
        if self.is_root() {
            StoreKey::root()
        } else {
            StoreKey(format!("{}/", self.0))
        }
    }

    /// True if `self` lies strictly below `other`.
    pub fn is_below(&self, other: &StoreKey) -> bool {
        self.0.len() > other.0.len() && self.starts_with(other)
    }

    /// The canonical text of each proper ancestor of the key that is not
    /// the root (`a`, `a/b` for `a/b/c`), shortest first: slices of the key,
    /// found in one pass over it.
    pub fn ancestors(&self) -> impl Iterator<Item = &str> {
        self.0.match_indices('/').map(move |(i, _)| &self.0[..i])
    }

    /// True if `self` is `other` or lies below it.
    pub fn starts_with(&self, other: &StoreKey) -> bool {
        other.is_root()
            || self.0 == other.0
            || (self.0.starts_with(&other.0) && self.0.as_bytes()[other.0.len()] == b'/')
    }
}

/// Keys compare, hash and order as their canonical text (derived over the
/// `String`), so a map of keys can be searched by a `&str` (a key's
/// ancestors, without parsing each: `map::memory`).
impl std::borrow::Borrow<str> for StoreKey {
    fn borrow(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for StoreKey {
    /// The spec's form, with a leading `/`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "/{}", self.0)
    }
}

impl fmt::Debug for StoreKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "StoreKey({self})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_forms() {
        assert_eq!(StoreKey::parse("/").unwrap(), StoreKey::root());
        assert_eq!(StoreKey::parse("").unwrap(), StoreKey::root());
        assert_eq!(StoreKey::parse("/a/b").unwrap().as_str(), "a/b");
        assert_eq!(StoreKey::parse("a/b/").unwrap().as_str(), "a/b");
        assert_eq!(StoreKey::parse("/a/.zarray").unwrap().to_string(), "/a/.zarray");
        assert_eq!(StoreKey::parse("/x y/ünï").unwrap().name(), "ünï");
    }

    #[test]
    fn rejects_escapes_and_junk() {
        for k in ["/..", "/a/../b", "..", "/a/./b", "a//b", "/a\nb", "/a\u{7f}", "/a\tb", "//"] {
            assert!(StoreKey::parse(k).is_err(), "{k:?} accepted");
        }
    }

    #[test]
    fn prefix_relation() {
        let ab = StoreKey::parse("/a/b").unwrap();
        assert!(ab.starts_with(&StoreKey::parse("/a").unwrap()));
        assert!(ab.starts_with(&StoreKey::root()));
        assert!(!ab.starts_with(&StoreKey::parse("/a/bc").unwrap()));
        assert!(!StoreKey::parse("/a/bc").unwrap().starts_with(&ab));
    }
}
