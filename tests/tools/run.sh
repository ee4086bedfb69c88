#!/usr/bin/env bash
# The tools harness (issue 9, "the netCDF tools people run work unchanged on
# our engine"): Debian's ncdump/ncgen/nccopy, NCO, CDO and GDAL, and Python's
# netCDF4/xarray, run unmodified with libnczarr_rs preloaded, on stores and on
# ordinary .nc files. Every check compares with a reference: the same tool
# without preload on the same content as a .nc file, or on a store written by
# netCDF-C's own NCZarr, or (for .nc files) the same command without preload,
# byte for byte. Also: programs linked against libnetcdf and our library in
# each documented order (docs/TOOLS.md).
#
# Usage: tests/tools/run.sh LIBDIR   (LIBDIR holds libnczarr_rs.so)
# Expects scripts/setup-deps.sh to have run (PYTHON = the venv's python).
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "$1" && pwd)
lib=$libdir/libnczarr_rs.so
# The SONAME is libnczarr_rs.so.0; a cargo target dir has only libnczarr_rs.so.
[ -e "$libdir/libnczarr_rs.so.0" ] || ln -sf libnczarr_rs.so "$libdir/libnczarr_rs.so.0"
py=${PYTHON:-python3}
out=$root/target/tools
rm -rf "$out" && mkdir -p "$out"
cd "$out" || exit 1
pass=0
fail=0
ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$*"; }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }
pre() { LD_PRELOAD=$lib "$@"; }
url() { echo "file://$out/$1#mode=nczarr,file"; } # a store by URL
# same NAME A B: the two files are identical (else show the diff)
same() {
    if diff "$2" "$3" > "$out/diff.txt"; then ok "$1"; else bad "$1"; head -20 "$out/diff.txt"; fi
}
# run NAME CMD...: the command succeeds
run() {
    local name=$1
    shift
    if "$@" > "$out/run.txt" 2>&1; then ok "$name"; else bad "$name: $(head -c 400 "$out/run.txt")"; fi
}
# Storage layout lines differ by nature between HDF5 and Zarr (contiguous
# there, always chunked here), and so does the provenance text.
strip_storage() { grep -v -e ':_Storage = ' -e ':_ChunkSizes = ' -e ':_NCProperties = ' "$1"; }

echo "== datasets"
ncgen -k classic -o classic.nc "$here/classic.cdl" || bad "ncgen classic"
ncgen -k 64-bit-offset -o offset64.nc "$here/classic.cdl" || bad "ncgen 64-bit offset"
ncgen -k cdf5 -o cdf5.nc "$here/classic.cdl" || bad "ncgen cdf5"
ncgen -k nc4 -o nc4.nc "$here/nc4.cdl" || bad "ncgen nc4"
ncgen -k nc4 -o fixed.nc "$here/fixed.cdl" || bad "ncgen fixed"
# Through our engine (ncgen under preload), as a URL, a plain path, and zip.
run "ncgen under preload: CDL -> store" pre ncgen -k nc4 -o "$(url nc4.zarr)" "$here/nc4.cdl"
run "ncgen under preload: CDL -> zip store" pre ncgen -k nc4 -o "file://$out/nc4zip.zip#mode=nczarr,zip" "$here/nc4.cdl"
run "ncgen under preload: CDL -> .nc" pre ncgen -k nc4 -o nc4pre.nc "$here/nc4.cdl"
run "ncgen under preload: fixed CDL -> store" pre ncgen -k nc4 -o "$(url fixed.zarr)" "$here/fixed.cdl"
# Written by netCDF-C's own NCZarr (Debian 4.9.0: fixed dimensions, no scalars).
run "Debian ncgen: fixed CDL -> its own NCZarr store" ncgen -k nc4 -o "$(url fixed_deb.zarr)" "$here/fixed.cdl"

echo "== ncdump on .nc files: byte-identical with and without preload"
for f in classic offset64 cdf5 nc4 nc4pre; do
    for opt in "" -h -c -s -k -t -x "-v v" "-v temp" "-v sub/ivar"; do
        # shellcheck disable=SC2086
        ncdump $opt $f.nc > a.txt 2>&1
        # shellcheck disable=SC2086
        pre ncdump $opt $f.nc > b.txt 2>&1
        same "ncdump $opt $f.nc" a.txt b.txt
    done
done
ncdump nc4.nc > a.txt
ncdump nc4pre.nc | sed '1s/nc4pre/nc4/' > b.txt
same "ncgen under preload writes the same .nc as without" a.txt b.txt

echo "== ncdump on stores written by our engine = ncdump of the same content as .nc"
for loc in nc4.zarr "$(url nc4.zarr)" nc4zip.zip "file://$out/nc4zip.zip#mode=nczarr,zip"; do
    for opt in "" -h -c -k -t "-v temp" "-v names,scalar" "-v sub/dvar" -x; do
        # shellcheck disable=SC2086
        ncdump $opt nc4.nc 2>&1 | sed '1s/^netcdf nc4 /netcdf X /' > a.txt
        # shellcheck disable=SC2086
        pre ncdump $opt "$loc" 2>&1 | sed -e '1s/^netcdf [^ ]* /netcdf X /' > b.txt
        same "ncdump $opt $loc" a.txt b.txt
    done
    ncdump -s nc4.nc | sed '1s/^netcdf nc4 /netcdf X /' > a1.txt
    pre ncdump -s "$loc" | sed -e '1s/^netcdf [^ ]* /netcdf X /' > b1.txt
    strip_storage a1.txt > a.txt
    strip_storage b1.txt > b.txt
    same "ncdump -s $loc (storage lines aside)" a.txt b.txt
done
echo "== Zarr v3: the same ncgen run writes v2 and v3; ncdump prints the same CDL for both"
run "ncgen under preload: CDL -> Zarr v3 store" pre ncgen -k nc4 -o "file://$out/nc4v3.zarr#mode=nczarr,v3,file" "$here/nc4.cdl"
for opt in "" -h -s -t "-v temp" "-v sub/dvar"; do
    # shellcheck disable=SC2086
    pre ncdump $opt nc4.zarr 2>&1 | sed 1d > a.txt
    # shellcheck disable=SC2086
    pre ncdump $opt nc4v3.zarr 2>&1 | sed 1d > b.txt
    same "ncdump $opt: v3 store = v2 store (format line aside)" a.txt b.txt
done
echo "== ncdump on stores: ours = Debian's own NCZarr on its own store"
for opt in "" -h -c -s -k -t "-v temp"; do
    # shellcheck disable=SC2086
    ncdump $opt "$(url fixed_deb.zarr)" 2>&1 | sed -e '1s/^netcdf [^ ]* /netcdf X /' -e '/:_NCProperties = /d' -e '/:_SuperblockVersion = /d' > a.txt
    # shellcheck disable=SC2086
    pre ncdump $opt fixed.zarr 2>&1 | sed -e '1s/^netcdf [^ ]* /netcdf X /' -e '/:_NCProperties = /d' -e '/:_SuperblockVersion = /d' > b.txt
    same "ncdump $opt fixed.zarr = Debian NCZarr" a.txt b.txt
done

echo "== nccopy"
run "nccopy .nc -> store" pre nccopy nc4.nc "$(url cp.zarr)"
run "nccopy store -> .nc" pre nccopy "$(url cp.zarr)" back.nc
ncdump nc4.nc | sed 1d > a.txt
ncdump back.nc | sed 1d > b.txt
same "nccopy .nc -> store -> .nc keeps everything" a.txt b.txt
# Compressed: fixed.nc has no string variable, because Debian's 4.9.0
# refuses deflate on NC_STRING in a .nc file (NC_EFILTER, with or without
# us), so a deflated string could not be copied back; 4.10.1 accepts it, as
# NCZarr and we do.
run "nccopy -d 5 -s -c .nc -> store" pre nccopy -d 5 -s -c time/1,lat/2,lon/2 fixed.nc "$(url cpz.zarr)"
nccopy -d 5 -s -c time/1,lat/2,lon/2 fixed.nc "$(url cpz_deb.zarr)" > /dev/null 2>&1
# (Debian's NCZarr is built without filters: it is the reference for the
# chunking only.)
ncdump -s "$(url cpz_deb.zarr)" | grep -e '_ChunkSizes = ' > a.txt
pre ncdump -s cpz.zarr > cpz.txt
grep -e '_ChunkSizes = ' cpz.txt > b.txt
same "nccopy -c chunking in the store = Debian's nccopy into its own NCZarr" a.txt b.txt
if [ "$(grep -c '_DeflateLevel = 5' cpz.txt)" = 5 ] && [ "$(grep -c '_Shuffle = "true"' cpz.txt)" = 5 ]; then
    ok "nccopy -d 5 -s deflates and shuffles every variable of the store"
else
    bad "nccopy -d/-s: $(grep -e _Deflate -e _Shuffle cpz.txt)"
fi
run "nccopy compressed store -> .nc" pre nccopy "$(url cpz.zarr)" backz.nc
ncdump fixed.nc | sed 1d > a.txt
ncdump backz.nc | sed 1d > b.txt
same "nccopy compressed round trip keeps the data" a.txt b.txt
ncdump nc4.nc | sed 1d > a.txt
run "nccopy -k nc4 store -> store" pre nccopy -k nc4 "$(url cp.zarr)" "$(url cp2.zarr)"
pre ncdump cp2.zarr | sed 1d > b.txt
same "nccopy store -> store keeps the data" a.txt b.txt
run "nccopy -k nc4 compressed store -> store" pre nccopy -k nc4 "$(url cpz.zarr)" "$(url cpz2.zarr)"
pre ncdump -s cpz2.zarr | sed 1d > b1.txt
if grep -q 'temp:_DeflateLevel = 5' b1.txt; then ok "compression kept store -> store"; else bad "compression lost store -> store"; fi
ncdump fixed.nc | sed 1d > a1.txt
pre ncdump cpz2.zarr | sed 1d > b1.txt
same "nccopy compressed store -> store keeps the data" a1.txt b1.txt
run "nccopy classic .nc -> store" pre nccopy -k nc4 classic.nc "$(url classic.zarr)"
ncdump classic.nc | sed 1d > a.txt
pre ncdump classic.zarr | sed 1d > b.txt
same "classic data in a store" a.txt b.txt

echo "== NCO"
nco() { # nco NAME: the same NCO pipeline on the .nc file and on the store
    local name=$1 zin=$2 nin=$3 zout=$4 nout=$5
    shift 5
    run "$name (store)" pre "$@" "$zin" "$zout"
    "$@" "$nin" "$nout" > /dev/null 2>&1
    pre ncdump "$zout" | sed -e 1d -e '/:history = /,/;$/d' -e '/:NCO = /d' > b.txt
    ncdump "$nout" | sed -e 1d -e '/:history = /,/;$/d' -e '/:NCO = /d' > a.txt
    same "$name = on .nc" a.txt b.txt
}
nco "ncks -v temp -d time,1 -> .nc" nc4.zarr nc4.nc ks1.nc ks1ref.nc ncks -O -v temp -d time,1
nco "ncks -d lat,0,1 -> store" nc4.zarr nc4.nc "$(url ks2.zarr)" ks2ref.nc ncks -O -d lat,0,1
for opt in -M -H "-H -v temp" "-m -v counts"; do
    # shellcheck disable=SC2086
    ncks $opt nc4.nc > a.txt 2>&1
    # shellcheck disable=SC2086
    pre ncks $opt nc4.zarr 2>&1 | sed 's/nc4\.zarr/nc4.nc/g' > b.txt
    same "ncks $opt" a.txt b.txt
done
for i in 0 1; do
    pre ncks -O -d time,$i nc4.zarr "$(url rec$i.zarr)" > /dev/null 2>&1
    ncks -O -d time,$i nc4.nc rec$i.nc
done
run "ncrcat two stores -> .nc" pre ncrcat -O rec0.zarr rec1.zarr rcat.nc
ncrcat -O rec0.nc rec1.nc rcatref.nc
ncdump rcat.nc | sed -e 1d -e '/:history = /,/;$/d' -e '/:NCO = /d' > b.txt
ncdump rcatref.nc | sed -e 1d -e '/:history = /,/;$/d' -e '/:NCO = /d' > a.txt
same "ncrcat of stores = ncrcat of .nc files" a.txt b.txt

echo "== CDO (URL form; CDO itself refuses a directory path before it calls netCDF)"
cdo -s sinfo "$(url fixed_deb.zarr)" > a.txt 2>&1
pre cdo -s sinfo "$(url fixed.zarr)" > b.txt 2>&1
same "cdo sinfo: ours = Debian NCZarr" a.txt b.txt
cdo -s sinfo fixed.nc > a.txt 2>&1
pre cdo -s sinfo fixed.nc > b.txt 2>&1
same "cdo sinfo .nc: with = without preload" a.txt b.txt
cdo -s timmean "$(url fixed_deb.zarr)" tm_deb.nc > /dev/null 2>&1
run "cdo timmean store -> .nc" pre cdo -s timmean "$(url fixed.zarr)" tm_ours.nc
ncdump tm_deb.nc | sed -e 1d -e '/:history = /,/;$/d' > a.txt
ncdump tm_ours.nc | sed -e 1d -e '/:history = /,/;$/d' > b.txt
same "cdo timmean: ours = Debian NCZarr" a.txt b.txt
cdo -s -f nczarr copy "$(url fixed_deb.zarr)" "$(url cdocopy_deb.zarr)" > /dev/null 2>&1
run "cdo -f nczarr copy store -> store" pre cdo -s -f nczarr copy "$(url fixed.zarr)" "$(url cdocopy.zarr)"
ncdump "$(url cdocopy_deb.zarr)" | sed -e 1d -e '/:history = /,/;$/d' > a.txt
pre ncdump cdocopy.zarr | sed -e 1d -e '/:history = /,/;$/d' > b.txt
same "cdo copy: ours = Debian NCZarr" a.txt b.txt

echo "== GDAL on .nc files (its netCDF driver hands nc_open only files with netCDF/HDF5 magic)"
gdalinfo NETCDF:fixed.nc:temp > a.txt 2>&1
pre gdalinfo NETCDF:fixed.nc:temp > b.txt 2>&1
same "gdalinfo .nc: with = without preload" a.txt b.txt
gdal_translate -q -of GTiff NETCDF:fixed.nc:temp a.tif > /dev/null 2>&1
pre gdal_translate -q -of GTiff NETCDF:fixed.nc:temp b.tif > /dev/null 2>&1
gdalinfo -stats -nomd a.tif | grep -v -e '^Files:' -e 'a.tif' > a.txt
gdalinfo -stats -nomd b.tif | grep -v -e '^Files:' -e 'b.tif' > b.txt
same "gdal_translate .nc -> GeoTIFF: with = without preload" a.txt b.txt

echo "== Python: netCDF4 (bundles netCDF-C 4.10.1) and xarray under preload"
if pre "$py" "$here/check_python.py" "$out" > py.txt 2>&1; then ok "netCDF4/xarray under preload"; else bad "netCDF4/xarray under preload: $(tail -5 py.txt)"; fi
"$py" - <<'PY' > a.txt 2>&1
import netCDF4
print(netCDF4.__netcdf4libversion__)
PY
pre "$py" - <<'PY' > b.txt 2>&1
import netCDF4
print(netCDF4.__netcdf4libversion__)
PY
same "import netCDF4: same library version with and without preload" a.txt b.txt

echo "== netCDF-C 4.10's .ncrc UDF self-loading (the wheel's library, no preload)"
mkdir -p rc
printf 'NETCDF.UDF0.LIBRARY=%s\nNETCDF.UDF0.INIT=nczarr_rs_udf_dispatch\nNETCDF.UDF0.MAGIC=PK\003\004\n' "$lib" > rc/.ncrc
cat > udf.py <<'PY'
import sys
import netCDF4
with netCDF4.Dataset(sys.argv[1]) as d:
    print(d.file_format, list(d.variables), float(d.variables["temp"][1, 2, 3]))
PY
if "$py" udf.py nc4zip.zip > /dev/null 2>&1; then
    bad "without the .ncrc the wheel's netCDF-C opened a zip store (the check below would prove nothing)"
fi
if NCRCENV_HOME=$out/rc "$py" udf.py nc4zip.zip > udf.txt 2>&1 && grep -q "NETCDF4 .* 303.0" udf.txt; then
    ok "netCDF-C 4.10.1 (wheel) reads a zip store through our UDF table from .ncrc"
else
    bad "netCDF-C 4.10.1 .ncrc UDF: $(tail -3 udf.txt)"
fi

echo "== link patterns (docs/TOOLS.md)"
# --no-as-needed: with ours first, every nc_* symbol resolves to us and the
# linker would drop libnetcdf, leaving .nc files unreadable (docs/TOOLS.md).
cc -std=c99 -Wall -Werror -o link_ours_first "$here/linkcheck.c" -Wl,--no-as-needed -L"$libdir" -lnczarr_rs -lnetcdf -Wl,-rpath,"$libdir"
cc -std=c99 -Wall -Werror -o link_netcdf_first "$here/linkcheck.c" -Wl,--no-as-needed -lnetcdf -L"$libdir" -lnczarr_rs -Wl,-rpath,"$libdir"
cc -std=c99 -Wall -Werror -o link_netcdf_only "$here/linkcheck.c" -lnetcdf
cc -std=c99 -Wall -Werror -I"$root/include" -o link_ours_only "$here/linkcheck.c" -L"$libdir" -lnczarr_rs -Wl,-rpath,"$libdir"
./link_netcdf_only "$out" fixed.nc "$(url fixed_deb.zarr)" > ref.txt 2>&1 || bad "linkcheck with Debian's libnetcdf alone: $(cat ref.txt)"
for p in ours_first netcdf_first; do
    rm -rf lc.zarr
    if ./link_$p "$out" fixed.nc "$(url lc.zarr)" > got.txt 2>&1; then same "linked $p: same results as libnetcdf alone" ref.txt got.txt; else bad "linked $p: $(cat got.txt)"; fi
done
rm -rf lc.zarr
libnetcdf=$(ldconfig -p | awk '/libnetcdf\.so\.[0-9]+ .*x86-64|libnetcdf\.so\.[0-9]+ \(libc6,x86-64\)/ {print $NF; exit}')
if NCZARR_RS_LIBNETCDF=$libnetcdf ./link_ours_only "$out" fixed.nc "$(url lc.zarr)" > got.txt 2>&1; then
    same "linked to ours alone + NCZARR_RS_LIBNETCDF: same results" ref.txt got.txt
else
    bad "linked to ours alone + NCZARR_RS_LIBNETCDF: $(cat got.txt)"
fi

echo "tools: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
