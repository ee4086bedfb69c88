"""Run under LD_PRELOAD=libnczarr_rs.so by tests/tools/run.sh: the netCDF4
wheel (which bundles its own libnetcdf) reads .nc files through its library
and our stores through our engine; xarray's netcdf4 backend likewise; values
are equal. Argument: the harness's output directory (fixed.nc, fixed.zarr)."""
import sys

import netCDF4
import numpy as np
import xarray as xr

d = sys.argv[1]
with netCDF4.Dataset(f"{d}/fixed.nc") as a, netCDF4.Dataset(f"{d}/fixed.zarr") as b:
    assert a.file_format == "NETCDF4" and b.file_format == "NETCDF4", (a.file_format, b.file_format)
    assert list(a.variables) == list(b.variables), (list(a.variables), list(b.variables))
    for name in a.variables:
        va, vb = a.variables[name][:], b.variables[name][:]
        assert np.ma.allequal(va, vb) and (np.ma.getmaskarray(va) == np.ma.getmaskarray(vb)).all(), name
        assert a.variables[name].ncattrs() == b.variables[name].ncattrs(), name
url = f"file://{d}/fixed.zarr#mode=nczarr,file"
with netCDF4.Dataset(url) as b:
    assert b.variables["temp"][1, 2, 3] == 303.0
a = xr.open_dataset(f"{d}/fixed.nc", engine="netcdf4")
for loc in (f"{d}/fixed.zarr", url):
    xr.testing.assert_identical(a, xr.open_dataset(loc, engine="netcdf4"))
# Writing a store through the wheel's API reaches our engine too.
with netCDF4.Dataset(f"file://{d}/py.zarr#mode=nczarr,file", "w") as w:
    w.createDimension("t", None)
    v = w.createVariable("v", "f8", ("t",))
    v[:] = np.arange(5.0)
with netCDF4.Dataset(f"{d}/py.zarr") as r:
    assert r.dimensions["t"].isunlimited() and (r.variables["v"][:] == np.arange(5.0)).all()
print("python checks passed")
