"""Aggregated variables through our netCDF C API (ctypes), judged by
cf-python: every value our library assembles equals what cf-python
computes for the same aggregated field.

- CF-1.13 aggregations written by cfdm/cf-python (pip): Zarr v3 stores
  with netCDF-4 fragments and with Zarr fragments, netCDF-4 aggregation
  files (read directly, through libnetcdf, and as copies in NCZarr made
  with the netCDF4 wheel), absolute `file://` URIs;
- aggregations written here in the CF-1.13 form (cf-python reads them for
  the expected values): fragment units (`degC`, `K @ 273.15`), reference
  times in every CF calendar, `unique_values`, missing fragments;
- CFA-0.6.2 written by cf-python 3.16 and CFA-0.4 by cf-python 3.13
  (separate venvs, PYTHON_CFA06 and PYTHON_CFA04), if present;
- NCA 0.1: the seed's two examples transcribed to valid files (nothing
  writes NCA: written here with the netCDF4 wheel), the expected values
  computed from the partitions as the seed describes;
- the raw view (`mode=...,noaggregate`, NCZARR_RS_AGGREGATE=0), hidden
  fragment variables, and errors that name the partition;
- our write API, and the aggregation builder `nczarr-rs-aggregate`
  (NCZARR_RS_AGGREGATE_TOOL) on cf-python's fragments, read back by us and
  by cf-python.

Usage: aggregation.py OUTDIR OURLIB
Prints one line per check ("ok ..." / "FAIL ..."); exits 1 if any fails.
"""
import ctypes
import json
import os
import shutil
import subprocess
import sys
import warnings

import numpy as np
import netCDF4

warnings.filterwarnings("ignore")
import cf  # noqa: E402

out, ourlib = os.path.abspath(sys.argv[1]), sys.argv[2]
shutil.rmtree(out, ignore_errors=True)
os.makedirs(out)
os.chdir(out)
lib = ctypes.CDLL(ourlib)
lib.nczarr_rs_last_error.restype = ctypes.c_char_p
failed = 0
NC_ENOTVAR = -49


def check(ok, what):
    global failed
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    failed += not ok


def last_error():
    return (lib.nczarr_rs_last_error() or b"").decode()


class Ours:
    """A dataset open read-only through our library."""

    def __init__(self, url):
        self.nc = ctypes.c_int()
        rc = lib.nc_open(url.encode(), 0, ctypes.byref(self.nc))
        if rc:
            raise RuntimeError(f"nc_open {url}: {rc} {last_error()}")

    def close(self):
        lib.nc_close(self.nc)

    def varid(self, name):
        v = ctypes.c_int()
        rc = lib.nc_inq_varid(self.nc, name.encode(), ctypes.byref(v))
        return v.value if rc == 0 else rc

    def info(self, name):
        """(type, dimension names, shape, attribute names)."""
        v = self.varid(name)
        t, nd, na = ctypes.c_int(), ctypes.c_int(), ctypes.c_int()
        dimids = (ctypes.c_int * 1024)()
        lib.nc_inq_var(self.nc, v, None, ctypes.byref(t), ctypes.byref(nd), dimids, ctypes.byref(na))
        names, shape = [], []
        for i in range(nd.value):
            dn, ln = ctypes.create_string_buffer(257), ctypes.c_size_t()
            lib.nc_inq_dim(self.nc, dimids[i], dn, ctypes.byref(ln))
            names.append(dn.value.decode())
            shape.append(ln.value)
        atts = []
        for i in range(na.value):
            an = ctypes.create_string_buffer(257)
            lib.nc_inq_attname(self.nc, v, i, an)
            atts.append(an.value.decode())
        return t.value, names, tuple(shape), atts

    def fill(self, name):
        v = self.varid(name)
        nofill, val = ctypes.c_int(), ctypes.c_double()
        # nc_inq_var_fill writes the variable's type: read _FillValue as double
        rc = lib.nc_get_att_double(self.nc, v, b"_FillValue", ctypes.byref(val))
        if rc == 0:
            return val.value
        return {5: 9.969209968386869e36, 6: 9.969209968386869e36, 4: -2147483647, 3: -32767}.get(self.info(name)[0])

    def get(self, name, start=None, count=None, stride=None):
        """Values as doubles: the whole variable, or a vars/vara region."""
        v = self.varid(name)
        shape = self.info(name)[2]
        if start is None:
            n = int(np.prod(shape)) if shape else 1
            buf = (ctypes.c_double * max(n, 1))()
            rc = lib.nc_get_var_double(self.nc, v, buf)
            if rc:
                raise RuntimeError(f"nc_get_var_double {name}: {rc} {last_error()}")
            return np.ctypeslib.as_array(buf)[:n].reshape(shape).copy()
        nd = len(shape)
        stride = stride or [1] * nd
        n = int(np.prod(count))
        buf = (ctypes.c_double * max(n, 1))()
        s = (ctypes.c_size_t * nd)(*start)
        c = (ctypes.c_size_t * nd)(*count)
        st = (ctypes.c_ssize_t * nd)(*stride)
        rc = lib.nc_get_vars_double(self.nc, v, s, c, st, buf)
        if rc:
            raise RuntimeError(f"nc_get_vars_double {name}: {rc} {last_error()}")
        return np.ctypeslib.as_array(buf)[:n].reshape(count).copy()

    def get1(self, name, index):
        v = self.varid(name)
        val = ctypes.c_double()
        idx = (ctypes.c_size_t * max(len(index), 1))(*index)
        rc = lib.nc_get_var1_double(self.nc, v, idx, ctypes.byref(val))
        if rc:
            raise RuntimeError(f"nc_get_var1_double {name}: {rc} {last_error()}")
        return val.value

    def get_err(self, name):
        """The status and message of reading the whole variable."""
        v = self.varid(name)
        buf = (ctypes.c_double * 100000)()
        rc = lib.nc_get_var_double(self.nc, v, buf)
        return rc, last_error()


def to_zarr(src_nc, dst):
    """Copies a netCDF file to an NCZarr store (netCDF4 wheel): our engine
    opens Zarr, so a netCDF-4 aggregation file is read through its copy."""
    shutil.rmtree(dst, ignore_errors=True)
    with netCDF4.Dataset(src_nc) as s, netCDF4.Dataset(f"file://{os.path.abspath(dst)}#mode=nczarr,file", "w") as d:
        d.setncatts({a: s.getncattr(a) for a in s.ncattrs()})
        for n, dim in s.dimensions.items():
            d.createDimension(n, None if dim.isunlimited() else len(dim))
        for n, v in s.variables.items():
            fill = v.getncattr("_FillValue") if "_FillValue" in v.ncattrs() else None
            dt = str if v.dtype == str else v.dtype
            nv = d.createVariable(n, dt, v.dimensions, fill_value=fill)
            nv.setncatts({a: v.getncattr(a) for a in v.ncattrs() if a != "_FillValue"})
            v.set_auto_maskandscale(False)
            nv.set_auto_maskandscale(False)
            if v.dtype == str:
                nv[...] = np.asarray(v[...], dtype=object)
            else:
                nv[...] = v[...]


def cf_expected(path, ncvar, fill, python=None):
    """cf-python's values of the field whose netCDF variable is `ncvar`,
    missing values as `fill`."""
    if python:
        code = (
            "import sys, numpy as np, warnings; warnings.filterwarnings('ignore'); import cf\n"
            "f = [g for g in cf.read(sys.argv[1]) if g.nc_get_variable() == sys.argv[2]][0]\n"
            "np.save(sys.argv[3], np.ma.filled(f.data.array.astype('f8'), float(sys.argv[4])))\n"
        )
        npy = os.path.join(out, "expected.npy")
        subprocess.run([python, "-c", code, os.path.basename(path), ncvar, npy, repr(fill)], check=True,
                       cwd=os.path.dirname(os.path.abspath(path)))
        return np.load(npy)
    # cfdm 1.13 resolves a Zarr aggregation's relative URIs against the
    # working directory (its writer makes them relative to the store's
    # directory, as we read them): read from there
    here = os.getcwd()
    os.chdir(os.path.dirname(os.path.abspath(path)))
    try:
        f = [g for g in cf.read(os.path.basename(path)) if g.nc_get_variable() == ncvar][0]
        return np.ma.filled(f.data.array.astype("f8"), fill)
    finally:
        os.chdir(here)


def same(a, b):
    return a.shape == b.shape and np.allclose(a, b, rtol=1e-6, atol=1e-9, equal_nan=True)


def compare(label, url, ncvar, expected, dims=None, hidden=()):
    """Whole variable, strided regions, single values, and what is hidden."""
    try:
        ds = Ours(url)
    except RuntimeError as e:
        check(False, f"{label}: {e}")
        return
    try:
        t, names, shape, atts = ds.info(ncvar)
        check(shape == expected.shape, f"{label}: {ncvar} has the master shape {shape} (cf-python {expected.shape})")
        if dims:
            check(names == dims, f"{label}: {ncvar} has dimensions {names}")
        machinery = [a for a in atts if a in ("aggregated_dimensions", "aggregated_data", "nca_dimensions", "nca_array")]
        check(not machinery, f"{label}: no aggregation attributes on {ncvar} ({machinery})")
        got = ds.get(ncvar)
        check(same(got, expected), f"{label}: all {got.size} values equal cf-python's"
              + ("" if same(got, expected) else f"\n ours {got.ravel()[:12]}\n cf   {expected.ravel()[:12]}"))
        if expected.ndim:
            # strided and offset regions crossing partition boundaries
            for step in (1, 2, 3):
                start = [min(1, n - 1) for n in expected.shape]
                count = [max(1, (n - s + step - 1) // step) for n, s in zip(expected.shape, start)]
                sl = tuple(slice(s, s + (c - 1) * step + 1, step) for s, c in zip(start, count))
                got = ds.get(ncvar, start, count, [step] * expected.ndim)
                check(same(got, expected[sl]), f"{label}: nc_get_vars start {start} count {count} stride {step}")
            last = tuple(n - 1 for n in expected.shape)
            check(np.isclose(ds.get1(ncvar, last), expected[last]), f"{label}: nc_get_var1 at {list(last)}")
        for h in hidden:
            check(ds.varid(h) == NC_ENOTVAR, f"{label}: fragment variable {h} is hidden")
    except RuntimeError as e:
        check(False, f"{label}: {e}")
    finally:
        ds.close()


def raw_view(label, url, ncvar, visible):
    """noaggregate (mode and environment): the variable as stored."""
    raw_url = f"file://{os.path.abspath(url)}#mode=nczarr,file,noaggregate"
    ds = Ours(raw_url)
    try:
        t, names, shape, atts = ds.info(ncvar)
        check(shape == () and any(a in atts for a in ("aggregated_data", "nca_array")),
              f"{label}: mode=noaggregate shows {ncvar} as stored (scalar, aggregation attributes)")
        for v in visible:
            check(ds.varid(v) >= 0, f"{label}: mode=noaggregate shows {v}")
    finally:
        ds.close()
    os.environ["NCZARR_RS_AGGREGATE"] = "0"
    try:
        ds = Ours(url)
        check(ds.info(ncvar)[2] == (), f"{label}: NCZARR_RS_AGGREGATE=0 shows {ncvar} as stored")
        ds.close()
    finally:
        del os.environ["NCZARR_RS_AGGREGATE"]


FRAGMENT_VARS = ("fragment_map", "fragment_uris", "fragment_identifiers")

# ---- CF-1.13 written by cf-python ---------------------------------------------------
f = cf.example_field(0)  # specific_humidity(latitude(5), longitude(8))
os.makedirs("cf", exist_ok=True)
cf.write(f[:2], "cf/frag0.nc")
cf.write(f[2:4], "cf/frag1.nc")
cf.write(f[4:], "cf/frag2.nc")
cf.write(f[:2], "cf/frag0.zarr", fmt="ZARR3")
cf.write(f[2:], "cf/frag1.zarr", fmt="ZARR3")
nc_frags = cf.read(["cf/frag0.nc", "cf/frag1.nc", "cf/frag2.nc"])[0]
zarr_frags = cf.read(["cf/frag0.zarr", "cf/frag1.zarr"])[0]
cf.write(nc_frags, "cf/agg_ncfrags.zarr", fmt="ZARR3", cfa={"constructs": "field", "uri": "relative"})
cf.write(zarr_frags, "cf/agg_zarrfrags.zarr", fmt="ZARR3", cfa={"constructs": "field", "uri": "relative"})
cf.write(nc_frags, "cf/agg_abs.zarr", fmt="ZARR3", cfa={"constructs": "field", "uri": "absolute"})
cf.write(nc_frags, "cf/agg.nc", cfa={"constructs": "field", "uri": "relative"})
to_zarr("cf/agg.nc", "cf/agg_nc.zarr")
q_fill = 9.969209968386869e36
for label, path, ref in [
    ("CF-1.13 Zarr v3 store, netCDF-4 fragments (cf-python)", "cf/agg_ncfrags.zarr", None),
    ("CF-1.13 Zarr v3 store, Zarr v3 fragments (cf-python)", "cf/agg_zarrfrags.zarr", None),
    ("CF-1.13 Zarr v3 store, absolute file:// URIs (cf-python)", "cf/agg_abs.zarr", None),
    ("CF-1.13 netCDF-4 file (cf-python) as NCZarr", "cf/agg_nc.zarr", "cf/agg.nc"),
    ("CF-1.13 netCDF-4 file (cf-python)", "cf/agg.nc", None),
]:
    exp = cf_expected(ref or path, "q", q_fill)
    compare(label, path, "q", exp, dims=["lat", "lon"], hidden=FRAGMENT_VARS)
raw_view("CF-1.13 (cf-python)", "cf/agg_ncfrags.zarr", "q", FRAGMENT_VARS)


def ncdump_preloaded(label, path, var, expected):
    """Debian's ncdump -v with our library preloaded prints the assembled
    values (netCDF fragments read by the libnetcdf found with RTLD_NEXT)."""
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(ourlib))
    r = subprocess.run(["ncdump", "-v", var, path], env=env, capture_output=True, text=True, timeout=300)
    try:
        text = r.stdout.split(f" {var} =", 1)[1].split(";")[0]
        got = np.array([float(x) for x in text.replace("\n", " ").split(",") if x.strip()])
        ok = r.returncode == 0 and np.allclose(got, expected.ravel(), rtol=1e-5)
    except (IndexError, ValueError):
        ok = False
    check(ok, f"{label}: ncdump -v {var} under LD_PRELOAD prints the assembled values" + ("" if ok else f": {r.stderr[:300]}"))


def ncdump_raw(label, path):
    """With aggregation off, Debian's ncdump prints a netCDF aggregation
    file under preload byte for byte as without it."""
    plain = subprocess.run(["ncdump", path], capture_output=True, timeout=300)
    env = dict(os.environ, LD_PRELOAD=os.path.abspath(ourlib), NCZARR_RS_AGGREGATE="0")
    raw = subprocess.run(["ncdump", path], env=env, capture_output=True, timeout=300)
    check(plain.returncode == 0 and raw.stdout == plain.stdout,
          f"{label}: ncdump under LD_PRELOAD with NCZARR_RS_AGGREGATE=0 prints the file as stored, as without preload")


if shutil.which("ncdump"):
    ncdump_preloaded("CF-1.13 (cf-python), netCDF fragments", "cf/agg_ncfrags.zarr", "q", cf_expected("cf/agg_ncfrags.zarr", "q", q_fill))
    ncdump_preloaded("CF-1.13 netCDF-4 file (cf-python)", "cf/agg.nc", "q", cf_expected("cf/agg.nc", "q", q_fill))
    ncdump_raw("CF-1.13 netCDF-4 file (cf-python)", "cf/agg.nc")


# ---- CF-1.13 written here: units, calendars, unique values, missing fragments ---------
def write_nc(path, var, units, data, calendar=None, dims=None, fill=None):
    with netCDF4.Dataset(path, "w") as d:
        dims = dims or [f"d{i}" for i in range(data.ndim)]
        for n, s in zip(dims, data.shape):
            d.createDimension(n, s)
        v = d.createVariable(var, data.dtype, dims, fill_value=fill)
        if units is not None:
            v.units = units
        if calendar:
            v.calendar = calendar
        v[...] = data


def write_cf_aggregation(path, var, dims, shape, sizes, uris, ident, atts, dtype="f8", unique=None):
    """A CF-1.13 aggregation (netCDF-4) with map/uris/identifiers (or
    unique_values): `sizes` = fragment sizes per dimension."""
    with netCDF4.Dataset(path, "w") as d:
        d.Conventions = "CF-1.13"
        for n, s in zip(dims, shape):
            d.createDimension(n, s)
        d.createDimension("j", len(dims))
        d.createDimension("i", max(len(s) for s in sizes))
        fshape = [len(s) for s in sizes]
        for k, n in enumerate(fshape):
            d.createDimension(f"f{k}", n)
        m = d.createVariable("fragment_map", "i4", ("j", "i"))
        mv = np.ma.masked_all((len(dims), max(len(s) for s in sizes)), dtype="i4")
        for k, s in enumerate(sizes):
            mv[k, : len(s)] = s
        m[...] = mv
        fdims = tuple(f"f{k}" for k in range(len(fshape)))
        if unique is not None:
            u = d.createVariable("fragment_values", dtype, fdims)
            u[...] = unique
            spec = "map: fragment_map unique_values: fragment_values"
        else:
            u = d.createVariable("fragment_uris", str, fdims)
            u[...] = np.asarray(uris, dtype=object).reshape(fshape)
            i = d.createVariable("fragment_identifiers", str, ())
            i[...] = np.asarray(ident, dtype=object)
            spec = "map: fragment_map uris: fragment_uris identifiers: fragment_identifiers"
        a = d.createVariable(var, dtype, ())
        a.setncatts(atts)
        a.aggregated_dimensions = " ".join(dims)
        a.aggregated_data = spec


os.makedirs("units", exist_ok=True)
rng = np.random.default_rng(14)
t_k = 250 + 40 * rng.random((6, 4))
write_nc("units/t0.nc", "ta", "K", t_k[:2])
write_nc("units/t1.nc", "ta", "degC", t_k[2:5] - 273.15)
write_nc("units/t2.nc", "ta", "K @ 273.15", t_k[5:] - 273.15)
write_cf_aggregation("units/agg.nc", "ta", ["time", "x"], (6, 4), [[2, 3, 1], [4]],
                     ["t0.nc", "t1.nc", "t2.nc"], "ta", {"standard_name": "air_temperature", "units": "K"})
to_zarr("units/agg.nc", "units/agg.zarr")
for path in ("units/agg.zarr", "units/agg.nc"):
    compare(f"CF-1.13 fragments in K, degC and 'K @ 273.15' (UDUNITS-2), {path}", path, "ta",
            cf_expected("units/agg.nc", "ta", 9.969209968386869e36), dims=["time", "x"])

# reference times, each CF calendar: fragments in other units and epochs
for cal in ["standard", "proleptic_gregorian", "julian", "noleap", "365_day", "all_leap", "366_day", "360_day"]:
    d = f"time_{cal}"
    os.makedirs(d, exist_ok=True)
    write_nc(f"{d}/a.nc", "tt", "days since 1999-12-01", np.arange(0, 40, 10.0), calendar=cal)
    write_nc(f"{d}/b.nc", "tt", "hours since 2000-02-27 12:00", np.arange(0, 96, 24.0), calendar=cal)
    write_nc(f"{d}/c.nc", "tt", "days since 1582-10-01", np.array([0.5, 7.25]), calendar=cal)
    write_cf_aggregation(f"{d}/agg.nc", "tt", ["t"], (10,), [[4, 4, 2]], ["a.nc", "b.nc", "c.nc"], "tt",
                         {"standard_name": "time", "units": "days since 2000-01-01", "calendar": cal})
    to_zarr(f"{d}/agg.nc", f"{d}/agg.zarr")
    for path in (f"{d}/agg.zarr", f"{d}/agg.nc"):
        compare(f"CF-1.13 reference times, calendar {cal}, {path}", path, "tt",
                cf_expected(f"{d}/agg.nc", "tt", 9.969209968386869e36))

os.makedirs("unique", exist_ok=True)
write_cf_aggregation("unique/agg.nc", "u", ["t", "x"], (5, 3), [[2, 3], [1, 2]], None, None,
                     {"units": "m"}, unique=np.array([[1.5, 2.5], [3.5, -4.0]]))
to_zarr("unique/agg.nc", "unique/agg.zarr")
for path in ("unique/agg.zarr", "unique/agg.nc"):
    compare(f"CF-1.13 unique_values, {path}", path, "u",
            cf_expected("unique/agg.nc", "u", 9.969209968386869e36), hidden=("fragment_values", "fragment_map"))
# a missing unique value: the fragment is missing (the fill value); cfdm
# 1.13 gives 0 there (numpy's masked.item()), so this one is checked alone
write_cf_aggregation("unique/masked.nc", "u", ["t"], (3,), [[2, 1]], None, None,
                     {"units": "m"}, unique=np.ma.masked_array([1.5, 0.0], mask=[0, 1]))
to_zarr("unique/masked.nc", "unique/masked.zarr")
for path in ("unique/masked.zarr", "unique/masked.nc"):
    ds = Ours(path)
    check(same(ds.get("u"), np.array([1.5, 1.5, 9.969209968386869e36])),
          f"CF-1.13 a missing unique value reads as the fill value, {path}")
    ds.close()

# errors name the fragment
os.makedirs("errors", exist_ok=True)
write_nc("errors/a.nc", "v", "m", np.arange(4.0))
write_cf_aggregation("errors/missing.nc", "v", ["t"], (8,), [[4, 4]], ["a.nc", "nowhere.nc"], "v", {"units": "m"})
to_zarr("errors/missing.nc", "errors/missing.zarr")
write_cf_aggregation("errors/units.nc", "v", ["t"], (8,), [[4, 4]], ["a.nc", "a.nc"], "v", {"units": "K"})
to_zarr("errors/units.nc", "errors/units.zarr")
write_cf_aggregation("errors/shape.nc", "v", ["t"], (9,), [[4, 5]], ["a.nc", "a.nc"], "v", {"units": "m"})
to_zarr("errors/shape.nc", "errors/shape.zarr")
for name, words in [("missing", ["fragment [1]", "nowhere.nc"]), ("units", ["fragment [0]", "cannot be converted"]),
                    ("shape", ["fragment [1]", "shape"])]:
    for ext in ("zarr", "nc"):
        ds = Ours(f"errors/{name}.{ext}")
        rc, msg = ds.get_err("v")
        ds.close()
        check(rc != 0 and all(w in msg for w in words), f"error ({name}, .{ext}): {rc}, {msg!r} names {words}")
    if name == "missing":
        ds = Ours("errors/missing.zarr")
        got = ds.get("v", [0], [4], [1])
        ds.close()
        check(same(got, np.arange(4.0)), "error (missing): a region that touches only the present fragment reads")

# ---- CFA-0.6.2 and CFA-0.4, written by the cf-python releases that wrote them ----------
# (cf-python 3.13 fails writing in-memory partitions as cfa_private
# variables next to file ones, so CFA-0.4 has netCDF fragments only)
OLD_FORMS = [
    ("CFA-0.6.2", "PYTHON_CFA06", "3.16", "cfa={'absolute_paths': False}",
     ("cfa_location", "cfa_file", "cfa_address", "cfa_format")),
    ("CFA-0.4", "PYTHON_CFA04", "3.13", "fmt='CFA4'", ()),
]
for form, env, version, how, hidden in OLD_FORMS:
    py = os.environ.get(env)
    if not (py and os.path.exists(py)):
        print(f"skip {form}: no cf-python {version} ({env})")
        continue
    d = form.lower().replace(".", "").replace("-", "")
    os.makedirs(d, exist_ok=True)
    code = (
        "import warnings; warnings.filterwarnings('ignore'); import cf\n"
        "f = cf.example_field(0)\n"
        "cf.write(f[:2], 'f0.nc'); cf.write(f[2:], 'f1.nc')\n"
        f"cf.write(cf.read(['f0.nc', 'f1.nc']), 'agg.nc', {how})\n"
    )
    subprocess.run([py, "-c", code], check=True, cwd=d)
    to_zarr(f"{d}/agg.nc", f"{d}/agg.zarr")
    exp = cf_expected(f"{d}/agg.nc", "q", q_fill, python=py)
    compare(f"{form} netCDF-4 file (cf-python {version}) as NCZarr", f"{d}/agg.zarr", "q", exp,
            dims=["lat", "lon"], hidden=hidden)
    compare(f"{form} netCDF-4 file (cf-python {version})", f"{d}/agg.nc", "q", exp, dims=["lat", "lon"], hidden=hidden)

# ---- NCA 0.1: the seed's examples ------------------------------------------------------------
os.makedirs("nca", exist_ok=True)
T, Y, X = 48, 64, 128
master = (np.arange(T * Y * X, dtype="f8").reshape(T, Y, X) % 997) / 10 + 200
write_nc("nca/test1.nc", "tas", "K", master[:12].astype("f4"), dims=["time", "lat", "lon"])
write_nc("nca/test2.nc", "tas2", "K", master[12:].astype("f4"), dims=["time", "lat", "lon"])


def nca_store(path, example3):
    """The example as an NCZarr store (`.zarr`) or a netCDF-4 file."""
    shutil.rmtree(path, ignore_errors=True)
    url = f"file://{os.path.abspath(path)}#mode=nczarr,file" if path.endswith(".zarr") else path
    with netCDF4.Dataset(url, "w") as d:
        d.Conventions = "CF-1.5 NCA"
        for n, s in (("time", T), ("lat", Y), ("lon", X)):
            d.createDimension(n, s)
        tas = d.createVariable("tas", "f4", ())
        tas.standard_name = "air_temperature"
        tas.units = "K"
        tas.nca_dimensions = "time lat lon"
        p0 = ("{'index': [0], 'data': {'file': 'test1.nc', 'shape': [12, 64, 128], 'ncvar': 'tas'}, "
              "'location': [[0, 12], [0, 64], [0, 128]], 'format': 'netCDF'}")
        if example3:
            # the in-memory partition, stored in the file: units 'K @ 273.15',
            # dimensions (lon, time, lat), time decreasing
            for n, s in (("nca12", 12), ("nca64", 64), ("nca128", 128)):
                d.createDimension(n, s)
            priv = d.createVariable("nca_45sdf83745", "f4", ("nca128", "nca12", "nca64"))
            priv.nca_private = 1
            priv[...] = (master[:12][::-1] - 273.15).astype("f4").transpose(2, 0, 1)
            p0 = ("{'index': [0], 'units' : 'K @ 273.15', 'dimensions': ['lon', 'time', 'lat'], "
                  "'directions': {'time': false}, 'data': {'shape': [128, 12, 64], 'ncvar': 'nca_45sdf83745'}, "
                  "'location': [[0, 12], [0, 64], [0, 128]], 'format': 'netCDF'}")
        tas.nca_array = ("{'directions': {'lat': false, 'time': true, 'lon': true}, 'pshape': [2], "
                         "'pdimensions': ['time'], 'Partitions': [" + p0 + ", "
                         "{'index': [1], 'data': {'file': 'test2.nc', 'shape': [36, 64, 128], 'ncvar': 'tas2'}, "
                         "'location': [[12, 48], [0, 64], [0, 128]], 'format': 'netCDF'}]}")


exp = master.astype("f4").astype("f8")
exp3 = exp.copy()
exp3[:12] = (((master[:12] - 273.15).astype("f4")).astype("f8") + 273.15)
for ext in ("zarr", "nc"):
    nca_store(f"nca/example2.{ext}", False)
    nca_store(f"nca/example3.{ext}", True)
    compare(f"NCA 0.1 seed example 2 (two netCDF partitions), .{ext}", f"nca/example2.{ext}", "tas", exp,
            dims=["time", "lat", "lon"])
    compare(f"NCA 0.1 seed example 3 (private in-file partition: K @ 273.15, reordered, reversed time), .{ext}",
            f"nca/example3.{ext}", "tas", exp3, dims=["time", "lat", "lon"], hidden=("nca_45sdf83745",))
    ds = Ours(f"nca/example3.{ext}")
    dimnames = []
    n = ctypes.c_int()
    lib.nc_inq_ndims(ds.nc, ctypes.byref(n))
    for i in range(n.value):
        dn = ctypes.create_string_buffer(257)
        lib.nc_inq_dimname(ds.nc, i, dn)
        dimnames.append(dn.value.decode())
    ds.close()
    check(dimnames == ["time", "lat", "lon"], f"NCA 0.1, .{ext}: the private dimensions are hidden ({dimnames})")
    if shutil.which("ncdump"):
        ncdump_preloaded(f"NCA 0.1 seed example 3, .{ext}", f"nca/example3.{ext}", "tas", exp3)
raw_view("NCA 0.1", "nca/example3.zarr", "tas", ("nca_45sdf83745",))
if shutil.which("ncdump"):
    ncdump_raw("NCA 0.1 seed example 3", "nca/example3.nc")

# the seed's example text as printed (its typos): a clear error with a byte position
with netCDF4.Dataset(f"file://{os.path.abspath('nca/typo.zarr')}#mode=nczarr,file", "w") as d:
    d.createDimension("time", 48)
    v = d.createVariable("tas", "f4", ())
    v.nca_dimensions = "time"
    v.nca_array = "{directions': {'lat': false, 'time': true, 'lon': true }, 'Partitions': []}"
ds = Ours("nca/typo.zarr")
rc, msg = ds.get_err("tas")
ds.close()
check(rc != 0 and "malformed JSON at byte 1" in msg, f"NCA 0.1 with the seed's typo: {rc}, {msg!r}")
# overlapping partitions
with netCDF4.Dataset(f"file://{os.path.abspath('nca/overlap.zarr')}#mode=nczarr,file", "w") as d:
    d.createDimension("time", 48)
    v = d.createVariable("tas", "f4", ())
    v.nca_dimensions = "time"
    v.nca_array = json.dumps({"Partitions": [
        {"index": [0], "location": [[0, 20]], "data": {"file": "test1.nc", "ncvar": "tas"}},
        {"index": [1], "location": [[12, 48]], "data": {"file": "test2.nc", "ncvar": "tas2"}}]})
ds = Ours("nca/overlap.zarr")
rc, msg = ds.get_err("tas")
ds.close()
check(rc != 0 and "partition 1 (index [1])" in msg and "overlaps" in msg, f"NCA 0.1 overlapping partitions: {rc}, {msg!r}")

# ---- our write API (nczarr_rs_def_var_aggregated), read by cf-python and by us ----------
# fragments: netCDF-4 files of 3 and 2 rows of a 5 x 4 field
os.makedirs("written", exist_ok=True)
w_data = 250 + np.arange(20.0).reshape(5, 4)
write_nc("written/f0.nc", "tas", "K", w_data[:3], dims=["y", "x"])
write_nc("written/f1.nc", "tas", "K", w_data[3:], dims=["y", "x"])


def write_ours(url, form):
    """A dataset with coordinates y, x and tas aggregated from f0.nc and
    f1.nc through nczarr_rs_def_var_aggregated (form 0: CF-1.13, 1: NCA)."""
    nc = ctypes.c_int()
    rc = lib.nc_create(url.encode(), 0x1000, ctypes.byref(nc))
    if rc:
        raise RuntimeError(f"nc_create {url}: {rc} {last_error()}")
    dims = (ctypes.c_int * 2)()
    lib.nc_def_dim(nc, b"y", ctypes.c_size_t(5), ctypes.byref(dims, 0))
    lib.nc_def_dim(nc, b"x", ctypes.c_size_t(4), ctypes.byref(dims, 4))
    cy, cx = ctypes.c_int(), ctypes.c_int()
    lib.nc_def_var(nc, b"y", 6, 1, ctypes.byref(dims, 0), ctypes.byref(cy))
    lib.nc_def_var(nc, b"x", 6, 1, ctypes.byref(dims, 4), ctypes.byref(cx))
    v = ctypes.c_int()
    rc = lib.nczarr_rs_def_var_aggregated(
        nc, b"tas", 6, 2, dims, (ctypes.c_size_t * 2)(2, 1), (ctypes.c_size_t * 3)(3, 2, 4),
        (ctypes.c_char_p * 2)(b"f0.nc", b"f1.nc"), ctypes.c_size_t(1), (ctypes.c_char_p * 1)(b"tas"), form,
        ctypes.byref(v))
    if rc:
        raise RuntimeError(f"nczarr_rs_def_var_aggregated {url}: {rc} {last_error()}")
    for name, value in ((b"units", b"K"), (b"standard_name", b"air_temperature")):
        lib.nc_put_att_text(nc, v, name, ctypes.c_size_t(len(value)), value)
    lib.nc_enddef(nc)
    for var, n in ((cy, 5), (cx, 4)):
        vals = np.arange(float(n))
        lib.nc_put_var_double(nc, var, vals.ctypes.data_as(ctypes.c_void_p))
    rc = lib.nc_close(nc)
    if rc:
        raise RuntimeError(f"nc_close {url}: {rc} {last_error()}")


for label, store, mode, form, by_cf in [
    ("CF-1.13, pure Zarr v2", "written/cf_zarr.zarr", "zarr,file", 0, True),
    ("CF-1.13, Zarr v3", "written/cf_v3.zarr", "zarr,v3,file", 0, True),
    # cfdm 1.12 decodes NCZarr's fixed-width strings (|S5) as char arrays
    # and fails on them (docs/AGGREGATION.md): ours alone reads this one
    ("CF-1.13, NCZarr", "written/cf_nczarr.zarr", "nczarr,file", 0, False),
    # cf-python reads NCA 0.1 no more (since 1.x): ours alone
    ("NCA 0.1, NCZarr", "written/nca.zarr", "nczarr,file", 1, False),
]:
    url = f"file://{os.path.abspath(store)}#mode={mode}"
    try:
        write_ours(url, form)
    except RuntimeError as e:
        check(False, f"write API ({label}): {e}")
        continue
    ds = Ours(url)
    check(same(ds.get("tas"), w_data), f"write API ({label}): our reader assembles the field")
    ds.close()
    if by_cf:
        try:
            check(same(cf_expected(store, "tas", 1e20), w_data), f"write API ({label}): cf-python reads the same values")
        except Exception as e:  # noqa: BLE001 - report, keep checking
            check(False, f"write API ({label}): cf-python reads it: {type(e).__name__}: {e}")

# ---- the aggregation builder (nczarr-rs-aggregate) --------------------------------------
tool = os.environ.get("NCZARR_RS_AGGREGATE_TOOL", "")
if os.path.exists(tool):
    frags = ["cf/frag0.nc", "cf/frag1.nc", "cf/frag2.nc"]
    exp = cf_expected("cf/agg.nc", "q", q_fill)
    for label, url, store, extra, by_cf in [
        ("CF-1.13, pure Zarr", f"file://{os.path.abspath('cf/tool.zarr')}#mode=zarr,file", "cf/tool.zarr", [], True),
        ("CF-1.13, netCDF fragments by absolute path, NCZarr", "cf/tool_abs.zarr", "cf/tool_abs.zarr",
         ["--absolute"], False),
        ("NCA 0.1, NCZarr", "cf/tool_nca.zarr", "cf/tool_nca.zarr", ["--nca"], False),
    ]:
        r = subprocess.run([tool, "-d", "lat", *extra, "-o", url, *frags], capture_output=True, text=True, timeout=300)
        check(r.returncode == 0 and "aggregated: q" in r.stdout and "concatenated: lat_bnds, lat" in r.stdout,
              f"nczarr-rs-aggregate ({label}): {r.stdout.strip()!r} {r.stderr.strip()!r}")
        if r.returncode:
            continue
        compare(f"nczarr-rs-aggregate ({label})", store, "q", exp, dims=["lat", "lon"])
        ds = Ours(store)
        check(same(ds.get("lat"), np.array([-75.0, -45, 0, 45, 75])),
              f"nczarr-rs-aggregate ({label}): the lat coordinate is the inputs' concatenated")
        ds.close()
        if by_cf:
            try:
                check(same(cf_expected(store, "q", q_fill), exp), f"nczarr-rs-aggregate ({label}): cf-python reads it")
            except Exception as e:  # noqa: BLE001 - report, keep checking
                check(False, f"nczarr-rs-aggregate ({label}): cf-python reads it: {type(e).__name__}: {e}")
    r = subprocess.run([tool, "-d", "lat", "-o", "cf/tool_bad.zarr", "cf/frag0.nc", "units/t0.nc"],
                       capture_output=True, text=True, timeout=300)
    check(r.returncode == 1 and "units/t0.nc" in r.stderr and "no dimension lat" in r.stderr,
          f"nczarr-rs-aggregate: inputs that disagree are an error naming the input ({r.stderr.strip()!r})")
else:
    print(f"skip nczarr-rs-aggregate: not found ({tool!r})")

print(f"aggregation: {'FAILED' if failed else 'all checks passed'} ({failed} failed)")
sys.exit(1 if failed else 0)
