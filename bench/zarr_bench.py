"""The benchmark cases of bench.c with zarr-python 3 (Zarr v2 format,
uncompressed, 64^3 chunks; 10^6 for the 1-D cases), one case per process.

Usage: zarr_bench.py CASE DIR   -> prints RESULT <case> <s> <bytes> <peak KiB>"""
import os
import resource
import sys
import time

import numpy as np
import zarr

case, d = sys.argv[1], sys.argv[2]
NX, NY, NZ = (int(os.environ.get(k, v)) for k, v in (("BENCH_NX", 1024), ("BENCH_NY", 512), ("BENCH_NZ", 512)))
N1D = int(os.environ.get("BENCH_N1D", 100_000_000))
path = f"{d}/big_zarr.zarr"
path1d = f"{d}/one_zarr.zarr"
nbytes = 0
if case == "write":
    data = (np.arange(NX * NY * NZ, dtype=np.int64) % 1000003).astype("f4").reshape(NX, NY, NZ)
    t0 = time.perf_counter()
    a = zarr.create_array(path, shape=data.shape, chunks=(64, 64, 64), dtype="f4", zarr_format=2,
                          compressors=None, fill_value=None, overwrite=True)
    a[...] = data
    t1 = time.perf_counter()
    nbytes = data.nbytes
elif case == "read":
    out = np.full((NX, NY, NZ), -1, dtype="f4")
    t0 = time.perf_counter()
    a = zarr.open_array(path, mode="r")
    out[...] = a[...]
    t1 = time.perf_counter()
    assert out[1, 2, 3] == (1 * NY * NZ + 2 * NZ + 3) % 1000003
    nbytes = out.nbytes
elif case == "slabs":
    t0 = time.perf_counter()
    a = zarr.open_array(path, mode="r")
    for k in range(16):
        p = a[:, :, (k * 37) % NZ]
    t1 = time.perf_counter()
    nbytes = 16 * NX * NY * 4
elif case == "points":
    rng = np.random.default_rng(1)
    idx = np.stack([rng.integers(0, n, 10000) for n in (NX, NY, NZ)], axis=1)
    t0 = time.perf_counter()
    a = zarr.open_array(path, mode="r")
    for i, j, k in idx:
        v = a[i, j, k]
    t1 = time.perf_counter()
    nbytes = 40000
elif case == "write-1d":
    data = (np.arange(N1D, dtype=np.int64) % 1000003).astype("f4")
    t0 = time.perf_counter()
    a = zarr.create_array(path1d, shape=data.shape, chunks=(1_000_000,), dtype="f4", zarr_format=2,
                          compressors=None, fill_value=None, overwrite=True)
    a[...] = data
    t1 = time.perf_counter()
    nbytes = data.nbytes
elif case in ("read-1d", "strided-1d"):
    step = 7 if case == "strided-1d" else 1
    out = np.full(((N1D + step - 1) // step,), -1, dtype="f4")
    t0 = time.perf_counter()
    a = zarr.open_array(path1d, mode="r")
    out[...] = a[::step]
    t1 = time.perf_counter()
    assert out[3] == (3 * step) % 1000003
    nbytes = out.nbytes
elif case == "meta-create":
    t0 = time.perf_counter()
    g = zarr.open_group(f"{d}/meta_zarr.zarr", mode="w", zarr_format=2)
    for j in range(1000):
        arr = g.create_array(f"var{j:04d}", shape=(10,), dtype="f8", compressors=None)
        arr.attrs.update({f"att{k}": j + k * 0.5 for k in range(10)})
    t1 = time.perf_counter()
elif case == "meta-open":
    t0 = time.perf_counter()
    g = zarr.open_group(f"{d}/meta_zarr.zarr", mode="r", zarr_format=2)
    n = sum(len(a.attrs) for _, a in g.arrays())
    t1 = time.perf_counter()
    assert n == 10000, n
elif case in ("zwrite", "zread"):
    # bench.c's compressed cases: the same values (zvalue), codecs and chunks
    import numcodecs
    codec = os.environ.get("BENCH_CODEC", "zlib1")
    ZX, ZY, ZZ = (int(os.environ.get(k, v)) for k, v in (("BENCH_ZX", 512), ("BENCH_ZY", 256), ("BENCH_ZZ", 256)))
    zpath = f"{d}/z-{codec}.zarr"
    x, y, z = np.ogrid[:ZX, :ZY, :ZZ]
    want = (((x * 3 + y * 5 + z * 7) % 4096).astype("f4") + ((x * y + z * 131) % 97).astype("f4") * np.float32(0.125))
    if codec.startswith("zlib"):
        filters, compressor = [numcodecs.Shuffle(elementsize=4)], numcodecs.Zlib(level=int(codec[4:]))
    elif codec.startswith("zstd"):
        filters, compressor = None, numcodecs.Zstd(level=int(codec[4:]))
    elif codec == "blosc-lz4":
        filters, compressor = None, numcodecs.Blosc(cname="lz4", clevel=5, shuffle=numcodecs.Blosc.SHUFFLE)
    else:
        sys.exit(f"unknown BENCH_CODEC {codec}")
    if case == "zwrite":
        t0 = time.perf_counter()
        a = zarr.create_array(zpath, shape=want.shape, chunks=(64, 64, 64), dtype="f4", zarr_format=2,
                              filters=filters, compressors=compressor, fill_value=None, overwrite=True)
        a[...] = want
        t1 = time.perf_counter()
    else:
        out = np.full(want.shape, -1, dtype="f4")
        t0 = time.perf_counter()
        a = zarr.open_array(zpath, mode="r")
        out[...] = a[...]
        t1 = time.perf_counter()
        assert np.array_equal(out, want)
    nbytes = want.nbytes
else:
    sys.exit(f"unknown case {case}")
print(f"RESULT {case} {t1 - t0:.6f} {nbytes} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")
