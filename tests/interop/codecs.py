"""Codecs both ways (issue 11): fletcher32, bz2, lz4 and gzip.

zarr-python writes an array per codec; nczarr-rs reads them, and so does
the wheel's netCDF-C with its plugins where it has the codec (fletcher32,
bz2), giving the same values and the same filter ids and parameters. Then
nczarr-rs writes each codec through the netCDF filter API (and rewrites
zarr-python's arrays in place), and zarr-python and the wheel read that.

Usage: codecs.py DIR OURLIB WHEELLIB
       codecs.py probe LIB URL [NEWDATA]   (one library, in its own process)"""
import ctypes
import json
import os
import shutil
import subprocess
import sys

import numpy as np

from checks import check, finish

N = 50
DATA = np.arange(N, dtype="i4") * 3 - 7
NEW = DATA * 2 + 1
FILTERS = [1, 2, 3, 4, 307, 32001, 32004, 32015]


def probe(lib, url, create=None):
    """What LIB's netCDF API says about every variable of URL: its filter
    ids and parameters, and its data (or the error code of reading it).
    With create, first writes ours_codecs through the filter API."""
    nc = ctypes.CDLL(lib)
    c_int, c_uint, size_t = ctypes.c_int, ctypes.c_uint, ctypes.c_size_t
    ncid, n = c_int(), c_int()

    def ok(rc, what):
        if rc != 0:
            raise RuntimeError(f"{what}: {nc.nc_strerror(rc)} ({rc})")

    nc.nc_strerror.restype = ctypes.c_char_p
    if create:
        ok(nc.nc_create(create.encode(), 0x1000, ctypes.byref(ncid)), "nc_create")
        dim, v = c_int(), c_int()
        ok(nc.nc_def_dim(ncid, b"x", size_t(N), ctypes.byref(dim)), "def_dim")
        ch = (size_t * 1)(16)
        for name in ["fletcher32", "bz2", "lz4", "shuffle_fletcher32_bz2"]:
            ok(nc.nc_def_var(ncid, name.encode(), 4, 1, ctypes.byref(dim), ctypes.byref(v)), "def_var")
            ok(nc.nc_def_var_chunking(ncid, v, 1, ch), "chunking")  # NC_CHUNKED
            if name == "fletcher32":
                ok(nc.nc_def_var_fletcher32(ncid, v, 1), "fletcher32")
                ok(nc.nc_def_var_deflate(ncid, v, 0, 1, 3), "deflate")
            elif name == "bz2":
                ok(nc.nc_def_var_bzip2(ncid, v, 9), "bzip2")
            elif name == "lz4":
                ok(nc.nc_def_var_filter(ncid, v, c_uint(32004), size_t(0), None), "lz4")
            else:
                ok(nc.nc_def_var_deflate(ncid, v, 1, 0, 0), "shuffle")
                ok(nc.nc_def_var_filter(ncid, v, c_uint(3), size_t(0), None), "fletcher32 filter")
                level = c_uint(2)
                ok(nc.nc_def_var_filter(ncid, v, c_uint(307), size_t(1), ctypes.byref(level)), "bz2 filter")
            ok(nc.nc_put_var_int(ncid, v, DATA.ctypes.data_as(ctypes.POINTER(c_int))), f"put {name}")
        ok(nc.nc_close(ncid), "close")
    mode = 1 if create is None and len(sys.argv) > 4 else 0  # NC_WRITE to rewrite
    ok(nc.nc_open(url.encode(), mode, ctypes.byref(ncid)), "nc_open")
    ok(nc.nc_inq_nvars(ncid, ctypes.byref(n)), "inq_nvars")
    out = {"avail": {f: nc.nc_inq_filter_avail(ncid, c_uint(f)) for f in FILTERS}, "vars": {}}
    for varid in range(n.value):
        name = ctypes.create_string_buffer(256)
        ok(nc.nc_inq_varname(ncid, varid, name), "inq_varname")
        nf = size_t()
        ids = (c_uint * 16)()
        ok(nc.nc_inq_var_filter_ids(ncid, varid, ctypes.byref(nf), ids), "filter_ids")
        params = {}
        for i in ids[: nf.value]:
            np_, p = size_t(), (c_uint * 16)()
            rc = nc.nc_inq_var_filter_info(ncid, varid, c_uint(i), ctypes.byref(np_), p)
            params[str(i)] = list(p[: np_.value]) if rc == 0 else f"error {rc}"
        f32, bzh, bzl = c_int(-1), c_int(-1), c_int(-1)
        ok(nc.nc_inq_var_fletcher32(ncid, varid, ctypes.byref(f32)), "inq_var_fletcher32")
        rc = nc.nc_inq_var_bzip2(ncid, varid, ctypes.byref(bzh), ctypes.byref(bzl))
        buf = np.zeros(N, dtype="i4")
        rc_get = nc.nc_get_var_int(ncid, varid, buf.ctypes.data_as(ctypes.POINTER(c_int)))
        out["vars"][name.value.decode()] = {
            "ids": list(ids[: nf.value]), "params": params, "fletcher32": f32.value,
            "bzip2": [rc, bzh.value, bzl.value], "get": rc_get, "data": buf.tolist() if rc_get == 0 else None,
        }
        if mode == 1 and rc_get == 0:
            ok(nc.nc_put_var_int(ncid, varid, NEW.ctypes.data_as(ctypes.POINTER(c_int))), "rewrite")
    ok(nc.nc_close(ncid), "close")
    return out


def run_probe(lib, url, *extra):
    r = subprocess.run([sys.executable, __file__, "probe", lib, url, *extra], capture_output=True, text=True)
    if r.returncode != 0:
        check(False, f"probe {os.path.basename(lib)} {url}: {r.stderr.strip()[-400:]}")
        return None
    return json.loads(r.stdout)


def main(d, ours, wheel):
    import numcodecs
    import zarr

    # 1. zarr-python writes one array per codec
    path = f"{d}/zarr_codecs.zarr"
    g = zarr.open_group(path, mode="w", zarr_format=2)
    made = {
        "fletcher32": dict(filters=[numcodecs.Fletcher32()], compressor=numcodecs.Zlib(level=1)),
        "bz2": dict(compressor=numcodecs.BZ2(level=5)),
        "lz4": dict(compressor=numcodecs.LZ4(acceleration=3)),
        "gzip": dict(compressor=numcodecs.GZip(level=6)),
        "shuffle_fletcher32_bz2": dict(filters=[numcodecs.Shuffle(elementsize=4), numcodecs.Fletcher32()],
                                       compressor=numcodecs.BZ2(level=1)),
    }
    for name, kw in made.items():
        a = g.create_array(name, shape=(N,), chunks=(16,), dtype="i4", fill_value=0, **kw)
        a.attrs["_ARRAY_DIMENSIONS"] = ["x"]
        a[:] = DATA
    shutil.copytree(path, f"{d}/zarr_codecs_rw.zarr", dirs_exist_ok=True)
    url = f"file://{path}#mode=zarr,file"
    # the ids and parameters netCDF-C (with its plugins) shows, and ours
    want = {"fletcher32": ([3, 1], {"3": [], "1": [1]}), "bz2": ([307], {"307": [5]}),
            "lz4": ([32004], {"32004": [3]}), "gzip": ([1], {"1": [6]}),
            "shuffle_fletcher32_bz2": ([2, 3, 307], {"2": [], "3": [], "307": [1]})}
    mine = run_probe(ours, url)
    theirs = run_probe(wheel, url)
    if mine:
        for f in [3, 307, 32004]:
            check(mine["avail"][str(f)] == 0, f"nczarr-rs: nc_inq_filter_avail({f})")
        for name, (ids, params) in want.items():
            v = mine["vars"].get(name, {})
            check(v.get("data") == DATA.tolist(), f"nczarr-rs reads zarr-python's {name}: {v.get('get')}")
            check(v.get("ids") == ids and v.get("params") == params, f"nczarr-rs filters of {name}: {v}")
        check(mine["vars"]["fletcher32"]["fletcher32"] == 1, "nczarr-rs: nc_inq_var_fletcher32")
        check(mine["vars"]["bz2"]["bzip2"] == [0, 1, 5], f"nczarr-rs: nc_inq_var_bzip2 {mine['vars']['bz2']}")
    if mine and theirs:
        for f in [3, 307]:
            check(theirs["avail"][str(f)] == mine["avail"][str(f)], f"nc_inq_filter_avail({f}) as the wheel's")
        for name in ["fletcher32", "bz2", "shuffle_fletcher32_bz2"]:
            t, m = theirs["vars"].get(name, {}), mine["vars"].get(name, {})
            check(t.get("data") == DATA.tolist(), f"the wheel reads zarr-python's {name}: {t.get('get')}")
            for k in ["ids", "params", "fletcher32", "bzip2"]:
                check(t.get(k) == m.get(k), f"{name}: {k} {m.get(k)} as the wheel's {t.get(k)}")
        # lz4 and gzip: netCDF-C has no codec (it reads NC_ENOFILTER)
        for name in ["lz4", "gzip"]:
            print(f"  {name}: the wheel's netCDF-C: ids {theirs['vars'].get(name, {}).get('ids')}, "
                  f"read {theirs['vars'].get(name, {}).get('get')} (no codec in netCDF-C)")

    # 2. nczarr-rs writes each codec; zarr-python and the wheel read it
    ours_url = f"file://{d}/ours_codecs.zarr#mode=nczarr,file"
    mine = run_probe(ours, ours_url, "create")
    theirs = run_probe(wheel, ours_url)
    gz = zarr.open_group(f"{d}/ours_codecs.zarr", mode="r", zarr_format=2)
    codec_ids = {"fletcher32": (["fletcher32"], "zlib"), "bz2": ([], "bz2"), "lz4": ([], "lz4"),
                 "shuffle_fletcher32_bz2": (["shuffle", "fletcher32"], "bz2")}
    for name, (filters, comp) in codec_ids.items():
        a = gz[name]
        check([f.codec_id for f in a.filters] == filters, f"zarr-python: filters of our {name}: {a.filters}")
        check([c.codec_id for c in a.compressors] == [comp], f"zarr-python: compressor of our {name}")
        check(a[:].tolist() == DATA.tolist(), f"zarr-python reads our {name}")
    check(gz["bz2"].compressors[0].level == 9, "zarr-python: our bz2 level")
    if mine and theirs:
        for name in ["fletcher32", "bz2", "shuffle_fletcher32_bz2"]:
            t, m = theirs["vars"].get(name, {}), mine["vars"].get(name, {})
            check(t.get("data") == DATA.tolist(), f"the wheel reads our {name}: {t.get('get')}")
            for k in ["ids", "params", "fletcher32", "bzip2"]:
                check(t.get(k) == m.get(k), f"our {name}: {k} {m.get(k)} as the wheel's {t.get(k)}")

    # 3. nczarr-rs rewrites zarr-python's arrays in place; zarr-python reads them
    run_probe(ours, f"file://{d}/zarr_codecs_rw.zarr#mode=zarr,file", "rewrite")
    grw = zarr.open_group(f"{d}/zarr_codecs_rw.zarr", mode="r", zarr_format=2)
    for name, kw in made.items():
        a = grw[name]
        check(a[:].tolist() == NEW.tolist(), f"zarr-python reads our rewrite of {name}")
        comp = kw["compressor"].get_config()
        check(a.compressors[0].get_config() == comp, f"{name}: codec kept {a.compressors[0].get_config()} == {comp}")
    finish("codecs")


if __name__ == "__main__":
    if sys.argv[1] == "probe":
        lib, url = sys.argv[2], sys.argv[3]
        create = url if len(sys.argv) > 4 and sys.argv[4] == "create" else None
        if create:
            sys.argv = sys.argv[:4]
        print(json.dumps(probe(lib, url, create)))
    else:
        main(*sys.argv[1:4])
