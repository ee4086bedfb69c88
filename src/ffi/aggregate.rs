//! Writing aggregated variables (docs/AGGREGATION.md, "Writing"): the C
//! face of `engine::aggregate::write`. Not netCDF-C functions.

use super::args::{c_str, in_slice, out};
use super::boundary::guard;
use super::nc::write;
use super::types::nc_type;
use crate::engine::aggregate::write::{Form, Fragments};
use crate::engine::consts::NC_MAX_VAR_DIMS;
use crate::engine::error::NC_EINVAL;
use crate::engine::{NcError, NcResult};
use std::os::raw::{c_char, c_int};

/// `nczarr_rs_def_var_aggregated`: the CF-1.13 form (`aggregated_dimensions`,
/// `aggregated_data`, fragment array variables), as cfdm ≥ 1.12.2 writes it.
pub const NCZARR_RS_AGGREGATION_CF: c_int = 0;
/// `nczarr_rs_def_var_aggregated`: the NCA 0.1 form (`nca_dimensions`,
/// `nca_array`), the convention of "On the storage of arbitrarily aggregated
/// data arrays".
pub const NCZARR_RS_AGGREGATION_NCA: c_int = 1;

/// At most this many fragments per call (as the reader: 4 194 304).
const MAX_FRAGMENTS: usize = 1 << 22;

/// Defines `name`, an aggregated variable of numeric type `xtype` over the
/// `ndims` dimensions `dimids`, whose data are in other datasets (the
/// fragments), and returns its id through `varidp` (may be NULL).
///
/// The fragments tile the variable: along dimension `k` there are
/// `nfragments[k]` of them, whose sizes are the next `nfragments[k]` values
/// of `sizes` (all of dimension 0's first, then dimension 1's, ...; each
/// dimension's sum is its length). `uris` holds one URI per fragment, in the
/// C order of the grid of fragments (a relative URI is relative to this
/// dataset); `identifiers` the name of the variable in the fragments, one
/// for all (`nidentifiers` 1) or one per fragment.
///
/// `form` is `NCZARR_RS_AGGREGATION_CF` (CF-1.13: the variable is a scalar
/// with `aggregated_dimensions` and `aggregated_data`, and three fragment
/// array variables `<name>_fragment_map`, `_uris` and `_identifiers` with
/// their dimensions; a dataset without a `Conventions` attribute gets
/// `"CF-1.13"`, which cfdm needs) or `NCZARR_RS_AGGREGATION_NCA` (NCA 0.1:
/// the scalar with `nca_dimensions` and `nca_array`). Opened read-only
/// again, by this library or by cf-python/cfdm, the variable reads as the
/// assembled array. In define or data mode: the CF form writes the fragment
/// arrays' values, so it leaves define mode for that and returns to it.
/// Errors: `NC_EINVAL` (sizes that do not tile the dimensions, a count of
/// URIs or identifiers that does not match, an empty one, an unknown form),
/// `NC_EBADTYPE` (not a numeric type), `NC_EBADDIM`, `NC_ENAMEINUSE`, and
/// those of `nc_def_var`.
///
/// # Safety
/// `name` is a NUL-terminated string; `dimids` and `nfragments` hold
/// `ndims` values, `sizes` their sum; `uris` and `identifiers` hold
/// NUL-terminated strings (as many as described above); `varidp` is NULL
/// or points to an `int`.
#[no_mangle]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn nczarr_rs_def_var_aggregated(
    ncid: c_int,
    name: *const c_char,
    xtype: nc_type,
    ndims: c_int,
    dimids: *const c_int,
    nfragments: *const usize,
    sizes: *const usize,
    uris: *const *const c_char,
    nidentifiers: usize,
    identifiers: *const *const c_char,
    form: c_int,
    varidp: *mut c_int,
) -> c_int {
    guard("nczarr_rs_def_var_aggregated", || {
        let name = c_str(name)?;
        let form = match form {
            NCZARR_RS_AGGREGATION_CF => Form::Cf113,
            NCZARR_RS_AGGREGATION_NCA => Form::Nca01,
            _ => return Err(NcError::with(NC_EINVAL, format!("unknown aggregation form {form}"))),
        };
        if !(1..=NC_MAX_VAR_DIMS).contains(&ndims) {
            return Err(NcError::with(NC_EINVAL, format!("{ndims} dimensions")));
        }
        let nd = ndims as usize;
        let dims = in_slice(dimids, nd)?.to_vec();
        let counts = in_slice(nfragments, nd)?;
        // how many sizes and URIs the caller's arrays hold, checked first
        let too_many = || NcError::with(NC_EINVAL, format!("more than {MAX_FRAGMENTS} fragments"));
        let nsizes = counts.iter().try_fold(0usize, |a, &n| a.checked_add(n)).filter(|&n| n <= MAX_FRAGMENTS);
        let nfrags = counts.iter().try_fold(1usize, |a, &n| a.checked_mul(n)).filter(|&n| n <= MAX_FRAGMENTS);
        let (Some(nsizes), Some(nfrags)) = (nsizes, nfrags) else { return Err(too_many()) };
        if nidentifiers != 1 && nidentifiers != nfrags {
            return Err(NcError::with(NC_EINVAL, format!("{nidentifiers} identifiers for {nfrags} fragments")));
        }
        let flat = in_slice(sizes, nsizes)?;
        let mut per_dim = Vec::with_capacity(nd);
        let mut at = 0;
        for &n in counts {
            per_dim.push(flat[at..at + n].iter().map(|&s| s as u64).collect());
            at += n;
        }
        let strings = |p: *const *const c_char, n: usize| -> NcResult<Vec<String>> {
            in_slice(p, n)?.iter().map(|&s| c_str(s).map(str::to_string)).collect()
        };
        let fragments = Fragments {
            sizes: per_dim,
            uris: strings(uris, nfrags)?,
            identifiers: strings(identifiers, nidentifiers)?,
        };
        let vid = write(ncid, |ds, gid| ds.def_var_aggregated(gid, name, xtype, &dims, &fragments, form))?;
        out(varidp, vid as c_int);
        Ok(())
    })
}
