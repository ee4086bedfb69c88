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

# The scripts that use only ncgen, ncdump, nccopy and zmapio (others need
# netCDF-C's other C test programs, S3 or filter plugins, and are not run).
# zmapio is our own program with the output of netCDF-C's test utility of
# that name (zmapio.c here, built below against our header and library).
# Not run, because we differ from netCDF-C 4.10.1 on purpose
# (docs/COMPATIBILITY.md, "Where we answer differently"):
# - run_newformat.sh: reading a store as pure Zarr, a subgroup variable whose
#   _ARRAY_DIMENSIONS names an ancestor's dimension of the same length reuses
#   it; netCDF-C declares a second one in the subgroup.
# - run_strings.sh, run_nulls.sh: a pure-Zarr scalar is a 0-d array, as
#   zarr-python writes it; netCDF-C 4.10.1 writes shape [1] with a
#   `_scalar_` dimension (run_nulls also needs an ncgen newer than Debian's
#   4.9.0, which turns '\0' into 48).
# - run_jsonconvention.sh: netCDF-C writes a char attribute whose text its
#   lenient parser accepts as raw JSON even when it is not JSON
#   (`[0.,0.,1.]`), and integral doubles as `1`; we keep .zattrs valid JSON
#   and write `1.0`.
tests=(run_ncgen4.sh run_misc.sh run_purezarr.sh run_interop.sh run_scalar.sh run_oldkeys.sh run_nczarr_fill.sh)

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
sed -e "s|@abs_top_srcdir@|$src|" -e "s|@abs_top_builddir@|$build|" \
    -e 's|@HAS_NCZARR@|yes|' -e 's|@HAS_NCZARR_ZIP@|yes|' -e 's|@HAS_HDF5@|yes|' \
    -e 's|@[A-Za-z_0-9]*@|no|g' "$src/test_common.in" > "$build/test_common.sh"

pass=0
fail=0
for t in "${tests[@]}"; do
    [ -e "$src/nczarr_test/$t" ] || { echo "skip $t (not in $version)"; continue; }
    d=$build/nczarr_test
    if (cd "$d" && srcdir=$src/nczarr_test sh "$src/nczarr_test/$t") > "$build/$t.log" 2>&1; then
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
