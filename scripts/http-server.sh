#!/usr/bin/env bash
# Sourced by scripts/test-all.sh: starts Debian's nginx (scripts/setup-deps.sh
# installs nginx-light) on a free loopback port, serving the directory
# target/http-stores (static files, range requests on), and exports what the
# HTTP tests read (tests/http.rs, tests/interop/http_stores.py). The server
# is stopped when the calling shell exits.
set -euo pipefail
http_root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/target
http_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
http_conf=$http_root/nginx
rm -rf "$http_root/http-stores"
mkdir -p "$http_conf" "$http_root/http-stores"
# workers as the user running this (root in CI: then as root, as the files are theirs)
http_user=""
[ "$(id -u)" -eq 0 ] && http_user="user root;"
cat > "$http_conf/nginx.conf" <<CONF
$http_user
daemon off;
worker_processes 1;
pid $http_conf/nginx.pid;
error_log $http_conf/error.log;
events { worker_connections 256; }
http {
    access_log off;
    client_body_temp_path $http_conf/tmp;
    default_type application/octet-stream;
    server {
        listen 127.0.0.1:$http_port;
        root $http_root/http-stores;
    }
}
CONF
/usr/sbin/nginx -p "$http_conf" -c "$http_conf/nginx.conf" > "$http_conf/stdout.log" 2>&1 &
http_pid=$!
server_pids="${server_pids:-} $http_pid"
trap 'kill $server_pids 2>/dev/null || true' EXIT
export NCZARR_RS_HTTP_TEST_URL="http://127.0.0.1:$http_port"
export NCZARR_RS_HTTP_TEST_DIR="$http_root/http-stores"
export NCZARR_RS_REQUIRE_CLOUD="${NCZARR_RS_REQUIRE_CLOUD:+$NCZARR_RS_REQUIRE_CLOUD,}http"
echo ok > "$NCZARR_RS_HTTP_TEST_DIR/ping"
for _ in $(seq 100); do
  if curl -sf "$NCZARR_RS_HTTP_TEST_URL/ping" >/dev/null 2>&1; then
    echo "http-server: nginx on 127.0.0.1:$http_port serving $NCZARR_RS_HTTP_TEST_DIR"
    return 0 2>/dev/null || exit 0
  fi
  sleep 0.1
done
echo "http-server: nginx did not start" >&2
cat "$http_conf"/*.log >&2
exit 1
