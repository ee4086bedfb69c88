#!/usr/bin/env bash
# Runs every test of nczarr-rs from a fresh clone: installs what it needs,
# runs the Rust tests, builds and installs the CMake package into
# target/stage, builds and runs the C tests with CTest against it, and runs
# the interop harness against Debian's netCDF-C, the netCDF4 wheel, zarr and
# xarray (tests/interop/run.sh), and the netCDF tools under preload
# (tests/tools/run.sh) and netCDF-C's own nczarr_test scripts under preload
# (tests/netcdf_c/run.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh

root=$PWD
stage=$root/target/stage

echo "== local S3 server (moto)"
source scripts/s3-server.sh

echo "== style: rustfmt and clippy (warnings are errors)"
if cargo fmt --version >/dev/null 2>&1 && cargo clippy --version >/dev/null 2>&1; then
    cargo fmt --check
    cargo clippy --release --locked --all-targets -- -D warnings
else
    echo "rustfmt/clippy are not installed with this toolchain: style checks skipped"
fi

echo "== cargo test"
NCZARR_RS_FUZZ_SECONDS=${NCZARR_RS_FUZZ_SECONDS:-20} cargo test --release --locked

echo "== fuzz targets: 20 s each (scripts/fuzz.sh), when nightly and cargo-fuzz are there"
# Without them, cargo test above replayed the committed corpora through the
# same target code (tests/fuzz_corpus.rs). NCZARR_RS_CI_FUZZ_SECONDS=0 skips.
fuzz_seconds=${NCZARR_RS_CI_FUZZ_SECONDS:-20}
if [ "$fuzz_seconds" != 0 ] && cargo +nightly fuzz --version >/dev/null 2>&1; then
    bash scripts/fuzz.sh "$fuzz_seconds"
else
    echo "nightly/cargo-fuzz not installed (or NCZARR_RS_CI_FUZZ_SECONDS=0): corpora replayed by cargo test only"
fi

echo "== CMake package: build and install into $stage"
rm -rf "$stage"
cmake -S cmake -B target/cmake-pkg -DCMAKE_INSTALL_PREFIX="$stage" -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build target/cmake-pkg
cmake --install target/cmake-pkg >/dev/null

echo "== C tests (CTest)"
rm -rf target/ctest
cmake -S ctest -B target/ctest -DCMAKE_PREFIX_PATH="$stage" >/dev/null
cmake --build target/ctest
ctest --test-dir target/ctest --output-on-failure

echo "== interop harness (tests/interop/run.sh)"
PYTHON=$NCZARR_RS_PYTHON bash tests/interop/run.sh "$stage/lib"

echo "== tools harness (tests/tools/run.sh): ncdump, nccopy, ncgen, NCO, CDO, GDAL, netCDF4/xarray under preload"
PYTHON=$NCZARR_RS_PYTHON bash tests/tools/run.sh "$stage/lib"

echo "== netCDF-C's own NCZarr shell tests under preload (tests/netcdf_c/run.sh)"
bash tests/netcdf_c/run.sh "$stage/lib"
