#!/bin/sh
# Builds an MPI test with nothing but a C compiler and pkg-config, then runs
# it with the MPI launcher. Usage: pkgconfig_par.sh CC SOURCE OUTPUT SCRATCH
# LAUNCHER... (PKG_CONFIG_PATH names the installed lib/pkgconfig directory).
set -eu
cc=$1 src=$2 out=$3 scratch=$4
shift 4
pc=${PKG_CONFIG:-pkg-config}
test "$($pc --variable=has_mpi nczarr_rs)" = ON
libdir=$($pc --variable=libdir nczarr_rs)
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic -o "$out" "$src" $($pc --cflags --libs nczarr_rs) -Wl,-rpath,"$libdir"
"$@" "$out" "$scratch" dir
