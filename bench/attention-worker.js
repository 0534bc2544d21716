// A Web Worker holding its own instance of the SIMD core, for the head-parallel attention in
// contestants/ours-workers.js. Plain postMessage (no SharedArrayBuffer), so it needs no cross-origin
// isolation. Messages (each answered with {id, ...} or {id, error}):
//   {type: 'load'}                                   → {relaxed: '' | why the relaxed tiles are off}
//   {type: 'heads', x, T, dModel, heads, weights}    → {partial}: this worker's heads' context columns
//       (T, d_part) times its rows of Wo (d_part, d_model): its share of the output before the bias
import { installRelaxedTile } from '../web/src/core/backends/relaxed-tile.js';

let core = null;

async function load() {
  const { default: create } = await import('../web/src/core/wasm/attention-simd.mjs');
  core = await create({ printErr: (text) => console.warn(`[attention-worker] ${text}`) });
  return installRelaxedTile(core);
}

function unwrap(result) {
  if (result instanceof Error) throw result;
  return result.output.data;
}

function handle(message) {
  if (message.type === 'heads') {
    const { x, T, dModel, heads, weights } = message;
    const dPart = weights.queryBias.length;
    const matrix = (data) => ({ data, shape: [dModel, dPart] });
    const vector = (data) => ({ data, shape: [dPart] });
    const context = unwrap(core.multiheadAttentionSplit({ data: x, shape: [1, T, dModel] }, {
      query: matrix(weights.query), key: matrix(weights.key), value: matrix(weights.value),
      queryBias: vector(weights.queryBias), keyBias: vector(weights.keyBias), valueBias: vector(weights.valueBias),
    }, { heads, causal: true, intermediates: false }));
    // context·Wo = Σ over workers of (their context columns)·(the same rows of Wo): no exchange needed.
    const partial = unwrap(core.matmul({ data: context, shape: [T, dPart] }, { data: weights.outRows, shape: [dPart, dModel] }, {}));
    return { partial };
  }
  throw new Error(`attention-worker: unknown message type ${JSON.stringify(message.type)}`);
}

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'load') {
      self.postMessage({ id: message.id, relaxed: await load() });
      return;
    }
    const result = handle(message);
    self.postMessage({ id: message.id, ...result }, Object.values(result).map((array) => array.buffer));
  } catch (error) {
    self.postMessage({ id: message.id, error: error.message ?? String(error) });
  }
};
