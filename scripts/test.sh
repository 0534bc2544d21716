#!/usr/bin/env bash
# Runs every suite: native GoogleTest (plain and under ASan+UBSan), a bounded libFuzzer run, Vitest, Playwright.
# Expects scripts/build.sh to have run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

echo "test: native GoogleTest"
ctest --test-dir build/native --output-on-failure -j "$JOBS"

echo "test: native GoogleTest under AddressSanitizer + UndefinedBehaviorSanitizer"
cmake -S . -B build/sanitize -DCMAKE_BUILD_TYPE=Debug -DAP_SANITIZE=ON >/dev/null
cmake --build build/sanitize -j "$JOBS"
ctest --test-dir build/sanitize --output-on-failure -j "$JOBS"

echo "test: libFuzzer over the core's checks, steps and kernels (ASan + UBSan), 25 s (npm run test:long: longer)"
bash scripts/fuzz.sh "${FUZZ_SECONDS:-25}"

echo "test: Vitest"
npx vitest run

echo "test: Playwright"
npx playwright test
