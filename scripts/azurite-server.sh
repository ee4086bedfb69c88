#!/usr/bin/env bash
# Sourced by scripts/test-all.sh: starts Azurite (the Azure Blob Storage
# emulator, npm package `azurite`, installed under target/azurite the first
# time) on a free loopback port, creates the test container, and exports
# what the Azure tests read (tests/azure.rs, tests/interop/cloud_readback.py).
# The server is stopped when the calling shell exits.
# Needs $NCZARR_RS_PYTHON (a venv with azure-storage-blob, via adlfs) and npm.
set -euo pipefail
az_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target
az_version=3.35.0
if [ ! -x "$az_root/azurite/node_modules/.bin/azurite-blob" ]; then
  echo "azurite-server: installing azurite $az_version under $az_root/azurite"
  mkdir -p "$az_root/azurite"
  (cd "$az_root/azurite" && npm install --no-audit --no-fund --silent "azurite@$az_version" >/dev/null)
fi
az_port=$("$NCZARR_RS_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
az_data=$(mktemp -d "$az_root/azurite-data.XXXXXX")
"$az_root/azurite/node_modules/.bin/azurite-blob" --blobHost 127.0.0.1 --blobPort "$az_port" \
  --location "$az_data" --silent --skipApiVersionCheck > "$az_root/azurite.log" 2>&1 &
az_pid=$!
server_pids="${server_pids:-} $az_pid"
trap 'kill $server_pids 2>/dev/null || true' EXIT
# Azurite's well-known development account (its documentation)
export AZURE_STORAGE_ACCOUNT_NAME=devstoreaccount1
export AZURE_STORAGE_ACCOUNT_KEY='Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=='
# az://container/key goes to Azurite (object_store's convention)
export AZURE_STORAGE_USE_EMULATOR=true AZURITE_BLOB_STORAGE_URL="http://127.0.0.1:$az_port"
export NCZARR_RS_AZURE_TEST_URL="http://127.0.0.1:$az_port/devstoreaccount1/nczarr-rs-test"
export NCZARR_RS_REQUIRE_CLOUD="${NCZARR_RS_REQUIRE_CLOUD:+$NCZARR_RS_REQUIRE_CLOUD,}azure"
for _ in $(seq 150); do
  # the port first: the Azure SDK's own retries of a refused connection
  # take 20 s
  curl -s -o /dev/null "http://127.0.0.1:$az_port/" || { sleep 0.2; continue; }
  if "$NCZARR_RS_PYTHON" - "$az_port" >/dev/null 2>&1 <<'PY'
import os, sys
from azure.storage.blob import BlobServiceClient
conn = ("DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;"
        f"AccountKey={os.environ['AZURE_STORAGE_ACCOUNT_KEY']};"
        f"BlobEndpoint=http://127.0.0.1:{sys.argv[1]}/devstoreaccount1;")
svc = BlobServiceClient.from_connection_string(conn)
if not svc.get_container_client("nczarr-rs-test").exists():
    svc.create_container("nczarr-rs-test")
PY
  then
    echo "azurite-server: Azurite on 127.0.0.1:$az_port, container nczarr-rs-test"
    return 0 2>/dev/null || exit 0
  fi
  sleep 0.2
done
echo "azurite-server: Azurite did not start; see $az_root/azurite.log" >&2
cat "$az_root/azurite.log" >&2
exit 1
