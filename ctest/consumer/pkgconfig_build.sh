#!/bin/sh
# Builds consumer/main.c with nothing but a C compiler and pkg-config, then
# runs it. Usage: pkgconfig_build.sh CC SOURCE OUTPUT SCRATCH
# PKG_CONFIG_PATH must name the installed lib/pkgconfig directory.
set -eu
cc=$1 src=$2 out=$3 scratch=$4
pc=${PKG_CONFIG:-pkg-config}
libdir=$($pc --variable=libdir nczarr_rs)
# shellcheck disable=SC2046
"$cc" -std=c99 -Wall -Wextra -Werror -pedantic -o "$out" "$src" $($pc --cflags --libs nczarr_rs) -Wl,-rpath,"$libdir"
mkdir -p "$scratch"
"$out" "$scratch"
