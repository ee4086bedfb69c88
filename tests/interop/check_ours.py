"""zarr-python 3 and xarray open the datasets nczarr-rs wrote
(tests/interop/write_ours.c) and must see the same arrays, shapes, dtypes,
dimension names and attributes.

Usage: check_ours.py DIR"""
import os
import sys
import warnings

import numpy as np
import xarray as xr
import zarr

from checks import check, finish

d = sys.argv[1]


EXPECTED = {  # name: (shape, numpy dtype)
    "v": ((4, 3), "<i4"), "temp": ((4, 3), "<f4"), "d": ((3,), "<f8"), "b": ((4,), "|i1"),
    "ub": ((4,), "|u1"), "us": ((4, 3), "<u2"), "ui": ((4,), "<u4"), "i8": ((4,), "<i8"),
    "u8": ((4,), "<u8"), "nofill": ((4,), "<i4"), "chunked": ((4, 3), "<f8"),
}
# ours_full also has the char variable "c" (dtype ">S1", the spec's NC_CHAR);
# zarr-python 3 rejects ">S1" (docs/COMPATIBILITY.md), so it is not opened here.
FULL_ONLY = {"scalar": ((1,), "<f8"), "str": ((4,), "|S128"), "big": ((4, 3), ">f4")}

for name, extra in (("ours_full", FULL_ONLY), ("ours_portable", {}), ("ours_zarr", {})):
    path = f"{d}/{name}.zarr"
    g = zarr.open_group(path, mode="r", zarr_format=2)
    # every entry of the store is a Zarr object: zarr-python warns about
    # any other file (a lock file left behind, say)
    strays = [e for e in os.listdir(path) if e not in (".zgroup", ".zattrs", ".zmetadata") and not os.path.isdir(f"{path}/{e}")]
    check(not strays, f"{name}: only Zarr objects at the root: {strays}")
    # and zarr-python lists them all without a warning (not ours_full: it
    # has two arrays zarr-python 3 cannot open, the spec's ">S1" char and a
    # string fill value written as text, as netCDF-C writes it, where
    # zarr-python expects base64)
    if name != "ours_full":
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            try:
                members = sorted(n for n, _ in g.members(max_depth=None))
                check(True, f"{name}: zarr lists the members without a warning: {members}")
            except Exception as e:  # noqa: BLE001 - report, keep checking
                check(False, f"{name}: zarr lists the members without a warning: {e}")
    arrays = {}
    for var, (shape, dtype) in {**EXPECTED, **extra}.items():
        try:
            arrays[var] = g[var]
        except Exception as e:  # noqa: BLE001 - report, keep checking
            check(False, f"{name}: zarr opens array {var}: {e}")
            continue
        if var in arrays:
            a = arrays[var]
            check(a.shape == shape, f"{name}/{var}: shape {a.shape} == {shape}")
            check(a.dtype == np.dtype(dtype), f"{name}/{var}: dtype {a.dtype} == {dtype}")
            a[...]  # a never-written array reads as its fill value
    check(g.attrs["title"] == "written by nczarr-rs", f"{name}: title")
    check(list(g.attrs["ints"]) == [1, -2, 3], f"{name}: ints")
    check(g.attrs["pi"] == 3.141592653589793, f"{name}: pi exact")
    check(np.float32(g.attrs["f"]) == np.float32(0.1), f"{name}: float attribute")
    check(g.attrs["u64"] == 18446744073709551615, f"{name}: uint64 attribute")
    check(dict(arrays["v"].attrs).get("units") == "m", f"{name}: v units")
    check(arrays["v"].fill_value == -99, f"{name}: v fill_value")
    check(arrays["nofill"].fill_value is None, f"{name}: nofill has no fill_value")
    # data written by write_ours.c: rows 1 and 3 of v (strided), the rest fill
    v = arrays["v"][...]
    check(v[1].tolist() == [-50, -40, -30] and v[3].tolist() == [-20, -10, 0], f"{name}: v data {v.tolist()}")
    check(v[0].tolist() == [-99] * 3 and v[2].tolist() == [-99] * 3, f"{name}: v fill rows")
    check(np.allclose(arrays["temp"][...].ravel(), np.arange(12, dtype="f4") / np.float32(3)), f"{name}: temp data")
    check(arrays["b"][...].tolist() == [-128, -1, 0, 127], f"{name}: byte data")
    check(arrays["u8"][...].tolist() == [0, 1, 18446744073709551614, 18446744073709551615], f"{name}: uint64 data")
    ch = arrays["chunked"][...]
    check(ch[2, 2] == 42.0 and ch[3, 2] == 43.0 and ch[0, 0] > 9e36, f"{name}: chunked data and fill")
    sub = g["g"]
    check(sub.attrs["comment"] == "group attribute", f"{name}: subgroup attribute")
    check(sub["s"].shape == (5, 4), f"{name}: g/s shape")
    check(sub["s"][...].ravel().tolist() == list(range(-10, 10)), f"{name}: g/s data")
    if name == "ours_full":
        check(arrays["big"][...].ravel().tolist() == [1.5 * i for i in range(12)], f"{name}: big-endian data")
        check(arrays["str"][...].tolist() == [b"alpha", b"", b"beta", b"gamma"], f"{name}: string data")
        check(arrays["scalar"][...].tolist() == [6.5], f"{name}: scalar data")
        zipped = g["zipped"]
        check(zipped[...].ravel().tolist() == [i * 10 - 50 for i in range(12)], f"{name}: zlib+shuffle data")
        squeezed = g["squeezed"]
        check(squeezed.compressors[0].codec_id == "zstd", f"{name}: squeezed is zstd: {squeezed.compressors}")
        check(squeezed[...].ravel().tolist() == [0.25 * i for i in range(12)], f"{name}: zstd data")
        blosced = g["blosced"]
        check(blosced.compressors[0].codec_id == "blosc", f"{name}: blosced is blosc: {blosced.compressors}")
        check(blosced[...].ravel().tolist() == [i * 10 - 50 for i in range(12)], f"{name}: blosc data")
    check(g["g/deeper/w"].shape == (5,), f"{name}: g/deeper/w shape")
    if name == "ours_full":
        continue  # xarray would open "c" too (see above)
    # xarray: dimension names from _ARRAY_DIMENSIONS
    ds = xr.open_zarr(path, consolidated=False, zarr_format=2)
    check(ds["v"].dims == ("x", "y"), f"{name}: xarray dims of v {ds['v'].dims}")
    check(ds["temp"].attrs.get("long_name") == "temperature", f"{name}: xarray attrs")
    check(ds.attrs.get("title") == "written by nczarr-rs", f"{name}: xarray global attrs")
    check("_nczarr_attr" not in ds.attrs or name != "ours_zarr", f"{name}: pure zarr has no NCZarr keys")
    if name == "ours_zarr":
        gs = xr.open_zarr(path, group="g", consolidated=False, zarr_format=2)
        check(gs["s"].dims == ("z", "x"), f"{name}: xarray dims in a subgroup {gs['s'].dims}")
        check(np.allclose(ds["temp"].values.ravel(), np.arange(12) / 3.0), f"{name}: xarray temp data")
        # v's fill value (-99) is masked by xarray: rows 0 and 2 become NaN
        vv = ds["v"].values
        check(bool(np.isnan(vv[0]).all()) and vv[1, 0] == -50, f"{name}: xarray masks the fill value")

finish("check_ours")
