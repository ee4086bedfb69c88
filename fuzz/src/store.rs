//! Target `store`: a small random dataset is created through the engine's
//! netCDF API (memory, directory or zip store; NCZarr, old keys, pure Zarr,
//! consolidated, Zarr v2 or v3), with random groups, dimensions (fixed and unlimited),
//! variables of every atomic type (chunking, codecs, fill values, byte
//! order) and attributes, written with random hyperslabs over one or more
//! open/close sessions, and read back after every close.
//!
//! The target keeps its own model of what was written (an oracle): every
//! element read must be the last value written there, else the fill value.
//! Findings: a panic; a failure to create, define, write, close or reopen
//! what the API accepted; any structure, attribute or element that does
//! not read back as written.

use super::attrs::{same, values, TYPES};
use super::input::Input;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::MemIn;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::types::{type_size, Values};
use std::collections::BTreeMap;

/// HDF5's filter id for LZ4 (the filter API reaches numcodecs' `lz4` by it).
const H5Z_FILTER_LZ4: u32 = 32004;

/// What was defined and written: the oracle.
struct Model {
    /// Per dimension: name, group, length (current, for unlimited ones), unlimited.
    dims: Vec<(String, usize, u64, bool)>,
    vars: Vec<VarModel>,
    /// Attributes by (group, varid or NC_GLOBAL), in definition order.
    atts: BTreeMap<(usize, i32), Vec<(String, Values)>>,
    groups: Vec<String>,
}

struct VarModel {
    gid: usize,
    varid: i32,
    name: String,
    nctype: i32,
    dims: Vec<usize>,
    /// One element of the fill value (bytes, or a string's bytes).
    fill: Vec<u8>,
    /// Elements written, by index.
    written: BTreeMap<Vec<u64>, Vec<u8>>,
}

impl Model {
    fn shape(&self, v: &VarModel) -> Vec<u64> {
        v.dims.iter().map(|&d| self.dims[d].2).collect()
    }
}

/// Where the dataset lives, and the URL's mode words.
struct Place {
    url: String,
    cleanup: Box<dyn Fn()>,
    /// Pure Zarr: types of attributes, dimension identity and unlimited
    /// lengths are not stored, so only names, shapes and data are compared.
    pure_zarr: bool,
}

fn place(inp: &mut Input) -> Place {
    let modes = inp.pick(&[
        "nczarr",
        "nczarr,oldkeys",
        "nczarr,consolidated",
        "zarr",
        "zarr,consolidated",
        "nczarr,noxarray",
        "nczarr,v3",
        "zarr,v3",
        "nczarr,v3,consolidated",
    ]);
    let name = super::unique("fuzz-store");
    let pure_zarr = modes.starts_with("zarr") || modes.contains("noxarray");
    match inp.below(4) {
        0 => {
            let dir = super::scratch_dir().join(&name);
            let url = format!("file://{}#mode={modes},file", dir.display());
            Place { url, cleanup: Box::new(move || drop(std::fs::remove_dir_all(&dir))), pure_zarr }
        }
        1 => {
            let path = super::scratch_dir().join(format!("{name}.zip"));
            let url = format!("file://{}#mode={modes},zip", path.display());
            Place { url, cleanup: Box::new(move || drop(std::fs::remove_file(&path))), pure_zarr }
        }
        _ => {
            let url = format!("mem://{name}#mode={modes}");
            let loc = name.clone();
            let cleanup = move || {
                if let Ok(s) = nczarr_rs::map::Driver::Memory.open(&loc, true) {
                    let _ = s.destroy();
                }
            };
            Place { url, cleanup: Box::new(cleanup), pure_zarr }
        }
    }
}

/// One element of type `t` from the input (strings: up to 8 bytes of
/// UTF-8 without NUL, which fixed-width string storage cannot keep).
fn element(inp: &mut Input, t: i32) -> Vec<u8> {
    if t == NC_STRING {
        let s = String::from_utf8_lossy(inp.bytes(8)).replace('\0', "");
        let mut s = s.into_bytes();
        while s.len() > 8 {
            s.pop();
            while std::str::from_utf8(&s).is_err() {
                s.pop();
            }
        }
        return s;
    }
    (0..type_size(t).expect("atomic")).map(|_| inp.u8()).collect()
}

fn as_values(t: i32, elems: &[Vec<u8>]) -> Values {
    if t == NC_STRING {
        Values::String(elems.iter().map(|e| String::from_utf8(e.clone()).expect("UTF-8 by construction")).collect())
    } else {
        Values::from_ne_bytes(t, &elems.concat()).expect("whole elements")
    }
}

/// The elements of a read-back value vector.
fn elements(v: &Values) -> Vec<Vec<u8>> {
    match v {
        Values::String(s) => s.iter().map(|s| s.as_bytes().to_vec()).collect(),
        other => {
            let size = type_size(other.nc_type()).expect("atomic");
            other.to_ne_bytes().chunks(size).map(<[u8]>::to_vec).collect()
        }
    }
}

/// Equal elements of type `t` (any NaN equals any NaN: JSON fill values
/// keep no NaN payload).
fn same_elem(t: i32, a: &[u8], b: &[u8]) -> bool {
    let nan = |x: &[u8]| match t {
        NC_FLOAT => f32::from_ne_bytes(x.try_into().expect("4 bytes")).is_nan(),
        NC_DOUBLE => f64::from_ne_bytes(x.try_into().expect("8 bytes")).is_nan(),
        _ => false,
    };
    a == b || (a.len() == b.len() && nan(a) && nan(b))
}

fn define(inp: &mut Input, ds: &mut Dataset, pure_zarr: bool) -> Model {
    let mut m = Model { dims: vec![], vars: vec![], atts: BTreeMap::new(), groups: vec!["/".into()] };
    if inp.bool() {
        let g = ds.def_grp(0, "g").expect("def_grp");
        assert_eq!(g, 1);
        m.groups.push("/g".into());
    }
    for i in 0..inp.below(4) {
        let gid = inp.below(m.groups.len());
        // pure Zarr has no unlimited dimensions
        let unlimited = !pure_zarr && inp.below(4) == 0;
        let len = if unlimited { 0 } else { 1 + inp.below(6) as u64 };
        let name = format!("d{i}");
        let id = ds.def_dim(gid, &name, len).expect("def_dim");
        assert_eq!(id, m.dims.len());
        m.dims.push((name, gid, len, unlimited));
    }
    for i in 0..inp.below(5) {
        let gid = inp.below(m.groups.len());
        let mut nctype = inp.pick(TYPES);
        if pure_zarr && nctype == NC_CHAR {
            // pure Zarr's `|S1` reads as a string, as netCDF-C reads it
            nctype = NC_BYTE;
        }
        let visible: Vec<usize> = (0..m.dims.len()).filter(|&d| m.dims[d].1 == 0 || m.dims[d].1 == gid).collect();
        let nd = if visible.is_empty() { 0 } else { inp.below(4) };
        let dims: Vec<usize> = (0..nd).map(|_| inp.pick(&visible)).collect();
        let dimids: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
        let mut name = format!("v{i}");
        if inp.below(6) == 0 {
            // an unusual but valid name: Unicode, spaces, dots
            let extra = String::from_utf8_lossy(inp.bytes(8)).replace(['/', '\0'], "");
            let candidate = format!("v{i}{}", extra.trim_end());
            if nczarr_rs::engine::names::check_name(&candidate).is_ok() {
                name = candidate;
            }
        }
        let varid = ds.def_var(gid, &name, nctype, &dimids).expect("def_var") as i32;
        if nd > 0 && inp.bool() {
            let chunks: Vec<u64> = dims
                .iter()
                .map(
                    |&d| if m.dims[d].3 { 1 + inp.below(3) as u64 } else { 1 + inp.below(m.dims[d].2 as usize) as u64 },
                )
                .collect();
            ds.def_var_chunking(gid, varid, NC_CHUNKED, Some(&chunks)).expect("def_var_chunking");
        }
        // codecs, up to three stacked: some refuse some types (NC_EFILTER
        // for strings), as netCDF-C's do
        for _ in 0..1 + inp.below(3) {
            let _ = match inp.below(9) {
                0 => ds.def_var_deflate(gid, varid, inp.bool(), true, 1 + inp.below(9) as i32),
                1 => ds.def_var_deflate(gid, varid, true, false, 0),
                // as nc_def_var_zstandard and nc_def_var_blosc pass them
                2 => ds.def_var_codec_filter(gid, varid, H5Z_FILTER_ZSTD, &[(inp.below(6) as i32 - 1) as u32]),
                3 => {
                    let (cname, level, shuffle) =
                        (inp.pick(&[0, 1, 2, 4, 5]), inp.below(10) as u32, inp.below(3) as u32);
                    ds.def_var_codec_filter(gid, varid, H5Z_FILTER_BLOSC, &[0, 0, 0, 0, level, shuffle, cname])
                }
                4 => ds.def_var_codec_filter(gid, varid, H5Z_FILTER_BZIP2, &[1 + inp.below(9) as u32]),
                5 => ds.def_var_codec_filter(gid, varid, H5Z_FILTER_LZ4, &[]),
                6 => ds.def_var_codec_filter(gid, varid, H5Z_FILTER_FLETCHER32, &[]),
                // lossless codecs of the registry without an HDF5 id
                7 => {
                    let codec = match inp.below(4) {
                        0 => serde_json::json!({"id": "lzma", "preset": 1}),
                        1 => serde_json::json!({"id": "crc32"}),
                        2 => serde_json::json!({"id": "adler32", "location": "end"}),
                        _ => serde_json::json!({"id": "crc32c"}),
                    };
                    ds.def_var_codec(gid, varid, codec, true)
                }
                _ => Ok(()),
            };
        }
        if inp.bool() && type_size(nctype).unwrap_or(1) > 1 && nctype != NC_STRING {
            ds.def_var_endian(gid, varid, if inp.bool() { NC_ENDIAN_BIG } else { NC_ENDIAN_LITTLE })
                .expect("def_var_endian");
        }
        if inp.below(3) == 0 {
            let mut fill = element(inp, nctype);
            if nctype == NC_CHAR {
                // JSON text holds UTF-8 only: a char fill byte past 0x7f is
                // stored as U+FFFD (docs/RELIABILITY.md, "Fuzzing")
                fill[0] &= 0x7f;
            }
            let fill = as_values(nctype, &[fill]);
            ds.def_var_fill(gid, varid, false, Some(fill)).expect("def_var_fill");
        }
        let fill = elements(&ds.inq_var_fill(gid, varid).expect("inq_var_fill").1).remove(0);
        m.vars.push(VarModel { gid, varid, name, nctype, dims, fill, written: BTreeMap::new() });
    }
    for _ in 0..inp.below(6) {
        let gid = inp.below(m.groups.len());
        let in_group: Vec<i32> = m.vars.iter().filter(|v| v.gid == gid).map(|v| v.varid).collect();
        let varid = if in_group.is_empty() || inp.bool() { NC_GLOBAL } else { inp.pick(&in_group) };
        let name = format!("a{}", inp.below(4));
        let mut value = values(inp);
        if let Values::Char(c) = &mut value {
            // char values are kept up to trailing NULs, as C strings
            while c.last() == Some(&0) {
                c.pop();
            }
        }
        if pure_zarr {
            // without `_nczarr_attr` a value's type is inferred when read
            value = Values::Double(vec![inp.u8() as f64 + 0.5]);
        }
        ds.put_att(gid, varid, &name, value.clone()).expect("put_att");
        let list = m.atts.entry((gid, varid)).or_default();
        match list.iter_mut().find(|(n, _)| *n == name) {
            Some(slot) => slot.1 = value,
            None => list.push((name, value)),
        }
    }
    m
}

/// One hyperslab write of random values to a random variable.
fn write(inp: &mut Input, ds: &mut Dataset, m: &mut Model) {
    if m.vars.is_empty() {
        return;
    }
    let vi = inp.below(m.vars.len());
    let shape = m.shape(&m.vars[vi]);
    let (mut start, mut count, mut stride) = (vec![], vec![], vec![]);
    for (k, &d) in m.vars[vi].dims.iter().enumerate() {
        let unlimited = m.dims[d].3;
        let s = if unlimited { inp.below(shape[k] as usize + 3) as u64 } else { inp.below(shape[k] as usize) as u64 };
        let st = 1 + inp.below(2) as u64;
        let room = if unlimited { 3 } else { (shape[k] - 1 - s) / st + 1 };
        let c = 1 + inp.below(room as usize) as u64;
        start.push(s);
        count.push(c);
        stride.push(st);
    }
    let v = &m.vars[vi];
    let (gid, varid, nctype) = (v.gid, v.varid, v.nctype);
    let n: u64 = count.iter().product();
    let elems: Vec<Vec<u8>> = (0..n).map(|_| element(inp, nctype)).collect();
    let stride_i: Vec<i64> = stride.iter().map(|&x| x as i64).collect();
    let nd = start.len();
    let slab = if nd == 0 {
        ds.slab(gid, varid, None, None, None, None, true)
    } else {
        ds.slab(gid, varid, Some(&start), Some(&count), Some(&stride_i), None, true)
    }
    .unwrap_or_else(|e| panic!("{}: slab {start:?} {count:?} {stride:?}: {e}", v.name));
    let result = match as_values(nctype, &elems) {
        Values::String(s) => ds.put_slab(gid, varid, &slab, MemIn::Strings(&s)),
        other => ds.put_slab(gid, varid, &slab, MemIn::Bytes { memtype: nctype, buf: &other.to_ne_bytes() }),
    };
    result.unwrap_or_else(|e| panic!("{}: write {start:?} {count:?} {stride:?}: {e}", v.name));
    // the oracle: indices in C order, and unlimited dimensions grown
    let mut idx = vec![0u64; nd];
    for e in elems {
        let at: Vec<u64> = (0..nd).map(|k| start[k] + idx[k] * stride[k]).collect();
        m.vars[vi].written.insert(at, e);
        for k in (0..nd).rev() {
            idx[k] += 1;
            if idx[k] < count[k] {
                break;
            }
            idx[k] = 0;
        }
    }
    for (k, &d) in m.vars[vi].dims.clone().iter().enumerate() {
        let end = start[k] + (count[k] - 1) * stride[k] + 1;
        if m.dims[d].3 && end > m.dims[d].2 {
            m.dims[d].2 = end;
        }
    }
}

/// Everything the model holds must read back from `ds`.
fn verify(ds: &Dataset, m: &Model, pure_zarr: bool, url: &str) {
    let ctx = |what: String| format!("{url}: {what}");
    for path in &m.groups {
        let found = (0..ds.groups().len()).find(|&g| ds.group_path(g) == *path);
        assert!(found.is_some(), "{}", ctx(format!("group {path} missing")));
    }
    for v in &m.vars {
        let gid = (0..ds.groups().len()).find(|&g| ds.group_path(g) == m.groups[v.gid]).expect("checked above");
        let varid = ds
            .find_var(gid, &v.name)
            .unwrap_or_else(|| panic!("{}", ctx(format!("variable {} missing", v.name)))) as i32;
        let got = ds.var(gid, varid).expect("found");
        let shape = m.shape(v);
        assert_eq!(ds.var_shape(got), shape, "{}", ctx(format!("shape of {}", v.name)));
        assert_eq!(got.nctype, v.nctype, "{}", ctx(format!("type of {}", v.name)));
        if !pure_zarr {
            let dims: Vec<&str> = got.dimids.iter().map(|&d| ds.dims()[d].name.as_str()).collect();
            let want: Vec<&str> = v.dims.iter().map(|&d| m.dims[d].0.as_str()).collect();
            assert_eq!(dims, want, "{}", ctx(format!("dimensions of {}", v.name)));
            for (&d, &w) in got.dimids.iter().zip(&v.dims) {
                assert_eq!(ds.dims()[d].unlimited, m.dims[w].3, "{}", ctx(format!("unlimited of {}", m.dims[w].0)));
            }
        }
        let read = ds.read_all(gid, varid).unwrap_or_else(|e| panic!("{}", ctx(format!("read {}: {e}", v.name))));
        let got_elems = match read {
            Ok(values) => elements(&values),
            Err(strings) => strings.into_iter().map(String::into_bytes).collect(),
        };
        let total: u64 = shape.iter().product();
        assert_eq!(got_elems.len() as u64, total, "{}", ctx(format!("{} elements of {}", got_elems.len(), v.name)));
        let mut idx = vec![0u64; shape.len()];
        for e in &got_elems {
            let want = v.written.get(&idx).unwrap_or(&v.fill);
            assert!(
                same_elem(v.nctype, e, want),
                "{}",
                ctx(format!("{}{idx:?} reads {e:?}, {want:?} was written (or is the fill)", v.name))
            );
            for k in (0..idx.len()).rev() {
                idx[k] += 1;
                if idx[k] < shape[k] {
                    break;
                }
                idx[k] = 0;
            }
        }
    }
    for ((gpos, varid), list) in &m.atts {
        let gid = (0..ds.groups().len()).find(|&g| ds.group_path(g) == m.groups[*gpos]).expect("checked above");
        let varid = if *varid == NC_GLOBAL {
            NC_GLOBAL
        } else {
            let name = &m.vars.iter().find(|v| v.gid == *gpos && v.varid == *varid).expect("defined").name;
            ds.find_var(gid, name).expect("checked above") as i32
        };
        for (name, value) in list {
            let got =
                ds.get_att(gid, varid, name).unwrap_or_else(|e| panic!("{}", ctx(format!("attribute {name}: {e}"))));
            assert!(same(&got, value), "{}", ctx(format!("attribute {name} reads {got:?}, {value:?} was written")));
        }
    }
}

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    let place = place(&mut inp);
    let url = place.url.clone();
    let mut ds = file::create(&url, NC_CLOBBER).unwrap_or_else(|e| panic!("{url}: create: {e}"));
    let mut m = define(&mut inp, &mut ds, place.pure_zarr);
    ds.enddef().unwrap_or_else(|e| panic!("{url}: enddef: {e}"));
    let sessions = 1 + inp.below(3);
    for session in 0..sessions {
        if session > 0 {
            ds = file::open(&url, NC_WRITE).unwrap_or_else(|e| panic!("{url}: open for writing: {e}"));
        }
        for _ in 0..inp.below(5) {
            write(&mut inp, &mut ds, &mut m);
            if inp.below(4) == 0 {
                // the open handle (chunk cache, dirty chunks) reads it back too
                verify(&ds, &m, place.pure_zarr, &url);
            }
        }
        ds.close().unwrap_or_else(|e| panic!("{url}: close: {e}"));
        drop(ds);
        let again = file::open(&url, NC_NOWRITE).unwrap_or_else(|e| panic!("{url}: reopen: {e}"));
        verify(&again, &m, place.pure_zarr, &url);
        super::walk::walk(&again);
        ds = again;
    }
    drop(ds);
    (place.cleanup)();
}
