"""Every codec parameter survives a rewrite (issue 30, "Hardening").

zarr-python 3 (with numcodecs) writes one array per codec configuration:
Zarr v3 (bytes little and big, transpose, gzip levels, zstd level and
checksum, blosc cname/clevel/shuffle/typesize/blocksize, crc32c, sharding
with index codecs and the index at the start or end, nested sharding,
zarr-python's numcodecs.* wrappers) and Zarr v2 (every numcodecs
compressor and filter the codec registry knows). nczarr-rs opens each
store for writing through its C API (ctypes), changes one value of every
array, adds an attribute to it and closes. Then each array's codec JSON
(v3 `codecs`; v2 `compressor` and `filters`) must equal zarr-python's
original, compared as JSON values (key order aside; an empty v3
`configuration` is no configuration), and zarr-python must read the
changed value and the attribute back.

Usage: codec_params.py OUTDIR OURLIB

Prints one line per check ("ok ..." / "FAIL ..."); exits 1 if any fails.
"""
import ctypes
import json
import os
import shutil
import sys
import warnings

import numcodecs
import numpy as np
import zarr
import zarr.codecs as zc
import zarr.codecs.numcodecs as znc

warnings.filterwarnings("ignore")
out, ourlib = sys.argv[1], sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
lib = ctypes.CDLL(ourlib)
lib.nc_strerror.restype = ctypes.c_char_p
NC_WRITE = 1
failed = 0


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what)
    failed += not ok


def rc_ok(rc, what):
    if rc:
        raise RuntimeError(f"{what}: {lib.nc_strerror(rc).decode()} ({rc})")


def norm(x):
    """A codec JSON value with v3's empty configurations dropped."""
    if isinstance(x, dict):
        return {k: norm(v) for k, v in x.items() if not (k == "configuration" and v == {})}
    if isinstance(x, list):
        return [norm(v) for v in x]
    return x


def codec_json(path, name, v3):
    if v3:
        with open(f"{path}/{name}/zarr.json") as f:
            return norm(json.load(f)["codecs"])
    with open(f"{path}/{name}/.zarray") as f:
        z = json.load(f)
    return {"compressor": z.get("compressor"), "filters": z.get("filters")}


# The new value each array gets at NEW_AT (first index), by how it is put.
NEW_AT = 3
NEW = {"double": 1234.5, "int": 77, "uchar": 1, "string": "delta"}


def rewrite(path, cases, v3):
    """Opens `path` with our library for writing, puts NEW into every array
    at NEW_AT and an attribute `rewritten`, and closes."""
    nc = ctypes.c_int()
    rc_ok(lib.nc_open(f"file://{path}#mode=zarr,file".encode(), NC_WRITE, ctypes.byref(nc)), f"nc_open {path}")
    for name, (put, ndim) in cases.items():
        v = ctypes.c_int()
        rc_ok(lib.nc_inq_varid(nc, name.encode(), ctypes.byref(v)), f"varid {name}")
        idx = (ctypes.c_size_t * ndim)(*([NEW_AT] + [1] * (ndim - 1)))
        if put == "double":
            val = ctypes.c_double(NEW[put])
        elif put == "int":
            val = ctypes.c_int(NEW[put])
        elif put == "uchar":
            val = ctypes.c_ubyte(NEW[put])
        else:
            val = ctypes.c_char_p(NEW[put].encode())
        rc_ok(getattr(lib, f"nc_put_var1_{put}")(nc, v, idx, ctypes.byref(val)), f"put {name}")
        text = b"rewritten by nczarr-rs"
        rc_ok(lib.nc_put_att_text(nc, v, b"rewritten", len(text), text), f"att {name}")
    rc_ok(lib.nc_close(nc), f"close {path}")


def run(path, cases, v3):
    before = {name: codec_json(path, name, v3) for name in cases}
    try:
        rewrite(path, cases, v3)
    except RuntimeError as e:
        check(False, f"{os.path.basename(path)}: {e}")
        return
    g = zarr.open_group(path, mode="r")
    for name, (put, ndim) in cases.items():
        after = codec_json(path, name, v3)
        check(after == before[name], f"{name}: codec JSON as zarr-python wrote it"
              + ("" if after == before[name] else f"\n     was {json.dumps(before[name])}\n     now {json.dumps(after)}"))
        at = (NEW_AT,) + (1,) * (ndim - 1)
        try:
            a = g[name]
            got = a[at]
            got = got.item() if hasattr(got, "item") else got
            want = NEW[put]
            # (as netCDF converts the double put into an integer array)
            ok = (str(got) == want) if put == "string" else (got == np.asarray(want).astype(a.dtype).item())
            check(ok and a.attrs.get("rewritten") == "rewritten by nczarr-rs",
                  f"{name}: zarr-python reads the new value and attribute ({got!r}, {a.attrs.get('rewritten')!r})")
        except Exception as e:  # noqa: BLE001 (any failure of zarr-python's read is the finding)
            check(False, f"{name}: zarr-python cannot read it back: {e}")


# ---- Zarr v3 ----------------------------------------------------------------
print("== Zarr v3: zarr-python writes, nczarr-rs rewrites, the codecs stay")
p3 = f"{out}/v3.zarr"
g = zarr.open_group(p3, mode="w", zarr_format=3)
f8 = np.arange(48, dtype="f8") / 4
le, be = zc.BytesCodec(endian="little"), zc.BytesCodec(endian="big")
V3 = {
    # name: (create_array keywords, dtype)
    "bytes_little": (dict(serializer=le, compressors=None), "f8"),
    "bytes_big": (dict(serializer=be, compressors=None), "f8"),
    "bytes_big_i2": (dict(serializer=be, compressors=None), "i2"),
    "transpose": (dict(filters=[zc.TransposeCodec(order=(1, 0))], compressors=None, shape=(6, 8), chunks=(3, 4)), "f8"),
    "transpose_big_gzip": (dict(filters=[zc.TransposeCodec(order=(1, 0))], serializer=be,
                                compressors=[zc.GzipCodec(level=2)], shape=(6, 8), chunks=(3, 4)), "f4"),
    "transpose_201_zstd": (dict(filters=[zc.TransposeCodec(order=(2, 0, 1))], compressors=[zc.ZstdCodec(level=3)],
                                shape=(4, 6, 8), chunks=(2, 3, 4)), "f8"),
    "gzip_1": (dict(compressors=[zc.GzipCodec(level=1)]), "f8"),
    "gzip_5": (dict(compressors=[zc.GzipCodec(level=5)]), "f8"),
    "gzip_9": (dict(compressors=[zc.GzipCodec(level=9)]), "f8"),
    "zstd_3_checksum": (dict(compressors=[zc.ZstdCodec(level=3, checksum=True)]), "f8"),
    "zstd_0": (dict(compressors=[zc.ZstdCodec(level=0, checksum=False)]), "f8"),
    "zstd_neg_big": (dict(serializer=be, compressors=[zc.ZstdCodec(level=-3, checksum=True)]), "i4"),
    "zstd_22": (dict(compressors=[zc.ZstdCodec(level=22)]), "f8"),
    "blosc_default": (dict(compressors=[zc.BloscCodec()]), "f8"),
    "blosc_lz4_shuffle": (dict(compressors=[zc.BloscCodec(cname="lz4", clevel=5, shuffle="shuffle")]), "f8"),
    "blosc_zstd_bitshuffle": (dict(compressors=[zc.BloscCodec(cname="zstd", clevel=9, shuffle="bitshuffle",
                                                              blocksize=256)]), "f8"),
    "blosc_blosclz_noshuffle": (dict(compressors=[zc.BloscCodec(cname="blosclz", clevel=1, shuffle="noshuffle")]), "i2"),
    "blosc_zlib_typesize4": (dict(compressors=[zc.BloscCodec(cname="zlib", clevel=3, shuffle="shuffle",
                                                             typesize=4)]), "f8"),
    "blosc_lz4hc_i4": (dict(compressors=[zc.BloscCodec(cname="lz4hc", clevel=7, shuffle="shuffle")]), "i4"),
    "crc32c": (dict(compressors=[zc.Crc32cCodec()]), "f8"),
    "gzip_crc32c": (dict(compressors=[zc.GzipCodec(level=4), zc.Crc32cCodec()]), "f8"),
    "shard_end_crc32c": (dict(serializer=zc.ShardingCodec(chunk_shape=(4,), codecs=[le, zc.ZstdCodec(level=5, checksum=True)],
                                                          index_codecs=[le, zc.Crc32cCodec()]),
                              compressors=None, chunks=(16,)), "f8"),
    "shard_start_plain_index": (dict(serializer=zc.ShardingCodec(chunk_shape=(4,), codecs=[le, zc.GzipCodec(level=7)],
                                                                 index_codecs=[le], index_location="start"),
                                     compressors=None, chunks=(16,)), "f8"),
    "shard_big_blosc": (dict(serializer=zc.ShardingCodec(chunk_shape=(4,), codecs=[be, zc.BloscCodec(
        cname="zstd", clevel=4, shuffle="bitshuffle")], index_codecs=[le, zc.Crc32cCodec()], index_location="start"),
        compressors=None, chunks=(16,)), "i4"),
    "shard_then_gzip": (dict(serializer=zc.ShardingCodec(chunk_shape=(4,), codecs=[le]),
                             compressors=[zc.GzipCodec(level=3)], chunks=(16,)), "f8"),
    "shard_nested": (dict(serializer=zc.ShardingCodec(chunk_shape=(8,), codecs=[zc.ShardingCodec(
        chunk_shape=(4,), codecs=[le, zc.ZstdCodec(level=2, checksum=True)], index_codecs=[le, zc.Crc32cCodec()],
        index_location="start")], index_codecs=[le, zc.Crc32cCodec()]), compressors=None, chunks=(16,)), "f8"),
    "numcodecs_zlib": (dict(compressors=[znc.Zlib(level=3)]), "f8"),
    "numcodecs_bz2": (dict(compressors=[znc.BZ2(level=7)]), "f8"),
    "numcodecs_lz4": (dict(compressors=[znc.LZ4(acceleration=2)]), "f8"),
    "numcodecs_lzma": (dict(compressors=[znc.LZMA(preset=2)]), "f8"),
    "numcodecs_shuffle_zlib": (dict(compressors=[znc.Shuffle(elementsize=8), znc.Zlib(level=1)]), "f8"),
    "numcodecs_fletcher32": (dict(compressors=[znc.Fletcher32()]), "f8"),
    "numcodecs_crc32_adler32": (dict(compressors=[znc.CRC32(), znc.Adler32()]), "f8"),
}
cases = {}
for name, (kw, dt) in V3.items():
    kw = dict(kw)
    shape, chunks = kw.pop("shape", (48,)), kw.pop("chunks", (8,))
    a = g.create_array(name, shape=shape, chunks=chunks, dtype=dt, **kw)
    a[...] = (np.arange(np.prod(shape)).reshape(shape) / 4).astype(dt)
    cases[name] = ("double", len(shape))
run(p3, cases, True)

# ---- Zarr v2 ----------------------------------------------------------------
print("== Zarr v2: zarr-python writes numcodecs' codecs, nczarr-rs rewrites, the codecs stay")
p2 = f"{out}/v2.zarr"
g = zarr.open_group(p2, mode="w", zarr_format=2)
LABELS = ["alpha", "beta", "gamma", "delta"]
V2 = {
    # name: (compressor, filters, dtype, how NEW is put)
    "zlib_0": (numcodecs.Zlib(level=0), None, "f8", "double"),
    "zlib_9": (numcodecs.Zlib(level=9), None, "f8", "double"),
    "gzip_4": (numcodecs.GZip(level=4), None, "f8", "double"),
    "bz2_3": (numcodecs.BZ2(level=3), None, "f8", "double"),
    "lz4_5": (numcodecs.LZ4(acceleration=5), None, "f8", "double"),
    "zstd_7_checksum": (numcodecs.Zstd(level=7, checksum=True), None, "f8", "double"),
    "zstd_neg": (numcodecs.Zstd(level=-1), None, "i4", "int"),
    "blosc_lz4": (numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE), None, "f8", "double"),
    "blosc_zstd_bit": (numcodecs.Blosc(cname="zstd", clevel=9, shuffle=numcodecs.Blosc.BITSHUFFLE, blocksize=512),
                       None, "f8", "double"),
    "blosc_auto": (numcodecs.Blosc(cname="blosclz", clevel=2, shuffle=numcodecs.Blosc.AUTOSHUFFLE), None, "i2", "int"),
    "blosc_zlib_none": (numcodecs.Blosc(cname="zlib", clevel=1, shuffle=numcodecs.Blosc.NOSHUFFLE), None, "i4", "int"),
    "lzma_xz": (numcodecs.LZMA(check=0, preset=3), None, "f8", "double"),
    "lzma_alone": (numcodecs.LZMA(format=2, preset=1), None, "f8", "double"),
    "lzma_raw": (numcodecs.LZMA(format=3, filters=[dict(id=3, dist=8), dict(id=33, preset=1)]), None, "f8", "double"),
    "shuffle": (numcodecs.Zlib(level=1), [numcodecs.Shuffle(elementsize=8)], "f8", "double"),
    "fletcher32": (None, [numcodecs.Fletcher32()], "f8", "double"),
    "crc32": (None, [numcodecs.CRC32()], "i4", "int"),
    "adler32_end": (None, [numcodecs.Adler32(location="end")], "f8", "double"),
    "delta": (numcodecs.Zstd(level=1), [numcodecs.Delta(dtype="<i4", astype="<i8")], "i4", "int"),
    "fixedscaleoffset": (None, [numcodecs.FixedScaleOffset(offset=1000, scale=10, dtype="<f8", astype="<i4")],
                         "f8", "double"),
    "quantize": (None, [numcodecs.Quantize(digits=3, dtype="<f8", astype="<f4")], "f8", "double"),
    "bitround": (None, [numcodecs.BitRound(keepbits=12)], "f4", "double"),
    "astype": (None, [numcodecs.AsType(encode_dtype="<f4", decode_dtype="<f8")], "f8", "double"),
    "packbits": (None, [numcodecs.PackBits()], "|b1", "uchar"),
    "categorize": (None, [numcodecs.Categorize(labels=LABELS, dtype="<U5")], "<U5", "string"),
    "filters_chain": (numcodecs.BZ2(level=9), [numcodecs.Delta(dtype="<i4"), numcodecs.Shuffle(elementsize=4),
                                               numcodecs.Fletcher32()], "i4", "int"),
}
cases = {}
for name, (comp, filters, dt, put) in V2.items():
    a = g.create_array(name, shape=(48,), chunks=(8,), dtype=dt, compressors=comp, filters=filters)
    if dt == "|b1":
        a[...] = np.arange(48) % 3 == 0
    elif dt.startswith("<U"):
        a[...] = np.array([LABELS[i % 3] for i in range(48)], dtype=dt)
    else:
        a[...] = (np.arange(48) / 4 if dt[0] == "f" else np.arange(48) * 3).astype(dt)
    cases[name] = (put, 1)
run(p2, cases, False)

print(f"codec_params: {failed} failed")
sys.exit(1 if failed else 0)
