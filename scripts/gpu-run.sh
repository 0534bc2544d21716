#!/usr/bin/env bash
# On a lent GPU machine (no Node, no network), in the repository root with .gpupack/ carried
# (scripts/pack-gpu.sh made it): unpacks Node, Dawn, the Vulkan loader and the built core, says what the
# machine offers, and runs the WebGPU runner (bench/dawn/run.mjs: checks, then GPU rows beside our WASM one
# thread on this machine's CPU). Results go to $OUT (the device tool's folder; else build/gpu-out):
# gpu-<adapter>.json, .md and run.log. Nothing outside this folder, a temporary one and $OUT is written.
#   bash scripts/gpu-run.sh [runner arguments, e.g. --set=emulated]
# GPU_RUN_CARRIED_GLVND=1 uses the carried glvnd even where the machine has its own (the rehearsal does).
set -uo pipefail
cd "$(dirname "$0")/.."
pack=$PWD/.gpupack
out=${OUT:-$PWD/build/gpu-out}
mkdir -p "$out"
work=$(mktemp -d "${TMPDIR:-/tmp}/gpu-run.XXXXXX")
log=$out/run.log
say() { echo "gpu-run: $*" | tee -a "$log"; }
[ -d "$pack" ] || { say "no $pack: run scripts/pack-gpu.sh where the project builds, and carry .gpupack"; exit 1; }
cat "$pack/MANIFEST" | tee -a "$log"

unxz() {  # xz where the machine has it, else Python's lzma
  if command -v xz >/dev/null; then xz -dc "$1"; else python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), sys.stdout.buffer)' "$1"; fi
}
started=$SECONDS
unxz "$pack/node.xz" >"$work/node" && chmod +x "$work/node"
unxz "$pack/files.tar.xz" | tar -x -C .
unpack_deb() {  # dpkg-deb where the machine has it, else ar + tar
  if command -v dpkg-deb >/dev/null; then dpkg-deb -x "$1" "$2"
  else (mkdir -p "$2" && cd "$work" && ar x "$1" data.tar.xz && unxz data.tar.xz | tar -x -C "$2" && rm -f data.tar.xz); fi
}
unpack_deb "$pack"/libvulkan1_*.deb "$work/vulkan"
loader_dir=$(dirname "$(find "$work/vulkan" -name 'libvulkan.so.1' | head -1)")
# The carried loader first; the driver's own libraries (libGLX_nvidia…, which NVIDIA's ICD names without a
# path) stay where the machine has them, its folders added in case the linker's cache lacks them, and
# glvnd's (which libGLX_nvidia links) from the pack only where the machine has none.
driver_dirs=
for dir in /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do [ -d "$dir" ] && driver_dirs=$driver_dirs:$dir; done
if [ -n "${GPU_RUN_CARRIED_GLVND:-}" ] || ! ldconfig -p 2>/dev/null | grep -q 'libGLdispatch.so.0'; then
  for deb in "$pack"/libglvnd0_*.deb "$pack"/libglx0_*.deb; do unpack_deb "$deb" "$work/glvnd"; done
  driver_dirs=$driver_dirs:$(dirname "$(find "$work/glvnd" -name 'libGLdispatch.so.0' | head -1)")
fi
export LD_LIBRARY_PATH=$loader_dir$driver_dirs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nvidia_icd=/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json
if [ -z "${VK_DRIVER_FILES:-}" ] && [ -f "$nvidia_icd" ]; then export VK_DRIVER_FILES=$nvidia_icd; fi
export XDG_RUNTIME_DIR=${XDG_RUNTIME_DIR:-$work}
say "unpacked in $((SECONDS - started)) s: $("$work/node" --version), loader $loader_dir/libvulkan.so.1"

say "what the machine offers:"
{
  uname -a
  nvidia-smi -L 2>&1 || echo "nvidia-smi: not here"
  echo "ldconfig: $(ldconfig -p 2>/dev/null | grep -c 'libvulkan\|libGLX_nvidia\|libnvidia') libvulkan/NVIDIA entries"; ldconfig -p 2>/dev/null | grep -E 'libvulkan|libGLX_nvidia|libnvidia-glvkspirv' | head
  for dir in /etc/vulkan/icd.d /usr/share/vulkan/icd.d /usr/local/share/vulkan/icd.d /usr/local/nvidia/share/vulkan/icd.d; do
    [ -d "$dir" ] && for f in "$dir"/*.json; do [ -f "$f" ] && echo "ICD $f: $(tr -d ' \n' <"$f")"; done
  done
  echo "VK_DRIVER_FILES=${VK_DRIVER_FILES:-} LD_LIBRARY_PATH=$LD_LIBRARY_PATH"
} 2>&1 | tee -a "$log"

"$work/node" bench/dawn/run.mjs --out="$out" "$@" 2>&1 | grep -v 'artificially reduced' | tee -a "$log"
status=${PIPESTATUS[0]}
say "runner exit status $status (0 every check passed, 1 a check or row failed, 2 no adapter); results in $out"
rm -rf "$work"
exit "$status"
