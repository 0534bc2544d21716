#!/usr/bin/env bash
# Rehearses the lent GPU machine's run here: copies the working tree that would travel (tracked and
# untracked-not-ignored files) and .gpupack/ (scripts/pack-gpu.sh) into a temporary folder with no
# node_modules, no build outputs and no Node on PATH, and runs scripts/gpu-run.sh there on lavapipe
# (scripts/lavapipe.sh) with the emulated size set. What it proves: the pack unpacks and the runner runs
# from the pack alone; not that a GPU driver works.
#   bash scripts/pack-gpu-check.sh
set -euo pipefail
cd "$(dirname "$0")/.."
[ -d .gpupack ] || { echo "pack-gpu-check: no .gpupack: run scripts/pack-gpu.sh first" >&2; exit 1; }
manifest=$(bash scripts/lavapipe.sh)
rehearsal=$(mktemp -d "${TMPDIR:-/tmp}/gpu-rehearsal.XXXXXX")
mkdir -p "$rehearsal/repo" "$rehearsal/out" "$rehearsal/bin"
git ls-files -z --cached --others --exclude-standard | xargs -0 cp --parents -t "$rehearsal/repo" 2>/dev/null || true
cp -r .gpupack "$rehearsal/repo/"
# A PATH with the tools the device image has (shell, tar, xz, dpkg-deb, coreutils) and no node.
for tool in bash sh env cat tee tar xz dpkg-deb ar find head grep sed awk tr mktemp mkdir chmod rm dirname uname ldconfig ls python3; do
  path=$(command -v "$tool" || true)
  [ -n "$path" ] && ln -s "$path" "$rehearsal/bin/$tool"
done
echo "pack-gpu-check: rehearsing in $rehearsal (no node on PATH: $(PATH=$rehearsal/bin command -v node || echo none))"
started=$SECONDS
status=0
env -i PATH="$rehearsal/bin" HOME="$rehearsal" OUT="$rehearsal/out" TMPDIR="$rehearsal" VK_DRIVER_FILES="$manifest" GPU_RUN_CARRIED_GLVND=1 \
  bash "$rehearsal/repo/scripts/gpu-run.sh" --set=emulated || status=$?
echo "pack-gpu-check: gpu-run.sh exited $status after $((SECONDS - started)) s; \$OUT ($rehearsal/out) held: $(ls "$rehearsal/out" | tr '\n' ' ')"
rm -rf "$rehearsal/repo" "$rehearsal/bin"
exit "$status"
