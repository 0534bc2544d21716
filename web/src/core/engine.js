// The core as the trainer reaches it (web/src/train, docs/api.md "Training"): everything of web/src/core that the
// trainer, its shard workers and its WASM engine use, in one place, so the core's inside can move without them
// and the arrows between the two run one way (train -> core/engine.js). Nothing here computes: it hands on.
import { createAttention } from './api.js';

export { checkTensorStructure, describeValue, formatShape } from './tensor.js';
export { headGroups } from './planner.js';
export { resolveThreads } from './backends/thread-plan.js';
export { startWorkers } from './backends/worker-pool.js';

/**
 * The WASM backend's loader, imported on demand (a trainer on 'js' or 'webgpu' never loads WebAssembly), and
 * the API over a backend: the trainer's WASM engine is one build's backend (its resident model) and the API's
 * matmul over it. The API is imported statically: every page that trains has it already.
 * @returns {Promise<{loadWasmBackend: Function, createAttention: Function}>}
 */
export async function loadWasmCore() {
  const { loadWasmBackend } = await import('./backends/wasm.js');
  return { loadWasmBackend, createAttention };
}
