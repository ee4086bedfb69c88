#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ (cargo-fuzz, nightly) for N seconds
# each (default 60; hours when run on demand), one after the other:
#
#   scripts/fuzz.sh [seconds] [target...]
#
# Each target starts from its committed seeds (fuzz/seeds/<target>, read
# only) and a working corpus that grows across runs (fuzz/corpus/<target>,
# not committed). A crash, a panic, a sanitizer report (AddressSanitizer is
# on), a leak, an input slower than 30 s or an allocation past 2 GB stops
# that target: the input is saved in fuzz/artifacts/<target>/, the other
# targets still run, and the script fails at the end. To keep a finding:
# copy the input into fuzz/seeds/<target>/ (tests/fuzz_corpus.rs replays it
# on stable) and add a regression test to tests/fuzz_findings.rs. Replay one:
#   cargo +nightly fuzz run <target> fuzz/artifacts/<target>/<file>
# Coverage of a corpus: cargo +nightly fuzz coverage <target> fuzz/corpus/<target>
#
# Logs: target/fuzz-logs/<target>.log; the last line per target (libFuzzer's
# "DONE" line: executions, cov: edges, ft: features, corp: corpus size) is
# printed at the end. Extra libFuzzer flags: NCZARR_RS_FUZZ_FLAGS.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-60}
if [ $# -gt 0 ]; then shift; fi
if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
    echo "fuzz.sh: needs a nightly toolchain and cargo-fuzz (cargo install cargo-fuzz)" >&2
    exit 2
fi
if [ $# -gt 0 ]; then targets=("$@"); else mapfile -t targets < <(cargo +nightly fuzz list); fi

logs=target/fuzz-logs
mkdir -p "$logs"
echo "fuzz.sh: building the targets (cargo +nightly fuzz build)"
cargo +nightly fuzz build

failed=()
for t in "${targets[@]}"; do
    mkdir -p "fuzz/corpus/$t"
    echo "fuzz.sh: $t for ${seconds}s"
    # shellcheck disable=SC2086
    if ! cargo +nightly fuzz run "$t" "fuzz/corpus/$t" "fuzz/seeds/$t" -- \
        -max_total_time="$seconds" -timeout=30 -rss_limit_mb=2048 -print_final_stats=1 \
        ${NCZARR_RS_FUZZ_FLAGS:-} >"$logs/$t.log" 2>&1; then
        failed+=("$t")
        echo "fuzz.sh: $t FAILED; see $logs/$t.log and fuzz/artifacts/$t/" >&2
        grep -E "panicked at|ERROR: (AddressSanitizer|libFuzzer|LeakSanitizer)|SUMMARY" "$logs/$t.log" | head -5 >&2 || true
    fi
done

echo "fuzz.sh: summary (${seconds}s per target)"
for t in "${targets[@]}"; do
    done_line=$(grep -E "^#[0-9]+[[:space:]]+DONE" "$logs/$t.log" | tail -1 || true)
    runs=$(grep -E "^stat::number_of_executed_units" "$logs/$t.log" | awk '{print $2}' || true)
    printf '  %-9s %s (executions: %s)\n' "$t" "${done_line:-no DONE line}" "${runs:-?}"
done
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: findings in: ${failed[*]}" >&2
    exit 1
fi
