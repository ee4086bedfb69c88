#!/usr/bin/env bash
# The aggregation benchmark (not part of the tests): reading an aggregated
# variable through nczarr-rs against reading its fragments directly
# (Debian's libnetcdf for netCDF-4 fragments, nczarr-rs for Zarr ones) and
# against cf-python. Prints a Markdown table.
#
#   bash bench/agg_run.sh [DIR]     (DIR: where the datasets go; default a temp dir)
#
# BENCH_AGG_FRAGMENTS (default 16), BENCH_AGG_SIDE (default 1024) and BENCH_REPEAT (default 5): see
# bench/agg_bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
cargo build --release --locked --quiet
dir=${1:-$(mktemp -d)}
"$NCZARR_RS_PYTHON" bench/agg_bench.py "$PWD/target/release/libnczarr_rs.so" "$dir"
[ -n "${1:-}" ] || rm -rf "$dir"
