"""netCDF4-python with MPI on libnczarr_rs (tests/mpi_python/run.sh).

  mpirun -np N python test_par.py write URL       every rank writes its part
  mpirun -np N python test_par.py append PATH     every rank reads it all in
                                                  parallel, then reopens it
                                                  (mode "a") and writes more
  python test_par.py check URL                    serial: the same netCDF4
                                                  (libnczarr_rs), no MPI
  python test_par.py check-reference URL          serial, another venv: the
                                                  netCDF4 wheel's netCDF-C
                                                  4.10.1 and zarr-python 3

The dataset (N ranks; y = 2N+1 rows, x = 6 columns; row 2N written by
nobody):

  coll   int32 (y, x), chunks (2N+1, 3): collective, every chunk shared by
         every rank (two-phase write); rank r writes rows 2r, 2r+1
  indep  float64 (y, x), chunks (2N+1, 3): independent (the default),
         shared chunks merged at close; rank r writes rows 2r, 2r+1
  zlib   float32 (y, x), chunks (2, 6), zlib: collective (netCDF4 requires
         it for a compressed variable, as netCDF-C does); whole chunks
  rec    int64 (t, x), t unlimited: collective, rank r writes record r (the
         dimension grows to N on every rank)
  names  str (y): collective, rank r writes elements 2r, 2r+1
  a global attribute, set by every rank (metadata is collective)

append (a plain path: netCDF4-python recreates a URL given with mode "a")
opens it with parallel=True, mode "r", every rank reading every variable
collectively; then mode "a" (nc_open_par, NC_WRITE): rank r writes record
N+r of rec collectively (t grows to 2N), element (2N, r) of indep
independently (the row nobody wrote) and every rank sets the attribute
`appended`. The checks of an appended dataset (PATH ending in
"appended.zarr") expect that too.

Expected values are computed here from the formulas below, in every mode.
"""

import os
import sys

import numpy as np

NX = 6
FILL_I4 = -2147483647
FILL_F8 = 9.9692099683868690e36
FILL_F4 = np.float32(9.9692099683868690e36)
FILL_I8 = -9223372036854775806


def expected(n, appended=False):
    ny = 2 * n + 1
    g = np.arange(ny * NX).reshape(ny, NX)
    written = np.arange(ny)[:, None] < 2 * n
    coll = np.where(written, g * 3 + 1, FILL_I4).astype("i4")
    indep = np.where(written, g * 0.5 - 11.0, FILL_F8).astype("f8")
    zlib = np.where(written, (g * 0.25).astype("f4"), FILL_F4).astype("f4")
    rec = (np.arange(n)[:, None] * 1000 + np.arange(NX)[None, :]).astype("i8")
    names = np.array([f"rank{i // 2}-{i}" if i < 2 * n else "" for i in range(ny)], dtype=object)
    if appended:
        more = (7000 + np.arange(n)[:, None] * 10 + np.arange(NX)[None, :]).astype("i8")
        rec = np.concatenate([rec, more])
        for r in range(min(n, NX)):
            indep[2 * n, r] = -1.0 - r
    return {"coll": coll, "indep": indep, "zlib": zlib, "rec": rec, "names": names}


def append(path):
    from mpi4py import MPI

    import netCDF4

    comm = MPI.COMM_WORLD
    r, n = comm.rank, comm.size
    want = expected(n)
    with netCDF4.Dataset(path, "r", parallel=True, comm=comm, info=MPI.Info()) as ds:
        ds.set_auto_mask(False)
        for name, w in want.items():
            v = ds[name]
            v.set_collective(True)
            compare(f"rank {r}: {name} read in parallel", v[...], w)
    want = expected(n, appended=True)
    with netCDF4.Dataset(path, "a", parallel=True, comm=comm, info=MPI.Info()) as ds:
        rec = ds["rec"]
        rec.set_collective(True)
        rec[n + r, :] = want["rec"][n + r]
        if r < NX:
            ds["indep"][2 * n, r] = want["indep"][2 * n, r]
        ds.appended = 1
        assert len(ds.dimensions["t"]) == 2 * n
    comm.Barrier()
    if r == 0:
        print(f"append: {n} ranks read {path} in parallel and wrote more")


def write(url):
    from mpi4py import MPI

    import netCDF4

    comm = MPI.COMM_WORLD
    r, n = comm.rank, comm.size
    want = expected(n)
    ny = 2 * n + 1
    rows = slice(2 * r, 2 * r + 2)
    with netCDF4.Dataset(url, "w", parallel=True, comm=comm, info=MPI.Info(), format="NETCDF4") as ds:
        ds.createDimension("t", None)
        ds.createDimension("y", ny)
        ds.createDimension("x", NX)
        ds.title = "netCDF4-python on libnczarr_rs, MPI"
        coll = ds.createVariable("coll", "i4", ("y", "x"), chunksizes=(ny, 3))
        indep = ds.createVariable("indep", "f8", ("y", "x"), chunksizes=(ny, 3))
        zl = ds.createVariable("zlib", "f4", ("y", "x"), chunksizes=(2, NX), zlib=True, complevel=1)
        rec = ds.createVariable("rec", "i8", ("t", "x"), chunksizes=(1, NX))
        names = ds.createVariable("names", str, ("y",))
        coll.set_collective(True)
        zl.set_collective(True)
        rec.set_collective(True)
        names.set_collective(True)
        coll[rows, :] = want["coll"][rows]
        indep[rows, :] = want["indep"][rows]
        zl[rows, :] = want["zlib"][rows]
        rec[r, :] = want["rec"][r]
        names[rows] = want["names"][rows]
        # after a collective write every rank sees every rank's part
        assert len(ds.dimensions["t"]) == n, len(ds.dimensions["t"])
        coll.set_auto_mask(False)
        compare(f"rank {r}: coll read after the collective write", coll[...], want["coll"])
    comm.Barrier()
    if r == 0:
        print(f"write: {n} ranks wrote {url}")


def compare(what, got, want):
    got = np.ma.getdata(got)
    if want.dtype == object:
        ok = got.shape == want.shape and all((a or "") == b for a, b in zip(got.ravel(), want.ravel()))
    else:
        ok = got.shape == want.shape and got.dtype == want.dtype and got.tobytes() == want.tobytes()
    if not ok:
        raise SystemExit(f"FAIL: {what}: got {got!r}, want {want!r}")


def check(url, n, reference):
    import netCDF4

    appended = url.endswith("appended.zarr")
    want = expected(n, appended)
    where = url
    if reference and not url.startswith("file://"):
        where = f"file://{url}#mode=nczarr,file"  # netCDF-C opens a store by URL
    with netCDF4.Dataset(where) as ds:
        ds.set_auto_mask(False)
        assert ds.title == "netCDF4-python on libnczarr_rs, MPI", ds.title
        assert len(ds.dimensions["t"]) == (2 * n if appended else n)
        assert getattr(ds, "appended", None) == (1 if appended else None)
        for name, w in want.items():
            compare(f"{name} through netCDF4 ({netCDF4.__netcdf4libversion__})", ds[name][...], w)
    readers = f"netCDF4 on netCDF-C {netCDF4.__netcdf4libversion__}" if reference else "netCDF4 on libnczarr_rs"
    if reference:
        import zarr

        path = url[len("file://"):].split("#")[0] if url.startswith("file://") else url
        for name in ("coll", "indep", "zlib", "rec"):
            compare(f"{name} through zarr-python", zarr.open_array(os.path.join(path, name), mode="r", zarr_format=2)[...], want[name])
        readers += " and zarr-python"
    print(f"check: {url} read by {readers}: as written")


def main():
    mode, url = sys.argv[1:3]
    n = int(os.environ.get("NCZARR_RS_MPI_RANKS", "4"))
    if mode == "write":
        write(url)
    elif mode == "append":
        append(url)
    else:
        check(url, n, reference=mode == "check-reference")


if __name__ == "__main__":
    main()
