//! The data path through the engine: every type and conversion, layouts
//! written by others (Fortran order, "/" separators, UCS-4 strings), memory
//! maps, the chunk cache bound, read-only safety, and threads.

use nczarr_rs::engine::cache::CacheConfig;
use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::{MemIn, MemOut};
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::model::Dataset;
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

#[test]
fn memory_maps_and_strides() {
    let mut ds = file::create("mem://data/maps", NC_CLOBBER).unwrap();
    let x = ds.def_dim(0, "x", 3).unwrap() as i32;
    let y = ds.def_dim(0, "y", 4).unwrap() as i32;
    let v = ds.def_var(0, "v", NC_INT, &[x, y]).unwrap() as i32;
    ds.def_var_chunking(0, v, NC_CHUNKED, Some(&[2, 3])).unwrap();
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
        assert!(ds.groups[0].vars[v as usize].cache.bytes() <= bound);
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
    assert_eq!(ds.dims[t as usize].len, 9);
    ds.close().unwrap();
    let ds = file::open("mem://data/unlim", NC_NOWRITE).unwrap();
    assert!(ds.dims[0].unlimited && ds.dims[0].len == 9);
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
