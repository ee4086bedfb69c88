//! The data path through the engine: every type and conversion, layouts
//! written by others (Fortran order, "/" separators, UCS-4 strings), memory
//! maps, the chunk cache bound, read-only safety, and threads.

use nczarr_rs::engine::cache::CacheConfig;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut, Slab};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::Dataset;
use nczarr_rs::engine::slab::{Grid, Runs};
use nczarr_rs::engine::types::{Num, Values};
use nczarr_rs::map::{Driver, StoreKey};

fn put(ds: &mut Dataset, gid: usize, v: i32, start: &[u64], count: &[u64], vals: &Values) -> Result<(), i32> {
    let slab = ds.slab(gid, v, Some(start), Some(count), None, None, true).map_err(|e| e.code())?;
    let bytes = vals.to_ne_bytes();
    ds.put_slab(gid, v, &slab, MemIn::Bytes { memtype: vals.nc_type(), buf: &bytes }).map_err(|e| e.code())
}

fn get(ds: &Dataset, gid: usize, v: i32, start: &[u64], count: &[u64], memtype: NcType) -> (Values, i32) {
    let slab = ds.slab(gid, v, Some(start), Some(count), None, None, false).unwrap();
    let size = nczarr_rs::engine::convert::elem_size(memtype);
    let mut buf = vec![0u8; slab.mem_elems() * size];
    let rc = match ds.get_slab(gid, v, &slab, MemOut::Bytes { memtype, buf: &mut buf }) {
        Ok(()) => 0,
        Err(e) => e.code(),
    };
    (Values::from_ne_bytes(memtype, &buf).unwrap(), rc)
}

const NUMERIC: [NcType; 10] =
    [NC_BYTE, NC_SHORT, NC_INT, NC_FLOAT, NC_DOUBLE, NC_UBYTE, NC_USHORT, NC_UINT, NC_INT64, NC_UINT64];

#[test]
fn every_type_pair_converts_like_netcdf_c() {
    let mut ds = file::create("mem://data/pairs", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 4).unwrap() as i32;
    let vars: Vec<i32> = NUMERIC.iter().map(|&t| ds.def_var(0, &format!("v{t}"), t, &[x]).unwrap() as i32).collect();
    ds.enddef().unwrap();
    // Values every type holds: 0, 1, 100, 127.
    let small = [0.0, 1.0, 100.0, 127.0];
    for (&ft, &v) in NUMERIC.iter().zip(&vars) {
        for &mt in &NUMERIC {
            let (vals, _) = Values::from_nums(mt, &small.map(Num::F)).unwrap();
            put(&mut ds, 0, v, &[0], &[4], &vals).unwrap_or_else(|c| panic!("put {mt}->{ft}: {c}"));
            for &rt in &NUMERIC {
                let (back, rc) = get(&ds, 0, v, &[0], &[4], rt);
                assert_eq!(rc, 0, "get {ft}->{rt}");
                assert_eq!(back, Values::from_nums(rt, &small.map(Num::F)).unwrap().0, "{mt}->{ft}->{rt}");
            }
        }
    }
    // Out of range: written converted, reported.
    let v_byte = vars[0];
    assert_eq!(put(&mut ds, 0, v_byte, &[0], &[2], &Values::Int(vec![5, 1000])), Err(NC_ERANGE));
    assert_eq!(get(&ds, 0, v_byte, &[0], &[1], NC_INT).0, Values::Int(vec![5]));
    let v_uint = vars[7];
    assert_eq!(put(&mut ds, 0, v_uint, &[0], &[1], &Values::Double(vec![-1.0])), Err(NC_ERANGE));
    let v_double = vars[4];
    put(&mut ds, 0, v_double, &[0], &[1], &Values::Double(vec![1e300])).unwrap();
    assert_eq!(get(&ds, 0, v_double, &[0], &[1], NC_FLOAT).1, NC_ERANGE);
    put(&mut ds, 0, v_double, &[0], &[1], &Values::Double(vec![f64::NAN])).unwrap();
    assert_eq!(get(&ds, 0, v_double, &[0], &[1], NC_INT).1, NC_ERANGE);
    // char and numbers do not mix
    let c = ds.def_var(0, "c", NC_CHAR, &[x]).unwrap() as i32;
    assert_eq!(put(&mut ds, 0, c, &[0], &[1], &Values::Int(vec![1])), Err(NC_ECHAR));
    assert_eq!(put(&mut ds, 0, vars[2], &[0], &[1], &Values::Char(b"a".to_vec())), Err(NC_ECHAR));
}

fn store_with(name: &str, objects: &[(&str, &[u8])]) -> String {
    let s = Driver::Memory.create(&format!("mem://data/{name}"), true).unwrap();
    for (k, v) in objects {
        s.set(&StoreKey::parse(k).unwrap(), v).unwrap();
    }
    format!("mem://data/{name}")
}

#[test]
fn fortran_order_and_slash_separator() {
    // 2x3 array, one chunk, Fortran order: memory [[0,1,2],[3,4,5]] is stored
    // column by column: 0,3,1,4,2,5.
    let f_chunk: Vec<u8> = [0i16, 3, 1, 4, 2, 5].iter().flat_map(|x| x.to_le_bytes()).collect();
    // 2x2 chunks of a 4x2 array under "/" keys.
    let c0: Vec<u8> = [1i32, 2, 3, 4].iter().flat_map(|x| x.to_le_bytes()).collect();
    let c1: Vec<u8> = [5i32, 6, 7, 8].iter().flat_map(|x| x.to_le_bytes()).collect();
    let url = store_with(
        "layouts",
        &[
            ("/.zgroup", br#"{"zarr_format": 2}"#),
            ("/f/.zarray", br#"{"zarr_format": 2, "shape": [2, 3], "dtype": "<i2", "chunks": [2, 3], "fill_value": 0, "order": "F", "compressor": null, "filters": null}"#),
            ("/f/0.0", &f_chunk),
            ("/n/.zarray", br#"{"zarr_format": 2, "shape": [4, 2], "dtype": "<i4", "chunks": [2, 2], "fill_value": 0, "order": "C", "compressor": null, "filters": null, "dimension_separator": "/"}"#),
            ("/n/0/0", &c0),
            ("/n/1/0", &c1),
        ],
    );
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    let f = ds.find_var(0, "f").unwrap() as i32;
    assert_eq!(get(&ds, 0, f, &[0, 0], &[2, 3], NC_SHORT).0, Values::Short(vec![0, 1, 2, 3, 4, 5]));
    assert_eq!(get(&ds, 0, f, &[1, 1], &[1, 2], NC_INT).0, Values::Int(vec![4, 5]));
    let n = ds.find_var(0, "n").unwrap() as i32;
    assert_eq!(get(&ds, 0, n, &[0, 0], &[4, 2], NC_INT).0, Values::Int(vec![1, 2, 3, 4, 5, 6, 7, 8]));
}

#[test]
fn foreign_strings_and_chars() {
    // numpy "<U3" (UCS-4) and netCDF-C 4.9.0's "<U1" chars (one byte each)
    let mut ucs4 = Vec::new();
    for s in ["ab", "héé", ""] {
        let mut cps: Vec<u32> = s.chars().map(|c| c as u32).collect();
        cps.resize(3, 0);
        ucs4.extend(cps.iter().flat_map(|c| c.to_le_bytes()));
    }
    let url = store_with(
        "strings",
        &[
            ("/.zgroup", br#"{"zarr_format": 2}"#),
            ("/u/.zarray", br#"{"zarr_format": 2, "shape": [3], "dtype": "<U3", "chunks": [3], "fill_value": "", "order": "C", "compressor": null, "filters": null}"#),
            ("/u/0", &ucs4),
            ("/c/.zarray", br#"{"zarr_format": 2, "shape": [3], "dtype": "<U1", "chunks": [3], "fill_value": "", "order": "C", "compressor": null, "filters": null}"#),
            ("/c/0", b"xyz"),
        ],
    );
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    let u = ds.find_var(0, "u").unwrap() as i32;
    let slab = ds.slab(0, u, None, None, None, None, false).unwrap();
    let mut out = vec![String::new(); 3];
    ds.get_slab(0, u, &slab, MemOut::Strings(&mut out)).unwrap();
    assert_eq!(out, ["ab", "héé", ""]);
    let c = ds.find_var(0, "c").unwrap() as i32;
    assert_eq!(get(&ds, 0, c, &[0], &[3], NC_CHAR).0, Values::Char(b"xyz".to_vec()));
}

/// A new in-memory dataset `name` with a variable `v` of type `t`, `shape`
/// (dimensions d0, d1, ...) and `chunks`.
fn dataset_with_var(name: &str, t: NcType, shape: &[u64], chunks: &[u64]) -> (Dataset, i32) {
    let mut ds = file::create(&format!("mem://data/{name}"), NC_CLOBBER).unwrap();
    let dims: Vec<i32> =
        shape.iter().enumerate().map(|(d, &n)| ds.def_dim(0, &format!("d{d}"), n).unwrap() as i32).collect();
    let v = ds.def_var(0, "v", t, &dims).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(chunks)).unwrap();
    (ds, v)
}

#[test]
fn memory_maps_and_strides() {
    let (mut ds, v) = dataset_with_var("maps", NC_INT, &[3, 4], &[2, 3]);
    let all = Values::Int((0..12).collect());
    put(&mut ds, 0, v, &[0, 0], &[3, 4], &all).unwrap();
    // transpose through the memory map
    let slab = ds.slab(0, v, Some(&[0, 0]), Some(&[3, 4]), None, Some(&[1, 3]), false).unwrap();
    let mut buf = vec![0u8; 48];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }).unwrap();
    let t = Values::from_ne_bytes(NC_INT, &buf).unwrap();
    assert_eq!(t, Values::Int(vec![0, 4, 8, 1, 5, 9, 2, 6, 10, 3, 7, 11]));
    // strided: rows 0 and 2, columns 1 and 3
    let slab = ds.slab(0, v, Some(&[0, 1]), Some(&[2, 2]), Some(&[2, 2]), None, false).unwrap();
    let mut buf = vec![0u8; 16];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }).unwrap();
    assert_eq!(Values::from_ne_bytes(NC_INT, &buf).unwrap(), Values::Int(vec![1, 3, 9, 11]));
    // bad slabs
    assert_eq!(ds.slab(0, v, Some(&[3, 0]), Some(&[1, 1]), None, None, false).unwrap_err().code(), NC_EINVALCOORDS);
    assert_eq!(ds.slab(0, v, Some(&[2, 0]), Some(&[2, 1]), None, None, false).unwrap_err().code(), NC_EEDGE);
    assert_eq!(ds.slab(0, v, Some(&[0, 0]), Some(&[1, 1]), Some(&[0, 1]), None, false).unwrap_err().code(), NC_ESTRIDE);
    assert_eq!(ds.slab(0, v, Some(&[0, 0]), Some(&[2, 3]), Some(&[2, 2]), None, false).unwrap_err().code(), NC_EEDGE);
    assert_eq!(ds.slab(0, v, Some(&[0]), Some(&[1, 1]), None, None, false).unwrap_err().code(), NC_EINVAL);
    assert_eq!(ds.slab(0, v, None, None, None, Some(&[1]), false).unwrap_err().code(), NC_EINVAL);
}

#[test]
fn whole_chunks_read_with_fill_past_the_edges_and_for_holes() {
    // netCDF-C's NCZ_read_chunk (its ncdumpchunks tool): 5x4 ints in 3x3
    // chunks, rows 0-2 written; the fill value pads the edges and stands
    // for the chunks never written
    let (mut ds, v) = dataset_with_var("chunkread", NC_INT, &[5, 4], &[3, 3]);
    ds.put_att(0, v, "_FillValue", Values::Int(vec![-1])).unwrap();
    put(&mut ds, 0, v, &[0, 0], &[3, 4], &Values::Int((0..12).collect())).unwrap();
    let chunk = |ds: &Dataset, i: &[u64]| Values::from_ne_bytes(NC_INT, &ds.read_chunk(0, v, i).unwrap()).unwrap();
    assert_eq!(chunk(&ds, &[0, 0]), Values::Int(vec![0, 1, 2, 4, 5, 6, 8, 9, 10]));
    assert_eq!(chunk(&ds, &[0, 1]), Values::Int(vec![3, -1, -1, 7, -1, -1, 11, -1, -1]));
    assert_eq!(chunk(&ds, &[1, 0]), Values::Int(vec![-1; 9]));
    assert_eq!(ds.read_chunk(0, v, &[2, 0]).unwrap_err().code(), NC_EINVALCOORDS);
    assert_eq!(ds.read_chunk(0, v, &[0]).unwrap_err().code(), NC_EINVAL);
    assert_eq!(ds.read_chunk(0, v, &[u64::MAX, 0]).unwrap_err().code(), NC_EINVALCOORDS);
}

#[test]
fn cache_stays_within_its_bound_and_loses_nothing() {
    let mut ds = file::create("mem://data/cache", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 1000).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_DOUBLE, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[10])).unwrap();
    ds.enddef().unwrap();
    let bound = 3 * 10 * 8; // three chunks
    ds.set_var_cache(0, v, CacheConfig { size: bound, nelems: 100, preemption: 0.75 }).unwrap();
    // single-element writes everywhere: every one is a partial chunk write
    for i in (0..1000u64).rev() {
        put(&mut ds, 0, v, &[i], &[1], &Values::Double(vec![i as f64 * 0.5])).unwrap();
        assert!(ds.groups()[0].vars[v as usize].cache.bytes() <= bound);
    }
    ds.close().unwrap();
    let ds = file::open("mem://data/cache", NC_NOWRITE).unwrap();
    let (back, _) = get(&ds, 0, v, &[0], &[1000], NC_DOUBLE);
    assert_eq!(back, Values::Double((0..1000).map(|i| i as f64 * 0.5).collect()));
}

#[test]
fn reading_never_writes_and_missing_chunks_stay_missing() {
    let mut ds = file::create("mem://data/ro", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 100).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_FLOAT, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[10])).unwrap();
    put(&mut ds, 0, v, &[55], &[1], &Values::Float(vec![1.0])).unwrap();
    ds.close().unwrap();
    for mode in [NC_NOWRITE, NC_WRITE] {
        let mut ds = file::open("mem://data/ro", mode).unwrap();
        let (vals, _) = get(&ds, 0, v, &[0], &[100], NC_FLOAT);
        let Values::Float(f) = vals else { unreachable!() };
        assert_eq!(f.iter().filter(|&&x| x == NC_FILL_FLOAT).count(), 99);
        ds.close().unwrap();
    }
    let s = Driver::Memory.open("mem://data/ro", false).unwrap();
    let chunks: Vec<String> = s.list_dir(&StoreKey::parse("/v").unwrap()).unwrap().unwrap();
    assert_eq!(chunks, [".zarray", ".zattrs", "5"], "no fill chunks were materialised");
}

#[test]
fn unlimited_dimension_grows() {
    let mut ds = file::create("mem://data/unlim", NC_CLOBBER).unwrap();
    let t = ds.def_dim(0, "t", NC_UNLIMITED as u64).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_INT, &[t]).unwrap() as i32;
    for i in 0..5u64 {
        put(&mut ds, 0, v, &[i * 2], &[1], &Values::Int(vec![i as i32])).unwrap();
    }
    assert_eq!(ds.dims()[t as usize].len, 9);
    ds.close().unwrap();
    let ds = file::open("mem://data/unlim", NC_NOWRITE).unwrap();
    assert!(ds.dims()[0].unlimited && ds.dims()[0].len == 9);
    let (vals, _) = get(&ds, 0, v, &[0], &[9], NC_INT);
    assert_eq!(vals, Values::Int(vec![0, NC_FILL_INT, 1, NC_FILL_INT, 2, NC_FILL_INT, 3, NC_FILL_INT, 4]));
    assert_eq!(ds.slab(0, v, Some(&[9]), Some(&[1]), None, None, false).unwrap_err().code(), NC_EINVALCOORDS);
}

#[test]
fn codecs_roundtrip_and_fail_cleanly() {
    let mut ds = file::create("mem://data/codecs", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 64).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_SHORT, &[x]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[16])).unwrap();
    ds.def_var_endian(0, v, NC_ENDIAN_BIG).unwrap();
    ds.def_var_deflate(0, v, true, true, 6).unwrap();
    let vals = Values::Short((0..64).map(|i| (i % 5) as i16).collect());
    put(&mut ds, 0, v, &[0], &[64], &vals).unwrap();
    put(&mut ds, 0, v, &[3], &[1], &Values::Short(vec![-7])).unwrap();
    ds.close().unwrap();
    let ds = file::open("mem://data/codecs", NC_NOWRITE).unwrap();
    let (back, _) = get(&ds, 0, v, &[0], &[64], NC_SHORT);
    let Values::Short(b) = back else { unreachable!() };
    assert_eq!(b[3], -7);
    assert_eq!(b[4], 4);
    assert_eq!(b[63], 3);
    // a small read of a compressed chunk decodes the whole chunk
    assert_eq!(get(&ds, 0, v, &[3], &[1], NC_INT).0, Values::Int(vec![-7]));

    // unknown codec: metadata reads, data access is NC_ENOFILTER
    let url = store_with(
        "unknown_codec",
        &[
            ("/.zgroup", br#"{"zarr_format": 2}"#),
            ("/b/.zarray", br#"{"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [4], "fill_value": 0, "order": "C", "compressor": {"id": "zfpy", "mode": 4}, "filters": null}"#),
            ("/b/0", b"not really zfp"),
            ("/x/.zarray", br#"{"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [4], "fill_value": 0, "order": "C", "compressor": {"id": "lzma", "preset": 5}, "filters": null}"#),
            ("/x/0", b"not really lzma"),
            ("/bl/.zarray", br#"{"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [4], "fill_value": 0, "order": "C", "compressor": {"id": "blosc", "cname": "lz4", "clevel": 5, "shuffle": 1}, "filters": null}"#),
            ("/bl/0", b"not really a blosc buffer"),
            ("/z/.zarray", br#"{"zarr_format": 2, "shape": [4], "dtype": "<i4", "chunks": [4], "fill_value": 0, "order": "C", "compressor": {"id": "zlib", "level": 1}, "filters": null}"#),
            ("/z/0", b"corrupt zlib data"),
        ],
    );
    let ds = file::open(&url, NC_NOWRITE).unwrap();
    // a truncated uncompressed chunk is corrupt data, whichever path reads it
    let s = Driver::Memory.open(&url, true).unwrap();
    s.set(&StoreKey::parse("/short/.zarray").unwrap(), br#"{"zarr_format": 2, "shape": [64], "dtype": "<i4", "chunks": [64], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#).unwrap();
    s.set(&StoreKey::parse("/short/0").unwrap(), &[0u8; 10]).unwrap();
    let ds2 = file::open(&url, NC_NOWRITE).unwrap();
    let short = ds2.find_var(0, "short").unwrap() as i32;
    assert_eq!(get(&ds2, 0, short, &[60], &[1], NC_INT).1, NC_ENCZARR);
    assert_eq!(get(&ds2, 0, short, &[0], &[64], NC_INT).1, NC_ENCZARR);
    let b = ds.find_var(0, "b").unwrap() as i32;
    assert_eq!(get(&ds, 0, b, &[0], &[4], NC_INT).1, NC_ENOFILTER);
    let z = ds.find_var(0, "z").unwrap() as i32;
    assert_eq!(get(&ds, 0, z, &[0], &[4], NC_INT).1, NC_EFILTER);
    let bl = ds.find_var(0, "bl").unwrap() as i32;
    assert_eq!(get(&ds, 0, bl, &[0], &[4], NC_INT).1, NC_EFILTER);
    let x = ds.find_var(0, "x").unwrap() as i32;
    assert_eq!(get(&ds, 0, x, &[0], &[4], NC_INT).1, NC_EFILTER);
}

/// A small deterministic generator (xorshift).
struct Rng(u64);
impl Rng {
    fn below(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }

    /// A shape of rank 1 to 3, each length 1 to `max`.
    fn shape(&mut self, max: u64) -> Vec<u64> {
        let nd = 1 + self.below(3);
        (0..nd).map(|_| 1 + self.below(max)).collect()
    }
}

/// A random slab of a variable: start, count, stride, and a memory map that
/// never aliases (None: dense), with the buffer length it needs.
struct RandomSlab {
    start: Vec<u64>,
    count: Vec<u64>,
    stride: Vec<i64>,
    imap: Option<Vec<i64>>,
    len: usize,
}

impl RandomSlab {
    fn new(rng: &mut Rng, shape: &[u64]) -> RandomSlab {
        let nd = shape.len();
        let start: Vec<u64> = shape.iter().map(|&s| rng.below(s)).collect();
        let stride: Vec<i64> = (0..nd).map(|_| [1, 1, 2, 3, 5][rng.below(5) as usize]).collect();
        let count: Vec<u64> =
            (0..nd).map(|d| 1 + rng.below((shape[d] - start[d] - 1) / stride[d] as u64 + 1)).collect();
        let mut imap = None;
        let mut len: u64 = count.iter().product();
        if rng.below(3) == 0 {
            // the dimensions in a random order, each step past the previous ones, with gaps
            let mut order: Vec<usize> = (0..nd).collect();
            for i in (1..nd).rev() {
                order.swap(i, rng.below(i as u64 + 1) as usize);
            }
            let mut m = vec![0i64; nd];
            let mut step = 1 + rng.below(2);
            for &d in &order {
                m[d] = step as i64;
                step = step * count[d] + rng.below(3);
            }
            len = (0..nd).map(|d| (count[d] - 1) * m[d] as u64).sum::<u64>() + 1;
            imap = Some(m);
        }
        RandomSlab { start, count, stride, imap, len: len as usize }
    }

    /// The memory map, dense or not.
    fn map(&self) -> Vec<i64> {
        self.imap.clone().unwrap_or_else(|| {
            let mut m = vec![1i64; self.count.len()];
            for d in (0..self.count.len().saturating_sub(1)).rev() {
                m[d] = m[d + 1] * self.count[d + 1] as i64;
            }
            m
        })
    }

    fn resolve(&self, ds: &Dataset, v: i32, for_write: bool) -> Slab {
        ds.slab(0, v, Some(&self.start), Some(&self.count), Some(&self.stride), self.imap.as_deref(), for_write)
            .unwrap()
    }

    /// Every position: (memory offset, linear index in the variable of `shape`).
    fn positions(&self, shape: &[u64]) -> Vec<(usize, usize)> {
        positions(shape, &self.start, &self.count, &self.stride, &self.map())
    }
}

/// Every position of a slab: (memory offset, linear index in the variable).
fn positions(shape: &[u64], start: &[u64], count: &[u64], stride: &[i64], imap: &[i64]) -> Vec<(usize, usize)> {
    let nd = shape.len();
    let mut pos = vec![0u64; nd];
    let mut out = Vec::new();
    for _ in 0..count.iter().product::<u64>() {
        let moff: u64 = (0..nd).map(|d| pos[d] * imap[d] as u64).sum();
        let lin = (0..nd).fold(0u64, |a, d| a * shape[d] + start[d] + pos[d] * stride[d] as u64);
        out.push((moff as usize, lin as usize));
        for d in (0..nd).rev() {
            pos[d] += 1;
            if pos[d] < count[d] {
                break;
            }
            pos[d] = 0;
        }
    }
    out
}

/// Random writes and reads (strides, memory maps, other memory types,
/// partial edge chunks, chunks never written, strings) agree with a model
/// of the variable, before and after the dataset is closed and reopened.
#[test]
fn random_slabs_agree_with_a_model() {
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    for case in 0..80 {
        let shape = rng.shape(9);
        let chunks: Vec<u64> = shape.iter().map(|&s| 1 + rng.below(s.min(5))).collect();
        let (mut ds, v) = dataset_with_var(&format!("random{case}"), NC_INT, &shape, &chunks);
        let dims: Vec<i32> = (0..shape.len() as i32).collect();
        ds.def_var_fill(0, v, false, Some(Values::Int(vec![-7]))).unwrap();
        let s = ds.def_var(0, "s", NC_STRING, &dims).unwrap() as i32;
        ds.def_var_chunking(0, s, NC_CHUNKED, Some(&chunks)).unwrap();
        let n: u64 = shape.iter().product();
        let mut model = vec![-7i32; n as usize];
        let mut smodel = vec![String::new(); n as usize];
        let check = |ds: &Dataset, model: &[i32], smodel: &[String], rng: &mut Rng, what: &str| {
            let r = RandomSlab::new(rng, &shape);
            let pos = r.positions(&shape);
            let memtype = [NC_INT, NC_DOUBLE, NC_FLOAT, NC_INT64][rng.below(4) as usize];
            let size = nczarr_rs::engine::convert::elem_size(memtype);
            let mut buf = vec![0xeeu8; r.len * size];
            ds.get_slab(0, v, &r.resolve(ds, v, false), MemOut::Bytes { memtype, buf: &mut buf }).unwrap();
            let got = Values::from_ne_bytes(memtype, &buf).unwrap().nums();
            let sentinel = Values::from_ne_bytes(memtype, &[0xee; 8][..size]).unwrap().nums()[0];
            let mut touched = vec![false; r.len];
            for &(m, l) in &pos {
                touched[m] = true;
                let g = match got[m] {
                    Num::I(i) => i as f64,
                    Num::F(f) => f,
                };
                let (start, count, stride, imap) = (&r.start, &r.count, &r.stride, &r.imap);
                assert_eq!(g, model[l] as f64, "{what}: case {case} {start:?} {count:?} {stride:?} {imap:?} at {l}");
            }
            for (m, t) in touched.iter().enumerate() {
                if !t {
                    assert_eq!(
                        format!("{:?}", got[m]),
                        format!("{sentinel:?}"),
                        "{what}: case {case}: a gap was written"
                    );
                }
            }
            let mut sbuf = vec!["gap".to_string(); r.len];
            ds.get_slab(0, s, &r.resolve(ds, s, false), MemOut::Strings(&mut sbuf)).unwrap();
            for &(m, l) in &pos {
                assert_eq!(sbuf[m], smodel[l], "{what}: case {case}: string at {l}");
            }
        };
        for _ in 0..6 {
            // a write through a random slab, from a random memory type
            let r = RandomSlab::new(&mut rng, &shape);
            let vals: Vec<i32> = (0..r.len).map(|_| rng.below(1000) as i32).collect();
            let memtype = [NC_INT, NC_DOUBLE, NC_SHORT, NC_UINT64][rng.below(4) as usize];
            let (mem, _) = Values::Int(vals.clone()).convert(memtype).unwrap();
            ds.put_slab(0, v, &r.resolve(&ds, v, true), MemIn::Bytes { memtype, buf: &mem.to_ne_bytes() }).unwrap();
            let strings: Vec<String> = vals.iter().map(|x| format!("s{x}")).collect();
            ds.put_slab(0, s, &r.resolve(&ds, s, true), MemIn::Strings(&strings)).unwrap();
            for (m, l) in r.positions(&shape) {
                model[l] = vals[m];
                smodel[l] = strings[m].clone();
            }
            check(&ds, &model, &smodel, &mut rng, "open");
        }
        ds.close().unwrap();
        let ds = file::open(&format!("mem://data/random{case}"), NC_NOWRITE).unwrap();
        for _ in 0..4 {
            check(&ds, &model, &smodel, &mut rng, "reopened");
        }
        let (all, _) = get(&ds, 0, v, &vec![0; shape.len()], &shape, NC_INT);
        assert_eq!(all, Values::Int(model.clone()), "case {case}: whole variable");
    }
}

/// A memory map that sends every position to one element is read in the
/// slab's order: the last position's value stays, as in netCDF-C.
#[test]
fn an_aliasing_map_keeps_the_last_value() {
    let (mut ds, v) = dataset_with_var("alias", NC_INT, &[9], &[2]);
    put(&mut ds, 0, v, &[0], &[9], &Values::Int((10..19).collect())).unwrap();
    let slab = ds.slab(0, v, Some(&[1]), Some(&[8]), None, Some(&[0]), false).unwrap();
    assert!(!slab.disjoint());
    let mut buf = vec![0u8; 4];
    ds.get_slab(0, v, &slab, MemOut::Bytes { memtype: NC_INT, buf: &mut buf }).unwrap();
    assert_eq!(i32::from_ne_bytes(buf[..4].try_into().unwrap()), 18);
}

/// BitGroom alternates on the position of a value in netCDF-C's write
/// call, whichever chunk it lands in: the slab's order for vara, the
/// column for a varm whose rows are contiguous, else always even.
#[test]
fn bitgroom_positions_across_chunks_and_maps() {
    let (mut ds, v) = dataset_with_var("groom", NC_FLOAT, &[2, 3], &[1, 2]);
    ds.def_var_quantize(0, v, NC_QUANTIZE_BITGROOM, 3).unwrap();
    let shaved = f32::from_bits(1.1f32.to_bits() & !0xfff);
    let set = f32::from_bits(1.1f32.to_bits() | 0xfff);
    let read = |ds: &Dataset| match get(ds, 0, v, &[0, 0], &[2, 3], NC_FLOAT).0 {
        Values::Float(f) => f,
        _ => unreachable!(),
    };
    // vara, from doubles: positions 0..6 in C order
    put(&mut ds, 0, v, &[0, 0], &[2, 3], &Values::Double(vec![1.1f32 as f64; 6])).unwrap();
    assert_eq!(read(&ds), vec![shaved, set, shaved, set, shaved, set]);
    // varm with contiguous rows (a gap between them): the column
    let put_map = |ds: &mut Dataset, imap: &[i64], len: usize| {
        let slab = ds.slab(0, v, Some(&[0, 0]), Some(&[2, 3]), None, Some(imap), true).unwrap();
        let bytes = Values::Float(vec![1.1; len]).to_ne_bytes();
        ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_FLOAT, buf: &bytes }).unwrap();
    };
    put_map(&mut ds, &[4, 1], 7);
    assert_eq!(read(&ds), vec![shaved, set, shaved, shaved, set, shaved]);
    // varm transposed: one value per call, all shaved
    put_map(&mut ds, &[1, 2], 6);
    assert_eq!(read(&ds), vec![shaved; 6]);
}

/// The chunk grid and runs of a slab (`engine::slab`) cover its positions
/// exactly once, each chunk once and in the C order of the grid, for random
/// slabs, memory maps (aliasing ones too) and C or Fortran chunk order.
#[test]
fn chunk_runs_cover_every_position_once() {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    for case in 0..3000 {
        let shape = rng.shape(13);
        let nd = shape.len();
        let chunks: Vec<u64> = (0..nd).map(|_| 1 + rng.below(6)).collect();
        let mut r = RandomSlab::new(&mut rng, &shape);
        if rng.below(4) == 0 {
            r.imap = Some((0..nd).map(|_| rng.below(4) as i64).collect());
        }
        let map = r.map();
        let slab = Slab {
            start: r.start.as_slice().into(),
            count: r.count.as_slice().into(),
            stride: r.stride.iter().map(|&x| x as u64).collect(),
            imap: map.iter().map(|&x| x as u64).collect(),
            dense: r.imap.is_none(),
        };
        let mut cstrides = vec![0u64; nd];
        let mut acc = 1;
        let order: Vec<usize> = if rng.below(2) == 0 { (0..nd).collect() } else { (0..nd).rev().collect() };
        for d in order {
            cstrides[d] = acc;
            acc *= chunks[d];
        }
        // (memory offset, chunk, offset in the chunk) of every position
        let mut want: Vec<(usize, Vec<u64>, usize)> = r
            .positions(&shape)
            .into_iter()
            .map(|(m, lin)| {
                let mut idx = vec![0u64; nd];
                let mut rest = lin as u64;
                for d in (0..nd).rev() {
                    idx[d] = rest % shape[d];
                    rest /= shape[d];
                }
                let chunk = (0..nd).map(|d| idx[d] / chunks[d]).collect();
                (m, chunk, (0..nd).map(|d| (idx[d] % chunks[d]) * cstrides[d]).sum::<u64>() as usize)
            })
            .collect();
        let offsets: Vec<usize> = slab.offsets().collect();
        assert_eq!(offsets, want.iter().map(|w| w.0).collect::<Vec<_>>(), "case {case}: offsets");
        let grid = Grid::new(&slab, &chunks).unwrap();
        let (mut got, mut seen) = (Vec::new(), Vec::new());
        for i in 0..grid.len() {
            let parts = grid.chunk(i);
            let idx: Vec<u64> = parts.iter().map(|p| p.chunk).collect();
            seen.push(idx.clone());
            let runs = Runs::new(&slab, &cstrides, &parts);
            let (mut nruns, mut elems) = (0, 0);
            runs.for_each(|run| {
                nruns += 1;
                elems += run.n;
                if !slab.dense {
                    assert!(run.k + run.n as u64 <= slab.count[nd - 1], "case {case}: a run spans rows");
                }
                got.extend((0..run.n).map(|e| (run.mem + e, idx.clone(), run.chunk + e)));
            });
            assert_eq!(nruns, runs.count(), "case {case}");
            assert_eq!(elems as u64, runs.elements(), "case {case}");
        }
        let mut sorted = seen.clone();
        sorted.sort();
        sorted.dedup();
        assert_eq!(sorted, seen, "case {case}: chunks out of order or repeated");
        want.sort();
        got.sort();
        assert_eq!(got, want, "case {case}: {slab:?} chunks {chunks:?}");
        // a map that passes `disjoint` never aliases
        if slab.disjoint() {
            let mut m: Vec<usize> = want.iter().map(|w| w.0).collect();
            m.sort();
            m.dedup();
            assert_eq!(m.len(), want.len(), "case {case}: {slab:?} aliases");
        }
    }
}
