#!/usr/bin/env bash
# The S3 part of the parallel benchmark of issue 26 (bench/par_s3_bench.c;
# bench/par_run.sh calls this when NCZARR_RS_PYTHON is set). Not a test.
# Starts moto (scripts/s3-server.sh) and two bench/latency_proxy.py in front
# of it, one adding LATENCY ms (20) to every request, one adding none, both
# counting requests; then, best of N runs (3), with a fresh key each run:
#
#   1. a 512-chunk variable (512 x 1024 float32, one 4 KiB chunk a row)
#      written and read by 1, 2 and 4 ranks (independent access, whole
#      chunks), against its limit: LATENCY x ceil(requests / requests in
#      flight over all ranks), IN_FLIGHT (64) a rank; the same run behind
#      no latency is the server's (moto's) own floor under it;
#   2. the open of a 1000-variable dataset (and the walk of its variables
#      and attributes): nc_open by one process against nc_open_par by 1, 2
#      and 4 ranks, with the requests each makes.
#
#   NCZARR_RS_PYTHON=.../venv/bin/python bash bench/par_s3_run.sh [PREFIX]
#
# N (3), RANKS ("1 2 4"), LATENCY (20), NVARS (1000).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(cd "${1:-target/stage-mpi}" && pwd)
N=${N:-3}; ranks=${RANKS:-"1 2 4"}; lat=${LATENCY:-20}; export NVARS=${NVARS:-1000}
IN_FLIGHT=64 # requests in flight a process keeps on a network store (src/engine/process.rs IO_IN_FLIGHT)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
: "${NCZARR_RS_PYTHON:?set NCZARR_RS_PYTHON to a python with moto[server] and boto3}"
bin=$(mktemp -d)
mpicc -O2 -I"$prefix/include/nczarr_rs" -o "$bin/bench" bench/par_s3_bench.c -L"$prefix/lib" -lnczarr_rs -Wl,-rpath,"$prefix/lib"
source scripts/s3-server.sh > /dev/null
s3_port=${NCZARR_RS_S3_TEST_URL#http://127.0.0.1:}; s3_port=${s3_port%%/*}
free_port() { "$NCZARR_RS_PYTHON" -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
pslow=$(free_port); pfast=$(free_port)
"$NCZARR_RS_PYTHON" bench/latency_proxy.py "$pslow" "$s3_port" "$lat" "$bin/count-slow" & slow_pid=$!
"$NCZARR_RS_PYTHON" bench/latency_proxy.py "$pfast" "$s3_port" 0 "$bin/count-fast" & fast_pid=$!
trap 'kill $slow_pid $fast_pid $s3_pid 2>/dev/null || true; rm -rf "$bin"' EXIT
for _ in $(seq 50); do [ -s "$bin/count-slow" ] && [ -s "$bin/count-fast" ] && break; sleep 0.1; done
url() { echo "http://127.0.0.1:$1/nczarr-rs-test/par-bench/$2#mode=nczarr,s3"; }
slow() { COUNT_FILE=$bin/count-slow mpirun --oversubscribe --bind-to none -np "$1" "$bin/bench" "$2" "$(url "$pslow" "$3")"; }
fast() { COUNT_FILE=$bin/count-fast mpirun --oversubscribe --bind-to none -np "$1" "$bin/bench" "$2" "$(url "$pfast" "$3")"; }
# min over runs of field 3 (seconds); requests (field 4) of every run, distinct
best() { awk -v c="$1" '$2 == c { if (t == "" || $3 < t) t = $3; if (!(($4) in seen)) { seen[$4]; r = r (r == "" ? "" : "/") $4 } } END { print t, r }'; }
run=0
echo "S3 (moto) behind ${lat} ms per request (bench/latency_proxy.py), best of $N; limit = ${lat} ms x ceil(requests / ($IN_FLIGHT x ranks))"
echo
echo "| ranks | write s | write requests | write limit s | write, 0 ms s | read s | read requests | read limit s | read, 0 ms s |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for np in $ranks; do
  out=; zero=
  for _ in $(seq "$N"); do
    run=$((run + 1)); out+=$(slow "$np" data "data-$np-$run.zarr" | grep '^RESULT')$'\n'
    run=$((run + 1)); zero+=$(fast "$np" data "data-$np-$run.zarr" | grep '^RESULT')$'\n'
  done
  read -r ws wr < <(best write <<< "$out"); read -r rs rr < <(best read <<< "$out")
  read -r ws0 _ < <(best write <<< "$zero"); read -r rs0 _ < <(best read <<< "$zero")
  lim() { echo "$lat / 1000 * $(( (${1%%/*} + IN_FLIGHT * np - 1) / (IN_FLIGHT * np) ))" | bc -l; }
  printf '| %d | %.3f | %s | %.3f | %.3f | %.3f | %s | %.3f | %.3f |\n' "$np" "$ws" "$wr" "$(lim "$wr")" "$ws0" \
    "$rs" "$rr" "$(lim "$rr")" "$rs0"
done
echo
fast 1 meta-create meta.zarr > /dev/null
echo "Open of a $NVARS-variable dataset (3 attributes each) and a walk of its variables and attributes, behind ${lat} ms, best of $N"
echo
echo "| how | s | requests | round trips at ${lat} ms (s / latency) |"
echo "| --- | ---: | ---: | ---: |"
row() { read -r s r < <(best "$2" <<< "$3"); printf '| %s | %.3f | %s | %.1f |\n' "$1" "$s" "$r" "$(echo "$s * 1000 / $lat" | bc -l)"; }
out=; for _ in $(seq "$N"); do out+=$(slow 1 meta-open-serial meta.zarr | grep '^RESULT')$'\n'; done
row "nc_open, one process" meta-open "$out"
for np in $ranks; do
  out=; for _ in $(seq "$N"); do out+=$(slow "$np" meta-open meta.zarr | grep '^RESULT')$'\n'; done
  row "nc_open_par, $np ranks" meta-open-par "$out"
done
