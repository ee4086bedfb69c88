#!/usr/bin/env bash
# Parallel write and read of a 1 GiB variable (bench/par_bench.c) by 1, 2
# and 4 MPI ranks: libnczarr_rs's MPI build on the file driver against
# netCDF-C's parallel build (Debian's libnetcdf-mpi-dev: netCDF-4/HDF5) on
# the same data, on a tmpfs, best of N runs; and the limit, one process
# copying the same bytes into the tmpfs (dd). Not a test: run on demand.
# Prints | ranks | ours write s | GB/s | HDF5 write s | HDF5/ours | ours read s | HDF5 read s | HDF5/ours |.
#
#   bash bench/par_run.sh [PREFIX]   (PREFIX: the MPI package, target/stage-mpi)
#
# N (3), DIR (/dev/shm/nczarr-rs-par), RANKS ("1 2 4"), BENCH_NZ (256).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(cd "${1:-target/stage-mpi}" && pwd)
N=${N:-3}; dir=${DIR:-/dev/shm/nczarr-rs-par}; ranks=${RANKS:-"1 2 4"}
export BENCH_NZ=${BENCH_NZ:-256} OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
bin=$(mktemp -d); rm -rf "$dir"; mkdir -p "$dir"
trap 'rm -rf "$dir" "$bin"' EXIT
mpicc -O2 -I"$prefix/include" -o "$bin/ours" bench/par_bench.c -L"$prefix/lib" -lnczarr_rs -Wl,-rpath,"$prefix/lib"
ref=/usr/lib/x86_64-linux-gnu/netcdf/mpi
mpicc -O2 -I"$ref/include" -o "$bin/hdf5" bench/par_bench.c -lnetcdf_mpi
best() { # best write and read of N runs: best EXE PATH NP
  local bw= br=
  for _ in $(seq "$N"); do
    rm -rf "$2"
    read -r _ _ w _ r < <(mpirun --oversubscribe -np "$3" "$1" "$2" | grep '^RESULT')
    if [ -z "$bw" ] || [ "$(echo "$w < $bw" | bc -l)" = 1 ]; then bw=$w; fi
    if [ -z "$br" ] || [ "$(echo "$r < $br" | bc -l)" = 1 ]; then br=$r; fi
  done
  echo "$bw $br"
}
gib=$(echo "$BENCH_NZ * 1024 * 1024 * 4 / 1073741824" | bc -l)
lim=$( { /usr/bin/time -f %e dd if=/dev/zero of="$dir/dd" bs=4M count=$((BENCH_NZ)) status=none; } 2>&1 ); rm -f "$dir/dd"
printf 'limit: one process writes %.2f GiB into the tmpfs in %s s\n\n' "$gib" "$lim"
echo "| ranks | ours write s | GiB/s | HDF5 write s | HDF5/ours | ours read s | HDF5 read s | HDF5/ours |"
echo "| --- | --- | --- | --- | --- | --- | --- | --- |"
for np in $ranks; do
  read -r ow or < <(best "$bin/ours" "file://$dir/bench.zarr#mode=nczarr,file" "$np")
  read -r hw hr < <(best "$bin/hdf5" "$dir/bench.nc" "$np")
  printf '| %d | %.3f | %.2f | %.3f | %.2f | %.3f | %.3f | %.2f |\n' "$np" "$ow" "$(echo "$gib / $ow" | bc -l)" \
    "$hw" "$(echo "$hw / $ow" | bc -l)" "$or" "$hr" "$(echo "$hr / $or" | bc -l)"
done
