//! Target `aggregate`: aggregation metadata (docs/AGGREGATION.md) through
//! the engine. Small fragment datasets are made in memory, then an
//! aggregation dataset whose aggregated variable is, by the first byte:
//! written by the write API (`def_var_aggregated`, CF-1.13 or NCA 0.1) from
//! fuzzed fragment sizes, URIs and identifiers; a CF-1.13 form with fuzzed
//! `aggregated_dimensions`/`aggregated_data` text and fragment array
//! variables of fuzzed shapes and values; or an NCA 0.1 form with fuzzed
//! `nca_dimensions` and `nca_array` text (structured JSON with fuzzed
//! numbers, or raw bytes). The dataset is then opened read-only, which
//! interprets the aggregation, and walked (every variable read). Findings:
//! a panic, an abort or a huge allocation; an error is a correct answer.

use super::input::Input;
use super::walk::walk;
use nczarr_rs::engine::aggregate::write::{Form, Fragments};
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::MemIn;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::Driver;

/// Fuzzed sizes of at most this.
const SIDE: usize = 5;

pub fn run(data: &[u8]) {
    super::init();
    let mut inp = Input::new(data);
    let name = super::unique("fuzz-aggregate");
    let mode = inp.below(3);
    // fragments: variable "v" of fuzzed rank and sizes, values 0, 1, ...
    let nfrag = 1 + inp.below(3);
    let mut frags = Vec::new();
    for i in 0..nfrag {
        let url = format!("mem://{name}-f{i}");
        let rank = 1 + inp.below(3);
        let shape: Vec<u64> = (0..rank).map(|_| 1 + inp.below(SIDE) as u64).collect();
        let t = inp.pick(&[NC_INT, NC_DOUBLE, NC_FLOAT, NC_SHORT]);
        if make_fragment(&url, t, &shape).is_ok() {
            frags.push(url);
        }
    }
    // the aggregation dataset
    let agg = format!("mem://{name}-agg");
    let made = (|| -> Option<()> {
        let mut ds = file::create(&agg, NC_CLOBBER).ok()?;
        let rank = 1 + inp.below(3);
        let dims: Vec<i32> = (0..rank)
            .map(|k| ds.def_dim(0, &format!("d{k}"), 1 + inp.below(2 * SIDE) as u64).map(|d| d as i32))
            .collect::<Result<_, _>>()
            .ok()?;
        match mode {
            0 => write_api(&mut ds, &mut inp, &dims, &frags),
            1 => cf_form(&mut ds, &mut inp, &dims, &frags),
            _ => nca_form(&mut ds, &mut inp, &dims, &frags),
        }
        ds.close().ok()
    })();
    if made.is_some() {
        if let Ok(ds) = file::open(&agg, NC_NOWRITE) {
            walk(&ds);
        }
    }
    for url in frags.iter().chain(std::iter::once(&agg)) {
        let loc = url.strip_prefix("mem://").unwrap_or(url);
        let _ = Driver::Memory.open(loc, true).map(|s| s.destroy());
    }
}

fn make_fragment(url: &str, t: i32, shape: &[u64]) -> Result<(), nczarr_rs::engine::NcError> {
    let mut ds = file::create(url, NC_CLOBBER)?;
    let dims: Vec<i32> = (0..shape.len())
        .map(|k| ds.def_dim(0, &format!("d{k}"), shape[k]).map(|d| d as i32))
        .collect::<Result<_, _>>()?;
    let v = ds.def_var(0, "v", t, &dims)? as i32;
    ds.put_att(0, v, "units", Values::Char(b"K".to_vec()))?;
    ds.enddef()?;
    let n: u64 = shape.iter().product();
    let vals = Values::Double((0..n).map(|i| i as f64).collect()).to_ne_bytes();
    let slab = ds.slab(0, v, None, None, None, None, true)?;
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_DOUBLE, buf: &vals })?;
    ds.close()
}

/// A URI: a fragment, or one that names nothing or something hostile.
fn uri(inp: &mut Input, frags: &[String]) -> String {
    let odd = ["", "mem://nowhere", "nowhere.nc", "../../outside", "file:///dev/zero", "file:///", "%00", "#mode=zarr"];
    if !frags.is_empty() && inp.bool() {
        frags[inp.below(frags.len())].clone()
    } else {
        odd[inp.below(odd.len())].to_string()
    }
}

fn ident(inp: &mut Input) -> String {
    ["v", "v", "w", "", "/v", "v/"][inp.below(6)].to_string()
}

/// A size: mostly small, sometimes hostile.
fn size(inp: &mut Input) -> u64 {
    match inp.below(8) {
        0 => 0,
        1 => inp.u64(),
        2 => u32::MAX as u64 + inp.below(3) as u64,
        _ => 1 + inp.below(2 * SIDE) as u64,
    }
}

fn text(s: &str) -> Values {
    Values::Char(s.as_bytes().to_vec())
}

fn write_api(ds: &mut Dataset, inp: &mut Input, dims: &[i32], frags: &[String]) {
    let sizes: Vec<Vec<u64>> = dims.iter().map(|_| (0..1 + inp.below(3)).map(|_| size(inp)).collect()).collect();
    let count: usize = sizes.iter().map(Vec::len).product();
    let nuris = if inp.below(4) == 0 { inp.below(count + 2) } else { count };
    let uris = (0..nuris).map(|_| uri(inp, frags)).collect();
    let nids = if inp.bool() { 1 } else { count };
    let identifiers = (0..nids).map(|_| ident(inp)).collect();
    let form = if inp.bool() { Form::Cf113 } else { Form::Nca01 };
    let t = inp.pick(&[NC_DOUBLE, NC_FLOAT, NC_INT, NC_CHAR, NC_STRING, NC_UINT64]);
    let _ = ds.def_var_aggregated(0, "a", t, dims, &Fragments { sizes, uris, identifiers }, form);
}

/// Space-separated names: the dimensions', in order or not, or others.
fn dim_list(inp: &mut Input, dims: &[i32]) -> String {
    let n = inp.below(dims.len() + 2);
    (0..n)
        .map(|_| match inp.below(4) {
            0 => "nodim".to_string(),
            _ => format!("d{}", inp.below(dims.len())),
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn cf_form(ds: &mut Dataset, inp: &mut Input, dims: &[i32], frags: &[String]) {
    let mut vars = Vec::new();
    // the map (rank 0-2), uris and identifiers, of fuzzed shapes
    let mut fdims = Vec::new();
    for k in 0..3 {
        if let Ok(d) = ds.def_dim(0, &format!("f{k}"), inp.below(SIDE) as u64) {
            fdims.push(d as i32);
        }
    }
    let shape_of = |inp: &mut Input| -> Vec<i32> {
        let r = inp.below(fdims.len() + 1);
        (0..r).map(|_| fdims[inp.below(fdims.len())]).collect()
    };
    for (vname, t) in
        [("map", inp.pick(&[NC_INT, NC_INT64, NC_DOUBLE, NC_STRING])), ("uris", NC_STRING), ("ids", NC_STRING)]
    {
        let shape = shape_of(inp);
        if let Ok(v) = ds.def_var(0, vname, t, &shape) {
            vars.push((v as i32, t));
        }
    }
    let Ok(a) = ds.def_var(0, "a", inp.pick(&[NC_DOUBLE, NC_FLOAT, NC_INT, NC_STRING]), &[]) else { return };
    let a = a as i32;
    let _ = ds.put_att(0, a, "aggregated_dimensions", text(&dim_list(inp, dims)));
    let spec = match inp.below(4) {
        0 => String::from_utf8_lossy(inp.bytes(40)).into_owned(),
        1 => "map: map unique_values: uris".to_string(),
        2 => "location: map file: uris address: ids".to_string(),
        _ => "map: map uris: uris identifiers: ids".to_string(),
    };
    let _ = ds.put_att(0, a, "aggregated_data", text(&spec));
    if ds.enddef().is_err() {
        return;
    }
    for (v, t) in vars {
        let Ok(slab) = ds.slab(0, v, None, None, None, None, true) else { continue };
        let n = slab.mem_elems();
        let _ = if t == NC_STRING {
            let s: Vec<String> = (0..n).map(|_| uri(inp, frags)).collect();
            ds.put_slab(0, v, &slab, MemIn::Strings(&s))
        } else {
            let vals = Values::Int64((0..n).map(|_| size(inp) as i64).collect()).to_ne_bytes();
            ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_INT64, buf: &vals })
        };
    }
}

fn nca_form(ds: &mut Dataset, inp: &mut Input, dims: &[i32], frags: &[String]) {
    let Ok(a) = ds.def_var(0, "a", inp.pick(&[NC_DOUBLE, NC_FLOAT, NC_INT]), &[]) else { return };
    let a = a as i32;
    let _ = ds.put_att(0, a, "nca_dimensions", text(&dim_list(inp, dims)));
    let array = if inp.below(4) == 0 {
        String::from_utf8_lossy(inp.rest()).into_owned()
    } else {
        let parts: Vec<serde_json::Value> = (0..inp.below(4))
            .map(|_| {
                let loc: Vec<[u64; 2]> = dims.iter().map(|_| [size(inp), size(inp)]).collect();
                let shape: Vec<u64> = (0..inp.below(4)).map(|_| size(inp)).collect();
                let index: Vec<u64> = (0..inp.below(3)).map(|_| size(inp)).collect();
                let mut p = serde_json::json!({
                    "index": index,
                    "location": loc,
                    "data": {"file": uri(inp, frags), "ncvar": ident(inp), "shape": shape},
                });
                if inp.bool() {
                    p["part"] = serde_json::Value::String(format!("[(0, {}, 1)]", size(inp)));
                }
                if inp.bool() {
                    p["units"] = serde_json::Value::String(["K @ 273.15", "degC", "m", "bogus"][inp.below(4)].into());
                }
                p
            })
            .collect();
        let pshape: Vec<u64> = (0..inp.below(3)).map(|_| size(inp)).collect();
        serde_json::json!({"pdimensions": ["d0"], "pshape": pshape, "Partitions": parts}).to_string()
    };
    let _ = ds.put_att(0, a, "nca_array", text(&array));
}
