"""The writer x reader compatibility matrix (docs/COMPATIBILITY.md).

Writers: nczarr-rs (default layout, and mode=...,oldkeys), Debian's ncgen
(netCDF-C 4.9.0), the netCDF4 wheel (netCDF-C 4.10.1) and zarr-python 3.
Readers: nczarr-rs, Debian's netCDF-C, the wheel's (through ncwalk, built
against each) and zarr-python. Datasets: fixed, unlimited, scalar, string and
grouped, each with a title attribute.

A cell is what the reader makes of the dataset, compared with the writer's
own reading of it (nczarr-rs's for zarr-python's datasets) by compare.py's
normalise (netCDF-C 4.9.0 shows the 4.9.3+ `_nczarr_*` keys as attributes;
anonymous dimension names and dimension placement differ in pure Zarr):
  ok            the same
  ok, t fixed   the same, except that the unlimited dimension is fixed
  differs: ...  readable, but different (the diff is in the log)
  fails: ...    the reader cannot open or read it
Every cell must match EXPECTED (default "ok"); the differences listed there
are the reference readers' own limits. Then each netCDF library appends a
record to an unlimited dataset the other wrote (append.c).

Usage: matrix.py OUTDIR BINDIR   (BINDIR holds ncwalk_{ours,deb,whl},
write_ours and append_{ours,whl}); prints the matrix as a Markdown table."""
import difflib
import os
import shutil
import subprocess
import sys
import types

import netCDF4
import numpy as np
import zarr

from checks import check, finish
from compare import normalise

out, bindir = sys.argv[1], sys.argv[2]
KINDS = ["fixed", "unlimited", "scalar", "string", "grouped"]
WRITERS = ["ours", "ours_oldkeys", "deb", "whl", "zarr"]
READERS = ["ours", "deb", "whl", "zarr"]
NC_READERS = {"ours": "ours", "ours_oldkeys": "ours", "deb": "deb", "whl": "whl"}
LABEL = {
    "ours": "nczarr-rs",
    "ours_oldkeys": "nczarr-rs `oldkeys`",
    "deb": "Debian 4.9.0",
    "whl": "wheel 4.10.1",
    "zarr": "zarr-python 3",
}
VALUES = {  # the variable v of each dataset
    "fixed": [1, 2, 3],
    "unlimited": [[1, 2, 3], [4, 5, 6]],
    "scalar": 17,
    "string": ["ab", "", "cde"],
    "grouped": [[1, 2, 3], [4, 5, 6]],
}
EXPECTED = {
    # Debian's netCDF-C 4.9.0 has no unlimited dimensions; it crashes on
    # scalars and |Sn strings in NCZarr; it sees the 4.9.3+ layout as pure
    # Zarr, where a scalar is v(_scalar_).
    ("ours", "unlimited", "deb"): "ok, t fixed",
    ("ours_oldkeys", "unlimited", "deb"): "ok, t fixed",
    ("whl", "unlimited", "deb"): "ok, t fixed",
    ("ours", "scalar", "deb"): "differs: v(_scalar_)",
    ("whl", "scalar", "deb"): "differs: v(_scalar_)",
    ("ours_oldkeys", "scalar", "deb"): "fails: crash",
    ("deb", "scalar", "deb"): "fails: crash",
    ("zarr", "scalar", "deb"): "fails: crash",
    ("ours", "string", "deb"): "fails: crash",
    ("ours_oldkeys", "string", "deb"): "fails: crash",
    ("whl", "string", "deb"): "fails: crash",
    ("zarr", "string", "deb"): "fails: crash",
    # netCDF-C 4.9.2's placement has no unlimited dimensions.
    ("ours_oldkeys", "unlimited", "whl"): "ok, t fixed",
    # 4.10 shows 4.9.0's uppercase _NCZARR_ATTR as an attribute
    **{("deb", k, "whl"): "differs: _NCZARR_ATTR shown" for k in ["fixed", "scalar", "grouped"]},
    # 4.10.1 cannot read a 0-d array (v has no dimensions and no data)
    ("zarr", "scalar", "whl"): "differs: no data",
}
for w in ["ours", "ours_oldkeys", "deb", "whl"]:
    EXPECTED[(w, "scalar", "zarr")] = "ok, shape (1,)"  # NCZarr stores scalars as shape [1]
for r in READERS:  # ncgen 4.9.0 fails, nothing to read
    EXPECTED[("deb", "unlimited", r)] = EXPECTED[("deb", "string", r)] = "not written: 4.9.0 ncgen fails"

CDL = {
    "fixed": "int v(x) ;\ndata:\n v = 1, 2, 3 ;",
    "unlimited": "int v(t, x) ;\ndata:\n v = 1, 2, 3, 4, 5, 6 ;",
    "scalar": "int v ;\ndata:\n v = 17 ;",
    "string": 'string v(x) ;\ndata:\n v = "ab", "", "cde" ;',
    "grouped": "\ngroup: g {\n dimensions:\n  z = 2 ;\n variables:\n  short v(z, x) ;\n data:\n  v = 1, 2, 3, 4, 5, 6 ;\n}",
}


def url(path):
    return f"file://{path}#mode=nczarr,file"


def write_cdl(kind, path):
    dims = "x = 3 ;" + (" t = UNLIMITED ;" if kind == "unlimited" else "")
    body = CDL[kind]
    if kind == "grouped":
        text = f'netcdf m {{\ndimensions:\n {dims}\n// global attributes:\n :title = "{kind}" ;{body}\n}}\n'
    else:
        variables, data = body.split("data:")
        text = (
            f'netcdf m {{\ndimensions:\n {dims}\nvariables:\n {variables}\n// global attributes:\n'
            f' :title = "{kind}" ;\ndata:{data}\n}}\n'
        )
    cdl = path + ".cdl"
    with open(cdl, "w") as f:
        f.write(text)
    r = subprocess.run(["ncgen", "-4", "-o", url(path), cdl], capture_output=True, text=True)
    if r.returncode != 0:
        shutil.rmtree(path, ignore_errors=True)


def write_wheel(kind, path):
    ds = netCDF4.Dataset(url(path), "w")
    ds.title = kind
    ds.createDimension("x", 3)
    if kind == "fixed":
        ds.createVariable("v", "i4", ("x",))[:] = VALUES[kind]
    elif kind == "unlimited":
        ds.createDimension("t", None)
        ds.createVariable("v", "i4", ("t", "x"))[0:2, :] = VALUES[kind]
    elif kind == "scalar":
        ds.createVariable("v", "i4", ())[...] = VALUES[kind]
    elif kind == "string":
        v = ds.createVariable("v", str, ("x",))
        for i, s in enumerate(VALUES[kind]):
            v[i] = s
    else:
        g = ds.createGroup("g")
        g.createDimension("z", 2)
        g.createVariable("v", "i2", ("z", "x"))[:] = VALUES[kind]
    ds.close()


def write_zarr(kind, path):
    root = zarr.open_group(path, mode="w", zarr_format=2)
    root.attrs["title"] = kind
    grp, dims = root, ["x"]
    value = np.array(VALUES[kind], dtype="S3" if kind == "string" else "i4")
    if kind == "unlimited":
        dims = ["t", "x"]
    elif kind == "scalar":
        dims = []
    elif kind == "grouped":
        grp, dims, value = root.create_group("g"), ["z", "x"], value.astype("i2")
    a = grp.create_array("v", shape=value.shape, dtype=value.dtype, compressors=None, fill_value=None)
    a.attrs["_ARRAY_DIMENSIONS"] = dims
    a[...] = value


def write_ours(kind, path, mode):
    subprocess.run([f"{bindir}/write_ours", path, kind, mode], check=True)


def walk(reader, path):
    env = dict(os.environ)
    r = subprocess.run([f"{bindir}/ncwalk_{reader}", url(path)], capture_output=True, text=True, env=env)
    if r.returncode < 0:
        return None, "crash"
    if r.returncode != 0:
        err = r.stderr.strip().splitlines()
        return None, err[-1] if err else f"exit {r.returncode}"
    return r.stdout.splitlines(), None


OPTS = types.SimpleNamespace(
    drop_att=["_nczarr_attr", "_nczarr_group", "_nczarr_array", "_nczarr_superblock"],
    loose_int_atts=False,
    loose_real_atts=False,
    dim_placement=True,
    anon_dims=True,
    one_byte_endian=True,
)


def nc_cell(ref, got, label):
    a, b = normalise(ref, OPTS), normalise(got, OPTS)
    if a == b:
        return "ok"
    strip = [line.replace(" unlimited", "") for line in a]
    if strip == b:
        return "ok, t fixed"
    print(f"--- {label}", file=sys.stderr)
    diff = list(difflib.unified_diff([x + "\n" for x in a], [x + "\n" for x in b]))
    sys.stderr.writelines(diff)
    added = "".join(x for x in diff if x.startswith("+"))
    if "(_scalar_)" in added:
        return "differs: v(_scalar_)"
    if "_NCZARR_ATTR" in added:
        return "differs: _NCZARR_ATTR shown"
    if not any(x.startswith("data ") for x in b):
        return "differs: no data"
    return "differs"


def short_error(err):
    if "NCZarr error" in err:
        return "fails: NC_ENCZARR"
    if "Invalid argument" in err:
        return "fails: NC_EINVAL"
    return "fails: " + err[-80:]


def zarr_cell(kind, path):
    try:
        g = zarr.open_group(path, mode="r", zarr_format=2)
        a = (g["g"] if kind == "grouped" else g)["v"]
        got = a[...]
    except Exception as e:  # noqa: BLE001 - a cell of the matrix
        return "fails: " + str(e).splitlines()[0][:80]
    want = np.array(VALUES[kind], dtype=object if kind == "string" else None)
    if kind == "string":
        got = np.array([x.decode() if isinstance(x, bytes) else x for x in got.ravel()], dtype=object)
    if got.shape == want.shape and (got == want).all():
        return "ok"
    if kind == "scalar" and got.shape == (1,) and got[0] == want:
        return "ok, shape (1,)"
    return f"differs: {got.tolist()!r}"


os.makedirs(out, exist_ok=True)
cells = {}
for w in WRITERS:
    for kind in KINDS:
        path = f"{out}/{w}_{kind}.zarr"
        shutil.rmtree(path, ignore_errors=True)
        if w == "ours":
            write_ours(kind, path, "nczarr,file")
        elif w == "ours_oldkeys":
            write_ours(kind, path, "nczarr,file,oldkeys")
        elif w == "deb":
            write_cdl(kind, path)
        elif w == "whl":
            write_wheel(kind, path)
        else:
            write_zarr(kind, path)
        if not os.path.exists(path):
            for r in READERS:
                cells[(w, kind, r)] = "not written: 4.9.0 ncgen fails"
            continue
        walks = {r: walk(r, path) for r in ["ours", "deb", "whl"]}
        ref_reader = NC_READERS.get(w, "ours")
        ref = walks[ref_reader][0] or walks["ours"][0]
        for r in READERS:
            if r == "zarr":
                cells[(w, kind, r)] = zarr_cell(kind, path)
                continue
            lines, err = walks[r]
            if lines is None:
                cells[(w, kind, r)] = "fails: crash" if err == "crash" else short_error(err)
            elif ref is None:
                cells[(w, kind, r)] = "ok"
            else:
                cells[(w, kind, r)] = nc_cell(ref, lines, f"{w}_{kind} read by {r}")

for key, got in sorted(cells.items()):
    want = EXPECTED.get(key, "ok")
    check(got == want, f"matrix {key}: {got!r} (expected {want!r})")

# read-write: each library appends a record to the other's unlimited dataset
for writer, appender, reader in (("whl", "ours", "whl"), ("ours", "whl", "ours")):
    path = f"{out}/append_{writer}_by_{appender}.zarr"
    shutil.rmtree(path, ignore_errors=True)
    shutil.copytree(f"{out}/{writer}_unlimited.zarr", path)
    r = subprocess.run([f"{bindir}/append_{appender}", url(path)], capture_output=True, text=True)
    check(r.returncode == 0, f"{LABEL[appender]} appends to {LABEL[writer]}'s dataset: {r.stderr.strip()}")
    lines, err = walk(reader, path)
    want = ["dim t 3 unlimited", "att / appended char \"yes\"", "data v n=9 fill=0 1,2,3,4,5,6,7,8,9"]
    ok = lines is not None and all(x in lines for x in want)
    check(ok, f"{LABEL[reader]} reads the record {LABEL[appender]} appended: {err or lines}")

print("| writer \\ reader | dataset | " + " | ".join(LABEL[r] for r in READERS) + " |")
print("| --- | --- | " + " | ".join("---" for _ in READERS) + " |")
for w in WRITERS:
    for kind in KINDS:
        print(f"| {LABEL[w]} | {kind} | " + " | ".join(cells[(w, kind, r)] for r in READERS) + " |")
finish("matrix")
