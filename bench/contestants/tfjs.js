// TensorFlow.js with @tensorflow/tfjs-backend-wasm (XNNPACK), threads off. Loaded as the packages'
// UMD bundles from node_modules (no CDN); they define the global `tf`. The union bundle (@tensorflow/tfjs),
// not tf-core.min.js: only it registers the ops' gradients, which the training section (bench/training.js)
// needs; the wasm backend is set explicitly, so the kernels timed are the same.
import { tfAttention } from '../tfjs-attention.js';

const CORE = new URL('../../node_modules/@tensorflow/tfjs/dist/tf.min.js', import.meta.url);
const BACKEND_DIST = new URL('../../node_modules/@tensorflow/tfjs-backend-wasm/dist/', import.meta.url);

function loadScript(url) {
  return new Promise((resolve, reject) => {
    const script = document.createElement('script');
    script.src = url.href;
    script.onload = resolve;
    script.onerror = () => reject(new Error(`could not load ${url.pathname}`));
    document.head.append(script);
  });
}

let loading = null;

/** The global `tf` on its wasm backend, one thread (loaded once per page; bench/training.js uses it too). */
export function loadTf() {
  loading ??= (async () => {
    if (typeof document === 'undefined') throw new Error('TensorFlow.js rows run in a browser page');
    await loadScript(CORE);
    await loadScript(new URL('tf-backend-wasm.min.js', BACKEND_DIST));
    const { tf } = globalThis;
    tf.wasm.setWasmPaths(BACKEND_DIST.href);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // one thread, as our kernels
    if (!(await tf.setBackend('wasm'))) throw new Error('tf.setBackend("wasm") failed');
    await tf.ready();
    return tf;
  })();
  return loading;
}

const gemmTask = {
  supports: () => true,
  async prepare({ a, b, n }) {
    const tf = await loadTf();
    return {
      run: () => {
        const product = tf.tidy(() => tf.matMul(tf.tensor2d(a, [n, n]), tf.tensor2d(b, [n, n])));
        const data = product.dataSync();
        product.dispose();
        return data;
      },
    };
  },
};

const attentionTask = {
  supports: () => true,
  async prepare(inputs) {
    const tf = await loadTf();
    const { T, dModel: d } = inputs;
    const { constants, forward } = tfAttention(tf, inputs);
    return {
      run: () => {
        const output = tf.tidy(() => forward(tf.tensor2d(inputs.x, [T, d])));
        const data = output.dataSync();
        output.dispose();
        return data;
      },
      dispose: () => Object.values(constants).forEach((t) => t.dispose()),
    };
  },
};

export function tfjsContestants() {
  return [{
    name: 'tfjs-wasm',
    group: 'peer',
    setup: async () => {
      const tf = await loadTf();
      return `TensorFlow.js ${tf.version_core}, wasm backend (XNNPACK), SIMD ${tf.env().getBool('WASM_HAS_SIMD_SUPPORT') ? 'on' : 'off'}, threads off`;
    },
    tasks: { gemm: gemmTask, attention: attentionTask },
  }];
}
