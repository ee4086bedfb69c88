"""Round three (issue 29, not part of the tests): nczarr-rs (through its
netCDF C API, by ctypes) against the fastest Zarr engines: zarr-python 3,
zarr-python with the zarrs codec pipeline (the `zarrs` package), and
TensorStore (its zarr3 driver on the file kvstore), with the physical limit
of each case beside them. Each measurement runs in a process of its own;
the best wall time of BENCH_REPEAT runs is kept, the runs of the engines
interleaved. Prints a Markdown table.

Usage: peers_bench.py OURLIB DIR
  BENCH_N       the array is N x N x N uint16 (default 512: 256 MiB)
  BENCH_REPEAT  runs per measurement (default 3)
  BENCH_CASES   rows to run, by their short names (default: all of
                read-plain read-zstd read-sharded write-plain write-zstd
                write-sharded random-plain random-zstd random-sharded)
  BENCH_ENGINES default "ours ours-1 zarr-python zarrs tensorstore"

The data: Zarr v3, a root group with `v(z,y,x)` uint16 in chunks of 64^3
(512 KiB), a smooth field with 6 bits of noise (zstd 1 makes 37 %
of it). Three configurations: `plain` (the bytes codec only), `zstd` (zstd
level 1), `sharded` (shards of 256^3 holding 64 zstd-1 chunks of 64^3, the
index at the end with crc32c, as zarr-python writes). The stores the reads
read are written once by zarr-python (untimed); every engine reads the same
bytes, warm in the page cache.

Cases: `read` (the whole array, into a new array), `write` (the whole array
into a new store of its own, root group included; what it wrote is read
back through zarr-python and its codecs checked, untimed), `random` (one
64^3 chunk-aligned box per request, one request after another: 64 distinct
random chunks for plain and zstd; for sharded every inner chunk once, in
random order, at most 1 000: at 512^3 the array holds 512). Every value
read is checked.

Engines: `ours` (nc_open + nc_get_var_ushort / nc_get_vara_ushort +
nc_close; nc_create `#mode=zarr,v3,file` + nc_def_var_chunking +
nc_def_var_zstandard + nczarr_rs_def_var_shard + nc_put_var_ushort +
nc_close), with NCZARR_RS_FSYNC=0 since no peer fsyncs; `ours-1` the same
with one thread (RAYON_NUM_THREADS=1 sizes the library's pool of chunk
workers, one per core by default); `zarr-python` (zarr 3, its default
codec pipeline); `zarrs` (zarr-python with codec_pipeline.path
zarrs.ZarrsCodecPipeline); `tensorstore` (zarr3 driver, file kvstore,
default context and concurrency). All with their defaults otherwise.

The limit of a row, the larger of: reads, `cat` of the store's files into
/dev/null (random rows: open + pread + close of just the bytes the requests
need, shard index entries included, in one Python loop); writes, `cp -r`
of zarr-python's store of the same configuration (the same bytes into the
same number of files, no fsync); zstd rows, the bytes through zstd level 1
(`zstd -b1` on 64 of the array's chunks in 512 KiB blocks: its own
single-core speed) divided by the cores.

Write stores go after their row, and the next write row waits
BENCH_SETTLE seconds (default 31): ext4 creates files slowly for a while
after many deletes (see bench/v3_bench.py).

Internal: peers_bench.py --one ENGINE CASE CONFIG OURLIB DIR N RUN
  -> RESULT <seconds>"""
import ctypes
import json
import os
import re
import shutil
import subprocess
import sys
import time

import numpy as np

CHUNK = 64
NC_NETCDF4, NC_CLOBBER, NC_NOWRITE, NC_USHORT, NC_CHUNKED = 0x1000, 0, 0, 8, 0
ENGINES = {"ours": "ours", "ours-1": "ours, 1 thread", "zarr-python": "zarr-python 3",
           "zarrs": "zarr-python + zarrs", "tensorstore": "TensorStore"}
CASES = [("read-plain", "read, plain (bytes only)"), ("read-zstd", "read, zstd 1"),
         ("read-sharded", "read, sharded (256^3 shards of zstd 64^3 chunks)"),
         ("write-plain", "write, plain"), ("write-zstd", "write, zstd 1"), ("write-sharded", "write, sharded"),
         ("random-plain", "random: 64 chunks, plain"), ("random-zstd", "random: 64 chunks, zstd 1"),
         ("random-sharded", "random: every inner chunk, sharded")]


def shard(n):
    return min(256, n)


def data(n):
    """The array: a smooth field plus 6 bits of noise, made slab by slab."""
    out = np.empty((n, n, n), dtype=np.uint16)
    y = np.arange(n, dtype=np.uint32)[:, None]
    x = np.arange(n, dtype=np.uint32)[None, :]
    for z in range(n):
        i = np.arange(z * n * n, (z + 1) * n * n, dtype=np.uint32).reshape(n, n)
        out[z] = (np.uint32(z * 3) + y * np.uint32(5) + x * np.uint32(7)) * np.uint32(8) + \
            ((i * np.uint32(2654435761)) >> np.uint32(26))
    return out


def boxes(config, n):
    """The random rows' boxes: chunk origins, in the order they are read."""
    g = n // CHUNK
    rng = np.random.default_rng(29)
    count = min(1000, g**3) if config == "sharded" else min(64, g**3)
    picks = rng.choice(g**3, size=count, replace=False)
    return [tuple(int(x) * CHUNK for x in np.unravel_index(p, (g, g, g))) for p in picks]


def read_store(d, config):
    """The store zarr-python wrote, which every engine reads."""
    return f"{d}/zarr_{config}.zarr"


def write_store(d, engine, config, run):
    return f"{d}/w_{engine}_{config}_{run}.zarr"


# ---- nczarr-rs through the netCDF C API --------------------------------------
def ours(case, config, lib, d, n, run, engine):
    lib = ctypes.CDLL(lib)
    lib.nczarr_rs_last_error.restype = ctypes.c_char_p
    rc = lambda r, what: None if r == 0 else sys.exit(f"{what}: {r} {lib.nczarr_rs_last_error()}")
    nc, v = ctypes.c_int(), ctypes.c_int()
    if case == "write":
        arr, path = data(n), write_store(d, engine, config, run)
        t0 = time.perf_counter()
        rc(lib.nc_create(f"file://{path}#mode=zarr,v3,file".encode(), NC_NETCDF4 | NC_CLOBBER, ctypes.byref(nc)),
           "create")
        dims = (ctypes.c_int * 3)()
        for i, name in enumerate("zyx"):
            rc(lib.nc_def_dim(nc, name.encode(), n, ctypes.byref(dims, i * 4)), "dim")
        rc(lib.nc_def_var(nc, b"v", NC_USHORT, 3, dims, ctypes.byref(v)), "var")
        rc(lib.nc_def_var_chunking(nc, v, NC_CHUNKED, (ctypes.c_size_t * 3)(CHUNK, CHUNK, CHUNK)), "chunking")
        if config != "plain":
            rc(lib.nc_def_var_zstandard(nc, v, 1), "zstd")
        if config == "sharded":
            rc(lib.nczarr_rs_def_var_shard(nc, v, (ctypes.c_size_t * 3)(shard(n), shard(n), shard(n))), "shard")
        rc(lib.nc_put_var_ushort(nc, v, arr.ctypes.data_as(ctypes.c_void_p)), "put")
        rc(lib.nc_close(nc), "close")
        return time.perf_counter() - t0, path
    t0 = time.perf_counter()
    rc(lib.nc_open(f"file://{read_store(d, config)}#mode=zarr,v3,file".encode(), NC_NOWRITE, ctypes.byref(nc)),
       "open")
    rc(lib.nc_inq_varid(nc, b"v", ctypes.byref(v)), "varid")
    if case == "read":
        out = np.empty((n, n, n), dtype=np.uint16)
        rc(lib.nc_get_var_ushort(nc, v, out.ctypes.data_as(ctypes.c_void_p)), "get")
    else:
        out = []
        count = (ctypes.c_size_t * 3)(CHUNK, CHUNK, CHUNK)
        for b in boxes(config, n):
            box = np.empty((CHUNK,) * 3, dtype=np.uint16)
            rc(lib.nc_get_vara_ushort(nc, v, (ctypes.c_size_t * 3)(*b), count, box.ctypes.data_as(ctypes.c_void_p)),
               "vara")
            out.append(box)
    rc(lib.nc_close(nc), "close")
    return time.perf_counter() - t0, out


# ---- zarr-python 3, alone or with the zarrs codec pipeline -----------------------
def zarr_python(case, config, d, n, run, engine):
    import zarr
    import zarr.codecs as zc
    if engine == "zarrs":
        import zarrs  # noqa: F401 (the pipeline must be importable)
        zarr.config.set({"codec_pipeline.path": "zarrs.ZarrsCodecPipeline"})
    if case == "write":
        arr, path = data(n), write_store(d, engine, config, run)
        t0 = time.perf_counter()
        g = zarr.open_group(zarr.storage.LocalStore(path), mode="w", zarr_format=3)
        a = g.create_array("v", shape=arr.shape, dtype="uint16", chunks=(CHUNK,) * 3,
                           shards=(shard(n),) * 3 if config == "sharded" else None,
                           compressors=None if config == "plain" else zc.ZstdCodec(level=1),
                           dimension_names=["z", "y", "x"])
        a[...] = arr
        return time.perf_counter() - t0, path
    t0 = time.perf_counter()
    a = zarr.open_array(zarr.storage.LocalStore(read_store(d, config), read_only=True), path="v", mode="r")
    if case == "read":
        out = a[...]
    else:
        out = [a[z:z + CHUNK, y:y + CHUNK, x:x + CHUNK] for z, y, x in boxes(config, n)]
    return time.perf_counter() - t0, out


# ---- TensorStore -------------------------------------------------------------------
def tensorstore(case, config, d, n, run):
    import tensorstore as ts
    if case == "write":
        arr, path = data(n), write_store(d, "tensorstore", config, run)
        zstd = [{"name": "bytes", "configuration": {"endian": "little"}},
                {"name": "zstd", "configuration": {"level": 1, "checksum": False}}]
        if config == "plain":
            grid, codecs = CHUNK, zstd[:1]
        elif config == "zstd":
            grid, codecs = CHUNK, zstd
        else:
            grid, codecs = shard(n), [{"name": "sharding_indexed", "configuration": {
                "chunk_shape": [CHUNK] * 3, "codecs": zstd, "index_location": "end",
                "index_codecs": [{"name": "bytes", "configuration": {"endian": "little"}}, {"name": "crc32c"}]}}]
        t0 = time.perf_counter()
        # the root group, as the other engines write it
        os.makedirs(path)
        with open(f"{path}/zarr.json", "w") as f:
            json.dump({"zarr_format": 3, "node_type": "group", "attributes": {}}, f)
        a = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{path}/v/"},
                     "metadata": {"shape": [n] * 3, "data_type": "uint16", "fill_value": 0,
                                  "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [grid] * 3}},
                                  "chunk_key_encoding": {"name": "default"}, "codecs": codecs,
                                  "dimension_names": ["z", "y", "x"]}},
                    create=True).result()
        a.write(arr).result()
        return time.perf_counter() - t0, path
    t0 = time.perf_counter()
    a = ts.open({"driver": "zarr3", "kvstore": {"driver": "file", "path": f"{read_store(d, config)}/v/"}},
                read=True).result()
    if case == "read":
        out = a.read().result()
    else:
        out = [a[z:z + CHUNK, y:y + CHUNK, x:x + CHUNK].read().result() for z, y, x in boxes(config, n)]
    return time.perf_counter() - t0, out


# ---- checks --------------------------------------------------------------------------
def check_read(case, config, n, out):
    ref = data(n)
    if case == "read":
        assert out.shape == ref.shape and np.array_equal(out, ref), "read: wrong values"
        return
    bs = boxes(config, n)
    assert len(out) == len(bs), "random: boxes missing"
    for (z, y, x), box in zip(bs, out):
        assert np.array_equal(box, ref[z:z + CHUNK, y:y + CHUNK, x:x + CHUNK]), "random: wrong values"


def check_write(config, n, path):
    """What an engine wrote reads back right through zarr-python, with the
    codecs of its configuration."""
    import zarr
    with open(f"{path}/v/zarr.json") as f:
        meta = json.dumps(json.load(f))
    assert ('"zstd"' in meta) == (config != "plain"), f"{path}: codecs {meta}"
    assert ('"sharding_indexed"' in meta) == (config == "sharded"), f"{path}: codecs {meta}"
    a = zarr.open_array(zarr.storage.LocalStore(path, read_only=True), path="v", mode="r")
    assert np.array_equal(a[...], data(n)), f"{path}: wrong values"


def one(argv):
    engine, case, config, ourlib, d, n, run = argv
    n, run = int(n), int(run)
    if engine.startswith("ours"):
        t, out = ours(case, config, ourlib, d, n, run, engine)
    elif engine == "tensorstore":
        t, out = tensorstore(case, config, d, n, run)
    else:
        t, out = zarr_python(case, config, d, n, run, engine)
    if case == "write":
        check_write(config, n, out)
    else:
        check_read(case, config, n, out)
    print(f"RESULT {t:.6f}")


# ---- the limits --------------------------------------------------------------------
def timed(cmd, **kw):
    t0 = time.perf_counter()
    subprocess.run(cmd, check=True, **kw)
    return time.perf_counter() - t0


def store_files(path):
    return sorted(os.path.join(r, f) for r, _, fs in os.walk(path) for f in fs)


def zstd_speeds(d, n):
    """zstd's own single-core compression and decompression speeds, bytes/s,
    at level 1 on the array's chunks (64 of them, 512 KiB blocks)."""
    chunks = [f for f in store_files(read_store(d, "plain")) if "/c/" in f][:64]
    sample = f"{d}/zstd-sample"
    with open(sample, "wb") as out:
        for f in chunks:
            with open(f, "rb") as c:
                out.write(c.read())
    res = subprocess.run(["zstd", "-b1", "-i3", f"-B{CHUNK**3 * 2}", sample], capture_output=True, text=True,
                         check=True)
    os.remove(sample)
    speeds = re.findall(r"([\d.]+) MB/s\s*,\s*([\d.]+) MB/s", res.stdout + res.stderr)
    c, dec = speeds[-1]
    return float(c) * 1e6, float(dec) * 1e6


def random_io(d, config, n):
    """The system calls the random rows need: per box, open + pread + close
    of its chunk (or of its shard's index entry, then of the inner chunk).
    Answers seconds and the compressed bytes read."""
    s, per = shard(n), shard(n) // CHUNK
    nbytes, t0 = 0, time.perf_counter()
    for z, y, x in boxes(config, n):
        if config == "sharded":
            f = os.open(f"{read_store(d, config)}/v/c/{z // s}/{y // s}/{x // s}", os.O_RDONLY)
            i = ((z % s) // CHUNK * per + (y % s) // CHUNK) * per + (x % s) // CHUNK
            end = os.fstat(f).st_size - 4 - per**3 * 16
            off, size = np.frombuffer(os.pread(f, 16, end + 16 * i), dtype="<u8")
            nbytes += len(os.pread(f, int(size), int(off)))
        else:
            f = os.open(f"{read_store(d, config)}/v/c/{z // CHUNK}/{y // CHUNK}/{x // CHUNK}", os.O_RDONLY)
            nbytes += len(os.read(f, 1 << 22))
        os.close(f)
    return time.perf_counter() - t0


def limit(key, d, n, run):
    """One run of the I/O part of a row's limit, seconds."""
    case, config = key.split("-")
    if case == "read":
        return timed(["cat"] + store_files(read_store(d, config)), stdout=subprocess.DEVNULL)
    if case == "write":
        return timed(["cp", "-r", read_store(d, config), f"{d}/cp_{config}_{run}.zarr"])
    return random_io(d, config, n)


def codec_floor(key, n, speeds):
    """The zstd part of a row's limit: its raw bytes through zstd 1 on every
    core, seconds (0 for plain rows)."""
    case, config = key.split("-")
    if config == "plain":
        return 0.0
    raw = len(boxes(config, n)) * CHUNK**3 * 2 if case == "random" else n**3 * 2
    return raw / (speeds[0] if case == "write" else speeds[1]) / os.cpu_count()


def make_read_stores(d, n):
    """The stores every engine reads, written by zarr-python (untimed)."""
    for config in ["plain", "zstd", "sharded"]:
        if not os.path.exists(read_store(d, config)):
            path = zarr_python("write", config, d, n, 0, "zarr-python")[1]
            os.rename(path, read_store(d, config))


def main():
    ourlib, d = sys.argv[1], sys.argv[2]
    n = int(os.environ.get("BENCH_N", 512))
    repeat = int(os.environ.get("BENCH_REPEAT", 3))
    settle = float(os.environ.get("BENCH_SETTLE", 31))
    keys = os.environ.get("BENCH_CASES", " ".join(k for k, _ in CASES)).split()
    engines = os.environ.get("BENCH_ENGINES", " ".join(ENGINES)).split()
    os.makedirs(d, exist_ok=True)
    make_read_stores(d, n)
    speeds = zstd_speeds(d, n)
    print(f"# zstd -b1, one core: compress {speeds[0] / 1e6:.0f} MB/s, decompress {speeds[1] / 1e6:.0f} MB/s; "
          f"{os.cpu_count()} cores", file=sys.stderr, flush=True)
    best, waited = {}, True
    for key in keys:
        if key.startswith("write") and not waited:
            time.sleep(settle)
        for run in range(repeat):
            for engine in engines:
                env = dict(os.environ, NCZARR_RS_FSYNC="0")  # no peer fsyncs
                if engine == "ours-1":
                    env["RAYON_NUM_THREADS"] = "1"
                os.sync()  # nothing of the previous run left to write back
                cmd = [sys.executable, __file__, "--one", engine, key.split("-")[0], key.split("-")[1], ourlib, d,
                       str(n), str(run)]
                res = subprocess.run(cmd, env=env, capture_output=True, text=True)
                if res.returncode != 0:
                    sys.exit(f"{key} {engine} run {run} failed:\n{res.stderr}")
                t = float([x for x in res.stdout.splitlines() if x.startswith("RESULT")][0].split()[1])
                best[key, engine] = min(t, best.get((key, engine), t))
            os.sync()
            t = limit(key, d, n, run)
            best[key, "io"] = min(t, best.get((key, "io"), t))
        if key.startswith("write"):  # the row's stores go; the next write row waits
            for f in os.listdir(d):
                if f.startswith(("w_", "cp_")):
                    shutil.rmtree(f"{d}/{f}")
            os.sync()
            waited = False
        best[key, "codec"] = codec_floor(key, n, speeds)
        print(f"# {key}: " + ", ".join(f"{e} {best[key, e]:.3f}s" for e in engines + ["io", "codec"]),
              file=sys.stderr, flush=True)
    peers = [e for e in engines if not e.startswith("ours")]
    print(f"| case ({n}^3 uint16, best of {repeat}, seconds) | " + " | ".join(ENGINES[e] for e in engines) +
          " | limit | ours vs the best peer |")
    print("| --- |" + " ---: |" * (len(engines) + 2))
    for key, name in CASES:
        if key not in keys:
            continue
        io, codec = best[key, "io"], best[key, "codec"]
        what = {"read": "cat", "write": "cp -r", "random": "pread"}[key.split("-")[0]]
        lim = f"{io:.3f} ({what})" if io >= codec else f"{codec:.3f} (zstd)"
        ratio = f"{min(best[key, e] for e in peers) / best[key, 'ours']:.2f}x" if peers and "ours" in engines \
            else "-"
        print(f"| {name} | " + " | ".join(f"{best[key, e]:.3f}" for e in engines) + f" | {lim} | {ratio} |")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        one(sys.argv[2:])
    else:
        main()
