// A Web Worker of the threaded path (threads.js): its own instance of the WASM core (the build the main
// thread loaded), with the relaxed-SIMD tiles where the engine has them. It computes one group of heads
// (thread-plan.js) per message. Plain postMessage, no SharedArrayBuffer: it needs no cross-origin
// isolation. Where the API checked the call (`checked`), the group runs on the binding's unchecked entries; an
// Error here is a bug or an engine failure, answered as {id, error}.
//
// Messages, each answered with {id, memory, ...}; memory is {bytes, peak} of this worker's module:
//   {type: 'load', build, binaryUrl?, wasmBinary?, memoryLimit?} → {relaxed: '' | why the relaxed tiles are off}
//   {type: 'heads', fn, xQuery, xContext?, weights, options, checked}  → {part: Float32Array, spent}: the group's
//       context columns (B, Tq, d_part), times its rows of Wo (d_part, d_out) when weights.outRows is
//       given; `spent` hands the message's own arrays back for reuse
//   {type: 'memory'}                                          → {} (the memory alone)
//   {type: 'compact'}                                         → {}: a new instance of the module replaces
//       this one, giving its grown memory back
import { computeHeadGroup } from './thread-plan.js';
import { instantiateInWorker } from './worker-module.js';

let core = null;
let loaded = null; // the load message, for compact()
let peak = 0; // the most memory any instance of this worker held

/** {bytes, peak} of this worker's module (peak across compact()). */
function memory() {
  const bytes = core ? core.heapStats().heapBytes : 0;
  if (bytes > peak) peak = bytes;
  return { bytes, peak };
}

async function load(message) {
  loaded = message;
  let relaxed;
  ({ core, relaxed } = await instantiateInWorker(message, 'attention-worker'));
  warmUp();
  return relaxed;
}

/**
 * A few small calls through the kernels a group runs, so that V8 tiers them up now, while the worker
 * is idle after loading: V8 compiles the optimised code on background threads, and with both workers and
 * the main thread busy on a 2-core machine those wait, so without it the first few dozen real calls ran on
 * the baseline tier, at about half the speed.
 */
function warmUp() {
  const [T, dIn, dPart, heads] = [96, 128, 128, 2];
  const filled = (length) => Float32Array.from({ length }, (_, i) => Math.sin(i) * 0.1);
  const message = {
    fn: 'multiheadAttentionSplit',
    xQuery: { data: filled(T * dIn), shape: [1, T, dIn] },
    weights: {
      query: { data: filled(dIn * dPart), shape: [dIn, dPart] }, key: { data: filled(dIn * dPart), shape: [dIn, dPart] },
      value: { data: filled(dIn * dPart), shape: [dIn, dPart] }, queryBias: { data: filled(dPart), shape: [dPart] },
      outRows: { data: filled(dPart * dIn), shape: [dPart, dIn] },
    },
    options: { heads, scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, intermediates: false },
  };
  for (let run = 0; run < 8; run++) computeHeadGroup(throwing, message);
}

function unwrap(result) {
  if (result instanceof Error) throw result;
  return result;
}

/**
 * The core's functions as computeHeadGroup takes them: returning results, throwing the Errors. A group of a call
 * the API checked on the main thread (`checked`, api-checked.js) takes the binding's unchecked entries.
 */
const FUNCTIONS = ['multiheadAttentionSplit', 'crossAttention', 'matmul'];
const throwing = Object.fromEntries(FUNCTIONS.map((fn) => [fn, (...args) => unwrap(core[fn](...args))]));
const checkedOnMain = Object.fromEntries(FUNCTIONS.map((fn) => [fn, (...args) => unwrap(core[`${fn}Unchecked`](...args))]));

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'load') {
      const relaxed = await load(message);
      self.postMessage({ id: message.id, relaxed, memory: memory() });
    } else if (message.type === 'heads') {
      const part = computeHeadGroup(message.checked ? checkedOnMain : throwing, message);
      // The inputs go back too, for the main thread to reuse (threads.js ArrayRecycler).
      const { xQuery, xContext, weights } = message;
      const spent = [xQuery, xContext, ...Object.values(weights)].filter(Boolean).map((tensor) => tensor.data);
      self.postMessage({ id: message.id, part, spent, memory: memory() }, [part.buffer, ...spent.map((array) => array.buffer)]);
    } else if (message.type === 'memory') {
      self.postMessage({ id: message.id, memory: memory() });
    } else if (message.type === 'compact') {
      memory(); // the old instance's size goes into the peak
      await load(loaded);
      self.postMessage({ id: message.id, memory: memory() });
    } else {
      throw new Error(`attention-worker: unknown message type ${JSON.stringify(message.type)}`);
    }
  } catch (error) {
    self.postMessage({ id: message.id, error: error?.message ?? String(error) });
  }
};
