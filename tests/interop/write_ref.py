"""Writes the reference datasets of the interop harness with the real
implementations: the netCDF4 wheel (netCDF-C 4.10.x NCZarr and pure Zarr),
zarr-python 3 (zarr_format=2) and xarray (to_zarr, consolidated).

Usage: write_ref.py OUTDIR"""
import os
import sys

import netCDF4
import numcodecs
import numpy as np
import xarray as xr
import zarr

out = sys.argv[1]
os.makedirs(out, exist_ok=True)


def netcdf4_dataset(path, mode, compress):
    ds = netCDF4.Dataset(f"file://{path}#mode={mode},file", "w", format="NETCDF4")
    ds.title = "written by the netCDF4 wheel"
    ds.setncattr("ints", np.array([1, -2, 3], dtype="i4"))
    ds.setncattr("short", np.int16(-7))
    ds.setncattr("pi", np.float64(np.pi))
    ds.setncattr("f", np.float32(0.1))
    ds.setncattr("u64", np.uint64(2**63 + 5))
    # JSON text: netCDF-C stores it as JSON and returns its number tokens
    # as written (1.50, 1e3, -0.0), in its own layout
    ds.json_numbers = '{"k": "v", "n": null, "f": 1.50, "e": [1e3,-0.0,2]}'
    ds.createDimension("x", 4)
    ds.createDimension("y", 3)
    v = ds.createVariable("v", "i4", ("x", "y"), fill_value=-99)
    v.units = "m"
    v.setncattr("scale_factor", np.float32(0.5))
    v[:] = np.arange(12, dtype="i4").reshape(4, 3) - 6
    v[0, 0] = -99  # the fill value
    d = ds.createVariable("d", "f8", ("y",))
    d[:] = [0.25, np.nan, 1e-300]
    b = ds.createVariable("b", "i1", ("x",))
    b[1:3] = [-128, 127]  # elements 0 and 3 stay fill
    u = ds.createVariable("u", "u2", ("x", "y"), chunksizes=(2, 3))
    u[2:4, :] = 65534  # chunk 0 is never written
    g = ds.createGroup("g")
    g.createDimension("z", 5)
    s = g.createVariable("s", "i2", ("z", "x"))
    s.long_name = "in a group"
    s[:] = np.arange(20, dtype="i2").reshape(5, 4)
    g.comment = "group attribute"
    if compress:  # NCZarr only (Debian's 4.9.0 cannot write strings)
        sf = ds.createVariable("sfill", str, ("x",), chunksizes=(2,), fill_value="N/A")
        sf[2] = "c"
        sf[3] = "d"  # chunk 0 is never written: it reads as "N/A"
        ds.json_spaced = '{"a": [1, 2]}'
        z = ds.createVariable("zipped", "f8", ("x", "y"), zlib=True, complevel=6, shuffle=True)
        z[:] = np.linspace(0, 1, 12).reshape(4, 3)
    ds.close()


netcdf4_dataset(f"{out}/wheel_nczarr.zarr", "nczarr", compress=True)
# Debian's netCDF-C reads this one and has no codec plugins: uncompressed.
netcdf4_dataset(f"{out}/wheel_zarr.zarr", "zarr", compress=False)

# zarr-python 3, Zarr v2 format, no dimension names
root = zarr.open_group(f"{out}/zarr_py.zarr", mode="w", zarr_format=2)
root.attrs.update({"name": "zarr-python", "n": 3, "vals": [1.5, 2.5], "tags": ["a", "b"], "nested": {"k": [1, 2]},
                   "small": {"eps": 1e-05, "big": 1e+300, "x": 0.1},  # Python's exponents: 1e-05, not 1e-5
                   "nan": float("nan"), "ninf": float("-inf"), "mixed": [0.5, float("inf")]})  # bare NaN/Infinity
# Uncompressed: Debian's netCDF-C has no codec plugins.
a = root.create_array("temp", shape=(10, 20), chunks=(5, 10), dtype="f4", fill_value=-1.0, compressors=None)
a.attrs["units"] = "K"
a[0:5, 0:10] = np.arange(50, dtype="f4").reshape(5, 10)  # one chunk of four
c = root.create_array("count", shape=(20,), chunks=(20,), dtype="i8", fill_value=0, compressors=None)
c[:] = np.arange(20) * 1000000007
f = root.create_array("flag", shape=(10,), chunks=(10,), dtype="u1", fill_value=255, compressors=None)
f[3] = 7
z = root.create_array("zipped", shape=(30,), chunks=(7,), dtype="<i2", fill_value=-1,
                      compressors=numcodecs.Zlib(level=3))
z[:] = np.arange(30) * 3
sub = root.create_group("sub")
w = sub.create_array("w", shape=(7,), chunks=(3,), dtype="<u4", fill_value=1, compressors=None)
w[5:7] = [4000000000, 5]  # the last chunk is partial (the edge)
sub.attrs["about"] = "subgroup"

# Zstandard: zarr.create_array's default compressor for Zarr v2 (level 0).
# (group.create_array and xarray default to Blosc, which this build lacks.)
zd = zarr.open_group(f"{out}/zarr_py_zstd.zarr", mode="w", zarr_format=2)
zd.attrs["about"] = "zstd"
t = zarr.create_array(f"{out}/zarr_py_zstd.zarr/t", shape=(9, 6), chunks=(4, 4), dtype="f8", fill_value=-9.0,
                      zarr_format=2)
assert [c.codec_id for c in t.compressors] == ["zstd"], t.compressors
t[:, :] = np.arange(54, dtype="f8").reshape(9, 6) / 4
n = zd.create_array("n", shape=(17,), chunks=(5,), dtype="<i4", fill_value=0,
                    compressors=numcodecs.Zstd(level=5, checksum=True))
n[2:15] = np.arange(13) - 6  # first and last chunk partly written

# xarray, consolidated metadata
ds = xr.Dataset(
    {
        "temperature": (("time", "lat", "lon"), np.zeros((2, 3, 4), dtype="f4"), {"units": "degC"}),
        "pressure": (("lat", "lon"), np.ones((3, 4), dtype="f8")),
    },
    coords={"lat": [10.0, 20.0, 30.0], "lon": np.arange(4, dtype="i4"), "time": np.array([0, 1], dtype="i8")},
    attrs={"Conventions": "CF-1.8", "history": "written by xarray"},
)
ds["temperature"].values[:] = np.arange(24, dtype="f4").reshape(2, 3, 4)
ds["pressure"].values[1, 2] = np.nan
encoding = {name: {"compressors": None} for name in list(ds.data_vars) + list(ds.coords)}
ds.to_zarr(f"{out}/xarray.zarr", mode="w", zarr_format=2, consolidated=True, encoding=encoding)
# xarray's default encoding: Blosc (lz4, byte shuffle) on every array
xb = xr.Dataset(
    {"field": (("y", "x"), np.arange(35, dtype="f4").reshape(5, 7) / 8, {"units": "m"})},
    coords={"y": np.arange(5, dtype="i8") * 10, "x": np.linspace(0.0, 3.0, 7)},
)
xb.to_zarr(f"{out}/xarray_blosc.zarr", mode="w", zarr_format=2, consolidated=False)
assert '"blosc"' in open(f"{out}/xarray_blosc.zarr/field/.zarray").read()
print("write_ref: wrote", sorted(os.listdir(out)))
