#!/usr/bin/env bash
# Soak runs, kept out of `npm test` (which must stay within its time budget): the whole Playwright suite
# five times over, so a test that fails one run in many shows itself, then the fuzzer for longer, then the
# trainer's long runs, then the WebGPU backend and trainer in Node on Dawn over lavapipe (Mesa's Vulkan on
# the CPU): the checks and the benchmark's small sizes, CPU-emulated (bench/dawn/run.mjs), then the shipped
# English model retrained from its seed.
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
if bash scripts/setup.sh --wait browser; then
  npx playwright test --repeat-each="${REPEATS}" || status=1
else
  status=1
fi

echo "test:long: fuzzing for ${FUZZ_SECONDS} s (scripts/fuzz.sh)"
bash scripts/fuzz.sh "${FUZZ_SECONDS}" || status=1

echo "test:long: the trainer's soaks (tests/long: the WASM heap stays flat over 1,000 training steps)"
npx vitest run --config tests/long/vitest.config.js || status=1

echo "test:long: the WebGPU runner in Node (Dawn) on lavapipe, CPU-emulated sizes (bench/dawn/run.mjs --set=emulated)"
stage=$SECONDS
if manifest=$(bash scripts/setup.sh --lavapipe); then
  # Results go to build/: bench/results/gpu-lavapipe.* are committed from a quiet run.
  VK_DRIVER_FILES=$manifest XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$(mktemp -d)} \
    node bench/dawn/run.mjs --set=emulated --out=build/dawn-results || status=1
else
  status=1
fi
echo "test:long: the WebGPU runner on lavapipe took $(( SECONDS - stage )) s"

echo "test:long: the shipped English model trained again from its seed (scripts/train-model.mjs --check: its tensors and figures, bit for bit)"
nice node scripts/train-model.mjs --check || status=1

exit "$status"
