#!/usr/bin/env bash
# Packs what a lent GPU machine needs to run the WebGPU runner (bench/dawn/run.mjs) into one folder, .gpupack/
# in the repository root (ignored by git; name it in the device tool's `carry`). The machine has no Node, no
# npm and no network: it gets this machine's Node binary and the npm `webgpu` package's native module (Dawn),
# compressed with xz, the Vulkan loader and glvnd (Debian's libvulkan1, libglvnd0 and libglx0 .debs), and the
# built core (web/src/core/wasm/).
# The runner itself, the bench and web/src are tracked files: they travel with the working tree.
# Then, on the device:  bash scripts/gpu-run.sh   (see bench/README.md, "On a lent GPU").
#
#   bash scripts/pack-gpu.sh     after `npm run build` (the WASM core) and `npm ci` (node_modules/webgpu)
# Prints the folder's size and the whole carry's (working tree + folder), which must stay under 64 MiB.
set -euo pipefail
cd "$(dirname "$0")/.."

pack=.gpupack
limit=$((64 * 1024 * 1024))
node_bin=$(command -v node)
dawn=node_modules/webgpu/dist/linux-x64/dawn.node
for need in "$dawn" web/src/core/wasm/attention-simd.wasm web/src/core/wasm/attention-baseline.wasm node_modules/wasm-feature-detect/package.json; do
  [ -e "$need" ] || { echo "pack-gpu: $need is missing: run npm ci and npm run build first" >&2; exit 1; }
done
[ "$(uname -m)" = x86_64 ] || { echo "pack-gpu: this machine is $(uname -m); the GPU machine is x86-64: pack on x86-64" >&2; exit 1; }

# xz of the Node binary takes minutes: an earlier pack's is kept when the binary is the same.
node_sum=$(sha256sum "$node_bin" | cut -d' ' -f1)
kept=
if [ -f "$pack/node.xz" ] && grep -qx "node-sha256 $node_sum" "$pack/MANIFEST" 2>/dev/null; then
  kept=$(mktemp)
  mv "$pack/node.xz" "$kept"
fi
rm -rf "$pack"
mkdir -p "$pack"
if [ -n "$kept" ]; then
  mv "$kept" "$pack/node.xz"
  echo "pack-gpu: Node $("$node_bin" --version): the earlier pack's node.xz (same binary)"
else
  echo "pack-gpu: Node $("$node_bin" --version) ($node_bin, $(du -h "$node_bin" | cut -f1)) with xz"
  xz -6 -T0 -c "$node_bin" >"$pack/node.xz"
fi
echo "pack-gpu: node_modules/webgpu (Dawn $(node -p "require('./node_modules/webgpu/package.json').version"), linux-x64 only), wasm-feature-detect and the built core"
tar -cJf "$pack/files.tar.xz" \
  node_modules/webgpu/package.json node_modules/webgpu/index.js node_modules/webgpu/LICENSE.md "$dawn" \
  node_modules/wasm-feature-detect web/src/core/wasm
# The Vulkan loader, and glvnd's dispatch libraries that NVIDIA's ICD (libGLX_nvidia.so.0) links, for an
# image without them (scripts/gpu-run.sh uses those only where the machine lacks them).
echo "pack-gpu: the Vulkan loader and glvnd (apt-get download libvulkan1 libglvnd0 libglx0)"
(cd "$pack" && apt-get download -qq -o APT::Sandbox::User=root libvulkan1 libglvnd0 libglx0)
ls "$pack"/libvulkan1_*.deb "$pack"/libglvnd0_*.deb "$pack"/libglx0_*.deb >/dev/null
{
  echo "node $("$node_bin" --version)"
  echo "node-sha256 $node_sum"
  echo "webgpu $(node -p "require('./node_modules/webgpu/package.json').version")"
  echo "libvulkan1 $(dpkg-deb -f "$pack"/libvulkan1_*.deb Version)"
  echo "commit $(git rev-parse HEAD)"
  echo "packed $(date -u +%Y-%m-%dT%H:%M:%SZ)"
} >"$pack/MANIFEST"

# The carry: the working tree that travels (tracked and untracked-not-ignored files, shared/) plus this folder.
tree=$(git ls-files -z --cached --others --exclude-standard | xargs -0 stat -c %s 2>/dev/null | awk '{s += $1} END {print s + 0}')
shared=0
[ -d shared ] && shared=$(du -sb shared | cut -f1)
packed=$(du -sb "$pack" | cut -f1)
total=$((tree + shared + packed))
mib() { awk -v b="$1" 'BEGIN {printf "%.1f MiB", b / 1048576}'; }
ls -l "$pack"
echo "pack-gpu: $pack is $(mib "$packed"); the working tree $(mib $((tree + shared))); the whole carry $(mib "$total") of $(mib "$limit")"
if [ "$total" -gt "$limit" ]; then
  echo "pack-gpu: over the carry limit" >&2
  exit 1
fi
