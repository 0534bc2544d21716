// A Web Worker of the threaded path (threads.js): its own instance of the WASM core (the build the main
// thread loaded), with the relaxed-SIMD tiles where the engine has them. It computes one group of heads
// (thread-plan.js) per message. Plain postMessage, no SharedArrayBuffer: it needs no cross-origin
// isolation. The main thread has checked every argument already; an Error here is a bug or an engine
// failure, answered as {id, error}.
//
// Messages, each answered with {id, ...}:
//   {type: 'load', build, binaryUrl?, wasmBinary?}            → {relaxed: '' | why the relaxed tiles are off}
//   {type: 'heads', fn, xQuery, xContext?, weights, options}  → {part: Float32Array, spent}: the group's
//       context columns (B, Tq, d_part), times its rows of Wo (d_part, d_out) when weights.outRows is
//       given; `spent` hands the message's own arrays back for reuse
//
// The glue modules are imported directly (not through wasm.js): a module worker has no import map, so
// wasm.js's bare import of wasm-feature-detect would not resolve on a page served from raw ES modules.
import { installRelaxedTile } from './relaxed-tile.js';
import { computeHeadGroup } from './thread-plan.js';

const GLUE_MODULES = {
  simd: () => import('../wasm/attention-simd.mjs'),
  baseline: () => import('../wasm/attention-baseline.mjs'),
};
const BINARY_URLS = {
  simd: new URL('../wasm/attention-simd.wasm', import.meta.url),
  baseline: new URL('../wasm/attention-baseline.wasm', import.meta.url),
};

let core = null;

async function load({ build, binaryUrl, wasmBinary }) {
  if (!GLUE_MODULES[build]) throw new Error(`attention-worker: build=${JSON.stringify(build)}; expected 'simd' or 'baseline'`);
  const { default: create } = await GLUE_MODULES[build]();
  const href = binaryUrl ?? BINARY_URLS[build].href;
  const moduleOptions = {
    locateFile: (path, prefix) => (path.endsWith('.wasm') ? href : prefix + path),
    printErr: (text) => console.warn(`[attention-worker wasm-${build}] ${text}`),
  };
  if (wasmBinary) moduleOptions.wasmBinary = wasmBinary;
  core = await create(moduleOptions);
  return build === 'simd' ? installRelaxedTile(core) : 'the baseline build has no SIMD tiles';
}

function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

/** The core's functions as computeHeadGroup takes them: returning results, throwing the Errors. */
const throwing = {
  multiheadAttentionSplit: (...args) => unwrap(core.multiheadAttentionSplit(...args)),
  crossAttention: (...args) => unwrap(core.crossAttention(...args)),
  matmul: (...args) => unwrap(core.matmul(...args)),
};

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'load') {
      self.postMessage({ id: message.id, relaxed: await load(message) });
    } else if (message.type === 'heads') {
      const part = computeHeadGroup(throwing, message);
      // The inputs go back too, for the main thread to reuse (threads.js ArrayRecycler).
      const { xQuery, xContext, weights } = message;
      const spent = [xQuery, xContext, ...Object.values(weights)].filter(Boolean).map((tensor) => tensor.data);
      self.postMessage({ id: message.id, part, spent }, [part.buffer, ...spent.map((array) => array.buffer)]);
    } else {
      throw new Error(`attention-worker: unknown message type ${JSON.stringify(message.type)}`);
    }
  } catch (error) {
    self.postMessage({ id: message.id, error: error?.message ?? String(error) });
  }
};
