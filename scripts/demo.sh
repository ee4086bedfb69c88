#!/usr/bin/env bash
# The demo: builds libnczarr_rs, compiles examples/demo.c against it and runs
# it on the file driver in a fresh temporary directory.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/setup-deps.sh
cargo build --release --locked --quiet
# The library's SONAME is libnczarr_rs.so.0 (the installed layout); give the
# build directory the same name.
ln -sf libnczarr_rs.so target/release/libnczarr_rs.so.0
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cc -std=c99 -Wall -Wextra -Werror -pedantic -Iinclude -o "$tmp/demo" examples/demo.c \
   -Ltarget/release -lnczarr_rs -Wl,-rpath,"$PWD/target/release"
"$tmp/demo" "$tmp"
