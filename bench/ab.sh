#!/usr/bin/env bash
# A/B benchmark of two builds of libnczarr_rs (not part of the tests): the
# cases of bench/bench.c against build A (e.g. the last release) and build B
# (the change), run alternately, best wall time of N runs each, on a 128 MiB
# variable (512 x 256 x 256 floats), zstd1 for zwrite/zread. Prints
# | case | A s | B s | B/A |; a ratio above 1 is B slower. Use a tmpfs for
# DIR (file creation on a disk varies several-fold between runs).
#
#   bash bench/ab.sh LIBDIR_A LIBDIR_B     (each holding libnczarr_rs.so)
#
# N (5), DIR (/dev/shm/nczarr-rs-ab), CASES pick the runs.
set -euo pipefail
A=$(cd "$1" && pwd) B=$(cd "$2" && pwd); N=${N:-5}
cd "$(dirname "$0")/.."
bin=$(mktemp -d); dir=${DIR:-/dev/shm/nczarr-rs-ab}; rm -rf "$dir"; mkdir -p "$dir"
for x in A B; do d=${!x}; ln -sf libnczarr_rs.so "$d/libnczarr_rs.so.0"; cc -std=c99 -O2 -Iinclude -o "$bin/$x" bench/bench.c -L"$d" -lnczarr_rs -Wl,-rpath,"$d"; done
export NCZARR_RS_FSYNC=0 BENCH_NX=512 BENCH_NY=256 BENCH_NZ=256
declare -A T
cases=${CASES:-"write read slabs points meta-create meta-open zwrite zread get1 vara1 put1"}
for x in A B; do mkdir -p "$dir/$x"; "$bin/$x" small-setup "$dir/$x" >/dev/null; BENCH_CODEC=zstd1 "$bin/$x" zwrite "$dir/$x" >/dev/null; done
for c in $cases; do
  for i in $(seq $N); do for x in A B; do
    sync
    line=$(BENCH_CODEC=zstd1 "$bin/$x" "$c" "$dir/$x" | grep '^RESULT'); read -r _ _ t _ <<<"$line"
    if [ -z "${T[$c,$x]:-}" ] || [ "$(echo "$t < ${T[$c,$x]}" | bc -l)" = 1 ]; then T[$c,$x]=$t; fi
  done; done
  printf '| %-12s | %8.4f | %8.4f | %5.2f |\n' "$c" "${T[$c,A]}" "${T[$c,B]}" "$(echo "${T[$c,B]} / ${T[$c,A]}" | bc -l)"
done
rm -rf "$dir" "$bin"
