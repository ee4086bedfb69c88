#!/usr/bin/env bash
# The Zarr v3 benchmark (not part of the tests): nczarr-rs against
# zarr-python 3 on the same v3 data (uncompressed, zstd, sharded), file
# driver, and with BENCH_S3=1 also S3 on a local moto server (zarr-python
# reaches it through `obstore`, installed here when missing), followed by
# the server's own time for requests like those of the S3 rows. Prints
# Markdown tables.
#
#   bash bench/v3_run.sh [DIR]     (DIR: where the datasets go; default a temp dir)
#
# BENCH_V3_N (array side, default 256), BENCH_REPEAT (default 3) and
# BENCH_V3_CONFIGS: see bench/v3_bench.py. BENCH_V3_LATENCY=MS: the S3
# rows through a proxy adding MS to every request (the file rows as ever).
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
    if [ -n "${BENCH_V3_LATENCY:-}" ]; then
        # both libraries reach the server through a proxy that holds every
        # request BENCH_V3_LATENCY ms, as a network would (bench/latency_proxy.py)
        port=$("$NCZARR_RS_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
        "$NCZARR_RS_PYTHON" bench/latency_proxy.py "$port" "$s3_port" "$BENCH_V3_LATENCY" "$dir/requests" &
        proxy_pid=$!
        trap 'kill $proxy_pid $s3_pid 2>/dev/null || true' EXIT
        for _ in $(seq 100); do (echo > "/dev/tcp/127.0.0.1/$port") 2> /dev/null && break; sleep 0.05; done
        export BENCH_S3_URL="http://127.0.0.1:$port/${NCZARR_RS_S3_TEST_URL##*/}"
        echo "S3 rows: every request held $BENCH_V3_LATENCY ms"
    fi
fi
"$NCZARR_RS_PYTHON" bench/v3_bench.py "$PWD/target/release/libnczarr_rs.so" "$dir"
if [ "${BENCH_S3:-0}" = 1 ]; then
    # the server's own time for the S3 rows' requests (bench/s3_floor.py)
    "$NCZARR_RS_PYTHON" bench/s3_floor.py "$NCZARR_RS_S3_TEST_URL"
fi
[ -n "${1:-}" ] || rm -rf "$dir"
