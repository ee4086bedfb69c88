"""Zarr v3 both ways: what zarr-python 3 and xarray write reads through our
netCDF API (ctypes) with the values zarr-python reads; what we write with
`mode=...,v3` reads in zarr-python, xarray and TensorStore with our values
and dimension names.

Usage: zarr3.py OUTDIR OURLIB

Prints one line per check ("ok ..." / "FAIL ..."); exits 1 if any fails.
"""
import ctypes
import json
import os
import shutil
import sys
import warnings

import numpy as np
import xarray as xr
import zarr
import zarr.codecs as zc

warnings.filterwarnings("ignore")
out, ourlib = sys.argv[1], sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
lib = ctypes.CDLL(ourlib)
failed = 0

NC_NOWRITE, NC_WRITE, NC_CLOBBER, NC_NETCDF4 = 0, 1, 0, 0x1000
NC_UNLIMITED = 0
NCTYPES = {1: "i1", 2: "S1", 3: "i2", 4: "i4", 5: "f4", 6: "f8", 7: "u1", 8: "u2", 9: "u4", 10: "i8", 11: "u8", 12: "O"}
GET = {"i1": "schar", "u1": "uchar", "i2": "short", "u2": "ushort", "i4": "int", "u4": "uint",
       "i8": "longlong", "u8": "ulonglong", "f4": "float", "f8": "double", "S1": "text"}


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def rc_ok(rc, what):
    if rc:
        raise RuntimeError(f"{what}: {rc}")


class Ours:
    """A dataset open through our library."""

    def __init__(self, url, mode=NC_NOWRITE):
        self.nc = ctypes.c_int()
        rc_ok(lib.nc_open(url.encode(), mode, ctypes.byref(self.nc)), f"nc_open {url}")

    def close(self):
        lib.nc_close(self.nc)

    def group(self, path):
        g = self.nc.value
        for part in [p for p in path.split("/") if p]:
            c = ctypes.c_int()
            rc_ok(lib.nc_inq_grp_ncid(g, part.encode(), ctypes.byref(c)), f"group {part}")
            g = c.value
        return g

    def var(self, path):
        """(values as numpy, dimension names) of variable `path` ("g/v")."""
        gpath, _, name = path.rpartition("/")
        g = self.group(gpath)
        v, t, nd = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        rc_ok(lib.nc_inq_varid(g, name.encode(), ctypes.byref(v)), f"varid {path}")
        lib.nc_inq_vartype(g, v, ctypes.byref(t))
        lib.nc_inq_varndims(g, v, ctypes.byref(nd))
        dimids = (ctypes.c_int * max(nd.value, 1))()
        lib.nc_inq_vardimid(g, v, dimids)
        shape, names = [], []
        for i in range(nd.value):
            ln, dn = ctypes.c_size_t(), ctypes.create_string_buffer(257)
            lib.nc_inq_dim(g, dimids[i], dn, ctypes.byref(ln))
            shape.append(ln.value)
            names.append(dn.value.decode())
        n = int(np.prod(shape)) if shape else 1
        dt = NCTYPES[t.value]
        if dt == "O":
            buf = (ctypes.c_char_p * n)()
            rc_ok(lib.nc_get_var_string(g, v, buf), f"get {path}")
            vals = np.array([b.decode() for b in buf], dtype=object)
        else:
            vals = np.zeros(n, dtype=dt)
            rc_ok(getattr(lib, "nc_get_var_" + GET[dt])(g, v, vals.ctypes.data_as(ctypes.c_void_p)), f"get {path}")
        return vals.reshape(shape), names

    def box(self, path, start, count):
        """An int32 hyperslab of variable `path` (nc_get_vara_int)."""
        gpath, _, name = path.rpartition("/")
        g = self.group(gpath)
        v = ctypes.c_int()
        rc_ok(lib.nc_inq_varid(g, name.encode(), ctypes.byref(v)), f"varid {path}")
        n = len(start)
        vals = np.zeros(count, dtype="i4")
        st, ct = (ctypes.c_size_t * n)(*start), (ctypes.c_size_t * n)(*count)
        rc_ok(lib.nc_get_vara_int(g, v, st, ct, vals.ctypes.data_as(ctypes.c_void_p)), f"get_vara {path}")
        return vals

    def att_text(self, path, att):
        gpath, _, name = path.rpartition("/")
        g = self.group(gpath)
        v = ctypes.c_int()
        rc_ok(lib.nc_inq_varid(g, name.encode(), ctypes.byref(v)), f"varid {path}")
        ln = ctypes.c_size_t()
        rc_ok(lib.nc_inq_attlen(g, v, att.encode(), ctypes.byref(ln)), f"attlen {att}")
        buf = ctypes.create_string_buffer(ln.value + 1)
        rc_ok(lib.nc_get_att_text(g, v, att.encode(), buf), f"att {att}")
        return buf.value.decode()


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f":
        return np.array_equal(a, b, equal_nan=True)
    if a.dtype.kind in "SUO" or b.dtype.kind in "SUO":
        dec = lambda x: x.decode() if isinstance(x, bytes) else str(x)
        return [dec(x) for x in a.ravel()] == [dec(x) for x in b.ravel()]
    return np.array_equal(a.astype(b.dtype), b)


def read_back(path, names, mode="zarr", expect_dims=None):
    """Every array `names` of the store at `path` through our library equals zarr-python's."""
    url = f"file://{path}#mode={mode},file"
    try:
        ds = Ours(url)
    except RuntimeError as e:
        check(False, f"{os.path.basename(path)}: {e}")
        return
    g = zarr.open_group(path, mode="r")
    for name in names:
        try:
            ours, dims = ds.var(name)
        except RuntimeError as e:
            check(False, f"{os.path.basename(path)}/{name}: {e}")
            continue
        ref = g[name][...]
        check(same(ours, ref), f"{os.path.basename(path)}/{name} ({g[name].dtype}) values equal zarr-python's")
        if expect_dims and name in expect_dims:
            check(dims == expect_dims[name], f"{os.path.basename(path)}/{name}: dimensions {dims}")
    ds.close()


# ---- zarr-python 3 and xarray write, we read --------------------------------
print("== zarr-python 3 writes v3, nczarr-rs reads")
p = f"{out}/types.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
rng = np.random.default_rng(1)
names = []
for dt in ["int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float32", "float64", "bool"]:
    a = g.create_array(dt, shape=(7, 5), chunks=(3, 2), dtype=dt, dimension_names=["y", "x"])
    a[:] = (rng.integers(0, 100, (7, 5)) if dt != "bool" else rng.integers(0, 2, (7, 5))).astype(dt)
    names.append(dt)
a = g.create_array("nanfill", shape=(6,), chunks=(2,), dtype="f4", fill_value=float("nan"))
a[0:2] = [1.5, 2.5]  # chunks 1 and 2 missing: the fill value
names.append("nanfill")
a = g.create_array("big", shape=(4, 3), chunks=(2, 3), dtype=">i4", serializer=zc.BytesCodec(endian="big"))
a[:] = np.arange(12).reshape(4, 3)
names.append("big")
a = g.create_array("scalar", shape=(), dtype="f8")
a[...] = 42.25
names.append("scalar")
a = g.create_array("vstr", shape=(4,), chunks=(2,), dtype=str)
a[:] = ["a", "bé", "", "dddd"]
names.append("vstr")
sub = g.create_group("sub").create_group("deeper")
a = sub.create_array("v", shape=(3,), dtype="i2", dimension_names=["n"])
a[:] = [1, 2, 3]
names.append("sub/deeper/v")
read_back(p, names, expect_dims={"int8": ["y", "x"], "sub/deeper/v": ["n"]})

p = f"{out}/codecs.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
codecs = {
    "none": dict(compressors=None),
    "gzip": dict(compressors=zc.GzipCodec(level=5)),
    "zstd": dict(compressors=zc.ZstdCodec(level=3, checksum=True)),
    "blosc_lz4_shuffle": dict(compressors=zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle", typesize=4)),
    "blosc_zstd_bitshuffle": dict(compressors=zc.BloscCodec(cname="zstd", clevel=3, shuffle="bitshuffle", typesize=4)),
    "crc32c": dict(compressors=[zc.ZstdCodec(level=1), zc.Crc32cCodec()]),
    "transpose": dict(filters=zc.TransposeCodec(order=[1, 0])),
    "v2keys": dict(chunk_key_encoding={"name": "v2", "separator": "."}),
    "dotkeys": dict(chunk_key_encoding={"name": "default", "separator": "."}),
}
for name, kw in codecs.items():
    a = g.create_array(name, shape=(10, 6), chunks=(4, 4), dtype="f4", **kw)
    a[:] = np.arange(60, dtype="f4").reshape(10, 6) / 3
read_back(p, list(codecs))
# transposes of any permutation and rank (3-D and 4-D, then zstd; two in a
# row compose), partial and whole chunks
p = f"{out}/transposed.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
perms = {
    "t201": (dict(filters=zc.TransposeCodec(order=[2, 0, 1]), compressors=zc.ZstdCodec(level=3)), (5, 6, 7), (2, 4, 3)),
    "t120": (dict(filters=zc.TransposeCodec(order=[1, 2, 0])), (4, 6, 5), (4, 3, 2)),
    "t3102": (dict(filters=zc.TransposeCodec(order=[3, 1, 0, 2]), compressors=zc.GzipCodec(level=1)), (3, 4, 2, 5), (2, 3, 2, 4)),
    "t_twice": (dict(filters=[zc.TransposeCodec(order=[1, 2, 0]), zc.TransposeCodec(order=[0, 2, 1])]), (3, 4, 5), (2, 3, 4)),
}
for name, (kw, shape, chunks) in perms.items():
    a = g.create_array(name, shape=shape, chunks=chunks, dtype="i4", **kw)
    a[...] = np.arange(np.prod(shape), dtype="i4").reshape(shape)
read_back(p, list(perms))

p = f"{out}/sharded.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
for name, kw in {
    "end": dict(compressors=zc.ZstdCodec(level=1)),
    "start": dict(serializer=zc.ShardingCodec(chunk_shape=(2, 3), index_location="start",
                                              codecs=[zc.BytesCodec(), zc.GzipCodec(level=4)])),
}.items():
    if name == "end":
        a = g.create_array(name, shape=(9, 12), chunks=(2, 3), shards=(4, 6), dtype="i4", **kw)
    else:
        a = g.create_array(name, shape=(9, 12), chunks=(4, 6), dtype="i4", **kw)
    a[:] = np.arange(108, dtype="i4").reshape(9, 12)
    a[0:2, 0:3] = 0  # an inner chunk of fill values (not stored)
# inner codecs in a chain, a shard inside a shard, big-endian inner chunks
# with a fill value, and shards mostly missing, index at either end
nested = {
    "inner_chain": dict(serializer=zc.ShardingCodec(chunk_shape=(2, 3), codecs=[
        zc.BytesCodec(), zc.ZstdCodec(level=2), zc.Crc32cCodec()])),
    "nested_shard": dict(serializer=zc.ShardingCodec(chunk_shape=(4, 6), index_location="start", codecs=[
        zc.ShardingCodec(chunk_shape=(2, 3), codecs=[zc.BytesCodec(), zc.GzipCodec(level=1)])])),
    "big_fill": dict(fill_value=-5, serializer=zc.ShardingCodec(chunk_shape=(2, 3), codecs=[
        zc.BytesCodec(endian="big"), zc.BloscCodec(cname="lz4", typesize=4)])),
    "sparse_end": dict(serializer=zc.ShardingCodec(chunk_shape=(2, 3), index_location="end")),
    "sparse_start": dict(fill_value=7, serializer=zc.ShardingCodec(chunk_shape=(2, 3), index_location="start")),
}
for name, kw in nested.items():
    a = g.create_array(name, shape=(9, 12), chunks=(8, 12), dtype="i4", **kw)
    if name.startswith("sparse"):
        a[4, 5] = 11  # one inner chunk of the first shard stored
        a[8, 11] = 12  # and one of the second
    else:
        a[:] = np.arange(108, dtype="i4").reshape(9, 12) * 3
        a[2:4, 3:6] = a.fill_value  # an inner chunk not stored
read_back(p, ["end", "start"] + list(nested))
# partial reads through our API (a few inner chunks of a shard, by byte
# range) give zarr-python's values
ds = Ours(f"file://{p}#mode=zarr,file")
for name in ["end", "start"] + list(nested):
    ref = zarr.open_group(p, mode="r")[name][...]
    boxes = [((0, 0), (1, 1)), ((3, 4), (1, 1)), ((2, 3), (2, 3)), ((8, 11), (1, 1)), ((1, 2), (5, 7)), ((4, 0), (1, 12))]
    ok = True
    for (i, j), (ni, nj) in boxes:
        got = ds.box(name, (i, j), (ni, nj))
        ok &= same(got, ref[i:i + ni, j:j + nj])
    check(ok, f"sharded.zarr/{name}: partial reads (single elements, inner-chunk boxes) equal zarr-python's")
ds.close()

p = f"{out}/consolidated.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
g.create_array("a", shape=(3,), dtype="i4")[:] = [7, 8, 9]
g.create_group("g").create_array("b", shape=(2,), dtype="f8")[:] = [0.5, 1.5]
zarr.consolidate_metadata(p)
read_back(p, ["a", "g/b"], mode="zarr,consolidated")

# an implicit group: a directory without zarr.json holding a node
p = f"{out}/implicit.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
g.create_group("imp").create_array("c", shape=(2,), dtype="u2")[:] = [3, 4]
os.remove(f"{p}/imp/zarr.json")
read_back(p, ["imp/c"])

# a hex-encoded float fill value and a null dimension name
p = f"{out}/fill.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
g.create_array("h", shape=(4,), chunks=(2,), dtype="f4", dimension_names=[None])[0:2] = [1, 2]
meta = json.load(open(f"{p}/h/zarr.json"))
meta["fill_value"] = "0x40490fdb"  # 3.1415927f
json.dump(meta, open(f"{p}/h/zarr.json", "w"))
ds = Ours(f"file://{p}#mode=zarr,file")
vals, dims = ds.var("h")
check(same(vals, np.array([1, 2, np.float32(3.1415927), np.float32(3.1415927)], dtype="f4")), "hex fill value 0x40490fdb")
check(dims == ["_Anonymous_Dim_4"], f"null dimension name is anonymous: {dims}")
ds.close()

# types netCDF does not have: the dataset opens, the variable reads NC_EBADTYPE
p = f"{out}/unsupported.zarr"
g = zarr.open_group(p, mode="w", zarr_format=3)
g.create_array("half", shape=(2,), dtype="f2")
g.create_array("ok", shape=(2,), dtype="i4")[:] = [5, 6]
ds = Ours(f"file://{p}#mode=zarr,file")
try:
    ds.var("half")
    check(False, "float16 reads")
except RuntimeError as e:
    check(str(e).endswith(": -45"), f"float16 gives NC_EBADTYPE ({e})")
check(same(ds.var("ok")[0], [5, 6]), "beside it, int32 reads")
ds.close()

p = f"{out}/xarray.zarr"
xds = xr.Dataset(
    {"temp": (("time", "lat"), np.arange(12, dtype="f8").reshape(4, 3), {"units": "K"})},
    coords={"time": np.arange(4, dtype="i8"), "lat": [10.0, 20.0, 30.0]},
)
xds.to_zarr(p, zarr_format=3, consolidated=False)
read_back(p, ["temp", "time", "lat"], expect_dims={"temp": ["time", "lat"], "lat": ["lat"]})
ds = Ours(f"file://{p}#mode=zarr,file")
check(ds.att_text("temp", "units") == "K", "xarray attribute units = K")
ds.close()

# ---- we write v3, zarr-python / xarray / TensorStore read ------------------
print("== nczarr-rs writes v3, zarr-python, xarray and TensorStore read")


def write_ours(path, mode):
    nc = ctypes.c_int()
    rc_ok(lib.nc_create(f"file://{path}#mode={mode},v3,file".encode(), NC_NETCDF4, ctypes.byref(nc)), "create")
    t, y, x = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    rc_ok(lib.nc_def_dim(nc, b"time", NC_UNLIMITED, ctypes.byref(t)), "dim")
    rc_ok(lib.nc_def_dim(nc, b"y", 5, ctypes.byref(y)), "dim")
    rc_ok(lib.nc_def_dim(nc, b"x", 4, ctypes.byref(x)), "dim")
    vars_ = {}
    for name, nctype, dims, comp in [
        ("temp", 5, (t, y, x), "deflate"),
        ("count", 4, (y, x), "zstd"),
        ("flags", 7, (x,), None),
        ("big", 11, (y,), None),
        ("height", 6, (), None),
        ("sharded", 4, (y, x), "shard"),
        ("sparse", 4, (y, x), "shard"),
    ]:
        v = ctypes.c_int()
        d = (ctypes.c_int * max(len(dims), 1))(*[dd.value for dd in dims])
        rc_ok(lib.nc_def_var(nc, name.encode(), nctype, len(dims), d, ctypes.byref(v)), f"def {name}")
        if comp == "deflate":
            rc_ok(lib.nc_def_var_deflate(nc, v, 1, 1, 5), "deflate")
        if comp == "zstd":
            rc_ok(lib.nc_def_var_zstandard(nc, v, 4), "zstd")
        if comp == "shard":
            # chunks of 1 x 2 in shards of 5 x 4 (nczarr_rs_def_var_shard)
            rc_ok(lib.nc_def_var_chunking(nc, v, 0, (ctypes.c_size_t * 2)(1, 2)), "chunking")  # NC_CHUNKED
            if name == "sharded":
                rc_ok(lib.nc_def_var_zstandard(nc, v, 3), "zstd")
            rc_ok(lib.nczarr_rs_def_var_shard(nc, v, (ctypes.c_size_t * 2)(5, 4)), "def_var_shard")
        vars_[name] = v
    rc_ok(lib.nc_put_att_text(nc, vars_["temp"], b"units", 1, b"K"), "att")
    fill = ctypes.c_float(-1.0)
    rc_ok(lib.nc_def_var_fill(nc, vars_["temp"], 0, ctypes.byref(fill)), "fill")
    g = ctypes.c_int()
    rc_ok(lib.nc_def_grp(nc, b"sub", ctypes.byref(g)), "grp")
    gv = ctypes.c_int()
    rc_ok(lib.nc_def_var(g, b"inner", 3, 1, (ctypes.c_int * 1)(x.value), ctypes.byref(gv)), "def inner")
    data = {
        "temp": np.arange(60, dtype="f4").reshape(3, 5, 4),
        "count": np.arange(20, dtype="i4").reshape(5, 4) * 7,
        "flags": np.array([1, 2, 254, 255], dtype="u1"),
        "big": np.array([1, 2**40, 2**63, 2**64 - 1, 0], dtype="u8"),
        "height": np.array(8848.86, dtype="f8"),
        "sharded": np.arange(20, dtype="i4").reshape(5, 4) - 10,
    }
    for name, arr in data.items():
        fn = getattr(lib, "nc_put_var_" + GET[arr.dtype.str[1:]])
        if name == "temp":
            st, ct = (ctypes.c_size_t * 3)(0, 0, 0), (ctypes.c_size_t * 3)(*arr.shape)
            rc_ok(lib.nc_put_vara_float(nc, vars_[name], st, ct, arr.ctypes.data_as(ctypes.c_void_p)), "put temp")
        else:
            rc_ok(fn(nc, vars_[name], np.ascontiguousarray(arr).ctypes.data_as(ctypes.c_void_p)), f"put {name}")
    # one element of "sparse": the other inner chunks are not stored
    one = np.array([42], dtype="i4")
    st, ct = (ctypes.c_size_t * 2)(3, 1), (ctypes.c_size_t * 2)(1, 1)
    rc_ok(lib.nc_put_vara_int(nc, vars_["sparse"], st, ct, one.ctypes.data_as(ctypes.c_void_p)), "put sparse")
    data["sparse"] = np.full((5, 4), -2147483647, dtype="i4")
    data["sparse"][3, 1] = 42
    inner = np.array([-1, 0, 1, 2], dtype="i2")
    rc_ok(lib.nc_put_var_short(g, gv, inner.ctypes.data_as(ctypes.c_void_p)), "put inner")
    rc_ok(lib.nc_close(nc), "close")
    data["sub/inner"] = inner
    return data


try:
    import tensorstore as ts
except ImportError:
    ts = None
for mode in ["nczarr", "zarr"]:
    p = f"{out}/ours_{mode}.zarr"
    try:
        data = write_ours(p, mode)
    except RuntimeError as e:
        check(False, f"we write v3 ({mode}): {e}")
        continue
    check(json.load(open(f"{p}/zarr.json"))["zarr_format"] == 3, f"{mode}: the root is zarr.json, zarr_format 3")
    g = zarr.open_group(p, mode="r")
    for name, arr in data.items():
        check(same(g[name][...], arr), f"{mode}: zarr-python reads {name}")
    check(g["temp"].metadata.dimension_names == ("time", "y", "x"), f"{mode}: dimension_names of temp")
    check(g["sharded"].shards == (5, 4) and g["sharded"].chunks == (1, 2), f"{mode}: zarr-python sees shards (5, 4) of chunks (1, 2): {g['sharded'].shards} {g['sharded'].chunks}")
    check(len(os.listdir(f"{p}/sparse/c")) == 1 and os.path.getsize(f"{p}/sparse/c/0/0") == 8 + 10 * 16 + 4,
          f"{mode}: a sparse shard stores one inner chunk and its index")
    check(g["temp"].attrs["units"] == "K", f"{mode}: zarr-python reads the units attribute")
    x = xr.open_zarr(p, zarr_format=3, consolidated=False)
    check(x["temp"].dims == ("time", "y", "x") and same(x["temp"].values, data["temp"]), f"{mode}: xarray reads temp with its dimensions")
    check(x["temp"].encoding.get("_FillValue") == -1.0, f"{mode}: xarray reads temp's _FillValue -1: {x['temp'].encoding.get('_FillValue')}")
    if ts is None:
        check(False, "tensorstore is not installed (tests/interop/requirements.txt)")
    else:
        for name, arr in data.items():
            if name == "temp":
                continue  # numcodecs.zlib (netCDF's deflate) is not a v3 codec TensorStore has
            t = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{p}/{name}"}}).result()
            check(same(t.read().result(), arr), f"{mode}: TensorStore reads {name}")
    # and we read it back, with the netCDF metadata
    ds = Ours(f"file://{p}#mode={mode},file")
    for name, arr in data.items():
        check(same(ds.var(name)[0], arr), f"{mode}: we read back {name}")
    if mode == "nczarr":
        nunl, unl = ctypes.c_int(), (ctypes.c_int * 4)()
        lib.nc_inq_unlimdims(ds.nc, ctypes.byref(nunl), unl)
        check(nunl.value == 1, "nczarr: time is unlimited after reopening")
        f = ctypes.c_float()
        nofill = ctypes.c_int()
        v = ctypes.c_int()
        lib.nc_inq_varid(ds.nc, b"temp", ctypes.byref(v))
        lib.nc_inq_var_fill(ds.nc, v, ctypes.byref(nofill), ctypes.byref(f))
        check(f.value == -1.0, "nczarr: temp's fill value -1 after reopening")
    v, sh, shape = ctypes.c_int(), ctypes.c_int(), (ctypes.c_size_t * 2)()
    lib.nc_inq_varid(ds.nc, b"sharded", ctypes.byref(v))
    rc_ok(lib.nczarr_rs_inq_var_shard(ds.nc, v, ctypes.byref(sh), shape), "inq_var_shard")
    check(sh.value == 1 and list(shape) == [5, 4], f"{mode}: nczarr_rs_inq_var_shard after reopening: {sh.value} {list(shape)}")
    ds.close()

print(f"zarr3: {'all ok' if not failed else str(failed) + ' failed'}")
sys.exit(1 if failed else 0)
