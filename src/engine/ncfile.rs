//! Datasets in netCDF files (netCDF-3 and netCDF-4, `.nc`) opened through
//! this engine, so that their aggregation variables read as the variables
//! they stand for (`engine::aggregate`; docs/AGGREGATION.md).
//!
//! The engine does not parse netCDF files: the [`FragmentReader`] the C
//! layer installs (the real libnetcdf, loaded at run time) opens the file
//! and [`Fragment::describe`]s it. Its groups, dimensions, variables and
//! attributes become a read-only [`Dataset`] whose store is empty: each
//! variable's data come from the file ([`InFile`], a [`VarSource`]).
//! Then [`super::aggregate::apply`] interprets the aggregation variables as
//! it does for a Zarr store. A file with no aggregation variable is not
//! taken (`Ok(None)`): the C layer leaves it to libnetcdf.
//!
//! [`FragmentReader`]: super::aggregate::FragmentReader

use super::aggregate::{self, FragVar, Fragment, Region};
use super::consts::*;
use super::data::MemOut;
use super::error::*;
use super::model::{Att, Dataset, Group, VarSource};
use super::slab::Slab;
use super::types::{range_result, type_size};
use super::{NcError, NcResult};
use std::sync::Arc;

/// A dataset's structure, as a reader describes it: groups in an order
/// where each parent comes before its children (the root first), and
/// dimensions in an order where each group's come after its ancestors'.
#[derive(Debug, Default)]
pub struct Described {
    pub groups: Vec<DescGroup>,
    pub dims: Vec<DescDim>,
}

#[derive(Debug)]
pub struct DescDim {
    pub name: String,
    pub len: u64,
    pub unlimited: bool,
    /// The group that defines it (an index in [`Described::groups`]).
    pub group: usize,
}

#[derive(Debug)]
pub struct DescGroup {
    pub name: String,
    pub parent: Option<usize>,
    pub atts: Vec<Att>,
    pub vars: Vec<DescVar>,
}

#[derive(Debug)]
pub struct DescVar {
    pub name: String,
    pub nctype: NcType,
    /// Indices in [`Described::dims`].
    pub dimids: Vec<usize>,
    pub atts: Vec<Att>,
    pub no_fill: bool,
    /// The reader's own reference to the variable (as in [`FragVar`]).
    pub handle: (i64, i64),
}

/// Opens the netCDF file at `path` read-only through the installed reader,
/// if its `Conventions` name an aggregation convention and it holds an
/// aggregation variable (`Ok(None)` otherwise).
pub fn open(path: &str, omode: i32) -> NcResult<Option<Dataset>> {
    if omode & NC_WRITE != 0 || !aggregate::enabled_by_env() {
        return Ok(None);
    }
    let Some(reader) = aggregate::reader() else {
        return Ok(None);
    };
    let file = reader.open(path)?;
    // only a file whose Conventions name an aggregation convention is
    // described (read whole): the others stay libnetcdf's
    if !aggregate::dataset_conventions_aggregate(|n| file.global_text(n)) {
        return Ok(None);
    }
    let d = file.describe()?;
    if !d.groups.iter().any(|g| g.vars.iter().any(|v| aggregate::is_aggregation(&v.atts))) {
        return Ok(None);
    }
    let mut ds = build(path, omode, &file, d)?;
    aggregate::apply(&mut ds)?;
    Ok(Some(ds))
}

/// The read-only dataset of a described file.
fn build(path: &str, omode: i32, file: &Arc<dyn Fragment>, d: Described) -> NcResult<Dataset> {
    let store = Arc::new(crate::map::memory::MemoryStore::detached(path));
    let mut ds = Dataset::new_empty(store, path, (omode & !NC_WRITE) | NC_NETCDF4, false, false);
    let bad = |what: String| NcError::with(NC_ENOTBUILT, format!("{path}: {what}"));
    let ngroups = d.groups.len();
    if ngroups == 0 || ngroups > crate::limits::limits().max_groups {
        return Err(bad(format!("{ngroups} groups")));
    }
    let mut vars = Vec::with_capacity(ngroups);
    for (i, g) in d.groups.into_iter().enumerate() {
        if i == 0 {
            ds.groups[0].atts = g.atts;
        } else {
            let parent = g.parent.filter(|&p| p < i).ok_or_else(|| bad(format!("group {} out of order", g.name)))?;
            ds.groups.push(Group {
                name: g.name,
                parent: Some(parent),
                dims: vec![],
                vars: vec![],
                children: vec![],
                atts: g.atts,
            });
            ds.groups[parent].children.push(i);
        }
        vars.push(g.vars);
    }
    for dim in d.dims {
        if dim.group >= ngroups {
            return Err(bad(format!("dimension {} of no group", dim.name)));
        }
        let id = ds.dims.len();
        ds.dims.push(super::model::Dim { name: dim.name, len: dim.len, unlimited: dim.unlimited, group: dim.group });
        ds.groups[dim.group].dims.push(id);
    }
    for (gid, gvars) in vars.into_iter().enumerate() {
        for v in gvars {
            if type_size(v.nctype).is_none() && v.nctype != NC_STRING {
                return Err(bad(format!("variable {} has a user-defined type", v.name)));
            }
            let dimids: Vec<i32> = v.dimids.iter().map(|&d| i32::try_from(d).unwrap_or(i32::MAX)).collect();
            let vid = ds.def_var(gid, &v.name, v.nctype, &dimids).map_err(|e| e.context(&v.name))?;
            let shape: Vec<u64> = v.dimids.iter().map(|&d| ds.dims[d].len).collect();
            let var = &mut ds.groups[gid].vars[vid];
            var.atts = v.atts;
            var.no_fill = v.no_fill;
            var.persisted = true;
            var.has_data = true;
            var.storage = NC_CONTIGUOUS;
            var.chunks = shape.iter().map(|&n| n.max(1)).collect();
            var.object_codec = None;
            let fv = FragVar {
                handle: v.handle,
                nctype: v.nctype,
                shape,
                units: None,
                calendar: None,
                missing: vec![],
                scale_factor: None,
                add_offset: None,
            };
            var.source = Some(Arc::new(InFile { file: file.clone(), var: fv, name: v.name }));
        }
    }
    ds.define_mode = false;
    ds.fresh = false;
    ds.writable = false;
    Ok(ds)
}

/// A variable's data in the netCDF file the dataset was read from.
pub struct InFile {
    file: Arc<dyn Fragment>,
    var: FragVar,
    name: String,
}

impl std::fmt::Debug for InFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("InFile").field("var", &self.name).finish()
    }
}

impl VarSource for InFile {
    fn read(&self, slab: &Slab, out: MemOut) -> NcResult<()> {
        let region = Region { start: &slab.start, count: &slab.count, stride: &slab.stride };
        let n = slab.count.iter().try_fold(1u64, |a, &c| a.checked_mul(c)).ok_or_else(|| NcError::new(NC_EEDGE))?;
        let n = usize::try_from(n).map_err(|_| NcError::new(NC_EEDGE))?;
        match out {
            MemOut::Bytes { memtype, buf } => {
                let es = type_size(memtype).ok_or_else(|| NcError::new(NC_EBADTYPE))?;
                let bytes = n.checked_mul(es).ok_or_else(|| NcError::new(NC_EEDGE))?;
                if slab.dense {
                    let dst = buf.get_mut(..bytes).ok_or_else(|| NcError::new(NC_EINTERNAL))?;
                    return range_result(self.file.read(&self.var, &region, memtype, dst)?);
                }
                // a mapped read: the values in order, then each to its place
                let mut tmp = crate::limits::try_zeroed(bytes as u64, crate::limits::limits().max_chunk_bytes)
                    .map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
                let range = self.file.read(&self.var, &region, memtype, &mut tmp)?;
                for (i, off) in slab.offsets().enumerate() {
                    let dst = buf.get_mut(off * es..(off + 1) * es).ok_or_else(|| NcError::new(NC_EINTERNAL))?;
                    dst.copy_from_slice(&tmp[i * es..(i + 1) * es]);
                }
                range_result(range)
            }
            MemOut::Strings(out) => {
                if slab.dense {
                    let dst = out.get_mut(..n).ok_or_else(|| NcError::new(NC_EINTERNAL))?;
                    return self.file.read_strings(&self.var, &region, dst);
                }
                let mut tmp: Vec<String> = Vec::new();
                tmp.try_reserve_exact(n).map_err(|e| NcError::with(NC_ENOMEM, e.to_string()))?;
                tmp.resize(n, String::new());
                self.file.read_strings(&self.var, &region, &mut tmp)?;
                for (s, off) in tmp.into_iter().zip(slab.offsets()) {
                    *out.get_mut(off).ok_or_else(|| NcError::new(NC_EINTERNAL))? = s;
                }
                Ok(())
            }
        }
    }
}
