"""Aggregated variables: reading through our aggregation against reading
the same bytes from the fragments directly, and against cf-python.

A float32 master array (T x S x S, T = 4 x BENCH_AGG_FRAGMENTS, S =
BENCH_AGG_SIDE, default 16 and 1024) is split along T into fragments of 4
steps (16 MiB each by default), stored as netCDF-4
files (uncompressed, contiguous) and as Zarr v2 stores (uncompressed,
one chunk each). Aggregations in the CF-1.13 form:

- `nc frags, Zarr agg`: a Zarr store written with our write API
  (`nczarr_rs_def_var_aggregated`), fragments netCDF-4;
- `zarr frags, Zarr agg`: the same with Zarr fragments;
- `nc frags, .nc agg`: cf-python's own netCDF-4 aggregation file.

Columns (medians of BENCH_REPEAT runs, seconds, each from open to close):
- `ours, whole`: `nc_get_var_float` of the aggregated variable;
- `direct, whole`: each fragment opened and read whole into its place, by
  libnetcdf (Debian's, the one our aggregation reads netCDF fragments
  with) or by our library (Zarr fragments);
- `ours, one fragment` / `direct, one fragment`: a region inside one
  fragment (the aggregation opens only that one);
- `cf-python, whole`: `cf.read(...)[0].data.array`.

Usage: agg_bench.py LIBNCZARR_RS DIR
"""
import ctypes
import os
import statistics
import sys
import time
import warnings

import numpy as np
import netCDF4

warnings.filterwarnings("ignore")
import cf  # noqa: E402

lib_path, root = sys.argv[1], os.path.abspath(sys.argv[2])
os.makedirs(root, exist_ok=True)
os.chdir(root)
ours = ctypes.CDLL(lib_path)
debian = ctypes.CDLL("libnetcdf.so.19")
REPEAT = int(os.environ.get("BENCH_REPEAT", "5"))
NFRAG = int(os.environ.get("BENCH_AGG_FRAGMENTS", "16"))
TF = 4
Y = X = int(os.environ.get("BENCH_AGG_SIDE", "1024"))
T = TF * NFRAG
master = np.random.default_rng(1).random((T, Y, X), dtype="f4")


ours.nczarr_rs_last_error.restype = ctypes.c_char_p


def check(lib, rc, what):
    if rc:
        why = ours.nczarr_rs_last_error().decode() if lib is ours else ""
        raise RuntimeError(f"{what}: status {rc} {why}")


def write_fragments():
    for k in range(NFRAG):
        part = master[k * TF:(k + 1) * TF]
        with netCDF4.Dataset(f"f{k}.nc", "w") as d:
            for n, s in zip(("time", "y", "x"), part.shape):
                d.createDimension(n, s)
            # coordinates, so that cf-python aggregates the fragments
            for n, vals, units in (("time", np.arange(k * TF, (k + 1) * TF), "days since 2000-01-01"),
                                   ("y", np.arange(Y), "m"), ("x", np.arange(X), "m")):
                c = d.createVariable(n, "f8", (n,))
                c.units = units
                c[...] = vals
            d["y"].standard_name = "projection_y_coordinate"
            d["x"].standard_name = "projection_x_coordinate"
            v = d.createVariable("ta", "f4", ("time", "y", "x"), contiguous=True, fill_value=False)
            v.units = "K"
            v.standard_name = "air_temperature"
            v[...] = part
        url = f"file://{root}/f{k}.zarr#mode=zarr,file".encode()
        nc = ctypes.c_int()
        check(ours, ours.nc_create(url, 0x1000, ctypes.byref(nc)), "nc_create")
        dims = (ctypes.c_int * 3)()
        for i, (n, s) in enumerate(zip((b"time", b"y", b"x"), part.shape)):
            ours.nc_def_dim(nc, n, ctypes.c_size_t(s), ctypes.byref(dims, 4 * i))
        v = ctypes.c_int()
        ours.nc_def_var(nc, b"ta", 5, 3, dims, ctypes.byref(v))
        ours.nc_def_var_chunking(nc, v, 0, (ctypes.c_size_t * 3)(*part.shape))
        ours.nc_put_att_text(nc, v, b"units", ctypes.c_size_t(1), b"K")
        ours.nc_enddef(nc)
        check(ours, ours.nc_put_var_float(nc, v, part.ctypes.data_as(ctypes.c_void_p)), "nc_put_var_float")
        check(ours, ours.nc_close(nc), "nc_close")


def write_aggregation(store, ext):
    url = f"file://{root}/{store}#mode=zarr,file".encode()
    nc = ctypes.c_int()
    check(ours, ours.nc_create(url, 0x1000, ctypes.byref(nc)), "nc_create")
    dims = (ctypes.c_int * 3)()
    for i, (n, s) in enumerate(zip((b"time", b"y", b"x"), (T, Y, X))):
        ours.nc_def_dim(nc, n, ctypes.c_size_t(s), ctypes.byref(dims, 4 * i))
    uris = (ctypes.c_char_p * NFRAG)(*[f"f{k}.{ext}".encode() for k in range(NFRAG)])
    sizes = (ctypes.c_size_t * (NFRAG + 2))(*([TF] * NFRAG + [Y, X]))
    v = ctypes.c_int()
    rc = ours.nczarr_rs_def_var_aggregated(nc, b"ta", 5, 3, dims, (ctypes.c_size_t * 3)(NFRAG, 1, 1), sizes,
                                           uris, ctypes.c_size_t(1), (ctypes.c_char_p * 1)(b"ta"), 0, ctypes.byref(v))
    check(ours, rc, "nczarr_rs_def_var_aggregated")
    ours.nc_put_att_text(nc, v, b"units", ctypes.c_size_t(1), b"K")
    # coordinate variables: in pure Zarr a dimension exists only through
    # the arrays that use it (cf-python needs them)
    coords = []
    for i, (n, s) in enumerate(zip((b"time", b"y", b"x"), (T, Y, X))):
        c = ctypes.c_int()
        ours.nc_def_var(nc, n, 6, 1, ctypes.byref(dims, 4 * i), ctypes.byref(c))
        coords.append((c, s))
    ours.nc_enddef(nc)
    for c, n in coords:
        vals = np.arange(float(n))
        ours.nc_put_var_double(nc, c, vals.ctypes.data_as(ctypes.c_void_p))
    check(ours, ours.nc_close(nc), "nc_close")


def timed(f):
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def read_ours(path, start=(0, 0, 0), count=(T, Y, X)):
    out = np.empty(count, dtype="f4")

    def run():
        nc = ctypes.c_int()
        check(ours, ours.nc_open(path.encode(), 0, ctypes.byref(nc)), f"nc_open {path}")
        v = ctypes.c_int()
        ours.nc_inq_varid(nc, b"ta", ctypes.byref(v))
        check(ours, ours.nc_get_vara_float(nc, v, (ctypes.c_size_t * 3)(*start), (ctypes.c_size_t * 3)(*count),
                                           out.ctypes.data_as(ctypes.c_void_p)), "nc_get_vara_float")
        ours.nc_close(nc)
    return run, out


def read_direct(ext, lib, start=(0, 0, 0), count=(T, Y, X)):
    """The fragments that `start`/`count` touch, each opened and read."""
    out = np.empty(count, dtype="f4")

    def run():
        for k in range(start[0] // TF, (start[0] + count[0] - 1) // TF + 1):
            a, z = max(start[0], k * TF), min(start[0] + count[0], (k + 1) * TF)
            path = f"f{k}.nc" if ext == "nc" else f"file://{root}/f{k}.zarr#mode=zarr,file"
            nc = ctypes.c_int()
            check(lib, lib.nc_open(path.encode(), 0, ctypes.byref(nc)), f"nc_open {path}")
            v = ctypes.c_int()
            lib.nc_inq_varid(nc, b"ta", ctypes.byref(v))
            s = (ctypes.c_size_t * 3)(a - k * TF, start[1], start[2])
            c = (ctypes.c_size_t * 3)(z - a, count[1], count[2])
            dst = out[a - start[0]:z - start[0]]
            check(lib, lib.nc_get_vara_float(nc, v, s, c, dst.ctypes.data_as(ctypes.c_void_p)), "get")
            lib.nc_close(nc)
    return run, out


write_fragments()
write_aggregation("agg_ncfrags.zarr", "nc")
write_aggregation("agg_zarrfrags.zarr", "zarr")
frags = cf.read([f"f{k}.nc" for k in range(NFRAG)])[0]
cf.write(frags, "agg_cf.nc", cfa={"constructs": "field", "uri": "relative"})

one = ((TF * (NFRAG // 2) + 1, Y // 4, X // 4), (2, Y // 2, X // 2))
rows = []
for label, agg, ext, lib in [
    ("nc frags, Zarr agg", f"file://{root}/agg_ncfrags.zarr#mode=zarr,file", "nc", debian),
    ("zarr frags, Zarr agg", f"file://{root}/agg_zarrfrags.zarr#mode=zarr,file", "zarr", ours),
    ("nc frags, .nc agg (cf-python's)", f"{root}/agg_cf.nc", "nc", debian),
]:
    run, got = read_ours(agg)
    t_ours = timed(run)
    assert np.array_equal(got, master), label
    run, got = read_direct(ext, lib)
    t_direct = timed(run)
    assert np.array_equal(got, master), label
    run, got = read_ours(agg, *one)
    t_ours1 = timed(run)
    s = tuple(slice(a, a + c) for a, c in zip(*one))
    assert np.array_equal(got, master[s]), label
    run, got = read_direct(ext, lib, *one)
    t_direct1 = timed(run)
    cf_path = agg.split("#")[0].removeprefix("file://")
    t_cf = None
    if ext == "nc":
        def cf_run():
            arr = cf.read(cf_path)[0].data.array
            assert arr.shape == (T, Y, X)
        t_cf = timed(cf_run)
    rows.append((label, t_ours, t_direct, t_ours1, t_direct1, t_cf))

mib = T * Y * X * 4 / 2**20
print(f"\n{NFRAG} fragments of {TF} x {Y} x {X} float32 ({mib:.0f} MiB in all), medians of {REPEAT}, seconds\n")
print("| aggregation | ours, whole | direct, whole | ratio | ours, one fragment | direct, one fragment | cf-python, whole |")
print("| --- | --- | --- | --- | --- | --- | --- |")
for label, a, b, c, d, e in rows:
    cfs = f"{e:.3f}" if e is not None else "-"
    print(f"| {label} | {a:.3f} | {b:.3f} | {b / a:.2f}x | {c:.4f} | {d:.4f} | {cfs} |")
