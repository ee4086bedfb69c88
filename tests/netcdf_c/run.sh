#!/usr/bin/env bash
# netCDF-C's own NCZarr shell tests (nczarr_test/run_*.sh, with their ref_*
# files) run with Debian's ncgen/ncdump/nccopy and libnczarr_rs preloaded, on
# directory and zip stores. The tests are not ours and are not in this
# repository: the script takes them from Debian's source package of the
# netCDF-C it tests against (apt-get source netcdf; the deb-src entry is
# added when the machine has none), into target/netcdf-c. The configure-time
# test_common.sh that the scripts source is made here from its template,
# pointing NCDUMP/NCCOPY/NCGEN at wrappers that preload our library.
#
# Usage: tests/netcdf_c/run.sh LIBDIR   (LIBDIR holds libnczarr_rs.so)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "$1" && pwd)
lib=$libdir/libnczarr_rs.so
work=$root/target/netcdf-c
mkdir -p "$work"

# The scripts and test programs of nczarr_test/ that need no S3, filter
# plugins or libnczarr internals, and the nc_test4/ncdump ones that
# nczarr_test/Makefile.am runs in their NCZarr variant. zmapio is our own
# program with the output of netCDF-C's test utility of that name (zmapio.c
# here, built below against our header and library). Every other program is
# netCDF-C's own, built below unchanged against Debian's libnetcdf and run
# under preload (see "programs" below).
#
# Some expected outputs are edited before the scripts run, each for one
# documented reason (docs/COMPATIBILITY.md, "netCDF-C's own tests"):
# - newest netCDF-C: a pure-Zarr scalar is a 0-d array, without netCDF-C
#   4.10.1's `_scalar_` dimension, as in netCDF-C's main branch since
#   Unidata/netcdf-c#3109 "Support scalars in Zarr", whose baselines are
#   exactly these edits (ref_string_zarr, ref_nulls_zarr);
# - Debian's ncgen 4.9.0 writes the CDL char constant '\0' as 48 (so it does
#   to a .nc file, without our library); 4.10's ncgen writes 0 (ref_nulls_*);
# - on purpose: a char attribute "0" stays text in pure Zarr (`"0"`); netCDF-C
#   writes text that parses as JSON raw (`0`) and reads it back as an int
#   (ref_nulls_zarr);
# - on purpose: reading pure Zarr, a subgroup variable whose
#   _ARRAY_DIMENSIONS names an ancestor's dimension of the same length uses
#   it; netCDF-C declares a second one in the subgroup (ref_newformatpure).
# Not run, because we differ from netCDF-C on purpose in what the script
# compares byte for byte:
# - run_jsonconvention.sh: netCDF-C writes a char attribute whose text its
#   lenient parser accepts as raw JSON even when it is not JSON
#   (`[0.,0.,1.]`), and integral doubles as `1`; we keep .zattrs valid JSON
#   and write `1.0`.
# Not run either: the filter scripts (plugins), run_external and
# run_s3_credentials (Internet, AWS), run_perf_chunks1 (a benchmark), the
# ut_* scripts (libnczarr's internal C API), run_jsonconvention (above).
tests=(run_ncgen4.sh run_misc.sh run_purezarr.sh run_interop.sh run_scalar.sh run_oldkeys.sh run_nczarr_fill.sh
    run_strings.sh run_nulls.sh run_newformat.sh run_nccopyz.sh run_corrupt.sh
    run_quantize.sh run_fillonlyz.sh run_chunkcases.sh run_unlim_io.sh run_cachetest.sh run_notzarr.sh
    run_xarray_misc.sh run_nccopy5.sh run_mud.sh run_filter.sh run_specific_filters.sh run_filter_vlen.sh
    test_unlim_vars test_endians test_put_vars_two_unlim_dim test_nczfilter test_filter_avail)

# The newest netCDF-C's tests (Debian unstable's source package; source.sh)
. "$here/source.sh"
netcdf_c_source "$work" || exit 1
version=$(basename "$src")
echo "netCDF-C tests from $version (Debian source package), tools from $(ncdump 2>&1 | grep -o 'netcdf library version [^ ]*')"

build=$work/build
rm -rf "$build"
mkdir -p "$build/ncdump" "$build/ncgen" "$build/nczarr_test"
for tool in ncdump/ncdump ncdump/nccopy ncgen/ncgen; do
    printf '#!/bin/sh\nLD_PRELOAD=%s exec /usr/bin/%s "$@"\n' "$lib" "$(basename $tool)" > "$build/$tool"
    chmod +x "$build/$tool"
done
cc -std=c99 -Wall -Wextra -Werror -pedantic -I"$root/include" -o "$build/nczarr_test/zmapio" \
    "$here/zmapio.c" -L"$libdir" -Wl,-rpath,"$libdir" -lnczarr_rs || { echo "netcdf-c tests: could not build zmapio"; exit 1; }
# netCDF-C's own test programs, from its source, built unchanged against
# Debian's libnetcdf and run under preload (so every nc_* call they make
# reaches our library first). As netCDF-C's nczarr_test/Makefile.am does,
# the nc_test4/ncdump ones get "#define TESTNCZARR" prepended (their NCZarr
# variant). The configure-time config.h is replaced by the few settings and
# ncconfigure.h macros they use; test_utils.c (their option parser) links
# the internal helpers it needs (ncuriparse, nclist*) from libnetcdf, which
# exports them.
mkdir -p "$build/cfg"
cat > "$build/cfg/config.h" <<'CFG'
/* stands for netCDF-C's configure header: what its NCZarr test programs use */
#include <stdint.h>
#include <stddef.h>
#include <stdlib.h>
#include <unistd.h>
#define HAVE_STDINT_H 1
#define HAVE_UNISTD_H 1
#define HAVE_GETOPT_H 1
#define USE_NETCDF4 1
#define NETCDF_ENABLE_NCZARR 1
#define NETCDF_ENABLE_NCZARR_ZIP 1
#define ENABLE_NCZARR 1
typedef unsigned long long size64_t;
typedef long long ssize64_t;
#define NC_UNUSED(var) (void)var
#define nullfree(s) do { if ((s) != NULL) free((void*)(s)); } while (0)
/* NC__testurl changed meaning after 4.9.0: 4.10's test_utils.c calls it with
   three arguments and expects "1: a URL"; Debian's 4.9.0 takes two, returns
   NC_NOERR for a URL, and frees an uninitialised pointer for a non-URL. */
#define NC__testurl(path, basenamep, isfilep) nczarr_test_isurl(path)
int nczarr_test_isurl(const char* path);
CFG
cat > "$build/cfg/isurl.c" <<'CFG'
#include <stddef.h>
#include <netcdf.h>
typedef struct NCURI NCURI;
extern int ncuriparse(const char* uri, NCURI** urip);
extern void ncurifree(NCURI* uri);
int nczarr_test_isurl(const char* path)
{
    NCURI* uri = NULL;
    int isurl = ncuriparse(path, &uri) == NC_NOERR;
    if (isurl && uri != NULL)
        ncurifree(uri);
    return isurl;
}
CFG
# name:source[:nczarr]   (nczarr: prepend #define TESTNCZARR)
programs=(test_zchunks3:nczarr_test/test_zchunks3.c test_fillonlyz:nczarr_test/test_fillonlyz.c
    test_chunkcases:nczarr_test/test_chunkcases.c test_unlim_io:nczarr_test/test_unlim_io.c
    test_notzarr:nczarr_test/test_notzarr.c test_writecaching:nczarr_test/test_writecaching.c
    test_readcaching:nczarr_test/test_readcaching.c
    test_quantize:nc_test4/tst_quantize.c:nczarr test_unlim_vars:nc_test4/tst_unlim_vars.c:nczarr
    test_endians:nc_test4/tst_h5_endians.c:nczarr test_put_vars_two_unlim_dim:nc_test4/tst_put_vars_two_unlim_dim.c:nczarr
    test_chunking:ncdump/tst_chunking.c:nczarr ncdumpchunks:nczarr_test/ncdumpchunks.c
    testfilter:nczarr_test/testfilter.c test_nczfilter:nczarr_test/test_nczfilter.c
    ../ncdump/ncfilteravail:ncdump/ncfilteravail.c test_filter_vlen:nc_test4/tst_filter_vlen.c:nczarr
    test_filter_avail:nczarr_test/test_filter_avail.c)
for p in "${programs[@]}"; do
    IFS=: read -r name psrc variant <<< "$p"
    c=$build/cfg/$name.c
    { [ "$variant" = nczarr ] && echo '#define TESTNCZARR'; cat "$src/$psrc"; } > "$c"
    utils=()
    grep -q '"test_utils.h"' "$c" && utils=("$src/nczarr_test/test_utils.c")
    cc -O2 -w -DHAVE_CONFIG_H -I"$build/cfg" -I"$src/include" -I"$src/nczarr_test" -I"$src/libnczarr" -I/usr/include/hdf5/serial -o "$build/nczarr_test/$name.bin" \
        "$c" "${utils[@]}" "$build/cfg/isurl.c" -lnetcdf -lm || { echo "netcdf-c tests: could not build $name"; exit 1; }
    printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$lib" "$build/nczarr_test/$name.bin" > "$build/nczarr_test/$name"
    chmod +x "$build/nczarr_test/$name"
done

# The scripts' own directory, with the expected outputs edited as above, in
# a tree whose other directories link to the source (the scripts use
# $srcdir/../ncdump/...).
mkdir -p "$build/srctree"
for e in "$src"/*; do
    [ "$(basename "$e")" = nczarr_test ] || ln -s "$e" "$build/srctree/"
done
tsrc=$build/srctree/nczarr_test
cp -a "$src/nczarr_test" "$tsrc"
# netCDF-C's development head: its run_scalar.sh and run_corrupt.sh (the
# scripts of nczarr_test it changed that this harness runs), as a patch to
# 4.10.1's (head.patch names the commit). Its other changed file,
# ref_power_901_constants_orig.zip, stays 4.10.1's (docs/COMPATIBILITY.md).
patch -s -d "$build/srctree" -p1 < "$here/head.patch" || { echo "netcdf-c tests: head.patch does not apply"; exit 1; }
# on purpose: a pure-Zarr 0-d array has no _FillValue attribute, like every
# other pure-Zarr array in 4.10.1 and the head (run_corrupt.sh's numpy
# scalars expect `_FillValue = 0.`, which only the head's scalar path makes)
sed -i -e '/^[[:space:]]*\(float\|int\)_scalar:_FillValue = 0\(\.\|LL\) ;$/d' "$tsrc/run_corrupt.sh"
# Unidata/netcdf-c#3109: pure-Zarr scalars without `_scalar_`
sed -i -e '/^dimensions:$/{N;/\n\t_scalar_ = 1 ;$/d}' -e '/^\t_scalar_ = 1 ;$/d' -e 's/(_scalar_) ;$/ ;/' \
    "$tsrc/ref_string_zarr.baseline" "$tsrc/ref_nulls_zarr.baseline"
# Debian's ncgen 4.9.0: '\0' is 48
sed -i -e 's/\(:nul_sng\|:nul0\) = 0\(b*\) ;/\1 = 48\2 ;/' "$tsrc/ref_nulls_zarr.baseline" "$tsrc/ref_nulls_nczarr.baseline"
# a char attribute stays text in pure Zarr
sed -i -e 's/:zero_sng = 0 ;/:zero_sng = "0" ;/' "$tsrc/ref_nulls_zarr.baseline"
# pure Zarr: the subgroup uses the root's _Anonymous_Dim_8
sed -i -e '/^group: g1 {/,/variables:/{/_Anonymous_Dim_8 = 8 ;/d}' "$tsrc/ref_newformatpure.cdl"

# run_filter.sh: the cases with a real codec (bzip2, id 307: nc_def_var_filter
# in testfilter, ncgen's _Filter, nccopy -F, ncgen -lc), which this library
# has built in. The others need netCDF-C's test-only HDF5 plugins (h5misc,
# h5noop: filters 32768 and 40000 that exist to check parameter passing
# and call order), which are no codecs; their lookup is dropped with them.
sed -i -e '/^# Find misc and capture/,/^if ! test -f \${MISCPATH}/d' \
    -e '/^testmisc \$1$/d' -e '/^testmulti \$1$/d' -e '/^testrep \$1$/d' -e '/^testorder \$1$/d' \
    "$tsrc/run_filter.sh"

# ncdump's and nc_test4's scripts that nczarr_test/Makefile.am runs in
# their NCZarr variant
for n in ncdump/tst_nccopy5 ncdump/tst_mud nc_test4/tst_specific_filters nc_test4/tst_filter_vlen; do
    b=$(basename "$n")
    { echo '#!/bin/bash'; echo 'TESTNCZARR=1'; tr -d '\r' < "$src/$n.sh"; } > "$tsrc/run_${b#tst_}.sh"
done
# run_specific_filters.sh: every codec case (fletcher32, shuffle, deflate,
# szip, bzip2, blosc, zstd; `avail` asks ncfilteravail, which asks
# nc_inq_filter_avail) without sourcing findplugin.sh, which locates
# netCDF-C's plugin directory: the codecs are built in here.
sed -i -e '/findplugin.sh/d' "$tsrc/run_specific_filters.sh" "$tsrc/run_filter_vlen.sh"

sed -e "s|@abs_top_srcdir@|$src|" -e "s|@abs_top_builddir@|$build|" \
    -e 's|@HAS_NCZARR@|yes|' -e 's|@HAS_NCZARR_ZIP@|yes|' -e 's|@HAS_HDF5@|yes|' \
    -e 's|@[A-Za-z_0-9]*@|no|g' "$src/test_common.in" > "$build/test_common.sh"

pass=0
fail=0
for t in "${tests[@]}"; do
    [ -e "$tsrc/$t" ] || [ -e "$build/nczarr_test/$t" ] || { echo "skip $t (not in $version)"; continue; }
    d=$build/nczarr_test
    case $t in
    # without TESTNCZARR=1 this script writes HDF5 files only (so it does
    # in netCDF-C's own runs); with it, it compares ncdump of the NCZarr
    # store with ncdump of the same writes to an HDF5 file
    run_unlim_io.sh) run=(env TESTNCZARR=1 sh "$tsrc/$t") ;;
    run_*) run=(sh "$tsrc/$t") ;;
    # it reports a failed check with "fail:" and exits 0 all the same
    # (netCDF-C's run_nczfilter.sh runs it so): a "fail:" line fails it here
    test_nczfilter) run=(sh -c '"$1" 2>&1 | { out=$(cat); echo "$out"; ! echo "$out" | grep -q "^fail:"; }' sh "$d/$t") ;;
    *) run=("$d/$t") ;;
    esac
    if (cd "$d" && srcdir=$tsrc "${run[@]}") > "$build/$t.log" 2>&1; then
        pass=$((pass + 1))
        echo "ok   $t"
    else
        fail=$((fail + 1))
        echo "FAIL $t (log: $build/$t.log)"
        tail -15 "$build/$t.log" | sed 's/^/     /'
    fi
done
echo "netcdf-c: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
