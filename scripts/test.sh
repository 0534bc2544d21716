#!/usr/bin/env bash
# Runs every suite: native GoogleTest (plain and under ASan+UBSan), a bounded libFuzzer run, Vitest, Playwright.
# The sanitized GoogleTest binaries and the fuzzer share one clang-14 build of the core (build/fuzz).
# Expects scripts/build.sh to have run; Chromium may still be installing (setup.sh --later), and
# Playwright waits for it.
#
# On two cores the native suites are compile-bound (both cores) while Vitest runs its files in one worker
# (one core), so Vitest runs beside the sanitizer build, its tests and the fuzzer instead of after them; its
# output follows when it ends. Playwright runs alone, last: its pages are the suite's most load-sensitive
# tests. Every stage prints how long it took; the exit status says whether all passed.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

started=$SECONDS
took() { echo "test: $1 took $(( SECONDS - $2 )) s"; }
status=0

echo "test: native GoogleTest"
stage=$SECONDS
ctest --test-dir build/native --output-on-failure -j "$JOBS" || status=1
took "native GoogleTest" "$stage"

# Vitest's output goes to a file while the native stages print theirs.
vitest_log=$(mktemp "${TMPDIR:-/tmp}/attention-playground-vitest.XXXXXX")
vitest_started=$SECONDS
npx vitest run </dev/null >"$vitest_log" 2>&1 &
vitest_pid=$!
echo "test: Vitest started beside the sanitizer and fuzzer stages (pid $vitest_pid; its output follows when it ends)"

# One tree, build/fuzz (clang-14): the core and the kernels are compiled once under ASan + UBSan with the
# fuzzer's coverage, and linked into both the GoogleTest binaries and the libFuzzer target (only the test
# binaries and the fuzzer: the kernels' timing harnesses are not run by ctest).
echo "test: one ASan + UBSan build (clang-14) of the GoogleTest binaries and the libFuzzer target"
stage=$SECONDS
sanitized_built=0
bash scripts/setup.sh --wait toolchain &&
  cmake -S . -B build/fuzz -DCMAKE_BUILD_TYPE=RelWithDebInfo -DAP_FUZZ=ON -DCMAKE_CXX_COMPILER=clang++-14 >/dev/null &&
  cmake --build build/fuzz -j "$JOBS" --target attention_tests kernels_test fuzz_core && sanitized_built=1
[ "$sanitized_built" = 1 ] || status=1
took "ASan + UBSan build (GoogleTest and libFuzzer)" "$stage"

echo "test: native GoogleTest under AddressSanitizer + UndefinedBehaviorSanitizer"
stage=$SECONDS
if [ "$sanitized_built" = 1 ]; then
  ctest --test-dir build/fuzz --output-on-failure -j "$JOBS" || status=1
fi
took "GoogleTest under ASan + UBSan (run)" "$stage"

echo "test: libFuzzer over the core's checks, steps and kernels (ASan + UBSan), ${FUZZ_SECONDS:-25} s (npm run test:long: longer)"
stage=$SECONDS
if [ "$sanitized_built" = 1 ]; then
  bash scripts/fuzz.sh "${FUZZ_SECONDS:-25}" || status=1
fi
took "libFuzzer (run)" "$stage"

vitest_status=0
wait "$vitest_pid" || vitest_status=$?
echo "test: Vitest (ran beside the stages above)"
cat "$vitest_log"
rm -f "$vitest_log"
[ "$vitest_status" = 0 ] || status=1
took "Vitest (from its start)" "$vitest_started"

echo "test: Playwright"
stage=$SECONDS
# On a fresh machine Chromium has been installing in the background since setup (setup.sh --later).
if bash scripts/setup.sh --wait browser; then
  npx playwright test || status=1
else
  status=1
fi
took "Playwright" "$stage"

echo "test: all stages took $(( SECONDS - started )) s; $([ "$status" = 0 ] && echo 'every suite passed' || echo 'a suite FAILED')"
exit "$status"
