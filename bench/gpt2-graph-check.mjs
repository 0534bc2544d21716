// Checks bench/gpt2-graph.js on the tiny fixture checkpoint against PyTorch's logits (tests/fixtures/gpt2):
// both ONNX forms on onnxruntime-web and the tf-ops form on TensorFlow.js's wasm backend. A quick way to see
// the benchmark's graphs compute GPT-2 before the long run: node bench/gpt2-graph-check.mjs
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { loadGpt2FromDirectory } from '../web/src/gpt2/load.js';
import { readSafetensorsHeader, readTensor } from '../web/src/gpt2/safetensors-read.js';
import { gpt2OnnxModel, gpt2TfjsForward } from './gpt2-graph.js';

const ROOT = path.join(path.dirname(fileURLToPath(import.meta.url)), '..');
const DIR = path.join(ROOT, 'tests/fixtures/gpt2/');
const { config, parameters } = await loadGpt2FromDirectory(DIR);
const { cases } = JSON.parse(readFileSync(`${DIR}forward.json`, 'utf8'));
const bytes = new Uint8Array(readFileSync(`${DIR}forward.safetensors`));
const header = readSafetensorsHeader(bytes, 'forward.safetensors');
const { tokens } = cases[3];
const expected = readTensor(bytes, header, '3.logits', 'forward.safetensors').data;
const worst = (actual) => actual.reduce((w, v, i) => Math.max(w, Math.abs(v - expected[i])), 0);

const ort = await import('onnxruntime-web');
ort.env.wasm.numThreads = 1;
for (const contrib of [false, true]) {
  const session = await ort.InferenceSession.create(gpt2OnnxModel(config, parameters, tokens.length, { contrib }), { executionProviders: ['wasm'] });
  const out = await session.run({ tokens: new ort.Tensor('int64', BigInt64Array.from(tokens.map(BigInt)), [1, tokens.length]) });
  console.log(`onnxruntime-web ${contrib ? 'contrib' : 'standard'}: max |diff| ${worst(out.logits.data).toExponential(2)}`);
}
const tf = await import('@tensorflow/tfjs');
const wasm = await import('@tensorflow/tfjs-backend-wasm');
wasm.setWasmPaths(`${path.join(ROOT, 'node_modules/@tensorflow/tfjs-backend-wasm/dist')}/`);
await tf.setBackend('wasm');
const model = gpt2TfjsForward(tf, config, parameters);
console.log(`tfjs ${tf.getBackend()}: max |diff| ${worst(await model.forward(tokens).data()).toExponential(2)}`);
