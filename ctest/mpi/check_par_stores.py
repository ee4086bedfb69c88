"""Readers other than the MPI program check what ranks wrote (ctest/mpi,
run by run_then_check.sh after the MPI program, in a process without MPI):

  check_par_stores.py types SCRATCH STORE LIB LAUNCH...   after tst_par_types
  check_par_stores.py die   SCRATCH STORE LIB LAUNCH...   after tst_par_die

(LAUNCH...: the mpirun command that ran the program; `die` runs it again
with the argument `restart`.)

SCRATCH is the scratch directory the program was given, STORE its store
kind (dir, url: SCRATCH/<name>.zarr; s3: $NCZARR_RS_S3_TEST_URL/
$NCZARR_RS_MPI_S3_RUN/<name>, copied object by object into SCRATCH/s3copy
with boto3 for the readers, which read it as a directory), LIB
libnczarr_rs (loaded with ctypes).

Readers: zarr-python 3 (zarr.open_group on the directory), netCDF-C 4.10.1
(the netCDF4 wheel's own libnetcdf, on file://...#mode=nczarr,file) and,
for `die`, libnczarr_rs in this one process. Every expected value is
computed here, by the formulas of the C programs, never read back from
libnczarr_rs."""

import ctypes
import json
import os
import sys
import warnings

import numpy as np

# the lock file of a writer that never closed (die) is no Zarr object
warnings.filterwarnings("ignore", message="Object at .*nczarr-rs.* is not recognized")

NRANKS = int(os.environ.get("NCZARR_RS_MPI_RANKS", "4"))

# ---- netCDF types, default fill values ----------------------------------------

NC = {1: "byte", 2: "char", 3: "short", 4: "int", 5: "float", 6: "double", 7: "ubyte", 8: "ushort", 9: "uint",
      10: "int64", 11: "uint64", 12: "string"}
DTYPE = {1: "i1", 2: "S1", 3: "i2", 4: "i4", 5: "f4", 6: "f8", 7: "u1", 8: "u2", 9: "u4", 10: "i8", 11: "u8"}
# netcdf.h's NC_FILL_*
FILL = {1: -127, 2: b"\0", 3: -32767, 4: -2147483647, 5: np.float32(9.9692099683868690e36),
        6: 9.9692099683868690e36, 7: 255, 8: 65535, 9: 4294967295, 10: -9223372036854775806,
        11: 18446744073709551614, 12: ""}


def value(t, g):
    """Element g of tst_par_types.c's variable of type t (its value(), with C's
    conversions)."""
    if t == 1:
        return g % 200 - 100
    if t == 2:
        return bytes([ord("a") + g % 26])
    if t == 3:
        return (g * 37 - 1000 + 2**15) % 2**16 - 2**15
    if t == 4:
        return (g * 100003 - 5000 + 2**31) % 2**32 - 2**31
    if t == 5:
        return np.float32(g) * np.float32(0.5) - np.float32(3.0)
    if t == 6:
        return g * 0.25 - 7.0
    if t == 7:
        return g % 250
    if t == 8:
        return g * 101 % 65000
    if t == 9:
        return g * 4000037 % 2**32
    if t == 10:
        return (g * 1000000007 - 42 + 2**63) % 2**64 - 2**63
    if t == 11:
        return g * 0x9E3779B97F4A7C15 % 2**64
    return f"s{g}"


def expected_array(t, shape, written):
    """The array a reader should see: value(t, g) where written(g), else fill."""
    n = shape[0] * shape[1]
    vals = [value(t, g) if written(g) else FILL[t] for g in range(n)]
    if t == 12:
        return np.array(vals, dtype=object).reshape(shape)
    return np.array(vals, dtype=DTYPE[t]).reshape(shape)


def same(got, want):
    """Exact equality (bitwise for floats), strings compared as str."""
    got = np.asarray(got)
    if want.dtype == object:
        norm = np.vectorize(lambda s: s.decode() if isinstance(s, bytes) else ("" if s is None else str(s)), otypes=[object])
        got = norm(got) if got.size else got
        return got.shape == want.shape and all(a == b for a, b in zip(got.ravel(), want.ravel()))
    if want.dtype.kind == "S":
        got = np.asarray(got).astype("S1")
        return got.shape == want.shape and (got == want).all()
    return got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()


def where_differs(got, want):
    got = np.asarray(got)
    try:
        bad = np.argwhere(got != want) if got.shape == want.shape else None
    except Exception:  # noqa: BLE001
        bad = None
    return f"got {got!r}, want {want!r}, differing at {None if bad is None else bad[:8].tolist()}"


# ---- stores --------------------------------------------------------------------


def local_store(scratch, kind, name):
    """The directory of dataset `name` (a copy of it for S3)."""
    if kind in ("dir", "url"):
        return os.path.join(scratch, f"{name}.zarr")
    import boto3

    base = os.environ["NCZARR_RS_S3_TEST_URL"]
    run = os.environ["NCZARR_RS_MPI_S3_RUN"]
    endpoint, bucket = base.rsplit("/", 1)
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=os.environ.get("AWS_REGION", "us-east-1"))
    prefix = f"{run}/{name}/"
    dest = os.path.join(scratch, "s3copy", name + ".zarr")
    keys = [o["Key"] for page in s3.get_paginator("list_objects_v2").paginate(Bucket=bucket, Prefix=prefix)
            for o in page.get("Contents", [])]
    if not keys:
        raise SystemExit(f"no object under s3 {bucket}/{prefix}")

    def get(key):
        p = os.path.join(dest, key[len(prefix):])
        os.makedirs(os.path.dirname(p), exist_ok=True)
        with open(p, "wb") as f:
            f.write(s3.get_object(Bucket=bucket, Key=key)["Body"].read())

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(8) as pool:
        list(pool.map(get, keys))
    return dest


def files(path):
    """Every file of a directory store, relative to it."""
    out = []
    for d, _, fs in os.walk(path):
        out += [os.path.relpath(os.path.join(d, f), path) for f in fs]
    return sorted(out)


def is_meta(k):
    return k.rsplit("/", 1)[-1] in (".zgroup", ".zarray", ".zattrs", ".zmetadata", "zarr.json")


def is_chunk(k):
    return k.rsplit("/", 1)[-1].replace(".", "").isdigit()


def read_zarr(path, names):
    """The arrays `names` through zarr-python 3. zarr-python 3 rejects the
    dtype ">S1" of NCZarr's NC_CHAR (netCDF-C writes it so too;
    docs/COMPATIBILITY.md): those are read by read_raw_chars instead."""
    import zarr

    out = {}
    for name in names:
        with open(os.path.join(path, name, ".zarray")) as f:
            meta = json.load(f)
        if meta["dtype"] == ">S1":
            out[name] = read_raw_chars(path, name, meta)
        else:
            out[name] = zarr.open_array(os.path.join(path, name), mode="r", zarr_format=2)[...]
    return out


def read_raw_chars(path, name, meta):
    """An NC_CHAR array read chunk file by chunk file (zlib or no
    compressor, C order, '.' separator), NUL where no chunk is stored."""
    import itertools
    import zlib

    shape, chunks = meta["shape"], meta["chunks"]
    out = np.full(shape, b"\0", dtype="S1")
    grid = [range((n + c - 1) // c) for n, c in zip(shape, chunks)]
    for idx in itertools.product(*grid):
        p = os.path.join(path, name, ".".join(map(str, idx)))
        if not os.path.exists(p):
            continue
        with open(p, "rb") as f:
            raw = f.read()
        comp = meta.get("compressor")
        if comp is not None:
            if comp.get("id") != "zlib":
                raise SystemExit(f"{name}: compressor {comp} not read here")
            raw = zlib.decompress(raw)
        if meta.get("filters"):
            raise SystemExit(f"{name}: filters {meta['filters']} not read here")
        chunk = np.frombuffer(raw, dtype="S1").reshape(chunks)
        sl = tuple(slice(i * c, min((i + 1) * c, n)) for i, c, n in zip(idx, chunks, shape))
        out[sl] = chunk[tuple(slice(0, s.stop - s.start) for s in sl)]
    return out


def read_netcdf_c(path):
    """Every variable through the netCDF4 wheel's netCDF-C (no libnczarr_rs in
    the process yet: its library is loaded after the readers)."""
    import netCDF4

    with netCDF4.Dataset(f"file://{path}#mode=nczarr,file") as ds:
        ds.set_auto_mask(False)
        ds.set_auto_chartostring(False)
        return {n: v[...] for n, v in ds.variables.items()}, netCDF4.__netcdf4libversion__


def nc_lib(path):
    lib = ctypes.CDLL(path)
    lib.nc_strerror.restype = ctypes.c_char_p
    lib.nczarr_rs_last_error.restype = ctypes.c_char_p
    return lib


def nc_ok(lib, rc, what):
    if rc != 0:
        raise SystemExit(f"{what}: {lib.nc_strerror(rc).decode()} ({lib.nczarr_rs_last_error()})")


def read_ours(lib, path, variables, omode=0):
    """Variables {name: (shape, "i4" or "f8")} through libnczarr_rs (omode
    1: NC_WRITE)."""
    nc = ctypes.c_int()
    nc_ok(lib, lib.nc_open(path.encode(), omode, ctypes.byref(nc)), f"nc_open {path}")
    out = {}
    for name, (shape, dtype) in variables.items():
        v = ctypes.c_int()
        nc_ok(lib, lib.nc_inq_varid(nc, name.encode(), ctypes.byref(v)), f"nc_inq_varid {name}")
        a = np.zeros(shape, dtype=dtype)
        get = lib.nc_get_var_int if dtype == "i4" else lib.nc_get_var_double
        nc_ok(lib, get(nc, v, a.ctypes.data_as(ctypes.c_void_p)), f"nc_get_var {name}")
        out[name] = a
    nc_ok(lib, lib.nc_close(nc), "nc_close")
    return out


failures = []


def check(ok, what):
    if not ok:
        failures.append(what)
        print("FAIL:", what)


# ---- tst_par_types ------------------------------------------------------------------

LAYOUTS = ["whole", "shared", "collective", "zlib", "zlib-shared", "collective-whole"]
NX = 6


def check_types(scratch, kind, lib, launch):
    ny = 2 * NRANKS + 2
    # rows 0..2N-1: two to a rank; row 2N: the last rank; row 2N+1: nobody
    written = lambda g: g < (ny - 1) * NX  # noqa: E731
    checked = 0
    for layout in LAYOUTS:
        name = f"types-{layout}"
        path = local_store(scratch, kind, name)
        keys = files(path)
        strange = [k for k in keys if not (is_meta(k) or is_chunk(k))]
        check(not strange, f"{name}: objects that are neither metadata nor chunks: {strange}")
        types = list(range(1, 12)) + ([] if layout.startswith("zlib") else [12])
        zarrs = read_zarr(path, [f"v{t}" for t in types])
        ncs, version = read_netcdf_c(path)
        for t in types:
            v = f"v{t}"
            want = expected_array(t, (ny, NX), written)
            for reader, got in (("zarr-python", zarrs.get(v)), (f"netCDF-C {version}", ncs.get(v))):
                if got is None:
                    check(False, f"{name}/{v} ({NC[t]}): {reader} has no such variable")
                    continue
                if t == 12 and reader.startswith("netCDF-C"):
                    got = np.asarray(got, dtype=object)
                ok = same(got, want)
                check(ok, f"{name}/{v} ({NC[t]}) through {reader}: {'' if ok else where_differs(got, want)}")
                checked += want.size
        # no variable the program did not write
        arrays = sorted(d for d in os.listdir(path) if os.path.exists(os.path.join(path, d, ".zarray")))
        check(arrays == sorted(f"v{t}" for t in types), f"{name}: arrays in the store {arrays}")
        check(sorted(ncs) == sorted(f"v{t}" for t in types), f"{name}: netCDF-C sees {sorted(ncs)}")
    print(f"types ({kind}): {checked} elements checked through zarr-python (NC_CHAR: its chunk files) and netCDF-C {version}")


# ---- tst_par_die ------------------------------------------------------------------

DIE_VARS = ["whole", "shared", "flushed", "coll", "coll_zlib"]
DIE_NX = 4


def die_expected(ny):
    """tst_par_die.c: phase 1 (synced) rows 0..N-1, phase 2 rows N..2N-1 (row
    N+r by rank r), never synced; the last rank (victim) killed."""
    n = NRANKS
    victim_row = 2 * n - 1
    want = {}
    for k, name in enumerate(DIE_VARS):
        def kept(row, name=name):
            if row < n:
                return True  # synced
            if row >= 2 * n:
                return False  # written by nobody
            if name in ("whole", "coll", "coll_zlib"):
                # whole chunks go to the store at the write; a collective
                # write's chunks are stored before the call returns
                return True
            if name == "flushed":
                # the survivors' writes went through (no cache); the
                # victim's were in its cache
                return row != victim_row
            return False  # shared: in every rank's cache, unsynced

        a = np.full((ny, DIE_NX), FILL[4], dtype="i4")
        for row in range(ny):
            if kept(row):
                for j in range(DIE_NX):
                    g = row * DIE_NX + j
                    a[row, j] = (k + 1) * 100000 + g * 7 + 3
        want[name] = a
    return want


BY, BX = 16, 262144


def check_big(what, got):
    """big: the first half as written; each row of the second half (a
    chunk) all written or all fill. Returns how many of those rows are
    stored."""
    got = np.asarray(got)
    if got.shape != (BY, BX) or got.dtype != np.float64:
        check(False, f"{what}: shape {got.shape}, dtype {got.dtype}")
        return 0
    vals = np.arange(BY * BX, dtype="f8").reshape(BY, BX) * 0.5 + 1
    check(np.array_equal(got[: BY // 2], vals[: BY // 2]), f"{what}: the first half differs")
    stored = 0
    for row in range(BY // 2, BY):
        if np.array_equal(got[row], vals[row]):
            stored += 1
        else:
            check((got[row] == FILL[6]).all(), f"{what}: row {row} neither whole nor fill: {got[row][:4]}...")
    return stored


def check_die(scratch, kind, lib, launch):
    ny = 2 * NRANKS + 1
    path = local_store(scratch, kind, "die")
    keys = files(path)
    leftovers = [k for k in keys if not (is_meta(k) or is_chunk(k))]
    # a writer that never closed leaves its lock file (file driver), and a
    # write cut short its temporary file, under a name that is no key
    tmp = [k for k in leftovers if k.rsplit("/", 1)[-1].startswith(".nczarr-rs-tmp.")]
    others = [k for k in leftovers if k not in tmp and k.rsplit("/", 1)[-1] != ".nczarr-rs.lock"]
    check(not others, f"die: unexpected objects {others}")
    if kind == "s3":
        check(not leftovers, f"die: objects on S3 that are no Zarr object: {leftovers}")
    else:
        check(".nczarr-rs.lock" in leftovers, f"die: the dead writers' lock file is expected, found {leftovers}")
    # big's chunk files are whole: 2 MiB each, no compressor
    for k in keys:
        if k.startswith("big/") and is_chunk(k):
            size = os.path.getsize(os.path.join(path, k))
            check(size == BX * 8, f"die: {k} is {size} bytes, not {BX * 8}: torn")
    want = die_expected(ny)
    # rec: records 0..N-1 (phase 1, synced); t's length 2N after phase 2
    # was never written (the next metadata step, nc_sync, never came):
    # readers see N records. Records N..2N-1 were stored by their owners
    # (objects rec/N.0 ...), past the stored length.
    g = np.arange(NRANKS * DIE_NX).reshape(NRANKS, DIE_NX)
    want["rec"] = ((len(DIE_VARS) + 1) * 100000 + g * 7 + 3).astype("i4")
    orphans = [f"rec/{t}.0" for t in range(NRANKS, 2 * NRANKS)]
    check(all(k in keys for k in orphans), f"die: rec's records past the length not stored: {[k for k in orphans if k not in keys]}")
    zarrs = read_zarr(path, DIE_VARS + ["rec", "big"])
    ncs, version = read_netcdf_c(path)
    lib = nc_lib(lib)
    variables = {name: ((ny, DIE_NX), "i4") for name in DIE_VARS}
    variables["rec"] = ((NRANKS, DIE_NX), "i4")
    variables["big"] = ((BY, BX), "f8")
    ours = read_ours(lib, path, variables)
    stored = set()
    for reader, got in (("zarr-python", zarrs), (f"netCDF-C {version}", ncs), ("libnczarr_rs", ours)):
        for name in DIE_VARS + ["rec"]:
            g = got.get(name)
            ok = g is not None and same(g, want[name])
            check(ok, f"die/{name} through {reader}: {'' if ok else where_differs(g, want[name])}")
        stored.add(check_big(f"die/big through {reader}", got["big"]))
    check(len(stored) == 1, f"die/big: the readers disagree on the rows stored: {stored}")
    # every chunk decodes (zarr-python read them all above); a chunk of
    # coll_zlib is zlib data: decompress each on its own too
    import zlib

    for k in keys:
        if k.startswith("coll_zlib/") and is_chunk(k):
            with open(os.path.join(path, k), "rb") as f:
                raw = zlib.decompress(f.read())
            check(len(raw) == ny * (DIE_NX // 2) * 4, f"die: {k} holds {len(raw)} bytes decompressed")
    # a new MPI job reopens it for writing (nc_open_par, NC_WRITE) and
    # closes: that removes the dead processes' temporary files and the lock
    # file (file driver); then (no MPI) libnczarr_rs opens it for writing;
    # no value changes
    import subprocess

    r = subprocess.run(launch + ["restart"], capture_output=True, text=True)
    print(r.stdout + r.stderr, end="")
    check(r.returncode == 0, f"die: the restarting MPI job failed ({r.returncode})")
    if kind != "s3":
        left = [k for k in files(path) if not (is_meta(k) or is_chunk(k))]
        check(not left, f"die: left after an MPI job's writable open and close: {left}")
        again = read_ours(lib, path, variables, omode=1)
        left = [k for k in files(path) if not (is_meta(k) or is_chunk(k))]
        check(not left, f"die: left after a writable open and close without MPI: {left}")
        for name in DIE_VARS + ["rec"]:
            check(same(again[name], want[name]), f"die/{name} after a writable open: {where_differs(again[name], want[name])}")
        check(check_big("die/big after a writable open", again["big"]) in stored, "die/big changed at a writable open")
        # a writer that grows t past the orphaned records without writing
        # them (record 2N only) makes them visible again (docs/PARALLEL.md)
        nc, v = ctypes.c_int(), ctypes.c_int()
        nc_ok(lib, lib.nc_open(path.encode(), 1, ctypes.byref(nc)), "nc_open NC_WRITE")
        nc_ok(lib, lib.nc_inq_varid(nc, b"rec", ctypes.byref(v)), "nc_inq_varid rec")
        t = 2 * NRANKS
        row = (((len(DIE_VARS) + 1) * 100000 + (t * DIE_NX + np.arange(DIE_NX)) * 7 + 3)).astype("i4")
        start, count = (ctypes.c_size_t * 2)(t, 0), (ctypes.c_size_t * 2)(1, DIE_NX)
        nc_ok(lib, lib.nc_put_vara_int(nc, v, start, count, row.ctypes.data_as(ctypes.c_void_p)), "nc_put_vara_int rec")
        nc_ok(lib, lib.nc_close(nc), "nc_close")
        grown = read_ours(lib, path, {"rec": ((2 * NRANKS + 1, DIE_NX), "i4")})["rec"]
        g = np.arange((2 * NRANKS + 1) * DIE_NX).reshape(2 * NRANKS + 1, DIE_NX)
        check(same(grown, ((len(DIE_VARS) + 1) * 100000 + g * 7 + 3).astype("i4")),
              f"die/rec grown past the orphaned records: {where_differs(grown, g)}")
    print(f"die ({kind}): {len(DIE_VARS) + 2} variables through zarr-python, netCDF-C {version} and libnczarr_rs; "
          f"big: {BY // 2 + max(stored)} of {BY} rows stored ({max(stored)} of the {BY // 2} cut short), "
          f"{len(tmp)} temporary files left by the dead rank")


def main():
    what, scratch, kind, lib = sys.argv[1:5]
    {"types": check_types, "die": check_die}[what](scratch, kind, lib, sys.argv[5:])
    if failures:
        print(f"{len(failures)} checks failed")
        sys.exit(1)
    print("all checks passed")


if __name__ == "__main__":
    main()
