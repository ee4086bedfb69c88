#!/usr/bin/env bash
# netCDF4-python with MPI on libnczarr_rs (issue 26; docs/PARALLEL.md,
# "Python with MPI"): builds netCDF4-python from its source release with
# mpi4py against the MPI build of the package (its netcdf.h, netcdf_par.h,
# netcdf_meta.h saying NC_HAS_PARALLEL 1, and libnczarr_rs as -lnetcdf),
# into a venv of its own (target/venv-mpi), then runs test_par.py on 4
# ranks: each opens Dataset(url, "w", parallel=True) on a file store (and
# S3 when NCZARR_RS_S3_TEST_URL names a server), writes its slab
# collectively and independently, closes (on the plain path, the ranks
# then read it all with parallel=True and reopen it with mode "a" to write
# more); then a serial check by the same
# module (our library, no MPI) and, with $PYTHON (a venv with the netCDF4
# wheel and zarr: scripts/setup-deps.sh), by netCDF-C 4.10.1 and
# zarr-python.
#
# Usage: tests/mpi_python/run.sh [STAGE]   (STAGE: the MPI build's install
# prefix, default target/stage-mpi; scripts/test-all.sh installs it)
#
# What it installs when missing: Debian's libhdf5-dev (netCDF4-python links
# HDF5 for H5get_libversion, whatever the netCDF library), python3-venv and
# python3-dev; into target/venv-mpi: numpy, Cython, mpi4py, setuptools,
# setuptools-scm, cftime, certifi (PyPI wheels; mpi4py's loads the system's libmpi). The
# built netCDF4 wheel is kept in target/wheels-mpi, keyed by the netCDF4
# version and the headers it was compiled against: building it takes
# 100 s here (-O1; 2 cores shared with other jobs, load 7), installing
# the kept wheel seconds.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stage=$(cd "${1:-$root/target/stage-mpi}" && pwd)
netcdf4_version=1.7.5 # the netCDF4 wheel of scripts/setup-deps.sh
venv=$root/target/venv-mpi
shim=$root/target/netcdf4-mpi-shim
wheels=$root/target/wheels-mpi
out=$root/target/mpi-python
start=$(date +%s)

grep -q '^#define NC_HAS_PARALLEL  *1' "$stage/include/nczarr_rs/netcdf_meta.h" ||
    { echo "mpi_python: $stage is not the MPI build (netcdf_meta.h: NC_HAS_PARALLEL 0)" >&2; exit 1; }

# Debian packages (as scripts/setup-deps.sh installs its own)
source "$root/scripts/apt-install.sh"
apt_packages=()
[ -e /usr/include/hdf5/serial/H5public.h ] || apt_packages+=(libhdf5-dev)
python3 -c 'import venv, ensurepip' >/dev/null 2>&1 || apt_packages+=(python3-venv)
python3 -c 'import sysconfig, os, sys; sys.exit(not os.path.exists(os.path.join(sysconfig.get_paths()["include"], "Python.h")))' ||
    apt_packages+=(python3-dev)
{ command -v mpicc && command -v mpirun; } >/dev/null 2>&1 || apt_packages+=(libopenmpi-dev openmpi-bin)
apt_install ${apt_packages[@]+"${apt_packages[@]}"}

# the venv: build tools and mpi4py
if [ ! -x "$venv/bin/python" ] || ! "$venv/bin/python" -c 'import numpy, Cython, mpi4py, cftime, certifi, setuptools_scm; import setuptools; assert int(setuptools.__version__.split(".")[0]) >= 77' >/dev/null 2>&1; then
    echo "mpi_python: creating $venv"
    rm -rf "$venv"
    python3 -m venv "$venv"
    "$venv/bin/pip" install -q --disable-pip-version-check numpy cython mpi4py cftime certifi "setuptools>=77" setuptools-scm wheel packaging
fi

# libnczarr_rs as libnetcdf, and an nc-config that names it (the package
# installs neither: its headers are in include/nczarr_rs, its library is
# libnczarr_rs)
rm -rf "$shim" && mkdir -p "$shim/bin" "$shim/lib"
ln -s "$stage/lib/libnczarr_rs.so" "$shim/lib/libnetcdf.so"
ln -s "$stage/lib/libnczarr_rs.so.0" "$shim/lib/libnczarr_rs.so.0"
version=$(sed -n 's/^#define NC_VERSION  *"\(.*\)"/\1/p' "$stage/include/nczarr_rs/netcdf_meta.h")
cat >"$shim/bin/nc-config" <<EOF
#!/bin/sh
# nc-config for netCDF4-python's setup.py: libnczarr_rs's MPI build as netCDF
case "\$1" in
--cflags) echo "-I$stage/include/nczarr_rs" ;;
--libs) echo "-L$shim/lib -lnetcdf" ;;
--version) echo "netCDF ${version:-4.9.2}" ;;
--has-parallel|--has-parallel4|--has-nc4) echo yes ;;
*) echo "nc-config (libnczarr_rs shim): \$1 not known" >&2; exit 1 ;;
esac
EOF
chmod +x "$shim/bin/nc-config"

# the netCDF4 wheel, built once per netCDF4 version and header set
# (raise `recipe` when the build's settings below change)
recipe=3
key=$( (echo "$recipe"; cat "$stage"/include/nczarr_rs/*.h) | sha256sum | cut -c1-16)
wheel_dir=$wheels/$netcdf4_version-$key
if ! ls "$wheel_dir"/netcdf4-*.whl >/dev/null 2>&1; then
    echo "mpi_python: building netCDF4 $netcdf4_version from source against $stage"
    b0=$(date +%s)
    rm -rf "$wheel_dir" && mkdir -p "$wheel_dir"
    # NETCDF4_DIR/bin/nc-config is the shim; HDF5: Debian's serial headers
    # and library (only H5get_libversion is called); CC=mpicc finds <mpi.h>;
    # CFLAGS=-O1 (instead of Python's -O2 and more): the C Cython makes
    # compiles in a fraction of the time, and a test needs no optimised
    # module. Not -O0: nc_complex.h's C99 `inline` functions have no
    # external definition, and must be inlined.
    NETCDF4_DIR=$shim USE_NCCONFIG=1 \
        HDF5_INCDIR=/usr/include/hdf5/serial HDF5_LIBDIR=/usr/lib/x86_64-linux-gnu/hdf5/serial \
        CC=mpicc CFLAGS=-O1 \
        "$venv/bin/pip" wheel -q --no-cache-dir --disable-pip-version-check --no-deps --no-binary netCDF4 --no-build-isolation \
        -w "$wheel_dir" "netCDF4==$netcdf4_version"
    echo "mpi_python: netCDF4 built in $(($(date +%s) - b0)) s (kept in $wheel_dir)"
    # wheels built against other headers will not serve again
    find "$wheels" -mindepth 1 -maxdepth 1 ! -name "$(basename "$wheel_dir")" -exec rm -rf {} +
fi
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps --force-reinstall "$wheel_dir"/netcdf4-*.whl
"$venv/bin/python" - "$stage" <<'PY'
import sys, netCDF4
print(f"mpi_python: netCDF4 {netCDF4.__version__}, library {netCDF4.__netcdf4libversion__}, parallel: {netCDF4.__has_parallel4_support__}")
assert netCDF4.__has_parallel4_support__, "netCDF4 was built without parallel support"
PY

rm -rf "$out" && mkdir -p "$out"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
launch=(mpirun -np 4)
if mpirun --version 2>&1 | grep -q "Open MPI\|OpenRTE"; then launch+=(--oversubscribe); fi
stores=("file://$out/par.zarr#mode=nczarr,file" "$out/appended.zarr")
if [ -n "${NCZARR_RS_S3_TEST_URL:-}" ]; then
    stores+=("$NCZARR_RS_S3_TEST_URL/mpi-python-$(date +%s)-$$/par#mode=nczarr,s3")
elif [ "${NCZARR_RS_REQUIRE_S3:-0}" = 1 ]; then
    echo "mpi_python: NCZARR_RS_REQUIRE_S3=1 but NCZARR_RS_S3_TEST_URL is not set" >&2
    exit 1
else
    echo "mpi_python: no S3 server (NCZARR_RS_S3_TEST_URL): file stores only"
fi
for url in "${stores[@]}"; do
    t0=$(date +%s)
    timeout 300 "${launch[@]}" "$venv/bin/python" "$here/test_par.py" write "$url"
    if [[ "$url" == *appended.zarr ]]; then
        # read in parallel, then reopened with mode "a" and written again
        timeout 300 "${launch[@]}" "$venv/bin/python" "$here/test_par.py" append "$url"
    fi
    # serial, no MPI: netCDF4 on our library, then netCDF-C and zarr-python
    "$venv/bin/python" "$here/test_par.py" check "$url"
    if [ -n "${PYTHON:-}" ] && [[ "$url" != *"mode=nczarr,s3"* ]]; then
        "$PYTHON" "$here/test_par.py" check-reference "$url"
    fi
    echo "mpi_python: $url: $(($(date +%s) - t0)) s"
done
echo "mpi_python: $(($(date +%s) - start)) s in all"
