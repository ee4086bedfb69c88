//! Zarr v2 dtypes (`<i4`, `>S1`, `|S16`, `<U8`, `|J0`, ...) and the netCDF
//! types they stand for. NCZarr's `_nczarr_attr` types use the same
//! spelling in every container format.

use crate::engine::consts::*;
use crate::engine::model::native_endian;
use crate::engine::NcResult;

use super::super::bad;

// ---- dtypes ------------------------------------------------------------------

/// A parsed Zarr dtype.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DType {
    pub nctype: NcType,
    pub endian: i32,
    /// Width of fixed strings (`|Sn`).
    pub strlen: Option<usize>,
    /// `|J0`: a hidden JSON-valued NCZarr key (netCDF-C 4.9.3+).
    pub json: bool,
    /// `<Un>` with n > 1: numpy's fixed-width UCS-4 strings.
    pub ucs4: bool,
}

/// Parses a dtype (`<i4`, `>S1`, `|S16`, `<U1`, `|b1`, `|J0`, ...).
/// `pure_zarr`: no NCZarr metadata, where every `S` dtype is a string
/// (netCDF-C reads `>S1` as char only in NCZarr).
pub fn parse_dtype(s: &str, pure_zarr: bool) -> NcResult<DType> {
    let (order, body) = match s.chars().next() {
        Some(c @ ('<' | '>' | '|' | '=')) => (c, &s[1..]),
        _ => ('=', s),
    };
    let endian = match order {
        '>' => NC_ENDIAN_BIG,
        '<' => NC_ENDIAN_LITTLE,
        _ => native_endian(),
    };
    let mut chars = body.chars();
    let kind = chars.next().ok_or_else(|| bad(format!("bad dtype {s:?}")))?;
    let size: usize = chars.as_str().parse().map_err(|_| bad(format!("bad dtype {s:?}")))?;
    let plain = |t| Ok(DType { nctype: t, endian, strlen: None, json: false, ucs4: false });
    match (kind, size) {
        ('i', 1) => plain(NC_BYTE),
        ('u', 1) => plain(NC_UBYTE),
        ('b', 1) => plain(NC_UBYTE),
        ('i', 2) => plain(NC_SHORT),
        ('u', 2) => plain(NC_USHORT),
        ('i', 4) => plain(NC_INT),
        ('u', 4) => plain(NC_UINT),
        ('i', 8) => plain(NC_INT64),
        ('u', 8) => plain(NC_UINT64),
        ('f', 4) => plain(NC_FLOAT),
        ('f', 8) => plain(NC_DOUBLE),
        ('S', 1) if order == '>' && !pure_zarr => plain(NC_CHAR),
        // netCDF-C 4.9.0 wrote "<U1" for char, in NCZarr and pure Zarr alike.
        ('U', 1) => plain(NC_CHAR),
        ('S', n) if n > 0 => Ok(DType { nctype: NC_STRING, endian, strlen: Some(n), json: false, ucs4: false }),
        ('U', n) if n > 0 => Ok(DType { nctype: NC_STRING, endian, strlen: Some(n), json: false, ucs4: true }),
        ('J', 0) => Ok(DType { nctype: NC_CHAR, endian, strlen: None, json: true, ucs4: false }),
        _ => Err(bad(format!("unsupported dtype {s:?}"))),
    }
}

/// The dtype written for a variable or attribute. One-byte types use `|`
/// (zarr-python 3 rejects `<i1`); char is `>S1` as the spec says (the only
/// spelling netCDF-C reads as char), except in pure Zarr, where netCDF-C
/// reads every `S` dtype as a string anyway and `|S1` keeps zarr-python 3
/// (which rejects `>S1`) able to open the array; strings are `|S<n>`.
pub fn format_dtype(t: NcType, endian: i32, strlen: usize, pure_zarr: bool) -> String {
    let e = if endian == NC_ENDIAN_BIG { '>' } else { '<' };
    match t {
        NC_BYTE => "|i1".into(),
        NC_UBYTE => "|u1".into(),
        NC_CHAR if pure_zarr => "|S1".into(),
        NC_CHAR => ">S1".into(),
        NC_STRING => format!("|S{strlen}"),
        NC_SHORT => format!("{e}i2"),
        NC_USHORT => format!("{e}u2"),
        NC_INT => format!("{e}i4"),
        NC_UINT => format!("{e}u4"),
        NC_INT64 => format!("{e}i8"),
        NC_UINT64 => format!("{e}u8"),
        NC_FLOAT => format!("{e}f4"),
        NC_DOUBLE => format!("{e}f8"),
        _ => unreachable!("only atomic types are stored"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::error::NC_ENCZARR;

    #[test]
    fn dtypes() {
        assert_eq!(parse_dtype("<i4", false).unwrap().nctype, NC_INT);
        assert_eq!(parse_dtype(">f8", false).unwrap().endian, NC_ENDIAN_BIG);
        assert_eq!(parse_dtype(">S1", false).unwrap().nctype, NC_CHAR);
        assert_eq!(parse_dtype(">S1", true).unwrap().nctype, NC_STRING);
        assert_eq!(parse_dtype("|S1", false).unwrap().nctype, NC_STRING);
        assert_eq!(parse_dtype("<U1", false).unwrap().nctype, NC_CHAR);
        assert_eq!(parse_dtype("<U1", true).unwrap().nctype, NC_CHAR);
        let u = parse_dtype("<U8", true).unwrap();
        assert!(u.nctype == NC_STRING && u.ucs4 && u.strlen == Some(8));
        assert_eq!(parse_dtype("|S16", false).unwrap().strlen, Some(16));
        assert!(parse_dtype("|J0", false).unwrap().json);
        // "ā" and "<ā1": found by tests/fuzz_metadata.rs (a slice inside a character).
        for bad in ["<c8", "<M8", "|V4", "", "<i", "<i3", "x", "ā", "<ā1", "<iā", "\u{1}"] {
            assert_eq!(parse_dtype(bad, false).unwrap_err().code(), NC_ENCZARR, "{bad}");
        }
        assert_eq!(format_dtype(NC_BYTE, NC_ENDIAN_LITTLE, 0, false), "|i1");
        assert_eq!(format_dtype(NC_INT, NC_ENDIAN_BIG, 0, false), ">i4");
        assert_eq!(format_dtype(NC_STRING, NC_ENDIAN_LITTLE, 64, false), "|S64");
        assert_eq!(format_dtype(NC_CHAR, NC_ENDIAN_LITTLE, 0, false), ">S1");
        assert_eq!(format_dtype(NC_CHAR, NC_ENDIAN_LITTLE, 0, true), "|S1");
    }
}
