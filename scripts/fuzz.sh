#!/usr/bin/env bash
# Builds the libFuzzer target (tests/fuzz/fuzz_core.cpp: the core's checks, every teaching step, every
# GEMM variant, the fused attention and the fast multi-head pipeline, under ASan + UBSan) with Debian's
# clang-14 into build/fuzz, and runs it for SECONDS seconds (default 30). Exits non-zero on any finding;
# the crashing input is left in build/fuzz/findings/ (replay: build/fuzz/tests/fuzz/fuzz_core <file>).
# scripts/test.sh builds the sanitized GoogleTest binaries in the same tree, on the same instrumented core.
#
#   bash scripts/fuzz.sh 300
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
seconds="${1:-30}"

cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAP_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null
cmake --build build/fuzz -j "$JOBS" --target fuzz_core

mkdir -p build/fuzz/corpus build/fuzz/findings
echo "fuzz: fuzz_core for ${seconds} s"
# -rss_limit_mb / -malloc_limit_mb: the target draws small shapes, so any large allocation is a finding.
ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
  build/fuzz/tests/fuzz/fuzz_core -max_total_time="$seconds" -max_len=4096 -timeout=20 \
  -rss_limit_mb=2048 -malloc_limit_mb=512 -print_final_stats=1 \
  -artifact_prefix=build/fuzz/findings/ build/fuzz/corpus 2>&1 | tail -n 25
