// WebGPU in Node through Dawn (the npm `webgpu` package): the `navigator.gpu` and the GPU* globals a page
// has, installed on globalThis, so that the project's own modules (web/src/core/backends/webgpu.js, the
// trainer) run unchanged. Also what Dawn sees on this machine, for the runner's first report.
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';

/** The Dawn backend to ask for: Vulkan on Linux (the one Dawn builds there), null elsewhere (Dawn's choice). */
export const LINUX_BACKEND = 'vulkan';

let installed = null;

/**
 * Loads dawn.node and sets globalThis.navigator ({gpu, userAgent, hardwareConcurrency}) and the GPU*
 * constants (GPUBufferUsage, GPUMapMode, …) as the package documents. `flags` are Dawn's `create()` options
 * ('backend=vulkan', 'enable-dawn-features=…').
 * @param {{flags?: string[]}} [options]
 * @returns {Promise<{gpu: GPU, flags: string[], version: string}>}
 */
export async function installDawn({ flags = process.platform === 'linux' ? [`backend=${LINUX_BACKEND}`] : [] } = {}) {
  if (installed) return installed;
  const { create, globals } = await import('webgpu');
  Object.assign(globalThis, globals);
  const gpu = create(flags);
  // Node 20 has no navigator; a newer Node's has no gpu. The engine's name stands where a browser's would.
  const base = globalThis.navigator ?? {};
  Object.defineProperty(globalThis, 'navigator', {
    value: Object.assign(Object.create(base), { gpu, userAgent: `Node.js ${process.version} + Dawn (npm webgpu ${packageVersion()})`, hardwareConcurrency: cpus().length }),
    configurable: true, writable: true,
  });
  installed = { gpu, flags, version: packageVersion() };
  return installed;
}

/** Drops the reference to Dawn's GPU object: while it lives, Node does not exit (the package's README). */
export function uninstallDawn() {
  if (globalThis.navigator?.gpu) delete globalThis.navigator.gpu;
  installed = null;
}

function packageVersion() {
  try {
    return JSON.parse(readFileSync(new URL('../../node_modules/webgpu/package.json', import.meta.url), 'utf8')).version;
  } catch {
    return 'unknown';
  }
}

/**
 * The adapters Dawn can see, by backend, from its own list: create(['adapter=<no such name>']) makes
 * requestAdapter() throw "no suitable backends found / Available adapters: * backend: 'vulkan', name: '…'".
 * @returns {Promise<{adapters: {backend: string, name: string}[], text: string}>}
 */
export async function listDawnAdapters() {
  const { create } = await import('webgpu');
  const gpu = create(['adapter=attention-playground-lists-the-adapters']);
  let text = '';
  try {
    const adapter = await gpu.requestAdapter();
    text = adapter ? 'requestAdapter() answered an adapter for a name no adapter has' : 'requestAdapter() returned null';
  } catch (error) {
    text = String(error?.message ?? error);
  }
  const adapters = [...text.matchAll(/backend: '([^']+)', name: '([^']+)'/g)].map(([, backend, name]) => ({ backend, name }));
  return { adapters, text };
}

/** Whether the loader can open an ICD's library: a path (absolute, or relative to its manifest), or a name the linker finds. */
function libraryFound(library, manifest) {
  if (!library) return false;
  if (library.includes('/')) return existsSync(library.startsWith('/') ? library : join(manifest, '..', library));
  for (const dir of (process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)) if (existsSync(join(dir, library))) return true;
  try {
    return execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }).includes(library);
  } catch {
    return false;
  }
}

const ICD_DIRS = ['/etc/vulkan/icd.d', '/usr/share/vulkan/icd.d', '/usr/local/share/vulkan/icd.d', '/usr/local/nvidia/share/vulkan/icd.d'];

/**
 * What this machine offers Vulkan: the loader (libvulkan.so.1 in the linker's cache or on LD_LIBRARY_PATH),
 * the ICD manifests (those VK_DRIVER_FILES / VK_ICD_FILENAMES name, else the standard folders) and the
 * NVIDIA driver's files, each with whether its library resolves.
 */
export function vulkanReport() {
  const report = { loader: [], icds: [], env: {}, nvidia: {} };
  for (const name of ['VK_DRIVER_FILES', 'VK_ICD_FILENAMES', 'VK_ADD_DRIVER_FILES', 'LD_LIBRARY_PATH', 'XDG_RUNTIME_DIR']) {
    if (process.env[name]) report.env[name] = process.env[name];
  }
  try {
    report.loader = execFileSync('/sbin/ldconfig', ['-p'], { encoding: 'utf8' }).split('\n').filter((line) => /libvulkan\.so/.test(line)).map((line) => line.trim());
  } catch (error) {
    report.loader = [`ldconfig -p failed: ${error.message}`];
  }
  for (const dir of (process.env.LD_LIBRARY_PATH ?? '').split(':').filter(Boolean)) {
    if (existsSync(join(dir, 'libvulkan.so.1'))) report.loader.push(`${join(dir, 'libvulkan.so.1')} (LD_LIBRARY_PATH)`);
  }
  const named = (process.env.VK_DRIVER_FILES ?? process.env.VK_ICD_FILENAMES ?? '').split(':').filter(Boolean);
  const manifests = named.length ? named : ICD_DIRS.flatMap((dir) => (existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.json')).map((f) => join(dir, f)) : []));
    for (const file of manifests) {
    try {
      const manifest = JSON.parse(readFileSync(file, 'utf8'));
      const library = manifest.ICD?.library_path;
      report.icds.push({ file, library, apiVersion: manifest.ICD?.api_version, libraryFound: libraryFound(library, file) });
    } catch (error) {
      report.icds.push({ file, error: error.message });
    }
  }
  for (const file of ['/proc/driver/nvidia/version', '/usr/local/nvidia/share/vulkan/icd.d/nvidia_icd.json']) {
    if (existsSync(file)) report.nvidia[file] = readFileSync(file, 'utf8').trim().split('\n')[0];
  }
  try {
    report.nvidia.smi = execFileSync('nvidia-smi', ['--query-gpu=name,driver_version,memory.total', '--format=csv,noheader'], { encoding: 'utf8', timeout: 10000 }).trim();
  } catch {
    // no NVIDIA driver here: the report says so by the key's absence
  }
  return report;
}
