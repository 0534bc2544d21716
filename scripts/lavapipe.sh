#!/usr/bin/env bash
# Mesa's lavapipe (Vulkan on the CPU) for the WebGPU runner in Node (bench/dawn/run.mjs) on a machine
# without a GPU; prints the ICD manifest to hand the runner as VK_DRIVER_FILES.
#
# Debian 12's own lavapipe (mesa-vulkan-drivers 22.3) lacks the descriptor-indexing features Dawn requires
# (Dawn rejects it: "Vulkan shaderUniform*ArrayDynamicIndexing required"); bookworm-backports' Mesa 25 has
# them. Its libvulkan_lvp.so is unpacked into build/lavapipe, beside a manifest that points at it, and the
# system's Vulkan drivers stay as they are (Chromium's WebGPU in the Playwright tests keeps SwiftShader).
# The loader and the libraries lavapipe links (LLVM 15, libdrm, xcb) come with Debian 12's
# mesa-vulkan-drivers, installed here when missing (root; scripts/setup.sh --lavapipe runs this).
set -euo pipefail
cd "$(dirname "$0")/.."

dir=$PWD/build/lavapipe
manifest=$dir/lvp_icd.json
if [ -f "$manifest" ] && [ -f "$dir/version" ]; then
  echo "$manifest"
  exit 0
fi

if ! dpkg -s mesa-vulkan-drivers >/dev/null 2>&1; then
  if [ "$(id -u)" != 0 ]; then
    echo "lavapipe: not root; run: sudo apt-get update && sudo apt-get install -y mesa-vulkan-drivers" >&2
    exit 1
  fi
  echo "lavapipe: installing Debian packages: mesa-vulkan-drivers" >&2
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq -o DPkg::Lock::Timeout=300 mesa-vulkan-drivers >/dev/null
fi

# bookworm-backports through a private source list and package lists: the system's apt sources stay as they are.
mkdir -p "$dir/apt/lists/partial" "$dir/apt/archives/partial"
echo 'deb http://deb.debian.org/debian bookworm-backports main' >"$dir/apt/sources.list"
apt=(-o "Dir::Etc::SourceList=$dir/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$dir/apt/lists"
  -o "Dir::Cache::Archives=$dir/apt/archives" -o APT::Sandbox::User=root)
echo "lavapipe: fetching mesa-vulkan-drivers from bookworm-backports" >&2
apt-get "${apt[@]}" update -qq
version=$(apt-cache "${apt[@]}" policy mesa-vulkan-drivers | awk '/Candidate:/ {print $2}')
rm -f "$dir"/mesa-vulkan-drivers_*.deb
(cd "$dir" && apt-get "${apt[@]}" download -qq "mesa-vulkan-drivers=$version")
rm -rf "$dir/root"
dpkg -x "$dir"/mesa-vulkan-drivers_*.deb "$dir/root"
library=$(find "$dir/root" -name libvulkan_lvp.so | head -1)
[ -n "$library" ] || { echo "lavapipe: no libvulkan_lvp.so in mesa-vulkan-drivers $version" >&2; exit 1; }
# Only lavapipe is wanted: the package's GPU drivers (radeon, intel, …) and the .deb go.
find "$dir/root" -name 'libvulkan_*.so' ! -name libvulkan_lvp.so -delete
api=$(sed -n 's/.*"api_version": *"\([^"]*\)".*/\1/p' "$(find "$dir/root" -name 'lvp_icd*.json' | head -1)")
cat >"$manifest" <<JSON
{
    "ICD": {
        "api_version": "${api:-1.3.0}",
        "library_path": "$library"
    },
    "file_format_version": "1.0.0"
}
JSON
rm -f "$dir"/mesa-vulkan-drivers_*.deb
echo "$version" >"$dir/version"
echo "lavapipe: Mesa $version's lavapipe in $dir" >&2
echo "$manifest"
