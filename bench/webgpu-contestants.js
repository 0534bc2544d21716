// The benchmark's WebGPU contestants, in the shape bench/suite.js expects ({name, group, setup, tasks}):
// this project's webgpu backend, TensorFlow.js's webgpu backend and onnxruntime-web's webgpu execution
// provider, on the suite's GEMM and causal multi-head attention (with projections and biases,
// bench/inputs.js).
//
// On SwiftShader (Chromium's Vulkan on the CPU, what a headless machine without a GPU has) the names end in
// "SwiftShader (CPU-emulated)": those rows measure a CPU emulating a GPU. There the large sizes are skipped
// (each run would take tens of seconds); on a real GPU every size runs.
//
// TensorFlow.js runs in its own same-origin iframe: the suite's tfjs-wasm row uses the page's global `tf`,
// and a second backend on that global would switch it under that row (tf.setBackend is global).
import { describeAdapter } from '../web/src/gpu/device.js';
import { attentionModel, matmulModel } from './onnx.js';
import { tfAttention } from './tfjs-attention.js';

const EMULATED_LIMITS = { gemm: 512, attention: 128 };
export const EMULATED_SUFFIX = ' — SwiftShader (CPU-emulated)';

/**
 * What a row's name adds on a CPU-emulated adapter (describeAdapter's `emulated`): SwiftShader (Chromium),
 * lavapipe (Mesa's Vulkan on the CPU, what Dawn in Node finds on a machine without a GPU) or another
 * fallback adapter; nothing on a GPU.
 * @param {{emulated?: boolean, label?: string}|null} adapter
 */
export function emulatedSuffix(adapter) {
  if (!adapter?.emulated) return '';
  if (/swiftshader/i.test(adapter.label)) return EMULATED_SUFFIX;
  return ` — ${/llvmpipe|lavapipe/i.test(adapter.label) ? 'lavapipe' : 'fallback adapter'} (CPU-emulated)`;
}

/** The adapter this browser gives, described for the labels; throws (→ 'unavailable') without one. */
export async function requireAdapter() {
  const adapter = await globalThis.navigator?.gpu?.requestAdapter({ powerPreference: 'high-performance' });
  if (!adapter) throw new Error(globalThis.navigator?.gpu ? 'WebGPU: requestAdapter() returned null' : 'WebGPU: navigator.gpu is undefined');
  return describeAdapter(adapter);
}

/**
 * A task wrapper: refuses the sizes too slow for an emulated adapter, with the reason; and runs the runner
 * once in prepare (untimed), so that every WebGPU row compiles its pipelines before the suite's first run,
 * which is checked and limited in time (on SwiftShader a compile alone takes seconds).
 */
function task(state, kind, prepare) {
  return {
    supports: (size) => (!state.adapter?.emulated || size <= EMULATED_LIMITS[kind]) ||
      `SwiftShader (CPU-emulated): sizes above ${EMULATED_LIMITS[kind]} skipped, each run would take tens of seconds`,
    async prepare(inputs) {
      const runner = await prepare(inputs);
      await runner.run();
      return runner;
    },
  };
}

const matrix = (data, rows, cols) => ({ data, shape: [rows, cols] });

/** This project's webgpu backend, called as the API calls it (normalised arguments). */
export function oursWebgpuContestant() {
  const state = { adapter: null, gpu: null };
  return {
    get name() { return `ours webgpu${emulatedSuffix(state.adapter)}`; },
    group: 'ours',
    async setup() {
      state.adapter = await requireAdapter();
      const { loadWebGpuBackend } = await import('../web/src/core/backends/webgpu.js');
      state.gpu = await loadWebGpuBackend();
      return `web/src/core/backends/webgpu.js on ${state.adapter.label}; inputs uploaded and the output read back on every run`;
    },
    tasks: {
      gemm: task(state, 'gemm', async ({ a, b, n }) => ({
        run: async () => (await state.gpu.matmul(matrix(a, n, n), matrix(b, n, n), { transposeB: false })).output.data,
      })),
      attention: task(state, 'attention', async ({ x, T, dModel: d, heads, weights: w }) => {
        const vector = (data) => ({ data, shape: [d] });
        const weights = {
          query: matrix(w.query, d, d), key: matrix(w.key, d, d), value: matrix(w.value, d, d),
          queryBias: vector(w.queryBias), keyBias: vector(w.keyBias), valueBias: vector(w.valueBias),
          outWeight: matrix(w.out, d, d), outBias: vector(w.outBias),
        };
        // intermediates: false runs the fused online-softmax kernel: no (T, T) tensor is stored.
        const options = { scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, heads, intermediates: false };
        const input = { data: x, shape: [1, T, d] };
        return { run: async () => (await state.gpu.multiheadAttentionSplit(input, weights, options)).output.data };
      }),
    },
  };
}

/**
 * A same-origin iframe with its own TensorFlow.js (core + webgpu backend, UMD bundles from node_modules).
 * `gradients`: the whole @tensorflow/tfjs bundle instead of tfjs-core, for the ops' gradients (training).
 */
export async function isolatedTensorFlow({ gradients = false } = {}) {
  const base = new URL('../node_modules/@tensorflow/', import.meta.url).href;
  const frame = document.createElement('iframe');
  frame.hidden = true;
  frame.srcdoc = `<!doctype html><script src="${base}${gradients ? 'tfjs/dist/tf.min.js' : 'tfjs-core/dist/tf-core.min.js'}"></script>` +
    `<script src="${base}tfjs-backend-webgpu/dist/tf-backend-webgpu.min.js"></script>`;
  await new Promise((resolve, reject) => {
    frame.onload = resolve;
    frame.onerror = () => reject(new Error('TensorFlow.js: the iframe did not load'));
    document.body.append(frame);
  });
  const { tf } = frame.contentWindow;
  if (!tf?.matMul) throw new Error('TensorFlow.js: tf-core.min.js did not load in the iframe');
  if (!(await tf.setBackend('webgpu'))) throw new Error('TensorFlow.js: setBackend("webgpu") failed');
  await tf.ready();
  // tf checks `instanceof Float32Array` against its own realm: inputs are copied into it once, in prepare.
  return { tf, local: (data) => new frame.contentWindow.Float32Array(data) };
}

/** TensorFlow.js webgpu: weights live on the GPU; each run uploads its input and reads its output back. */
function tensorflowContestant() {
  const state = { adapter: null, tf: null };
  // Its arrays belong to the iframe's realm: copied into this one, as the other rows return.
  const back = async (tensor) => { const data = new Float32Array(await tensor.data()); tensor.dispose(); return data; };
  return {
    get name() { return `tfjs-webgpu${emulatedSuffix(state.adapter)}`; },
    group: 'peer',
    async setup() {
      state.adapter = await requireAdapter();
      Object.assign(state, await isolatedTensorFlow());
      return `TensorFlow.js ${state.tf.version_core}, webgpu backend, on ${state.adapter.label}`;
    },
    tasks: {
      gemm: task(state, 'gemm', async ({ a, b, n }) => {
        const { tf, local } = state;
        const [A, B] = [local(a), local(b)];
        return { run: () => back(tf.tidy(() => tf.matMul(tf.tensor2d(A, [n, n]), tf.tensor2d(B, [n, n])))) };
      }),
      attention: task(state, 'attention', async (inputs) => {
        const { tf, local } = state;
        const { T, dModel: d } = inputs;
        const input = local(inputs.x);
        const { constants, forward } = tfAttention(tf, inputs, local);
        return {
          run: () => back(tf.tidy(() => forward(tf.tensor2d(input, [T, d])))),
          dispose: () => Object.values(constants).forEach((t) => t.dispose()),
        };
      }),
    },
  };
}

/**
 * onnxruntime-web with its webgpu execution provider (ort.webgpu.min.mjs from node_modules, its own module
 * instance beside the wasm rows' ones), on the same standard-op models as the wasm EP rows (bench/onnx.js).
 * One WASM thread: the GPU does the matrix work. Inputs are fed from the CPU and outputs read back each run.
 */
function onnxruntimeContestant() {
  const state = { adapter: null, ort: null };
  const DIST = new URL('../node_modules/onnxruntime-web/dist/', import.meta.url);
  const session = async (bytes) => state.ort.InferenceSession.create(bytes, { executionProviders: ['webgpu'], graphOptimizationLevel: 'all' });
  return {
    get name() { return `onnxruntime-web webgpu EP${emulatedSuffix(state.adapter)}`; },
    group: 'peer',
    async setup() {
      state.adapter = await requireAdapter();
      const ort = await import(new URL('ort.webgpu.min.mjs', DIST).href);
      ort.env.wasm.wasmPaths = DIST.href;
      ort.env.wasm.numThreads = 1;
      ort.env.wasm.proxy = false;
      state.ort = ort;
      let version = 'unknown';
      try { version = (await (await fetch(new URL('../package.json', DIST))).json()).version; } catch { /* the label says unknown */ }
      return `onnxruntime-web ${version}, webgpu execution provider, standard ONNX ops, on ${state.adapter.label}`;
    },
    tasks: {
      gemm: task(state, 'gemm', async ({ a, b, n }) => {
        const s = await session(matmulModel(n));
        const { Tensor } = state.ort;
        return { run: async () => (await s.run({ A: new Tensor('float32', a, [n, n]), B: new Tensor('float32', b, [n, n]) })).Y.data, dispose: () => s.release() };
      }),
      attention: task(state, 'attention', async (inputs) => {
        const s = await session(attentionModel(inputs));
        const { Tensor } = state.ort;
        return { run: async () => (await s.run({ X: new Tensor('float32', inputs.x, [1, inputs.T, inputs.dModel]) })).Y.data, dispose: () => s.release() };
      }),
    },
  };
}

/** The WebGPU rows of the suite; without WebGPU their setup throws and the suite marks them unavailable. */
export function webgpuContestants() {
  return [oursWebgpuContestant(), tensorflowContestant(), onnxruntimeContestant()];
}
