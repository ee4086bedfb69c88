#!/bin/sh
# run_then_check.sh EXPECT PYTHON CHECKER WHAT SCRATCH STORE LIB -- LAUNCH...
#
# Runs an MPI program (LAUNCH...: mpirun ... program SCRATCH STORE), then,
# in a process without MPI, the readers' check (PYTHON CHECKER WHAT SCRATCH
# STORE LIB LAUNCH...: check_par_stores.py). EXPECT is `ok` (the program must pass)
# or `killed` (a rank kills itself: mpirun must end the job with a failure,
# after the program said so). When PYTHON is empty (CMake's
# NCZARR_RS_PYTHON was not given) the program still runs, and the readers'
# check is "SKIPPED:" (the test is then reported skipped); so is all of it
# when the program skipped (S3 without a server).
set -u
expect=$1 python=$2 checker=$3 what=$4 scratch=$5 store=$6 lib=$7
shift 7
[ "$1" = -- ] && shift
# the S3 key prefix of the program's stores, which the checker reads
NCZARR_RS_MPI_S3_RUN="mpi-$what-$(date +%s)-$$"
export NCZARR_RS_MPI_S3_RUN
rm -rf "$scratch"
log="$scratch.log"
start=$(date +%s)
"$@" >"$log" 2>&1
rc=$?
cat "$log"
if grep -q "SKIPPED:" "$log"; then exit 0; fi
case $expect in
ok)
    if [ $rc -ne 0 ]; then echo "FAIL: the MPI program failed ($rc)"; exit 1; fi ;;
killed)
    if [ $rc -eq 0 ]; then echo "FAIL: the MPI program ended well: no rank died"; exit 1; fi
    if ! grep -q "killing itself" "$log"; then echo "FAIL: the MPI program failed before a rank killed itself ($rc)"; exit 1; fi
    if grep -q "still running" "$log"; then echo "FAIL: mpirun did not end the job"; exit 1; fi
    echo "(mpirun ended the job: $rc, as expected)" ;;
*)
    echo "unknown EXPECT $expect"; exit 2 ;;
esac
echo "MPI program: $(($(date +%s) - start)) s"
if [ -z "$python" ]; then
    echo "SKIPPED: the readers' check: no Python with zarr and netCDF4 (configure with -DNCZARR_RS_PYTHON=/path/to/python)"
    exit 0
fi
# (the checker may run the program again: `LAUNCH... restart`)
"$python" "$checker" "$what" "$scratch" "$store" "$lib" "$@"
