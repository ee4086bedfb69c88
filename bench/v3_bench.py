"""Zarr v3 benchmark (not part of the tests): nczarr-rs (through its netCDF
C API, by ctypes) against zarr-python 3 on the same v3 data, file driver and
optionally S3 (a local server). Each measurement runs in a process of its
own; the best wall time of BENCH_REPEAT runs is kept. Prints a Markdown
table.

Usage: v3_bench.py OURLIB DIR
  BENCH_V3_N       the array is N x N x N float32 (default 256: 64 MiB)
  BENCH_REPEAT     runs per measurement (default 3)
  BENCH_S3_URL     http://host:port/bucket: also on S3 (N/2 there)
  BENCH_V3_CONFIGS default "plain zstd sharded sharded-zstd"
  BENCH_V3_DRIVERS default "file s3" (s3 only with BENCH_S3_URL)

Configurations: chunks of 32^3 (128 KiB); zstd level 1; shards of 128^3
(64 inner chunks of 32^3, index at the end with crc32c, as zarr-python
writes). Cases: `write` (the whole array into a new store), `read` (the
whole array), `random` (200 distinct chunk-aligned 32^3 boxes, i.e. inner
chunks of the shards, in random order). Reads read the store zarr-python
wrote, both libraries the same bytes.

Each write run makes a store of its own (the first under the name the
reads use): replacing the previous run's store would delete hundreds of
files first, and ext4 then creates files slowly for a while (the kernel
skips recently freed inodes), which made single write rows vary 4x.

Internal: v3_bench.py --one LIB DRIVER CONFIG CASE OURLIB DIR N RUN
  -> RESULT <seconds> <bytes> <peak RSS KiB>"""
import ctypes
import os
import resource
import subprocess
import sys
import time

import numpy as np

CHUNK, SHARD, BOXES = 32, 128, 200
NC_NETCDF4, NC_CLOBBER, NC_NOWRITE, NC_FLOAT, NC_CHUNKED = 0x1000, 0, 0, 5, 0


def data(n):
    return (np.arange(n**3, dtype=np.int64) % 1000003).astype("f4").reshape(n, n, n)


def boxes(n):
    g = n // CHUNK
    rng = np.random.default_rng(7)
    picks = rng.choice(g**3, size=min(BOXES, g**3), replace=False)
    return [tuple(int(x) * CHUNK for x in np.unravel_index(p, (g, g, g))) for p in picks]


def location(driver, d, name, s3):
    if driver == "file":
        return f"{d}/{name}.zarr"
    return f"{s3}/{os.path.basename(d.rstrip('/'))}/{name}.zarr"


# ---- nczarr-rs through the netCDF C API --------------------------------------
def run_name(name, run):
    """The store a write run makes: `name` for the first run, which the
    reads then read."""
    return name if run == 0 else f"{name}_r{run}"


def ours(case, driver, config, lib, d, n, s3, run=0):
    lib = ctypes.CDLL(lib)
    rc = lambda r, what: None if r == 0 else sys.exit(f"{what}: {r} {lib.nczarr_rs_last_error()}")
    lib.nczarr_rs_last_error.restype = ctypes.c_char_p
    mode = "zarr,v3," + ("file" if driver == "file" else "s3")
    nc = ctypes.c_int()
    if case == "write":
        arr = data(n)
        url = ("file://" if driver == "file" else "") + location(driver, d, run_name(f"ours_{config}", run), s3)
        t0 = time.perf_counter()
        rc(lib.nc_create(f"{url}#mode={mode}".encode(), NC_NETCDF4 | NC_CLOBBER, ctypes.byref(nc)), "create")
        dims = (ctypes.c_int * 3)()
        for i, name in enumerate("zyx"):
            rc(lib.nc_def_dim(nc, name.encode(), n, ctypes.byref(dims, i * 4)), "dim")
        v = ctypes.c_int()
        rc(lib.nc_def_var(nc, b"v", NC_FLOAT, 3, dims, ctypes.byref(v)), "var")
        rc(lib.nc_def_var_chunking(nc, v, NC_CHUNKED, (ctypes.c_size_t * 3)(CHUNK, CHUNK, CHUNK)), "chunking")
        if "zstd" in config:
            rc(lib.nc_def_var_zstandard(nc, v, 1), "zstd")
        if "sharded" in config:
            rc(lib.nczarr_rs_def_var_shard(nc, v, (ctypes.c_size_t * 3)(SHARD, SHARD, SHARD)), "shard")
        rc(lib.nc_put_var_float(nc, v, arr.ctypes.data_as(ctypes.c_void_p)), "put")
        rc(lib.nc_close(nc), "close")
        return time.perf_counter() - t0, arr.nbytes
    url = ("file://" if driver == "file" else "") + location(driver, d, f"zarr_{config}", s3)
    out = np.full((n, n, n), -1, dtype="f4")
    t0 = time.perf_counter()
    rc(lib.nc_open(f"{url}#mode={mode}".encode(), NC_NOWRITE, ctypes.byref(nc)), "open")
    v = ctypes.c_int()
    rc(lib.nc_inq_varid(nc, b"v", ctypes.byref(v)), "varid")
    if case == "read":
        rc(lib.nc_get_var_float(nc, v, out.ctypes.data_as(ctypes.c_void_p)), "get")
        nbytes = out.nbytes
    else:
        box = np.zeros((CHUNK,) * 3, dtype="f4")
        count = (ctypes.c_size_t * 3)(CHUNK, CHUNK, CHUNK)
        for b in boxes(n):
            rc(lib.nc_get_vara_float(nc, v, (ctypes.c_size_t * 3)(*b), count, box.ctypes.data_as(ctypes.c_void_p)), "vara")
            out[b[0]:b[0] + CHUNK, b[1]:b[1] + CHUNK, b[2]:b[2] + CHUNK] = box
        nbytes = len(boxes(n)) * box.nbytes
    rc(lib.nc_close(nc), "close")
    t1 = time.perf_counter()
    check(out, case, n)
    return t1 - t0, nbytes


# ---- zarr-python 3 -------------------------------------------------------------
def zstore(driver, d, name, s3):
    import zarr
    if driver == "file":
        return zarr.storage.LocalStore(location(driver, d, name, s3))
    from obstore.store import S3Store
    endpoint, bucket = s3.rsplit("/", 1)
    prefix = f"{os.path.basename(d.rstrip('/'))}/{name}.zarr"
    st = S3Store(bucket, prefix=prefix, endpoint=endpoint, region=os.environ.get("AWS_REGION", "us-east-1"),
                 access_key_id=os.environ.get("AWS_ACCESS_KEY_ID"),
                 secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY"), client_options={"allow_http": True})
    return zarr.storage.ObjectStore(st)


def zarr_python(case, driver, config, d, n, s3, run=0):
    import zarr
    import zarr.codecs as zc
    if case == "write":
        arr = data(n)
        t0 = time.perf_counter()
        g = zarr.open_group(zstore(driver, d, run_name(f"zarr_{config}", run), s3), mode="w", zarr_format=3)
        a = g.create_array("v", shape=arr.shape, dtype="f4",
                              chunks=(CHUNK,) * 3, shards=(SHARD,) * 3 if "sharded" in config else None,
                              compressors=zc.ZstdCodec(level=1) if "zstd" in config else None,
                              dimension_names=["z", "y", "x"])
        a[...] = arr
        return time.perf_counter() - t0, arr.nbytes
    out = np.full((n, n, n), -1, dtype="f4")
    t0 = time.perf_counter()
    a = zarr.open_array(zstore(driver, d, f"zarr_{config}", s3), path="v", mode="r")
    if case == "read":
        out[...] = a[...]
        nbytes = out.nbytes
    else:
        for b in boxes(n):
            out[b[0]:b[0] + CHUNK, b[1]:b[1] + CHUNK, b[2]:b[2] + CHUNK] = \
                a[b[0]:b[0] + CHUNK, b[1]:b[1] + CHUNK, b[2]:b[2] + CHUNK]
        nbytes = len(boxes(n)) * CHUNK**3 * 4
    t1 = time.perf_counter()
    check(out, case, n)
    return t1 - t0, nbytes


def check(out, case, n):
    ref = data(n)
    if case == "read":
        assert np.array_equal(out, ref), "read: wrong values"
    else:
        for b in boxes(n)[:20]:
            s = tuple(slice(x, x + CHUNK) for x in b)
            assert np.array_equal(out[s], ref[s]), "random: wrong values"


def one(argv):
    lib_name, driver, config, case, ourlib, d, n, run = argv
    n, s3, run = int(n), os.environ.get("BENCH_S3_URL", ""), int(run)
    if lib_name == "nczarr-rs":
        t, b = ours(case, driver, config, ourlib, d, n, s3, run)
    else:
        t, b = zarr_python(case, driver, config, d, n, s3, run)
    print(f"RESULT {t:.6f} {b} {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}")


def main():
    ourlib, d = sys.argv[1], sys.argv[2]
    n = int(os.environ.get("BENCH_V3_N", 256))
    repeat = int(os.environ.get("BENCH_REPEAT", 3))
    configs = os.environ.get("BENCH_V3_CONFIGS", "plain zstd sharded sharded-zstd").split()
    drivers = [("file", n)] + ([("s3", n // 2)] if os.environ.get("BENCH_S3_URL") else [])
    if os.environ.get("BENCH_V3_DRIVERS"):
        drivers = [d for d in drivers if d[0] in os.environ["BENCH_V3_DRIVERS"].split()]
    os.makedirs(d, exist_ok=True)
    env = dict(os.environ, NCZARR_RS_FSYNC="0")  # zarr-python does not fsync either
    rows = []
    for driver, size in drivers:
        for config in configs:
            for case in ["write", "read", "random"]:
                best = {}
                for lib_name in ["zarr-python", "nczarr-rs"]:  # zarr-python writes what both read
                    for run in range(repeat):
                        cmd = [sys.executable, __file__, "--one", lib_name, driver, config, case, ourlib, d, str(size),
                               str(run)]
                        line = [x for x in subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
                                .stdout.splitlines() if x.startswith("RESULT")][0]
                        t, b, rss = line.split()[1:]
                        t, b, rss = float(t), int(b), int(rss)
                        prev = best.get(lib_name)
                        best[lib_name] = (min(t, prev[0]) if prev else t, b, max(rss, prev[2]) if prev else rss)
                rows.append((driver, size, config, case, best))
                print(f"# {driver} {config} {case}: " +
                      ", ".join(f"{k} {v[0]:.3f}s" for k, v in best.items()), file=sys.stderr)
    print("| driver | array | config | case | zarr-python s | nczarr-rs s | nczarr-rs MB/s | speed-up | peak RSS MB (zarr-python / ours) |")
    print("| --- | --- | --- | --- | ---: | ---: | ---: | ---: | ---: |")
    for driver, size, config, case, best in rows:
        (zt, _, zr), (ot, ob, orss) = best["zarr-python"], best["nczarr-rs"]
        print(f"| {driver} | {size}^3 f4 | {config} | {case} | {zt:.3f} | {ot:.3f} | {ob / 1e6 / ot:.0f} | "
              f"{zt / ot:.1f}x | {zr / 1024:.0f} / {orss / 1024:.0f} |")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        one(sys.argv[2:])
    else:
        main()
