#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, so `npm start` and `npm test` are all a newcomer types:
# Debian's packages (needs root; apt-get update first) and the npm packages from the lockfile.
set -euo pipefail
cd "$(dirname "$0")/.."

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

missing=()
command -v emcc >/dev/null             || missing+=(emscripten)
[ -f /usr/include/eigen3/Eigen/Core ]  || missing+=(libeigen3-dev)
[ -f /usr/include/nlohmann/json.hpp ]  || missing+=(nlohmann-json3-dev)
[ -f /usr/include/gtest/gtest.h ]      || missing+=(libgtest-dev)
command -v wat2wasm >/dev/null         || missing+=(wabt)
[ -x /usr/bin/chromium ]               || missing+=(chromium)
command -v cmake >/dev/null            || missing+=(cmake)
command -v clang++-14 >/dev/null       || missing+=(clang-14)
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-14-dev)

if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  if [ "$(id -u)" != 0 ]; then
    echo "setup: not root; run: sudo apt-get update && sudo apt-get install -y ${missing[*]}" >&2
    exit 1
  fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi

if [ -n "$npm_pid" ]; then
  trap - EXIT
  wait "$npm_pid" || { echo "setup: npm ci failed" >&2; exit 1; }
fi
