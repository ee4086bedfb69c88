#!/usr/bin/env bash
# netCDF-C's own parallel tests (nc_test4's tst_parallel*.c and friends, and
# examples/C/parallel_vara.c), from the netCDF-C source that
# tests/netcdf_c/source.sh fetches, run under mpirun against the MPI build of
# libnczarr_rs on NCZarr stores, with Debian's parallel netCDF-C
# (libnetcdf-mpi-dev: netCDF-4/HDF5 on .nc files) as the reference.
#
# Each test is built twice from the same copy of its source (but for the
# edits for the reference listed below): against our package
# (-lnczarr_rs) and against Debian's libnetcdf_mpi. Both run on the same
# number of ranks; their exit statuses must agree (and be 0), and every .nc
# file the reference leaves behind must have a store of ours beside it whose
# `ncdump -s` is the reference's, after the normalisations listed at
# `normalise` below. docs/PARALLEL.md, "netCDF-C's parallel tests", says
# the same in prose.
#
# File names: the tests name their files "tst_parallel.nc",
# TEMP_LARGE "/tst_parallel3.nc" or by snprintf at run time. Our build is
# compiled with `-include nczarr_map.h`, which wraps nc_create, nc_open,
# nc_create_par, nc_open_par and remove() in macros: a name becomes
# $NCZARR_PAR_PREFIX<basename>.zarr$NCZARR_PAR_SUFFIX, here
# file://<dir>/<name>.zarr#mode=nczarr,file (and an S3 URL for the S3 runs);
# remove() removes the store's tree. No upstream file is edited by hand; the
# few mechanical edits (sed, at test time, on a copy) are the exceptions below.
#
# Usage: tests/netcdf_c_par/run.sh STAGE   (the MPI package's install prefix,
#        e.g. target/stage-mpi). With $NCZARR_RS_S3_TEST_URL (scripts/s3-server.sh)
#        two of the tests also run on S3.
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
stage=$(cd "${1:?usage: run.sh STAGE}" && pwd)
lib=$stage/lib/libnczarr_rs.so.0
refinc=/usr/lib/x86_64-linux-gnu/netcdf/mpi/include
t0=$(date +%s)
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
. "$root/tests/netcdf_c/source.sh"
netcdf_c_source "$root/target/netcdf-c" || exit 1
grep -q 'NC_HAS_PARALLEL4 1' "$stage/include/nczarr_rs/netcdf_meta.h" ||
    { echo "netcdf-c par: $stage is not the MPI build (NC_HAS_PARALLEL4 is not 1)"; exit 1; }
[ -f "$refinc/netcdf_par.h" ] || { echo "netcdf-c par: no $refinc (libnetcdf-mpi-dev)"; exit 1; }

work=$root/target/netcdf-c-par
rm -rf "$work"
mkdir -p "$work/cfg" "$work/bin" "$work/run"

# name:source:ranks,... (each on the numbers of ranks netCDF-C's
# nc_test4/run_par_test.sh and examples/C/run_par_test.sh run it on, but
# tst_parallel3 on 4 instead of 16, one of the counts it accepts)
tests=(tst_mode:nc_test4/tst_mode.c:1 tst_parallel:nc_test4/tst_parallel.c:4
    tst_parallel3:nc_test4/tst_parallel3.c:4 tst_parallel4:nc_test4/tst_parallel4.c:1,2,4,8
    tst_parallel5:nc_test4/tst_parallel5.c:4 tst_parallel6:nc_test4/tst_parallel6.c:4
    tst_simplerw_coll_r:nc_test4/tst_simplerw_coll_r.c:1,2,4 tst_parallel_zlib:nc_test4/tst_parallel_zlib.c:4
    tst_parallel_compress:nc_test4/tst_parallel_compress.c:1,4 tst_quantize_par:nc_test4/tst_quantize_par.c:4
    parallel_vara:examples/C/parallel_vara.c:4)
# the S3 runs, on 4 ranks (ours only; compared with the reference's run on 4)
s3_tests=(tst_parallel6 parallel_vara)

# The configure-time config.h, replaced by what these tests use: a parallel
# netCDF-4 build whose HDF5 filters work in parallel (both libraries say so in
# netcdf_meta.h: NC_HAS_PAR_FILTERS 1), without szip (HAVE_H5Z_SZIP unset:
# tst_parallel5's and tst_parallel_compress's szip cases are not compiled;
# this library has no szip, Debian's HDF5 has libaec's). TEMP_LARGE is ".":
# the runs are in a directory of their own.
cat > "$work/cfg/config.h" <<'CFG'
/* stands for netCDF-C's configure header (tests/netcdf_c_par/run.sh) */
#include <stdint.h>
#define USE_NETCDF4 1
#define USE_HDF5 1
#define USE_PARALLEL 1
#define USE_PARALLEL4 1
#define HDF5_SUPPORTS_PAR_FILTERS 1
#define TEMP_LARGE "."
CFG
# nc_tests.h and err_macros.h as they are; the internal headers nc_tests.h
# includes (logging, path manager, .ncrc) are used by none of these tests
src_inc=$src/include
cp "$src_inc/nc_tests.h" "$src_inc/err_macros.h" "$work/cfg/"
for h in nc_logging.h ncpathmgr.h ncrc.h; do
    echo "/* not used by netCDF-C's parallel tests (tests/netcdf_c_par/run.sh) */" > "$work/cfg/$h"
done
# tst_parallel5 includes libhdf5's internal header for H5_VERSION_GE, which
# chooses the HDF5 cache defaults of a section cut out below
cat > "$work/cfg/hdf5internal.h" <<'CFG'
/* stands for netCDF-C's libhdf5/hdf5internal.h: what tst_parallel5 uses */
#define H5_VERSION_GE(a, b, c) 0
CFG

# Exceptions and edits, made by sed on copies of the sources (each checked
# to have taken effect: a changed upstream stops the harness). Cut out of
# both builds' copy, so that both run the same code and leave the same files:
# - tst_parallel5, "enum type" and "compound type": NCZarr has no
#   user-defined types (nc_def_enum/nc_def_compound are NC_ENOTNC4, as in
#   netCDF-C's own NCZarr);
# - tst_parallel5, "cache settings for sequentially-opened files": it reads
#   HDF5's file-access chunk cache through libhdf5's internal
#   nc4_hdf5_get_chunk_cache and expects HDF5's defaults under MPI-IO and
#   netCDF's otherwise; there is no HDF5 file here (our chunk cache is the
#   one nc_get_chunk_cache reports, the same for every open).
# Sizes, in both builds:
# - tst_parallel4 is a benchmark: 1024 slabs of 512 x 512 ints (1 GiB), one
#   nc_put_vara per slab; made 32 slabs (32 MiB) here. (At 1 GiB ours took
#   over 5 minutes: NCZarr's default chunks, 147 x 74 x 74, put each slab
#   across 49 chunks of 3.2 MB that stay partly written for 147 slabs,
#   157 MB, more than the 64 MiB chunk cache, so partly written chunks are
#   written back and read again slab after slab; the reference's variable
#   is contiguous. docs/PARALLEL.md.)
# For the reference alone:
# - parallel_vara creates with cmode NC_CLOBBER, the classic format, which
#   Debian's netCDF-C writes in parallel only through PnetCDF, which it is
#   not built with (NC_ENOTBUILT; upstream builds this example only with
#   PnetCDF). An NCZarr store is netCDF-4 whatever the format bits, so the
#   reference gets NC_NETCDF4 added (cmode = NC_CLOBBER|NC_NETCDF4), which
#   makes the same data.
cut_block() { # FILE PATTERN NOTE: the test section whose printf matches PATTERN
    sed -i "\\#printf(\"\*\*\* $2#,/SUMMARIZE_ERR/c\\        printf(\"*** $2: not run ($3)\\\\n\");" "$1"
    grep -q "not run ($3)" "$1" || { echo "netcdf-c par: no section '$2' in $1"; exit 1; }
}
edit() { # FILE SED-SCRIPT WHAT-MUST-BE-THERE-AFTER
    sed -i "$2" "$1"
    grep -q "$3" "$1" || { echo "netcdf-c par: the edit '$2' of $1 did not take (upstream changed?)"; exit 1; }
}
for t in "${tests[@]}"; do
    IFS=: read -r name tsrc ranks <<< "$t"
    cp "$src/$tsrc" "$work/cfg/$name.c"
done
for sec in "testing enum type and parallel I/O" "testing compound type and parallel I/O"; do
    cut_block "$work/cfg/tst_parallel5.c" "$sec" "NCZarr has no user-defined types"
done
cut_block "$work/cfg/tst_parallel5.c" "testing cache settings for sequentially-opened files" "HDF5's own chunk cache"
edit "$work/cfg/tst_parallel4.c" 's/^#define NUM_SLABS 1024$/#define NUM_SLABS 32/' '^#define NUM_SLABS 32$'
for t in "${tests[@]}"; do
    cp "$work/cfg/${t%%:*}.c" "$work/cfg/${t%%:*}.ours.c"
done
edit "$work/cfg/parallel_vara.c" 's/^    cmode = NC_CLOBBER;$/    cmode = NC_CLOBBER|NC_NETCDF4;/' 'cmode = NC_CLOBBER|NC_NETCDF4;'
# parallel_vara calls nc_var_par_access(ncid, NC_GLOBAL, NC_COLLECTIVE), as
# netCDF-C's documentation of nc_var_par_access shows (dparallel.c): PnetCDF
# and this library apply it to every variable; netCDF-C's HDF5 code
# (libsrc4/nc4var.c, 4.9.0 to 4.10.1) looks NC_GLOBAL up as a variable and
# returns NC_ENOTVAR, which the example prints ("Error at line=N: NetCDF:
# Variable not found") before going on with independent access. Those lines
# are expected of the reference; ours must print none.
vara_global_lines=$(grep -n 'nc_var_par_access(ncid, NC_GLOBAL' "$work/cfg/parallel_vara.c" | cut -d: -f1 | paste -sd'|')
[ -n "$vara_global_lines" ] || { echo "netcdf-c par: parallel_vara.c no longer calls nc_var_par_access with NC_GLOBAL"; exit 1; }

# Build: -O0 (the tests are small; compiling is most of the cost), two at once
cc_flags=(-O0 -w -DHAVE_CONFIG_H -I"$work/cfg")
mpicc -c "${cc_flags[@]}" -I"$stage/include/nczarr_rs" -o "$work/cfg/nczarr_map.o" "$here/nczarr_map.c" ||
    { echo "netcdf-c par: could not build nczarr_map.c"; exit 1; }
build_one() { # NAME KIND
    local name=$1 kind=$2
    if [ "$kind" = ours ]; then
        mpicc "${cc_flags[@]}" -include "$here/nczarr_map.h" -I"$stage/include/nczarr_rs" -o "$work/bin/$name.ours" \
            "$work/cfg/$name.ours.c" "$work/cfg/nczarr_map.o" -L"$stage/lib" -Wl,-rpath,"$stage/lib" -lnczarr_rs -lm
    else
        mpicc "${cc_flags[@]}" -I"$refinc" -o "$work/bin/$name.ref" \
            "$work/cfg/$name.c" -lnetcdf_mpi -lm
    fi > "$work/bin/$name.$kind.log" 2>&1 || echo "build failed: $name.$kind"
}
for t in "${tests[@]}"; do
    name=${t%%:*}
    for kind in ours ref; do
        while [ "$(jobs -rp | wc -l)" -ge 2 ]; do wait -n; done
        build_one "$name" "$kind" &
    done
done
wait

# ncdump -s of the reference's .nc and of our store, normalised:
# - the first line (`netcdf NAME {`: the file name, which has .nc.zarr here);
# - the special attributes of storage, which differ by format: _NCProperties,
#   _SuperblockVersion, _IsNetcdf4, _Format (global), _Storage and
#   _ChunkSizes (HDF5 makes fixed-size variables contiguous and chooses its
#   own default chunks; NCZarr's variables are always chunked, with
#   netCDF-C's NCZarr defaults), _Codecs (NCZarr's: the Zarr codecs that
#   _DeflateLevel/_Shuffle/_Fletcher32, compared, stand for);
# - a variable with _NoFill = "true" (NC_NOFILL): the values of elements
#   never written are undefined (HDF5 leaves whatever its allocation held),
#   so such a dataset's header is compared (ncdump -h -s), not its data;
# - a `history` attribute (parallel_vara writes the time of the run).
normalise() {
    sed -e '1s/^netcdf .* {$/netcdf NAME {/' \
        -e '/^\t\t:_NCProperties = /d' -e '/^\t\t:_SuperblockVersion = /d' -e '/^\t\t:_IsNetcdf4 = /d' \
        -e '/^\t\t:_Format = /d' -e '/^\t\t[A-Za-z0-9_]*:_Storage = /d' -e '/^\t\t[A-Za-z0-9_]*:_ChunkSizes = /d' \
        -e '/^\t\t[A-Za-z0-9_]*:_Codecs = /d' \
        -e 's/^\(\t\t:history = \).*;$/\1"(normalised)" ;/'
}

pass=0
fail=0
ok() { pass=$((pass + 1)); echo "ok   $1"; }
since() { echo "$(($(date +%s) - $1)) s"; }
bad() { fail=$((fail + 1)); echo "FAIL $1"; }
run_mpi() { # RANKS DIR LOG PROGRAM
    (cd "$2" && timeout 300 mpirun --oversubscribe -np "$1" "$4") > "$3" 2>&1
}
# compare REFDIR OURDIR PREFIX SUFFIX: ncdump of every .nc the reference left
compare_dumps() {
    local rdir=$1 odir=$2 prefix=$3 suffix=$4 n=0 f b opts
    for f in "$rdir"/*.nc; do
        [ -e "$f" ] || continue
        b=$(basename "$f")
        opts=(-s)
        # (grep reads it all: with -q, ncdump's SIGPIPE fails the pipe under pipefail)
        ncdump -h -s "$f" | grep ':_NoFill = "true"' > /dev/null && opts=(-h -s)
        ncdump "${opts[@]}" "$f" 2> "$odir/$b.ref.err" | normalise > "$odir/$b.ref.cdl"
        if ! LD_PRELOAD=$lib ncdump "${opts[@]}" "$prefix$b.zarr$suffix" 2> "$odir/$b.ours.err" | normalise > "$odir/$b.ours.cdl" ||
            [ ! -s "$odir/$b.ours.cdl" ]; then
            echo "ncdump of our $b: $(head -c 300 "$odir/$b.ours.err")"
            return 1
        fi
        if ! diff -u "$odir/$b.ref.cdl" "$odir/$b.ours.cdl" > "$odir/$b.diff"; then
            echo "ncdump of $b differs ($odir/$b.diff): $(sed -n '3,12p' "$odir/$b.diff" | tr '\n\t' '  ' | head -c 400)"
            return 1
        fi
        n=$((n + 1))
    done
    # and no store the reference's run removed (file runs: remove() is mapped)
    for f in "$odir"/*.nc.zarr; do
        [ -e "$f" ] || continue
        b=$(basename "$f" .zarr)
        [ -e "$rdir/$b" ] || { echo "left $b.zarr, which the reference's run removed"; return 1; }
    done
    echo "$n"
}
# check NAME RANKS LABEL PREFIX SUFFIX ODIR T0: ours against the reference's run
check() {
    local name=$1 ranks=$2 label=$3 prefix=$4 suffix=$5 odir=$6 t1=$7 rdir=$work/run/$name.np$2.ref
    if [ ! -x "$work/bin/$name.ours" ] || [ ! -x "$work/bin/$name.ref" ]; then
        bad "$label: did not build ($(tail -3 "$work/bin/$name.ours.log" "$work/bin/$name.ref.log" 2>/dev/null | tr '\n' ' ' | head -c 300))"
        return
    fi
    local rrc orc out
    rrc=$(cat "$rdir/rc")
    NCZARR_PAR_PREFIX=$prefix NCZARR_PAR_SUFFIX=$suffix run_mpi "$ranks" "$odir" "$odir/log" "$work/bin/$name.ours"
    orc=$?
    if [ "$rrc" != 0 ]; then
        bad "$label: the reference (Debian's libnetcdf_mpi) exits $rrc (log: $rdir/log)"
    elif [ "$orc" != 0 ]; then
        bad "$label: exits $orc, the reference 0 (log: $odir/log): $(grep -m3 -i 'sorry\|error\|fail' "$odir/log" | tr '\n' ' ' | head -c 300)"
    elif grep -q '^Error at line' "$odir/log"; then
        # parallel_vara reports a failed call on stdout and exits 0
        bad "$label: reports errors (log: $odir/log): $(grep -h -m2 '^Error at line' "$odir/log" | tr '\n' ' ')"
    elif grep '^Error at line' "$rdir/log" | grep -Ev "^Error at line=($vara_global_lines): NetCDF: Variable not found$" > /dev/null; then
        bad "$label: the reference reports errors (log: $rdir/log): $(grep -h -m2 '^Error at line' "$rdir/log" | tr '\n' ' ')"
    elif ! out=$(compare_dumps "$rdir" "$odir" "$prefix" "$suffix"); then
        bad "$label: $out"
    else
        ok "$label (exit 0 as the reference; ncdump of $out file(s) the same; $(since "$t1"))"
    fi
}

echo "netCDF-C's parallel tests from $(basename "$src"), reference: Debian's libnetcdf_mpi $(sed -n 's/^#define NC_VERSION *"\(.*\)".*/\1/p' "$refinc/netcdf_meta.h")"
for t in "${tests[@]}"; do
    IFS=: read -r name tsrc rank_list <<< "$t"
    for ranks in ${rank_list//,/ }; do
        rdir=$work/run/$name.np$ranks.ref
        odir=$work/run/$name.np$ranks.ours
        mkdir -p "$rdir" "$odir"
        t1=$(date +%s)
        if [ -x "$work/bin/$name.ref" ]; then
            run_mpi "$ranks" "$rdir" "$rdir/log" "$work/bin/$name.ref"
            echo $? > "$rdir/rc"
        else
            echo build > "$rdir/rc"
        fi
        check "$name" "$ranks" "$name -np $ranks" "file://$odir/" "#mode=nczarr,file" "$odir" "$t1"
    done
done
if [ -n "${NCZARR_RS_S3_TEST_URL:-}" ]; then
    key=netcdf-c-par-$(date +%s)-$$
    for name in "${s3_tests[@]}"; do
        odir=$work/run/$name.np4.s3
        mkdir -p "$odir"
        check "$name" 4 "$name -np 4 on S3" "$NCZARR_RS_S3_TEST_URL/$key/" "#mode=nczarr,s3" "$odir" "$(date +%s)"
    done
else
    echo "(no S3 server: \$NCZARR_RS_S3_TEST_URL unset; the S3 runs of ${s3_tests[*]} are not made)"
fi
echo "netcdf-c par: $pass passed, $fail failed ($(($(date +%s) - t0)) s)"
[ "$fail" -eq 0 ]
