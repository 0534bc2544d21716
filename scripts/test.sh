#!/usr/bin/env bash
# Runs every suite: native GoogleTest (plain and under ASan+UBSan), a bounded libFuzzer run, Vitest, Playwright.
# The sanitized GoogleTest binaries and the fuzzer share one clang-14 build of the core (build/fuzz).
# Expects scripts/build.sh to have run; Chromium may still be installing (setup.sh --later), and
# Playwright waits for it.
#
# On two cores the native suites are compile-bound (both cores) while Vitest runs its files in one worker
# (one core), so Vitest runs beside the sanitizer build, its tests and the fuzzer instead of after them; its
# output follows when it ends. Playwright runs alone, last: its pages are the suite's most load-sensitive
# tests. Every stage prints how long it took; the exit status says whether all passed. A failed stage's
# lines that say what failed are repeated at the end, where a CI log's tail shows them.
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

CTEST_FAILURES='^ *[0-9]+ - |tests passed|\[  FAILED  \]|(ERROR|SUMMARY): .*Sanitizer|runtime error'
started=$SECONDS
took() { echo "test: $1 took $(( SECONDS - $2 )) s"; }
status=0
logs=$(mktemp -d "${TMPDIR:-/tmp}/attention-playground-test.XXXXXX")
trap 'rm -rf "$logs"' EXIT
failed=()
# failed_stage NAME LOG PATTERN: remember the stage and the lines of its log (colours dropped) that name what
# failed.
failed_stage() {
  status=1
  failed+=("$1")
  { echo "test: $1 FAILED:"; sed -E 's/\x1b\[[0-9;]*m//g' "$2" | grep -E "$3" | tail -n 40; } >>"$logs/summary"
}

echo "test: native GoogleTest"
stage=$SECONDS
ctest --test-dir build/native --output-on-failure -j "$JOBS" 2>&1 | tee "$logs/native" ||
  failed_stage "native GoogleTest" "$logs/native" "$CTEST_FAILURES"
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
[ "$sanitized_built" = 1 ] || { status=1; failed+=("ASan + UBSan build"); }
took "ASan + UBSan build (GoogleTest and libFuzzer)" "$stage"

echo "test: native GoogleTest under AddressSanitizer + UndefinedBehaviorSanitizer"
stage=$SECONDS
if [ "$sanitized_built" = 1 ]; then
  ctest --test-dir build/fuzz --output-on-failure -j "$JOBS" 2>&1 | tee "$logs/sanitized" ||
    failed_stage "GoogleTest under ASan + UBSan" "$logs/sanitized" "$CTEST_FAILURES"
fi
took "GoogleTest under ASan + UBSan (run)" "$stage"

# Nearly the same inputs on every run (seed 1, no corpus carried over), so a run does not find what the one
# before it missed; npm run test:long explores from random seeds.
echo "test: libFuzzer over the core's checks, steps and kernels (ASan + UBSan), ${FUZZ_RUNS:-16000} inputs from seed 1"
stage=$SECONDS
if [ "$sanitized_built" = 1 ]; then
  bash scripts/fuzz.sh --runs "${FUZZ_RUNS:-16000}" 2>&1 | tee "$logs/fuzz" ||
    failed_stage "libFuzzer" "$logs/fuzz" '^fuzz_core: |(ERROR|SUMMARY): |runtime error|Test unit written|^Base64: '
fi
took "libFuzzer (run)" "$stage"

vitest_status=0
wait "$vitest_pid" || vitest_status=$?
echo "test: Vitest (ran beside the stages above)"
cat "$vitest_log"
[ "$vitest_status" = 0 ] ||
  failed_stage "Vitest" "$vitest_log" '^ *(FAIL|×) |(Test Files|Tests|Errors) .*(failed|error)|Error: '
rm -f "$vitest_log"
took "Vitest (from its start)" "$vitest_started"

echo "test: Playwright"
stage=$SECONDS
# On a fresh machine Chromium has been installing in the background since setup (setup.sh --later).
if bash scripts/setup.sh --wait browser; then
  npx playwright test || { status=1; failed+=("Playwright"); }
else
  status=1
  failed+=("Chromium's install, so Playwright did not run")
fi
took "Playwright" "$stage"

[ -s "$logs/summary" ] && cat "$logs/summary"
if [ "$status" = 0 ]; then
  echo "test: all stages took $(( SECONDS - started )) s; every suite passed"
else
  failed_list=$(printf '%s; ' "${failed[@]}")
  echo "test: all stages took $(( SECONDS - started )) s; FAILED: ${failed_list%; }"
fi
exit "$status"
