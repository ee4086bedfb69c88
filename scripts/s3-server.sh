#!/usr/bin/env bash
# Sourced by scripts/test-all.sh: starts moto (a local S3-compatible server)
# on a free loopback port, creates the test bucket, and exports what the S3
# tests read. The server is stopped when the calling shell exits.
# Needs $NCZARR_RS_PYTHON (a venv with moto[server] and boto3).
set -euo pipefail
s3_port=$("$NCZARR_RS_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
s3_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target
mkdir -p "$s3_dir"
"$(dirname "$NCZARR_RS_PYTHON")/moto_server" -H 127.0.0.1 -p "$s3_port" > "$s3_dir/moto.log" 2>&1 &
s3_pid=$!
# the servers the sourcing shell started (this and scripts/*-server.sh),
# all stopped by one trap
server_pids="${server_pids:-} $s3_pid"
trap 'kill $server_pids 2>/dev/null || true' EXIT
export AWS_ACCESS_KEY_ID=nczarr-rs-test AWS_SECRET_ACCESS_KEY=nczarr-rs-test AWS_REGION=us-east-1
export NCZARR_RS_S3_TEST_URL="http://127.0.0.1:$s3_port/nczarr-rs-test"
export NCZARR_RS_REQUIRE_S3=1
for _ in $(seq 100); do
  if "$NCZARR_RS_PYTHON" - "$s3_port" >/dev/null 2>&1 <<'PY'
import sys, boto3
s3 = boto3.client("s3", endpoint_url=f"http://127.0.0.1:{sys.argv[1]}", region_name="us-east-1")
s3.create_bucket(Bucket="nczarr-rs-test")
PY
  then
    echo "s3-server: moto on 127.0.0.1:$s3_port, bucket nczarr-rs-test"
    return 0 2>/dev/null || exit 0
  fi
  sleep 0.2
done
echo "s3-server: moto did not start; see $s3_dir/moto.log" >&2
cat "$s3_dir/moto.log" >&2
exit 1
