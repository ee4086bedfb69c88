"""Variable-length strings as zarr-python and xarray write them (Zarr v2
`|O` + numcodecs vlen-utf8, Zarr v3 `string` + `vlen-utf8`), both ways,
through our C API (ctypes).

Usage: vlen.py OUTDIR OURLIB

zarr-python 3 writes string arrays (zarr_format=2, default compressor and
none, several chunks, a missing chunk, unicode) and xarray a dataset with a
string variable and a string coordinate. For every array, the strings
nc_get_var_string gives must equal what zarr-python reads.

Then we write NC_STRING variables (whole, partial writes into existing and
missing chunks, a fill value, deflate, 2-d, a scalar) with mode=zarr (v2),
zarr,v3 and nczarr,v3: the metadata must be zarr-python's (`|O` +
vlen-utf8, fill ""; `string` + vlen-utf8), and zarr-python, xarray and we
must read our strings. TensorStore has no string type in either version
(checked: it must refuse, not misread). NCZarr v2 keeps netCDF-C's `|Sn`.
Prints one line per check; exits 1 if any differs.
"""
import json
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
    return ours_mode(path, name, "zarr")


def ours_mode(path, name, mode):
    nc = ctypes.c_int()
    rc = lib.nc_open(f"file://{path}#mode={mode},file".encode(), NC_NOWRITE, ctypes.byref(nc))
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

# ---- we write, zarr-python / xarray / TensorStore read ------------------------
NC_WRITE, NC_NETCDF4, NC_CHUNKED = 1, 0x1000, 0


def rc_ok(rc, what):
    if rc:
        raise RuntimeError(f"{what}: error {rc}")


def cstrings(items):
    return (ctypes.c_char_p * len(items))(*[x.encode() for x in items])


def write_ours(path, mode):
    """Writes the string variables; returns what each must read as."""
    nc = ctypes.c_int()
    rc_ok(lib.nc_create(f"file://{path}#mode={mode},file".encode(), NC_NETCDF4, ctypes.byref(nc)), "create")
    x, y, n = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    rc_ok(lib.nc_def_dim(nc, b"x", len(words), ctypes.byref(x)), "dim x")
    rc_ok(lib.nc_def_dim(nc, b"y", 3, ctypes.byref(y)), "dim y")
    rc_ok(lib.nc_def_dim(nc, b"n", 9, ctypes.byref(n)), "dim n")
    ids = {}
    for name, dims, chunks in [("s", [x], [3]), ("gap", [n], [3]), ("two_d", [y, x], [2, 3]), ("scalar", [], None)]:
        v = ctypes.c_int()
        d = (ctypes.c_int * max(len(dims), 1))(*[dd.value for dd in dims])
        rc_ok(lib.nc_def_var(nc, name.encode(), NC_STRING, len(dims), d, ctypes.byref(v)), f"def {name}")
        if chunks:
            rc_ok(lib.nc_def_var_chunking(nc, v, NC_CHUNKED, (ctypes.c_size_t * len(chunks))(*chunks)), "chunking")
        ids[name] = v
    rc_ok(lib.nc_def_var_fill(nc, ids["gap"], 0, cstrings(["N/A"])), "fill")
    rc_ok(lib.nc_def_var_deflate(nc, ids["two_d"], 0, 1, 5), "deflate")
    rc_ok(lib.nc_enddef(nc), "enddef")
    rc_ok(lib.nc_put_var_string(nc, ids["s"], cstrings(list(words))), "put s")
    # a partial write into a chunk that exists (read-modify-write) ...
    rc_ok(lib.nc_put_vara_string(nc, ids["s"], (ctypes.c_size_t * 1)(4), (ctypes.c_size_t * 1)(1), cstrings(["four"])), "put s[4]")
    # ... into missing chunks (the rest is the fill value), and chunk 1 never
    rc_ok(lib.nc_put_vara_string(nc, ids["gap"], (ctypes.c_size_t * 1)(0), (ctypes.c_size_t * 1)(2), cstrings(["p", "q"])), "put gap")
    rc_ok(lib.nc_put_vara_string(nc, ids["gap"], (ctypes.c_size_t * 1)(7), (ctypes.c_size_t * 1)(2), cstrings(["ü", ""])), "put gap")
    grid = [[f"r{i}c{j}" * (i + j) for j in range(len(words))] for i in range(3)]
    rc_ok(lib.nc_put_var_string(nc, ids["two_d"], cstrings([w for row in grid for w in row])), "put two_d")
    rc_ok(lib.nc_put_var_string(nc, ids["scalar"], cstrings(["one value"])), "put scalar")
    rc_ok(lib.nc_close(nc), "close")
    s = list(words)
    s[4] = "four"
    return {"s": s, "gap": ["p", "q", "N/A", "N/A", "N/A", "N/A", "N/A", "ü", ""],
            "two_d": [w for row in grid for w in row], "scalar": ["one value"]}


def meta(path, name, v3):
    return json.load(open(f"{path}/{name}/{'zarr.json' if v3 else '.zarray'}"))


try:
    import tensorstore as ts
except ImportError:
    ts = None
for mode in ["zarr", "zarr,v3", "nczarr,v3", "nczarr"]:
    p = f"{out}/ours_{mode.replace(',', '_')}.zarr"
    v3 = "v3" in mode
    try:
        want = write_ours(p, mode)
    except RuntimeError as e:
        check(False, f"{mode}: we write strings: {e}")
        continue
    m = meta(p, "s", v3)
    if mode == "nczarr":
        # netCDF-C's layout: fixed-width |Sn (netCDF-C 4.10.1 cannot open |O)
        check(m["dtype"].startswith("|S") and not m.get("filters"), f"nczarr: s is {m['dtype']}, no object codec")
    elif v3:
        check(m["data_type"] == "string" and m["codecs"][0] == {"name": "vlen-utf8", "configuration": {}}
              and m["fill_value"] == "", f"{mode}: s is string + vlen-utf8, fill \"\": {m['data_type']} {m['codecs'][0]}")
        g = meta(p, "gap", v3)
        check(g["fill_value"] == "N/A", f"{mode}: gap's fill_value is N/A: {g['fill_value']}")
    else:
        check(m["dtype"] == "|O" and m["filters"] == [{"id": "vlen-utf8"}] and m["fill_value"] is None
              and m["compressor"] is None, f"zarr: s is |O + vlen-utf8, fill null as xarray writes it: {m}")
        g = meta(p, "gap", v3)
        check(g["fill_value"] == "N/A", f"zarr: gap's fill_value is N/A: {g['fill_value']}")
        t = meta(p, "two_d", v3)
        check(t["filters"] == [{"id": "vlen-utf8"}] and t["compressor"] == {"id": "zlib", "level": 5},
              f"zarr: two_d is vlen-utf8 then zlib: {t['filters']} {t['compressor']}")
        sc = meta(p, "scalar", v3)
        check(sc["shape"] == [] and sc["dtype"] == "|O", f"zarr: the scalar is a 0-d |O array: {sc['shape']}")
    zg = zarr.open_group(p, mode="r")
    for name, w in want.items():
        mine = ours_mode(p, name, mode)
        check(mine == w, f"{mode}: we read back {name} {mine if mine != w else ''}")
        if mode == "nczarr" and name == "gap":
            continue  # zarr-python takes a |Sn fill_value for base64; netCDF-C writes the text
        got = [a.decode() if isinstance(a, bytes) else str(a) for a in np.asarray(zg[name][...]).ravel()]
        check(got == w, f"{mode}: zarr-python reads {name} {got if got != w else ''}")
    if mode == "zarr":
        # netCDF-C (the wheel's 4.10.1) has no |O: it fails the whole open
        # (NC_ENCZARR), which is why NCZarr mode keeps |Sn
        import netCDF4
        try:
            netCDF4.Dataset(f"file://{os.path.abspath(p)}#mode=zarr,file").close()
            check(False, "zarr: the wheel's netCDF-C now opens |O: revisit NCZarr's |Sn (docs/COMPATIBILITY.md)")
        except OSError as e:
            check(e.errno == -137, f"zarr: the wheel's netCDF-C {netCDF4.__netcdf4libversion__} fails the open (NC_ENCZARR): {e}")
    if mode != "nczarr":
        x = xr.open_zarr(p, consolidated=False, zarr_format=3 if v3 else 2)
        for name in ["s", "two_d"]:
            got = [str(a) for a in x[name].values.ravel()]
            check(got == want[name], f"{mode}: xarray reads {name} {got if got != want[name] else ''}")
        if ts is None:
            check(False, "tensorstore is not installed (tests/interop/requirements.txt)")
        else:
            try:
                t = ts.open({"driver": "zarr3" if v3 else "zarr", "kvstore": {"driver": "file", "path": f"{p}/s"}}).result()
                got = [str(a) for a in np.asarray(t.read().result()).ravel()]
                check(got == want["s"], f"{mode}: TensorStore reads s {got}")
            except ValueError as e:
                # TensorStore (0.1.86) has neither `string` (v3) nor `|O` (v2)
                refused = "string data type is not one of the supported" in str(e) or 'Unsupported zarr dtype: "|O"' in str(e)
                check(refused, f"{mode}: TensorStore refuses s (it has no string type){'' if refused else ': ' + str(e)}")
sys.exit(1 if failed else 0)
