"""Many processes without MPI (docs/PARALLEL.md, "Many processes without
MPI (Dask)"): a dataset is created and sized by one process, then written by
four dask.distributed worker processes, each into its own regions, through
libnczarr_rs (the netCDF4 wheel with the library preloaded, or ctypes), and
closed. Every case runs on the file driver and on S3 (the local moto server).

The workers write, then wait for each other before they close (a barrier of
dask Events), so that every shared chunk is held dirty by two or more
processes at once and their write-backs conflict.

Cases:
- regions: six variables (int8 to float64, with and without zlib, one on
  the unlimited dimension) written in 4 x 3 regions that are whole chunks of
  one variable, half chunks of another, all of one chunk of a third, and cut
  across by the chunks of the others; one region is left unwritten. The
  template comes from netCDF4 through our library, or from xarray's
  to_zarr(compute=False) (zarr-python writes it; on the file driver two
  workers write one variable through xarray's to_zarr(region=...), whole
  chunks, and the rest through our library). Three readers must see exactly
  the union of the regions, fill values elsewhere: our library (netCDF4
  under preload), netCDF-C itself (the netCDF4 wheel's 4.10.1 in a process
  without preload) and xarray's zarr engine (zarr-python); an S3 store is
  copied down for the last two. No metadata object was written by the
  workers (file: bytes, inode, times; S3: ETag, LastModified), no dimension
  grew, and no lock or temporary file is left.
- grow: two workers write records past the end of the unlimited dimension
  the template sized, two within it: every record is kept and the dimension
  ends as long as the longest writer made it.
- same: all workers write the same elements: each element holds one of the
  values written to it (last writer wins per element), elements that only
  one worker wrote hold its value, the others keep the fill value.

Usage (tests/dask/run.sh): LD_PRELOAD=libnczarr_rs.so NCZARR_RS_LIB=... \
    python test_regions.py OUTDIR
Ends with the line "N passed, M failed"; exits non-zero on a failure.
"""
import ctypes
import hashlib
import json
import os
import subprocess
import sys
import time
import traceback

import numpy as np

NT, NY, NX = 4, 8, 12
# 2 x 4 regions of 4 x 3; task k writes regions k and k + 4; region 7 is
# left unwritten (its elements keep the fill value)
REGIONS = [(y0, y0 + 4, x0, x0 + 3) for y0 in (0, 4) for x0 in (0, 3, 6, 9)]
UNWRITTEN = {7}
WORKERS = 4
TASK_REGIONS = [[r for r in (k, k + WORKERS) if r not in UNWRITTEN] for k in range(WORKERS)]

# name, dtype, dimensions, chunks, codecs, fill value
VARS = [
    ("whole", "i4", ("y", "x"), (4, 3), "", -1),  # a region is a whole chunk
    ("half", "f4", ("y", "x"), (4, 6), "zlib", -999.0),  # two regions a chunk
    ("one", "i2", ("y", "x"), (8, 12), "zlib", -7),  # every region in one chunk
    ("cube", "f8", ("time", "y", "x"), (2, 4, 6), "zlib shuffle", -1e30),  # unlimited time, half chunks
    ("rows", "u1", ("y", "x"), (2, 12), "", 255),  # a chunk holds parts of four regions
    ("long", "i8", ("y", "x"), (3, 5), "zlib", -(2**40)),  # chunks across region edges
]
SIZES = {"time": NT, "y": NY, "x": NX}
TIME_FILL = -1.0

GROW_X, GROW_LEN = 6, 10
# records each task writes to rec(time, x); the template sized time to NT
GROW_RECORDS = [(0, 2), (2, 4), (4, 7), (7, GROW_LEN)]

SAME_Y, SAME_X = 4, 6
# q: tasks 0 and 1 write rows 0-1, tasks 2 and 3 rows 1-2 (row 1 by all)
SAME_Q_ROWS = [(0, 2), (0, 2), (1, 3), (1, 3)]

NC_WRITE = 1


# ---- values ------------------------------------------------------------------


def shape_of(dims, sizes=SIZES):
    return tuple(sizes[d] for d in dims)


def written(i, dtype, dims):
    """The value every writer gives each element of variable i."""
    a = np.arange(int(np.prod(shape_of(dims))), dtype="i8").reshape(shape_of(dims)) + 1000 * i
    if dtype == "u1":
        a = a % 200
    if dtype[0] == "f":
        a = a + 0.5
    return a.astype(dtype)


def region_index(dims, r):
    y0, y1, x0, x1 = REGIONS[r]
    return tuple(slice(y0, y1) if d == "y" else slice(x0, x1) if d == "x" else slice(0, SIZES[d]) for d in dims)


def expected_regions():
    out = {}
    for i, (name, dtype, dims, _, _, fill) in enumerate(VARS):
        full = written(i, dtype, dims)
        e = np.full(shape_of(dims), fill, dtype=dtype)
        for r in range(len(REGIONS)):
            if r not in UNWRITTEN:
                idx = region_index(dims, r)
                e[idx] = full[idx]
        out[name] = e
    out["time"] = np.arange(NT, dtype="f8")
    return out


def grow_values():
    return np.arange(GROW_LEN * GROW_X, dtype="i4").reshape(GROW_LEN, GROW_X) + 7


# ---- the checks every reader runs on what it read ----------------------------
# arrays: name -> numpy array of raw values (fill values unmasked); sizes:
# dimension name -> length.


def check_regions(arrays, sizes):
    assert sizes == SIZES, f"dimensions {sizes}, the template made {SIZES}"
    want = expected_regions()
    assert set(arrays) == set(want), f"variables {sorted(arrays)}"
    for name, e in want.items():
        a = arrays[name]
        assert a.shape == e.shape, f"{name}: shape {a.shape}, want {e.shape}"
        bad = np.argwhere(a != e)
        assert len(bad) == 0, f"{name}: {len(bad)} elements differ, first at {tuple(bad[0])}: {a[tuple(bad[0])]} != {e[tuple(bad[0])]}"


def check_grow(arrays, sizes):
    assert sizes == {"time": GROW_LEN, "x": GROW_X}, f"dimensions {sizes}: want time {GROW_LEN} (the longest writer)"
    rec, t = arrays["rec"], arrays["time"]
    assert rec.shape == (GROW_LEN, GROW_X), rec.shape
    bad = np.argwhere(rec != grow_values())
    assert len(bad) == 0, f"rec: {len(bad)} elements lost, first at {tuple(bad[0])}"
    want_t = np.concatenate([np.arange(NT, dtype="f8"), np.full(GROW_LEN - NT, TIME_FILL)])
    assert t.shape == want_t.shape and (t == want_t).all(), f"time: {t}"


def check_same(arrays, sizes):
    assert sizes == {"y": SAME_Y, "x": SAME_X}, sizes
    s, q = arrays["s"], arrays["q"]
    assert np.isin(s, [1, 2, 3, 4]).all(), f"s: values nobody wrote: {s}"
    for row in range(SAME_Y):
        writers = [k + 1 for k, (r0, r1) in enumerate(SAME_Q_ROWS) if r0 <= row < r1]
        allowed = writers or [-1]
        assert np.isin(q[row], allowed).all(), f"q row {row}: {q[row]}, written by {writers}"


CHECKS = {"regions": check_regions, "grow": check_grow, "same": check_same}


def read_netcdf4(location):
    """Every variable and dimension, through whichever netCDF library the
    netCDF4 module reaches (ours under preload, netCDF-C without)."""
    import netCDF4

    with netCDF4.Dataset(location) as ds:
        ds.set_auto_mask(False)
        sizes = {n: len(d) for n, d in ds.dimensions.items()}
        return {n: v[...] for n, v in ds.variables.items()}, sizes


def read_xarray(path, consolidated):
    """The same through xarray's zarr engine (zarr-python), raw values;
    through the consolidated metadata if the template had it (xarray's)."""
    import xarray as xr

    ds = xr.open_zarr(path, consolidated=consolidated, mask_and_scale=False, decode_times=False, chunks=None)
    return {n: v.values for n, v in ds.variables.items()}, dict(ds.sizes)


# ---- the worker task -----------------------------------------------------------


def nc_lib():
    lib = ctypes.CDLL(os.environ["NCZARR_RS_LIB"])
    lib.nc_strerror.restype = ctypes.c_char_p
    lib.nczarr_rs_last_error.restype = ctypes.c_char_p
    return lib


def nc_check(lib, rc, what):
    if rc != 0:
        raise RuntimeError(f"{what}: {lib.nc_strerror(rc).decode()} ({lib.nczarr_rs_last_error()})")


def work(job):
    """One dask task, in a worker process: opens the dataset for writing
    through libnczarr_rs, writes its slabs, waits until every task has
    written, closes. Returns its process id."""
    from distributed import Event

    k, location, slabs, barrier = job["k"], job["location"], job["slabs"], job["barrier"]
    if job["how"] == "netcdf4":
        import netCDF4

        ds = netCDF4.Dataset(location, "r+")
        for name, index, values in slabs:
            ds[name][index] = values
        done = ds.close
    else:
        lib = nc_lib()
        nc = ctypes.c_int()
        nc_check(lib, lib.nc_open(location.encode(), NC_WRITE, ctypes.byref(nc)), f"nc_open {location}")
        for name, index, values in slabs:
            v = ctypes.c_int()
            nc_check(lib, lib.nc_inq_varid(nc, name.encode(), ctypes.byref(v)), f"nc_inq_varid {name}")
            rank = len(index)
            start = (ctypes.c_size_t * rank)(*[s.start for s in index])
            count = (ctypes.c_size_t * rank)(*[s.stop - s.start for s in index])
            buf = np.ascontiguousarray(values)
            nc_check(lib, lib.nc_put_vara(nc, v, start, count, buf.ctypes.data_as(ctypes.c_void_p)), f"nc_put_vara {name}")

        def done():
            nc_check(lib, lib.nc_close(nc), "nc_close")

    for path, name, index, values in job["zarr_slabs"]:
        # zarr-python's own region write (whole chunks nobody else writes).
        # It lists the store, where our writers' lock file is while they
        # have it open, and warns that it is no Zarr object: expected.
        import warnings

        import xarray as xr

        warnings.filterwarnings("ignore", message="Object at .nczarr-rs.lock is not recognized")

        dims = ("y", "x")
        xr.Dataset({name: (dims, values)}).to_zarr(path, region=dict(zip(dims, index)), consolidated=False, mode="r+")
    Event(f"{barrier}-written-{k}").set()
    if not Event(f"{barrier}-close").wait(timeout=120):
        raise RuntimeError("the other tasks never wrote")
    done()
    return os.getpid()


def run_tasks(client, workers, jobs, barrier):
    """Runs one task per worker process (pinned), releases them to close
    once all have written, and returns their process ids."""
    from distributed import Event

    futures = [
        client.submit(work, dict(job, k=k, barrier=barrier), workers=[workers[k]], allow_other_workers=False, pure=False)
        for k, job in enumerate(jobs)
    ]
    deadline = time.monotonic() + 120
    pending = set(range(len(jobs)))
    try:
        while pending:
            pending = {k for k in pending if not Event(f"{barrier}-written-{k}").is_set()}
            for f in futures:
                if f.status == "error":
                    f.result()  # raises the task's exception
            if time.monotonic() > deadline:
                raise RuntimeError(f"tasks {sorted(pending)} did not write within 120 s")
            time.sleep(0.02)
    finally:
        # on a failure too: the others close and the workers are free
        Event(f"{barrier}-close").set()
        from distributed import wait

        wait(futures, timeout=150)
    pids = client.gather(futures)
    assert len(set(pids)) == len(jobs), f"the tasks ran in {len(set(pids))} processes, not {len(jobs)}: {pids}"
    return pids


# ---- stores: file and S3 -------------------------------------------------------

META_NAMES = (".zgroup", ".zattrs", ".zarray", ".zmetadata", "zarr.json")


def is_meta(key):
    return key.rsplit("/", 1)[-1] in META_NAMES


class FileStore:
    kind = "file"

    def __init__(self, out, name, pure):
        self.path = os.path.join(out, name)
        self.url = f"file://{self.path}#mode={'zarr' if pure else 'nczarr'},file"
        self.pure = pure

    def local(self, out):
        return self.path

    def keys(self):
        found = []
        for d, _, files in os.walk(self.path):
            found += [os.path.relpath(os.path.join(d, f), self.path) for f in files]
        return sorted(found)

    def metadata(self):
        """Each metadata object: its bytes' digest, inode, times."""
        out = {}
        for k in self.keys():
            if is_meta(k):
                p = os.path.join(self.path, k)
                st = os.stat(p)
                with open(p, "rb") as f:
                    digest = hashlib.sha256(f.read()).hexdigest()
                out[k] = (digest, st.st_ino, st.st_mtime_ns, st.st_ctime_ns)
        return out

    def leftovers(self):
        return [k for k in self.keys() if k.rsplit("/", 1)[-1].startswith(".nczarr-rs")]

    def put_template(self, local):
        assert local == self.path


class S3Store:
    kind = "s3"

    def __init__(self, base, run, name, pure):
        import boto3

        endpoint, self.bucket = base.rsplit("/", 1)
        self.s3 = boto3.client("s3", endpoint_url=endpoint, region_name=os.environ.get("AWS_REGION", "us-east-1"))
        self.prefix = f"dask{run}/{name}"
        self.url = f"{base}/{self.prefix}#mode={'zarr' if pure else 'nczarr'},s3"
        self.pure = pure
        self.name = name

    def objects(self):
        out = {}
        for page in self.s3.get_paginator("list_objects_v2").paginate(Bucket=self.bucket, Prefix=self.prefix + "/"):
            for o in page.get("Contents", []):
                out[o["Key"][len(self.prefix) + 1 :]] = o
        return out

    def keys(self):
        return sorted(self.objects())

    def metadata(self):
        """Each metadata object: ETag (its bytes), LastModified (ms), size."""
        return {k: (o["ETag"], o["LastModified"].isoformat(), o["Size"]) for k, o in self.objects().items() if is_meta(k)}

    def leftovers(self):
        return [k for k in self.keys() if not is_meta(k) and not k.rsplit("/", 1)[-1].replace(".", "").isdigit()]

    def local(self, out):
        """A copy of the store in a directory, for readers without S3."""
        dest = os.path.join(out, "s3copy", self.name)
        for k in self.keys():
            p = os.path.join(dest, k)
            os.makedirs(os.path.dirname(p), exist_ok=True)
            self.s3.download_file(self.bucket, f"{self.prefix}/{k}", p)
        return dest

    def put_template(self, local):
        """Uploads a template made in a local directory."""
        for d, _, files in os.walk(local):
            for f in files:
                p = os.path.join(d, f)
                self.s3.upload_file(p, self.bucket, f"{self.prefix}/{os.path.relpath(p, local)}")


# ---- templates -----------------------------------------------------------------


def template_netcdf4(url):
    """The regions dataset, defined and sized through our library."""
    import netCDF4

    with netCDF4.Dataset(url, "w", format="NETCDF4") as ds:
        for d, n in SIZES.items():
            ds.createDimension(d, None if d == "time" else n)
        t = ds.createVariable("time", "f8", ("time",), fill_value=TIME_FILL)
        for name, dtype, dims, chunks, codecs, fill in VARS:
            ds.createVariable(
                name,
                dtype,
                dims,
                chunksizes=chunks,
                zlib="zlib" in codecs,
                complevel=1,
                shuffle="shuffle" in codecs,
                fill_value=fill,
            )
        t[0:NT] = np.arange(NT, dtype="f8")  # sizes the unlimited dimension


def template_xarray(path):
    """The same dataset as pure Zarr v2 by xarray (zarr-python):
    to_zarr(compute=False) writes the metadata and the coordinate only."""
    import dask.array as da
    import numcodecs
    import xarray as xr

    data, encoding = {}, {}
    for name, dtype, dims, chunks, codecs, fill in VARS:
        data[name] = (dims, da.full(shape_of(dims), fill, dtype=dtype, chunks=chunks))
        enc = {"chunks": chunks, "_FillValue": fill, "compressors": None}
        if "zlib" in codecs:
            enc["compressors"] = [numcodecs.Zlib(level=1)]
        if "shuffle" in codecs:
            enc["filters"] = [numcodecs.Shuffle(elementsize=np.dtype(dtype).itemsize)]
        encoding[name] = enc
    ds = xr.Dataset(data, coords={"time": ("time", np.arange(NT, dtype="f8"))})
    ds.to_zarr(path, mode="w", compute=False, zarr_format=2, consolidated=True, encoding=encoding)


def template_small(url, kind):
    import netCDF4

    with netCDF4.Dataset(url, "w", format="NETCDF4") as ds:
        if kind == "grow":
            ds.createDimension("time", None)
            ds.createDimension("x", GROW_X)
            t = ds.createVariable("time", "f8", ("time",), fill_value=TIME_FILL)
            ds.createVariable("rec", "i4", ("time", "x"), chunksizes=(3, GROW_X), fill_value=-1)
            t[0:NT] = np.arange(NT, dtype="f8")
        else:
            ds.createDimension("y", SAME_Y)
            ds.createDimension("x", SAME_X)
            ds.createVariable("s", "i4", ("y", "x"), chunksizes=(2, 3), fill_value=-1)
            ds.createVariable("q", "i4", ("y", "x"), chunksizes=(SAME_Y, SAME_X), zlib=True, complevel=1, fill_value=-1)


# ---- the jobs of each case -----------------------------------------------------


def how(store, k):
    """How task k reaches our library: tasks 0 and 2 through the netCDF4
    wheel under preload, 1 and 3 through ctypes; on S3 all through ctypes.
    netCDF4-python (1.6 and later) opens a name for which os.path.exists is
    false in mode "r+" or "a" by creating it, with NC_CLOBBER unless
    clobber=False: given a URL, it would delete the template. So a file
    store is opened by its path, and an S3 store cannot be opened for
    writing through netCDF4-python at all (docs/PARALLEL.md)."""
    return "netcdf4" if k % 2 == 0 and store.kind == "file" else "ctypes"


def job(store, k, slabs, zarr_slabs=()):
    h = how(store, k)
    return {"how": h, "location": store.path if h == "netcdf4" else store.url, "slabs": slabs, "zarr_slabs": list(zarr_slabs)}


def regions_jobs(store, zarr_var):
    """Task k writes TASK_REGIONS[k] of every variable; with zarr_var, the
    tasks that use ctypes write that variable through xarray's
    to_zarr(region=...) instead (zarr-python; whole chunks)."""
    jobs = []
    for k in range(WORKERS):
        slabs, zarr_slabs = [], []
        for i, (name, dtype, dims, _, _, _) in enumerate(VARS):
            full = written(i, dtype, dims)
            for r in TASK_REGIONS[k]:
                idx = region_index(dims, r)
                if name == zarr_var and how(store, k) == "ctypes":
                    zarr_slabs.append((store.path, name, idx, full[idx]))
                else:
                    slabs.append((name, idx, full[idx]))
        jobs.append(job(store, k, slabs, zarr_slabs))
    return jobs


def grow_jobs(store):
    v = grow_values()
    return [job(store, k, [("rec", (slice(r0, r1), slice(0, GROW_X)), v[r0:r1])]) for k, (r0, r1) in enumerate(GROW_RECORDS)]


def same_jobs(store):
    jobs = []
    for k, (r0, r1) in enumerate(SAME_Q_ROWS):
        s = np.full((SAME_Y, SAME_X), k + 1, dtype="i4")
        q = np.full((r1 - r0, SAME_X), k + 1, dtype="i4")
        whole = (slice(0, SAME_Y), slice(0, SAME_X))
        jobs.append(job(store, k, [("s", whole, s), ("q", (slice(r0, r1), slice(0, SAME_X)), q)]))
    return jobs


# ---- one case ------------------------------------------------------------------


def netcdf_c_check(kind, location):
    """Runs the check in a process without our library: the netCDF4
    wheel's own netCDF-C reads the store."""
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    p = subprocess.run([sys.executable, __file__, "--netcdf-c", kind, location], env=env, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, f"netCDF-C: {' / '.join((p.stdout + p.stderr).strip().splitlines()[-2:])[-600:]}"
    assert "checked by" in p.stdout, p.stdout


def run_case(client, workers, out, store, kind, template, expect_metadata_kept=True):
    """Template, workers, then the checks. Returns a list of what failed."""
    problems = []
    barrier = f"{store.kind}-{kind}-{template}-{time.time_ns()}"
    if template == "netcdf4":
        (template_netcdf4 if kind == "regions" else lambda u: template_small(u, kind))(store.url)
    else:
        local = store.path if store.kind == "file" else os.path.join(out, "templates", store.name)
        template_xarray(local)
        store.put_template(local)
    before = store.metadata()
    if store.kind == "s3":
        # the server's LastModified has whole seconds: a worker's write of a
        # metadata object must fall in a later second than the template's
        time.sleep(1.1)
    if kind == "regions":
        jobs = regions_jobs(store, "whole" if template == "xarray" and store.kind == "file" else None)
    else:
        jobs = grow_jobs(store) if kind == "grow" else same_jobs(store)
    run_tasks(client, workers, jobs, barrier)
    after = store.metadata()
    changed = sorted(k for k in set(before) | set(after) if before.get(k) != after.get(k))
    if expect_metadata_kept:
        if changed:
            problems.append(f"the workers wrote metadata objects: {changed}")
    else:
        # growing: the objects that hold the lengths, and only those
        allowed = {".zattrs", ".zgroup", "time/.zarray", "rec/.zarray"}
        if not set(changed) <= allowed or "rec/.zarray" not in changed:
            problems.append(f"growing the dimension wrote {changed}")
    if store.leftovers():
        problems.append(f"left behind: {store.leftovers()}")
    check = CHECKS[kind]
    readers = [("our library", lambda: read_netcdf4(store.url))]
    local = store.local(out)
    readers.append(("netCDF-C", lambda: netcdf_c_check(kind, f"file://{local}#mode={'zarr' if store.pure else 'nczarr'},file")))
    readers.append(("xarray (zarr-python)", lambda: read_xarray(local, store.pure)))
    for who, read in readers:
        try:
            got = read()
            if got is not None:
                check(*got)
        except Exception as e:  # noqa: BLE001 (reported as the case's failure)
            problems.append(f"{who}: {type(e).__name__}: {e}")
    return problems


def main(out):
    from distributed import Client, LocalCluster

    os.makedirs(out, exist_ok=True)
    with open("/proc/self/maps") as maps:
        assert "libnczarr_rs" in maps.read(), "run with LD_PRELOAD=libnczarr_rs.so (tests/dask/run.sh)"
    s3_base = os.environ.get("NCZARR_RS_S3_TEST_URL")
    run = time.time_ns()
    stores = [("file", lambda name, pure: FileStore(out, name, pure))]
    if s3_base:
        stores.append(("s3", lambda name, pure: S3Store(s3_base, run, name, pure)))
    elif os.environ.get("NCZARR_RS_REQUIRE_S3") == "1":
        print("FAIL no S3 server (NCZARR_RS_S3_TEST_URL unset) and NCZARR_RS_REQUIRE_S3=1")
        print("0 passed, 1 failed")
        return 1
    else:
        print("(no S3 server: the S3 cases are skipped)")
    cases = [  # kind, template, metadata kept
        ("regions", "netcdf4", True),
        ("regions", "xarray", True),
        ("grow", "netcdf4", False),
        ("same", "netcdf4", True),
    ]
    passed = failed = 0
    t0 = time.monotonic()
    with LocalCluster(n_workers=WORKERS, threads_per_worker=1, processes=True, dashboard_address=None) as cluster, Client(cluster) as client:
        workers = sorted(client.scheduler_info()["workers"])
        assert len(workers) == WORKERS, workers
        print(f"cluster: {WORKERS} worker processes, 1 thread each ({time.monotonic() - t0:.1f} s)")
        for kind, template, kept in cases:
            for driver, make in stores:
                name = f"{kind}-{template}.zarr"
                store = make(name, template == "xarray")
                label = f"{kind}, {template} template, {driver}"
                t = time.monotonic()
                try:
                    problems = run_case(client, workers, out, store, kind, template, kept)
                except Exception:  # noqa: BLE001
                    problems = [traceback.format_exc()]
                took = f"({time.monotonic() - t:.1f} s)"
                if problems:
                    failed += 1
                    print(f"FAIL {label} {took}")
                    for p in problems:
                        print(f"     {p}")
                else:
                    passed += 1
                    print(f"ok   {label} {took}")
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "--netcdf-c":
        # a process without our library: the wheel's netCDF-C reads
        import netCDF4

        with open("/proc/self/maps") as maps:
            assert "libnczarr_rs" not in maps.read(), "our library is loaded: this is not netCDF-C reading"
        CHECKS[sys.argv[2]](*read_netcdf4(sys.argv[3]))
        print(f"checked by netCDF-C {netCDF4.__netcdf4libversion__}")
        sys.exit(0)
    sys.exit(main(sys.argv[1]))
