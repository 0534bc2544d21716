// TensorFlow.js with @tensorflow/tfjs-backend-wasm (XNNPACK), threads off. Loaded as the packages'
// UMD bundles from node_modules (no CDN); they define the global `tf`. The union bundle (@tensorflow/tfjs),
// not tf-core.min.js: only it registers the ops' gradients, which the training section (bench/training.js)
// needs; the wasm backend is set explicitly, so the kernels timed are the same.
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
  async prepare({ x, T, dModel: d, heads, weights: w }) {
    const tf = await loadTf();
    const dHead = d / heads;
    const mask = new Float32Array(T * T);
    for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;
    const constants = {
      Wq: tf.tensor2d(w.query, [d, d]), Wk: tf.tensor2d(w.key, [d, d]), Wv: tf.tensor2d(w.value, [d, d]), Wo: tf.tensor2d(w.out, [d, d]),
      bq: tf.tensor1d(w.queryBias), bk: tf.tensor1d(w.keyBias), bv: tf.tensor1d(w.valueBias), bo: tf.tensor1d(w.outBias),
      mask: tf.tensor2d(mask, [T, T]), scale: tf.scalar(1 / Math.sqrt(dHead)),
    };
    const c = constants;
    // (T, d) → (H, T, d_head)
    // (the UMD core bundle has no chained ops such as t.reshape: functional forms only)
    const splitHeads = (t) => tf.transpose(tf.reshape(t, [T, heads, dHead]), [1, 0, 2]);
    return {
      run: () => {
        const output = tf.tidy(() => {
          const input = tf.tensor2d(x, [T, d]);
          const q = splitHeads(tf.add(tf.matMul(input, c.Wq), c.bq));
          const k = splitHeads(tf.add(tf.matMul(input, c.Wk), c.bk));
          const v = splitHeads(tf.add(tf.matMul(input, c.Wv), c.bv));
          const weights = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), c.scale), c.mask));
          const context = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [T, d]);
          return tf.add(tf.matMul(context, c.Wo), c.bo);
        });
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
