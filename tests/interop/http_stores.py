"""Zarr stores for the HTTP tests (tests/http.rs), made by zarr-python in the
directory nginx serves (scripts/http-server.sh), and read back by
zarr-python over HTTP (fsspec's HTTP file system) for comparison: v2 with
.zmetadata, v3 with consolidated metadata in zarr.json, and v2/v3 without
consolidation. Every array `t` holds arange(48).reshape(6, 8) * 1.5 as
float64 in chunks of (3, 4), and the group the attribute title="over http".

usage: http_stores.py DIR URL
"""
import sys
import numpy as np
import zarr

root, url = sys.argv[1], sys.argv[2]
want = np.arange(48, dtype="f8").reshape(6, 8) * 1.5
stores = {"v2c.zarr": (2, True), "v3c.zarr": (3, True), "v2.zarr": (2, False), "v3.zarr": (3, False)}
for name, (fmt, consolidated) in stores.items():
    g = zarr.open_group(f"{root}/{name}", mode="w", zarr_format=fmt)
    g.attrs["title"] = "over http"
    a = g.create_array("t", shape=(6, 8), chunks=(3, 4), dtype="f8",
                       dimension_names=None if fmt == 2 else ["y", "x"],
                       attributes={"_ARRAY_DIMENSIONS": ["y", "x"]} if fmt == 2 else {})
    a[...] = want
    if consolidated:
        zarr.consolidate_metadata(f"{root}/{name}", zarr_format=fmt)
# zarr-python over HTTP reads the same
for name, (fmt, consolidated) in stores.items():
    if consolidated:
        g = zarr.open_consolidated(f"{url}/{name}", zarr_format=fmt)
        assert dict(g.attrs) == {"title": "over http"}, (name, dict(g.attrs))
        got = g["t"][...]
    else:
        got = zarr.open_array(f"{url}/{name}/t", mode="r", zarr_format=fmt)[...]
    assert np.array_equal(got, want), name
    print(f"http_stores: {name} (zarr v{fmt}{', consolidated' if consolidated else ''}) read by zarr-python over HTTP")
