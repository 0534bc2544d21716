#!/usr/bin/env bash
# Builds everything `npm test` and `npm start` need: the native core and its tests, the two WASM
# modules (SIMD and baseline) into web/src/core/wasm/, the static page into dist/, and the page the npm
# package ships into page/ (the same page, taking its .wasm files and glue from the core's folder).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

echo "build: native core and tests"
cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/native -j "$JOBS"

# On a fresh machine Emscripten has been installing in the background since setup (setup.sh --later).
bash scripts/setup.sh --wait toolchain
for variant in simd baseline; do
  echo "build: WASM module ($variant)"
  simd=$([ "$variant" = simd ] && echo ON || echo OFF)
  emcmake cmake -S . -B "build/wasm-$variant" -DCMAKE_BUILD_TYPE=Release -DAP_WASM_SIMD="$simd" >/dev/null
  cmake --build "build/wasm-$variant" -j "$JOBS"
done

# The three page builds write to their own folders (dist/, build/page-single/, page/) and run side by side:
# each spends much of its time on one thread.
echo "build: playground page (dist/), the single-file page (dist/playground-single.html), the npm package's page (page/)"
npx vite build --logLevel warn &
page=$!
npx vite build --mode single --logLevel warn &
single=$!
npx vite build --mode package --logLevel warn &
package=$!
status=0
for build in "$page" "$single" "$package"; do wait "$build" || status=1; done
[ "$status" = 0 ] || { echo "build: a page build failed" >&2; exit 1; }
cp build/page-single/index.html dist/playground-single.html
