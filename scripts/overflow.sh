#!/usr/bin/env bash
# The crate's tests once more with arithmetic overflow checked, on demand
# (not in scripts/test-all.sh: the profile is a second build of every
# dependency, about 10 minutes on 2 cores, which CI's 40-minute budget no
# longer holds). Profile `overflow` of Cargo.toml: overflow-checks and
# debug assertions, this crate at opt-level 1. A size or offset
# computation that wraps panics there, and, caught at the C boundary,
# aborts the run (NCZARR_RS_PANIC_ABORT). The S3 tests run when
# NCZARR_RS_S3_TEST_URL is set (source scripts/s3-server.sh first).
#
#   scripts/overflow.sh [cargo test arguments...]
set -euo pipefail
cd "$(dirname "$0")/.."
export NCZARR_RS_PANIC_ABORT=1
NCZARR_RS_FUZZ_SECONDS=${NCZARR_RS_FUZZ_SECONDS:-5} exec cargo test --profile overflow --locked "$@"
