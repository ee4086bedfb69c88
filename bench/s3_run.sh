#!/usr/bin/env bash
# The object-store benchmark of issue 15 (not part of the tests): nczarr-rs
# against zarr-python 3 (with obstore, installed here when missing) on the
# local S3 server (moto), behind a loopback proxy adding 0, 20 and 100 ms
# to every request and counting them. Prints a Markdown table.
#
#   bash bench/s3_run.sh
#
# BENCH_LATENCIES and BENCH_REPEAT: see bench/s3_bench.py.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
cargo build --release --locked --quiet
"$NCZARR_RS_PYTHON" -c 'import obstore' 2> /dev/null || "$NCZARR_RS_PYTHON" -m pip install -q obstore
source scripts/s3-server.sh
"$NCZARR_RS_PYTHON" bench/s3_bench.py "$PWD/target/release/libnczarr_rs.so" "$NCZARR_RS_S3_TEST_URL"
