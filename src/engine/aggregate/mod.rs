//! Aggregated variables: a data source beside the chunk store.
//!
//! An aggregation variable (NCA 0.1, CFA-0.4, CFA-0.6.2, CF-1.13; see
//! docs/AGGREGATION.md) describes a master array assembled from partitions
//! held in other variables: of the same dataset, of other Zarr stores, or
//! of netCDF files. When a dataset is opened read-only, [`apply`] turns each
//! one into the variable it stands for: its master dimensions and type, its
//! attributes less the aggregation machinery, and an [`Aggregated`] source
//! (`Var::source`) that the data path asks for a region (`conform.rs`). The
//! variables and dimensions that serve the aggregation only are hidden.
//! `#mode=...,noaggregate` or `NCZARR_RS_AGGREGATE=0` shows the dataset as
//! stored.
//!
//! Layering: the engine knows no C. Fragments in netCDF files are read by a
//! [`FragmentReader`], and units converted by a [`UnitSystem`], that the C
//! layer installs ([`install`]): libnetcdf and UDUNITS-2, loaded at run
//! time. Without them those partitions are `NC_ENOTBUILT`.
//!
//! - `parse.rs`: every form -> one [`parse::Aggregation`] (grid of partitions);
//! - `conform.rs`: reading a region, partition by partition (reorder,
//!   reverse, `part`, size-1 dimensions, unpacking, missing values, units);
//! - `units.rs`, `calendar.rs`: unit conversion and CF calendars.

pub mod calendar;
pub mod conform;
pub mod parse;
pub mod tool;
pub mod units;
pub mod write;

use super::consts::*;
use super::error::*;
use super::model::{Att, Dataset};
use super::types::Values;
use super::{NcError, NcResult};
use parse::{Aggregation, Form, Term, TermData};
use std::collections::HashSet;
use std::num::NonZeroUsize;
use std::sync::{Arc, Mutex, OnceLock};
pub use units::UnitSystem;

/// Environment variable: `0` (or `false`, `no`, `off`) shows aggregation
/// variables as stored.
pub const AGGREGATE_ENV: &str = "NCZARR_RS_AGGREGATE";
/// Environment variable: how many fragment datasets an aggregation keeps
/// open (default 32).
pub const OPEN_FRAGMENTS_ENV: &str = "NCZARR_RS_AGGREGATE_OPEN_FRAGMENTS";

/// One variable of a fragment dataset, as the aggregation needs it.
#[derive(Debug, Clone)]
pub struct FragVar {
    /// The reader's own reference to the variable (group and variable ids).
    pub handle: (i64, i64),
    pub nctype: NcType,
    pub shape: Vec<u64>,
    pub units: Option<String>,
    pub calendar: Option<String>,
    /// Values that mean "missing": `_FillValue` (or the default fill) and
    /// `missing_value`.
    pub missing: Vec<f64>,
    pub scale_factor: Option<f64>,
    pub add_offset: Option<f64>,
}

/// An open dataset that holds fragments.
pub trait Fragment: Send + Sync {
    /// A variable by name or path (`"q"`, `"/g/q"`).
    fn var(&self, name: &str) -> NcResult<FragVar>;
    /// Reads `region` of `var` into `out` (native `memtype`, C order).
    /// `Ok(true)`: some value was out of range for `memtype` (converted
    /// anyway, as netCDF does).
    fn read(&self, var: &FragVar, region: &Region, memtype: NcType, out: &mut [u8]) -> NcResult<bool>;
    /// Reads `region` of an `NC_STRING` variable (`out` holds one string
    /// per element, C order).
    fn read_strings(&self, var: &FragVar, region: &Region, out: &mut [String]) -> NcResult<()> {
        let _ = (var, region, out);
        Err(NcError::new(NC_EBADTYPE))
    }
    /// The whole dataset's structure, for opening it through this engine
    /// (`engine::ncfile`); datasets this engine reads itself need not.
    fn describe(&self) -> NcResult<super::ncfile::Described> {
        Err(NcError::new(NC_ENOTBUILT))
    }
    /// A text attribute of the root group (`Conventions`), if there is one.
    fn global_text(&self, name: &str) -> Option<String> {
        let _ = name;
        None
    }
}

/// A hyperslab of a fragment variable: one entry per dimension.
#[derive(Debug, Clone, Copy)]
pub struct Region<'a> {
    pub start: &'a [u64],
    pub count: &'a [u64],
    pub stride: &'a [u64],
}

/// Opens datasets this engine does not read itself (netCDF files).
pub trait FragmentReader: Send + Sync {
    fn open(&self, path: &str) -> NcResult<Arc<dyn Fragment>>;
}

static READER: OnceLock<Box<dyn FragmentReader>> = OnceLock::new();
static UNITS: OnceLock<Box<dyn UnitSystem>> = OnceLock::new();

/// Installs the netCDF file reader and the units library (once; later
/// calls are ignored). The C layer does this before its first open.
pub fn install(reader: Option<Box<dyn FragmentReader>>, units: Option<Box<dyn UnitSystem>>) {
    if let Some(r) = reader {
        let _ = READER.set(r);
    }
    if let Some(u) = units {
        let _ = UNITS.set(u);
    }
}

/// The installed reader of netCDF files, if any.
pub(crate) fn reader() -> Option<&'static dyn FragmentReader> {
    READER.get().map(|b| b.as_ref())
}

/// Whether a global `Conventions` attribute names a convention that has
/// aggregation variables: NCA, CFA (0.4, 0.6.2), or CF 1.12 and later (CF
/// 1.13's aggregation, and cfdm 1.12.0-1.12.1's interim form of it).
pub fn conventions_aggregate(conventions: &str) -> bool {
    conventions.split(|c: char| c.is_whitespace() || c == ',').any(|t| {
        let t = t.trim().to_ascii_uppercase();
        if t.starts_with("NCA") || t.starts_with("CFA") {
            return true;
        }
        let Some(version) = t.strip_prefix("CF-") else { return false };
        let mut parts = version.split('.').map(|p| p.parse::<u32>().ok());
        match (parts.next().flatten(), parts.next().flatten()) {
            (Some(major), Some(minor)) => (major, minor) >= (1, 12),
            (Some(major), None) => major >= 2,
            _ => false,
        }
    })
}

/// Whether a dataset's global `Conventions` (or `conventions`) attribute,
/// read by `global_text`, names a convention with aggregation variables
/// (see [`conventions_aggregate`]).
pub fn dataset_conventions_aggregate(global_text: impl Fn(&str) -> Option<String>) -> bool {
    ["Conventions", "conventions"].iter().any(|n| global_text(n).is_some_and(|c| conventions_aggregate(&c)))
}

/// Whether a variable with these attributes is an aggregation variable.
pub(crate) fn is_aggregation(atts: &[Att]) -> bool {
    form_of(atts).is_some()
}

pub(crate) fn unit_system() -> Option<&'static dyn UnitSystem> {
    UNITS.get().map(|b| b.as_ref())
}

/// Whether aggregation variables are interpreted (`NCZARR_RS_AGGREGATE`).
pub fn enabled_by_env() -> bool {
    std::env::var(AGGREGATE_ENV)
        .map_or(true, |v| !matches!(v.trim().to_ascii_lowercase().as_str(), "0" | "false" | "no" | "off"))
}

// ---- fragments served by this engine ---------------------------------------------

/// A Zarr/NCZarr dataset of this engine, opened as stored.
pub struct EngineFragment(Dataset);

impl EngineFragment {
    pub fn new(ds: Dataset) -> EngineFragment {
        EngineFragment(ds)
    }
}

fn num_att(atts: &[Att], name: &str) -> Option<Vec<f64>> {
    let a = atts.iter().find(|a| a.name == name)?;
    match &a.values {
        Values::Char(_) | Values::String(_) => None,
        v => Some(v.nums().into_iter().map(num_f64).collect()),
    }
}

fn num_f64(n: super::convert::Num) -> f64 {
    match n {
        super::convert::Num::I(i) => i as f64,
        super::convert::Num::F(f) => f,
    }
}

/// A text attribute (char or the first string).
pub(crate) fn text_att(atts: &[Att], name: &str) -> Option<String> {
    let a = atts.iter().find(|a| a.name == name)?;
    match &a.values {
        Values::Char(c) => Some(String::from_utf8_lossy(c).trim_end_matches('\0').to_string()),
        Values::String(s) => s.first().cloned(),
        _ => None,
    }
}

impl Fragment for EngineFragment {
    fn describe(&self) -> NcResult<super::ncfile::Described> {
        use super::ncfile::{DescDim, DescGroup, DescVar, Described};
        let ds = &self.0;
        Ok(Described {
            groups: ds
                .groups
                .iter()
                .enumerate()
                .map(|(gid, g)| DescGroup {
                    name: g.name.clone(),
                    parent: g.parent,
                    atts: g.atts.clone(),
                    vars: g
                        .vars
                        .iter()
                        .enumerate()
                        .map(|(vid, v)| DescVar {
                            name: v.name.clone(),
                            nctype: v.nctype,
                            dimids: v.dimids.clone(),
                            atts: v.atts.clone(),
                            no_fill: v.no_fill,
                            handle: (gid as i64, vid as i64),
                        })
                        .collect(),
                })
                .collect(),
            dims: ds
                .dims
                .iter()
                .map(|d| DescDim { name: d.name.clone(), len: d.len, unlimited: d.unlimited, group: d.group })
                .collect(),
        })
    }

    fn read_strings(&self, var: &FragVar, region: &Region, out: &mut [String]) -> NcResult<()> {
        let ds = &self.0;
        let (gid, vid) = (var.handle.0 as usize, var.handle.1 as i32);
        let stride: Vec<i64> = region.stride.iter().map(|&s| i64::try_from(s).unwrap_or(i64::MAX)).collect();
        let slab = ds.slab(gid, vid, Some(region.start), Some(region.count), Some(&stride), None, false)?;
        ds.get_slab(gid, vid, &slab, super::data::MemOut::Strings(out))
    }

    fn var(&self, name: &str) -> NcResult<FragVar> {
        let ds = &self.0;
        let path = name.trim_start_matches('/');
        let (gpath, vname) = path.rsplit_once('/').unwrap_or(("", path));
        let gid = ds
            .find_group_path(0, gpath)
            .ok_or_else(|| NcError::with(NC_ENOTVAR, format!("no group {gpath:?} in {}", ds.path)))?;
        let vid = ds
            .find_var(gid, vname)
            .ok_or_else(|| NcError::with(NC_ENOTVAR, format!("no variable {name:?} in {}", ds.path)))?;
        let v = &ds.groups[gid].vars[vid];
        if v.source.as_ref().is_some_and(|s| s.is_aggregation()) {
            return Err(NcError::with(NC_EINVAL, format!("{name} in {} is itself an aggregation", ds.path)));
        }
        let mut missing = Vec::new();
        if !v.no_fill && !matches!(v.nctype, NC_CHAR | NC_STRING) {
            if let Ok(f) = ds.fill_value(v) {
                missing.extend(f.nums().into_iter().map(num_f64));
            }
        }
        missing.extend(num_att(&v.atts, "missing_value").unwrap_or_default());
        Ok(FragVar {
            handle: (gid as i64, vid as i64),
            nctype: v.nctype,
            shape: ds.var_shape(v),
            units: text_att(&v.atts, "units"),
            calendar: text_att(&v.atts, "calendar"),
            missing,
            scale_factor: num_att(&v.atts, "scale_factor").and_then(|v| v.first().copied()),
            add_offset: num_att(&v.atts, "add_offset").and_then(|v| v.first().copied()),
        })
    }

    fn read(&self, var: &FragVar, region: &Region, memtype: NcType, out: &mut [u8]) -> NcResult<bool> {
        let ds = &self.0;
        let (gid, vid) = (var.handle.0 as usize, var.handle.1 as i32);
        let stride: Vec<i64> = region.stride.iter().map(|&s| i64::try_from(s).unwrap_or(i64::MAX)).collect();
        let slab = ds.slab(gid, vid, Some(region.start), Some(region.count), Some(&stride), None, false)?;
        match ds.get_slab(gid, vid, &slab, super::data::MemOut::Bytes { memtype, buf: out }) {
            Ok(()) => Ok(false),
            Err(e) if e.code() == NC_ERANGE => Ok(true),
            Err(e) => Err(e),
        }
    }
}

/// The open fragment datasets of one aggregation dataset, least recently
/// used first out.
pub struct FragmentCache {
    open: Mutex<lru::LruCache<String, Arc<dyn Fragment>>>,
    /// The chunk cache of each variable of an open Zarr fragment: the
    /// default (`nc_set_chunk_cache`) shared among the open fragments, so
    /// that the decoded chunks an aggregation keeps are bounded by one
    /// default cache, however many fragments it reads.
    chunk_cache: super::cache::CacheConfig,
}

impl FragmentCache {
    fn new() -> FragmentCache {
        let n = std::env::var(OPEN_FRAGMENTS_ENV).ok().and_then(|v| v.trim().parse::<usize>().ok()).unwrap_or(32);
        let n = n.clamp(1, 4096);
        let mut chunk_cache = super::cache::defaults();
        chunk_cache.size /= n;
        chunk_cache.nelems = chunk_cache.nelems.div_ceil(n);
        FragmentCache { open: Mutex::new(lru::LruCache::new(NonZeroUsize::new(n).expect("nonzero"))), chunk_cache }
    }

    /// The dataset at `path`, opened once and kept while it is used.
    pub fn get(&self, path: &str) -> NcResult<Arc<dyn Fragment>> {
        if let Some(f) = self.open.lock().unwrap_or_else(|e| e.into_inner()).get(path) {
            return Ok(f.clone());
        }
        // opened outside the lock: another thread may open it too (the
        // first one in stays)
        let f = open_fragment(path, self.chunk_cache)?;
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        Ok(open.get_or_insert(path.to_string(), || f).clone())
    }

    /// Number of datasets open now.
    pub fn len(&self) -> usize {
        self.open.lock().unwrap_or_else(|e| e.into_inner()).len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// Opens a fragment dataset: Zarr stores through this engine (as stored:
/// a fragment is not itself aggregated), anything else through the
/// installed reader.
fn open_fragment(path: &str, chunk_cache: super::cache::CacheConfig) -> NcResult<Arc<dyn Fragment>> {
    if super::file::claims(path, false) {
        let mut ds = super::file::open_as_stored(path, NC_NOWRITE)?;
        for g in &mut ds.groups {
            for v in &mut g.vars {
                v.cache = Arc::new(super::cache::ChunkCache::new(chunk_cache));
            }
        }
        return Ok(Arc::new(EngineFragment::new(ds)));
    }
    if !path.contains("://") && !std::path::Path::new(path).exists() {
        return Err(NcError::with(2, format!("fragment dataset {path} does not exist")));
    }
    match READER.get() {
        Some(r) => r.open(path),
        None => Err(NcError::with(
            NC_ENOTBUILT,
            format!("{path} is not a Zarr store, and no netCDF library (libnetcdf) was found to read it"),
        )),
    }
}

// ---- the source of an aggregated variable -------------------------------------------

/// Where relative fragment locations resolve.
#[derive(Debug, Clone)]
enum Base {
    Dir(std::path::PathBuf),
    Url(String),
    None,
}

/// The data source of an aggregated variable.
pub struct Aggregated {
    pub agg: Aggregation,
    /// The master type, fill value and units.
    pub nctype: NcType,
    pub fill: Values,
    pub units: Option<String>,
    pub calendar: Option<String>,
    base: Base,
    /// The aggregation dataset as stored (its NCA private variables).
    container: Arc<dyn Fragment>,
    pub fragments: Arc<FragmentCache>,
    /// The path of the aggregation dataset, for messages.
    pub path: String,
}

impl std::fmt::Debug for Aggregated {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Aggregated").field("form", &self.agg.form).field("shape", &self.agg.shape()).finish()
    }
}

impl Aggregated {
    /// The dataset of a partition's data (and the variable's name there).
    pub(crate) fn dataset_of(&self, p: &parse::Partition) -> NcResult<(Arc<dyn Fragment>, String)> {
        match &p.source {
            parse::Source::Container { var, format } => {
                check_format(format.as_deref())?;
                Ok((self.container.clone(), var.clone()))
            }
            parse::Source::File { uris, var, format } => {
                check_format(format.as_deref())?;
                let mut first_err = None;
                for u in uris {
                    let path = self.resolve(u)?;
                    match self.fragments.get(&path) {
                        Ok(f) => return Ok((f, var.clone())),
                        Err(e) => {
                            first_err.get_or_insert(e);
                        }
                    }
                }
                Err(first_err.unwrap_or_else(|| NcError::with(NC_EINVAL, "no location")))
            }
            _ => Err(NcError::with(NC_EINTERNAL, "a partition without a dataset")),
        }
    }

    /// A fragment location as a path or URL this engine opens.
    fn resolve(&self, uri: &str) -> NcResult<String> {
        if let Some(rest) = uri.strip_prefix("file://") {
            let rest = rest.strip_prefix("localhost").unwrap_or(rest);
            return Ok(percent_decode(rest));
        }
        if uri.contains("://") || uri.starts_with('/') {
            return Ok(uri.to_string());
        }
        match &self.base {
            Base::Dir(d) => Ok(d.join(uri).to_string_lossy().into_owned()),
            Base::Url(u) => Ok(format!("{u}/{uri}")),
            Base::None => Err(NcError::with(
                NC_EINVAL,
                format!("relative fragment location {uri:?} in a dataset without a directory ({})", self.path),
            )),
        }
    }
}

fn check_format(f: Option<&str>) -> NcResult<()> {
    match f.map(|s| s.trim().to_ascii_lowercase()) {
        None => Ok(()),
        Some(s)
            if s.is_empty() || s.starts_with("netcdf") || s == "nc" || s == "nc4" || s == "zarr" || s == "nczarr" =>
        {
            Ok(())
        }
        Some(s) => {
            Err(NcError::with(NC_ENOTBUILT, format!("fragments in format {s:?} are not read (netCDF and Zarr are)")))
        }
    }
}

fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%' && i + 2 < b.len() {
            if let Ok(v) = u8::from_str_radix(&s[i + 1..i + 3], 16) {
                out.push(v);
                i += 3;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn base_of(path: &str) -> Base {
    let Ok(u) = super::url::parse(path) else { return Base::None };
    match u.storage {
        super::url::Storage::File | super::url::Storage::Zip => {
            let loc = u
                .location
                .strip_prefix("file://")
                .map_or(u.location.as_str(), |l| l.strip_prefix("localhost").unwrap_or(l));
            let p = std::path::Path::new(loc);
            let abs = if p.is_absolute() {
                p.to_path_buf()
            } else {
                std::env::current_dir().map(|d| d.join(p)).unwrap_or_else(|_| p.to_path_buf())
            };
            abs.parent().map_or(Base::None, |d| Base::Dir(d.to_path_buf()))
        }
        super::url::Storage::S3
        | super::url::Storage::Refs
        | super::url::Storage::Gcs
        | super::url::Storage::Azure
        | super::url::Storage::Http => {
            let base = u.location.split('#').next().unwrap_or("").trim_end_matches('/');
            base.rsplit_once('/').map_or(Base::None, |(b, _)| Base::Url(b.to_string()))
        }
        super::url::Storage::Memory => Base::None,
    }
}

// ---- turning aggregation variables into the variables they stand for -------------

/// The attributes that make a variable an aggregation, per form.
fn machinery(form: Form) -> &'static [&'static str] {
    match form {
        Form::Nca => &["nca_dimensions", "nca_array"],
        Form::Cfa04 => &["cfa_dimensions", "cfa_array", "cf_role"],
        Form::FragmentArrays => &["aggregated_dimensions", "aggregated_data"],
    }
}

/// Which form a variable's attributes are in, if any.
fn form_of(atts: &[Att]) -> Option<Form> {
    let has = |n: &str| atts.iter().any(|a| a.name == n);
    if has("aggregated_dimensions") && has("aggregated_data") {
        Some(Form::FragmentArrays)
    } else if has("nca_dimensions") && has("nca_array") {
        Some(Form::Nca)
    } else if has("cfa_array") && text_att(atts, "cf_role").is_some_and(|r| r.trim() == "cfa_variable") {
        Some(Form::Cfa04)
    } else {
        None
    }
}

/// A copy of the dataset's model on the same store (the aggregation
/// dataset as stored, for reading its private variables).
fn as_stored(ds: &Dataset) -> Dataset {
    Dataset {
        store: ds.store.clone(),
        path: ds.path.clone(),
        mode: ds.mode,
        pure_zarr: ds.pure_zarr,
        xarray: ds.xarray,
        writable: false,
        classic_model: ds.classic_model,
        define_mode: false,
        fresh: false,
        default_nofill: ds.default_nofill,
        groups: ds.groups.clone(),
        dims: ds.dims.clone(),
        provenance: ds.provenance.clone(),
        nczarr_layout: ds.nczarr_layout,
        format: ds.format,
        consolidated: ds.consolidated,
        written: Default::default(),
        read_as: Default::default(),
        closed: false,
        notes: Vec::new(),
        meta_gen: 0,
        par: None,
    }
}

/// Interprets every aggregation variable of a dataset opened read-only.
/// A variable whose aggregation is malformed stays as stored, with the
/// reason as its data error (and a note); the others open.
pub fn apply(ds: &mut Dataset) -> NcResult<()> {
    ds.touch();
    let mut found = Vec::new();
    for (gid, g) in ds.groups.iter().enumerate() {
        for (vid, v) in g.vars.iter().enumerate() {
            if let Some(form) = form_of(&v.atts) {
                found.push((gid, vid, form));
            }
        }
    }
    // NCA private variables, and CFA-0.4's (`cf_role = "cfa_private"`)
    let private = |v: &super::model::Var| {
        num_att(&v.atts, "nca_private").is_some_and(|x| x.iter().any(|&n| n != 0.0))
            || text_att(&v.atts, "cf_role").is_some_and(|r| r.trim() == "cfa_private")
    };
    let any_private = ds.groups.iter().any(|g| g.vars.iter().any(private));
    if found.is_empty() && !any_private {
        return Ok(());
    }
    for &(gid, vid, form) in &found {
        if form == Form::FragmentArrays {
            // an error here is reported by `build` below
            let _ = add_implied_dims(ds, gid, vid);
        }
    }
    let container: Arc<dyn Fragment> = Arc::new(EngineFragment::new(as_stored(ds)));
    let fragments = Arc::new(FragmentCache::new());
    let base = base_of(&ds.path);
    let mut hidden: HashSet<(usize, usize)> = HashSet::new();
    for (gid, vid) in ds
        .groups
        .iter()
        .enumerate()
        .flat_map(|(g, gr)| gr.vars.iter().enumerate().filter(|(_, v)| private(v)).map(move |(v, _)| (g, v)))
    {
        hidden.insert((gid, vid));
    }
    for (gid, vid, form) in found {
        let name = ds.groups[gid].vars[vid].name.clone();
        match build(ds, gid, vid, form) {
            Ok((agg, dimids)) => {
                for h in &agg.hidden_vars {
                    if let Some(at) = find_var_from(ds, gid, h) {
                        hidden.insert(at);
                    }
                }
                let v = &ds.groups[gid].vars[vid];
                let fill = ds.fill_value(v)?.convert(v.nctype)?.0;
                let src = Aggregated {
                    nctype: v.nctype,
                    fill,
                    units: text_att(&v.atts, "units"),
                    calendar: text_att(&v.atts, "calendar"),
                    base: base.clone(),
                    container: container.clone(),
                    fragments: fragments.clone(),
                    path: ds.path.clone(),
                    agg,
                };
                let shape: Vec<u64> = dimids.iter().map(|&d| ds.dims[d].len).collect();
                let v = &mut ds.groups[gid].vars[vid];
                let gone = machinery(form);
                v.atts.retain(|a| !gone.contains(&a.name.as_str()));
                v.dimids = dimids;
                v.chunks = shape.iter().map(|&n| n.max(1)).collect();
                v.storage = NC_CONTIGUOUS;
                v.codecs = crate::codec::Pipeline::new(super::filters::codec_dtype(v.nctype));
                v.source = Some(Arc::new(src));
            }
            Err(e) => {
                let e = e.context(format!("aggregated variable {name}"));
                ds.notes.push(e.detail().unwrap_or_default().to_string());
                ds.groups[gid].vars[vid].unreadable = Some(e);
            }
        }
    }
    hide(ds, &hidden);
    Ok(())
}

/// Defines, in the aggregation variable's group, the master dimensions its
/// `aggregated_dimensions` names that no group in scope defines: their
/// lengths are the sums of the fragment sizes in the `map`. In pure Zarr a
/// dimension exists only through the arrays that use it, and a master
/// dimension without a coordinate variable is used by none (cfdm and
/// `nczarr_rs_def_var_aggregated` write such stores).
fn add_implied_dims(ds: &mut Dataset, gid: usize, vid: usize) -> NcResult<()> {
    ds.touch();
    let v = &ds.groups[gid].vars[vid];
    let names: Vec<String> =
        text_att(&v.atts, "aggregated_dimensions").unwrap_or_default().split_whitespace().map(str::to_string).collect();
    let missing: Vec<usize> = (0..names.len()).filter(|&k| ds.find_dim(gid, &names[k]).is_none()).collect();
    if missing.is_empty() || names.len() > NC_MAX_VAR_DIMS as usize {
        return Ok(());
    }
    let text = text_att(&v.atts, "aggregated_data").unwrap_or_default();
    let Some((_, map)) =
        parse::parse_aggregated_data(&text)?.into_iter().find(|(t, _)| parse::canonical_term(t) == Some("map"))
    else {
        return Ok(());
    };
    let rows = parse::map_rows(&term(ds, gid, &map)?, names.len())?;
    for k in missing {
        super::names::check_name(&names[k])?;
        let len = rows[k]
            .iter()
            .try_fold(0u64, |a, &n| a.checked_add(n))
            .filter(|&n| n <= crate::engine::slab_check::MAX_DIM_LEN);
        let len = len.ok_or_else(|| NcError::with(NC_EDIMSIZE, format!("{}: too long", names[k])))?;
        if ds.find_dim(gid, &names[k]).is_none() {
            let id = ds.dims.len();
            ds.dims.push(super::model::Dim { name: names[k].clone(), len, unlimited: false, group: gid });
            ds.groups[gid].dims.push(id);
        }
    }
    Ok(())
}

/// A variable named as CF does in `aggregated_data`: a path, or a name
/// searched from `gid` up to the root.
fn find_var_from(ds: &Dataset, gid: usize, name: &str) -> Option<(usize, usize)> {
    if let Some(rest) = name.strip_prefix('/') {
        let (gp, vn) = rest.rsplit_once('/').unwrap_or(("", rest));
        let g = ds.find_group_path(0, gp)?;
        return ds.find_var(g, vn).map(|v| (g, v));
    }
    if name.contains('/') {
        let (gp, vn) = name.rsplit_once('/')?;
        let g = ds.find_group_path(gid, gp)?;
        return ds.find_var(g, vn).map(|v| (g, v));
    }
    ds.ancestry(gid).into_iter().find_map(|g| ds.find_var(g, name).map(|v| (g, v)))
}

/// The values of a fragment array variable.
fn term(ds: &Dataset, gid: usize, name: &str) -> NcResult<Term> {
    let (g, v) = find_var_from(ds, gid, name)
        .ok_or_else(|| NcError::with(NC_ENOTVAR, format!("no fragment array variable {name:?}")))?;
    let var = &ds.groups[g].vars[v];
    let mut shape = ds.var_shape(var);
    let n = shape.iter().try_fold(1u64, |a, &x| a.checked_mul(x)).unwrap_or(u64::MAX);
    if n > parse::MAX_PARTITIONS.saturating_mul(4) {
        return Err(NcError::with(NC_EINVAL, format!("{name}: {n} values")));
    }
    let data = match ds.read_all(g, v as i32).map_err(|e| e.context(name))? {
        Err(strings) => TermData::Strings(strings),
        Ok(Values::Char(c)) => {
            // netCDF-3: a char array whose last dimension is the string length
            let w = shape.pop().unwrap_or(1).max(1) as usize;
            TermData::Strings(
                c.chunks(w).map(|s| String::from_utf8_lossy(s).trim_end_matches(['\0', ' ']).to_string()).collect(),
            )
        }
        Ok(values) => {
            // the fill value marks a missing entry even where fill mode is
            // off (cfdm writes fragment arrays with `_NoFill`, and reads
            // their default fill values as missing, as ncdump shows them)
            let fill: Vec<f64> = match ds.fill_value(var) {
                Ok(f) => f.nums().into_iter().map(num_f64).collect(),
                _ => Vec::new(),
            };
            let mut missing = fill;
            missing.extend(num_att(&var.atts, "missing_value").unwrap_or_default());
            TermData::Nums(
                values
                    .nums()
                    .into_iter()
                    .map(num_f64)
                    .map(|x| (!missing.iter().any(|&m| m == x || (m.is_nan() && x.is_nan()))).then_some(x))
                    .collect(),
            )
        }
    };
    Ok(Term { var: var.name.clone(), shape, data })
}

/// Parses the aggregation of variable `vid` and finds its master dimensions.
fn build(ds: &Dataset, gid: usize, vid: usize, form: Form) -> NcResult<(Aggregation, Vec<usize>)> {
    let v = &ds.groups[gid].vars[vid];
    if matches!(v.nctype, NC_CHAR | NC_STRING) {
        return Err(NcError::with(NC_ENOTBUILT, "aggregations of strings or characters are not read"));
    }
    let dims_att = match form {
        Form::Nca => "nca_dimensions",
        Form::Cfa04 => "cfa_dimensions",
        Form::FragmentArrays => "aggregated_dimensions",
    };
    let dim_names: Vec<String> =
        text_att(&v.atts, dims_att).unwrap_or_default().split_whitespace().map(str::to_string).collect();
    if dim_names.len() > NC_MAX_VAR_DIMS as usize {
        return Err(NcError::with(NC_EMAXDIMS, format!("{dims_att}: {} dimensions", dim_names.len())));
    }
    let mut dimids = Vec::with_capacity(dim_names.len());
    for n in &dim_names {
        let d = ds
            .find_dim(gid, n)
            .ok_or_else(|| NcError::with(NC_EBADDIM, format!("{dims_att} names {n:?}, which is not a dimension")))?;
        dimids.push(d);
    }
    let shape: Vec<u64> = dimids.iter().map(|&d| ds.dims[d].len).collect();
    let agg = match form {
        Form::Nca | Form::Cfa04 => {
            let json_att = if form == Form::Nca { "nca_array" } else { "cfa_array" };
            let text = text_att(&v.atts, json_att)
                .ok_or_else(|| NcError::with(NC_EINVAL, format!("{json_att} is not text")))?;
            parse::parse_partitions_json(form, &dim_names, &shape, &text).map_err(|e| e.context(json_att))?
        }
        Form::FragmentArrays => {
            let text = text_att(&v.atts, "aggregated_data").unwrap_or_default();
            let mut terms = Vec::new();
            let mut subs = Vec::new();
            for (t, var) in parse::parse_aggregated_data(&text)? {
                let Some(canon) = parse::canonical_term(&t) else { continue };
                let tv = term(ds, gid, &var)?;
                if canon == "uris" {
                    if let Some((g, v)) = find_var_from(ds, gid, &var) {
                        if let Some(s) = text_att(&ds.groups[g].vars[v].atts, "substitutions") {
                            subs = parse::parse_substitutions(&s);
                        }
                    }
                }
                terms.push((canon.to_string(), tv));
            }
            parse::parse_fragment_arrays(&dim_names, &shape, &terms, &subs)?
        }
    };
    Ok((agg, dimids))
}

/// Removes hidden variables, and the dimensions only they used.
fn hide(ds: &mut Dataset, hidden: &HashSet<(usize, usize)>) {
    ds.touch();
    if hidden.is_empty() {
        return;
    }
    let nd = ds.dims.len();
    let (mut by_hidden, mut by_visible) = (vec![false; nd], vec![false; nd]);
    for (gid, g) in ds.groups.iter().enumerate() {
        for (vid, v) in g.vars.iter().enumerate() {
            let mark = if hidden.contains(&(gid, vid)) { &mut by_hidden } else { &mut by_visible };
            for &d in &v.dimids {
                mark[d] = true;
            }
        }
    }
    for (gid, g) in ds.groups.iter_mut().enumerate() {
        let mut vid = 0;
        g.vars.retain(|_| {
            let keep = !hidden.contains(&(gid, vid));
            vid += 1;
            keep
        });
    }
    let gone: Vec<bool> = (0..nd).map(|d| by_hidden[d] && !by_visible[d]).collect();
    if !gone.contains(&true) {
        return;
    }
    let mut newid = vec![usize::MAX; nd];
    let mut k = 0;
    for d in 0..nd {
        if !gone[d] {
            newid[d] = k;
            k += 1;
        }
    }
    let mut d = 0;
    ds.dims.retain(|_| {
        let keep = !gone[d];
        d += 1;
        keep
    });
    for g in &mut ds.groups {
        g.dims = g.dims.iter().filter(|&&d| !gone[d]).map(|&d| newid[d]).collect();
        for v in &mut g.vars {
            for d in &mut v.dimids {
                *d = newid[*d];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::conventions_aggregate;

    #[test]
    fn conventions_that_have_aggregation_variables() {
        for yes in
            ["CF-1.13", "CF-1.5 NCA", "CF-1.7 CFA-0.4", "CF-1.10 CFA-0.6.2", "CF-1.12", "CF-1.14, ACDD-1.3", "cf-2.0"]
        {
            assert!(conventions_aggregate(yes), "{yes}");
        }
        for no in ["", "CF-1.11", "CF-1.8 ACDD-1.3", "COARDS", "CF-1", "CF-x.y", "UGRID-1.0"] {
            assert!(!conventions_aggregate(no), "{no}");
        }
    }
}
