// onnxruntime-web (npm, served from node_modules; no CDN), wasm execution provider. The models are
// built in bench/onnx.js. ort's thread count is fixed when its WASM module starts, so each thread
// setting gets its own instance of the ort module (a distinct URL is a distinct ES module).
import { attentionContribModel, attentionModel, matmulModel } from '../onnx.js';

const DIST = new URL('../../node_modules/onnxruntime-web/dist/', import.meta.url);

const instances = new Map();

function loadOrt(threads) {
  if (!instances.has(threads)) {
    instances.set(threads, (async () => {
      const ort = await import(new URL(`ort.wasm.min.mjs?threads=${threads}`, DIST).href);
      ort.env.wasm.wasmPaths = DIST.href;
      ort.env.wasm.numThreads = threads;
      ort.env.wasm.proxy = false;
      return ort;
    })());
  }
  return instances.get(threads);
}

async function session(threads, bytes) {
  const ort = await loadOrt(threads);
  return { ort, session: await ort.InferenceSession.create(bytes, { executionProviders: ['wasm'], graphOptimizationLevel: 'all' }) };
}

function gemmTask(threads) {
  return {
    supports: () => true,
    async prepare({ a, b, n }) {
      const { ort, session: s } = await session(threads, matmulModel(n));
      const feeds = () => ({ A: new ort.Tensor('float32', a, [n, n]), B: new ort.Tensor('float32', b, [n, n]) });
      return { run: async () => (await s.run(feeds())).Y.data, dispose: () => s.release() };
    },
  };
}

function attentionTask(threads, buildModel) {
  return {
    supports: () => true,
    async prepare(inputs) {
      const { ort, session: s } = await session(threads, buildModel(inputs));
      const feeds = () => ({ X: new ort.Tensor('float32', inputs.x, [1, inputs.T, inputs.dModel]) });
      return { run: async () => (await s.run(feeds())).Y.data, dispose: () => s.release() };
    },
  };
}

async function version() {
  try {
    return (await (await fetch(new URL('../package.json', DIST))).json()).version;
  } catch {
    return 'unknown';
  }
}

export function onnxruntimeContestants() {
  const threads = globalThis.crossOriginIsolated ? (navigator.hardwareConcurrency || 2) : 0;
  const rows = [
    {
      name: 'onnxruntime-web 1 thread',
      group: 'peer',
      setup: async () => { await loadOrt(1); return `onnxruntime-web ${await version()}, wasm EP, standard ONNX ops`; },
      tasks: { gemm: gemmTask(1), attention: attentionTask(1, attentionModel) },
    },
    {
      name: 'onnxruntime-web 1 thread, Attention op',
      group: 'peer',
      setup: async () => { await loadOrt(1); return 'com.microsoft.Attention (unidirectional) + MatMul/Add output projection'; },
      tasks: { attention: attentionTask(1, attentionContribModel) },
    },
  ];
  const threaded = {
    name: `onnxruntime-web ${threads || 'N'} threads`,
    group: 'peer',
    threads: threads || 2,
    setup: async () => {
      if (!threads) throw new Error('the page is not cross-origin isolated, so WASM threads are off');
      await loadOrt(threads);
      return `numThreads=${threads} (cross-origin isolated page)`;
    },
    tasks: { gemm: gemmTask(threads), attention: attentionTask(threads, attentionModel) },
  };
  return [...rows, threaded];
}
