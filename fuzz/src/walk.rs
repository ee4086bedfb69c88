//! Walks an open dataset through the engine's netCDF API as a reader does:
//! every group, dimension, variable and attribute is inquired, and some
//! data of every variable read. Errors are fine (a hostile store); a panic
//! is not. Returns what it saw, so a dataset written back can be compared.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::MemOut;
use nczarr_rs::engine::model::Dataset;

/// What a reader sees of a dataset's structure: per group, its path,
/// dimensions, variables and attribute names.
#[derive(Debug, PartialEq, Eq)]
pub struct Outline {
    pub groups: Vec<GroupOutline>,
}

#[derive(Debug, PartialEq, Eq)]
pub struct GroupOutline {
    pub path: String,
    /// name, length, unlimited
    pub dims: Vec<(String, u64, bool)>,
    /// name, type, shape
    pub vars: Vec<(String, i32, Vec<u64>)>,
    pub atts: Vec<String>,
}

/// A hyperslab: start, count, stride.
type Request = (Vec<u64>, Vec<u64>, Option<Vec<i64>>);

/// At most this many elements are read of one variable.
const MAX_READ: u64 = 1 << 16;

pub fn walk(ds: &Dataset) -> Outline {
    let mut groups = Vec::new();
    for gid in 0..ds.groups().len() {
        let g = &ds.groups()[gid];
        let path = ds.group_path(gid);
        let dims = g
            .dims
            .iter()
            .filter_map(|&d| ds.dim(d as i32).ok().map(|d| (d.name.clone(), d.len, d.unlimited)))
            .collect();
        let mut atts = Vec::new();
        if let Ok(list) = ds.atts(gid, NC_GLOBAL) {
            for a in list {
                let _ = ds.get_att(gid, NC_GLOBAL, &a.name);
                atts.push(a.name.clone());
            }
        }
        let mut vars = Vec::new();
        for (varid, v) in g.vars.iter().enumerate() {
            let varid = varid as i32;
            let shape = ds.var_shape(v);
            vars.push((v.name.clone(), v.nctype, shape.clone()));
            let _ = ds.inq_var_chunking(gid, varid);
            let _ = ds.inq_var_fill(gid, varid);
            let _ = ds.inq_var_endian(gid, varid);
            let _ = v.filters();
            if let Ok(list) = ds.atts(gid, varid) {
                for a in list {
                    let _ = ds.get_att(gid, varid, &a.name);
                }
            }
            read_some(ds, gid, varid, &shape);
        }
        groups.push(GroupOutline { path, dims, vars, atts });
    }
    Outline { groups }
}

/// Reads the whole variable when it is small, else its first and last
/// elements and a strided slab: every path of the chunk reader (fill for
/// missing chunks, decoding, partial reads, conversion) without reading
/// gigabytes of fill.
fn read_some(ds: &Dataset, gid: usize, varid: i32, shape: &[u64]) {
    let Ok(v) = ds.var(gid, varid) else { return };
    let total = shape.iter().try_fold(1u64, |a, &n| a.checked_mul(n));
    let mut slabs: Vec<Request> = Vec::new();
    match total {
        Some(n) if n <= MAX_READ => slabs.push((vec![0; shape.len()], shape.to_vec(), None)),
        _ if shape.contains(&0) => {}
        _ => {
            slabs.push((vec![0; shape.len()], vec![1; shape.len()], None));
            slabs.push((shape.iter().map(|n| n - 1).collect(), vec![1; shape.len()], None));
            let stride: Vec<i64> = shape.iter().map(|&n| (n / 3).clamp(1, i32::MAX as u64) as i64).collect();
            slabs.push((vec![0; shape.len()], shape.iter().map(|&n| n.min(3)).collect(), Some(stride)));
        }
    }
    // a scalar reads its one element through the same path
    let memtypes: &[i32] = if v.nctype == NC_STRING {
        &[NC_STRING]
    } else if v.nctype == NC_CHAR {
        &[NC_CHAR]
    } else {
        &[v.nctype, NC_DOUBLE]
    };
    for (start, count, stride) in slabs {
        let Ok(slab) = ds.slab(gid, varid, Some(&start), Some(&count), stride.as_deref(), None, false) else {
            continue;
        };
        let n = slab.mem_elems();
        for &memtype in memtypes {
            if memtype == NC_STRING {
                let mut out = vec![String::new(); n];
                let _ = ds.get_slab(gid, varid, &slab, MemOut::Strings(&mut out));
            } else {
                let size = nczarr_rs::engine::types::type_size(memtype).unwrap_or(1);
                let mut buf = vec![0u8; n * size];
                let _ = ds.get_slab(gid, varid, &slab, MemOut::Bytes { memtype, buf: &mut buf });
            }
        }
    }
}
