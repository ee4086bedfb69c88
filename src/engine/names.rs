//! netCDF name rules (netCDF-C's `NC_check_name`) and reserved names.

use super::consts::NC_MAX_NAME;
use super::error::{NC_EBADNAME, NC_EMAXNAME, NC_ENAMEINUSE};
use super::{NcError, NcResult};

/// Attribute names netCDF-C reserves (`NC_reserved`): users may not define them.
pub const RESERVED_ATTS: &[&str] = &[
    "_ARRAY_DIMENSIONS",
    "_Codecs",
    "_Format",
    "_IsNetcdf4",
    "_NCProperties",
    "_NCZARR_ATTR",
    "_nczarr_attr",
    "_SuperblockVersion",
    "_nc3_strict",
    "CLASS",
    "DIMENSION_LIST",
    "NAME",
    "REFERENCE_LIST",
    "_Netcdf4Coordinates",
    "_Netcdf4Dimid",
];

/// Checks a name for a group, dimension, variable or attribute.
pub fn check_name(name: &str) -> NcResult<()> {
    if name.is_empty() {
        return Err(NcError::with(NC_EBADNAME, "empty name"));
    }
    if name.len() > NC_MAX_NAME as usize {
        return Err(NcError::new(NC_EMAXNAME));
    }
    let first = name.chars().next().expect("not empty");
    if !(first.is_ascii_alphanumeric() || first == '_' || !first.is_ascii()) {
        return Err(NcError::with(NC_EBADNAME, format!("{name:?}: bad first character")));
    }
    if name.chars().any(|c| c == '/' || c.is_control()) {
        return Err(NcError::with(NC_EBADNAME, format!("{name:?}: '/' or control character")));
    }
    if name.ends_with(' ') {
        return Err(NcError::with(NC_EBADNAME, format!("{name:?}: trailing space")));
    }
    Ok(())
}

/// The NCZarr attributes users set themselves (spec Appendix H).
pub const USER_NCZARR_ATTS: &[&str] = &["_nczarr_maxstrlen", "_nczarr_default_maxstrlen"];

/// Checks a user attribute name: a valid name that is not reserved.
pub fn check_att_name(name: &str) -> NcResult<()> {
    check_name(name)?;
    if USER_NCZARR_ATTS.contains(&name) {
        return Ok(());
    }
    if RESERVED_ATTS.contains(&name) || name.starts_with("_nczarr") || name.starts_with("_NCZARR") {
        return Err(NcError::with(NC_ENAMEINUSE, format!("{name} is reserved")));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names() {
        for ok in ["x", "_x", "1abc", "a b", "température", "a.b", "a-b"] {
            check_name(ok).unwrap();
        }
        for bad in ["", " x", ".zarray", "a/b", "a\nb", "x ", "-x"] {
            assert_eq!(check_name(bad).unwrap_err().code(), NC_EBADNAME, "{bad:?}");
        }
        assert_eq!(check_name(&"a".repeat(257)).unwrap_err().code(), NC_EMAXNAME);
        assert_eq!(check_att_name("_NCProperties").unwrap_err().code(), NC_ENAMEINUSE);
        check_att_name("_FillValue").unwrap();
        check_att_name("_nczarr_maxstrlen").unwrap();
        assert_eq!(check_att_name("_nczarr_array").unwrap_err().code(), NC_ENAMEINUSE);
    }
}
