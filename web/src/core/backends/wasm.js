// The WASM backend: loads one of the two Emscripten builds of the C++ core (SIMD or baseline) and
// exposes the API functions of docs/api.md on a plain object. The binding (cpp/bindings/) checks every
// argument of a direct call, and runs a call the API has checked already (../api-checked.js) unchecked; it
// returns fresh typed arrays, so this file only picks a build, finds its .wasm bytes, fills in omitted
// trailing arguments (embind rejects calls with fewer arguments than the C++ signature has) and throws the
// Errors the binding returns.
import { simd } from 'wasm-feature-detect';
import { apiChecked } from '../api-checked.js';
import { installRelaxedTile } from './relaxed-tile.js';
import { BINARY_URLS, GLUE_MODULES } from './wasm-builds.js';
import { REGISTRY } from '../registry.js';

const BUILDS = ['simd', 'baseline'];

/** The build 'auto' stands for on this engine: SIMD when WebAssembly SIMD validates here. */
async function resolveBuild(build) {
  if (build === 'auto') return (await simd()) ? 'simd' : 'baseline';
  if (BUILDS.includes(build)) return build;
  throw new Error(`loadWasmBackend: build=${JSON.stringify(build)}; expected 'auto', 'simd' or 'baseline'`);
}

function isNode() {
  return typeof process === 'object' && typeof process.versions?.node === 'string' && typeof window === 'undefined';
}

/**
 * In Node the Emscripten glue (built for web and worker only) cannot fetch file:// URLs, so the
 * bytes are read here and handed over. node:fs is imported through a variable so that browser
 * bundles do not try to resolve it.
 */
async function readBinaryInNode(url) {
  const fsModule = 'node:fs/promises';
  const { readFile } = await import(/* @vite-ignore */ fsModule);
  return readFile(url);
}

function describe(url) {
  return url.protocol === 'file:' ? decodeURIComponent(url.pathname) : url.href;
}

/**
 * Loads the WASM core.
 * @param {{build?: 'auto'|'simd'|'baseline', wasmBinary?: ArrayBuffer|Uint8Array, locateFile?: (path: string, prefix: string) => string, memoryLimit?: number}} [options]
 *   memoryLimit: the bytes every call is checked against (the binding's limit; default and at most 2 GiB)
 * @returns {Promise<object>} the backend: {name, build, heapStats(), memory, compact(), and one method per API function}
 */
export async function loadWasmBackend({ build = 'auto', wasmBinary, locateFile, memoryLimit } = {}) {
  const chosen = await resolveBuild(build);
  const binaryUrl = BINARY_URLS[chosen];
  const glueName = `attention-${chosen}.mjs`;

  let createAttentionModule;
  try {
    ({ default: createAttentionModule } = await GLUE_MODULES[chosen]());
  } catch (error) {
    throw new Error(`loadWasmBackend: could not import the glue module ${glueName} (${error.message}); `
      + 'build it with scripts/build.sh', { cause: error });
  }

  const moduleOptions = {};
  if (locateFile) {
    moduleOptions.locateFile = locateFile;
  } else {
    moduleOptions.locateFile = (path, prefix) => (path.endsWith('.wasm') ? binaryUrl.href : prefix + path);
  }
  if (wasmBinary) {
    moduleOptions.wasmBinary = wasmBinary;
  } else if (isNode()) {
    try {
      moduleOptions.wasmBinary = await readBinaryInNode(binaryUrl);
    } catch (error) {
      throw new Error(`loadWasmBackend: could not read ${describe(binaryUrl)} (${error.message}); `
        + 'build it with scripts/build.sh', { cause: error });
    }
  }
  // The glue prints its own diagnostics through these; keep them, but mark where they come from.
  moduleOptions.printErr = (text) => console.warn(`[wasm-${chosen}] ${text}`);

  /** A new instance of the module, with its memory limit and, where the browser has them, the relaxed tiles. */
  const instantiate = async () => {
    let core;
    try {
      // The glue keeps state on the object it is given: each instance gets its own copy of the options.
      core = await createAttentionModule({ ...moduleOptions });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      throw new Error(`loadWasmBackend: could not instantiate ${describe(binaryUrl)} (${message})`, { cause: error });
    }
    if (memoryLimit !== undefined) core.setMemoryLimit(memoryLimit);
    // The relaxed-SIMD GEMM tile (fused multiply-add) where the browser has it; else plain simd128 stays.
    if (chosen === 'simd' && !isNode()) await installRelaxedTile(core);
    return core;
  };
  return wrapModule(await instantiate(), chosen, instantiate);
}

/**
 * The binding returns a JS Error instead of throwing it from inside WASM (a throw there would skip C++
 * destructors and leak the shadow stack; see cpp/bindings/bindings.cpp). It is thrown here, in JS.
 */
function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

/**
 * One method per registry function, each the embind function of the same name, or its `<name>Unchecked` twin
 * for a call the API has checked (bindings.cpp registers both from the same registry); an omitted options
 * argument becomes {} so embind sees every argument.
 * `instantiate` makes a fresh module for compact(): the methods always call the current one.
 */
function wrapModule(first, build, instantiate) {
  let core = first;
  // The most memory any instance of this backend held: WASM memory only grows, so the current size is
  // the most this instance held, and compact() starts a new instance.
  let peak = 0;
  const memory = () => {
    const bytes = core.heapStats().heapBytes;
    if (bytes > peak) peak = bytes;
    return { bytes, peak };
  };
  let compacting = null;
  const backend = {
    name: `wasm-${build}`,
    build,
    heapStats: () => core.heapStats(),
    /** Bytes a call may still copy in and allocate (the binding's own measure): the API's memory check reads it. */
    memoryRoom: () => core.bytesAvailable(),
    /** {bytes: the module's memory now, peak: the most it held, across compact()}. */
    get memory() { return memory(); },
    /** Replaces the module by a new instance, giving its grown memory back; resolves when calls use the new one. */
    compact() {
      compacting ??= (async () => {
        memory(); // record the old instance's size in the peak
        core = await instantiate();
      })().finally(() => { compacting = null; });
      return compacting;
    },
    /** {vocabulary: 'wasm_simd128' | 'scalar', variants: [{number, name}], defaultVariant}: for the benchmark. */
    fastPathInfo: () => core.fastPathInfo(),
    /** matmul with options.variant, a numbered GEMM variant (fastPathInfo().variants): for the benchmark. */
    matmulVariant: (a, b, options = {}) => unwrap(core.matmulVariant(a, b, options)),
    /** The trainer's resident model (web/src/train/native.js); the caller frees it with .delete(). */
    createTrainingModel: (...config) => new core.AttentionOnlyTraining(...config),
    /** GPT-2's resident model (web/src/gpt2/wasm-model.js); the caller frees it with .delete(). */
    createGpt2Model: (...config) => new core.Gpt2Inference(...config),
    /** One share of GPT-2 (web/src/gpt2/half-model.js streams its blocks through one); freed with .delete(). */
    createGpt2Shard: (config) => new core.Gpt2Shard(config),
  };
  for (const { name, args, options } of REGISTRY) {
    const arity = args.length;
    const unchecked = `${name}Unchecked`;
    // The binding's checked entry for a direct call; its unchecked one for a call the API checked.
    const entry = () => core[apiChecked(name, backend.name) ? unchecked : name];
    backend[name] = options
      ? (...values) => unwrap(entry()(...values.slice(0, arity), values[arity] ?? {}))
      : (...values) => unwrap(entry()(...values.slice(0, arity)));
  }
  return backend;
}
