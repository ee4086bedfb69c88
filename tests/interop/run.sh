#!/usr/bin/env bash
# The differential interop harness (issue: "interoperability is judged by
# real implementations"). Builds tests/interop/ncwalk.c three times: against
# Debian's libnetcdf (netCDF-C 4.9.0), against the netCDF-C 4.10 bundled in
# the netCDF4 wheel, and against nczarr-rs; writes reference datasets with
# Debian ncgen, the netCDF4 wheel, zarr-python 3 and xarray, and datasets of
# our own; then compares what each library reads, and runs zarr/xarray on
# what we wrote. Expects scripts/setup-deps.sh to have run (PYTHON = venv).
#
# Usage: tests/interop/run.sh LIBDIR   (LIBDIR holds libnczarr_rs.so)
set -uo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
libdir=$(cd "$1" && pwd)
# The SONAME is libnczarr_rs.so.0; a cargo target dir has only libnczarr_rs.so.
[ -e "$libdir/libnczarr_rs.so.0" ] || ln -sf libnczarr_rs.so "$libdir/libnczarr_rs.so.0"
py=${PYTHON:-python3}
out=$root/target/interop
rm -rf "$out" && mkdir -p "$out/data" "$out/walk" "$out/codecs"
pass=0
fail=0
note() { printf '  %s\n' "$*"; }
ok() { pass=$((pass + 1)); printf 'ok   %s\n' "$*"; }
bad() { fail=$((fail + 1)); printf 'FAIL %s\n' "$*"; }

wheel_lib=$("$py" - <<'PY'
import glob, os, netCDF4
d = os.path.join(os.path.dirname(os.path.dirname(netCDF4.__file__)), "netcdf4.libs")
print((glob.glob(d + "/libnetcdf*.so*") or [""])[0])
PY
)
[ -n "$wheel_lib" ] || { echo "interop: the netCDF4 wheel's libnetcdf was not found"; exit 1; }
cflags="-std=c99 -Wall -Wextra -Werror"
cc $cflags -o "$out/ncwalk_deb" "$here/ncwalk.c" -lnetcdf || exit 1
cc $cflags -o "$out/ncwalk_whl" "$here/ncwalk.c" "$wheel_lib" -Wl,-rpath,"$(dirname "$wheel_lib")" || exit 1
cc $cflags -I"$root/include" -o "$out/ncwalk_ours" "$here/ncwalk.c" -L"$libdir" -lnczarr_rs -Wl,-rpath,"$libdir" || exit 1
cc $cflags -I"$root/include" -o "$out/write_ours" "$here/write_ours.c" -L"$libdir" -lnczarr_rs -Wl,-rpath,"$libdir" || exit 1
cc $cflags -o "$out/append_whl" "$here/append.c" "$wheel_lib" -Wl,-rpath,"$(dirname "$wheel_lib")" || exit 1
cc $cflags -I"$root/include" -o "$out/append_ours" "$here/append.c" -L"$libdir" -lnczarr_rs -Wl,-rpath,"$libdir" || exit 1

echo "== writing datasets"
d=$out/data
ncgen -4 -o "file://$d/ncgen_nczarr.zarr#mode=nczarr,file" "$here/ref.cdl" || bad "Debian ncgen (nczarr)"
ncgen -4 -o "file://$d/ncgen_zarr.zarr#mode=zarr,file" "$here/ref.cdl" || bad "Debian ncgen (zarr)"
"$py" "$here/write_ref.py" "$d" || bad "write_ref.py"
"$out/write_ours" "$d" || bad "write_ours"

# The wheel's netCDF-C finds its codec plugins (zlib, shuffle, ...) here.
wheel_plugins=$(dirname "$(dirname "$wheel_lib")")/netCDF4/plugins
walk() { # walk READER DATASET -> file
    NETCDF_PLUGIN_PATH=$wheel_plugins HDF5_PLUGIN_PATH=$wheel_plugins \
        "$out/ncwalk_$1" "file://$d/$2.zarr#mode=nczarr,file" > "$out/walk/$2.$1" 2> "$out/walk/$2.$1.err"
}

# compare DATASET READER [compare.py options] -- the reference READER against ours.
compare() {
    local ds=$1 ref=$2
    shift 2
    walk ours "$ds" || { bad "$ds: nczarr-rs cannot read it: $(cat "$out/walk/$ds.ours.err")"; return; }
    if ! walk "$ref" "$ds"; then
        bad "$ds: reference $ref cannot read it: $(head -c 300 "$out/walk/$ds.$ref.err")"
        return
    fi
    if "$py" "$here/compare.py" "$out/walk/$ds.$ref" "$out/walk/$ds.ours" --label "$ds" "$@"; then
        ok "$ds: $ref and nczarr-rs read the same${*:+ (allowing: $*)}"
    else
        bad "$ds: $ref and nczarr-rs differ"
    fi
}

# known reference failures: the reader must still fail, and ours must read it.
known_failure() {
    local ds=$1 ref=$2 why=$3
    walk ours "$ds" || { bad "$ds: nczarr-rs cannot read it"; return; }
    if walk "$ref" "$ds"; then
        note "$ds: $ref now reads it (was a known failure: $why)"
    fi
    ok "$ds: $ref skipped, known reference bug: $why"
}

echo "== reading reference datasets"
compare ncgen_nczarr deb --one-byte-endian
known_failure ncgen_nczarr whl "4.10 rejects the <U1 char dtype 4.9.0 writes (NC_ENCZARR)"
compare ncgen_zarr deb --loose-int-atts --loose-real-atts --anon-dims --one-byte-endian
known_failure ncgen_zarr whl "4.10 rejects the <U1 char dtype 4.9.0 writes (NC_ENCZARR)"
compare wheel_nczarr whl
note "wheel_nczarr: Debian 4.9.0 predates the 4.9.3+ layout and shows its _nczarr_* keys as attributes; not compared"
compare wheel_zarr whl --dim-placement
compare wheel_zarr deb --loose-int-atts --dim-placement --one-byte-endian
compare zarr_py whl
known_failure zarr_py deb "4.9.0 fails with NC_EINVAL on zarr-python's JSON attributes"
compare zarr_py_zstd whl
compare xarray deb --one-byte-endian
compare xarray whl
compare xarray_blosc whl

echo "== reading what nczarr-rs wrote"
compare ours_full whl
known_failure ours_full deb "4.9.0 segfaults on scalar variables and cannot parse >S1/|Sn dtypes"
compare ours_portable whl
note "ours_portable: Debian 4.9.0 predates the 4.9.3+ layout (pure Zarr view); see the matrix below"
compare ours_oldkeys whl
compare ours_oldkeys deb --drop-att _nczarr_attr --loose-int-atts --loose-real-atts --one-byte-endian
compare ours_zarr whl --dim-placement
compare ours_zarr deb --loose-int-atts --loose-real-atts --dim-placement --one-byte-endian
for ds in ours_portable ours_oldkeys ours_zarr; do
    if ncdump -h "file://$d/$ds.zarr#mode=nczarr,file" > "$out/walk/$ds.ncdump" 2>&1; then
        ok "$ds: Debian ncdump -h reads it"
    else
        bad "$ds: Debian ncdump -h failed: $(head -c 300 "$out/walk/$ds.ncdump")"
    fi
done
# zip archives (neither Debian's nor the wheel's netCDF-C is built with zip
# support, so zarr-python and our own directory stores are the references)
walk_url() { # walk_url NAME URL: nczarr-rs reading URL
    "$out/ncwalk_ours" "$2" > "$out/walk/$1.ours" 2> "$out/walk/$1.ours.err"
}
if "$py" "$here/zip_check.py" "$d"; then
    ok "zarr-python's ZipStore reads our archive and writes one for us"
else
    bad "zip_check.py"
fi
walk ours ours_portable
for z in ours_zip zipped_dir; do
    if walk_url "$z" "file://$d/$z.zip#mode=nczarr,zip" && "$py" "$here/compare.py" "$out/walk/ours_portable.ours" "$out/walk/$z.ours" --label "$z"; then
        ok "$z: the zip archive reads exactly like the directory store"
    else
        bad "$z: the zip archive and the directory store differ: $(head -c 300 "$out/walk/$z.ours.err")"
    fi
done
if walk_url zarr_zip "file://$d/zarr_zip.zip#mode=zarr,zip" && grep -q '^data t n=6 fill=1 0,11,22,33,44,-1$' "$out/walk/zarr_zip.ours"; then
    ok "zarr_zip: nczarr-rs reads zarr-python's ZipStore archive"
else
    bad "zarr_zip: $(cat "$out/walk/zarr_zip.ours" "$out/walk/zarr_zip.ours.err" | head -c 400)"
fi
if "$py" "$here/check_ours.py" "$d"; then
    ok "zarr-python and xarray read what nczarr-rs wrote"
else
    bad "zarr-python / xarray checks"
fi

echo "== codecs both ways: fletcher32, bz2, lz4, gzip, zlib levels 0-9, lzma, crc32, adler32, numcodecs' array filters (tests/interop/codecs.py)"
if (cd "$here" && NETCDF_PLUGIN_PATH=$wheel_plugins HDF5_PLUGIN_PATH=$wheel_plugins \
    "$py" "$here/codecs.py" "$out/codecs" "$libdir/libnczarr_rs.so" "$wheel_lib") > "$out/codecs.log" 2>&1; then
    ok "codecs: zarr-python and the wheel's netCDF-C (fletcher32, bz2) read ours, we read theirs, same filter ids; zlib 0-9 as netCDF-C writes it, byte for byte; numcodecs' filters read and rewritten as zarr-python does"
else
    bad "codecs: $(grep -E 'FAIL|Error' "$out/codecs.log" | head -20)"
fi

echo "== NCZarr dispatch behaviours against the wheel's netCDF-C 4.10 (tests/interop/dispatch.py)"
if NETCDF_PLUGIN_PATH=$wheel_plugins HDF5_PLUGIN_PATH=$wheel_plugins \
    "$py" "$here/dispatch.py" "$out/dispatch" "$libdir/libnczarr_rs.so" "$wheel_lib" > "$out/dispatch.log" 2>&1; then
    ok "dispatch: $(grep -c '^ok' "$out/dispatch.log") scenarios (renames, nc_del_att, nc_set_fill, nc_set_var_chunk_cache, filter order) call for call as netCDF-C 4.10, its known bugs aside"
else
    bad "dispatch: $(grep -v '^ok' "$out/dispatch.log" | head -20)"
fi

echo "== quantization against the wheel's netCDF-C 4.10 (tests/interop/quantize.py)"
if "$py" "$here/quantize.py" "$out/quantize" "$libdir/libnczarr_rs.so" "$wheel_lib" > "$out/quantize.log" 2>&1; then
    ok "quantize: $(grep -c '^ok' "$out/quantize.log") checks: stored bits (BitGroom, GranularBitRound, BitRound x 3 settings, float and double), attributes and rules as netCDF-C 4.10"
else
    bad "quantize: $(grep -v '^ok' "$out/quantize.log" | head -20)"
fi

echo "== variable-length strings from zarr-python and xarray (tests/interop/vlen.py)"
if "$py" "$here/vlen.py" "$out/vlen" "$libdir/libnczarr_rs.so" > "$out/vlen.log" 2>&1; then
    ok "vlen: $(grep -c '^ok' "$out/vlen.log") |O vlen-utf8 arrays (zarr-python with and without a compressor, a missing chunk, 2-d; xarray variable and coordinate) read as zarr-python reads them"
else
    bad "vlen: $(grep -v '^ok' "$out/vlen.log" | head -20)"
fi

echo "== Zarr v3 both ways (tests/interop/zarr3.py)"
if "$py" "$here/zarr3.py" "$out/zarr3" "$libdir/libnczarr_rs.so" > "$out/zarr3.log" 2>&1; then
    ok "zarr3: $(grep -c '^ok' "$out/zarr3.log") checks: zarr-python 3/xarray v3 stores (every netCDF type, codecs, sharding with partial reads, consolidated, implicit groups, fill values) read as zarr-python reads them; our v3 (with nczarr_rs_def_var_shard shards) read by zarr-python, xarray and TensorStore"
else
    bad "zarr3: $(grep -v '^ok' "$out/zarr3.log" | head -20)"
fi

echo "== every codec parameter survives a rewrite (tests/interop/codec_params.py)"
if "$py" "$here/codec_params.py" "$out/codec_params" "$libdir/libnczarr_rs.so" > "$out/codec_params.log" 2>&1; then
    ok "codec_params: $(grep -c '^ok' "$out/codec_params.log") checks: zarr-python's v3 (bytes, transpose, gzip, zstd, blosc, crc32c, sharding, nested, numcodecs.*) and v2 (every numcodecs codec we know) arrays, rewritten by nczarr-rs (a value and an attribute each), keep zarr-python's codec JSON and read back in zarr-python"
else
    bad "codec_params: $(grep -v '^ok' "$out/codec_params.log" | head -20)"
fi

echo "== aggregated variables: CF-1.13, CFA-0.6.2 and CFA-0.4 from cf-python, NCA 0.1 (tests/interop/aggregation.py)"
# cf-python 3.16 (CFA-0.6.2) and 3.13 (CFA-0.4) live in venvs of their own (scripts/setup-deps.sh)
cfa06=$root/target/venv-cfa06/bin/python
cfa04=$root/target/venv-cfa04/bin/python
# the aggregation builder, installed beside the library by the CMake package
tool=$libdir/../bin/nczarr-rs-aggregate
[ -x "$tool" ] || tool=$root/target/release/nczarr-rs-aggregate
if NCZARR_RS_AGGREGATE_TOOL=$tool PYTHON_CFA06=$cfa06 PYTHON_CFA04=$cfa04 "$py" "$here/aggregation.py" "$out/aggregation" "$libdir/libnczarr_rs.so" > "$out/aggregation.log" 2>&1; then
    ok "aggregation: $(grep -c '^ok' "$out/aggregation.log") checks: every value read through our API equals cf-python's (CF-1.13 Zarr v3 and netCDF-4 aggregations with netCDF and Zarr fragments, units, calendars, unique values$([ -x "$cfa06" ] && echo ", CFA-0.6.2")$([ -x "$cfa04" ] && echo ", CFA-0.4")); the seed's NCA examples; raw view; errors; the write API and nczarr-rs-aggregate$(grep '^skip' "$out/aggregation.log" | sed 's/^/; /')"
else
    bad "aggregation: $(grep -v '^ok' "$out/aggregation.log" | head -20)"
fi

echo "== writer x reader matrix (tests/interop/matrix.py)"
if "$py" "$here/matrix.py" "$out/matrix" "$out" > "$out/matrix.md" 2> "$out/matrix.log"; then
    ok "the writer x reader matrix is as documented ($out/matrix.md)"
else
    bad "the writer x reader matrix: $(grep FAIL "$out/matrix.md" "$out/matrix.log" | head -20)"
fi
cat "$out/matrix.md"

echo "interop: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
