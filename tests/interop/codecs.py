"""Codecs both ways (issue 11, and the codec parity issue).

1-3. fletcher32, bz2, lz4 and gzip: zarr-python writes an array per codec;
nczarr-rs reads them, and so does the wheel's netCDF-C with its plugins
where it has the codec (fletcher32, bz2), giving the same values and the
same filter ids and parameters. Then nczarr-rs writes each codec through
the netCDF filter API (and rewrites zarr-python's arrays in place), and
zarr-python and the wheel read that.
4. zlib at levels 0-9: nczarr-rs and the wheel's netCDF-C each write
nc_def_var_deflate(level k) of the same data; the .zarray codec JSON and
the chunk bytes must be identical, and each library reads the other's.
5. numcodecs' lzma, crc32, adler32 and array filters (delta,
fixedscaleoffset, quantize, bitround, packbits, astype, categorize):
zarr-python writes them, nczarr-rs reads the values zarr-python reads;
nczarr-rs rewrites them in place, zarr-python reads the new values, and
(for the deterministic codecs) the chunks nczarr-rs wrote are byte for
byte the ones zarr-python writes for the same data. The wheel's netCDF-C
has none of these codecs (no plugin): it reads them as NC_ENOFILTER.

Usage: codecs.py DIR OURLIB WHEELLIB
       codecs.py probe LIB URL [NEWDATA]   (one library, in its own process)
       codecs.py levels LIB URL            (writes the zlib level variables)
       codecs.py typed LIB URL SPEC        (reads, or rewrites, typed variables)"""
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


def levels(lib, url):
    """nc_def_var_deflate(level k) for k in 0-9 on the same data."""
    nc = ctypes.CDLL(lib)
    ncid, dim, v = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
    rc = nc.nc_create(url.encode(), 0x1000, ctypes.byref(ncid))
    assert rc == 0, rc
    assert nc.nc_def_dim(ncid, b"x", ctypes.c_size_t(len(LEVEL_DATA)), ctypes.byref(dim)) == 0
    ch = (ctypes.c_size_t * 1)(LEVEL_CHUNK)
    for k in range(10):
        assert nc.nc_def_var(ncid, f"z{k}".encode(), 4, 1, ctypes.byref(dim), ctypes.byref(v)) == 0
        assert nc.nc_def_var_chunking(ncid, v, 1, ch) == 0
        assert nc.nc_def_var_deflate(ncid, v, 0, 1, k) == 0, f"deflate level {k}"
        assert nc.nc_put_var_int(ncid, v, LEVEL_DATA.ctypes.data_as(ctypes.POINTER(ctypes.c_int))) == 0
    assert nc.nc_close(ncid) == 0
    return {}


# the netCDF C type of each kind of variable: (nc_get/put_var suffix, numpy dtype)
KINDS = {"int": ("int", "i4"), "double": ("double", "f8"), "float": ("float", "f4"), "uchar": ("uchar", "u1")}


def typed(lib, url, spec):
    """Reads every variable of SPEC ({name: kind}) with LIB, or first
    rewrites it with the spec's new values ({"new": {name: values}})."""
    spec = json.loads(spec)
    nc = ctypes.CDLL(lib)
    ncid = ctypes.c_int()
    new = spec.get("new")
    rc = nc.nc_open(url.encode(), 1 if new else 0, ctypes.byref(ncid))
    if rc != 0:
        raise RuntimeError(f"nc_open {rc}")
    out = {}
    for name, kind in spec["vars"].items():
        v, nf = ctypes.c_int(), ctypes.c_size_t()
        if nc.nc_inq_varid(ncid, name.encode(), ctypes.byref(v)) != 0:
            out[name] = {"get": "no variable"}
            continue
        ids = (ctypes.c_uint * 16)()
        nc.nc_inq_var_filter_ids(ncid, v, ctypes.byref(nf), ids)
        n = spec["n"]
        if new:
            vals = new[name]
            if kind == "string":
                arr = (ctypes.c_char_p * n)(*[x.encode() for x in vals])
                rc = nc.nc_put_var_string(ncid, v, arr)
            else:
                a = np.ascontiguousarray(vals, dtype=KINDS[kind][1])
                rc = getattr(nc, f"nc_put_var_{KINDS[kind][0]}")(ncid, v, a.ctypes.data_as(ctypes.c_void_p))
            out[name] = {"put": rc}
            continue
        if kind == "string":
            arr = (ctypes.c_char_p * n)()
            rc = nc.nc_get_var_string(ncid, v, arr)
            data = [x.decode() if x else "" for x in arr] if rc == 0 else None
            if rc == 0:
                nc.nc_free_string(ctypes.c_size_t(n), arr)
        else:
            a = np.zeros(n, dtype=KINDS[kind][1])
            rc = getattr(nc, f"nc_get_var_{KINDS[kind][0]}")(ncid, v, a.ctypes.data_as(ctypes.c_void_p))
            data = a.tolist() if rc == 0 else None
        out[name] = {"ids": list(ids[: nf.value]), "get": rc, "data": data}
    rc = nc.nc_close(ncid)
    if rc != 0:
        raise RuntimeError(f"nc_close {rc}")
    return out


def run_probe(lib, url, *extra, cmd="probe", must=True, env=None):
    r = subprocess.run([sys.executable, __file__, cmd, lib, url, *extra], capture_output=True, text=True,
                       env=dict(os.environ, **(env or {})))
    if r.returncode != 0 and not must:
        print(f"  {os.path.basename(lib)} {cmd} {url}: {r.stderr.strip().splitlines()[-1]}")
        return None
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

    zlib_levels(d, ours, wheel)
    numcodecs_filters(d, ours, wheel)
    finish("codecs")


LEVEL_DATA = (np.arange(4000, dtype="i4") // 7) * 3 - 100
LEVEL_CHUNK = 1500


def zlib_levels(d, ours, wheel):
    """4. zlib levels 0-9: the same .zarray JSON as netCDF-C; with
    NCZARR_RS_DEFLATE=zlib the same chunk bytes, by default (libdeflate)
    standard streams within 10 % of zlib's size, that both read."""
    written = {}
    for who, lib, env in [("ours", ours, {"NCZARR_RS_DEFLATE": "zlib"}), ("wheel", wheel, None),
                          ("ours_default", ours, {"NCZARR_RS_DEFLATE": ""})]:
        path = f"{d}/levels_{who}.zarr"
        shutil.rmtree(path, ignore_errors=True)
        written[who] = path
        run_probe(lib, f"file://{path}#mode=nczarr,file", cmd="levels", env=env)
    for k in range(10):
        za = json.load(open(f"{written['ours_default']}/z{k}/.zarray"))
        check(za["compressor"] == {"id": "zlib", "level": k}, f"zlib level {k} (libdeflate): {za['compressor']}")
        size = {w: sum(os.path.getsize(f"{written[w]}/z{k}/{c}") for c in os.listdir(f"{written[w]}/z{k}")
                       if not c.startswith(".")) for w in ["ours_default", "wheel"]}
        check(size["ours_default"] <= 1.1 * size["wheel"],
              f"zlib level {k}: libdeflate's chunks {size['ours_default']} bytes, zlib's {size['wheel']}")
        za = [json.load(open(f"{written[w]}/z{k}/.zarray")) for w in ["ours", "wheel"]]
        check(za[0]["compressor"] == za[1]["compressor"] == {"id": "zlib", "level": k},
              f"zlib level {k}: compressor {za[0]['compressor']} vs netCDF-C's {za[1]['compressor']}")
        check(za[0]["filters"] == za[1]["filters"], f"zlib level {k}: filters {za[0]['filters']} vs {za[1]['filters']}")
        chunks = sorted(os.listdir(f"{written['wheel']}/z{k}"))
        check(chunks == sorted(os.listdir(f"{written['ours']}/z{k}")), f"zlib level {k}: the same chunk keys")
        for c in [c for c in chunks if not c.startswith(".")]:
            a, b = (open(f"{written[w]}/z{k}/{c}", "rb").read() for w in ["ours", "wheel"])
            check(a == b, f"zlib level {k} chunk {c}: {len(a)} bytes vs netCDF-C's {len(b)}, not identical")
    spec = json.dumps({"n": len(LEVEL_DATA), "vars": {f"z{k}": "int" for k in range(10)}})
    for reader, lib in [("nczarr-rs", ours), ("the wheel", wheel)]:
        for who in ["ours", "wheel", "ours_default"]:
            got = run_probe(lib, f"file://{written[who]}#mode=nczarr,file", spec, cmd="typed") or {}
            for k in range(10):
                v = got.get(f"z{k}", {})
                check(v.get("data") == LEVEL_DATA.tolist() and v.get("ids") == [1],
                      f"{reader} reads {who}'s zlib level {k}: {v.get('get')} {v.get('ids')}")


N2 = 50
LABELS = ["female", "male", "x"]


def numcodecs_cases():
    """name -> (kind, numpy data, zarr-python create_array arguments, new data)."""
    import lzma
    import numcodecs

    x = np.arange(N2)
    i4 = (x * x - 300).astype("<i4")
    f8 = np.linspace(1000, 1004.9, N2)
    f4 = (np.sin(x / 7) * 1000).astype("<f4")
    words = np.array([(LABELS + ["", "other"])[i % 5] for i in range(N2)], dtype="<U6")
    lz_filters = [dict(id=lzma.FILTER_DELTA, dist=4), dict(id=lzma.FILTER_LZMA2, preset=1)]
    return {
        "delta": ("int", i4, dict(filters=[numcodecs.Delta(dtype="<i4", astype="<i2")]), i4[::-1].copy()),
        "delta_zlib": ("int", i4, dict(filters=[numcodecs.Delta(dtype="<i4")], compressor=numcodecs.Zlib(level=3)),
                       i4 * 2),
        "fixedscaleoffset": ("double", f8, dict(filters=[numcodecs.FixedScaleOffset(
            offset=1000, scale=10, dtype="<f8", astype="<u2")]), f8 + 0.37),
        "quantize": ("double", f8, dict(filters=[numcodecs.Quantize(digits=2, dtype="<f8", astype="<f4")]),
                     f8 / 3),
        "bitround": ("float", f4, dict(filters=[numcodecs.BitRound(keepbits=6)]), f4 * 1.5),
        "packbits": ("uchar", (x % 3 == 0).astype("|b1"), dict(filters=[numcodecs.PackBits()]),
                     (x % 4 == 1).astype("|b1")),
        "astype": ("double", f8, dict(filters=[numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")]), f8 * 7.1),
        "categorize": ("string", words, dict(filters=[numcodecs.Categorize(labels=LABELS, dtype="<U6")]),
                       words[::-1].copy()),
        "crc32": ("int", i4, dict(filters=[numcodecs.CRC32()]), i4 + 5),
        "adler32": ("double", f8, dict(filters=[numcodecs.Adler32(location="end")]), f8 - 1),
        "lzma": ("int", i4, dict(compressor=numcodecs.LZMA()), i4 - 1),
        "lzma_alone": ("double", f8, dict(compressor=numcodecs.LZMA(format=2, preset=1)), f8 * 2),
        "lzma_raw": ("int", i4, dict(compressor=numcodecs.LZMA(format=3, filters=lz_filters)), i4 * 3),
        "lzma_sha256": ("float", f4, dict(compressor=numcodecs.LZMA(check=10, preset=9 | lzma.PRESET_EXTREME)),
                        f4 - 2),
    }


def as_values(kind, arr):
    if kind == "string":
        return [str(s) for s in arr]
    if kind == "uchar":
        return arr.astype("u1").tolist()
    return arr.tolist()


def numcodecs_filters(d, ours, wheel):
    """5. numcodecs' codecs beyond netCDF-C's, both ways."""
    import zarr

    cases = numcodecs_cases()
    paths = {w: f"{d}/numcodecs_{w}.zarr" for w in ["zarr", "rw", "twin"]}
    for p in paths.values():
        shutil.rmtree(p, ignore_errors=True)
    # zarr-python writes each array, and a twin with the new data
    for which, use_new in [("zarr", False), ("twin", True)]:
        g = zarr.open_group(paths[which], mode="w", zarr_format=2)
        for name, (kind, data, kw, new) in cases.items():
            fill = "" if kind == "string" else (False if kind == "uchar" else 0)
            kw = {"compressor": None, **kw}  # not zarr-python's default Blosc
            a = g.create_array(name, shape=(N2,), chunks=(16,), dtype=data.dtype, fill_value=fill, **kw)
            a.attrs["_ARRAY_DIMENSIONS"] = ["x"]
            a[:] = new if use_new else data
    shutil.copytree(paths["zarr"], paths["rw"])
    spec = {"n": N2, "vars": {n: c[0] for n, c in cases.items()}}
    # nczarr-rs reads what zarr-python reads
    zr = zarr.open_group(paths["zarr"], mode="r", zarr_format=2)
    mine = run_probe(ours, f"file://{paths['zarr']}#mode=zarr,file", json.dumps(spec), cmd="typed") or {}
    for name, (kind, data, kw, new) in cases.items():
        want = as_values(kind, zr[name][:])
        got = mine.get(name, {})
        check(got.get("get") == 0 and got.get("data") == want,
              f"nczarr-rs reads zarr-python's {name} as zarr-python does: {got.get('get')} "
              f"{str(got.get('data'))[:120]} vs {str(want)[:120]}")
        comp = kw.get("compressor")
        hdf5 = {"zlib": [1]}.get(comp.codec_id if comp else None, [])
        check(got.get("ids") == hdf5, f"{name}: filter ids {got.get('ids')}, not {hdf5} (only zlib has an HDF5 id)")
    # the wheel's netCDF-C has none of them: an error (NC_ENOFILTER), never
    # other data (it cannot open a group with the |b1 and <U6 arrays at all)
    numeric = f"{d}/numcodecs_numeric.zarr"
    shutil.rmtree(numeric, ignore_errors=True)
    shutil.copytree(paths["zarr"], numeric)
    for name in ["packbits", "categorize"]:
        shutil.rmtree(f"{numeric}/{name}")
    nspec = {"n": N2, "vars": {n: k for n, k in spec["vars"].items() if n not in ["packbits", "categorize"]}}
    theirs = run_probe(wheel, f"file://{numeric}#mode=zarr,file", json.dumps(nspec), cmd="typed") or {}
    for name in nspec["vars"]:
        t = theirs.get(name, {})
        check(t.get("get") == -136 or t.get("data") == mine.get(name, {}).get("data"),
              f"the wheel reads {name} otherwise than NC_ENOFILTER or our data: {t.get('get')}")
        print(f"  {name}: the wheel's netCDF-C reads it with status {t.get('get')}")
    # nczarr-rs rewrites them in place; zarr-python reads the new values
    spec["new"] = {n: as_values(c[0], c[3]) for n, c in cases.items()}
    wrote = run_probe(ours, f"file://{paths['rw']}#mode=zarr,file", json.dumps(spec), cmd="typed") or {}
    rw = zarr.open_group(paths["rw"], mode="r", zarr_format=2)
    twin = zarr.open_group(paths["twin"], mode="r", zarr_format=2)
    for name, (kind, data, kw, new) in cases.items():
        check(wrote.get(name, {}).get("put") == 0, f"nczarr-rs rewrites {name}: {wrote.get(name)}")
        got, want = as_values(kind, rw[name][:]), as_values(kind, twin[name][:])
        check(got == want, f"zarr-python reads our {name} as its own: {str(got)[:100]} vs {str(want)[:100]}")
        za = [json.load(open(f"{paths[w]}/{name}/.zarray")) for w in ["rw", "zarr"]]
        for key in ["dtype", "compressor", "filters"]:
            check(za[0][key] == za[1][key], f"{name}: .zarray {key} kept: {za[0][key]} vs {za[1][key]}")
        if name.startswith("lzma") or "zlib" in name:
            continue  # another liblzma/zlib build may pick other matches
        for c in ["0", "1", "2", "3"]:
            a, b = (open(f"{paths[w]}/{name}/{c}", "rb").read() for w in ["rw", "twin"])
            check(a == b, f"{name} chunk {c}: our bytes are not numcodecs' ({len(a)} vs {len(b)} bytes)")


if __name__ == "__main__":
    if sys.argv[1] == "levels":
        print(json.dumps(levels(sys.argv[2], sys.argv[3])))
    elif sys.argv[1] == "typed":
        print(json.dumps(typed(sys.argv[2], sys.argv[3], sys.argv[4])))
    elif sys.argv[1] == "probe":
        lib, url = sys.argv[2], sys.argv[3]
        create = url if len(sys.argv) > 4 and sys.argv[4] == "create" else None
        if create:
            sys.argv = sys.argv[:4]
        print(json.dumps(probe(lib, url, create)))
    else:
        main(*sys.argv[1:4])
