//! Every typed put/get variant of the C API, called from Rust: a round trip
//! per memory type and access family, NC_ERANGE, and strings.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};

unsafe fn dataset(name: &str, t: i32) -> (c_int, c_int) {
    let p = CString::new(format!("mem://ffi_data/{name}")).unwrap();
    let (mut nc, mut x, mut y, mut v) = (0, 0, 0, 0);
    assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), 0);
    assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 4, &mut x), 0);
    assert_eq!(nc_def_dim(nc, c"y".as_ptr(), 5, &mut y), 0);
    assert_eq!(nc_def_var(nc, c"v".as_ptr(), t, 2, [x, y].as_ptr(), &mut v), 0);
    let ch = [3usize, 2];
    assert_eq!(nc_def_var_chunking(nc, v, NC_CHUNKED, ch.as_ptr()), 0);
    (nc, v)
}

macro_rules! typed_roundtrip {
    ($test:ident, $t:ty, $nctype:expr, $put:ident, $get:ident, $put1:ident, $get1:ident, $puta:ident, $geta:ident, $puts:ident, $gets:ident, $putm:ident, $getm:ident) => {
        #[test]
        fn $test() {
            unsafe {
                let (nc, v) = dataset(stringify!($test), $nctype);
                let all: Vec<$t> = (0..20).map(|i| i as $t).collect();
                assert_eq!($put(nc, v, all.as_ptr()), 0);
                let mut back = vec![0 as $t; 20];
                assert_eq!($get(nc, v, back.as_mut_ptr()), 0);
                assert_eq!(back, all);
                let idx = [2usize, 3];
                let one: $t = 77 as $t;
                assert_eq!($put1(nc, v, idx.as_ptr(), &one), 0);
                let mut got: $t = 0 as $t;
                assert_eq!($get1(nc, v, idx.as_ptr(), &mut got), 0);
                assert_eq!(got, one);
                let (start, count) = ([1usize, 1], [2usize, 3]);
                let block: Vec<$t> = (50..56).map(|i| i as $t).collect();
                assert_eq!($puta(nc, v, start.as_ptr(), count.as_ptr(), block.as_ptr()), 0);
                let mut b2 = vec![0 as $t; 6];
                assert_eq!($geta(nc, v, start.as_ptr(), count.as_ptr(), b2.as_mut_ptr()), 0);
                assert_eq!(b2, block);
                let (s0, c0, st) = ([0usize, 0], [2usize, 3], [2isize, 2]);
                let strided: Vec<$t> = (90..96).map(|i| i as $t).collect();
                assert_eq!($puts(nc, v, s0.as_ptr(), c0.as_ptr(), st.as_ptr(), strided.as_ptr()), 0);
                let mut b3 = vec![0 as $t; 6];
                assert_eq!($gets(nc, v, s0.as_ptr(), c0.as_ptr(), st.as_ptr(), b3.as_mut_ptr()), 0);
                assert_eq!(b3, strided);
                // varm: the whole variable transposed
                let (s4, c4, st4, map) = ([0usize, 0], [4usize, 5], [1isize, 1], [1isize, 4]);
                let mut t = vec![0 as $t; 20];
                assert_eq!($getm(nc, v, s4.as_ptr(), c4.as_ptr(), st4.as_ptr(), map.as_ptr(), t.as_mut_ptr()), 0);
                assert_eq!($get(nc, v, back.as_mut_ptr()), 0);
                for i in 0..4 {
                    for j in 0..5 {
                        assert_eq!(t[j * 4 + i], back[i * 5 + j]);
                    }
                }
                assert_eq!($putm(nc, v, s4.as_ptr(), c4.as_ptr(), st4.as_ptr(), map.as_ptr(), t.as_ptr()), 0);
                let mut again = vec![0 as $t; 20];
                assert_eq!($get(nc, v, again.as_mut_ptr()), 0);
                assert_eq!(again, back);
                assert_eq!(nc_close(nc), 0);
            }
        }
    };
}

typed_roundtrip!(
    schar,
    i8,
    NC_BYTE,
    nc_put_var_schar,
    nc_get_var_schar,
    nc_put_var1_schar,
    nc_get_var1_schar,
    nc_put_vara_schar,
    nc_get_vara_schar,
    nc_put_vars_schar,
    nc_get_vars_schar,
    nc_put_varm_schar,
    nc_get_varm_schar
);
typed_roundtrip!(
    uchar,
    u8,
    NC_UBYTE,
    nc_put_var_uchar,
    nc_get_var_uchar,
    nc_put_var1_uchar,
    nc_get_var1_uchar,
    nc_put_vara_uchar,
    nc_get_vara_uchar,
    nc_put_vars_uchar,
    nc_get_vars_uchar,
    nc_put_varm_uchar,
    nc_get_varm_uchar
);
typed_roundtrip!(
    short,
    i16,
    NC_SHORT,
    nc_put_var_short,
    nc_get_var_short,
    nc_put_var1_short,
    nc_get_var1_short,
    nc_put_vara_short,
    nc_get_vara_short,
    nc_put_vars_short,
    nc_get_vars_short,
    nc_put_varm_short,
    nc_get_varm_short
);
typed_roundtrip!(
    int,
    i32,
    NC_INT,
    nc_put_var_int,
    nc_get_var_int,
    nc_put_var1_int,
    nc_get_var1_int,
    nc_put_vara_int,
    nc_get_vara_int,
    nc_put_vars_int,
    nc_get_vars_int,
    nc_put_varm_int,
    nc_get_varm_int
);
typed_roundtrip!(
    long,
    std::os::raw::c_long,
    NC_INT64,
    nc_put_var_long,
    nc_get_var_long,
    nc_put_var1_long,
    nc_get_var1_long,
    nc_put_vara_long,
    nc_get_vara_long,
    nc_put_vars_long,
    nc_get_vars_long,
    nc_put_varm_long,
    nc_get_varm_long
);
typed_roundtrip!(
    float,
    f32,
    NC_FLOAT,
    nc_put_var_float,
    nc_get_var_float,
    nc_put_var1_float,
    nc_get_var1_float,
    nc_put_vara_float,
    nc_get_vara_float,
    nc_put_vars_float,
    nc_get_vars_float,
    nc_put_varm_float,
    nc_get_varm_float
);
typed_roundtrip!(
    double,
    f64,
    NC_DOUBLE,
    nc_put_var_double,
    nc_get_var_double,
    nc_put_var1_double,
    nc_get_var1_double,
    nc_put_vara_double,
    nc_get_vara_double,
    nc_put_vars_double,
    nc_get_vars_double,
    nc_put_varm_double,
    nc_get_varm_double
);
typed_roundtrip!(
    ubyte,
    u8,
    NC_UBYTE,
    nc_put_var_ubyte,
    nc_get_var_ubyte,
    nc_put_var1_ubyte,
    nc_get_var1_ubyte,
    nc_put_vara_ubyte,
    nc_get_vara_ubyte,
    nc_put_vars_ubyte,
    nc_get_vars_ubyte,
    nc_put_varm_ubyte,
    nc_get_varm_ubyte
);
typed_roundtrip!(
    ushort,
    u16,
    NC_USHORT,
    nc_put_var_ushort,
    nc_get_var_ushort,
    nc_put_var1_ushort,
    nc_get_var1_ushort,
    nc_put_vara_ushort,
    nc_get_vara_ushort,
    nc_put_vars_ushort,
    nc_get_vars_ushort,
    nc_put_varm_ushort,
    nc_get_varm_ushort
);
typed_roundtrip!(
    uint,
    u32,
    NC_UINT,
    nc_put_var_uint,
    nc_get_var_uint,
    nc_put_var1_uint,
    nc_get_var1_uint,
    nc_put_vara_uint,
    nc_get_vara_uint,
    nc_put_vars_uint,
    nc_get_vars_uint,
    nc_put_varm_uint,
    nc_get_varm_uint
);
typed_roundtrip!(
    longlong,
    i64,
    NC_INT64,
    nc_put_var_longlong,
    nc_get_var_longlong,
    nc_put_var1_longlong,
    nc_get_var1_longlong,
    nc_put_vara_longlong,
    nc_get_vara_longlong,
    nc_put_vars_longlong,
    nc_get_vars_longlong,
    nc_put_varm_longlong,
    nc_get_varm_longlong
);
typed_roundtrip!(
    ulonglong,
    u64,
    NC_UINT64,
    nc_put_var_ulonglong,
    nc_get_var_ulonglong,
    nc_put_var1_ulonglong,
    nc_get_var1_ulonglong,
    nc_put_vara_ulonglong,
    nc_get_vara_ulonglong,
    nc_put_vars_ulonglong,
    nc_get_vars_ulonglong,
    nc_put_varm_ulonglong,
    nc_get_varm_ulonglong
);
typed_roundtrip!(
    text,
    c_char,
    NC_CHAR,
    nc_put_var_text,
    nc_get_var_text,
    nc_put_var1_text,
    nc_get_var1_text,
    nc_put_vara_text,
    nc_get_vara_text,
    nc_put_vars_text,
    nc_get_vars_text,
    nc_put_varm_text,
    nc_get_varm_text
);

#[test]
fn untyped_range_errors_and_big_endian() {
    unsafe {
        let (nc, v) = dataset("untyped", NC_SHORT);
        assert_eq!(nc_def_var_endian(nc, v, NC_ENDIAN_BIG), 0);
        let vals: Vec<i16> = (0..20).map(|i| i * 1000).collect();
        assert_eq!(nc_put_var(nc, v, vals.as_ptr().cast()), 0);
        let mut back = vec![0i16; 20];
        assert_eq!(nc_get_var(nc, v, back.as_mut_ptr().cast()), 0);
        assert_eq!(back, vals);
        // 19000 does not fit a signed char: converted anyway, reported
        let mut bytes = vec![0i8; 20];
        assert_eq!(nc_get_var_schar(nc, v, bytes.as_mut_ptr()), NC_ERANGE);
        assert_eq!(bytes[0], 0);
        let big = [1e9f64; 20];
        assert_eq!(nc_put_var_double(nc, v, big.as_ptr()), NC_ERANGE);
        assert_eq!(nc_close(nc), 0);
    }
}

#[test]
fn string_variables() {
    unsafe {
        let (nc, v) = dataset("strings", NC_STRING);
        let owned: Vec<CString> = (0..20).map(|i| CString::new(format!("s{i}")).unwrap()).collect();
        let mut ptrs: Vec<*const c_char> = owned.iter().map(|c| c.as_ptr()).collect();
        ptrs[3] = std::ptr::null(); // a NULL string is stored as ""
        assert_eq!(nc_put_var_string(nc, v, ptrs.as_mut_ptr()), 0);
        let mut out: Vec<*mut c_char> = vec![std::ptr::null_mut(); 20];
        assert_eq!(nc_get_var_string(nc, v, out.as_mut_ptr()), 0);
        let got: Vec<String> = out.iter().map(|&p| CStr::from_ptr(p).to_str().unwrap().to_string()).collect();
        assert_eq!(got[0], "s0");
        assert_eq!(got[3], "");
        assert_eq!(got[19], "s19");
        assert_eq!(nc_free_string(20, out.as_mut_ptr()), 0);
        let mut ints = [0i32; 20];
        assert_eq!(nc_get_var_int(nc, v, ints.as_mut_ptr()), NC_EBADTYPE);
        assert_eq!(nc_close(nc), 0);
    }
}

#[test]
fn zstandard_filter() {
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(format!("file://{}/z.zarr#mode=nczarr,file", dir.path().display())).unwrap();
    unsafe {
        let (mut nc, mut x, mut v, mut s) = (0, 0, 0, 0);
        assert_eq!(nc_create(path.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 1000, &mut x), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_INT, 1, &x, &mut v), 0);
        assert_eq!(nc_def_var(nc, c"s".as_ptr(), NC_STRING, 1, &x, &mut s), 0);
        assert_eq!(nc_inq_filter_avail(nc, H5Z_FILTER_ZSTD), 0);
        // bad levels change nothing; strings take filters (netCDF-C 4.10)
        assert_eq!(nc_def_var_zstandard(nc, v, 23), NC_EINVAL);
        assert_eq!(nc_def_var_zstandard(nc, s, 3), 0);
        assert_eq!(nc_def_var_zstandard(nc, NC_GLOBAL, 3), NC_EGLOBAL);
        let (mut has, mut level) = (-1, -1);
        assert_eq!(nc_inq_var_zstandard(nc, v, &mut has, &mut level), 0);
        assert_eq!((has, level), (0, 0));
        let mut nfilters = 99usize;
        assert_eq!(nc_inq_var_filter_ids(nc, v, &mut nfilters, std::ptr::null_mut()), 0);
        assert_eq!(nfilters, 0, "a refused filter left the variable as it was");
        // the HDF5-style form, with a negative (fast) level
        let neg = (-5i32) as u32;
        assert_eq!(nc_def_var_filter(nc, v, H5Z_FILTER_ZSTD, 2, [1u32, 2].as_ptr()), NC_EFILTER);
        assert_eq!(nc_def_var_filter(nc, v, H5Z_FILTER_ZSTD, 1, &neg), 0);
        assert_eq!(nc_inq_var_zstandard(nc, v, &mut has, &mut level), 0);
        assert_eq!((has, level), (1, -5));
        assert_eq!(nc_def_var_zstandard(nc, v, 7), 0); // replaces the level
        let vals: Vec<i32> = (0..1000).map(|i| i / 10).collect();
        assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
        assert_eq!(nc_def_var_zstandard(nc, v, 1), NC_ELATEDEF);
        assert_eq!(nc_close(nc), 0);

        let zarray = std::fs::read_to_string(dir.path().join("z.zarr/v/.zarray")).unwrap();
        let meta: serde_json::Value = serde_json::from_str(&zarray).unwrap();
        assert_eq!(meta["compressor"], serde_json::json!({"id": "zstd", "level": 7}), "{zarray}");
        let chunk = std::fs::read(dir.path().join("z.zarr/v/0")).unwrap();
        assert_eq!(&chunk[..4], &[0x28, 0xb5, 0x2f, 0xfd], "a Zstandard frame");
        assert!(chunk.len() < 1000, "compressed: {} bytes", chunk.len());

        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut back = vec![0i32; 1000];
        assert_eq!(nc_get_var_int(nc, v, back.as_mut_ptr()), 0);
        assert_eq!(back, vals);
        assert_eq!(nc_inq_var_zstandard(nc, v, &mut has, &mut level), 0);
        assert_eq!((has, level), (1, 7));
        let (mut id, mut np, mut p) = (0u32, 0usize, 0u32);
        assert_eq!(nc_inq_var_filter(nc, v, &mut id, &mut np, &mut p), 0);
        assert_eq!((id, np, p), (H5Z_FILTER_ZSTD, 1, 7));
        assert_eq!(nc_close(nc), 0);
    }
}

/// netCDF-4 semantics: a write in define mode ends it (the variable's
/// filters are then fixed); under the classic model it is NC_EINDEFINE.
#[test]
fn writing_in_define_mode() {
    unsafe {
        for (name, cmode) in [("nc4", NC_CLOBBER), ("classic", NC_CLOBBER | NC_NETCDF4 | NC_CLASSIC_MODEL)] {
            let p = CString::new(format!("mem://ffi_data/define_{name}")).unwrap();
            let (mut nc, mut x, mut v) = (0, 0, 0);
            assert_eq!(nc_create(p.as_ptr(), cmode, &mut nc), 0);
            assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 4, &mut x), 0);
            assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_INT, 1, &x, &mut v), 0);
            let vals = [1, 2, 3, 4];
            if cmode & NC_CLASSIC_MODEL != 0 {
                assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), NC_EINDEFINE);
                assert_eq!(nc_enddef(nc), 0);
                assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
            } else {
                assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
                assert_eq!(nc_enddef(nc), NC_ENOTINDEFINE, "the write ended define mode");
                assert_eq!(nc_def_var_deflate(nc, v, 0, 1, 1), NC_ELATEDEF);
            }
            let mut back = [0; 4];
            assert_eq!(nc_get_var_int(nc, v, back.as_mut_ptr()), 0);
            assert_eq!(back, vals);
            assert_eq!(nc_close(nc), 0);
        }
    }
}

#[test]
fn blosc_filter() {
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(format!("file://{}/b.zarr#mode=nczarr,file", dir.path().display())).unwrap();
    unsafe {
        let (mut nc, mut x, mut v) = (0, 0, 0);
        assert_eq!(nc_create(path.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 1000, &mut x), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_DOUBLE, 1, &x, &mut v), 0);
        assert_eq!(nc_inq_filter_avail(nc, H5Z_FILTER_BLOSC), 0);
        // Snappy is not built; levels 0-9; shuffle 0-2; nothing changes on error
        assert_eq!(nc_def_var_blosc(nc, v, BLOSC_SNAPPY, 5, 0, BLOSC_SHUFFLE), NC_EINVAL);
        assert_eq!(nc_def_var_blosc(nc, v, BLOSC_LZ4, 10, 0, BLOSC_SHUFFLE), NC_EINVAL);
        assert_eq!(nc_def_var_blosc(nc, v, BLOSC_LZ4, 5, 0, 3), NC_EINVAL);
        assert_eq!(nc_def_var_filter(nc, v, H5Z_FILTER_BLOSC, 2, [0u32, 1].as_ptr()), NC_EFILTER);
        let (mut has, mut sub, mut level, mut bs, mut sh) = (-1, 9, 9, 9, 9);
        assert_eq!(nc_inq_var_blosc(nc, v, &mut has, &mut sub, &mut level, &mut bs, &mut sh), 0);
        assert_eq!((has, sub, level, bs, sh), (0, 0, 0, 0, 0));
        // the HDF5-style form first, then the helper replaces it
        let params = [0u32, 0, 0, 0, 3, BLOSC_BITSHUFFLE, BLOSC_ZLIB];
        assert_eq!(nc_def_var_filter(nc, v, H5Z_FILTER_BLOSC, 7, params.as_ptr()), 0);
        assert_eq!(nc_def_var_blosc(nc, v, BLOSC_ZSTD, 4, 0, BLOSC_SHUFFLE), 0);
        let vals: Vec<f64> = (0..1000).map(|i| (i / 8) as f64).collect();
        assert_eq!(nc_put_var_double(nc, v, vals.as_ptr()), 0);
        assert_eq!(nc_close(nc), 0);

        let zarray = std::fs::read_to_string(dir.path().join("b.zarr/v/.zarray")).unwrap();
        let meta: serde_json::Value = serde_json::from_str(&zarray).unwrap();
        let want = serde_json::json!({"id": "blosc", "cname": "zstd", "clevel": 4, "shuffle": 1, "blocksize": 0});
        assert_eq!(meta["compressor"], want, "{zarray}");
        let chunk = std::fs::read(dir.path().join("b.zarr/v/0")).unwrap();
        assert_eq!(chunk[0], 2, "a Blosc 1 buffer (format version 2)");
        assert!(chunk.len() < 8000 / 4, "compressed: {} bytes", chunk.len());

        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut back = vec![0f64; 1000];
        assert_eq!(nc_get_var_double(nc, v, back.as_mut_ptr()), 0);
        assert_eq!(back, vals);
        assert_eq!(nc_inq_var_blosc(nc, v, &mut has, &mut sub, &mut level, &mut bs, &mut sh), 0);
        assert_eq!((has, sub, level, bs, sh), (1, BLOSC_ZSTD, 4, 0, BLOSC_SHUFFLE));
        assert_eq!(nc_close(nc), 0);
    }
}

/// Fletcher-32 (3), bzip2 (307) and LZ4 (32004): the filter API, the
/// numcodecs JSON and chunk bytes they write, the round trip, and a bad
/// checksum on read.
#[test]
fn checksum_bzip2_lz4_filters() {
    use nczarr_rs::ffi::compat::nc_def_var_fletcher32;
    let dir = tempfile::tempdir().unwrap();
    let path = CString::new(format!("file://{}/c.zarr#mode=nczarr,file", dir.path().display())).unwrap();
    unsafe {
        let (mut nc, mut x, mut f, mut b, mut l, mut s) = (0, 0, 0, 0, 0, 0);
        assert_eq!(nc_create(path.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 1000, &mut x), 0);
        for (name, id) in [(c"f", &mut f), (c"b", &mut b), (c"l", &mut l)] {
            assert_eq!(nc_def_var(nc, name.as_ptr(), NC_INT, 1, &x, id), 0);
        }
        assert_eq!(nc_def_var(nc, c"s".as_ptr(), NC_STRING, 1, &x, &mut s), 0);
        for id in [H5Z_FILTER_FLETCHER32, H5Z_FILTER_BZIP2, 32004] {
            assert_eq!(nc_inq_filter_avail(nc, id), 0, "filter {id}");
        }
        // Fletcher-32 then deflate, in definition order
        assert_eq!(nc_def_var_fletcher32(nc, f, 0), 0);
        let mut on = -1;
        assert_eq!(nc_inq_var_fletcher32(nc, f, &mut on), 0);
        assert_eq!(on, 0);
        assert_eq!(nc_def_var_fletcher32(nc, f, 1), 0);
        // a string variable takes filters too, as in netCDF-C 4.10 (there
        // they are recorded but not applied when written; here applied,
        // so zarr-python and netCDF-C 4.10's reader decode the chunks)
        assert_eq!(nc_def_var_fletcher32(nc, s, 1), 0);
        assert_eq!(nc_def_var_deflate(nc, f, 0, 1, 5), 0);
        // bzip2: levels 1-9, the first parameter (netCDF-C ignores more)
        let (mut has, mut level) = (-1, -1);
        assert_eq!(nc_def_var_bzip2(nc, b, 0), NC_EINVAL);
        assert_eq!(nc_def_var_bzip2(nc, b, 10), NC_EINVAL);
        assert_eq!(nc_def_var_filter(nc, b, H5Z_FILTER_BZIP2, 0, std::ptr::null()), NC_EFILTER);
        assert_eq!(nc_def_var_filter(nc, b, H5Z_FILTER_BZIP2, 1, &0u32), NC_EINVAL);
        assert_eq!(nc_inq_var_bzip2(nc, b, &mut has, &mut level), 0);
        assert_eq!((has, level), (0, 0));
        assert_eq!(nc_def_var_filter(nc, b, H5Z_FILTER_BZIP2, 2, [3u32, 4].as_ptr()), 0);
        assert_eq!(nc_inq_var_bzip2(nc, b, &mut has, &mut level), 0);
        assert_eq!((has, level), (1, 3));
        let mut codecs = [0u8; 64];
        assert_eq!(nczarr_rs::ffi::atts::nc_get_att_text(nc, b, c"_Codecs".as_ptr(), codecs.as_mut_ptr().cast()), 0);
        assert!(codecs.starts_with(br#"[{"id": "bz2", "level": 3}]"#), "{}", String::from_utf8_lossy(&codecs));
        let mut plain = 0;
        assert_eq!(nc_def_var(nc, c"plain".as_ptr(), NC_INT, 1, &x, &mut plain), 0);
        assert_eq!(
            nczarr_rs::ffi::atts::nc_get_att_text(nc, plain, c"_Codecs".as_ptr(), codecs.as_mut_ptr().cast()),
            NC_ENOTATT
        );
        assert_eq!(nc_def_var_bzip2(nc, b, 9), 0); // replaces the level
                                                   // LZ4: no parameter (acceleration 1) or one
        assert_eq!(nc_def_var_filter(nc, l, 32004, 2, [1u32, 2].as_ptr()), NC_EFILTER);
        assert_eq!(nc_def_var_filter(nc, l, 32004, 0, std::ptr::null()), 0);
        let vals: Vec<i32> = (0..1000).map(|i| i / 10).collect();
        for v in [f, b, l] {
            assert_eq!(nc_put_var_int(nc, v, vals.as_ptr()), 0);
        }
        assert_eq!(nc_def_var_bzip2(nc, b, 1), NC_ELATEDEF);
        assert_eq!(nc_close(nc), 0);

        let meta = |v: &str| -> serde_json::Value {
            let text = std::fs::read_to_string(dir.path().join(format!("c.zarr/{v}/.zarray"))).unwrap();
            serde_json::from_str(&text).unwrap()
        };
        use serde_json::json;
        assert_eq!(meta("f")["filters"], json!([{"id": "fletcher32"}]));
        assert_eq!(meta("f")["compressor"], json!({"id": "zlib", "level": 5}));
        assert_eq!(meta("b")["compressor"], json!({"id": "bz2", "level": 9}));
        assert_eq!(meta("l")["compressor"], json!({"id": "lz4", "acceleration": 1}));
        let chunk = |v: &str| std::fs::read(dir.path().join(format!("c.zarr/{v}/0"))).unwrap();
        assert_eq!(&chunk("b")[..4], b"BZh9");
        assert_eq!(chunk("l")[..4], 4000u32.to_le_bytes());

        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        for v in [f, b, l] {
            let mut back = vec![0i32; 1000];
            assert_eq!(nc_get_var_int(nc, v, back.as_mut_ptr()), 0);
            assert_eq!(back, vals);
        }
        assert_eq!(nc_inq_var_fletcher32(nc, f, &mut on), 0);
        assert_eq!(on, 1);
        let mut ids = [0u32; 4];
        let mut n = 0usize;
        assert_eq!(nc_inq_var_filter_ids(nc, f, &mut n, ids.as_mut_ptr()), 0);
        assert_eq!(&ids[..n], &[H5Z_FILTER_FLETCHER32, H5Z_FILTER_DEFLATE]);
        assert_eq!(nc_inq_var_filter_info(nc, f, H5Z_FILTER_FLETCHER32, &mut n, std::ptr::null_mut()), 0);
        assert_eq!(n, 0);
        assert_eq!(nc_inq_var_bzip2(nc, b, &mut has, &mut level), 0);
        assert_eq!((has, level), (1, 9));
        let mut p = [0u32; 2];
        assert_eq!(nc_inq_var_filter_info(nc, l, 32004, &mut n, p.as_mut_ptr()), 0);
        assert_eq!(&p[..n], &[1]);
        assert_eq!(nc_close(nc), 0);

        // a flipped bit under the checksum is an error on read (NC_EFILTER,
        // as a failing filter is in netCDF-C); a zlib-only variable would
        // not notice a change that still inflates
        let raw = dir.path().join("c.zarr/f/0");
        let z = chunk("f");
        let mut plain = nczarr_rs::codec::Pipeline::from_zarr_v2(&[json!({"id": "zlib", "level": 5})], None, "<i4")
            .chain()
            .unwrap()
            .decode(&z, 4004)
            .unwrap();
        plain[100] ^= 1;
        let tampered = nczarr_rs::codec::Pipeline::from_zarr_v2(&[json!({"id": "zlib", "level": 5})], None, "<i4")
            .chain()
            .unwrap()
            .encode(&plain)
            .unwrap();
        std::fs::write(&raw, tampered).unwrap();
        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut back = vec![0i32; 1000];
        assert_eq!(nc_get_var_int(nc, f, back.as_mut_ptr()), NC_EFILTER);
        assert_eq!(nc_close(nc), 0);
    }
}

/// The data path keeps each variable's chunk layout between calls
/// (`engine::data::LayoutSlot`): a change of metadata after data were
/// read and written must reach it. Renaming the variable and its group
/// moves its chunks (a stale layout would look under the old key and read
/// fill values: this test fails then); writes past the end of an unlimited
/// dimension, after reads, read back in the grown shape.
#[test]
fn metadata_changes_after_data_access_reach_the_data_path() {
    unsafe {
        let p = CString::new("mem://ffi_data/layout_changes").unwrap();
        let (mut nc, mut g, mut x, mut t, mut v) = (0, 0, 0, 0, 0);
        assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER | NC_NETCDF4, &mut nc), 0);
        assert_eq!(nc_def_grp(nc, c"g".as_ptr(), &mut g), 0);
        assert_eq!(nc_def_dim(g, c"x".as_ptr(), 4, &mut x), 0);
        assert_eq!(nc_def_dim(g, c"t".as_ptr(), NC_UNLIMITED as usize, &mut t), 0);
        assert_eq!(nc_def_var(g, c"v".as_ptr(), NC_FLOAT, 2, [x, t].as_ptr(), &mut v), 0);
        assert_eq!(nc_def_var_chunking(g, v, NC_CHUNKED, [2usize, 2].as_ptr()), 0);
        let fill: f32 = -1.0;
        assert_eq!(nc_def_var_fill(g, v, 0, (&fill as *const f32).cast()), 0);
        assert_eq!(nc_enddef(nc), 0);
        let get = |at: [usize; 2]| {
            let mut got = 0f32;
            let rc = nc_get_var1_float(g, v, at.as_ptr(), &mut got);
            (rc, got)
        };
        assert_eq!(nc_put_var1_float(g, v, [1usize, 1].as_ptr(), &5.0), 0);
        assert_eq!(get([1, 1]), (0, 5.0));
        assert_eq!(get([1, 3]).0, NC_EINVALCOORDS);
        // grows t from 2 to 4: the cached layout had the old shape
        assert_eq!(nc_put_var1_float(g, v, [2usize, 3].as_ptr(), &7.0), 0);
        assert_eq!(get([2, 3]), (0, 7.0));
        assert_eq!(get([2, 2]), (0, -1.0));
        let mut all = [0f32; 16];
        assert_eq!(nc_get_vara_float(g, v, [0usize, 0].as_ptr(), [4usize, 4].as_ptr(), all.as_mut_ptr()), 0);
        assert_eq!((all[5], all[11], all[0]), (5.0, 7.0, -1.0));
        // the chunks move with the names; the values read stay
        assert_eq!(nc_redef(nc), 0);
        assert_eq!(nc_rename_var(g, v, c"w".as_ptr()), 0);
        assert_eq!(nc_enddef(nc), 0);
        assert_eq!(get([1, 1]), (0, 5.0));
        assert_eq!(nc_put_var1_float(g, v, [0usize, 0].as_ptr(), &9.0), 0);
        assert_eq!(nc_redef(nc), 0);
        assert_eq!(nc_rename_grp(g, c"h".as_ptr()), 0);
        assert_eq!(nc_enddef(nc), 0);
        assert_eq!((get([1, 1]), get([0, 0]), get([2, 3])), ((0, 5.0), (0, 9.0), (0, 7.0)));
        assert_eq!(nc_close(nc), 0);
    }
}

/// One-element calls (`var1`, and `vara` with counts of 1) take a short
/// path when their chunk is cached; the same calls as `vars` take the
/// general one. Two datasets get the same sequence of calls, one each way,
/// with conversions out of range, positions outside the variable (fixed and
/// unlimited), a chunk cache small enough to evict changed chunks midway,
/// and a char variable read as a number: every return code, every value
/// read, and the contents after closing are the same.
#[test]
fn one_element_calls_agree_with_the_general_path() {
    unsafe fn make(name: &str) -> (c_int, c_int, c_int) {
        let p = CString::new(format!("mem://ffi_data/{name}")).unwrap();
        let (mut nc, mut t, mut x, mut y, mut v, mut c) = (0, 0, 0, 0, 0, 0);
        assert_eq!(nc_create(p.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_dim(nc, c"t".as_ptr(), 0, &mut t), 0);
        assert_eq!(nc_def_dim(nc, c"x".as_ptr(), 7, &mut x), 0);
        assert_eq!(nc_def_dim(nc, c"y".as_ptr(), 6, &mut y), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_SHORT, 3, [t, x, y].as_ptr(), &mut v), 0);
        assert_eq!(nc_def_var_chunking(nc, v, NC_CHUNKED, [2usize, 3, 4].as_ptr()), 0);
        assert_eq!(nc_def_var(nc, c"c".as_ptr(), NC_CHAR, 2, [x, y].as_ptr(), &mut c), 0);
        // room for two chunks of v: changed chunks are evicted (written) midway
        assert_eq!(nc_set_var_chunk_cache(nc, v, 2 * 2 * 3 * 4 * 2, 2, 0.5), 0);
        assert_eq!(nc_enddef(nc), 0);
        (nc, v, c)
    }
    let ((a, va, ca), (b, vb, cb)) = unsafe { (make("one_a"), make("one_b")) };
    let ones = [1usize; 3];
    let unit = [1isize; 3];
    let mut seed = 12345u64;
    let mut next = |n: u64| {
        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (seed >> 33) % n
    };
    for step in 0..4000 {
        // positions up to one past each bound: t may grow on writes
        let idx = [next(6) as usize, next(8) as usize, next(7) as usize];
        let what = next(6);
        let value = next(80_000) as i32 - 40_000; // some out of short's range
        unsafe {
            let (ra, rb, ga, gb) = match what {
                0 => {
                    let r1 = nc_put_var1_int(a, va, idx.as_ptr(), &value);
                    let r2 = nc_put_vars_int(b, vb, idx.as_ptr(), ones.as_ptr(), unit.as_ptr(), &value);
                    (r1, r2, 0.0, 0.0)
                }
                1 => {
                    let d = value as f64 * 0.5;
                    let r1 = nc_put_vara_double(a, va, idx.as_ptr(), ones.as_ptr(), &d);
                    let r2 = nc_put_vars_double(b, vb, idx.as_ptr(), ones.as_ptr(), unit.as_ptr(), &d);
                    (r1, r2, 0.0, 0.0)
                }
                2 | 3 => {
                    let (mut x1, mut x2) = (-1.0f64, -1.0f64);
                    let r1 = nc_get_var1_double(a, va, idx.as_ptr(), &mut x1);
                    let r2 = nc_get_vars_double(b, vb, idx.as_ptr(), ones.as_ptr(), unit.as_ptr(), &mut x2);
                    (r1, r2, x1, x2)
                }
                4 => {
                    let (mut x1, mut x2) = (0u8, 0u8);
                    let r1 = nc_get_vara_uchar(a, va, idx.as_ptr(), ones.as_ptr(), &mut x1);
                    let r2 = nc_get_vars_uchar(b, vb, idx.as_ptr(), ones.as_ptr(), unit.as_ptr(), &mut x2);
                    (r1, r2, x1 as f64, x2 as f64)
                }
                _ => {
                    // a char variable read as a number: NC_ECHAR both ways
                    let (mut x1, mut x2) = (0i32, 0i32);
                    let r1 = nc_get_var1_int(a, ca, idx[1..].as_ptr(), &mut x1);
                    let r2 = nc_get_vars_int(b, cb, idx[1..].as_ptr(), ones.as_ptr(), unit.as_ptr(), &mut x2);
                    (r1, r2, x1 as f64, x2 as f64)
                }
            };
            assert_eq!(ra, rb, "step {step}: call {what} at {idx:?}");
            assert_eq!(ga.to_bits(), gb.to_bits(), "step {step}: value read at {idx:?}");
        }
    }
    let all = |nc: c_int, v: c_int| unsafe {
        let mut t = 0usize;
        assert_eq!(nc_inq_dimlen(nc, 0, &mut t), 0);
        let mut out = vec![0i16; t * 7 * 6];
        assert_eq!(nc_get_var_short(nc, v, out.as_mut_ptr()), 0);
        out
    };
    let (da, db) = (all(a, va), all(b, vb));
    assert!(da.len() >= 5 * 42, "t grew: {}", da.len() / 42);
    assert_eq!(da, db);
    unsafe {
        assert_eq!(nc_close(a), 0);
        assert_eq!(nc_close(b), 0);
        let (mut a, mut b) = (0, 0);
        assert_eq!(nc_open(c"mem://ffi_data/one_a".as_ptr(), NC_NOWRITE, &mut a), 0);
        assert_eq!(nc_open(c"mem://ffi_data/one_b".as_ptr(), NC_NOWRITE, &mut b), 0);
        assert_eq!(all(a, 0), db);
        assert_eq!(all(b, 0), db);
        assert_eq!(nc_close(a), 0);
        assert_eq!(nc_close(b), 0);
    }
}

#[test]
fn copy_data_rejects_a_byte_count_that_overflows() {
    // 2^62 ints are 2^64 bytes: the count times the size must not wrap (to 0,
    // a copy of nothing reported as done).
    unsafe {
        let (nc, _) = dataset("copy_data_overflow", NC_INT);
        let (src, mut dst) = ([1i32; 4], [0i32; 4]);
        let huge = 1usize << 62;
        let rc = nczarr_rs::ffi::compat::nc_copy_data(nc, NC_INT, src.as_ptr().cast(), huge, dst.as_mut_ptr().cast());
        assert_eq!(rc, NC_EINVAL);
        assert_eq!(
            nczarr_rs::ffi::compat::nc_copy_data(nc, NC_INT, src.as_ptr().cast(), 4, dst.as_mut_ptr().cast()),
            0
        );
        assert_eq!(dst, src);
        assert_eq!(nc_close(nc), 0);
    }
}
