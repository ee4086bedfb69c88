#!/usr/bin/env bash
# Installs what building and testing need and the machine lacks: Debian
# packages via apt-get (as root, or with sudo). Safe to run repeatedly.
set -euo pipefail

if ! command -v cargo >/dev/null 2>&1; then
  if [ -x "$HOME/.cargo/bin/cargo" ]; then
    export PATH="$HOME/.cargo/bin:$PATH"
  else
    echo "setup-deps: cargo (Rust toolchain) is required; install it with rustup" >&2
    exit 1
  fi
fi

apt_packages=()
command -v cmake >/dev/null 2>&1 || apt_packages+=(cmake)
command -v pkg-config >/dev/null 2>&1 || apt_packages+=(pkg-config)
command -v cc >/dev/null 2>&1 || apt_packages+=(gcc)
command -v c++ >/dev/null 2>&1 || apt_packages+=(g++)
# The reference netCDF-C (4.9.0, with NCZarr) for the interop harness.
command -v ncdump >/dev/null 2>&1 || apt_packages+=(netcdf-bin)
[ -e /usr/include/netcdf.h ] || apt_packages+=(libnetcdf-dev)
# The tools that must work unchanged on our engine (tests/tools/run.sh).
command -v ncks >/dev/null 2>&1 || apt_packages+=(nco)
command -v cdo >/dev/null 2>&1 || apt_packages+=(cdo)
command -v gdalinfo >/dev/null 2>&1 || apt_packages+=(gdal-bin)
command -v python3 >/dev/null 2>&1 || apt_packages+=(python3)
# UDUNITS-2: unit conversion of aggregated variables (loaded at run time),
# and cf-python's units library
[ -e /usr/include/udunits2.h ] || apt_packages+=(libudunits2-dev)
command -v bc >/dev/null 2>&1 || apt_packages+=(bc)
# MPI for the MPI build (cargo feature `mpi`, -DNCZARR_RS_MPI=ON): its
# compiler wrapper, headers and launcher (docs/PARALLEL.md)
{ command -v mpicc && command -v mpirun; } >/dev/null 2>&1 || apt_packages+=(libopenmpi-dev openmpi-bin)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_packages+=(python3-venv)
# the web server of the HTTP driver's tests (scripts/http-server.sh); npm
# installs Azurite (scripts/azurite-server.sh), curl asks the emulators
[ -x /usr/sbin/nginx ] || apt_packages+=(nginx-light)
command -v npm >/dev/null 2>&1 || apt_packages+=(npm)
command -v curl >/dev/null 2>&1 || apt_packages+=(curl)

repo_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
source "$repo_root/scripts/apt-install.sh"
apt_install ${apt_packages[@]+"${apt_packages[@]}"}

# Python reference implementations in a venv inside the repository.
venv=$repo_root/target/venv
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import netCDF4, zarr, xarray, moto, boto3, numcodecs, tensorstore, cfdm, cf, distributed, kerchunk, h5py, fsspec, ujson, adlfs, aiohttp' >/dev/null 2>&1; then
  echo "setup-deps: creating $venv (netCDF4, zarr, xarray, cf-python, dask)"
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q --no-cache-dir --disable-pip-version-check -r "$repo_root/tests/interop/requirements.txt"
fi
# cf-python 3.16 (cfdm 1.11) writes CFA-0.6.2 aggregations and 3.13
# CFA-0.4, which later releases do not: venvs of their own for
# tests/interop/aggregation.py. netCDF4 < 1.7 there: 1.7's wheels bundle
# an HDF5 that clashes with h5py's in one process (cf-python 3.16 writing
# an aggregation segfaults, without our library anywhere); 1.6 needs
# numpy 1.
# (read, not `set --`: this file is sourced, and the caller's "$@" must
# survive it)
for old_cf in "cfa06 3.16" "cfa04 3.13"; do
  read -r cf_name cf_version <<<"$old_cf"
  v=$repo_root/target/venv-$cf_name
  if [ ! -x "$v/bin/python" ] || ! "$v/bin/python" -c 'import cf, netCDF4; assert netCDF4.__version__ < "1.7"' >/dev/null 2>&1; then
    echo "setup-deps: creating $v (cf-python $cf_version)"
    python3 -m venv "$v"
    "$v/bin/pip" install -q --no-cache-dir --disable-pip-version-check "cf-python==$cf_version.*" "netCDF4<1.7" "numpy<2" ||
      echo "setup-deps: cf-python $cf_version could not be installed: the interop harness skips its form (and says so)" >&2
  fi
done
export NCZARR_RS_PYTHON=$venv/bin/python
