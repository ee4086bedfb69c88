#!/usr/bin/env bash
# The Zarr v3 benchmark (not part of the tests): nczarr-rs against
# zarr-python 3 on the same v3 data (uncompressed, zstd, sharded), file
# driver, and with BENCH_S3=1 also S3 on a local moto server (zarr-python
# reaches it through `obstore`, installed here when missing). Prints a
# Markdown table.
#
#   bash bench/v3_run.sh [DIR]     (DIR: where the datasets go; default a temp dir)
#
# BENCH_V3_N (array side, default 256), BENCH_REPEAT (default 3) and
# BENCH_V3_CONFIGS: see bench/v3_bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
cargo build --release --locked --quiet
dir=${1:-$(mktemp -d)}
if [ "${BENCH_S3:-0}" = 1 ]; then
    # zarr-python reaches S3 through obstore, which the tests do not need
    "$NCZARR_RS_PYTHON" -c 'import obstore' 2> /dev/null || "$NCZARR_RS_PYTHON" -m pip install -q obstore
    source scripts/s3-server.sh
    export BENCH_S3_URL=$NCZARR_RS_S3_TEST_URL
fi
"$NCZARR_RS_PYTHON" bench/v3_bench.py "$PWD/target/release/libnczarr_rs.so" "$dir"
[ -n "${1:-}" ] || rm -rf "$dir"
