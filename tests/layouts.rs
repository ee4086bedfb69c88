//! Every on-disk layout netCDF-C has written is read correctly, and
//! malformed metadata gives a netCDF error, never a panic.

use nczarr_rs::engine::consts::*;
use nczarr_rs::engine::data::MemIn;
use nczarr_rs::engine::error::*;
use nczarr_rs::engine::file;
use nczarr_rs::engine::format::DatasetDriver;
use nczarr_rs::engine::model::{Dataset, NczarrLayout};
use nczarr_rs::engine::types::Values;
use nczarr_rs::map::{Driver, StoreKey};

/// A fresh in-memory store holding `objects` (key, content).
fn store(name: &str, objects: &[(&str, &str)]) -> String {
    let s = Driver::Memory.create(&format!("mem://layouts/{name}"), true).unwrap();
    for (k, v) in objects {
        s.set(&StoreKey::parse(k).unwrap(), v.as_bytes()).unwrap();
    }
    format!("mem://layouts/{name}")
}

fn open(url: &str) -> Dataset {
    file::open(url, NC_NOWRITE).unwrap_or_else(|e| panic!("{url}: {e}"))
}

fn open_err(url: &str) -> i32 {
    match file::open(url, NC_NOWRITE) {
        Ok(_) => panic!("{url} opened"),
        Err(e) => e.code(),
    }
}

fn dim_names(ds: &Dataset, gid: usize, var: &str) -> Vec<String> {
    let v = &ds.groups()[gid].vars[ds.find_var(gid, var).unwrap()];
    v.dimids.iter().map(|&d| ds.dims()[d].name.clone()).collect()
}

#[test]
fn nczarr_v1() {
    let url = store(
        "v1",
        &[
            ("/.nczarr", r#"{"zarr_format": 2, "nczarr_version": "1.0.0"}"#),
            ("/.zgroup", r#"{"zarr_format": 2}"#),
            ("/.nczgroup", r#"{"dims": {"dim0": 4, "dim1": 2}, "vars": ["var"], "groups": ["g"]}"#),
            ("/.zattrs", r#"{"title": "old", "n": 5}"#),
            ("/.nczattrs", r#"{"types": {"title": "<U1", "n": "<i2"}}"#),
            (
                "/var/.zarray",
                r#"{"zarr_format": 2, "shape": [4,2], "dtype": "<f4", "chunks": [2,2], "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("/var/.nczarray", r#"{"dimrefs": ["/dim0","/dim1"], "storage": "chunked"}"#),
            ("/g/.zgroup", r#"{"zarr_format": 2}"#),
            ("/g/.nczgroup", r#"{"dims": {}, "vars": [], "groups": []}"#),
        ],
    );
    let ds = file::open(&url, NC_WRITE).unwrap();
    assert_eq!(ds.nczarr_layout(), NczarrLayout::V1);
    assert!(!ds.is_writable(), "v1 is read-only");
    assert_eq!(dim_names(&ds, 0, "var"), ["dim0", "dim1"]);
    assert!(ds.groups()[0].vars[0].no_fill);
    assert_eq!(ds.get_att(0, NC_GLOBAL, "n").unwrap(), Values::Short(vec![5]));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "title").unwrap(), Values::Char(b"old".to_vec()));
    assert_eq!(ds.groups().len(), 2);
}

#[test]
fn netcdf_c_490_uppercase_u1_and_bare_nan() {
    let url = store(
        "v490",
        &[
            (
                "/.zgroup",
                r#"{"zarr_format": 2, "_NCZARR_SUPERBLOCK": {"version": "2.0.0"}, "_NCZARR_GROUP": {"dims": {"x": 3}, "vars": ["c","f","s"], "groups": []}}"#,
            ),
            (
                "/.zattrs",
                r#"{"title": "t", "_NCProperties": "version=2,netcdf=4.9.0,nczarr=2.0.0", "_NCZARR_ATTR": {"types": {"title": "<U1", "_NCProperties": "<U1"}}}"#,
            ),
            (
                "/c/.zarray",
                r#"{"zarr_format": 2, "shape": [3], "dtype": "<U1", "chunks": [3], "fill_value": "", "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": ["/x"], "storage": "chunked"}}"#,
            ),
            ("/c/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["x"], "_NCZARR_ATTR": {}}"#),
            (
                "/f/.zarray",
                r#"{"zarr_format": 2, "shape": [3], "dtype": "<f8", "chunks": [3], "fill_value": NaN, "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": ["/x"], "storage": "chunked"}}"#,
            ),
            ("/f/.zattrs", r#"{"_FillValue": NaN, "_NCZARR_ATTR": {"types": {"_FillValue": "<f8"}}}"#),
            (
                "/s/.zarray",
                r#"{"zarr_format": 2, "shape": [1], "dtype": "<i4", "chunks": [1], "fill_value": -2147483647, "order": "C", "compressor": null, "filters": null, "_NCZARR_ARRAY": {"dimrefs": [], "storage": "scalar"}}"#,
            ),
            ("/s/.zattrs", r#"{"_ARRAY_DIMENSIONS": []}"#),
        ],
    );
    let ds = open(&url);
    assert_eq!(ds.nczarr_layout(), NczarrLayout::V2Upper);
    let c = &ds.groups()[0].vars[0];
    assert_eq!(c.nctype, NC_CHAR);
    let (_, fill) = ds.inq_var_fill(0, 1).unwrap();
    assert!(matches!(fill, Values::Double(ref v) if v[0].is_nan()));
    assert!(ds.groups()[0].vars[2].is_scalar());
    assert_eq!(ds.provenance(), Some("version=2,netcdf=4.9.0,nczarr=2.0.0"));
    assert_eq!(ds.groups()[0].atts.len(), 1, "_NCProperties is hidden");
}

#[test]
fn netcdf_c_410_attributes_layout_with_unlimited_and_scalar() {
    let url = store(
        "v410",
        &[
            ("/.zgroup", r#"{"zarr_format": 2}"#),
            (
                "/.zattrs",
                r#"{"n": 1, "_NCProperties": "version=2,netcdf=4.10.1,nczarr=2.0.0", "_nczarr_group": {"dimensions": {"time": {"size": 3, "unlimited": 1}, "x": 2}, "arrays": ["v","sc"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"n": "<i8", "_NCProperties": ">S1", "_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
            ),
            (
                "/v/.zarray",
                r#"{"zarr_format": 2, "shape": [3,2], "dtype": "<u2", "chunks": [1,2], "fill_value": 7, "order": "C", "compressor": {"id": "zlib", "level": 5}, "filters": null}"#,
            ),
            (
                "/v/.zattrs",
                r#"{"_ARRAY_DIMENSIONS": ["time","x"], "_nczarr_array": {"dimension_references": ["/time","/x"], "storage": "chunked"}, "_nczarr_attr": {"types": {"_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#,
            ),
            (
                "/sc/.zarray",
                r#"{"zarr_format": 2, "shape": [1], "dtype": "<f8", "chunks": [1], "fill_value": 9.96921e+36, "order": "C", "compressor": null, "filters": null}"#,
            ),
            (
                "/sc/.zattrs",
                r#"{"_ARRAY_DIMENSIONS": ["_scalar_"], "_nczarr_array": {"dimension_references": [], "scalar": 1, "storage": "chunked"}, "_nczarr_attr": {"types": {"_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#,
            ),
        ],
    );
    let ds = open(&url);
    assert_eq!(ds.nczarr_layout(), NczarrLayout::V2InAttrs);
    assert!(ds.dims()[0].unlimited && ds.dims()[0].len == 3);
    assert_eq!(ds.get_att(0, NC_GLOBAL, "n").unwrap(), Values::Int64(vec![1]));
    assert_eq!(ds.groups()[0].atts.len(), 1, "NCZarr keys are hidden");
    assert!(ds.groups()[0].vars[1].is_scalar());
    assert_eq!(ds.groups()[0].vars[0].codecs.len(), 1);
    assert!(ds.groups()[0].vars[0].atts.is_empty());
}

#[test]
fn pure_zarr_inference() {
    let url = store(
        "pure",
        &[
            ("/.zgroup", r#"{"zarr_format": 2}"#),
            (
                "/.zattrs",
                r#"{"flag": true, "list": [1, 2.5], "nested": {"a": [1, {"b": 2}]}, "big": 5000000000, "u": 3000000000}"#,
            ),
            (
                "/a/.zarray",
                r#"{"zarr_format": 2, "shape": [10, 20], "dtype": "<f4", "chunks": [5, 50], "fill_value": "NaN", "order": "F", "compressor": null, "filters": null, "dimension_separator": "/"}"#,
            ),
            (
                "/b/.zarray",
                r#"{"zarr_format": 2, "shape": [20], "dtype": "|b1", "chunks": [20], "fill_value": false, "order": "C", "compressor": null, "filters": null}"#,
            ),
            (
                "/zero_d/.zarray",
                r#"{"zarr_format": 2, "shape": [], "dtype": "<i8", "chunks": [], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
            ),
            (
                "/named/.zarray",
                r#"{"zarr_format": 2, "shape": [3], "dtype": "<i2", "chunks": [3], "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("/named/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat"], "units": "deg"}"#),
            ("/grp/.zgroup", r#"{"zarr_format": 2}"#),
            (
                "/grp/w/.zarray",
                r#"{"zarr_format": 2, "shape": [3], "dtype": "<U4", "chunks": [3], "fill_value": "", "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("/grp/w/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["lat"]}"#),
            ("/not_zarr/readme.txt", "hello"),
        ],
    );
    let ds = open(&url);
    assert_eq!(ds.nczarr_layout(), NczarrLayout::PureZarr);
    assert_eq!(dim_names(&ds, 0, "a"), ["_Anonymous_Dim_10", "_Anonymous_Dim_20"]);
    assert_eq!(dim_names(&ds, 0, "b"), ["_Anonymous_Dim_20"], "same length, same dimension");
    assert_eq!(dim_names(&ds, 0, "named"), ["lat"]);
    let a = &ds.groups()[0].vars[ds.find_var(0, "a").unwrap()];
    assert!(a.transpose == Some(vec![1, 0]) && a.chunk_keys.separator() == '/' && a.chunks == [5, 50]);
    assert_eq!(ds.groups()[0].vars[ds.find_var(0, "b").unwrap()].nctype, NC_UBYTE);
    assert!(ds.groups()[0].vars[ds.find_var(0, "zero_d").unwrap()].is_scalar());
    assert!(ds.find_var(0, "not_zarr").is_none());
    // the subgroup's "lat" reuses the root's (same length)
    assert_eq!(dim_names(&ds, 1, "w"), ["lat"]);
    assert_eq!(ds.groups()[1].dims.len(), 0);
    let w = &ds.groups()[1].vars[0];
    assert!(w.nctype == NC_STRING && w.ucs4);
    assert_eq!(ds.get_att(0, NC_GLOBAL, "flag").unwrap(), Values::UByte(vec![1]));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "list").unwrap(), Values::Double(vec![1.0, 2.5]));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "big").unwrap(), Values::Int64(vec![5000000000]));
    assert_eq!(ds.get_att(0, NC_GLOBAL, "u").unwrap(), Values::UInt(vec![3000000000]));
    assert!(matches!(ds.get_att(0, NC_GLOBAL, "nested").unwrap(), Values::Char(_)));
    // with noxarray the names are ignored
    let ds = open(&format!("{url}#mode=zarr,noxarray"));
    assert_eq!(dim_names(&ds, 0, "named"), ["_Anonymous_Dim_3"]);
}

#[test]
fn consolidated_metadata_alone_is_enough() {
    let url = store(
        "consolidated",
        &[(
            "/.zmetadata",
            r#"{"metadata": {".zgroup": {"zarr_format": 2}, ".zattrs": {"title": "c"}, "t/.zarray": {"zarr_format": 2, "shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}, "t/.zattrs": {"_ARRAY_DIMENSIONS": ["time"]}}, "zarr_consolidated_format": 1}"#,
        )],
    );
    let ds = open(&url);
    assert!(ds.is_consolidated());
    assert_eq!(dim_names(&ds, 0, "t"), ["time"]);
    assert_eq!(ds.get_att(0, NC_GLOBAL, "title").unwrap(), Values::Char(b"c".to_vec()));
}

#[test]
fn rewriting_updates_consolidated_metadata_and_keeps_the_layout() {
    let url = store(
        "rewrite",
        &[
            ("/.zgroup", r#"{"zarr_format": 2}"#),
            (
                "/.zattrs",
                r#"{"_nczarr_group": {"dimensions": {"x": 2}, "arrays": ["v"], "groups": []}, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_attr": {"types": {"_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}"#,
            ),
            (
                "/v/.zarray",
                r#"{"zarr_format": 2, "shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": 0, "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("/v/.zattrs", r#"{"_nczarr_array": {"dimension_references": ["/x"], "storage": "chunked"}}"#),
            ("/.zmetadata", r#"{"metadata": {".zgroup": {"zarr_format": 2}}, "zarr_consolidated_format": 1}"#),
        ],
    );
    // .zmetadata is stale here (it lists only the root): the objects
    // themselves are read, and .zmetadata is rewritten in full.
    let mut ds = file::open(&url, NC_WRITE).unwrap();
    ds.put_att(0, NC_GLOBAL, "added", Values::Int(vec![1])).unwrap();
    ds.close().unwrap();
    let s = Driver::Memory.open(&url, false).unwrap();
    let zmeta = String::from_utf8(s.get(&StoreKey::parse(".zmetadata").unwrap()).unwrap().unwrap()).unwrap();
    assert!(zmeta.contains("\"added\": 1"), "{zmeta}");
    assert!(zmeta.contains("\"v/.zarray\""), "{zmeta}");
    for url in [url.clone(), format!("{url}#mode=nczarr,consolidated")] {
        let ds = open(&url);
        assert_eq!(ds.get_att(0, NC_GLOBAL, "added").unwrap(), Values::Int(vec![1]));
        assert_eq!(dim_names(&ds, 0, "v"), ["x"], "{url}");
    }
}

#[test]
fn read_only_open_never_writes() {
    let url = store("ro", &[("/.zgroup", r#"{"zarr_format": 2}"#)]);
    let mut ds = open(&url);
    assert_eq!(ds.put_att(0, NC_GLOBAL, "a", Values::Int(vec![1])).unwrap_err().code(), NC_EPERM);
    ds.close().unwrap();
    let s = Driver::Memory.open(&url, false).unwrap();
    assert_eq!(s.list_prefix(&StoreKey::root()).unwrap().len(), 1);
}

#[test]
fn malformed_metadata_is_an_error_not_a_crash() {
    let zarray =
        |body: &str| format!(r#"{{"zarr_format": 2, {body}, "order": "C", "compressor": null, "filters": null}}"#);
    let group = r#"{"zarr_format": 2, "_nczarr_superblock": {"version": "2.0.0"}, "_nczarr_group": {"dims": {"x": 2}, "vars": ["v"], "groups": []}}"#;
    // (name, objects of the store, expected nc_open status)
    type Case = (&'static str, Vec<(String, String)>, i32);
    let cases: Vec<Case> = vec![
        ("empty", vec![], NC_ENOTNC),
        (
            "root_array",
            vec![("/.zarray".into(), zarray(r#""shape": [1], "dtype": "<i4", "chunks": [1], "fill_value": 0"#))],
            NC_ENOTNC,
        ),
        ("bad_json", vec![("/.zgroup".into(), "{\"zarr_format\": 2,".into())], NC_ENCZARR),
        ("not_object", vec![("/.zgroup".into(), "[1,2]".into())], NC_ENCZARR),
        ("format3", vec![("/.zgroup".into(), r#"{"zarr_format": 3}"#.into())], NC_ENCZARR),
        (
            "dims_not_object",
            vec![("/.zgroup".into(), r#"{"zarr_format": 2, "_nczarr_group": {"dims": [1]}}"#.into())],
            NC_ENCZARR,
        ),
        (
            "bad_dim_name",
            vec![("/.zgroup".into(), r#"{"zarr_format": 2, "_nczarr_group": {"dims": {"a/b": 1}}}"#.into())],
            NC_ENCZARR,
        ),
        (
            "bad_var_name",
            vec![("/.zgroup".into(), r#"{"zarr_format": 2, "_nczarr_group": {"vars": [".."]}}"#.into())],
            NC_ENCZARR,
        ),
        ("missing_zarray", vec![("/.zgroup".into(), group.into())], NC_ENCZARR),
        // an unknown dtype opens (the variable reads NC_EBADTYPE): tests/vlen.rs
        (
            "shape_not_list",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": 2, "dtype": "<i4", "chunks": [2], "fill_value": 0, "_nczarr_array": {"dimrefs": ["/x"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "zero_chunk",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": [2], "dtype": "<i4", "chunks": [0], "fill_value": 0, "_nczarr_array": {"dimrefs": ["/x"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "rank_mismatch",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": [2], "dtype": "<i4", "chunks": [2,1], "fill_value": 0, "_nczarr_array": {"dimrefs": ["/x"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "dim_length_mismatch",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": [5], "dtype": "<i4", "chunks": [5], "fill_value": 0, "_nczarr_array": {"dimrefs": ["/x"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "unknown_dimref",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": 0, "_nczarr_array": {"dimrefs": ["/nope"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "bad_fill",
            vec![
                ("/.zgroup".into(), group.into()),
                (
                    "/v/.zarray".into(),
                    zarray(
                        r#""shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": "abc", "_nczarr_array": {"dimrefs": ["/x"]}"#,
                    ),
                ),
            ],
            NC_ENCZARR,
        ),
        (
            "bad_typed_attr",
            vec![
                ("/.zgroup".into(), r#"{"zarr_format": 2}"#.into()),
                ("/.zattrs".into(), r#"{"a": "xyz", "_nczarr_attr": {"types": {"a": "<i4"}}}"#.into()),
            ],
            NC_ENCZARR,
        ),
        (
            "bad_attr_dtype",
            vec![
                ("/.zgroup".into(), r#"{"zarr_format": 2}"#.into()),
                ("/.zattrs".into(), r#"{"a": 1, "_nczarr_attr": {"types": {"a": "<q9"}}}"#.into()),
            ],
            NC_ENCZARR,
        ),
        (
            "xarray_dim_clash",
            vec![
                ("/.zgroup".into(), r#"{"zarr_format": 2}"#.into()),
                ("/v/.zarray".into(), zarray(r#""shape": [2], "dtype": "<i4", "chunks": [2], "fill_value": 0"#)),
                ("/v/.zattrs".into(), r#"{"_ARRAY_DIMENSIONS": ["a"]}"#.into()),
                ("/w/.zarray".into(), zarray(r#""shape": [3], "dtype": "<i4", "chunks": [3], "fill_value": 0"#)),
                ("/w/.zattrs".into(), r#"{"_ARRAY_DIMENSIONS": ["a"]}"#.into()),
            ],
            NC_EDIMSIZE,
        ),
    ];
    for (name, objects, want) in cases {
        let objs: Vec<(&str, &str)> = objects.iter().map(|(k, v)| (k.as_str(), v.as_str())).collect();
        let url = store(&format!("bad_{name}"), &objs);
        assert_eq!(open_err(&url), want, "case {name}");
    }
}

#[test]
fn our_layout_roundtrips_through_the_engine() {
    for (url, nczarr_layout) in [
        ("mem://layouts/roundtrip", NczarrLayout::V2InAttrs),
        ("mem://layouts/roundtrip_old#mode=nczarr,oldkeys", NczarrLayout::V2),
    ] {
        let mut ds = file::create(url, NC_CLOBBER).unwrap();
        let t = ds.def_dim(0, "t", NC_UNLIMITED as u64).unwrap() as i32;
        let x = ds.def_dim(0, "x", 3).unwrap() as i32;
        let g = ds.def_grp(0, "g").unwrap();
        let v = ds.def_var(g, "v", NC_DOUBLE, &[x]).unwrap() as i32;
        ds.def_var(0, "rec", NC_INT, &[t, x]).unwrap();
        ds.def_var(0, "sc", NC_INT, &[]).unwrap();
        ds.put_att(g, v, "scale", Values::Float(vec![0.1])).unwrap();
        ds.put_att(0, NC_GLOBAL, "s", Values::String(vec!["a".into()])).unwrap();
        ds.def_var_fill(g, v, false, Some(Values::Double(vec![f64::NEG_INFINITY]))).unwrap();
        ds.enddef().unwrap();
        ds.close().unwrap();
        let ds = open(url);
        assert_eq!(ds.nczarr_layout(), nczarr_layout, "{url}");
        assert_eq!(ds.get_att(1, 0, "scale").unwrap(), Values::Float(vec![0.1]));
        assert_eq!(ds.get_att(0, NC_GLOBAL, "s").unwrap(), Values::String(vec!["a".into()]));
        assert_eq!(ds.inq_var_fill(1, 0).unwrap().1, Values::Double(vec![f64::NEG_INFINITY]));
        assert_eq!(dim_names(&ds, 1, "v"), ["x"]);
        assert_eq!(dim_names(&ds, 0, "rec"), ["t", "x"]);
        assert!(ds.dims()[ds.find_dim(0, "t").unwrap()].unlimited, "{url}");
        assert!(ds.groups()[0].vars[ds.find_var(0, "sc").unwrap()].is_scalar());
        assert_eq!(ds.groups()[0].atts.len(), 1, "{url}: the NCZarr keys are not attributes");
    }
}

/// The default layout is netCDF-C 4.9.3+'s, byte for byte (as the netCDF4
/// wheel's 4.10.1 writes it): `.zgroup` and `.zarray` are pure Zarr.
#[test]
fn default_layout_is_netcdf_c_410s() {
    let url = "mem://layouts/exact";
    let mut ds = file::create(url, NC_CLOBBER).unwrap();
    let t = ds.def_dim(0, "t", NC_UNLIMITED as u64).unwrap() as i32;
    let x = ds.def_dim(0, "x", 3).unwrap() as i32;
    ds.put_att(0, NC_GLOBAL, "title", Values::Char(b"hello".to_vec())).unwrap();
    let v = ds.def_var(0, "v", NC_INT, &[t, x]).unwrap() as i32;
    ds.def_var_fill(0, v, false, Some(Values::Int(vec![-1]))).unwrap();
    ds.put_att(0, v, "units", Values::Char(b"m".to_vec())).unwrap();
    ds.def_var(0, "s", NC_DOUBLE, &[]).unwrap();
    let slab = ds.slab(0, v, Some(&[0, 0]), Some(&[2, 3]), None, None, true).unwrap();
    let bytes = Values::Int(vec![0, 1, 2, 3, 4, 5]).to_ne_bytes();
    ds.put_slab(0, v, &slab, MemIn::Bytes { memtype: NC_INT, buf: &bytes }).unwrap();
    ds.close().unwrap();
    let s = Driver::Memory.open(url, false).unwrap();
    let get = |k: &str| String::from_utf8(s.get(&StoreKey::parse(k).unwrap()).unwrap().unwrap()).unwrap();
    let root = get(".zattrs");
    let provenance = nczarr_rs::engine::model::provenance();
    assert_eq!(
        root,
        format!(
            r#"{{"title": "hello", "_NCProperties": "{provenance}", "_nczarr_group": {{"dimensions": {{"t": {{"size": 2, "unlimited": 1}}, "x": 3}}, "arrays": ["v","s"], "groups": []}}, "_nczarr_superblock": {{"version": "2.0.0"}}, "_nczarr_attr": {{"types": {{"title": ">S1", "_NCProperties": ">S1", "_nczarr_group": "|J0", "_nczarr_superblock": "|J0", "_nczarr_attr": "|J0"}}}}}}"#
        )
    );
    assert_eq!(get(".zgroup"), r#"{"zarr_format": 2}"#);
    assert_eq!(
        get("v/.zattrs"),
        r#"{"_FillValue": -1, "units": "m", "_ARRAY_DIMENSIONS": ["t","x"], "_nczarr_array": {"dimension_references": ["/t","/x"], "storage": "chunked"}, "_nczarr_attr": {"types": {"_FillValue": "<i4", "units": ">S1", "_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#
    );
    assert_eq!(
        get("s/.zattrs"),
        r#"{"_ARRAY_DIMENSIONS": ["_scalar_"], "_nczarr_array": {"dimension_references": [], "scalar": 1, "storage": "chunked"}, "_nczarr_attr": {"types": {"_nczarr_array": "|J0", "_nczarr_attr": "|J0"}}}"#
    );
    let zarray = get("v/.zarray");
    assert!(zarray.starts_with(r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<i4", "#), "{zarray}");
    assert!(zarray.ends_with(r#""compressor": null, "filters": null}"#), "{zarray}");
    assert!(!zarray.contains("_nczarr_array"), "{zarray}");
}

#[test]
fn implicit_root_group_of_pure_zarr() {
    // Arrays below a root without .zgroup (netCDF-C's ref_power_901_constants):
    // the root group is implicit, as in netCDF-C 4.10 and zarr-python.
    let url = store(
        "implicit_root",
        &[
            (
                "/FRLAND/.zarray",
                r#"{"zarr_format": 2, "shape": [2,3], "dtype": "<f4", "chunks": [2,3], "fill_value": null, "order": "C", "compressor": null, "filters": null}"#,
            ),
            ("/FRLAND/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["y", "x"], "units": "1"}"#),
        ],
    );
    let ds = open(&format!("{url}#mode=zarr"));
    assert_eq!(dim_names(&ds, 0, "FRLAND"), ["y", "x"]);
    // A root with nothing Zarr in it is still not a dataset.
    let empty = store("implicit_root_empty", &[("/notes/readme", "hello")]);
    assert_eq!(open_err(&empty), NC_ENOTNC);
}

/// Dimension names that are not one per dimension (`_ARRAY_DIMENSIONS` of
/// two names over a 1-D array; netCDF-C's corrupt `ref_noshape`: a 0-d
/// array naming a dimension, with a chunk of six ints; Zarr v3's
/// `dimension_names` alike) leave that variable out of the dataset, as
/// netCDF-C leaves it out, with a note for the caller; the rest of the
/// store reads (issue 27, point 6).
#[test]
fn names_that_disagree_with_the_shape_leave_the_variable_out() {
    let zarray = |shape: &str, chunks: &str| {
        format!(
            r#"{{"zarr_format": 2, "shape": {shape}, "dtype": "<i4", "chunks": {chunks}, "fill_value": -1, "order": "C", "compressor": null, "filters": null}}"#
        )
    };
    let six_ints: String = String::from_utf8(vec![1; 24]).unwrap();
    let url = store(
        "names_disagree",
        &[
            ("/.zgroup", r#"{"zarr_format": 2}"#),
            ("/two/.zarray", &zarray("[2]", "[2]")),
            ("/two/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["a", "b"]}"#),
            ("/noshape/.zarray", &zarray("[]", "[]")),
            ("/noshape/.zattrs", r#"{"_FillValue": -1, "_ARRAY_DIMENSIONS": ["d0"]}"#),
            ("/noshape/0", &six_ints),
            ("/scalar/.zarray", &zarray("[]", "[]")),
            ("/scalar/.zattrs", r#"{"_ARRAY_DIMENSIONS": []}"#),
            ("/good/.zarray", &zarray("[3]", "[3]")),
            ("/good/.zattrs", r#"{"_ARRAY_DIMENSIONS": ["x"]}"#),
        ],
    );
    let mut ds = file::open(&format!("{url}#mode=zarr"), NC_NOWRITE).unwrap();
    let names: Vec<&str> = ds.groups()[0].vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names.iter().filter(|n| ["good", "scalar"].contains(n)).count(), 2, "{names:?}");
    assert!(!names.contains(&"two") && !names.contains(&"noshape"), "{names:?}");
    let notes = ds.take_notes().join("\n");
    assert!(notes.contains("two") && notes.contains("noshape"), "{notes}");
    let v3 = store(
        "names_disagree_v3",
        &[
            ("/zarr.json", r#"{"zarr_format": 3, "node_type": "group"}"#),
            (
                "/w/zarr.json",
                r#"{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "int32", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"}, "fill_value": 0, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "dimension_names": ["p", "q"]}"#,
            ),
            (
                "/ok/zarr.json",
                r#"{"zarr_format": 3, "node_type": "array", "shape": [2], "data_type": "int32", "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [2]}}, "chunk_key_encoding": {"name": "default"}, "fill_value": 5, "codecs": [{"name": "bytes", "configuration": {"endian": "little"}}], "dimension_names": ["p"]}"#,
            ),
        ],
    );
    let mut ds = file::open(&format!("{v3}#mode=zarr,v3"), NC_NOWRITE).unwrap();
    let names: Vec<&str> = ds.groups()[0].vars.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["ok"]);
    assert!(ds.take_notes().join("\n").contains("w"));
}
