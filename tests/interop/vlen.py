"""Variable-length strings as zarr-python and xarray write them (Zarr v2
`|O` + numcodecs vlen-utf8), read through our C API (ctypes).

Usage: vlen.py OUTDIR OURLIB

zarr-python 3 writes string arrays (zarr_format=2, default compressor and
none, several chunks, a missing chunk, unicode) and xarray a dataset with a
string variable and a string coordinate. For every array, the strings
nc_get_var_string gives must equal what zarr-python reads. Prints one line
per check; exits 1 if any differs.
"""
import ctypes
import os
import shutil
import sys

import numpy as np
import xarray as xr
import zarr

NC_NOWRITE, NC_STRING = 0, 12
out, ourlib = sys.argv[1], sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
lib = ctypes.CDLL(ourlib)
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def ours(path, name):
    """All strings of variable `name` (group path "a/b" allowed), or an error code."""
    nc = ctypes.c_int()
    rc = lib.nc_open(f"file://{path}#mode=zarr,file".encode(), NC_NOWRITE, ctypes.byref(nc))
    if rc:
        return f"nc_open {rc}"
    try:
        v, t, nd = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        rc = lib.nc_inq_varid(nc, name.encode(), ctypes.byref(v))
        if rc:
            return f"nc_inq_varid {rc}"
        lib.nc_inq_vartype(nc, v, ctypes.byref(t))
        if t.value != NC_STRING:
            return f"type {t.value}"
        lib.nc_inq_varndims(nc, v, ctypes.byref(nd))
        dimids = (ctypes.c_int * max(nd.value, 1))()
        lib.nc_inq_vardimid(nc, v, dimids)
        n = 1
        for i in range(nd.value):
            ln = ctypes.c_size_t()
            lib.nc_inq_dimlen(nc, dimids[i], ctypes.byref(ln))
            n *= ln.value
        buf = (ctypes.c_char_p * n)()
        rc = lib.nc_get_var_string(nc, v, buf)
        if rc:
            return f"nc_get_var_string {rc}"
        got = [b.decode("utf-8") for b in buf]
        lib.nc_free_string(ctypes.c_size_t(n), buf)
        return got
    finally:
        lib.nc_close(nc)


words = np.array(["", "a", "héllo wörld", "日本語 😀", "x" * 300, "last", "tab\there", "z"], dtype=object)

# zarr-python: default compressor, none, a missing chunk, 2-d
for label, kw in [("default compressor", {}), ("no compressor", {"compressors": None})]:
    p = f"{out}/zp_{label.replace(' ', '_')}.zarr"
    root = zarr.open_group(p, mode="w", zarr_format=2)
    a = root.create_array("s", shape=(len(words),), chunks=(3,), dtype=str, **kw)
    a[:] = words
    b = root.create_array("gap", shape=(9,), chunks=(3,), dtype=str, **kw)
    b[0:3] = ["p", "q", "r"]
    b[6:9] = ["ü", "v", "w"]
    c = root.create_array("two_d", shape=(3, 4), chunks=(2, 3), dtype=str, **kw)
    c[:] = np.array([[f"r{i}c{j}" * (i + j) for j in range(4)] for i in range(3)], dtype=object)
    for name in ["s", "gap", "two_d"]:
        z = zarr.open_group(p, mode="r")[name]
        want = [str(x) for x in np.asarray(z[...]).ravel()]
        got = ours(p, name)
        check(got == want, f"zarr-python {label}: {name} {got if got != want else ''}")

# xarray: a string variable and a string coordinate
p = f"{out}/xr.zarr"
ds = xr.Dataset(
    {"name": (("station",), np.array(["Zürich", "", "São Paulo", "東京"], dtype=object))},
    coords={"station": np.array(["a", "bb", "ccc", "dddd"], dtype=object)},
)
ds.to_zarr(p, zarr_format=2, mode="w", consolidated=False)
for name in ["name", "station"]:
    want = [str(x) for x in xr.open_zarr(p, consolidated=False)[name].values.ravel()]
    got = ours(p, name)
    check(got == want, f"xarray: {name} {got if got != want else ''}")
sys.exit(1 if failed else 0)
