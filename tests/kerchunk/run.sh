#!/usr/bin/env bash
# The kerchunk harness (issue 28, virtual datasets): netCDF-4 files made with
# netCDF4-python, referenced with kerchunk (SingleHdf5ToZarr, MultiZarrToZarr),
# read through libnczarr_rs (the netCDF4 wheel with the library preloaded: a
# `.json` path is ours, a `.nc` path the wheel's libnetcdf) and compared with
# netCDF-C reading the files and xarray reading the references; locally and,
# when NCZARR_RS_S3_TEST_URL names a server (scripts/s3-server.sh), on S3.
#
# Usage: tests/kerchunk/run.sh LIBDIR   (LIBDIR holds libnczarr_rs.so)
# Expects scripts/setup-deps.sh to have run (PYTHON = the venv's python, with
# kerchunk, h5py and xarray).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
out=$(cd "$here/../.." && pwd)/target/kerchunk
rm -rf "$out" && mkdir -p "$out"
start=$(date +%s)
# a bound on the whole run: a read that hangs fails the harness, not CI
LD_PRELOAD="$(cd "$1" && pwd)/libnczarr_rs.so" timeout 600 "${PYTHON:-python3}" "$here/check_refs.py" "$out"
rc=$?
echo "kerchunk harness: $(($(date +%s) - start)) s"
exit $rc
