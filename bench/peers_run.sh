#!/usr/bin/env bash
# Round three (issue 29; not part of the tests): nczarr-rs against the
# fastest Zarr engines, zarr-python 3, zarr-python with the zarrs codec
# pipeline and TensorStore, on Zarr v3 data written by zarr-python (plain,
# zstd 1, sharded; whole reads, whole writes, random chunks), ours with 2
# threads and 1, beside the physical limit of each row (cat, cp -r, zstd's
# own speed on every core). Installs the peers in the project's venv when
# missing. Prints one Markdown table (bench/peers_bench.py says how).
#
#   bash bench/peers_run.sh [DIR]     (DIR: where the stores go; default a temp dir)
#
# BENCH_LIB=/path/libnczarr_rs.so: measure that library instead of
# building this tree's (cargo build --release). BENCH_N (array side,
# default 512), BENCH_REPEAT (default 3), BENCH_CASES, BENCH_ENGINES,
# BENCH_SETTLE: see bench/peers_bench.py. Ours runs with NCZARR_RS_FSYNC=0:
# no peer fsyncs. BENCH_META=0 leaves out the second table, the metadata
# rows of bench/run2.sh (10 000 variables x 10 attributes, against
# netCDF-C).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
lib=${BENCH_LIB:-}
if [ -z "$lib" ]; then
    cargo build --release --locked --quiet
    lib=$PWD/target/release/libnczarr_rs.so
fi
# the peers: zarr-python and TensorStore are in the venv for the interop
# tests, the zarrs pipeline only here; zstd's command line for the limit
"$NCZARR_RS_PYTHON" -c 'import zarr, tensorstore, zarrs' 2> /dev/null ||
    "$NCZARR_RS_PYTHON" -m pip install -q --disable-pip-version-check "zarr>=3" tensorstore zarrs
command -v zstd > /dev/null || apt_install zstd
"$NCZARR_RS_PYTHON" -c 'import zarr, zarrs, tensorstore, importlib.metadata as m
print("# zarr", zarr.__version__, "zarrs", m.version("zarrs"), "tensorstore", m.version("tensorstore"))' >&2
dir=${1:-$(mktemp -d)}
"$NCZARR_RS_PYTHON" bench/peers_bench.py "$lib" "$dir"
if [ "${BENCH_META:-1}" = 1 ]; then
    # metadata: create, then open and walk, 100 groups x 100 variables x 10
    # attributes, against Debian's netCDF-C and the netCDF4 wheel's
    # (bench/run2.sh's group "meta", on the same library)
    BENCH_GROUPS=meta BENCH_LIB=$lib bash bench/run2.sh "$dir/meta"
fi
[ -n "${1:-}" ] || rm -rf "$dir"
