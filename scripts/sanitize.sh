#!/usr/bin/env bash
# Sanitizer runs, on demand (not in scripts/test-all.sh: they rebuild every
# dependency with instrumentation, tens of minutes). Needs a nightly
# toolchain; part tsan also needs rust-src
# (rustup component add rust-src --toolchain nightly).
#
#   scripts/sanitize.sh [rust] [c] [tsan]      (default: rust c)
#
# LeakSanitizer is part of AddressSanitizer on Linux (detect_leaks=1), so
# both ASan parts report leaks too. gcc's runtimes (libasan, libubsan) are
# used; clang's (Debian libclang-rt-14-dev) are not needed.
#
# 1. rust: the crate's own tests (unit and integration, `cargo test`) built
#    with nightly `-Zsanitizer=address` (our code and every dependency's
#    Rust code instrumented; the C codecs zlib, zstd, c-blosc, liblzma are
#    not), LeakSanitizer on at exit of each test binary. The S3 tests run
#    when NCZARR_RS_S3_TEST_URL is set (source scripts/s3-server.sh first),
#    else they say so and pass. Not run: the tests listed in $rust_skip
#    below, with the reason there.
# 2. c: the C tests (ctest/) under AddressSanitizer and
#    UndefinedBehaviorSanitizer. The C programs are built with gcc
#    -fsanitize=address,undefined, which links gcc's ASan runtime
#    (libasan.so) into each of them; libnczarr_rs.so is built with nightly
#    `-Zsanitizer=address`, so its Rust code (and its dependencies', not
#    std's) is instrumented too. A Rust cdylib does not carry the ASan
#    runtime: its __asan_* references resolve, at load time, to the
#    executable's libasan (LLVM's instrumentation and gcc's runtime share
#    the ABI, version check __asan_version_mismatch_check_v8). So no
#    LD_PRELOAD is needed, and heap errors on either side of the C ABI
#    (in the C tests, in our Rust code, in frees across the boundary) are
#    reported, as are leaks at exit (LeakSanitizer). The tests run against
#    this instrumented library through LD_LIBRARY_PATH (their RUNPATH points
#    at the staged, uninstrumented one). Not run here: the two packaging
#    tests (consumer_*), which build their own uninstrumented programs, and
#    test_udf_netcdf_c, which loads the library by its staged path
#    (both pass in the normal CTest run).
# 3. tsan: tests/threads.rs and tests/writers.rs under ThreadSanitizer:
#    `-Zsanitizer=thread` with `-Zbuild-std`, so that std's synchronisation
#    is instrumented too (else TSan reports false races in Arc and the
#    channels). The C codecs are not instrumented; they share no state
#    between threads.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
triple=$(rustc -vV | sed -n 's/^host: //p')
if [ $# -gt 0 ]; then parts=("$@"); else parts=(rust c); fi

if ! cargo +nightly --version >/dev/null 2>&1; then
    echo "sanitize.sh: needs a nightly toolchain (rustup toolchain install nightly)" >&2
    exit 2
fi

# Rust tests not run under ASan, and why:
#  - memory: measures the data path's peak memory with getrusage, which
#    ASan's shadow memory and quarantine make meaningless.
rust_skip=(memory)

# allocator_may_return_null: an allocation that cannot be had returns
# null, as the system allocator does, so that the library's fallible
# allocations (limits::try_reserve and its users, tested with sizes of
# 2^62 bytes) report NC_ENOMEM instead of ASan aborting the process.
asan_options="detect_leaks=1:halt_on_error=1:detect_stack_use_after_return=1:strict_string_checks=1:allocator_may_return_null=1"
# The cc crate instruments the C codecs (zlib, zstd, c-blosc, liblzma) for
# ASan too, with gcc, against rustc's LLVM runtime. gcc's use-after-scope
# marks do not fit that runtime: a function-local static table of zstd
# (zstd_opt.c, getAllMatchesFns) is reported as stack-use-after-scope.
# That one check is turned off for the C code; heap and global checks stay.
export CFLAGS="${CFLAGS:-} -fno-sanitize-address-use-after-scope"

rust() {
    echo "== sanitize: cargo test with -Zsanitizer=address (target/asan)"
    local tests=() t
    for f in tests/*.rs; do
        t=$(basename "$f" .rs)
        [[ " ${rust_skip[*]} " == *" $t "* ]] || tests+=(--test "$t")
    done
    RUSTFLAGS="-Zsanitizer=address" RUSTDOCFLAGS="-Zsanitizer=address" \
    ASAN_OPTIONS="$asan_options" \
        cargo +nightly test --release --locked --target "$triple" --target-dir target/asan \
        --lib "${tests[@]}"
}

c() {
    local stage=$root/target/stage
    if [ ! -e "$stage/lib/cmake/nczarr_rs/nczarr_rsConfig.cmake" ]; then
        echo "== sanitize: staging the package (headers, CMake config) into $stage"
        cmake -S cmake -B target/cmake-pkg -DCMAKE_INSTALL_PREFIX="$stage" -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build target/cmake-pkg
        cmake --install target/cmake-pkg >/dev/null
    fi
    echo "== sanitize: libnczarr_rs with -Zsanitizer=address (target/asan)"
    RUSTFLAGS="-Zsanitizer=address" cargo +nightly build --release --locked --lib \
        --target "$triple" --target-dir target/asan
    mkdir -p target/asan/lib
    ln -sf "../$triple/release/libnczarr_rs.so" target/asan/lib/libnczarr_rs.so.0
    ln -sf libnczarr_rs.so.0 target/asan/lib/libnczarr_rs.so

    echo "== sanitize: the C tests with -fsanitize=address,undefined (target/asan-ctest)"
    local flags="-fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer -g"
    cmake -S ctest -B target/asan-ctest -DCMAKE_PREFIX_PATH="$stage" \
        -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" \
        -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined" >/dev/null
    cmake --build target/asan-ctest
    # the instrumented library is the one the tests load
    LD_LIBRARY_PATH="$root/target/asan/lib" ldd target/asan-ctest/test_nc_data |
        grep -q "$root/target/asan/lib/libnczarr_rs.so.0" || {
        echo "sanitize.sh: the C tests would not load target/asan/lib/libnczarr_rs.so.0" >&2
        exit 1
    }
    # leaks inside Debian's libnetcdf (test_null_args_netcdf_c links only it)
    # are netCDF-C's, not ours
    printf 'leak:libnetcdf.so\n' >target/asan-ctest/lsan.supp
    LD_LIBRARY_PATH="$root/target/asan/lib" \
    LSAN_OPTIONS="suppressions=$root/target/asan-ctest/lsan.supp:print_suppressions=0" \
    ASAN_OPTIONS="$asan_options" \
    UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1" \
        ctest --test-dir target/asan-ctest --output-on-failure \
        -E '^(consumer_find_package|consumer_pkg_config|test_udf_netcdf_c)$'
}

tsan() {
    if [ ! -d "$(rustc +nightly --print sysroot)/lib/rustlib/src/rust/library" ]; then
        echo "sanitize.sh: ThreadSanitizer needs rust-src for -Zbuild-std:" \
             "rustup component add rust-src --toolchain nightly" >&2
        exit 2
    fi
    echo "== sanitize: tests/threads.rs, tests/writers.rs with -Zsanitizer=thread -Zbuild-std (target/tsan)"
    RUSTFLAGS="-Zsanitizer=thread" RUSTDOCFLAGS="-Zsanitizer=thread" \
    TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1" \
        cargo +nightly test -Zbuild-std --release --locked --target "$triple" \
        --target-dir target/tsan --test threads --test writers
}

for p in "${parts[@]}"; do
    case $p in
        rust) rust ;;
        c) c ;;
        tsan) tsan ;;
        *) echo "sanitize.sh: unknown part $p (rust, c, tsan)" >&2; exit 2 ;;
    esac
done
echo "sanitize.sh: ${parts[*]}: no findings"
