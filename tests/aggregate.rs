//! Aggregated variables through the C API (docs/AGGREGATION.md): NCA 0.1
//! with in-file private partitions (reordered, reversed, `part`, units
//! through UDUNITS-2), CF-1.13 with Zarr fragments and relative URIs,
//! `varm` over partitions, the raw view, hidden variables, validation
//! errors that name the partition, and hostile metadata (never a crash).
//! The cf-python comparisons are in tests/interop/aggregation.py.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::error::*;
use nczarr_rs::ffi::atts::*;
use nczarr_rs::ffi::data::*;
use nczarr_rs::ffi::files::*;
use nczarr_rs::ffi::library::nczarr_rs_last_error;
use nczarr_rs::ffi::vars::*;
use std::ffi::{CStr, CString};
use std::os::raw::{c_char, c_int};
use std::path::Path;

fn last_error() -> String {
    unsafe { CStr::from_ptr(nczarr_rs_last_error()) }.to_str().unwrap().to_string()
}

fn cs(s: &str) -> CString {
    CString::new(s).unwrap()
}

/// Writes a dataset with the C API: `define` runs in define mode, `fill`
/// after `nc_enddef`.
fn write(path: &Path, define: impl FnOnce(c_int), fill: impl FnOnce(c_int)) {
    write_url(&format!("file://{}#mode=nczarr,file", path.display()), define, fill)
}

fn write_url(url: &str, define: impl FnOnce(c_int), fill: impl FnOnce(c_int)) {
    let url = cs(url);
    let mut nc = 0;
    unsafe {
        assert_eq!(nc_create(url.as_ptr(), NC_CLOBBER, &mut nc), 0, "{}", last_error());
    }
    define(nc);
    assert_eq!(nc_enddef(nc), 0, "{}", last_error());
    fill(nc);
    assert_eq!(nc_close(nc), 0, "{}", last_error());
}

fn dim(nc: c_int, name: &str, len: usize) -> c_int {
    let mut d = 0;
    assert_eq!(unsafe { nc_def_dim(nc, cs(name).as_ptr(), len, &mut d) }, 0);
    d
}

fn var(nc: c_int, name: &str, t: i32, dims: &[c_int]) -> c_int {
    let mut v = 0;
    assert_eq!(
        unsafe { nc_def_var(nc, cs(name).as_ptr(), t, dims.len() as c_int, dims.as_ptr(), &mut v) },
        0,
        "{}",
        last_error()
    );
    v
}

fn text(nc: c_int, v: c_int, name: &str, value: &str) {
    assert_eq!(unsafe { nc_put_att_text(nc, v, cs(name).as_ptr(), value.len(), value.as_ptr() as *const c_char) }, 0);
}

fn varid(nc: c_int, name: &str) -> c_int {
    let mut v = -1;
    let rc = unsafe { nc_inq_varid(nc, cs(name).as_ptr(), &mut v) };
    if rc == 0 {
        v
    } else {
        rc
    }
}

fn open(path: &Path, modes: &str) -> c_int {
    let url = cs(&format!("file://{}#mode=nczarr,file{modes}", path.display()));
    let mut nc = 0;
    assert_eq!(unsafe { nc_open(url.as_ptr(), NC_NOWRITE, &mut nc) }, 0, "{}", last_error());
    nc
}

fn shape(nc: c_int, v: c_int) -> Vec<usize> {
    let mut nd = 0;
    let mut dims = [0 as c_int; 8];
    unsafe {
        assert_eq!(nc_inq_varndims(nc, v, &mut nd), 0);
        assert_eq!(nc_inq_vardimid(nc, v, dims.as_mut_ptr()), 0);
    }
    (0..nd as usize)
        .map(|i| {
            let mut n = 0;
            assert_eq!(unsafe { nc_inq_dimlen(nc, dims[i], &mut n) }, 0);
            n
        })
        .collect()
}

fn get_all(nc: c_int, v: c_int, n: usize) -> Result<Vec<f64>, (c_int, String)> {
    let mut b = vec![0f64; n];
    match unsafe { nc_get_var_double(nc, v, b.as_mut_ptr()) } {
        0 => Ok(b),
        rc => Err((rc, last_error())),
    }
}

/// Fills CF fragment array variables: (name, values) of the map, the URIs
/// and the one identifier.
fn fragment_arrays(nc: c_int, map: (&str, &[i32]), uris: (&str, &[&CStr]), id: (&str, &CStr)) {
    let u: Vec<*const c_char> = uris.1.iter().map(|s| s.as_ptr()).collect();
    let i = [id.1.as_ptr()];
    unsafe {
        assert_eq!(nc_put_var_int(nc, varid(nc, map.0), map.1.as_ptr()), 0);
        assert_eq!(nc_put_var_string(nc, varid(nc, uris.0), u.as_ptr() as *mut *const c_char), 0);
        assert_eq!(nc_put_var_string(nc, varid(nc, id.0), i.as_ptr() as *mut *const c_char), 0);
    }
}

/// The NCA 0.1 master array of these tests: time 6 x lat 4 x lon 5.
fn master(t: usize, y: usize, x: usize) -> f64 {
    (t * 100 + y * 10 + x) as f64
}

/// An NCA store: `tas(time, lat, lon)` from two in-file partitions; the
/// first is stored (lon, time, lat), time reversed, in `K @ 273.15`, and
/// only part of its sub-array is used.
fn nca_store(dir: &Path, nca_array: Option<&str>) -> std::path::PathBuf {
    let path = dir.join("nca.zarr");
    let json = nca_array.map(str::to_string).unwrap_or_else(|| {
        "{'directions': {'time': true, 'lat': true, 'lon': true}, 'pdimensions': ['time'], 'pshape': [2], \
         'Partitions': [\
          {'index': [0], 'location': [[0, 2], [0, 4], [0, 5]], 'units': 'K @ 273.15', \
           'dimensions': ['lon', 'time', 'lat'], 'directions': {'time': False}, \
           'part': '[(0, 5, 1), (1, 3, 1), [0, 1, 2, 3]]', \
           'data': {'shape': [5, 3, 4], 'ncvar': 'p0'}}, \
          {'index': [1], 'location': [[2, 6], [0, 4], [0, 5]], 'data': {'shape': [4, 4, 5], 'ncvar': 'p1'}}]}"
            .to_string()
    });
    write(
        &path,
        |nc| {
            let (t, y, x) = (dim(nc, "time", 6), dim(nc, "lat", 4), dim(nc, "lon", 5));
            let (a, b, c, d) = (dim(nc, "n5", 5), dim(nc, "n3", 3), dim(nc, "n4", 4), dim(nc, "m4", 4));
            let _ = (t, y, x);
            let tas = var(nc, "tas", NC_FLOAT, &[]);
            text(nc, tas, "units", "K");
            text(nc, tas, "standard_name", "air_temperature");
            text(nc, tas, "nca_dimensions", "time lat lon");
            text(nc, tas, "nca_array", &json);
            for (name, dims) in [("p0", vec![a, b, c]), ("p1", vec![d, c, a])] {
                let p = var(nc, name, NC_DOUBLE, &dims);
                let one = 1;
                assert_eq!(unsafe { nc_put_att_int(nc, p, c"nca_private".as_ptr(), NC_INT, 1, &one) }, 0);
            }
        },
        |nc| {
            // p0[lon][k][lat]: sub-array index k = 1 + data index; data
            // time runs backwards: data index 0 is master time 1
            let mut p0 = vec![-1.0; 5 * 3 * 4];
            for x in 0..5 {
                for k in 1..3 {
                    for y in 0..4 {
                        let t = 1 - (k - 1);
                        p0[(x * 3 + k) * 4 + y] = master(t, y, x) - 273.15;
                    }
                }
            }
            let mut p1 = vec![0.0; 4 * 4 * 5];
            for t in 0..4 {
                for y in 0..4 {
                    for x in 0..5 {
                        p1[(t * 4 + y) * 5 + x] = master(t + 2, y, x);
                    }
                }
            }
            unsafe {
                assert_eq!(nc_put_var_double(nc, varid(nc, "p0"), p0.as_ptr()), 0);
                assert_eq!(nc_put_var_double(nc, varid(nc, "p1"), p1.as_ptr()), 0);
            }
        },
    );
    path
}

#[test]
fn nca_in_file_partitions_conformed() {
    let dir = tempfile::tempdir().unwrap();
    let path = nca_store(dir.path(), None);
    let nc = open(&path, "");
    let tas = varid(nc, "tas");
    assert!(tas >= 0);
    assert_eq!(shape(nc, tas), vec![6, 4, 5]);
    assert_eq!(varid(nc, "p0"), NC_ENOTVAR, "private partitions are hidden");
    let mut ndims = 0;
    assert_eq!(unsafe { nc_inq_ndims(nc, &mut ndims) }, 0);
    assert_eq!(ndims, 3, "the private dimensions are hidden");
    let mut len = 0;
    assert_eq!(unsafe { nc_inq_attlen(nc, tas, c"nca_array".as_ptr(), &mut len) }, NC_ENOTATT);
    let all = get_all(nc, tas, 120).unwrap();
    for t in 0..6 {
        for y in 0..4 {
            for x in 0..5 {
                let got = all[(t * 4 + y) * 5 + x];
                assert!((got - master(t, y, x)).abs() < 1e-3, "({t},{y},{x}): {got}");
            }
        }
    }
    // vars across the partition boundary, and varm (transposed)
    let (s, c, st) = ([1usize, 1, 0], [3usize, 2, 3], [2isize, 2, 2]);
    let mut b = vec![0f64; 18];
    assert_eq!(unsafe { nc_get_vars_double(nc, tas, s.as_ptr(), c.as_ptr(), st.as_ptr(), b.as_mut_ptr()) }, 0);
    for i in 0..3 {
        for j in 0..2 {
            for k in 0..3 {
                assert!((b[(i * 2 + j) * 3 + k] - master(1 + 2 * i, 1 + 2 * j, 2 * k)).abs() < 1e-3);
            }
        }
    }
    let (s, c, st, m) = ([0usize, 0, 0], [6usize, 4, 5], [1isize, 1, 1], [1isize, 6, 24]);
    let mut tr = vec![0f64; 120];
    assert_eq!(
        unsafe { nc_get_varm_double(nc, tas, s.as_ptr(), c.as_ptr(), st.as_ptr(), m.as_ptr(), tr.as_mut_ptr()) },
        0
    );
    for t in 0..6 {
        for y in 0..4 {
            for x in 0..5 {
                assert!((tr[t + 6 * y + 24 * x] - master(t, y, x)).abs() < 1e-3);
            }
        }
    }
    // nc_get_var1 and a type conversion with NC_ERANGE
    let idx = [5usize, 3, 4];
    let mut one = 0f32;
    assert_eq!(unsafe { nc_get_var1_float(nc, tas, idx.as_ptr(), &mut one) }, 0);
    assert_eq!(one as f64, master(5, 3, 4));
    let mut small = vec![0i8; 120];
    assert_eq!(unsafe { nc_get_var_schar(nc, tas, small.as_mut_ptr()) }, NC_ERANGE);
    assert_eq!(nc_close(nc), 0);

    // the raw view: the scalar as stored, and its private variables
    let raw = open(&path, ",noaggregate");
    assert_eq!(shape(raw, varid(raw, "tas")), Vec::<usize>::new());
    assert!(varid(raw, "p0") >= 0);
    assert_eq!(unsafe { nc_inq_attlen(raw, varid(raw, "tas"), c"nca_array".as_ptr(), &mut len) }, 0);
    assert_eq!(nc_close(raw), 0);
}

#[test]
fn nca_validation_names_the_partition() {
    let dir = tempfile::tempdir().unwrap();
    let cases = [
        // a gap along time
        ("{'Partitions': [{'index': [0], 'location': [[0, 2], [0, 4], [0, 5]], 'data': {'ncvar': 'p1'}}, \
           {'index': [1], 'location': [[3, 6], [0, 4], [0, 5]], 'data': {'ncvar': 'p1'}}]}", "gap"),
        // a shape that disagrees with the variable
        ("{'Partitions': [{'index': [0], 'location': [[0, 2], [0, 4], [0, 5]], 'data': {'ncvar': 'p1', 'shape': [2, 4, 5]}}, \
           {'index': [1], 'location': [[2, 6], [0, 4], [0, 5]], 'data': {'ncvar': 'p1'}}]}", "partition 0 (index [0]): the metadata give shape [2, 4, 5]"),
        // units that do not convert
        ("{'Partitions': [{'index': [0], 'location': [[0, 2], [0, 4], [0, 5]], 'units': 'm', 'part': '[(0, 2), (0, 4), (0, 5)]', 'data': {'ncvar': 'p1'}}, \
           {'index': [1], 'location': [[2, 6], [0, 4], [0, 5]], 'part': '[(0, 4), (0, 4), (0, 5)]', 'data': {'ncvar': 'p1'}}]}", "cannot be converted"),
        // a part index outside the sub-array
        ("{'Partitions': [{'index': [0], 'location': [[0, 6], [0, 4], [0, 5]], 'part': '[[0, 1, 2, 3, 4, 9], (0, 4), (0, 5)]', 'data': {'ncvar': 'p1'}}]}", "outside"),
        ("{'Partitions': [{'index': [0], 'location': [[0, 6], [0, 4], [0, 5]], 'data': {'file': 'missing.nc', 'ncvar': 'x'}}]}", "missing.nc"),
        ("{'Partitions': [", "malformed JSON at byte"),
    ];
    for (json, words) in cases {
        let path = nca_store(dir.path(), Some(json));
        let nc = open(&path, "");
        let tas = varid(nc, "tas");
        let err = get_all(nc, tas, 120).unwrap_err();
        assert!(err.1.contains(words), "{json}: {err:?}");
        assert_eq!(nc_close(nc), 0);
    }
}

/// A CF-1.13 aggregation of two Zarr fragments (relative URIs), one in degC.
#[test]
fn cf_1_13_zarr_fragments_and_units() {
    let dir = tempfile::tempdir().unwrap();
    for (name, units, vals) in [("a.zarr", "K", vec![270.0, 271.0, 272.0]), ("b.zarr", "degC", vec![0.0, 1.5])] {
        write(
            &dir.path().join(name),
            |nc| {
                let d = dim(nc, "n", vals.len());
                let v = var(nc, "ta", NC_DOUBLE, &[d]);
                text(nc, v, "units", units);
            },
            |nc| assert_eq!(unsafe { nc_put_var_double(nc, varid(nc, "ta"), vals.as_ptr()) }, 0),
        );
    }
    let path = dir.path().join("agg.zarr");
    write(
        &path,
        |nc| {
            let t = dim(nc, "time", 5);
            let (j, i, f) = (dim(nc, "j", 1), dim(nc, "i", 2), dim(nc, "f", 2));
            let _ = t;
            let m = var(nc, "fragment_map", NC_INT, &[j, i]);
            let _ = m;
            var(nc, "fragment_uris", NC_STRING, &[f]);
            var(nc, "fragment_ids", NC_STRING, &[]);
            let ta = var(nc, "ta", NC_FLOAT, &[]);
            text(nc, ta, "units", "K");
            text(nc, ta, "aggregated_dimensions", "time");
            text(nc, ta, "aggregated_data", "map: fragment_map uris: fragment_uris identifiers: fragment_ids");
        },
        |nc| {
            fragment_arrays(
                nc,
                ("fragment_map", &[3, 2]),
                ("fragment_uris", &[c"a.zarr", c"b.zarr"]),
                ("fragment_ids", c"/ta"),
            )
        },
    );
    let nc = open(&path, "");
    let ta = varid(nc, "ta");
    assert_eq!(shape(nc, ta), vec![5]);
    for h in ["fragment_map", "fragment_uris", "fragment_ids"] {
        assert_eq!(varid(nc, h), NC_ENOTVAR);
    }
    let all = get_all(nc, ta, 5).unwrap();
    let want = [270.0, 271.0, 272.0, 273.15, 274.65];
    for (g, w) in all.iter().zip(want) {
        assert!((g - w).abs() < 1e-4, "{all:?}");
    }
    assert_eq!(nc_close(nc), 0);
}

/// The write API: both forms written with `nczarr_rs_def_var_aggregated`
/// read back as the master array; define mode is kept; bad tilings and
/// counts are `NC_EINVAL`.
#[test]
fn written_aggregations_read_back() {
    use nczarr_rs::ffi::aggregate::*;
    let dir = tempfile::tempdir().unwrap();
    // fragments: 2 x 2 tiles of a 5 x 4 master array, values 10 * row + col
    let tile = |name: &str, rows: std::ops::Range<usize>, cols: std::ops::Range<usize>| {
        write(
            &dir.path().join(name),
            |nc| {
                let y = dim(nc, "y", rows.len());
                let x = dim(nc, "x", cols.len());
                var(nc, "tas", NC_DOUBLE, &[y, x]);
            },
            |nc| {
                let vals: Vec<f64> =
                    rows.clone().flat_map(|r| cols.clone().map(move |c| (10 * r + c) as f64)).collect();
                assert_eq!(unsafe { nc_put_var_double(nc, varid(nc, "tas"), vals.as_ptr()) }, 0);
            },
        )
    };
    tile("t00.zarr", 0..3, 0..1);
    tile("t01.zarr", 0..3, 1..4);
    tile("t10.zarr", 3..5, 0..1);
    tile("t11.zarr", 3..5, 1..4);
    let uris = [c"t00.zarr", c"t01.zarr", c"t10.zarr", c"t11.zarr"];
    let uri_ptrs: Vec<*const c_char> = uris.iter().map(|s| s.as_ptr()).collect();
    let ident = [c"tas".as_ptr()];
    for (store, form) in [("cf.zarr", NCZARR_RS_AGGREGATION_CF), ("nca.zarr", NCZARR_RS_AGGREGATION_NCA)] {
        let path = dir.path().join(store);
        let url = cs(&format!("file://{}#mode=nczarr,file", path.display()));
        let mut nc = 0;
        unsafe { assert_eq!(nc_create(url.as_ptr(), NC_CLOBBER, &mut nc), 0) };
        let (y, x) = (dim(nc, "y", 5), dim(nc, "x", 4));
        let dims = [y, x];
        let def = |counts: &[usize], sizes: &[usize], nids: usize, form: c_int| {
            let mut v = -1;
            let rc = unsafe {
                nczarr_rs_def_var_aggregated(
                    nc,
                    c"tas".as_ptr(),
                    NC_FLOAT,
                    2,
                    dims.as_ptr(),
                    counts.as_ptr(),
                    sizes.as_ptr(),
                    uri_ptrs.as_ptr(),
                    nids,
                    ident.as_ptr(),
                    form,
                    &mut v,
                )
            };
            (rc, v)
        };
        // sizes that do not tile, a wrong identifier count, an unknown form
        assert_eq!(def(&[2, 2], &[3, 1, 1, 3], 1, form).0, NC_EINVAL);
        assert_eq!(def(&[2, 2], &[3, 2, 1, 3], 2, form).0, NC_EINVAL);
        assert_eq!(def(&[2, 2], &[3, 2, 1, 3], 1, 7).0, NC_EINVAL);
        let (rc, v) = def(&[2, 2], &[3, 2, 1, 3], 1, form);
        assert_eq!(rc, 0, "{}", last_error());
        text(nc, v, "units", "K");
        // still in define mode: another variable, then enddef
        var(nc, "other", NC_INT, &[x]);
        assert_eq!(nc_enddef(nc), 0, "{}", last_error());
        assert_eq!(nc_close(nc), 0, "{}", last_error());
        let nc = open(&path, "");
        let tas = varid(nc, "tas");
        assert_eq!(shape(nc, tas), vec![5, 4], "{store}");
        let want: Vec<f64> = (0..5).flat_map(|r| (0..4).map(move |c| (10 * r + c) as f64)).collect();
        assert_eq!(get_all(nc, tas, 20).unwrap(), want, "{store}");
        assert!(varid(nc, "other") >= 0);
        assert_eq!(nc_close(nc), 0);
    }
}

/// An aggregation in a zip image opened with `nc_open_mem`: its fragments
/// are found relative to the name the image is opened under.
#[test]
fn cf_1_13_in_memory_image() {
    let dir = tempfile::tempdir().unwrap();
    write(
        &dir.path().join("a.zarr"),
        |nc| {
            let d = dim(nc, "n", 3);
            var(nc, "ta", NC_DOUBLE, &[d]);
        },
        |nc| assert_eq!(unsafe { nc_put_var_double(nc, varid(nc, "ta"), [1.0, 2.0, 3.0].as_ptr()) }, 0),
    );
    let zip = dir.path().join("agg.zip");
    write_url(
        &format!("file://{}#mode=nczarr,zip", zip.display()),
        |nc| {
            dim(nc, "time", 3);
            let (j, i, f) = (dim(nc, "j", 1), dim(nc, "i", 1), dim(nc, "f", 1));
            var(nc, "fragment_map", NC_INT, &[j, i]);
            var(nc, "fragment_uris", NC_STRING, &[f]);
            var(nc, "fragment_ids", NC_STRING, &[]);
            let ta = var(nc, "ta", NC_DOUBLE, &[]);
            text(nc, ta, "aggregated_dimensions", "time");
            text(nc, ta, "aggregated_data", "map: fragment_map uris: fragment_uris identifiers: fragment_ids");
        },
        |nc| fragment_arrays(nc, ("fragment_map", &[3]), ("fragment_uris", &[c"a.zarr"]), ("fragment_ids", c"/ta")),
    );
    let mut image = std::fs::read(&zip).unwrap();
    let open_mem = |name: &Path, image: &mut Vec<u8>| {
        let mut nc = 0;
        let name = cs(&name.display().to_string());
        let rc = unsafe {
            nczarr_rs::ffi::mem::nc_open_mem(name.as_ptr(), NC_NOWRITE, image.len(), image.as_mut_ptr().cast(), &mut nc)
        };
        assert_eq!(rc, 0, "{}", last_error());
        nc
    };
    // under its own name: the fragment beside it
    let nc = open_mem(&zip, &mut image);
    let ta = varid(nc, "ta");
    assert_eq!(shape(nc, ta), vec![3]);
    assert_eq!(get_all(nc, ta, 3).unwrap(), vec![1.0, 2.0, 3.0]);
    assert_eq!(nc_close(nc), 0);
    // under a name elsewhere: no fragment there, a clear error on read
    let other = tempfile::tempdir().unwrap();
    let nc = open_mem(&other.path().join("agg.zip"), &mut image);
    let ta = varid(nc, "ta");
    let (rc, why) = get_all(nc, ta, 3).unwrap_err();
    assert_ne!(rc, 0);
    assert!(why.contains("a.zarr"), "{why}");
    assert_eq!(nc_close(nc), 0);
}

/// A status a call on hostile input may return: success, or a netCDF error
/// other than `NC_EINTERNAL` (a caught panic), with a message.
fn netcdf_status(rc: c_int, input: &str) {
    if rc != NC_NOERR {
        let why = last_error();
        assert!(rc != NC_EINTERNAL && error_text(rc) != "Unknown Error", "status {rc} ({why}) on {input}");
        assert!(!why.is_empty(), "status {rc} without a message on {input}");
    }
}

/// Mutated aggregation metadata: every call returns a netCDF status, none
/// crashes or reads out of bounds.
#[test]
fn hostile_nca_arrays() {
    let dir = tempfile::tempdir().unwrap();
    let base = "{'directions': {'time': true}, 'Partitions': [{'index': [0], 'location': [[0, 6], [0, 4], [0, 5]], \
                'dimensions': ['time', 'lat', 'lon'], 'part': '[(0, 4), (0, 4, 1), [0, 1, 2, 3, 4]]', \
                'data': {'shape': [4, 4, 5], 'ncvar': 'p1'}}]}";
    let mut seed = 0x2545f4914f6cdd1du64;
    let mut next = || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let pieces =
        ["[", "]", "{", "}", "'", ",", "-1", "99999999999999999999", "0", "(", ")", "None", "'time'", "1e308", ":"];
    for _ in 0..60 {
        let mut s: Vec<char> = base.chars().collect();
        for _ in 0..(1 + next() % 4) {
            let at = (next() as usize) % s.len();
            let p = pieces[(next() as usize) % pieces.len()];
            if next() % 2 == 0 {
                s.remove(at);
            }
            for (k, c) in p.chars().enumerate() {
                s.insert(at + k, c);
            }
        }
        let json: String = s.into_iter().collect();
        let path = nca_store(dir.path(), Some(&json));
        let nc = open(&path, "");
        let tas = varid(nc, "tas");
        if tas >= 0 {
            let rc = get_all(nc, tas, 120).err().map_or(NC_NOERR, |e| e.0);
            netcdf_status(rc, &json);
            let (st, c) = ([1usize, 0, 2], [2usize, 3, 2]);
            let mut b = vec![0f64; 12];
            let rc = unsafe { nc_get_vara_double(nc, tas, st.as_ptr(), c.as_ptr(), b.as_mut_ptr()) };
            netcdf_status(rc, &json);
        }
        assert_eq!(nc_close(nc), 0);
    }
}

/// Malformed CF-1.13 fragment arrays: each read is an error with a
/// message, never a crash.
#[test]
fn hostile_cf_fragment_arrays() {
    let dir = tempfile::tempdir().unwrap();
    // (map values, map rows x columns, aggregated_data, aggregated_dimensions, words in the error)
    type Case<'a> = (&'a [i32], (usize, usize), &'a str, &'a str, &'a str);
    let cases: &[Case] = &[
        (&[3, 2], (1, 2), "map: m uris: u identifiers: i", "time", ""),
        (&[-3, 8], (1, 2), "map: m uris: u identifiers: i", "time", "fragment size"),
        (&[i32::MAX, i32::MAX], (1, 2), "map: m uris: u identifiers: i", "time", "add up to"),
        (&[5, 0], (1, 2), "map: m uris: u identifiers: i", "time", "size 0"),
        (&[3, 2], (1, 2), "map: m uris: nothere identifiers: i", "time", "nothere"),
        (&[3, 2], (1, 2), "map: m uris: u", "time", "identifiers"),
        // a master dimension no group defines is implied by the map (pure
        // Zarr has no other place for it): well formed, fragments missing
        (&[3, 2], (1, 2), "map: m uris: u identifiers: i", "nodim", "x.zarr"),
        (&[3, 2], (1, 2), "map: m uris: u identifiers: i", "time nodim", "nodim"),
        (&[3, 2], (1, 2), "map: uris: u", "time", "no variable"),
        (&[5], (1, 1), "map: m uris: u identifiers: i", "time", "not the fragment array's [1]"),
        (&[3, 2, 1, 1], (2, 2), "map: m uris: u identifiers: i", "time", "2 rows"),
        (&[3, 2], (1, 2), "map: i uris: u identifiers: i", "time", "strings"),
        (&[3, 2], (1, 2), "map: m uris: m identifiers: i", "time", "not strings"),
    ];
    for (n, (map, (r, c), data, dims, words)) in cases.iter().enumerate() {
        let path = dir.path().join(format!("h{n}.zarr"));
        write(
            &path,
            |nc| {
                dim(nc, "time", 5);
                let (j, i, f) = (dim(nc, "j", *r), dim(nc, "i", *c), dim(nc, "f", 2));
                var(nc, "m", NC_INT, &[j, i]);
                var(nc, "u", NC_STRING, &[f]);
                var(nc, "i", NC_STRING, &[]);
                let a = var(nc, "a", NC_DOUBLE, &[]);
                text(nc, a, "aggregated_dimensions", dims);
                text(nc, a, "aggregated_data", data);
            },
            |nc| fragment_arrays(nc, ("m", *map), ("u", &[c"x.zarr", c"y.zarr"]), ("i", c"v")),
        );
        let nc = open(&path, "");
        let a = varid(nc, "a");
        let err = get_all(nc, a, 5).unwrap_err();
        // the first case is well formed: its fragments are missing
        let words = if words.is_empty() { "x.zarr" } else { words };
        assert!(err.1.contains(words), "case {n}: {err:?}");
        assert_eq!(nc_close(nc), 0);
    }
}

/// `nczarr-rs-aggregate` (engine `aggregate::tool`) on Zarr stores that
/// grow along an unlimited dimension: the default dimension, the data
/// variable aggregated, the coordinate concatenated, the others copied;
/// both forms read back; inputs that disagree name the input.
#[test]
fn aggregation_builder() {
    use nczarr_rs::engine::aggregate::tool::{aggregate, Options};
    use nczarr_rs::engine::aggregate::write::Form;
    let dir = tempfile::tempdir().unwrap();
    let lens = [2usize, 3, 1];
    let mut inputs = Vec::new();
    let mut t0 = 0;
    for (k, &n) in lens.iter().enumerate() {
        let path = dir.path().join(format!("in{k}.zarr"));
        write(
            &path,
            |nc| {
                let t = dim(nc, "time", NC_UNLIMITED as usize);
                let x = dim(nc, "x", 4);
                let tv = var(nc, "time", NC_DOUBLE, &[t]);
                text(nc, tv, "units", "days since 2000-01-01");
                var(nc, "x", NC_DOUBLE, &[x]);
                let v = var(nc, "tas", NC_DOUBLE, &[t, x]);
                text(nc, v, "units", "K");
                // text, with the dimension second: concatenated along it
                var(nc, "code", NC_CHAR, &[x, t]);
            },
            |nc| unsafe {
                let time: Vec<f64> = (t0..t0 + n).map(|i| i as f64).collect();
                let tas: Vec<f64> = (t0..t0 + n).flat_map(|i| (0..4).map(move |j| (10 * i + j) as f64)).collect();
                let (s, c) = ([0usize, 0], [n, 4]);
                assert_eq!(nc_put_vara_double(nc, varid(nc, "time"), s.as_ptr(), c.as_ptr(), time.as_ptr()), 0);
                assert_eq!(nc_put_vara_double(nc, varid(nc, "tas"), s.as_ptr(), c.as_ptr(), tas.as_ptr()), 0);
                assert_eq!(nc_put_var_double(nc, varid(nc, "x"), [0.5, 1.5, 2.5, 3.5].as_ptr()), 0);
                let code: Vec<u8> = (0..4u8).flat_map(|j| (t0..t0 + n).map(move |i| b'0' + 8 * j + i as u8)).collect();
                let (s, c) = ([0usize, 0], [4, n]);
                assert_eq!(nc_put_vara_text(nc, varid(nc, "code"), s.as_ptr(), c.as_ptr(), code.as_ptr().cast()), 0);
            },
        );
        t0 += n;
        inputs.push(path.display().to_string());
    }
    let want: Vec<f64> = (0..6).flat_map(|i| (0..4).map(move |j| (10 * i + j) as f64)).collect();
    for form in [Form::Cf113, Form::Nca01] {
        let out = dir.path().join(format!("agg{form:?}.zarr"));
        let opts = Options { dim: None, form, absolute: false };
        let s = aggregate(&out.display().to_string(), &inputs, &opts).unwrap();
        assert_eq!((s.dim.as_str(), s.length), ("time", 6));
        assert_eq!(
            (s.aggregated, s.concatenated, s.copied),
            (vec!["tas".to_string()], vec!["time".into(), "code".into()], vec!["x".into()])
        );
        let nc = open(&out, "");
        let tas = varid(nc, "tas");
        assert_eq!(shape(nc, tas), vec![6, 4], "{form:?}");
        assert_eq!(get_all(nc, tas, 24).unwrap(), want, "{form:?}");
        let mut code = [0u8; 24];
        assert_eq!(unsafe { nc_get_var_text(nc, varid(nc, "code"), code.as_mut_ptr().cast()) }, 0);
        let want_code: Vec<u8> = (0..4u8).flat_map(|j| (0..6u8).map(move |i| b'0' + 8 * j + i)).collect();
        assert_eq!(code.to_vec(), want_code, "{form:?}: the text variable, concatenated along its second dimension");
        assert_eq!(get_all(nc, varid(nc, "time"), 6).unwrap(), vec![0.0, 1.0, 2.0, 3.0, 4.0, 5.0]);
        assert_eq!(get_all(nc, varid(nc, "x"), 4).unwrap(), vec![0.5, 1.5, 2.5, 3.5]);
        assert_eq!(nc_close(nc), 0);
    }
    // an input whose other dimension differs
    let odd = dir.path().join("odd.zarr");
    write(
        &odd,
        |nc| {
            let t = dim(nc, "time", 1);
            let x = dim(nc, "x", 5);
            var(nc, "tas", NC_DOUBLE, &[t, x]);
        },
        |_| {},
    );
    let mut bad = inputs.clone();
    bad.push(odd.display().to_string());
    let opts = Options { dim: None, form: Form::Cf113, absolute: false };
    let e = aggregate(&dir.path().join("bad.zarr").display().to_string(), &bad, &opts).unwrap_err();
    assert_eq!(e.code(), NC_EINVAL);
    assert!(e.detail().unwrap_or_default().contains("odd.zarr"), "{e:?}");
    // no unlimited dimension and none named
    let e = aggregate(&dir.path().join("bad2.zarr").display().to_string(), &[odd.display().to_string()], &opts)
        .unwrap_err();
    assert!(e.detail().unwrap_or_default().contains("name the aggregation dimension"), "{e:?}");
}
