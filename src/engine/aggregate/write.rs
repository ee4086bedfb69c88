//! Writing aggregation variables (docs/AGGREGATION.md, "Writing"): an
//! aggregated variable defined from its fragments (URI, the fragments'
//! variable, their sizes along each aggregated dimension), written in the
//! CF-1.13 form (`aggregated_dimensions`, `aggregated_data` and fragment
//! array variables, as cfdm ≥ 1.12.2 writes them) or as NCA 0.1 (the seed:
//! `nca_dimensions` and an `nca_array` JSON). What this module writes, this
//! crate's reader (and cf-python/cfdm) reads back as the master array.

use super::super::consts::*;
use super::super::data::MemIn;
use super::super::error::*;
use super::super::model::Dataset;
use super::super::types::Values;
use super::super::{NcError, NcResult};
use super::parse::MAX_PARTITIONS;

/// How an aggregation variable is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// CF-1.13: fragment array variables `<name>_fragment_map`,
    /// `<name>_fragment_uris`, `<name>_fragment_identifiers`.
    Cf113,
    /// NCA 0.1 (seed 001): attributes only.
    Nca01,
}

/// The fragments of an aggregated variable.
#[derive(Clone, Debug)]
pub struct Fragments {
    /// Along each aggregated dimension, in order, the sizes of the
    /// fragments (their sum is the dimension's length).
    pub sizes: Vec<Vec<u64>>,
    /// One URI per fragment, in the C order of the grid of fragments
    /// (relative ones are relative to the aggregation dataset).
    pub uris: Vec<String>,
    /// The fragments' variable: one name for all, or one per fragment.
    pub identifiers: Vec<String>,
}

fn invalid(why: impl Into<String>) -> NcError {
    NcError::with(NC_EINVAL, why.into())
}

fn text(s: &str) -> Values {
    Values::Char(s.as_bytes().to_vec())
}

impl Dataset {
    /// Defines the aggregated variable `name` of numeric type `nctype` over
    /// the dimensions `dimids`, made of `f` (see [`Fragments`]), and writes
    /// what describes it in `form`. In define or data mode (a CF-1.13
    /// aggregation writes its fragment arrays' values: it leaves define
    /// mode for that, and returns to it). Returns the variable's id.
    pub fn def_var_aggregated(
        &mut self,
        gid: usize,
        name: &str,
        nctype: NcType,
        dimids: &[i32],
        f: &Fragments,
        form: Form,
    ) -> NcResult<usize> {
        self.group(gid)?;
        self.check_writable()?;
        if nctype == NC_CHAR || !(NC_BYTE..=NC_UINT64).contains(&nctype) {
            return Err(NcError::with(NC_EBADTYPE, "aggregated variables are numeric"));
        }
        if dimids.is_empty() {
            return Err(invalid("an aggregated variable has at least one dimension"));
        }
        if f.sizes.len() != dimids.len() {
            return Err(invalid(format!("fragment sizes for {} dimensions, not {}", f.sizes.len(), dimids.len())));
        }
        let mut dims = Vec::with_capacity(dimids.len());
        let mut count = 1u64;
        for (k, (&d, sizes)) in dimids.iter().zip(&f.sizes).enumerate() {
            let dim = self.dim(d)?;
            if !self.dim_visible(gid, d as usize) {
                return Err(NcError::new(NC_EBADDIM));
            }
            let total = sizes.iter().try_fold(0u64, |a, &s| if s == 0 { None } else { a.checked_add(s) });
            if sizes.is_empty() || total != Some(dim.len) {
                return Err(invalid(format!(
                    "the fragments along dimension {k} ({}) must have sizes > 0 that sum to its length {}",
                    dim.name, dim.len
                )));
            }
            count = count.saturating_mul(sizes.len() as u64);
            dims.push(dim.name.clone());
        }
        if count > MAX_PARTITIONS {
            return Err(invalid(format!("{count} fragments (at most {MAX_PARTITIONS})")));
        }
        let count = count as usize;
        if f.uris.len() != count || f.uris.iter().any(String::is_empty) {
            return Err(invalid(format!("{count} fragments need {count} URIs, none empty ({} given)", f.uris.len())));
        }
        if !(f.identifiers.len() == 1 || f.identifiers.len() == count) || f.identifiers.iter().any(String::is_empty) {
            return Err(invalid(format!("one identifier, or {count}, none empty ({} given)", f.identifiers.len())));
        }
        match form {
            Form::Nca01 => self.write_nca(gid, name, nctype, &dims, f),
            Form::Cf113 => self.write_cf(gid, name, nctype, dimids, &dims, f, count),
        }
    }

    /// The scalar variable with `nca_dimensions` and `nca_array`.
    fn write_nca(&mut self, gid: usize, name: &str, nctype: NcType, dims: &[String], f: &Fragments) -> NcResult<usize> {
        let counts: Vec<usize> = f.sizes.iter().map(Vec::len).collect();
        let starts: Vec<Vec<u64>> = f
            .sizes
            .iter()
            .map(|s| s.iter().scan(0u64, |at, &n| Some(std::mem::replace(at, *at + n))).collect())
            .collect();
        let mut partitions = Vec::with_capacity(f.uris.len());
        for (i, uri) in f.uris.iter().enumerate() {
            // the fragment's position in the grid, C order
            let mut index = vec![0usize; counts.len()];
            let mut r = i;
            for k in (0..counts.len()).rev() {
                index[k] = r % counts[k];
                r /= counts[k];
            }
            let location: Vec<[u64; 2]> =
                (0..counts.len()).map(|k| [starts[k][index[k]], starts[k][index[k]] + f.sizes[k][index[k]]]).collect();
            let shape: Vec<u64> = (0..counts.len()).map(|k| f.sizes[k][index[k]]).collect();
            let ncvar = f.identifiers.get(i).unwrap_or(&f.identifiers[0]);
            partitions.push(serde_json::json!({
                "index": index,
                "location": location,
                "format": "netCDF",
                "data": {"file": uri, "ncvar": ncvar, "shape": shape},
            }));
        }
        let array = serde_json::json!({
            "pdimensions": dims,
            "pshape": counts,
            "Partitions": partitions,
        });
        let vid = self.def_var(gid, name, nctype, &[])?;
        self.put_att(gid, vid as i32, "nca_dimensions", text(&dims.join(" ")))?;
        self.put_att(gid, vid as i32, "nca_array", text(&array.to_string()))?;
        Ok(vid)
    }

    /// The scalar variable with `aggregated_dimensions` and
    /// `aggregated_data`, and its fragment array variables, written.
    #[allow(clippy::too_many_arguments)]
    fn write_cf(
        &mut self,
        gid: usize,
        name: &str,
        nctype: NcType,
        dimids: &[i32],
        dims: &[String],
        f: &Fragments,
        count: usize,
    ) -> NcResult<usize> {
        let was_defining = self.define_mode;
        let nd = dimids.len();
        let widest = f.sizes.iter().map(Vec::len).max().unwrap_or(1);
        let j = self.def_dim(gid, &format!("{name}_fragment_dims"), nd as u64)? as i32;
        let i = self.def_dim(gid, &format!("{name}_fragment_sizes"), widest as u64)? as i32;
        let mut fdims = Vec::with_capacity(nd);
        for (k, d) in dims.iter().enumerate() {
            fdims.push(self.def_dim(gid, &format!("{name}_fragments_{d}"), f.sizes[k].len() as u64)? as i32);
        }
        let map = self.def_var(gid, &format!("{name}_fragment_map"), NC_INT64, &[j, i])? as i32;
        let uris = self.def_var(gid, &format!("{name}_fragment_uris"), NC_STRING, &fdims)? as i32;
        let one_id = f.identifiers.len() == 1;
        let ids_dims: &[i32] = if one_id { &[] } else { &fdims };
        let ids = self.def_var(gid, &format!("{name}_fragment_identifiers"), NC_STRING, ids_dims)? as i32;
        // NCZarr stores strings at a fixed width: room for the longest
        let longest = |v: &[String]| v.iter().map(String::len).max().unwrap_or(1).max(1) as i32;
        if !self.pure_zarr {
            self.put_att(gid, uris, "_nczarr_maxstrlen", Values::Int(vec![longest(&f.uris)]))?;
            self.put_att(gid, ids, "_nczarr_maxstrlen", Values::Int(vec![longest(&f.identifiers)]))?;
        }
        let vid = self.def_var(gid, name, nctype, &[])? as i32;
        self.put_att(gid, vid, "aggregated_dimensions", text(&dims.join(" ")))?;
        let spec =
            format!("map: {name}_fragment_map uris: {name}_fragment_uris identifiers: {name}_fragment_identifiers");
        self.put_att(gid, vid, "aggregated_data", text(&spec))?;
        // cfdm reads aggregations in CF-1.13 datasets
        if self.group(0)?.atts.iter().all(|a| a.name != "Conventions") {
            self.put_att(0, NC_GLOBAL, "Conventions", text("CF-1.13"))?;
        }
        if self.define_mode {
            self.enddef()?;
        }
        // the map: one row per dimension, padded with the fill value
        let mut rows = vec![NC_FILL_INT64; nd * widest];
        for (k, sizes) in f.sizes.iter().enumerate() {
            for (c, &s) in sizes.iter().enumerate() {
                rows[k * widest + c] = s as i64;
            }
        }
        let bytes = Values::Int64(rows).to_ne_bytes();
        let all = |ds: &Dataset, v: i32| ds.slab(gid, v, None, None, None, None, true);
        self.put_slab(gid, map, &all(self, map)?, MemIn::Bytes { memtype: NC_INT64, buf: &bytes })?;
        self.put_slab(gid, uris, &all(self, uris)?, MemIn::Strings(&f.uris))?;
        self.put_slab(gid, ids, &all(self, ids)?, MemIn::Strings(&f.identifiers))?;
        debug_assert_eq!(f.uris.len(), count);
        if was_defining {
            self.redef()?;
        }
        Ok(vid as usize)
    }
}
