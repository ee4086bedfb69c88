"""Zip archives: zarr-python's ZipStore reads the archive nczarr-rs wrote,
Python's zipfile zips a directory store (the spec: "zipping a file format
directory tree will produce a file readable by the zip storage format"),
and zarr-python writes an archive for nczarr-rs to read.

Usage: zip_check.py DIR"""
import os
import sys
import warnings
import zipfile

import numpy as np
import zarr

from checks import check, finish

d = sys.argv[1]


# 1. zarr-python reads our archive: an NCZarr one (mode=nczarr,zip) is in
# netCDF-C's layout, the dataset below the directory "ours_zip/"
store = zarr.storage.ZipStore(f"{d}/ours_zip.zip", mode="r")
g = zarr.open_group(store, path="ours_zip", mode="r", zarr_format=2)
v = g["v"][...]
check(v[1].tolist() == [-50, -40, -30] and v[0].tolist() == [-99] * 3, f"ZipStore reads v: {v.tolist()}")
check(g["g"]["s"][...].ravel().tolist() == list(range(-10, 10)), "ZipStore reads g/s")
check(g.attrs["title"] == "written by nczarr-rs", "ZipStore reads attributes")
store.close()

# 2. a directory store, zipped from inside its root
src = f"{d}/ours_portable.zarr"
with zipfile.ZipFile(f"{d}/zipped_dir.zip", "w", zipfile.ZIP_DEFLATED) as z:
    for root, _, files in os.walk(src):
        for f in files:
            full = os.path.join(root, f)
            z.write(full, os.path.relpath(full, src))

# 3. zarr-python writes an archive. ZipStore appends a second entry when an
# object is rewritten (zipfile warns); the last entry is the object.
warnings.filterwarnings("ignore", "Duplicate name", UserWarning)
store = zarr.storage.ZipStore(f"{d}/zarr_zip.zip", mode="w")
root = zarr.open_group(store, mode="w", zarr_format=2)
a = root.create_array("t", shape=(6,), chunks=(4,), dtype="<i4", fill_value=-1, compressors=None)
a[:5] = np.arange(5) * 11
a.attrs["_ARRAY_DIMENSIONS"] = ["n"]
root.attrs["made_by"] = "zarr ZipStore"
store.close()

finish("zip_check")
