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

# The scripts that use only ncgen, ncdump, nccopy, zmapio and test_zchunks3
# (others need netCDF-C's other C test programs, S3 or filter plugins, and are
# not run). zmapio is our own program with the output of netCDF-C's test
# utility of that name (zmapio.c here, built below against our header and
# library). test_zchunks3 is netCDF-C's own program (nczarr_test/
# test_zchunks3.c, which writes a netCDF-4 file for nccopy), built below
# unchanged against Debian's libnetcdf and run under preload; its test
# utility headers (ut_includes.h, test_nczarr_utils.h) are skipped by their
# include guards, since it uses none of them.
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
tests=(run_ncgen4.sh run_misc.sh run_purezarr.sh run_interop.sh run_scalar.sh run_oldkeys.sh run_nczarr_fill.sh
    run_strings.sh run_nulls.sh run_newformat.sh run_nccopyz.sh)

# The newest netCDF-C's tests: Debian unstable's source package (4.10.1 at
# the time of writing). Only its source is downloaded; nothing is installed.
src=$(find "$work" -maxdepth 1 -type d -name 'netcdf-c-*' | head -1)
if [ -z "$src" ]; then
    (
        cd "$work" || exit 1
        cat > /etc/apt/sources.list.d/nczarr-rs-netcdf-src.sources <<'SRC'
Types: deb-src
URIs: http://deb.debian.org/debian
Suites: sid
Components: main
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
        apt-get update -qq > apt.log 2>&1
        apt-get source --download-only netcdf/sid >> apt.log 2>&1 || { cat apt.log; exit 1; }
        tar xzf netcdf_*.orig.tar.gz
    ) || { echo "netcdf-c tests: could not get Debian's netCDF-C source"; exit 1; }
    src=$(find "$work" -maxdepth 1 -type d -name 'netcdf-c-*' | head -1)
fi
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
# test_zchunks3 from netCDF-C's source, against Debian's libnetcdf; its
# configure-time config.h is not needed (an empty one stands for it)
mkdir -p "$build/cfg"
echo '/* netCDF-C configure header: test_zchunks3 uses none of its settings */' > "$build/cfg/config.h"
cc -O2 -Wall -Werror -I"$build/cfg" -DUT_INCLUDES_H -DTEST_NCZARR_UTILS_H -include netcdf.h -include "$src/include/err_macros.h" \
    -o "$build/nczarr_test/test_zchunks3.bin" "$src/nczarr_test/test_zchunks3.c" -lnetcdf || { echo "netcdf-c tests: could not build test_zchunks3"; exit 1; }
printf '#!/bin/sh\nLD_PRELOAD=%s exec %s "$@"\n' "$lib" "$build/nczarr_test/test_zchunks3.bin" > "$build/nczarr_test/test_zchunks3"
chmod +x "$build/nczarr_test/test_zchunks3"

# The scripts' own directory, with the expected outputs edited as above, in
# a tree whose other directories link to the source (the scripts use
# $srcdir/../ncdump/...).
mkdir -p "$build/srctree"
for e in "$src"/*; do
    [ "$(basename "$e")" = nczarr_test ] || ln -s "$e" "$build/srctree/"
done
tsrc=$build/srctree/nczarr_test
cp -a "$src/nczarr_test" "$tsrc"
# Unidata/netcdf-c#3109: pure-Zarr scalars without `_scalar_`
sed -i -e '/^dimensions:$/{N;/\n\t_scalar_ = 1 ;$/d}' -e '/^\t_scalar_ = 1 ;$/d' -e 's/(_scalar_) ;$/ ;/' \
    "$tsrc/ref_string_zarr.baseline" "$tsrc/ref_nulls_zarr.baseline"
# Debian's ncgen 4.9.0: '\0' is 48
sed -i -e 's/\(:nul_sng\|:nul0\) = 0\(b*\) ;/\1 = 48\2 ;/' "$tsrc/ref_nulls_zarr.baseline" "$tsrc/ref_nulls_nczarr.baseline"
# a char attribute stays text in pure Zarr
sed -i -e 's/:zero_sng = 0 ;/:zero_sng = "0" ;/' "$tsrc/ref_nulls_zarr.baseline"
# pure Zarr: the subgroup uses the root's _Anonymous_Dim_8
sed -i -e '/^group: g1 {/,/variables:/{/_Anonymous_Dim_8 = 8 ;/d}' "$tsrc/ref_newformatpure.cdl"

sed -e "s|@abs_top_srcdir@|$src|" -e "s|@abs_top_builddir@|$build|" \
    -e 's|@HAS_NCZARR@|yes|' -e 's|@HAS_NCZARR_ZIP@|yes|' -e 's|@HAS_HDF5@|yes|' \
    -e 's|@[A-Za-z_0-9]*@|no|g' "$src/test_common.in" > "$build/test_common.sh"

pass=0
fail=0
for t in "${tests[@]}"; do
    [ -e "$src/nczarr_test/$t" ] || { echo "skip $t (not in $version)"; continue; }
    d=$build/nczarr_test
    if (cd "$d" && srcdir=$tsrc sh "$tsrc/$t") > "$build/$t.log" 2>&1; then
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
