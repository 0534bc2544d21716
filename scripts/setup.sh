#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, so `npm start` and `npm test` are all a newcomer types:
# Debian's packages (needs root; apt-get update first) and the npm packages from the lockfile.
#
#   bash scripts/setup.sh            everything, and returns when it is all installed
#   bash scripts/setup.sh --later    returns once the native build's packages are in; the WASM toolchain
#                                    (Emscripten, wabt, clang-14 for the fuzzer) and then Chromium install
#                                    in the background while `npm test` builds and tests what it can
#   bash scripts/setup.sh --serve    only what `npm start` builds and serves: the WASM toolchain (Emscripten,
#                                    wabt, cmake, Eigen) and the npm packages; no GoogleTest, fuzzer or browser
#   bash scripts/setup.sh --wait toolchain|browser
#                                    waits for that background install (scripts/build.sh before the WASM
#                                    builds, scripts/test.sh before Playwright)
#   bash scripts/setup.sh --lavapipe Mesa's Vulkan driver on the CPU for the WebGPU runner in Node
#                                    (scripts/lavapipe.sh; `npm run test:long` only); prints its ICD manifest
#
# On a debootstrapped Debian 12 with g++, cmake, GoogleTest and node (2026-11-24, load 8-12), apt-get took
# 139 s for everything; alone, Emscripten and clang-14 took 88-95 s and Chromium 89-123 s. The native build
# (about 50 s on two cores) runs beside the first and the WASM builds and the native, fuzz and Vitest stages
# beside the second.
set -euo pipefail
cd "$(dirname "$0")/.."

state=build/setup

# Each background group's lock is held until its apt-get ends; its status file then says how it ended.
wait_for() {
  local group=$1 lock=$state/$1.lock started=$SECONDS status
  if [ ! -f "$lock" ]; then
    return 0
  fi
  if ! flock --nonblock "$lock" true; then
    echo "setup: waiting for the background install of the $group (started by scripts/setup.sh --later)"
    flock "$lock" true
    echo "setup: the $group installed after $(( SECONDS - started )) s of waiting"
  fi
  status=$(cat "$state/$group.status" 2>/dev/null || echo missing)
  if [ "$status" != 0 ]; then
    echo "setup: installing the $group failed (status $status); its apt-get output:" >&2
    cat "$state/$group.log" >&2 || true
    exit 1
  fi
  rm -f "$lock"
}

later=0
serve=0
case "${1:-}" in --wait|--lavapipe) ;; *) rm -f "$state"/*.lock "$state"/*.status ;; esac
case "${1:-}" in
  --lavapipe) exec bash scripts/lavapipe.sh ;;
  --serve) serve=1 ;;
  --wait)
    case "${2:-}" in
      toolchain|browser) wait_for "$2"; exit 0 ;;
      *) echo "setup: --wait takes 'toolchain' or 'browser', got '${2:-}'" >&2; exit 2 ;;
    esac ;;
  --later) later=1 ;;
  '') ;;
  *) echo "setup: unknown argument '$1' (expected --later, --serve, --wait toolchain|browser, --lavapipe or none)" >&2; exit 2 ;;
esac

# npm ci when node_modules is missing or older than the lockfile. It needs only node, so it runs beside
# apt-get: both mostly wait on the network and the disk (about 15 s saved on a fresh machine).
npm_pid=
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "setup: installing npm packages"
  npm ci --no-audit --no-fund --loglevel=error &
  npm_pid=$!
  # An early exit (apt-get failing, not root) takes the install down with it.
  trap 'kill "$npm_pid" 2>/dev/null || true' EXIT
fi

native=()      # the native build and its GoogleTest
toolchain=()   # the WASM builds and the sanitizer/fuzzer build
browser=()     # Playwright's browser
[ -f /usr/include/eigen3/Eigen/Core ]  || native+=(libeigen3-dev)
command -v cmake >/dev/null            || native+=(cmake)
command -v emcc >/dev/null             || toolchain+=(emscripten)
command -v wat2wasm >/dev/null         || toolchain+=(wabt)
if [ "$serve" = 0 ]; then
  [ -f /usr/include/nlohmann/json.hpp ]  || native+=(nlohmann-json3-dev)
  [ -f /usr/include/gtest/gtest.h ]      || native+=(libgtest-dev)
  command -v clang++-14 >/dev/null       || toolchain+=(clang-14)
  ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || toolchain+=(libclang-rt-14-dev)
  [ -x /usr/bin/chromium ]               || browser+=(chromium)
fi

install() {
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null
}

if [ $(( ${#native[@]} + ${#toolchain[@]} + ${#browser[@]} )) -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: not root; run: sudo apt-get update && sudo apt-get install -y ${native[*]} ${toolchain[*]} ${browser[*]}" >&2
    exit 1
  fi
  apt-get update -qq
fi

if [ "$later" = 0 ]; then
  everything=("${native[@]}" "${toolchain[@]}" "${browser[@]}")
  if [ ${#everything[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${everything[*]}"
    install "${everything[@]}"
  fi
else
  if [ ${#native[@]} -gt 0 ]; then
    echo "setup: installing Debian packages: ${native[*]}"
    install "${native[@]}"
  fi
  if [ $(( ${#toolchain[@]} + ${#browser[@]} )) -gt 0 ]; then
    echo "setup: installing in the background: ${toolchain[*]} ${browser[*]} (the build and the tests wait for them where they need them)"
    mkdir -p "$state"
    # Both locks are taken here, before this script returns, and held by the background job's copies of
    # the descriptors until each group's apt-get ends: a waiter can never find one free too early.
    exec 8>"$state/toolchain.lock" 9>"$state/browser.lock"
    flock 8
    flock 9
    (
      for group in toolchain browser; do
        status=0
        if [ "$group" = toolchain ]; then packages=("${toolchain[@]}"); else packages=("${browser[@]}"); fi
        if [ ${#packages[@]} -gt 0 ]; then
          DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${packages[@]}" >"$state/$group.log" 2>&1 || status=$?
        fi
        echo "$status" >"$state/$group.status"
        if [ "$group" = toolchain ]; then exec 8>&-; else exec 9>&-; fi
      done
    ) </dev/null >/dev/null 2>&1 &
    exec 8>&- 9>&-
  fi
fi

if [ -n "$npm_pid" ]; then
  trap - EXIT
  wait "$npm_pid" || { echo "setup: npm ci failed" >&2; exit 1; }
fi
