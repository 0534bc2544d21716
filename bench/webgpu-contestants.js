// The benchmark's WebGPU contestants, run in the browser page of the benchmark: this project's webgpu
// backend and TensorFlow.js's webgpu backend, on the same two workloads as the others:
//   gemm(n):       (n, n)·(n, n), f32
//   attention(T):  causal multi-head self-attention, x (1, T, d_model) → output (1, T, d_model), with the
//                  Q, K, V and output projections (d_model, d_model), H heads, scaled by 1/√d_head.
// Each prepare function builds its inputs once and returns run(), which does one call and resolves with
// the output as a Float32Array once it is back on the CPU (so the suite can validate it before timing).
// On SwiftShader (Chromium's Vulkan on the CPU) the names say "SwiftShader (CPU-emulated)": those figures
// measure a CPU emulating a GPU, not a GPU.
//
// The page needs bare imports mapped for TensorFlow.js (an importmap, or a bundler):
//   "@tensorflow/tfjs-core": "/node_modules/@tensorflow/tfjs-core/dist/tf-core.fesm.js",
//   "@tensorflow/tfjs-backend-webgpu": "/node_modules/@tensorflow/tfjs-backend-webgpu/dist/tf-backend-webgpu.fesm.js"
import { describeAdapter } from '../web/src/gpu/device.js';

/** Deterministic values in [-1, 1), the same for every contestant given the same seed. */
export function benchData(length, seed) {
  const data = new Float32Array(length);
  let state = seed >>> 0;
  for (let i = 0; i < length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = state / 2 ** 31 - 1;
  }
  return data;
}

/** The inputs of attention(T): x and four (d_model, d_model) weights, small so the softmax is not one-hot. */
export function attentionInputs({ T, dModel }) {
  const weight = (seed) => benchData(dModel * dModel, seed).map((v) => v / Math.sqrt(dModel));
  return { x: benchData(T * dModel, 11), query: weight(12), key: weight(13), value: weight(14), outWeight: weight(15) };
}

/** The adapter this browser gives, described as the labels need; null without WebGPU. */
async function adapterDescription() {
  const adapter = await globalThis.navigator?.gpu?.requestAdapter({ powerPreference: 'high-performance' });
  return adapter ? describeAdapter(adapter) : null;
}

const suffix = (adapter) => (adapter.emulated ? ' — SwiftShader (CPU-emulated)' : '');

/** This project's webgpu backend, called as the API calls it (normalised arguments). */
async function playgroundContestant(adapter) {
  const { loadWebGpuBackend } = await import('../web/src/core/backends/webgpu.js');
  const gpu = await loadWebGpuBackend();
  return {
    name: `attention-playground webgpu${suffix(adapter)}`,
    library: 'attention-playground',
    backend: 'webgpu',
    adapter: adapter.label,
    emulated: adapter.emulated,
    async gemm(n) {
      const a = { data: benchData(n * n, 1), shape: [n, n] };
      const b = { data: benchData(n * n, 2), shape: [n, n] };
      return async () => (await gpu.matmul(a, b, { transposeB: false })).output.data;
    },
    async attention({ T, dModel, heads }) {
      const inputs = attentionInputs({ T, dModel });
      const matrix = (data) => ({ data, shape: [dModel, dModel] });
      const x = { data: inputs.x, shape: [1, T, dModel] };
      const weights = { query: matrix(inputs.query), key: matrix(inputs.key), value: matrix(inputs.value), outWeight: matrix(inputs.outWeight) };
      // intermediates: false runs the fused online-softmax kernel: no (T, T) tensor is stored.
      const options = { scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, heads, intermediates: false };
      return async () => (await gpu.multiheadAttentionSplit(x, weights, options)).output.data;
    },
    dispose: () => gpu.destroy(),
  };
}

/** TensorFlow.js with @tensorflow/tfjs-backend-webgpu: inputs live on the GPU; each run reads its result back. */
async function tfjsContestant(adapter) {
  const tf = await import('@tensorflow/tfjs-core');
  await import('@tensorflow/tfjs-backend-webgpu');
  if (!(await tf.setBackend('webgpu'))) throw new Error('TensorFlow.js: setBackend("webgpu") failed');
  await tf.ready();
  const held = [];
  const keep = (tensor) => { held.push(tensor); return tensor; };
  return {
    name: `TensorFlow.js webgpu${suffix(adapter)}`,
    library: '@tensorflow/tfjs-backend-webgpu',
    backend: 'webgpu',
    adapter: adapter.label,
    emulated: adapter.emulated,
    async gemm(n) {
      const a = keep(tf.tensor2d(benchData(n * n, 1), [n, n]));
      const b = keep(tf.tensor2d(benchData(n * n, 2), [n, n]));
      return async () => {
        const c = tf.matMul(a, b);
        const data = await c.data();
        c.dispose();
        return data;
      };
    },
    async attention({ T, dModel, heads }) {
      const inputs = attentionInputs({ T, dModel });
      const dHead = dModel / heads;
      const x = keep(tf.tensor2d(inputs.x, [T, dModel]));
      const [wq, wk, wv, wo] = ['query', 'key', 'value', 'outWeight'].map((name) => keep(tf.tensor2d(inputs[name], [dModel, dModel])));
      // Causal mask: −∞ above the diagonal, added to the scores.
      const future = keep(tf.sub(tf.ones([T, T]), tf.linalg.bandPart(tf.ones([T, T]), -1, 0)));
      const mask = keep(tf.where(tf.cast(future, 'bool'), tf.fill([T, T], -Infinity), tf.zeros([T, T])));
      // (T, d_model) -> (T, H, d_head) -> (H, T, d_head)
      const heads3 = (m) => tf.transpose(tf.reshape(m, [T, heads, dHead]), [1, 0, 2]);
      return async () => {
        const output = tf.tidy(() => {
          const q = heads3(tf.matMul(x, wq));
          const k = heads3(tf.matMul(x, wk));
          const v = heads3(tf.matMul(x, wv));
          const scores = tf.add(tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(dHead)), mask);
          const context = tf.matMul(tf.softmax(scores), v); // (H, T, d_head)
          // (H, T, d_head) -> (T, H, d_head) -> (T, d_model)
          return tf.matMul(tf.reshape(tf.transpose(context, [1, 0, 2]), [T, dModel]), wo);
        });
        const data = await output.data();
        output.dispose();
        return data;
      };
    },
    dispose: () => { for (const tensor of held) tensor.dispose(); held.length = 0; },
  };
}

/**
 * The WebGPU contestants this browser can run. Without WebGPU (or when one fails to start) it is left out,
 * and `skipped` says why, so the suite can print it beside the table.
 * @returns {Promise<{contestants: object[], skipped: {name: string, reason: string}[]}>}
 */
export async function createWebGpuContestants() {
  const skipped = [];
  const adapter = await adapterDescription().catch(() => null);
  if (!adapter) {
    return { contestants: [], skipped: [{ name: 'webgpu contestants', reason: 'no WebGPU adapter in this browser' }] };
  }
  const contestants = [];
  for (const [name, make] of [['attention-playground webgpu', playgroundContestant], ['TensorFlow.js webgpu', tfjsContestant]]) {
    try {
      contestants.push(await make(adapter));
    } catch (error) {
      skipped.push({ name, reason: error.message });
    }
  }
  return { contestants, skipped };
}
