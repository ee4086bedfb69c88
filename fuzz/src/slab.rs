//! Target `slab`: netCDF hyperslab arguments through the engine. A dataset
//! in memory gets one `int` variable of fuzzed rank (0 to 3: a scalar, or
//! dimensions each fixed, zero-length or unlimited) and chunk shape; then a
//! few puts and gets with fuzzed start, count, stride and memory map (each
//! also NULL), mostly small, sometimes hostile (near u64::MAX, 2^63, the
//! largest stride, maps past the address space).
//!
//! Findings: a panic; an error that is not one of the slab codes
//! (`NC_EINVAL`, `NC_EINVALCOORDS`, `NC_EEDGE`, `NC_ESTRIDE`, `NC_ENOMEM`);
//! a refused put that changed something (a dimension's length, an object
//! of the store); a put that succeeded but does not read back, or did not
//! grow its unlimited dimensions to the slab's end; a get that does not
//! read what the puts wrote (a model of the variable: the values written,
//! the fill value elsewhere), before and after the dataset is closed and
//! opened again.

use super::input::Input;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut, Slab};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::NcError;
use nczarr_rs::map::{Driver, StoreKey};
use std::collections::BTreeMap;

/// Fixed dimensions are at most this long, chunks at most this wide.
const SIDE: usize = 5;
/// A slab of more elements or positions than this is not carried out (it
/// is valid: a write may grow an unlimited dimension by that much).
const MAX_ELEMS: u64 = 4096;

/// The codes a slab may be refused with.
const SLAB_CODES: &[i32] = &[NC_EINVAL, NC_EINVALCOORDS, NC_EEDGE, NC_ESTRIDE, NC_ENOMEM];

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    let name = super::unique("fuzz-slab");
    let url = format!("mem://{name}");
    let Some((mut ds, dimids)) = make(&url, &mut inp) else {
        destroy(&name);
        return;
    };
    // the values written, by position
    let mut model: BTreeMap<Vec<u64>, i32> = BTreeMap::new();
    let mut tag = 0i32;
    for _ in 0..1 + inp.below(6) {
        let write = inp.bool();
        let args = Args::new(&mut inp, dimids.len());
        let slab = match ds.slab(0, 0, args.start(), args.count(), args.stride(), args.imap(), write) {
            Ok(s) => s,
            Err(e) => {
                check_code(&e, &args);
                continue;
            }
        };
        // elements of memory (`slab` bounded them by the address space),
        // and positions (more than elements when the map aliases)
        let elems = slab.mem_elems() as u64;
        let count = slab.count.iter().try_fold(1u64, |a, &c| a.checked_mul(c));
        if elems > MAX_ELEMS || count.is_none_or(|n| n > MAX_ELEMS) {
            continue;
        }
        let positions = positions(&slab, dimids.is_empty());
        if write {
            tag += 1;
            put(&mut ds, &name, &slab, elems as usize, tag, &args, &positions, &mut model);
        } else {
            get(&ds, &slab, elems as usize, &positions, &model, &args);
        }
    }
    // what was written is there after a close and an open
    if ds.close().is_ok() {
        if let Ok(ds) = file::open(&url, NC_NOWRITE) {
            for (pos, &want) in model.iter().take(64) {
                let one = vec![1u64; pos.len()];
                let slab = ds.slab(0, 0, Some(pos), Some(&one), None, None, false).expect("a written position");
                let mut buf = [0u8; 4];
                ds.get_slab(0, 0, &slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }).expect("a read");
                assert_eq!(i32::from_ne_bytes(buf), want, "position {pos:?} after reopening");
            }
        }
    }
    destroy(&name);
}

fn destroy(name: &str) {
    let _ = Driver::Memory.open(name, true).map(|s| s.destroy());
}

/// The dataset, and the variable's dimensions (none: a scalar).
fn make(url: &str, inp: &mut Input) -> Option<(Dataset, Vec<usize>)> {
    let mut ds = file::create(url, NC_CLOBBER).ok()?;
    let rank = inp.below(4);
    let mut dims = Vec::new();
    for k in 0..rank {
        let len = match inp.below(4) {
            0 => NC_UNLIMITED as u64,
            1 => 0,
            _ => 1 + inp.below(SIDE) as u64,
        };
        dims.push(ds.def_dim(0, &format!("d{k}"), len).ok()?);
    }
    let ids: Vec<i32> = dims.iter().map(|&d| d as i32).collect();
    ds.def_var(0, "v", NC_INT, &ids).ok()?;
    if rank > 0 && inp.bool() {
        let chunks: Vec<u64> = (0..rank).map(|_| 1 + inp.below(SIDE) as u64).collect();
        // (refused, e.g. wider than a fixed dimension: the default chunks)
        let _ = ds.def_var_chunking(0, 0, NC_CHUNKED, Some(&chunks));
    }
    ds.enddef().ok()?;
    Some((ds, dims))
}

/// The caller's arrays of one call (`None`: a NULL pointer).
#[derive(Debug)]
struct Args {
    start: Option<Vec<u64>>,
    count: Option<Vec<u64>>,
    stride: Option<Vec<i64>>,
    imap: Option<Vec<i64>>,
}

impl Args {
    fn new(inp: &mut Input, rank: usize) -> Args {
        // a wrong number of entries, sometimes
        let n = if inp.below(16) == 0 { inp.below(5) } else { rank };
        let some = |inp: &mut Input| inp.below(4) != 0;
        let start = some(inp).then(|| (0..n).map(|_| index(inp)).collect());
        let count = some(inp).then(|| (0..n).map(|_| index(inp)).collect());
        let stride = some(inp).then(|| (0..n).map(|_| step(inp)).collect());
        let imap = (inp.below(3) == 0).then(|| (0..n).map(|_| step(inp)).collect());
        Args { start, count, stride, imap }
    }

    fn start(&self) -> Option<&[u64]> {
        self.start.as_deref()
    }

    fn count(&self) -> Option<&[u64]> {
        self.count.as_deref()
    }

    fn stride(&self) -> Option<&[i64]> {
        self.stride.as_deref()
    }

    fn imap(&self) -> Option<&[i64]> {
        self.imap.as_deref()
    }
}

/// A start or count: mostly small, sometimes at the far end.
fn index(inp: &mut Input) -> u64 {
    let near = inp.below(4) as u64;
    match inp.below(12) {
        0 => u64::MAX - near,
        1 => (1u64 << 63) - near,
        2 => (1u64 << 63) + near,
        3 => (1u64 << 33) + near,
        4 => inp.u64(),
        _ => inp.below(SIDE + 3) as u64,
    }
}

/// A stride or memory map entry: mostly small, sometimes hostile.
fn step(inp: &mut Input) -> i64 {
    match inp.below(12) {
        0 => 0,
        1 => -1 - inp.below(2) as i64,
        2 => i32::MAX as i64 - inp.below(2) as i64,
        3 => i32::MAX as i64 + 1,
        4 => i64::MAX - inp.below(2) as i64,
        5 => 1 << (32 + inp.below(31)),
        6 => inp.u64() as i64,
        _ => 1 + inp.below(SIDE) as i64,
    }
}

/// A refused slab's code is one of the slab codes.
fn check_code(e: &NcError, args: &Args) {
    assert!(SLAB_CODES.contains(&e.code()), "{args:?}: code {} ({e})", e.code());
}

/// The slab's positions (their indices in the variable) in its C order,
/// each with its element of the caller's memory.
fn positions(slab: &Slab, scalar: bool) -> Vec<(Vec<u64>, usize)> {
    let nd = slab.count.len();
    let mut out = Vec::new();
    let mut k = vec![0u64; nd];
    for mem in slab.offsets() {
        let pos = if scalar { vec![] } else { (0..nd).map(|d| slab.start[d] + k[d] * slab.stride[d]).collect() };
        out.push((pos, mem));
        for d in (0..nd).rev() {
            k[d] += 1;
            if k[d] < slab.count[d] {
                break;
            }
            k[d] = 0;
        }
    }
    out
}

/// The variable's dimension lengths and the store's objects.
fn snapshot(ds: &mut Dataset, name: &str) -> (Vec<u64>, Vec<(StoreKey, Vec<u8>)>) {
    ds.sync().expect("a sync of a memory store");
    let lens = ds.dims().iter().map(|d| d.len).collect();
    let store = Driver::Memory.open(name, false).expect("the store");
    let mut objects: Vec<(StoreKey, Vec<u8>)> = store
        .list_prefix(&StoreKey::root())
        .expect("a listing")
        .into_iter()
        .map(|k| {
            let b = store.get(&k).expect("a get").expect("a listed object");
            (k, b)
        })
        .collect();
    objects.sort_by_key(|o| o.0.to_string());
    (lens, objects)
}

#[allow(clippy::too_many_arguments)]
fn put(
    ds: &mut Dataset,
    name: &str,
    slab: &Slab,
    elems: usize,
    tag: i32,
    args: &Args,
    positions: &[(Vec<u64>, usize)],
    model: &mut BTreeMap<Vec<u64>, i32>,
) {
    let values: Vec<i32> = (0..elems as i32).map(|i| tag * 10_000 + i).collect();
    let bytes: Vec<u8> = values.iter().flat_map(|v| v.to_ne_bytes()).collect();
    let before = snapshot(ds, name);
    match ds.put_slab(0, 0, slab, MemIn::Bytes { memtype: NC_INT, buf: &bytes }) {
        Err(e) => {
            check_code(&e, args);
            assert!(snapshot(ds, name) == before, "{args:?}: a refused put ({e}) changed the dataset");
        }
        Ok(()) => {
            for (pos, mem) in positions {
                model.insert(pos.clone(), values[*mem]);
            }
            // unlimited dimensions reach the end of a slab that writes
            // something (an empty one changes nothing)
            let v = &ds.groups()[0].vars[0];
            for (d, &dimid) in v.dimids.iter().enumerate() {
                let dim = &ds.dims()[dimid];
                let end = slab.end(d).expect("an accepted slab ends within u64");
                if !slab.is_empty() {
                    assert!(dim.len >= end, "{args:?}: dimension {d} is {}, the slab ends at {end}", dim.len);
                }
            }
            get(ds, slab, elems, positions, model, args);
        }
    }
}

/// Reads the slab and checks it against the model.
fn get(
    ds: &Dataset,
    slab: &Slab,
    elems: usize,
    positions: &[(Vec<u64>, usize)],
    model: &BTreeMap<Vec<u64>, i32>,
    args: &Args,
) {
    let mut buf = vec![0u8; elems * 4];
    match ds.get_slab(0, 0, slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }) {
        Err(e) => check_code(&e, args),
        Ok(()) => {
            let got = |mem: usize| i32::from_ne_bytes(buf[mem * 4..mem * 4 + 4].try_into().expect("4 bytes"));
            // with an aliasing map, the last position to reach an element wins
            let mut want: BTreeMap<usize, i32> = BTreeMap::new();
            for (pos, mem) in positions {
                want.insert(*mem, model.get(pos).copied().unwrap_or(NC_FILL_INT));
            }
            for (mem, w) in want {
                assert_eq!(got(mem), w, "{args:?}: element {mem} of the caller's memory");
            }
        }
    }
}
