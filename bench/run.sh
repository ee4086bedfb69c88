#!/usr/bin/env bash
# The benchmark (not part of the tests): bench/bench.c built against
# Debian's libnetcdf (netCDF-C 4.9.0 NCZarr) and against nczarr-rs, on
# identical work, plus zarr-python 3 on the same cases and `cp` of the same
# bytes. Prints a Markdown table (wall time, MB/s, peak RSS, speed-up).
#
#   bash bench/run.sh [DIR]      (DIR: where the ~1 GiB datasets go; default a temp dir)
#
# BENCH_NX/NY/NZ shrink the variable (default 1024 x 512 x 512 floats).
# BENCH_CASES picks the cases (default: the six below); the 1-D memory
# cases are write-1d, read-1d and strided-1d (BENCH_N1D elements, 10^8).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
cargo build --release --locked --quiet
ln -sf libnczarr_rs.so target/release/libnczarr_rs.so.0
dir=${1:-$(mktemp -d)}
mkdir -p "$dir/ours" "$dir/netcdf-c" "$dir/zarr"
bin=$(mktemp -d)
cflags="-std=c99 -O2 -Wall -Wextra -Werror"
cc $cflags -Iinclude -o "$bin/bench_ours" bench/bench.c -Ltarget/release -lnczarr_rs -Wl,-rpath,"$PWD/target/release"
cc $cflags -o "$bin/bench_netcdf_c" bench/bench.c -lnetcdf
cases=${BENCH_CASES:-"write read slabs points meta-create meta-open"}
declare -A T B R
REPEAT=${BENCH_REPEAT:-3}
run() { # run LIB CASE COMMAND...: best wall time of REPEAT runs, largest RSS
    local lib=$1 case=$2
    shift 2
    local line i t b r
    for i in $(seq "$REPEAT"); do
        line=$("$@" | grep '^RESULT') || { echo "bench: $lib $case failed" >&2; exit 1; }
        read -r _ _ t b r <<<"$line"
        if [ -z "${T[$lib,$case]:-}" ] || [ "$(echo "$t < ${T[$lib,$case]}" | bc -l)" = 1 ]; then
            T[$lib,$case]=$t
        fi
        B[$lib,$case]=$b
        if [ -z "${R[$lib,$case]:-}" ] || [ "$r" -gt "${R[$lib,$case]}" ]; then R[$lib,$case]=$r; fi
    done
}
for c in $cases; do
    # netCDF-C (HDF5) does not sync at nc_close; ours does by default
    # (docs/RELIABILITY.md): off here, so that both do the same work.
    run nczarr-rs "$c" env NCZARR_RS_FSYNC=0 "$bin/bench_ours" "$c" "$dir/ours"
    run netcdf-c "$c" "$bin/bench_netcdf_c" "$c" "$dir/netcdf-c"
    run zarr-python "$c" "$NCZARR_RS_PYTHON" bench/zarr_bench.py "$c" "$dir/zarr"
done
# cp of the same bytes on the same disk, from the page cache like the reads
start=$(date +%s.%N)
cp -r "$dir/ours/big.zarr" "$dir/cp-copy"
end=$(date +%s.%N)
cp_s=$(echo "$end - $start" | bc -l)
cp_bytes=$(du -sb "$dir/ours/big.zarr" | cut -f1)
rm -rf "$dir/cp-copy"

echo
echo "| case | library | wall s | MB/s | peak RSS MB | netCDF-C time / nczarr-rs time |"
echo "| --- | --- | ---: | ---: | ---: | ---: |"
for c in $cases; do
    for lib in nczarr-rs netcdf-c zarr-python; do
        t=${T[$lib,$c]} b=${B[$lib,$c]} r=${R[$lib,$c]}
        mbs=$( [ "$b" -gt 0 ] && echo "scale=1; $b / 1000000 / $t" | bc -l || echo "-")
        ratio=$( [ "$lib" = nczarr-rs ] && echo "scale=1; ${T[netcdf-c,$c]} / $t" | bc -l || echo "")
        printf '| %s | %s | %.3f | %s | %.0f | %s |\n' "$c" "$lib" "$t" "$mbs" "$(echo "$r / 1024" | bc -l)" "${ratio:+${ratio}x}"
    done
done
printf '| cp -r | (same bytes) | %.3f | %.1f | | |\n' "$cp_s" "$(echo "$cp_bytes / 1000000 / $cp_s" | bc -l)"
rm -rf "$bin"
[ -n "${1:-}" ] || rm -rf "$dir"
