#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/fuzz_core.cpp: the core's checks, every teaching step, every
# GEMM variant, the fused attention and the fast multi-head pipeline, under ASan + UBSan) with Debian's
# clang-14 into build/fuzz, and runs it. Exits non-zero on any finding; the crashing input is left in
# build/fuzz/findings/ (replay: build/fuzz/tests/fuzz/fuzz_core <file>). Every run first replays the inputs
# of earlier findings, tests/fuzz/regressions/ (copy a fixed finding's file there).
# scripts/test.sh builds the sanitized GoogleTest binaries in the same tree, on the same instrumented core.
#
#   bash scripts/fuzz.sh 300            explore for 300 s from a random seed, growing build/fuzz/corpus
#   bash scripts/fuzz.sh --runs 16000   16,000 inputs from seed 1 and an empty corpus (npm test's run):
#                                       nearly the same inputs every time (coverage that depends on
#                                       addresses varies a little)
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAP_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build build/fuzz -j "$JOBS" --target fuzz_core

mkdir -p build/fuzz/corpus build/fuzz/findings
log=$(mktemp "${TMPDIR:-/tmp}/fuzz_core.XXXXXX")
trap 'rm -rf "$log" ${fresh_corpus:+"$fresh_corpus"}' EXIT
if [ "${1:-}" = "--runs" ]; then
  runs="${2:?fuzz.sh --runs needs a count}"
  fresh_corpus=$(mktemp -d "${TMPDIR:-/tmp}/fuzz_corpus.XXXXXX")
  echo "fuzz: fuzz_core, ${runs} inputs from seed 1"
  # A slow machine stops at the time cap, having run fewer of them.
  mode=(-seed=1 -runs="$runs" -max_total_time=180 "$fresh_corpus")
else
  seconds="${1:-30}"
  echo "fuzz: fuzz_core for ${seconds} s"
  mode=(-max_total_time="$seconds" build/fuzz/corpus)
fi
# -rss_limit_mb / -malloc_limit_mb: the target draws small shapes, so any large allocation is a finding.
fuzz_core() {
  ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    build/fuzz/tests/fuzz/fuzz_core -max_len=4096 -timeout=20 -rss_limit_mb=2048 -malloc_limit_mb=512 \
    -print_final_stats=1 -artifact_prefix=build/fuzz/findings/ "$@" >>"$log" 2>&1
}
status=0
# Earlier findings first, each input once (none: nothing to replay), then the search.
shopt -s nullglob
regressions=(tests/fuzz/regressions/*)
{ [ "${#regressions[@]}" = 0 ] || fuzz_core "${regressions[@]}"; } && fuzz_core "${mode[@]}" || status=$?
# A finding's own words (the harness's "fuzz_core: …" line) come before its stack trace, above the tail.
grep '^fuzz_core: ' "$log" || true
tail -n 25 "$log"
exit "$status"
