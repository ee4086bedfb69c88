#!/usr/bin/env bash
# The benchmark of issue 15 (not part of the tests): compressed data, small
# calls, metadata-heavy datasets, threads, and 1 GiB uncompressed I/O
# against `cp` + `sync` and `cat`, and the metadata create against the same
# files made by a bare C program (bench/meta_floor.c). One C source (bench/bench.c) is built
# against nczarr-rs, Debian's netCDF-C 4.9.0 and the netCDF4 wheel's
# netCDF-C 4.10.1 (with the wheel's filter plugins); zarr-python 3 runs the
# compressed cases (bench/zarr_bench.py). Prints one Markdown table: best
# wall time of BENCH_REPEAT runs (default 3), each in its own process, the
# largest peak RSS, and the ratio peer time / nczarr-rs time.
#
#   bash bench/run2.sh [DIR]     (DIR: where the datasets go; default a temp dir)
#
# BENCH_GROUPS picks groups of rows (default: compressed small meta threads
# large). Cells are "n/a" where a library cannot run the case: Debian's
# netCDF-C has no filter plugins for NCZarr (it writes such variables
# uncompressed, so its compressed rows would time other work), Debian's
# netCDF-C is not thread-safe, and zarr-python takes minutes for the small
# calls and the 10 000 variables (22 s for 1 000, bench/run.sh) and has no
# netCDF API for them.
# BENCH_LIB=/path/libnczarr_rs.so: that library instead of building this
# tree's.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
bin=$(mktemp -d)
if [ -n "${BENCH_LIB:-}" ]; then
    # a library built elsewhere (BENCH_LIB, as bench/peers_run.sh passes it)
    ourlib=$bin/ourlib
    mkdir "$ourlib"
    ln -s "$(readlink -f "$BENCH_LIB")" "$ourlib/libnczarr_rs.so"
    ln -s libnczarr_rs.so "$ourlib/libnczarr_rs.so.0"
else
    cargo build --release --locked --quiet
    ln -sf libnczarr_rs.so target/release/libnczarr_rs.so.0
    ourlib=$PWD/target/release
fi
dir=${1:-$(mktemp -d)}
for l in ours deb wheel zarr floor; do mkdir -p "$dir/$l"; done
wheel_libs=$("$NCZARR_RS_PYTHON" -c 'import netCDF4, os; print(os.path.join(os.path.dirname(netCDF4.__file__), "..", "netcdf4.libs"))')
wheel_lib=$(ls "$wheel_libs"/libnetcdf-*.so.*)
plugins=$("$NCZARR_RS_PYTHON" -c 'import netCDF4, os; print(os.path.join(os.path.dirname(netCDF4.__file__), "plugins"))')
cflags="-std=c99 -O2 -Wall -Wextra -Werror"
cc $cflags -Iinclude -o "$bin/ours" bench/bench.c -L"$ourlib" -lnczarr_rs -Wl,-rpath,"$ourlib" -lpthread
cc $cflags -o "$bin/deb" bench/bench.c -lnetcdf -lpthread
# the wheel's library, with Debian's headers (the calls used are the same in 4.9 and 4.10)
cc $cflags -o "$bin/wheel" bench/bench.c "$wheel_lib" -Wl,-rpath,"$wheel_libs" -lpthread
cc $cflags -o "$bin/floor" bench/meta_floor.c -lpthread
groups=${BENCH_GROUPS:-"compressed small meta threads large"}
REPEAT=${BENCH_REPEAT:-3}
declare -A T R
rows=()
# cmd LIB: the command that runs bench CASE for LIB
cmd() {
    case $1 in
    ours) echo "env NCZARR_RS_FSYNC=${FSYNC:-0} $bin/ours" ;;
    deb) echo "$bin/deb" ;;
    wheel) echo "env NETCDF_PLUGIN_PATH=$plugins HDF5_PLUGIN_PATH=$plugins $bin/wheel" ;;
    zarr) echo "$NCZARR_RS_PYTHON bench/zarr_bench.py" ;;
    floor) echo "$bin/floor" ;;
    esac
}
# run ROW LIB CASE: best of REPEAT runs of bench CASE into T[ROW,LIB], R[ROW,LIB]
run() {
    local row=$1 lib=$2 case=$3 line i t r
    for i in $(seq "$REPEAT"); do
        # each run starts with nothing of the previous one left to write
        # back (it would compete with this run's file creation)
        sync
        line=$(BENCH_RUN=$i $(cmd "$lib") "$case" "$dir/$lib" | grep '^RESULT') || { echo "bench: $row $lib failed" >&2; exit 1; }
        read -r _ _ t _ r <<<"$line"
        if [ -z "${T[$row,$lib]:-}" ] || [ "$(echo "$t < ${T[$row,$lib]}" | bc -l)" = 1 ]; then T[$row,$lib]=$t; fi
        if [ -z "${R[$row,$lib]:-}" ] || [ "$r" -gt "${R[$row,$lib]}" ]; then R[$row,$lib]=$r; fi
    done
}
once() { # once LIB CASE: a setup step, not timed
    $(cmd "$1") "$2" "$dir/$1" > /dev/null
}
for g in $groups; do
    case $g in
    compressed)
        # 128 MiB float32 in 64^3 chunks; zlib with shuffle, zstd, blosc-lz4
        for codec in ${BENCH_CODECS:-zlib1 zlib4 zlib6 zstd1 zstd3 blosc-lz4}; do
            export BENCH_CODEC=$codec
            for c in zwrite zread; do
                row="$codec ${c#z}"
                rows+=("$row")
                for lib in ours wheel zarr; do run "$row" $lib $c; done
            done
        done
        unset BENCH_CODEC ;;
    small)
        # 200 000 one-element calls on a 128^3 float32 variable
        for ch in 32 64 128; do
            export BENCH_SCHUNK=$ch
            for lib in ours deb wheel; do once $lib small-setup; done
            for c in get1 vara1 put1; do
                row="$c, chunks $ch^3"
                rows+=("$row")
                for lib in ours deb wheel; do run "$row" $lib $c; done
            done
        done
        unset BENCH_SCHUNK ;;
    meta)
        # stores of an earlier run in DIR: ext4 is slow to create files for
        # 30 s after many deletes (see bench.c), so delete, then wait
        if compgen -G "$dir/*/meta10k-*" > /dev/null; then rm -rf "$dir"/*/meta10k-*; sync; sleep 31; fi
        # 100 groups x 100 variables x 10 attributes: create; open and walk
        for c in meta10k-create meta10k-open; do
            rows+=("$c")
            for lib in ours deb wheel; do run "$c" $lib $c; done
        done
        # the floor of the create: the same files and directories, written
        # atomically by a bare C program on every core (bench/meta_floor.c)
        run meta10k-create floor meta10k-create
        T[meta10k-create,cp]=${T[meta10k-create,floor]}
        R[meta10k-create,cp]=${R[meta10k-create,floor]} ;;
    threads)
        # 4 zstd-1 variables of 64 MiB read whole from one open dataset,
        # by 1 thread one after the other, then by 2 and 4 threads at once
        for lib in ours wheel; do once $lib threads-setup; done
        for n in 1 2 4; do
            export BENCH_THREADS=$n
            row="threads: 4 reads by $n"
            rows+=("$row")
            run "$row" ours threads
            # netCDF-C is not thread-safe: its row is the serial read
            if [ "$n" = 1 ]; then run "$row" wheel threads; fi
        done
        unset BENCH_THREADS ;;
    large)
        # 1 GiB uncompressed, durable (ours syncs at nc_close by default)
        # against cp + sync and cat of the same bytes
        row="1 GiB write, synced"
        rows+=("$row")
        FSYNC=1 run "$row" ours write
        row="1 GiB read"
        rows+=("$row")
        run "$row" ours read
        cpbest= catbest=
        for i in $(seq "$REPEAT"); do
            rm -rf "$dir/cp-copy"
            sync
            s=$(date +%s.%N)
            cp -r "$dir/ours/big.zarr" "$dir/cp-copy"
            sync
            e=$(date +%s.%N)
            t=$(echo "$e - $s" | bc -l)
            if [ -z "$cpbest" ] || [ "$(echo "$t < $cpbest" | bc -l)" = 1 ]; then cpbest=$t; fi
            s=$(date +%s.%N)
            find "$dir/ours/big.zarr" -type f -exec cat {} + > /dev/null
            e=$(date +%s.%N)
            t=$(echo "$e - $s" | bc -l)
            if [ -z "$catbest" ] || [ "$(echo "$t < $catbest" | bc -l)" = 1 ]; then catbest=$t; fi
        done
        rm -rf "$dir/cp-copy"
        T["1 GiB write, synced",cp]=$cpbest
        T["1 GiB read",cp]=$catbest ;;
    esac
done

mb() { [ -n "${R[$1,$2]:-}" ] && printf '%.0f' "$(echo "${R[$1,$2]} / 1024" | bc -l)" || echo "-"; }
cell() { [ -n "${T[$1,$2]:-}" ] && printf '%.3f' "${T[$1,$2]}" || echo "n/a"; }
ratio() { [ -n "${T[$1,$2]:-}" ] && printf '%.1fx' "$(echo "${T[$1,$2]} / ${T[$1,ours]}" | bc -l)" || echo "-"; }
echo
# floor: cp + sync and cat of the same bytes (1 GiB rows), bench/meta_floor.c (meta10k-create)
echo "| case | nczarr-rs s | netCDF-C 4.9.0 s | netCDF-C 4.10.1 s | zarr-python 3 s | floor s | peak RSS MB (ours / 4.9.0 / 4.10.1 / zarr) | vs 4.9.0 | vs 4.10.1 | vs zarr-python | vs floor |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for row in "${rows[@]}"; do
    printf '| %s | %s | %s | %s | %s | %s | %s / %s / %s / %s | %s | %s | %s | %s |\n' "$row" \
        "$(cell "$row" ours)" "$(cell "$row" deb)" "$(cell "$row" wheel)" "$(cell "$row" zarr)" "$(cell "$row" cp)" \
        "$(mb "$row" ours)" "$(mb "$row" deb)" "$(mb "$row" wheel)" "$(mb "$row" zarr)" \
        "$(ratio "$row" deb)" "$(ratio "$row" wheel)" "$(ratio "$row" zarr)" "$(ratio "$row" cp)"
done
rm -rf "$bin"
[ -n "${1:-}" ] || rm -rf "$dir"
