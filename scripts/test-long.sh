#!/usr/bin/env bash
# Soak runs, kept out of `npm test` (which must stay within its time budget): the whole Playwright suite
# five times over, so a test that fails one run in many shows itself, then the fuzzers for longer.
# Expects scripts/build.sh to have run (`npm run build`). Each part runs even if one before it failed;
# the exit status says whether all passed.
#   REPEATS=5 FUZZ_SECONDS=300 bash scripts/test-long.sh
set -uo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

REPEATS="${REPEATS:-5}"
FUZZ_SECONDS="${FUZZ_SECONDS:-300}"
status=0

echo "test:long: Playwright, every test ${REPEATS} times (--repeat-each=${REPEATS})"
npx playwright test --repeat-each="${REPEATS}" || status=1

if [ -f scripts/fuzz.sh ]; then
  echo "test:long: fuzzing for ${FUZZ_SECONDS} s (scripts/fuzz.sh)"
  bash scripts/fuzz.sh "${FUZZ_SECONDS}" || status=1
else
  echo "test:long: no scripts/fuzz.sh in this checkout; no fuzzing"
fi

# Long training soaks join here as they land, each a command whose failure sets status=1.

exit "$status"
