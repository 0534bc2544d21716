#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks, so `npm start` and `npm test` are all a newcomer types:
# Debian's packages (needs root; apt-get update first) and the npm packages from the lockfile.
#
#   bash scripts/setup.sh                  everything, and returns when it is installed
#   bash scripts/setup.sh --browser-later  returns once the build's tools are in; Chromium installs in the
#                                          background while `npm test` builds and runs its first stages
#   bash scripts/setup.sh --wait-browser   waits for that background install (scripts/test.sh, before Playwright)
#
# On a fresh machine of this kind apt-get took 139 s, about half of it Chromium (123 s alone at load 12,
# 2026-11-24, in a debootstrapped Debian 12): only Playwright needs it, so `npm test` does not wait for it.
set -euo pipefail
cd "$(dirname "$0")/.."

state=build/setup
browser_lock=$state/chromium.lock

# The background install's outcome: its lock is held until apt-get ends, then its status file says how.
wait_for_browser() {
  if [ ! -f "$browser_lock" ]; then
    [ -x /usr/bin/chromium ] && return 0
    echo "setup: /usr/bin/chromium is missing; run: bash scripts/setup.sh" >&2
    exit 1
  fi
  local started=$SECONDS
  if ! flock --nonblock "$browser_lock" true; then
    echo "setup: waiting for Chromium's install (started by scripts/setup.sh --browser-later)"
    flock "$browser_lock" true
    echo "setup: Chromium installed after $(( SECONDS - started )) s of waiting"
  fi
  local status
  status=$(cat "$state/chromium.status" 2>/dev/null || echo missing)
  rm -f "$browser_lock"
  if [ "$status" != 0 ]; then
    echo "setup: installing chromium failed (status $status); its apt-get output:" >&2
    cat "$state/chromium.log" >&2 || true
    exit 1
  fi
}

case "${1:-}" in
  --wait-browser) wait_for_browser; exit 0 ;;
  --browser-later) browser_later=1 ;;
  '') browser_later=0 ;;
  *) echo "setup: unknown argument '$1' (expected --browser-later, --wait-browser or none)" >&2; exit 2 ;;
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

missing=()
command -v emcc >/dev/null             || missing+=(emscripten)
[ -f /usr/include/eigen3/Eigen/Core ]  || missing+=(libeigen3-dev)
[ -f /usr/include/nlohmann/json.hpp ]  || missing+=(nlohmann-json3-dev)
[ -f /usr/include/gtest/gtest.h ]      || missing+=(libgtest-dev)
command -v wat2wasm >/dev/null         || missing+=(wabt)
command -v cmake >/dev/null            || missing+=(cmake)
command -v clang++-14 >/dev/null       || missing+=(clang-14)
ls /usr/lib/llvm-14/lib/clang/*/lib/linux/libclang_rt.fuzzer-x86_64.a >/dev/null 2>&1 || missing+=(libclang-rt-14-dev)
browser=()
[ -x /usr/bin/chromium ]               || browser=(chromium)

if [ $(( ${#missing[@]} + ${#browser[@]} )) -gt 0 ]; then
  if [ "$(id -u)" != 0 ]; then
    echo "setup: not root; run: sudo apt-get update && sudo apt-get install -y ${missing[*]} ${browser[*]}" >&2
    exit 1
  fi
  apt-get update -qq
fi
if [ ${#missing[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: ${missing[*]}"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
if [ ${#browser[@]} -gt 0 ] && [ "$browser_later" = 1 ]; then
  echo "setup: installing chromium in the background (scripts/test.sh waits for it before Playwright)"
  mkdir -p "$state"
  rm -f "$state/chromium.status"
  # The lock is taken here, before this script returns, and held by the background job's copy of the
  # descriptor until apt-get ends: a waiter can never find it free too early.
  exec 9>"$browser_lock"
  flock 9
  (
    status=0
    DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >"$state/chromium.log" 2>&1 || status=$?
    echo "$status" >"$state/chromium.status"
  ) </dev/null >/dev/null 2>&1 &
  exec 9>&-
elif [ ${#browser[@]} -gt 0 ]; then
  echo "setup: installing Debian packages: chromium"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi

if [ -n "$npm_pid" ]; then
  trap - EXIT
  wait "$npm_pid" || { echo "setup: npm ci failed" >&2; exit 1; }
fi
