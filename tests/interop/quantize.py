"""Quantization against netCDF-C 4.10 (the netCDF4 wheel): same stored bits.

Usage: quantize.py OUTDIR OURLIB WHEELLIB

1. The wheel (netCDF4.Dataset, createVariable(significant_digits=...,
   quantize_mode=...)) and nczarr-rs (its C API through ctypes, not
   preloaded) write the same float and double data (negatives, zeros of both
   signs, subnormals, huge values, infinities, the fill value, NaN) into
   NCZarr stores, BitGroom, GranularBitRound and BitRound at 3 settings
   each, plus a variable with its own _FillValue. Every chunk must be
   byte-identical, and so must the quantize attribute in .zattrs.
2. The same sequence of quantize calls (rules: types, ranges, late
   definition, read-only, inquiry after reopen, writing after reopen,
   strided and mapped writes) runs against both libraries' C API: every
   return code, answer and resulting chunk must be the same.

Prints one line per check; exits 1 if any differs.
"""
import ctypes
import json
import os
import subprocess
import sys

import numpy as np

NC_NETCDF4, NC_CLOBBER, NC_WRITE = 0x1000, 0, 1
NC_FLOAT, NC_DOUBLE, NC_INT = 5, 6, 4
MODES = {"BitGroom": 1, "GranularBitRound": 2, "BitRound": 3}
SETTINGS = {  # (float, double) settings per mode: digits, bits for BitRound
    "BitGroom": ([1, 3, 6], [1, 8, 15]),
    "GranularBitRound": ([1, 3, 6], [1, 8, 15]),
    "BitRound": ([1, 10, 23], [1, 30, 52]),
}
SHAPE, CHUNKS = (7, 143), (4, 50)
OWN_FILL = -7.25


def data(dtype):
    """Odd-length random data with every special case."""
    rng = np.random.default_rng(11)
    n = SHAPE[0] * SHAPE[1]
    lim = 37 if dtype == np.float32 else 300
    v = rng.standard_normal(n) * 10.0 ** rng.uniform(-lim, lim, n)
    v[: n // 3] = rng.uniform(-1000, 1000, n // 3)
    v = v.astype(dtype)
    fill = np.float32(9.969209968386869e36) if dtype == np.float32 else 9.969209968386869e36
    tiny = np.finfo(dtype).tiny
    special = [0.0, -0.0, fill, np.nan, np.inf, -np.inf, tiny, tiny / 8, -tiny / 1024,
               np.finfo(dtype).max, -np.finfo(dtype).max, OWN_FILL, 1.0, -1.0, 0.1, 1e-3]
    for i, s in enumerate(special):
        v[(i * 61) % n] = s
        v[(i * 61 + 1) % n] = s
    return v.reshape(SHAPE)


def cases():
    for t, dtype in (("f", np.float32), ("d", np.float64)):
        for mode, (fs, ds) in SETTINGS.items():
            for nsd in fs if t == "f" else ds:
                yield f"{t}_{mode}_{nsd}", dtype, mode, nsd, None
        yield f"{t}_BitRound_5_ownfill", dtype, "BitRound", 5, OWN_FILL
        yield f"{t}_GranularBitRound_2_ownfill", dtype, "GranularBitRound", 2, OWN_FILL


def url(path):
    return f"file://{path}#mode=nczarr,file"


def write_wheel(path):
    import netCDF4

    with netCDF4.Dataset(url(path), "w") as ds:
        ds.createDimension("y", SHAPE[0])
        ds.createDimension("x", SHAPE[1])
        for name, dtype, mode, nsd, fill in cases():
            v = ds.createVariable(name, dtype, ("y", "x"), chunksizes=CHUNKS, fill_value=fill,
                                  significant_digits=nsd, quantize_mode=mode)
            v.set_auto_maskandscale(False)
            v[:] = data(dtype)


def lib(path):
    lb = ctypes.CDLL(path)
    for f in ("nc_put_att_float", "nc_put_att_double"):
        getattr(lb, f).argtypes = [ctypes.c_int, ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_size_t,
                                   ctypes.c_void_p]
    return lb


def check(rc, what):
    if rc != 0:
        raise SystemExit(f"{what}: error {rc}")


def write_c(libpath, path):
    """nczarr-rs writes the same dataset through the C API."""
    lb = lib(libpath)
    nc = ctypes.c_int()
    check(lb.nc_create(url(path).encode(), NC_NETCDF4 | NC_CLOBBER, ctypes.byref(nc)), "nc_create")
    dims = (ctypes.c_int * 2)()
    for i, (n, l) in enumerate(zip(("y", "x"), SHAPE)):
        d = ctypes.c_int()
        check(lb.nc_def_dim(nc, n.encode(), ctypes.c_size_t(l), ctypes.byref(d)), "nc_def_dim")
        dims[i] = d.value
    chunks = (ctypes.c_size_t * 2)(*CHUNKS)
    for name, dtype, mode, nsd, fill in cases():
        t = NC_FLOAT if dtype == np.float32 else NC_DOUBLE
        v = ctypes.c_int()
        check(lb.nc_def_var(nc, name.encode(), t, 2, dims, ctypes.byref(v)), "nc_def_var")
        check(lb.nc_def_var_chunking(nc, v, 0, chunks), "nc_def_var_chunking")
        if fill is not None:
            f = np.array([fill], dtype)
            put = lb.nc_put_att_float if t == NC_FLOAT else lb.nc_put_att_double
            check(put(nc, v, b"_FillValue", t, 1, f.ctypes.data), "_FillValue")
        check(lb.nc_def_var_quantize(nc, v, MODES[mode], nsd), f"nc_def_var_quantize {name}")
        a = np.ascontiguousarray(data(dtype))
        put = lb.nc_put_var_float if t == NC_FLOAT else lb.nc_put_var_double
        check(put(nc, v, ctypes.c_void_p(a.ctypes.data)), f"nc_put_var {name}")
    check(lb.nc_close(nc), "nc_close")


def chunk_files(path, var):
    d = os.path.join(path, var)
    return {f: open(os.path.join(d, f), "rb").read() for f in sorted(os.listdir(d)) if not f.startswith(".")}


def rules(libpath, out):
    """One sequence of quantize calls; returns every answer (compared
    between the two libraries)."""
    lb = lib(libpath)
    res = []
    nc, v, iv, mv, sv, one = ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    m, n = ctypes.c_int(-5), ctypes.c_int(-5)

    def r(label, rc):
        res.append([label, rc])

    def inq(label, varid):
        m.value, n.value = -5, -5
        res.append([label, lb.nc_inq_var_quantize(nc, varid, ctypes.byref(m), ctypes.byref(n)), m.value, n.value])

    path = os.path.join(out, "rules.zarr")
    r("create", lb.nc_create(url(path).encode(), NC_NETCDF4 | NC_CLOBBER, ctypes.byref(nc)))
    d = (ctypes.c_int * 2)()
    dd = ctypes.c_int()
    lb.nc_def_dim(nc, b"y", ctypes.c_size_t(3), ctypes.byref(dd))
    d[0] = dd.value
    lb.nc_def_dim(nc, b"x", ctypes.c_size_t(5), ctypes.byref(dd))
    d[1] = dd.value
    lb.nc_def_var(nc, b"f", NC_FLOAT, 2, d, ctypes.byref(v))
    lb.nc_def_var(nc, b"i", NC_INT, 2, d, ctypes.byref(iv))
    lb.nc_def_var(nc, b"m", NC_FLOAT, 2, d, ctypes.byref(mv))
    lb.nc_def_var(nc, b"s", NC_DOUBLE, 2, d, ctypes.byref(sv))
    lb.nc_def_var(nc, b"one", NC_DOUBLE, 0, d, ctypes.byref(one))
    Q = lb.nc_def_var_quantize
    inq("inq new", v)
    r("global", Q(nc, -1, 1, 3))
    inq("inq global", -1)
    r("no such var", Q(nc, 99, 1, 3))
    r("int", Q(nc, iv, 1, 3))
    r("int off", Q(nc, iv, 0, 3))
    for mode in (-1, 4):
        r(f"mode {mode}", Q(nc, v, mode, 3))
    for mode, nsds in ((1, (0, -1, 1, 6, 7)), (2, (0, 6, 7)), (3, (0, 1, 23, 24))):
        for k in nsds:
            r(f"float mode {mode} nsd {k}", Q(nc, v, mode, k))
            inq(f"inq after mode {mode} nsd {k}", v)
    for mode, nsds in ((1, (15, 16)), (2, (15, 16)), (3, (52, 53))):
        for k in nsds:
            r(f"double mode {mode} nsd {k}", Q(nc, sv, mode, k))
    r("off", Q(nc, v, 0, 99))
    inq("inq off", v)
    r("bitgroom 2", Q(nc, v, 1, 2))
    r("inq NULL", lb.nc_inq_var_quantize(nc, v, None, None))
    r("mapped", Q(nc, mv, 1, 1))
    r("strided", Q(nc, sv, 1, 4))
    r("scalar", Q(nc, one, 3, 3))
    r("enddef", lb.nc_enddef(nc))
    r("late", Q(nc, v, 3, 3))
    r("late off", Q(nc, v, 0, 0))
    r("redef", lb.nc_redef(nc))
    r("late in redef", Q(nc, v, 3, 3))
    r("enddef", lb.nc_enddef(nc))
    vals = np.linspace(-3.3, 7.7, 15).astype(np.float32)
    r("put f", lb.nc_put_var_float(nc, v, ctypes.c_void_p(vals.ctypes.data)))
    # varm: memory is the transpose of the variable
    imap = (ctypes.c_ssize_t * 2)(1, 3)
    start, count = (ctypes.c_size_t * 2)(0, 0), (ctypes.c_size_t * 2)(3, 5)
    r("put varm", lb.nc_put_varm_float(nc, mv, start, count, None, imap, ctypes.c_void_p(vals.ctypes.data)))
    dv = np.linspace(-1.1, 9.9, 6).astype(np.float64)
    stride = (ctypes.c_ssize_t * 2)(2, 2)
    count = (ctypes.c_size_t * 2)(2, 3)
    r("put vars", lb.nc_put_vars_double(nc, sv, start, count, stride, ctypes.c_void_p(dv.ctypes.data)))
    pi = np.array([np.pi])
    r("put scalar", lb.nc_put_var_double(nc, one, ctypes.c_void_p(pi.ctypes.data)))
    r("close", lb.nc_close(nc))
    r("open ro", lb.nc_open(url(path).encode(), 0, ctypes.byref(nc)))
    for name, varid in (("f", v), ("i", iv), ("m", mv), ("s", sv), ("one", one)):
        inq(f"reopened {name}", varid.value)
    r("read-only", Q(nc, v, 1, 3))
    natts = ctypes.c_int()
    r("natts", lb.nc_inq_varnatts(nc, v, ctypes.byref(natts)))
    res.append(["natts after reopen", natts.value])
    r("close", lb.nc_close(nc))
    res.append([".zattrs f", open(os.path.join(path, "f", ".zattrs")).read()])
    # netCDF-C 4.10.1 then rewrites f/.zattrs without its quantize attribute
    # and without truncating the file (trailing garbage): not compared
    r("open rw", lb.nc_open(url(path).encode(), NC_WRITE, ctypes.byref(nc)))
    r("rw late", Q(nc, v, 1, 3))
    r("rw late bad mode", Q(nc, v, 9, 3))
    # netCDF-C's NCZarr reads the quantize attribute of a reopened variable
    # only when asked (nc_inq_var_quantize) or when a write converts types;
    # a same-type write before that is not quantized (HDF5 files always
    # are). nczarr-rs always quantizes: ask first to compare the bits.
    inq("inq before writing", v.value)
    row = (np.arange(5) * 1.37 - 2).astype(np.float32)
    start, count = (ctypes.c_size_t * 2)(1, 0), (ctypes.c_size_t * 2)(1, 5)
    r("put after reopen", lb.nc_put_vara_float(nc, v, start, count, ctypes.c_void_p(row.ctypes.data)))
    r("close", lb.nc_close(nc))
    for name in ("f", "m", "s", "one"):
        res.append([f"chunks {name}", {k: b.hex() for k, b in chunk_files(path, name).items()}])
    return res


def main():
    if sys.argv[1] == "write-ours":
        write_c(sys.argv[2], sys.argv[3])
        return
    if sys.argv[1] == "rules":
        print(json.dumps(rules(sys.argv[2], sys.argv[3])))
        return
    out, ours, wheel = sys.argv[1:4]
    os.makedirs(out, exist_ok=True)
    fails = 0

    def report(good, msg):
        nonlocal fails
        fails += not good
        print(("ok   " if good else "FAIL ") + msg)

    wpath, opath = os.path.join(out, "wheel_q.zarr"), os.path.join(out, "ours_q.zarr")
    write_wheel(wpath)
    # ours in a process of its own: no netCDF4 module (nor its libnetcdf) loaded
    subprocess.run([sys.executable, __file__, "write-ours", ours, opath], check=True)
    for name, dtype, mode, nsd, fill in cases():
        w, o = chunk_files(wpath, name), chunk_files(opath, name)
        first = np.frombuffer(w.get("0.0", b""), dtype)[: CHUNKS[1]]
        changed = int(np.sum(first.view(f"u{first.itemsize}") != data(dtype)[0, : CHUNKS[1]].view(f"u{first.itemsize}")))
        same = w == o and len(w) == 6
        diff = "" if same else f" ({sum(w.get(k) != o.get(k) for k in w)} of {len(w)} chunks differ)"
        report(same, f"quantize {name}: stored chunks bit-identical to netCDF-C 4.10"
               f" ({changed} of the first {CHUNKS[1]} values quantized){diff}")
        wa = json.load(open(os.path.join(wpath, name, ".zattrs")))
        oa = json.load(open(os.path.join(opath, name, ".zattrs")))
        qk = [k for k in wa if k.startswith("_Quantize")]
        report(len(qk) == 1 and [k for k in oa if k.startswith("_Quantize")] == qk and oa[qk[0]] == wa[qk[0]] == nsd
               and list(wa).index(qk[0]) == list(oa).index(qk[0]),
               f"quantize {name}: attribute {qk} as netCDF-C writes it")
    got = {}
    for label, lp in (("ours", ours), ("wheel", wheel)):
        d = os.path.join(out, "rules_" + label)
        os.makedirs(d, exist_ok=True)
        p = subprocess.run([sys.executable, __file__, "rules", lp, d], capture_output=True, text=True)
        if p.returncode != 0:
            report(False, f"quantize rules with {label}: {p.stderr[-500:]}")
            return 1
        got[label] = json.loads(p.stdout)
    for a, b in zip(got["wheel"], got["ours"]):
        report(a == b, f"quantize rule '{a[0]}': same as netCDF-C" + ("" if a == b else f" (netCDF-C {a[1:]}, ours {b[1:]})"))
    report(len(got["wheel"]) == len(got["ours"]), "quantize rules: same number of answers")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
