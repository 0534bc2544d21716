#!/usr/bin/env bash
# Runs every suite: native GoogleTest (plain and under ASan+UBSan), a bounded libFuzzer run, Vitest, Playwright.
# Expects scripts/build.sh to have run.
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

sanitized() {
  # Only the test binaries: the kernels' timing harnesses (gemm_harness, …) are not run by ctest.
  cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DAP_SANITIZE=ON >/dev/null &&
    cmake --build build/sanitize -j "$JOBS" --target attention_tests kernels_test &&
    ctest --test-dir build/sanitize --output-on-failure -j "$JOBS"
}
echo "test: native GoogleTest under AddressSanitizer + UndefinedBehaviorSanitizer"
stage=$SECONDS
sanitized || status=1
took "GoogleTest under ASan + UBSan (build and run)" "$stage"

echo "test: libFuzzer over the core's checks, steps and kernels (ASan + UBSan), ${FUZZ_SECONDS:-25} s (npm run test:long: longer)"
stage=$SECONDS
bash scripts/fuzz.sh "${FUZZ_SECONDS:-25}" || status=1
took "libFuzzer (build and run)" "$stage"

vitest_status=0
wait "$vitest_pid" || vitest_status=$?
echo "test: Vitest (ran beside the stages above)"
cat "$vitest_log"
rm -f "$vitest_log"
[ "$vitest_status" = 0 ] || status=1
took "Vitest (from its start)" "$vitest_started"

echo "test: Playwright"
stage=$SECONDS
npx playwright test || status=1
took "Playwright" "$stage"

echo "test: all stages took $(( SECONDS - started )) s; $([ "$status" = 0 ] && echo 'every suite passed' || echo 'a suite FAILED')"
exit "$status"
