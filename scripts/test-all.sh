#!/usr/bin/env bash
# Runs every test of nczarr-rs from a fresh clone: installs what it needs,
# runs the Rust tests, builds and installs the CMake package into
# target/stage, builds and runs the C tests with CTest against it, and runs
# the interop harness against Debian's netCDF-C, the netCDF4 wheel, zarr and
# xarray (tests/interop/run.sh), kerchunk reference sets of netCDF-4 files
# (tests/kerchunk/run.sh), the netCDF tools under preload
# (tests/tools/run.sh), Dask worker processes writing regions of one dataset
# (tests/dask/run.sh) and netCDF-C's own nczarr_test scripts under preload
# (tests/netcdf_c/run.sh). Last, the MPI build (-DNCZARR_RS_MPI=ON) into
# target/stage-mpi: the binding's test and the C tests again, with the
# parallel ones on 4 ranks (and readers of their stores, a rank killed
# mid-write), netCDF-C's own parallel tests (tests/netcdf_c_par/run.sh),
# then netCDF4-python built with MPI on it (tests/mpi_python/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh

root=$PWD
# Each step's header says when it began (minutes:seconds since the start):
# CI's budget is 40 minutes on 2 cores.
step() { printf '== [%d:%02d] %s\n' $((SECONDS / 60)) $((SECONDS % 60)) "$*"; }
stage=$root/target/stage
stage_mpi=$root/target/stage-mpi

# A panic the C boundary catches (it would return NC_EINTERNAL) aborts
# whatever runs the library below, with a message: no test passes over one
# (src/ffi/boundary.rs, docs/RELIABILITY.md "Panics").
export NCZARR_RS_PANIC_ABORT=1

step "local S3 server (moto)"
source scripts/s3-server.sh

step "local Azure (Azurite) and HTTP (nginx) servers"
source scripts/azurite-server.sh
source scripts/http-server.sh
# zarr-python's stores for tests/http.rs, checked by zarr-python over HTTP
"$NCZARR_RS_PYTHON" tests/interop/http_stores.py "$NCZARR_RS_HTTP_TEST_DIR" "$NCZARR_RS_HTTP_TEST_URL"

step "style: rustfmt and clippy (warnings are errors)"
if cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
    cargo fmt --check
    cargo clippy --release --locked --all-targets -- -D warnings
    cargo clippy --release --locked --all-targets --features mpi -- -D warnings
else
    echo "rustfmt/clippy are not installed with this toolchain: style checks skipped"
fi

step "cargo test (with the short fuzzing: stable toolchain, seconds)"
# Fuzzing here is short and needs no nightly: tests/fuzz_corpus.rs replays
# every committed corpus (fuzz/seeds/<target>) through the libFuzzer targets'
# bodies, tests/fuzz_findings.rs holds the regression tests of what fuzzing
# found, and tests/fuzz_metadata.rs mutates metadata for
# NCZARR_RS_FUZZ_SECONDS (5) seconds. Long runs: scripts/fuzz.sh (nightly,
# cargo-fuzz), on demand; sanitizers: scripts/sanitize.sh, on demand.
NCZARR_RS_FUZZ_SECONDS=${NCZARR_RS_FUZZ_SECONDS:-5} cargo test --release --locked

step "zarr-python reads what tests/cloud.rs wrote on Azurite"
"$NCZARR_RS_PYTHON" tests/interop/cloud_readback.py

# The same tests with arithmetic overflow checked (profile overflow) are
# scripts/overflow.sh, on demand: a second build of every dependency that
# CI's 40 minutes do not hold.

step "CMake package: build and install into $stage"
rm -rf "$stage"
cmake -S cmake -B target/cmake-pkg -DCMAKE_INSTALL_PREFIX="$stage" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build target/cmake-pkg
cmake --install target/cmake-pkg >/dev/null

step "C tests (CTest)"
rm -rf target/ctest
cmake -S ctest -B target/ctest -DCMAKE_PREFIX_PATH="$stage" >/dev/null
cmake --build target/ctest
ctest --test-dir target/ctest --output-on-failure

step "interop harness (tests/interop/run.sh)"
PYTHON=$NCZARR_RS_PYTHON bash tests/interop/run.sh "$stage/lib"

step "kerchunk harness (tests/kerchunk/run.sh): netCDF-4 files through kerchunk references, local and S3"
PYTHON=$NCZARR_RS_PYTHON bash tests/kerchunk/run.sh "$stage/lib"

step "tools harness (tests/tools/run.sh): ncdump, nccopy, ncgen, NCO, CDO, GDAL, netCDF4/xarray under preload"
PYTHON=$NCZARR_RS_PYTHON bash tests/tools/run.sh "$stage/lib"

step "Dask harness (tests/dask/run.sh): four worker processes write regions of one dataset, file and S3"
PYTHON=$NCZARR_RS_PYTHON bash tests/dask/run.sh "$stage/lib"

step "netCDF-C's own NCZarr shell tests under preload (tests/netcdf_c/run.sh)"
bash tests/netcdf_c/run.sh "$stage/lib"

step "MPI build: CMake package (-DNCZARR_RS_MPI=ON) into $stage_mpi"
# the same cargo target directory: only libnczarr_rs is compiled again
# (1.5 to 3 minutes on 2 cores; a target directory of its own would build
# every dependency again, over 10; docs/PARALLEL.md)
rm -rf "$stage_mpi"
cmake -S cmake -B target/cmake-pkg-mpi -DNCZARR_RS_MPI=ON -DCMAKE_INSTALL_PREFIX="$stage_mpi" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build target/cmake-pkg-mpi
cmake --install target/cmake-pkg-mpi >/dev/null

step "MPI build: the binding on 4 ranks (nczarr-rs-mpi-check, built with it)"
target/release/nczarr-rs-mpi-check

step "MPI build: C tests (CTest; label mpi: 4 ranks; zarr-python and netCDF-C read what the ranks wrote)"
rm -rf target/ctest-mpi
cmake -S ctest -B target/ctest-mpi -DCMAKE_PREFIX_PATH="$stage_mpi" -DNCZARR_RS_PYTHON="$NCZARR_RS_PYTHON" >/dev/null
cmake --build target/ctest-mpi
ctest --test-dir target/ctest-mpi --output-on-failure

step "MPI build: netCDF-C's parallel tests (tests/netcdf_c_par/run.sh: nc_test4's tst_parallel*.c and more, against Debian's libnetcdf_mpi)"
bash tests/netcdf_c_par/run.sh "$stage_mpi"

step "MPI build: netCDF4-python with mpi4py on 4 ranks (tests/mpi_python/run.sh)"
# builds netCDF4 from source against the MPI build (100 s measured on 2
# busy cores) and keeps the wheel in target/wheels-mpi, so that a run with
# it kept takes 20 to 30 s
PYTHON=$NCZARR_RS_PYTHON bash tests/mpi_python/run.sh "$stage_mpi"

step "all tests passed"
