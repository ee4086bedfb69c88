"""Kerchunk reference sets read through libnczarr_rs (issue 28).

netCDF-4 files made here with netCDF4-python (several types, chunked and
contiguous, zlib+shuffle, an unlimited dimension, a group, attributes,
strings and chars, a variable with chunks never written) are referenced
with kerchunk's SingleHdf5ToZarr (chunks inline and not, absolute and
relative targets) and combined with MultiZarrToZarr. Each reference set is
opened through our library (this process runs with it preloaded: a `.json`
path is ours, a `.nc` path the wheel's libnetcdf) and must read:
  * every variable, dimension and attribute as netCDF-C (the wheel's
    libnetcdf) reads them from the original files;
  * every variable as xarray reads it through the reference set
    (kerchunk's xarray backend, fsspec's ReferenceFileSystem);
locally, and on S3 (moto) when NCZARR_RS_S3_TEST_URL is set: the files and
the reference files in a bucket, targets as s3:// URLs and relative.

Usage: check_refs.py OUTDIR
"""

import json
import os
import sys
import time

import netCDF4
import numpy as np

from kerchunk.combine import MultiZarrToZarr
from kerchunk.hdf import SingleHdf5ToZarr

out = os.path.abspath(sys.argv[1])
failures = []
checked = {"variables": 0, "attributes": 0}


def fail(what):
    failures.append(what)
    print("FAIL", what, flush=True)


def make_file(path, i):
    """One netCDF-4 file; `i` shifts the values and the times."""
    d = netCDF4.Dataset(path, "w")
    d.createDimension("time", None)
    d.createDimension("lat", 5)
    d.createDimension("lon", 8)
    d.createDimension("nchar", 4)
    d.title = "kerchunk harness"
    d.history = f"file {i}"
    d.ints = np.array([1, 2, 3], "i4")
    d.pi = 3.25
    d.short = np.int16(-7)
    t = d.createVariable("time", "f8", ("time",))
    t.units = "days since 2000-01-01"
    t.calendar = "standard"
    t[:] = np.arange(3) + 3 * i
    lat = d.createVariable("lat", "f4", ("lat",), contiguous=True)
    lat.units = "degrees_north"
    lat[:] = np.linspace(-40, 40, 5)
    lon = d.createVariable("lon", "f8", ("lon",), contiguous=True)
    lon[:] = np.linspace(0, 315, 8)
    temp = d.createVariable("temp", "f4", ("time", "lat", "lon"), zlib=True, shuffle=True,
                            chunksizes=(1, 3, 4), fill_value=np.float32(-999))
    temp.long_name = "temperature"
    temp.valid_range = np.array([-100, 100], "f4")
    data = (np.arange(3 * 5 * 8, dtype="f4").reshape(3, 5, 8) * 0.5 - 20 + i)
    data[1, 2, 3] = -999
    temp[:] = data
    # one chunk along time per file: kerchunk combines whole chunks only
    cnt = d.createVariable("count", "i4", ("time", "lat", "lon"), zlib=True, complevel=9,
                           chunksizes=(3, 5, 8))
    cnt[:] = np.arange(120, dtype="i4").reshape(3, 5, 8) * (i + 1)
    for name, dt, dim in [("i1v", "i1", "lat"), ("u1v", "u1", "lat"), ("i2v", "i2", "lon"),
                          ("u2v", "u2", "lon"), ("u4v", "u4", "lat"), ("i8v", "i8", "lon"),
                          ("u8v", "u8", "lat")]:
        v = d.createVariable(name, dt, (dim,), zlib=name in ("i2v", "u8v"))
        n = 5 if dim == "lat" else 8
        info = np.iinfo(np.dtype(dt))
        v[:] = np.linspace(max(info.min, -1000), min(info.max, 10**12), n).astype(dt)
    # chunks never written: the default fill
    part = d.createVariable("partial", "f8", ("lat", "lon"), chunksizes=(2, 4))
    part[0:2, :] = 1.5
    # scalar
    sc = d.createVariable("scalar", "i4", ())
    sc[...] = 42 + i
    names = d.createVariable("names", str, ("lat",))
    names[:] = np.array(["a", "bb", "ccc", "", "été"], dtype=object)
    code = d.createVariable("code", "S1", ("lat", "nchar"))
    code[:] = netCDF4.stringtochar(np.array(["ab", "cde", "f", "", "wxyz"], dtype="S4"))
    g = d.createGroup("sub")
    g.note = "a group"
    sv = g.createVariable("sv", "f8", ("lat",), zlib=True)
    sv.units = "m"
    sv[:] = np.arange(5) * 1.25 + i
    d.close()


def raw(ds):
    ds.set_auto_maskandscale(False)
    ds.set_auto_chartostring(False)
    for g in ds.groups.values():
        raw(g)
    return ds


def values(v):
    a = v[...]
    if isinstance(a, np.ma.MaskedArray):
        a = a.data
    return np.asarray(a)


def same(a, b):
    a, b = np.asarray(a), np.asarray(b)
    if a.shape != b.shape:
        return False
    if a.dtype.kind == "f" and b.dtype.kind == "f":
        return bool(np.array_equal(a, b, equal_nan=True))
    if a.dtype.kind in "OUS" or b.dtype.kind in "OUS":
        return [str(x) for x in a.ravel()] == [str(x) for x in b.ravel()]
    return bool(np.array_equal(a, b))


def compare_atts(where, ours, ref):
    """The attributes of `ours` (a group or variable) against `ref`'s."""
    oa = {a: ours.getncattr(a) for a in ours.ncattrs()}
    ra = {a: ref.getncattr(a) for a in ref.ncattrs()}
    if set(oa) != set(ra):
        fail(f"{where}: attributes {sorted(oa)} != {sorted(ra)}")
    for a in ra:
        checked["attributes"] += 1
        if a in oa and not same(oa[a], ra[a]):
            fail(f"{where}: attribute {a}: {oa[a]!r} != {ra[a]!r}")


def compare_group(label, ours, ref):
    """Our dataset (or group) `ours` against netCDF-C's `ref`."""
    path = ours.path
    compare_atts(f"{label} {path}", ours, ref)
    for name, d in ref.dimensions.items():
        if name not in ours.dimensions:
            fail(f"{label} {path}: no dimension {name}")
        elif len(ours.dimensions[name]) != len(d):
            fail(f"{label} {path}: dimension {name}: {len(ours.dimensions[name])} != {len(d)}")
    if set(ours.variables) != set(ref.variables):
        fail(f"{label} {path}: variables {sorted(ours.variables)} != {sorted(ref.variables)}")
    for name, rv in ref.variables.items():
        if name not in ours.variables:
            continue
        ov = ours.variables[name]
        checked["variables"] += 1
        if ov.dimensions != rv.dimensions:
            fail(f"{label} {path}/{name}: dimensions {ov.dimensions} != {rv.dimensions}")
        if ov.dtype != rv.dtype:
            fail(f"{label} {path}/{name}: type {ov.dtype} != {rv.dtype}")
        want, got = values(rv), values(ov)
        if not same(got, want):
            fail(f"{label} {path}/{name}: values\n  ours {got!r}\n  want {want!r}")
        compare_atts(f"{label} {path}/{name}", ov, rv)
        # the compression netCDF-C reports
        fo, fr = ov.filters(), rv.filters()
        if (fo or {}).get("zlib") != (fr or {}).get("zlib"):
            fail(f"{label} {path}/{name}: filters {fo} != {fr}")
    for gname, rg in ref.groups.items():
        if gname not in ours.groups:
            fail(f"{label} {path}: no group {gname}")
        else:
            compare_group(label, ours.groups[gname], rg)


def compare_xarray(label, ours, refs, group=None):
    """Our variables against xarray reading the reference set. Not
    `partial`: xarray reads the chunks a file never wrote as 0 (kerchunk
    writes no fill value for a netCDF variable without `_FillValue`); we
    read netCDF's default fill there, as netCDF-C does (checked above)."""
    import xarray as xr
    kw = {"group": group} if group else {}
    try:
        x = xr.open_dataset(refs, engine="kerchunk", mask_and_scale=False, decode_times=False,
                            concat_characters=False, **kw)
    except Exception as e:  # noqa: BLE001
        fail(f"{label}: xarray cannot open the reference set: {e}")
        return
    g = ours if group is None else ours.groups[group]
    for name, xv in x.variables.items():
        if name == "partial":
            continue
        if name not in g.variables:
            fail(f"{label}: xarray's variable {name} is not ours")
            continue
        got, want = values(g.variables[name]), xv.values
        if want.dtype.kind == "S" and got.dtype.kind == "S":  # chars
            want = want.astype("S1")
        checked["variables"] += 1
        if not same(got, want):
            fail(f"{label} (xarray) {name}:\n  ours {got!r}\n  xarray {want!r}")


def rewrite(refs, fn):
    """A copy of `refs` with every target url passed through `fn`."""
    r = json.loads(json.dumps(refs))
    for k, v in r["refs"].items():
        if isinstance(v, list):
            v[0] = fn(v[0])
    return r


def save(refs, path):
    with open(path, "w") as f:
        json.dump(refs, f)
    return path


def main():
    start = time.time()
    files = [os.path.join(out, f"f{i}.nc") for i in range(3)]
    for i, p in enumerate(files):
        make_file(p, i)
    # inline_threshold 0: every chunk a byte range; 300: small ones inline
    single = SingleHdf5ToZarr(files[0], inline_threshold=300).translate()
    ranges = SingleHdf5ToZarr(files[0], inline_threshold=0).translate()
    sets = {
        "inline": save(single, os.path.join(out, "f0.json")),
        "ranges": save(ranges, os.path.join(out, "f0-ranges.json")),
        "relative": save(rewrite(ranges, os.path.basename), os.path.join(out, "f0-relative.json")),
        "file-url": save(rewrite(ranges, lambda u: "file://" + u), os.path.join(out, "f0-fileurl.json")),
    }
    ref = raw(netCDF4.Dataset(files[0]))
    for label, path in sets.items():
        for spelling in [path, f"file://{path}#mode=kerchunk"]:
            ours = raw(netCDF4.Dataset(spelling))
            compare_group(label, ours, ref)
            ours.close()
        if label == "relative":
            continue  # fsspec resolves no target against the reference file
        ours = raw(netCDF4.Dataset(path))
        compare_xarray(label, ours, path)
        compare_xarray(label, ours, path, group="sub")
        ours.close()

    # three files along time
    singles = [SingleHdf5ToZarr(p, inline_threshold=0).translate() for p in files]
    combined = MultiZarrToZarr(singles, concat_dims=["time"],
                               identical_dims=["lat", "lon", "i1v", "u1v", "i2v", "u2v", "u4v",
                                               "i8v", "u8v", "partial", "code", "names"]).translate()
    cpath = save(combined, os.path.join(out, "combined.json"))
    refs_all = [raw(netCDF4.Dataset(p)) for p in files]

    def along_time(name, rv):
        path = rv.group().path
        vs = [values(r[path].variables[name] if path != "/" else r.variables[name]) for r in refs_all]
        if "time" in rv.dimensions:
            return np.concatenate(vs, axis=rv.dimensions.index("time"))
        return vs[0]

    ours = raw(netCDF4.Dataset(cpath))
    # the root only: kerchunk concatenates what varies between files
    root_only = {n: v for n, v in ref.variables.items() if n not in ("scalar",)}
    if len(ours.dimensions["time"]) != 9:
        fail(f"combined: time has {len(ours.dimensions['time'])} values, not 9")
    for name, rv in root_only.items():
        if name not in ours.variables:
            fail(f"combined: no variable {name}")
            continue
        checked["variables"] += 1
        got, want = values(ours.variables[name]), along_time(name, rv)
        if not same(got, want):
            fail(f"combined {name}:\n  ours {got!r}\n  want {want!r}")
    compare_xarray("combined", ours, cpath)
    ours.close()

    s3 = os.environ.get("NCZARR_RS_S3_TEST_URL")
    if s3:
        check_s3(s3, files, ranges, ref)
    elif os.environ.get("NCZARR_RS_REQUIRE_S3") == "1":
        fail("NCZARR_RS_REQUIRE_S3=1 but NCZARR_RS_S3_TEST_URL is not set")
    print(f"kerchunk: {checked['variables']} variables and {checked['attributes']} attributes compared "
          f"in {time.time() - start:.1f} s", flush=True)


def check_s3(base, files, ranges, ref):
    """The files and the reference files in moto: s3:// targets (the
    endpoint from AWS_ENDPOINT_URL), relative targets, the reference file
    read from S3 and from a local path."""
    import boto3
    endpoint, bucket = base.rsplit("/", 1)
    prefix = f"kerchunk-{os.getpid()}"
    s3 = boto3.client("s3", endpoint_url=endpoint, region_name=os.environ.get("AWS_REGION", "us-east-1"))
    for p in files:
        s3.upload_file(p, bucket, f"{prefix}/{os.path.basename(p)}")
    os.environ["AWS_ENDPOINT_URL"] = endpoint
    to_s3 = rewrite(ranges, lambda u: f"s3://{bucket}/{prefix}/{os.path.basename(u)}")
    relative = rewrite(ranges, os.path.basename)
    local = save(to_s3, os.path.join(out, "f0-s3.json"))
    s3.put_object(Bucket=bucket, Key=f"{prefix}/f0-s3.json", Body=json.dumps(to_s3).encode())
    s3.put_object(Bucket=bucket, Key=f"{prefix}/f0-relative.json", Body=json.dumps(relative).encode())
    spellings = {
        "s3 targets, local reference file": local,
        "s3 targets, reference file on s3://": f"s3://{bucket}/{prefix}/f0-s3.json#mode=kerchunk",
        "relative targets, reference file on S3": f"{base}/{prefix}/f0-relative.json#mode=kerchunk,s3",
    }
    for label, spelling in spellings.items():
        try:
            ours = raw(netCDF4.Dataset(spelling))
        except OSError as e:
            fail(f"{label}: {spelling}: {e}")
            continue
        compare_group(label, ours, ref)
        ours.close()
    print(f"kerchunk on S3: {len(spellings)} spellings checked", flush=True)


main()
if failures:
    print(f"kerchunk harness: {len(failures)} failures", flush=True)
    sys.exit(1)
print("kerchunk harness: all passed", flush=True)
