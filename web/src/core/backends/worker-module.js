// The WASM core inside a Web Worker (attention-worker.js, web/src/train/shard-worker.js): the build the main
// thread loaded, from the same .wasm, with the relaxed-SIMD tiles where the engine has them.
//
// The builds come from wasm-builds.js (not through wasm.js): a module worker has no import map, so
// wasm.js's bare import of wasm-feature-detect would not resolve on a page served from raw ES modules.
import { installRelaxedTile } from './relaxed-tile.js';
import { BINARY_URLS, GLUE_MODULES } from './wasm-builds.js';

/**
 * A new instance of build `build` ('simd' or 'baseline'); `who` names the worker in errors and the glue's messages.
 * @param {{build: string, binaryUrl?: string, wasmBinary?: Uint8Array, tileBinary?: Uint8Array, memoryLimit?: number}} load
 *   tileBinary: the relaxed-SIMD tile module's bytes, where it cannot be fetched (Node)
 * @returns {Promise<{core: object, relaxed: string}>} relaxed: '' when the relaxed tiles are on, else why not
 */
export async function instantiateInWorker({ build, binaryUrl, wasmBinary, tileBinary, memoryLimit }, who) {
  if (!GLUE_MODULES[build]) throw new Error(`${who}: build=${JSON.stringify(build)}; expected 'simd' or 'baseline'`);
  const { default: create } = await GLUE_MODULES[build]();
  const href = binaryUrl ?? BINARY_URLS[build].href;
  const moduleOptions = {
    locateFile: (path, prefix) => (path.endsWith('.wasm') ? href : prefix + path),
    printErr: (text) => console.warn(`[${who} wasm-${build}] ${text}`),
  };
  if (wasmBinary) moduleOptions.wasmBinary = wasmBinary;
  const core = await create(moduleOptions);
  if (memoryLimit !== undefined && memoryLimit !== null) core.setMemoryLimit(memoryLimit);
  const relaxed = build === 'simd' ? await installRelaxedTile(core, tileBinary ?? undefined) : 'the baseline build has no SIMD tiles';
  return { core, relaxed };
}
