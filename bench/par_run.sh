#!/usr/bin/env bash
# The parallel benchmark of issue 26. Not a test (never run in CI): run on
# demand, and note the machine's load (`uptime`) with the numbers.
#
# 1. Write and read of a 1 GiB variable (bench/par_bench.c: 256 chunks of
#    4 MiB, one plane each, every rank its own planes, independent access)
#    by 1, 2 and 4 MPI ranks: libnczarr_rs's MPI build on the file driver
#    against netCDF-C's parallel build (Debian's libnetcdf-mpi-dev:
#    netCDF-4/HDF5) on the same data, on a tmpfs, best of N runs (wall time
#    and, separately, the CPU time of all ranks summed); and the limit: one
#    process (dd) writing the same bytes into the tmpfs and reading them.
# 2. and 3. (S3, when NCZARR_RS_PYTHON names a python with moto[server]):
#    bench/par_s3_run.sh.
#
# Ranks run with `mpirun --bind-to none`: by default Open MPI pins each
# rank to one core when there are no more ranks than cores, so one rank
# would do its chunk work (one thread per core) on one core, and the
# one-process row would be a one-core row.
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
mpicc -O2 -I"$prefix/include/nczarr_rs" -o "$bin/ours" bench/par_bench.c -L"$prefix/lib" -lnczarr_rs -Wl,-rpath,"$prefix/lib"
ref=/usr/lib/x86_64-linux-gnu/netcdf/mpi
mpicc -O2 -I"$ref/include" -o "$bin/hdf5" bench/par_bench.c -lnetcdf_mpi
best() { # best wall and CPU times of N runs: best EXE PATH NP [FILE] -> write read cpu-write cpu-read
  for _ in $(seq "$N"); do
    rm -rf "${4:-$2}" # not timed: no library deletes the previous run's data in its write
    mpirun --oversubscribe --bind-to none -np "$3" "$1" "$2" | grep '^RESULT'
  done | awk 'function m(i, v) { if (!(i in b) || v < b[i]) b[i] = v }
              { m(1, $3); m(2, $5); m(3, $7); m(4, $8) } END { print b[1], b[2], b[3], b[4] }'
}
gib=$(echo "$BENCH_NZ * 1024 * 1024 * 4 / 1073741824" | bc -l)
ddw=$( { /usr/bin/time -f %e dd if=/dev/zero of="$dir/dd" bs=4M count=$((BENCH_NZ)) status=none; } 2>&1 )
ddr=$( { /usr/bin/time -f %e dd if="$dir/dd" of=/dev/null bs=4M status=none; } 2>&1 ); rm -f "$dir/dd"
echo "load before: $(uptime)"
printf 'limit: one process (dd, 4 MiB blocks) writes %.2f GiB into the tmpfs in %s s, reads it in %s s\n\n' "$gib" "$ddw" "$ddr"
echo "| ranks | ours write s | GiB/s | CPU s | HDF5 write s | CPU s | HDF5/ours | ours read s | GiB/s | CPU s | HDF5 read s | CPU s | HDF5/ours |"
echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"
for np in $ranks; do
  read -r ow or ocw ocr < <(best "$bin/ours" "file://$dir/bench.zarr#mode=nczarr,file" "$np" "$dir/bench.zarr")
  read -r hw hr hcw hcr < <(best "$bin/hdf5" "$dir/bench.nc" "$np")
  printf '| %d | %.3f | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2f | %.2f | %.3f | %.2f | %.2f |\n' "$np" \
    "$ow" "$(echo "$gib / $ow" | bc -l)" "$ocw" "$hw" "$hcw" "$(echo "$hw / $ow" | bc -l)" \
    "$or" "$(echo "$gib / $or" | bc -l)" "$ocr" "$hr" "$hcr" "$(echo "$hr / $or" | bc -l)"
done
echo "load after: $(uptime)"
if [ -n "${NCZARR_RS_PYTHON:-}" ]; then
  echo
  bash bench/par_s3_run.sh "$prefix"
fi
