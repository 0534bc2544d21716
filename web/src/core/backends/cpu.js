// The CPU side of every backend but 'js': a WASM build of the core, else the JS reference where the caller
// allows it, and the worker pool loadAttention's `threads` asks for. Modules are imported on demand, so a
// page that only uses the JS reference never loads WebAssembly.
import { resolveThreads } from './thread-plan.js';
import { startWorkerPool } from './worker-pool.js';

const reasonOf = (error) => (error instanceof Error ? error.message : String(error));

/**
 * The CPU side: the WASM build `build`, else (where `reasons` is an array: why the backend asked for was not
 * used) the JS reference. With `threads`, the worker pool settings.threads asks for (backends/threads.js), or
 * one thread with the reason: threads 1, 'auto' on a page that is not cross-origin isolated, no Worker
 * (Node), workers that cannot start (file://, CSP, a module that fails to load). The fallback to one thread
 * is silent: the caller reads `threads` and `threadsReason`.
 * @returns {Promise<{backend: object, fallbackReason: string|null, threadsReason: string|null}>}
 */
export async function loadCpuBackend(settings, { build, reasons, threads }) {
  let cpu;
  try {
    const { loadWasmBackend } = await import('./wasm.js');
    cpu = await loadWasmBackend({ build, wasmBinary: settings.wasmBinary, locateFile: settings.locateFile, memoryLimit: settings.memoryLimit });
  } catch (error) {
    if (!reasons) throw error;
    reasons.push(`WebAssembly could not load: ${reasonOf(error)}`);
    const { createReferenceBackend } = await import('../reference/index.js');
    cpu = createReferenceBackend();
  }
  const fallbackReason = reasons?.length ? reasons.join('; ') : null;
  if (!threads) return { backend: cpu, fallbackReason, threadsReason: null };
  if (!cpu.build) return { backend: cpu, fallbackReason, threadsReason: `the ${cpu.name} backend runs on the main thread` };
  const { count, reason } = resolveThreads(settings.threads, {
    crossOriginIsolated: globalThis.crossOriginIsolated,
    hasWorker: typeof globalThis.Worker === 'function',
    hardwareConcurrency: globalThis.navigator?.hardwareConcurrency,
  });
  if (count < 2) return { backend: cpu, fallbackReason, threadsReason: reason };
  try {
    const { createThreadedBackend } = await import('./threads.js');
    const glueDirectory = new URL(/* @vite-ignore */ '../wasm/', import.meta.url).href;
    const { pool } = await startWorkerPool(count, {
      build: cpu.build,
      binaryUrl: settings.locateFile?.(`attention-${cpu.build}.wasm`, glueDirectory),
      wasmBinary: settings.wasmBinary,
      memoryLimit: settings.memoryLimit,
    });
    return { backend: createThreadedBackend(cpu, pool), fallbackReason, threadsReason: null };
  } catch (error) {
    return { backend: cpu, fallbackReason, threadsReason: `the workers could not start (${reasonOf(error)}); one thread` };
  }
}
