"""Object-store benchmark of issue 15 (not part of the tests): nczarr-rs
(through its netCDF C API, by ctypes, and `ncdump -h` with the library
preloaded) against zarr-python 3 (with obstore) on the local S3 server,
behind a loopback proxy that adds a latency to every request and counts
them (bench/latency_proxy.py). Prints a Markdown table.

Usage: s3_bench.py OURLIB S3_URL      (S3_URL: http://host:port/bucket, no latency)
  BENCH_LATENCIES  milliseconds per request (default "0 20 100")
  BENCH_REPEAT     runs per measurement (default 3; the best is kept)

Data, written once by zarr-python (Zarr v2, consolidated metadata, names
in `_ARRAY_DIMENSIONS`), read by both:
  meta100.zarr  100 variables of 10 float32, 3 attributes each
  big.zarr      v: 512 x 1024 float32 in 512 chunks of 4 KiB, uncompressed
Cases, each in a process of its own (cold):
  open   open meta100.zarr and walk every variable and attribute (ours
         with mode=consolidated: netCDF-C's way to ask for .zmetadata)
  walk   the same from the objects themselves, without .zmetadata
  read   read big.zarr's v whole
  ncdump `ncdump -h` of meta100.zarr (ours only: LD_PRELOAD)
The limit column is latency x ceil(requests / requests in flight) for the
read (nczarr-rs keeps IN_FLIGHT requests in flight); the 0 ms rows measure
the server itself (moto, in Python), the floor under every other row.

Internal: s3_bench.py --one LIB CASE OURLIB URL -> RESULT <seconds>"""
import ctypes
import os
import socket
import subprocess
import sys
import time

import numpy as np

NVARS, T, X = 100, 512, 1024
IN_FLIGHT = 64  # nczarr-rs's requests in flight on a network store (engine/data.rs IO_POOL)
NC_NOWRITE, NC_MAX_NAME = 0, 256


def obstore_store(url, name):
    import zarr
    from obstore.store import S3Store
    endpoint, bucket = url.rsplit("/", 1)
    st = S3Store(bucket, prefix=f"bench-s3/{name}", endpoint=endpoint, region=os.environ.get("AWS_REGION", "us-east-1"),
                 access_key_id=os.environ.get("AWS_ACCESS_KEY_ID"),
                 secret_access_key=os.environ.get("AWS_SECRET_ACCESS_KEY"), client_options={"allow_http": True})
    return zarr.storage.ObjectStore(st)


def setup(url):
    import zarr
    g = zarr.open_group(obstore_store(url, "meta100.zarr"), mode="w", zarr_format=2)
    for i in range(NVARS):
        a = g.create_array(f"var{i:03d}", shape=(10,), dtype="f4", chunks=(10,), compressors=None)
        a[...] = np.arange(10, dtype="f4") + i
        a.attrs.update({"_ARRAY_DIMENSIONS": ["x"], "units": "m", "long_name": f"variable {i}", "index": i})
    zarr.consolidate_metadata(g.store)
    g = zarr.open_group(obstore_store(url, "big.zarr"), mode="w", zarr_format=2)
    a = g.create_array("v", shape=(T, X), dtype="f4", chunks=(1, X), compressors=None, fill_value=None)
    a[...] = np.arange(T * X, dtype="f4").reshape(T, X)
    a.attrs["_ARRAY_DIMENSIONS"] = ["t", "x"]
    zarr.consolidate_metadata(g.store)


def ours(case, lib_path, url):
    lib = ctypes.CDLL(lib_path)
    lib.nczarr_rs_last_error.restype = ctypes.c_char_p
    rc = lambda r, what: None if r == 0 else sys.exit(f"{what}: {r} {lib.nczarr_rs_last_error()}")
    nc = ctypes.c_int()
    t0 = time.perf_counter()
    if case in ("open", "walk"):
        # open: mode=consolidated, netCDF-C 4.10's way to ask for .zmetadata;
        # walk: the objects themselves
        mode = "zarr,consolidated,s3" if case == "open" else "zarr,s3"
        rc(lib.nc_open(f"{url}/bench-s3/meta100.zarr#mode={mode}".encode(), NC_NOWRITE, ctypes.byref(nc)), "open")
        nvars, natts = ctypes.c_int(), ctypes.c_int()
        rc(lib.nc_inq_nvars(nc, ctypes.byref(nvars)), "nvars")
        name, att = ctypes.create_string_buffer(NC_MAX_NAME + 1), ctypes.create_string_buffer(NC_MAX_NAME + 1)
        t, nd, dimids = ctypes.c_int(), ctypes.c_int(), (ctypes.c_int * 1024)()
        atype, alen = ctypes.c_int(), ctypes.c_size_t()
        seen = 0
        for v in range(nvars.value):
            rc(lib.nc_inq_var(nc, v, name, ctypes.byref(t), ctypes.byref(nd), dimids, ctypes.byref(natts)), "var")
            for a in range(natts.value):
                rc(lib.nc_inq_attname(nc, v, a, att), "attname")
                rc(lib.nc_inq_att(nc, v, att, ctypes.byref(atype), ctypes.byref(alen)), "att")
                seen += 1
        rc(lib.nc_close(nc), "close")
        assert nvars.value == NVARS and seen >= 3 * NVARS, (nvars.value, seen)
    else:
        out = np.full((T, X), -1, dtype="f4")
        rc(lib.nc_open(f"{url}/bench-s3/big.zarr#mode=zarr,s3".encode(), NC_NOWRITE, ctypes.byref(nc)), "open")
        v = ctypes.c_int()
        rc(lib.nc_inq_varid(nc, b"v", ctypes.byref(v)), "varid")
        rc(lib.nc_get_var_float(nc, v, out.ctypes.data_as(ctypes.c_void_p)), "get")
        rc(lib.nc_close(nc), "close")
        assert out[T - 1, X - 1] == T * X - 1
    return time.perf_counter() - t0


def zarr_python(case, url):
    import zarr
    t0 = time.perf_counter()
    if case in ("open", "walk"):
        st = obstore_store(url, "meta100.zarr")
        g = zarr.open_consolidated(st, zarr_format=2) if case == "open" else \
            zarr.open_group(st, mode="r", zarr_format=2, use_consolidated=False)
        n = sum(len(dict(a.attrs)) + (a.shape[0] > 0) for _, a in g.arrays())
        assert n >= 4 * NVARS, n
    else:
        a = zarr.open_array(obstore_store(url, "big.zarr"), path="v", mode="r")
        out = a[...]
        assert out[T - 1, X - 1] == T * X - 1
    return time.perf_counter() - t0


def one(argv):
    lib_name, case, ourlib, url = argv
    if lib_name == "nczarr-rs":
        t = ours(case, ourlib, url)
    else:
        t = zarr_python(case, url)
    print(f"RESULT {t:.6f}")


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    return port


def main():
    ourlib, url = sys.argv[1], sys.argv[2]
    repeat = int(os.environ.get("BENCH_REPEAT", 3))
    latencies = [float(x) for x in os.environ.get("BENCH_LATENCIES", "0 20 100").split()]
    setup(url)
    head, tail = url.split("//", 1)
    hostport, bucket = tail.split("/", 1)
    upstream = int(hostport.rsplit(":", 1)[1])
    count_file = f"/tmp/nczarr-rs-bench-s3-count.{os.getpid()}"
    rows = []
    for ms in latencies:
        port = free_port()
        proxy = subprocess.Popen([sys.executable, os.path.join(os.path.dirname(__file__), "latency_proxy.py"),
                                  str(port), str(upstream), str(ms), count_file])
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", port), timeout=1).close()
                    break
                except OSError:
                    time.sleep(0.05)
            purl = f"{head}//127.0.0.1:{port}/{bucket}"
            requests = lambda: int(open(count_file).read())
            for case in ["open", "walk", "read", "ncdump"]:
                for lib_name in ["zarr-python", "nczarr-rs"]:
                    if case == "ncdump" and lib_name == "zarr-python":
                        continue
                    best, reqs = None, None
                    for _ in range(repeat):
                        before = requests()
                        if case == "ncdump":
                            t0 = time.perf_counter()
                            subprocess.run(["ncdump", "-h", f"{purl}/bench-s3/meta100.zarr#mode=zarr,consolidated,s3"], check=True,
                                           stdout=subprocess.DEVNULL, env=dict(os.environ, LD_PRELOAD=ourlib))
                            t = time.perf_counter() - t0
                        else:
                            cmd = [sys.executable, __file__, "--one", lib_name, case, ourlib, purl]
                            out = subprocess.run(cmd, capture_output=True, text=True, check=True).stdout
                            t = float([x for x in out.splitlines() if x.startswith("RESULT")][0].split()[1])
                        n = requests() - before
                        if best is None or t < best:
                            best, reqs = t, n
                    rows.append((ms, case, lib_name, best, reqs))
                    print(f"# {ms:g} ms {case} {lib_name}: {best:.3f} s, {reqs} requests", file=sys.stderr)
        finally:
            proxy.terminate()
            proxy.wait()
    os.unlink(count_file)
    print("| latency | case | library | wall s | requests | latency x requests / in flight | ours vs zarr-python |")
    print("| ---: | --- | --- | ---: | ---: | ---: | ---: |")
    best = {(ms, case, lib): (t, n) for ms, case, lib, t, n in rows}
    for ms, case, lib, t, n in rows:
        limit = ms / 1000 * -(-n // IN_FLIGHT) if lib == "nczarr-rs" else None
        ratio = ""
        if lib == "nczarr-rs" and (ms, case, "zarr-python") in best:
            ratio = f"{best[(ms, case, 'zarr-python')][0] / t:.1f}x"
        print(f"| {ms:g} ms | {case} | {lib} | {t:.3f} | {n} | {'' if limit is None else f'{limit:.3f}'} | {ratio} |")


if __name__ == "__main__":
    if sys.argv[1] == "--one":
        one(sys.argv[2:])
    else:
        main()
