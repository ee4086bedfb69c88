//! numcodecs-style `szip` (`{"id": "szip", "mask": M, "pixels-per-block":
//! P}`, HDF5 filter 4), as netCDF-C's plugin writes it. It is declared so
//! that the filter API shows its id and parameters; this build has no
//! szip coder (libaec is not linked), so its variables open and their data
//! reads fail with `NC_ENOFILTER`, as netCDF-C does without the plugin.

use super::registry::{self, Decl, Stage};
use serde_json::Value;

pub const DECL: Decl =
    Decl { id: "szip", hdf5_id: Some(4), stage: Stage::BytesToBytes, build: None, to_hdf5, from_hdf5: None, v3: None };

/// netCDF-C's two visible parameters: options mask, pixels per block
/// (none when the JSON lacks them).
fn to_hdf5(cfg: &Value, _: &registry::Ctx) -> Vec<u32> {
    match (registry::int(cfg, "mask"), registry::int(cfg, "pixels-per-block")) {
        (Some(m), Some(p)) => vec![m as u32, p as u32],
        _ => vec![],
    }
}
