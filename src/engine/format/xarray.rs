//! Dimension names for formats without NCZarr metadata: the XArray
//! convention (`_ARRAY_DIMENSIONS` in Zarr v2), and netCDF-C's anonymous
//! dimensions when there are no names.

use super::bad;
use crate::engine::error::*;
use crate::engine::model::*;
use crate::engine::names::check_name;
use crate::engine::{NcError, NcResult};
use crate::map::StoreKey;

/// XArray dimension names to write for a variable, when the convention
/// applies: in NCZarr mode (as netCDF-C) root variables over root
/// dimensions in the 4.9.2 layout and every variable in 4.9.3+'s; in pure
/// Zarr mode every variable, since the names are all a reader gets.
pub fn names_to_write(ds: &Dataset, gid: usize, v: &Var) -> Option<Vec<String>> {
    if !ds.xarray {
        return None;
    }
    let old_keys = super::nczarr::old_keys(ds);
    if v.is_scalar() && ds.pure_zarr {
        return Some(vec![]);
    }
    if v.is_scalar() {
        return (gid == 0 || !old_keys).then(|| vec!["_scalar_".to_string()]);
    }
    let all_root = v.dimids.iter().all(|&d| ds.dims[d].group == 0);
    if old_keys && !(gid == 0 && all_root) {
        return None;
    }
    Some(v.dimids.iter().map(|&d| ds.dims[d].name.clone()).collect())
}

/// The dimensions of a variable of group `gid` with shape `shape` and the
/// dimension names `names` (if the store gives any): named dimensions are
/// found in the group or its ancestors, or created in the group; without
/// names, anonymous dimensions. `["_scalar_"]` over shape `[1]` is netCDF-C's
/// scalar. `None` when there are names, but not one per dimension (a 0-d
/// array naming a dimension, as in netCDF-C's corrupt `ref_noshape`): the
/// variable is left out of the dataset, as netCDF-C leaves it out, and the
/// rest of the store stays readable.
pub fn dims_from_names(
    ds: &mut Dataset,
    gid: usize,
    vkey: &StoreKey,
    names: Option<Vec<String>>,
    shape: &[u64],
) -> NcResult<Option<Vec<usize>>> {
    match names {
        Some(n) if n.len() == 1 && n[0] == "_scalar_" && shape == [1] => Ok(Some(vec![])),
        Some(n) if !n.is_empty() && n.len() != shape.len() => {
            ds.notes.push(format!(
                "{vkey}: {} dimension names for {} dimensions: the variable is left out",
                n.len(),
                shape.len()
            ));
            Ok(None)
        }
        _ if shape.is_empty() => Ok(Some(vec![])),
        Some(n) if n.len() == shape.len() => {
            let mut ids = Vec::new();
            for (i, name) in n.iter().enumerate() {
                check_name(name).map_err(|_| bad(format!("bad dimension name {name:?}")))?;
                // a new name is declared in the variable's group, as
                // netCDF-C does, anonymous names (`_Anonymous_Dim_<n>`, as
                // a rewrite names an anonymous dimension) included: read
                // again, such a dimension of a subgroup's variable is the
                // subgroup's (netCDF-C's ref_newformatpure)
                ids.push(named_dim(ds, gid, name, shape[i], gid)?);
            }
            Ok(Some(ids))
        }
        _ => anonymous_dims(ds, shape).map(Some),
    }
}

/// Finds or creates a dimension `name` of length `len` for a variable of
/// group `gid`.
fn named_dim(ds: &mut Dataset, gid: usize, name: &str, len: u64, create_in: usize) -> NcResult<usize> {
    if let Some(d) = ds.find_dim(gid, name) {
        if ds.dims[d].len == len {
            return Ok(d);
        }
        if ds.dims[d].group == create_in {
            return Err(NcError::with(
                NC_EDIMSIZE,
                format!("dimension {name} has lengths {} and {len}", ds.dims[d].len),
            ));
        }
    }
    let id = ds.dims.len();
    ds.dims.push(Dim { name: name.into(), len, unlimited: false, group: create_in });
    ds.groups[create_in].dims.push(id);
    Ok(id)
}

/// No dimension names: one root dimension per distinct length, named
/// `_Anonymous_Dim_<len>`, as netCDF-C 4.9.3+ does (for a variable in any
/// group: the harness's zarr-python dataset checks it).
fn anonymous_dims(ds: &mut Dataset, shape: &[u64]) -> NcResult<Vec<usize>> {
    shape.iter().map(|&len| named_dim(ds, 0, &anonymous_name(len), len, 0)).collect()
}

/// netCDF-C's name for an anonymous dimension of length `len`.
pub fn anonymous_name(len: u64) -> String {
    format!("_Anonymous_Dim_{len}")
}
