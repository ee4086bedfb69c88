//! Behaviours where nczarr-rs follows netCDF-C exactly (issue 11, items
//! 1-6), through the C API. The interop harness compares the same cases with
//! the real netCDF-C where it can read them (docs/COMPATIBILITY.md).

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::ffi::atts::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::vars::*;
use nczarr_rs::map::{Driver, StoreKey};
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};

fn url(name: &str) -> CString {
    CString::new(format!("mem://parity/{name}")).unwrap()
}

fn object(name: &str, key: &str) -> String {
    let s = Driver::Memory.open(&format!("mem://parity/{name}"), false).unwrap();
    String::from_utf8(s.get(&StoreKey::parse(key).unwrap()).unwrap().unwrap()).unwrap()
}

fn new_store(name: &str, objects: &[(&str, &str)]) {
    let s = Driver::Memory.create(&format!("mem://parity/{name}"), true).unwrap();
    for (key, text) in objects {
        s.set(&StoreKey::parse(key).unwrap(), text.as_bytes()).unwrap();
    }
}

/// A new dataset `name` with a dimension x of length `len` and one
/// variable `v` of type `t` over it: (ncid, x, varid).
unsafe fn dataset_with_var(name: &str, len: usize, t: i32) -> (c_int, c_int, c_int) {
    let (mut nc, mut x, mut v) = (0, 0, 0);
    assert_eq!(nc_create(url(name).as_ptr(), NC_CLOBBER, &mut nc), 0);
    assert_eq!(nc_def_dim(nc, c"x".as_ptr(), len, &mut x), 0);
    assert_eq!(nc_def_var(nc, c"v".as_ptr(), t, 1, &x, &mut v), 0);
    (nc, x, v)
}

/// Item 1: a NOFILL variable leaves the caller's fill buffer alone.
#[test]
fn inq_var_fill_leaves_the_buffer_of_a_nofill_variable() {
    unsafe {
        let (nc, _, v) = dataset_with_var("nofill", 2, NC_INT);
        assert_eq!(nc_def_var_fill(nc, v, 1, std::ptr::null()), 0);
        let (mut no_fill, mut fill) = (-1, 12345);
        assert_eq!(nc_inq_var_fill(nc, v, &mut no_fill, &mut fill as *mut c_int as *mut _), 0);
        assert_eq!((no_fill, fill), (1, 12345));
        assert_eq!(nc_def_var_fill(nc, v, 0, std::ptr::null()), 0);
        assert_eq!(nc_inq_var_fill(nc, v, &mut no_fill, &mut fill as *mut c_int as *mut _), 0);
        assert_eq!((no_fill, fill), (0, NC_FILL_INT));
        assert_eq!(nc_close(nc), 0);
    }
}

/// Item 2: char and string variables, and `|i1`/`|u1`, have no byte order.
#[test]
fn endianness_of_one_byte_and_string_types() {
    unsafe {
        let (mut nc, x, c) = dataset_with_var("endian", 2, NC_CHAR);
        let (mut s, mut b, mut i) = (0, 0, 0);
        assert_eq!(nc_def_var(nc, c"s".as_ptr(), NC_STRING, 1, &x, &mut s), 0);
        assert_eq!(nc_def_var(nc, c"b".as_ptr(), NC_BYTE, 1, &x, &mut b), 0);
        assert_eq!(nc_def_var(nc, c"i".as_ptr(), NC_INT, 1, &x, &mut i), 0);
        assert_eq!(nc_def_var_endian(nc, c, NC_ENDIAN_BIG), NC_EINVAL);
        assert_eq!(nc_def_var_endian(nc, s, NC_ENDIAN_LITTLE), NC_EINVAL);
        assert_eq!(nc_def_var_endian(nc, i, NC_ENDIAN_BIG), 0);
        let mut e = -1;
        for (var, want) in [(c, NC_ENDIAN_NATIVE), (s, NC_ENDIAN_NATIVE), (i, NC_ENDIAN_BIG)] {
            assert_eq!(nc_inq_var_endian(nc, var, &mut e), 0);
            assert_eq!(e, want, "var {var}");
        }
        assert_eq!(nc_close(nc), 0);
        assert!(object("endian", "b/.zarray").contains(r#""dtype": "|i1""#));
        assert_eq!(nc_open(url("endian").as_ptr(), NC_NOWRITE, &mut nc), 0);
        for (var, want) in [(c, NC_ENDIAN_NATIVE), (s, NC_ENDIAN_NATIVE), (b, NC_ENDIAN_NATIVE), (i, NC_ENDIAN_BIG)] {
            assert_eq!(nc_inq_var_endian(nc, var, &mut e), 0);
            assert_eq!(e, want, "var {var} after reopening");
        }
        assert_eq!(nc_close(nc), 0);
    }
}

/// Item 3: a missing chunk of a string variable reads as its _FillValue.
#[test]
fn missing_string_chunk_reads_the_fill_value() {
    unsafe {
        let (mut nc, _, v) = dataset_with_var("strfill", 4, NC_STRING);
        let chunk = [2usize];
        assert_eq!(nc_def_var_chunking(nc, v, NC_CHUNKED, chunk.as_ptr()), 0);
        let fill = [c"N/A".as_ptr()];
        assert_eq!(nc_def_var_fill(nc, v, 0, fill.as_ptr() as *const _), 0);
        let (start, count, two) = ([2usize], [2usize], [c"a".as_ptr(), c"b".as_ptr()]);
        assert_eq!(nc_put_vara_string(nc, v, start.as_ptr(), count.as_ptr(), two.as_ptr() as *mut _), 0);
        assert_eq!(nc_close(nc), 0);
        assert_eq!(nc_open(url("strfill").as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut out: [*mut c_char; 4] = [std::ptr::null_mut(); 4];
        assert_eq!(nc_get_var_string(nc, v, out.as_mut_ptr()), 0);
        let got: Vec<String> = out.iter().map(|p| CStr::from_ptr(*p).to_string_lossy().into_owned()).collect();
        assert_eq!(got, ["N/A", "N/A", "a", "b"]);
        assert_eq!(nc_free_string(4, out.as_mut_ptr()), 0);
        assert_eq!(nc_close(nc), 0);
    }
}

/// A `.zarray` fill value that is a list (`[1, 2]` for `<i4`): missing
/// data reads as its first value, as netCDF-C 4.9.0 and 4.10.1 read it
/// (issue 27, point 4); an empty list is an error.
#[test]
fn fill_value_list_reads_its_first_value() {
    let zarray = |fill: &str| {
        format!(
            r#"{{"zarr_format": 2, "shape": [4], "chunks": [2], "dtype": "<i4", "fill_value": {fill}, "order": "C", "compressor": null, "filters": null}}"#
        )
    };
    for (name, fill) in [("filllist", "[1, 2]"), ("fillempty", "[]")] {
        new_store(
            name,
            &[
                (".zgroup", r#"{"zarr_format": 2}"#),
                ("v/.zarray", &zarray(fill)),
                ("v/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#),
                ("v/1", &String::from_utf8(vec![0; 8]).unwrap()),
            ],
        );
    }
    unsafe {
        let mut nc = 0;
        let path = CString::new("mem://parity/filllist#mode=zarr").unwrap();
        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let mut got = [-1i32; 4];
        assert_eq!(nc_get_var_int(nc, 0, got.as_mut_ptr()), 0);
        assert_eq!(got, [1, 1, 0, 0]);
        assert_eq!(nc_close(nc), 0);
        let path = CString::new("mem://parity/fillempty#mode=zarr").unwrap();
        let rc = nc_open(path.as_ptr(), NC_NOWRITE, &mut nc);
        if rc == NC_NOERR {
            // (a variable whose metadata is bad is left unreadable)
            assert_ne!(nc_get_var_int(nc, 0, got.as_mut_ptr()), NC_NOERR);
            assert_eq!(nc_close(nc), 0);
        }
    }
}

/// A quoted numeric fill value (`"fill_value": "1.5"` for `<f8`) reads as
/// that number, as netCDF-C's development head reads it (4.10.1 aborts;
/// it was an error of the variable here). Issue 27, point 7.
#[test]
fn quoted_fill_value_reads_as_its_number() {
    let zarray = |dtype: &str, fill: &str| {
        format!(
            r#"{{"zarr_format": 2, "shape": [2], "chunks": [2], "dtype": "{dtype}", "fill_value": "{fill}", "order": "C", "compressor": null, "filters": null}}"#
        )
    };
    new_store(
        "quotedfill",
        &[
            (".zgroup", r#"{"zarr_format": 2}"#),
            ("d/.zarray", &zarray("<f8", "1.5")),
            ("i/.zarray", &zarray("<i4", "7")),
        ],
    );
    new_store("quotedfillbad", &[(".zgroup", r#"{"zarr_format": 2}"#), ("bad/.zarray", &zarray("<i4", "seven"))]);
    unsafe {
        let mut nc = 0;
        let path = CString::new("mem://parity/quotedfill#mode=zarr").unwrap();
        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let (mut d, mut i) = (0, 0);
        assert_eq!(nc_inq_varid(nc, c"d".as_ptr(), &mut d), 0);
        assert_eq!(nc_inq_varid(nc, c"i".as_ptr(), &mut i), 0);
        let mut dv = [0f64; 2];
        assert_eq!(nc_get_var_double(nc, d, dv.as_mut_ptr()), 0);
        assert_eq!(dv, [1.5, 1.5]);
        let mut iv = [0i32; 2];
        assert_eq!(nc_get_var_int(nc, i, iv.as_mut_ptr()), 0);
        assert_eq!(iv, [7, 7]);
        assert_eq!(nc_close(nc), 0);
        // a quoted word is no fill value: as before, an error
        let path = CString::new("mem://parity/quotedfillbad#mode=zarr").unwrap();
        if nc_open(path.as_ptr(), NC_NOWRITE, &mut nc) == NC_NOERR {
            assert_ne!(nc_get_var_int(nc, 0, iv.as_mut_ptr()), NC_NOERR);
            assert_eq!(nc_close(nc), 0);
        }
    }
}

/// Item 4: a scalar is a 0-d array in pure Zarr, written and read.
#[test]
fn pure_zarr_scalars_are_zero_dimensional() {
    unsafe {
        let (mut nc, mut v) = (0, 0);
        let path = CString::new("mem://parity/scalar0d#mode=zarr").unwrap();
        assert_eq!(nc_create(path.as_ptr(), NC_CLOBBER, &mut nc), 0);
        assert_eq!(nc_def_var(nc, c"v".as_ptr(), NC_INT, 0, std::ptr::null(), &mut v), 0);
        assert_eq!(nc_put_var_int(nc, v, &17), 0);
        assert_eq!(nc_close(nc), 0);
        let z = object("scalar0d", "v/.zarray");
        assert!(z.contains(r#""shape": [], "dtype": "<i4", "chunks": []"#), "{z}");
        assert_eq!(object("scalar0d", "v/.zattrs"), r#"{"_ARRAY_DIMENSIONS": []}"#);
        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        let (mut ndims, mut val) = (-1, 0);
        assert_eq!(nc_inq_varndims(nc, v, &mut ndims), 0);
        assert_eq!(nc_get_var_int(nc, v, &mut val), 0);
        assert_eq!((ndims, val), (0, 17));
        assert_eq!(nc_close(nc), 0);
    }
}

/// Items 5 and 6: bare NaN/Infinity in pure Zarr are doubles; dictionaries
/// and lists read as their JSON text; JSON-valued char attributes
/// round-trip byte for byte.
#[test]
fn json_attributes() {
    unsafe {
        let mut nc = 0;
        assert_eq!(nc_create(url("jsonatts").as_ptr(), NC_CLOBBER, &mut nc), 0);
        for (name, text) in [("spaced", r#"{"a": [1, 2]}"#), ("canonical", r#"{"a": [1,2]}"#), ("plain", "[not json")] {
            let n = CString::new(name).unwrap();
            assert_eq!(nc_put_att_text(nc, NC_GLOBAL, n.as_ptr(), text.len(), text.as_ptr() as *const c_char), 0);
        }
        assert_eq!(nc_close(nc), 0);
        let root = object("jsonatts", ".zattrs");
        assert!(root.contains(r#""spaced": "{\"a\": [1, 2]}""#), "{root}");
        assert!(root.contains(r#""canonical": {"a": [1,2]}"#), "{root}");
        assert_eq!(nc_open(url("jsonatts").as_ptr(), NC_NOWRITE, &mut nc), 0);
        for (name, text) in [("spaced", r#"{"a": [1, 2]}"#), ("canonical", r#"{"a": [1,2]}"#)] {
            let n = CString::new(name).unwrap();
            let mut buf = vec![0u8; text.len()];
            assert_eq!(nc_get_att_text(nc, NC_GLOBAL, n.as_ptr(), buf.as_mut_ptr() as *mut c_char), 0);
            assert_eq!(String::from_utf8(buf).unwrap(), text);
        }
        assert_eq!(nc_close(nc), 0);

        // pure Zarr, as zarr-python and xarray write attributes
        new_store(
            "purezarr",
            &[
                (".zgroup", r#"{"zarr_format": 2}"#),
                (
                    ".zattrs",
                    r#"{"nan": NaN, "inf": -Infinity, "vals": [1.5, NaN], "quoted": "NaN", "d": {"k": [1, 2]}, "tags": ["a", "b"]}"#,
                ),
            ],
        );
        assert_eq!(nc_open(url("purezarr").as_ptr(), NC_NOWRITE, &mut nc), 0);
        let att = |name: &str| {
            let n = CString::new(name).unwrap();
            let (mut t, mut len) = (0, 0);
            assert_eq!(nc_inq_att(nc, NC_GLOBAL, n.as_ptr(), &mut t, &mut len), 0, "{name}");
            (t, len)
        };
        assert_eq!(att("nan"), (NC_DOUBLE, 1));
        assert_eq!(att("inf"), (NC_DOUBLE, 1));
        assert_eq!(att("vals"), (NC_DOUBLE, 2));
        assert_eq!(att("quoted"), (NC_CHAR, 3));
        let text = |name: &str| {
            let (_, len) = att(name);
            let n = CString::new(name).unwrap();
            let mut buf = vec![0u8; len];
            assert_eq!(nc_get_att_text(nc, NC_GLOBAL, n.as_ptr(), buf.as_mut_ptr() as *mut c_char), 0);
            String::from_utf8(buf).unwrap()
        };
        assert_eq!(att("d").0, NC_CHAR);
        assert_eq!(text("d"), r#"{"k": [1,2]}"#);
        assert_eq!(att("tags").0, NC_CHAR);
        assert_eq!(text("tags"), r#"["a","b"]"#);
        let mut d = [0f64; 2];
        let n = CString::new("vals").unwrap();
        assert_eq!(nc_get_att_double(nc, NC_GLOBAL, n.as_ptr(), d.as_mut_ptr()), 0);
        assert!(d[0] == 1.5 && d[1].is_nan());
        assert_eq!(nc_close(nc), 0);
    }
}

/// The text of a `char` attribute, read through `nc_get_att_text`.
unsafe fn att_text(nc: c_int, var: c_int, name: &str) -> String {
    let n = CString::new(name).unwrap();
    let (mut t, mut len) = (0, 0);
    assert_eq!(nc_inq_att(nc, var, n.as_ptr(), &mut t, &mut len), 0, "{name}");
    assert_eq!(t, NC_CHAR, "{name}");
    let mut buf = vec![0u8; len];
    assert_eq!(nc_get_att_text(nc, var, n.as_ptr(), buf.as_mut_ptr() as *mut c_char), 0, "{name}");
    String::from_utf8(buf).unwrap()
}

/// Issue 27, point 3: a `char` attribute netCDF-C stored as JSON reads back
/// as netCDF-C (4.10.1 and 4.9.0) reads it: its number tokens as written
/// (`1.50`, `1e3`, `-0.0`, integers past 64 bits), in netCDF-C's layout;
/// and a rewrite of the `.zattrs` keeps them.
#[test]
fn json_attribute_text_is_kept_as_written() {
    // the .zattrs netCDF-C 4.10.1 (the wheel) writes for
    // ds.j1 = '{"k": "v", "n": null, "f": 1.50}' and the like
    new_store(
        "jsontext",
        &[
            (".zgroup", r#"{"zarr_format": 2}"#),
            (
                ".zattrs",
                r#"{"j1": {"k": "v", "n": null, "f": 1.50}, "j2": {"a": {"b": [1,2.50,1e3,-0.0,12345678901234567890123]}, "c": true}, "j3": [1.50,2], "j4": [{"x": 1.0}], "_NCProperties": "version=2,netcdf=4.10.1,nczarr=2.0.0", "_nczarr_group": {"dimensions": {}, "arrays": [], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"j1": ">S1", "j2": ">S1", "j3": ">S1", "j4": ">S1", "_NCProperties": ">S1", "_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
            ),
        ],
    );
    let want = [
        ("j1", r#"{"k": "v", "n": null, "f": 1.50}"#),
        ("j2", r#"{"a": {"b": [1,2.50,1e3,-0.0,12345678901234567890123]}, "c": true}"#),
        ("j3", "[1.50,2]"),
        ("j4", r#"[{"x": 1.0}]"#),
    ];
    unsafe {
        let mut nc = 0;
        assert_eq!(nc_open(url("jsontext").as_ptr(), NC_WRITE, &mut nc), 0);
        for (name, text) in want {
            assert_eq!(att_text(nc, NC_GLOBAL, name), text);
        }
        // another attribute: the .zattrs is written again, these untouched
        assert_eq!(nc_put_att_text(nc, NC_GLOBAL, c"added".as_ptr(), 1, c"x".as_ptr()), 0);
        assert_eq!(nc_close(nc), 0);
        let root = object("jsontext", ".zattrs");
        for (name, text) in want {
            assert!(root.contains(&format!(r#""{name}": {text}"#)), "{name} in {root}");
        }
        assert_eq!(nc_open(url("jsontext").as_ptr(), NC_NOWRITE, &mut nc), 0);
        for (name, text) in want {
            assert_eq!(att_text(nc, NC_GLOBAL, name), text, "after the rewrite");
        }
        assert_eq!(nc_close(nc), 0);

        // pure Zarr written by hand (or zarr-python's indented .zattrs):
        // netCDF-C's layout, the number tokens as written
        new_store(
            "jsontextzarr",
            &[
                (".zgroup", r#"{"zarr_format": 2}"#),
                (".zattrs", "{\n  \"j1\": {\"k\":\"v\",  \"f\" : 1.50},\n  \"j2\": [ 1.50 , {\"x\":1E+3} ]\n}"),
            ],
        );
        let path = CString::new("mem://parity/jsontextzarr#mode=zarr").unwrap();
        assert_eq!(nc_open(path.as_ptr(), NC_NOWRITE, &mut nc), 0);
        assert_eq!(att_text(nc, NC_GLOBAL, "j1"), r#"{"k": "v", "f": 1.50}"#);
        assert_eq!(att_text(nc, NC_GLOBAL, "j2"), r#"[1.50,{"x": 1E+3}]"#);
        assert_eq!(nc_close(nc), 0);
    }
}

/// Dispatcher answers that differed from netCDF-C's NCZarr (issue 11,
/// "everything else NCZ_dispatcher implements").
#[test]
fn dispatcher_answers_as_netcdf_c() {
    unsafe {
        let (nc, _x, v) = dataset_with_var("dispatcher", 4, NC_INT);
        let mut s = 0;
        assert_eq!(nc_def_var(nc, c"s".as_ptr(), NC_DOUBLE, 0, std::ptr::null(), &mut s), NC_NOERR);
        // NCZ_def_var_chunking: no storage setting applies to a scalar.
        assert_eq!(nc_def_var_chunking(nc, s, NC_CHUNKED, std::ptr::null()), NC_EINVAL);
        assert_eq!(nc_def_var_chunking(nc, s, NC_CONTIGUOUS, std::ptr::null()), NC_EINVAL);
        assert_eq!(nc_def_var_chunking(nc, v, NC_CHUNKED, [2usize].as_ptr()), NC_NOERR);
        // NC4_inq_user_type: atomic types are not user types.
        let mut size = 0usize;
        assert_eq!(
            nczarr_rs::ffi::compat::nc_inq_user_type(
                nc,
                NC_INT,
                std::ptr::null_mut(),
                &mut size,
                std::ptr::null_mut(),
                std::ptr::null_mut(),
                std::ptr::null_mut()
            ),
            NC_EBADTYPE
        );
        // NCZ_inq_filter_avail: ids outside HDF5's range are NC_EINVAL.
        assert_eq!(nc_inq_filter_avail(nc, 99999), NC_EINVAL);
        assert_eq!(nc_inq_filter_avail(nc, 0), NC_EINVAL);
        assert_eq!(nc_inq_filter_avail(nc, 12345), NC_ENOFILTER);
        assert_eq!(nc_inq_filter_avail(nc, 1), NC_NOERR);
        assert_eq!(nc_close(nc), NC_NOERR);
    }
}
