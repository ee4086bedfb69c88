#!/usr/bin/env bash
# The Dask harness (issue 26, "many independent processes, no MPI";
# docs/PARALLEL.md, "Many processes without MPI (Dask)"): one process
# creates and sizes a dataset, four dask.distributed worker processes write
# their regions into it through libnczarr_rs (the netCDF4 wheel with the
# library preloaded, or ctypes) and close; our library, netCDF-C (the wheel's,
# without preload) and xarray's zarr engine must read exactly the union of
# the regions, and the workers must have written no metadata. On the file
# driver, and on S3 when NCZARR_RS_S3_TEST_URL names a server
# (scripts/s3-server.sh; required when NCZARR_RS_REQUIRE_S3=1).
#
# Usage: tests/dask/run.sh LIBDIR   (LIBDIR holds libnczarr_rs.so)
# Expects scripts/setup-deps.sh to have run (PYTHON = the venv's python,
# with dask[distributed]).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "$1" && pwd)
lib=$libdir/libnczarr_rs.so
py=${PYTHON:-python3}
out=$root/target/dask
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)
# The client process and (inheriting its environment) every worker process
# load our library ahead of the wheel's libnetcdf. A bound on the whole run:
# a worker that hangs fails the harness instead of the CI run.
NCZARR_RS_LIB=$lib LD_PRELOAD=$lib timeout 600 "$py" "$here/test_regions.py" "$out"
rc=$?
echo "dask harness: $(($(date +%s) - start)) s"
exit $rc
