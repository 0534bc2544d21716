#!/usr/bin/env bash
# Builds what `npm test` and `npm start` need, one stage at a time, each said with its time:
#
#   bash scripts/build.sh           everything `npm test` needs: the native core and its GoogleTest, the two
#                                   WASM modules (SIMD and baseline) into web/src/core/wasm/, the static page
#                                   into dist/ with its single-file variant, and the page the npm package ships
#                                   into page/ (the same page, taking its .wasm files and glue from the core's
#                                   folder)
#   bash scripts/build.sh --serve   what `npm start` serves: the two WASM modules and the page in dist/ (with
#                                   its single-file variant); no native library, no GoogleTest, no page/
#
# A stage's compiler and bundler output goes to build/logs/<stage>.log; a failure prints the end of it, and
# the warnings a successful stage met are printed after its line.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh

case "${1:-}" in
  '') serve_only=0 ;;
  --serve) serve_only=1 ;;
  *) echo "build: unknown argument '$1' (expected --serve or none)" >&2; exit 2 ;;
esac

mkdir -p build/logs
started=$SECONDS

# stage NAME COMMAND...: runs COMMAND with its output in build/logs/NAME.log and says how long it took.
stage() {
  local name=$1 log
  shift
  log="build/logs/$(echo "$name" | tr -c 'a-zA-Z0-9\n' '-').log"
  local begin=$SECONDS
  echo "build: $name ..."
  if ! "$@" >"$log" 2>&1; then
    echo "build: $name failed after $(( SECONDS - begin )) s; the end of $log:" >&2
    tail -n 40 "$log" >&2
    exit 1
  fi
  echo "build: $name done in $(( SECONDS - begin )) s"
  # A compiler's or bundler's warning is a real problem to see, not to bury in the log.
  grep -iE '(^|[^a-z])warning[: ]' "$log" | sed 's/^/  /' || true
}

# (Each stage's commands chain with &&: `set -e` does not reach inside a function run as a condition.)
native() {
  cmake -S . -B build/native -DCMAKE_BUILD_TYPE=Release && cmake --build build/native -j "$JOBS"
}

# simd | baseline
wasm() {
  local simd
  simd=$([ "$1" = simd ] && echo ON || echo OFF)
  emcmake cmake -S . -B "build/wasm-$1" -DCMAKE_BUILD_TYPE=Release -DAP_WASM_SIMD="$simd" && cmake --build "build/wasm-$1" -j "$JOBS"
}

# The page builds write to their own folders (dist/, build/page-single/, page/) and run side by side: each
# spends much of its time on one thread.
pages() {
  local pids=() status=0 mode
  for mode in "$@"; do
    if [ "$mode" = page ]; then npx vite build --logLevel warn & else npx vite build --mode "$mode" --logLevel warn & fi
    pids+=($!)
  done
  for pid in "${pids[@]}"; do wait "$pid" || status=1; done
  [ "$status" = 0 ] && cp build/page-single/index.html dist/playground-single.html
}

if [ "$serve_only" = 0 ]; then
  stage "native core and tests" native
fi

# On a fresh machine Emscripten has been installing in the background since setup (setup.sh --later).
bash scripts/setup.sh --wait toolchain
stage "WASM module (simd)" wasm simd
stage "WASM module (baseline)" wasm baseline

if [ "$serve_only" = 1 ]; then
  stage "page (dist/, dist/playground-single.html)" pages page single
else
  stage "pages (dist/, dist/playground-single.html, the npm package's page/)" pages page single package
fi
echo "build: done in $(( SECONDS - started )) s"
