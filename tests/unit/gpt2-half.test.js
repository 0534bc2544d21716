// Checkpoints kept resident in float16 (web/src/gpt2/half-model.js), for models whose float32 weights and packed
// copy do not fit (gpt2-medium's shape): the memory arithmetic that decides it, the float16 conversion (torch's
// .half(), bit for bit), and the tiny float16 checkpoint loaded under a limit that only float16 meets, whose
// forward on both WASM builds, the JS reference and with heads ablated matches PyTorch's float16 run; the float32
// checkpoint streamed into float16 matrices (checkpoint-stream.js), whatever its chunks.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { gpt2Config } from '../../web/src/gpt2/checkpoint.js';
import { checkGpt2Memory, gpt2MemoryBytes } from '../../web/src/gpt2/memory.js';
import { createCheckpointReader, gpt2ParametersFromSafetensors } from '../../web/src/gpt2/checkpoint-stream.js';
import { loadGpt2FromDirectory } from '../../web/src/gpt2/load.js';
import { createGpt2 } from '../../web/src/gpt2/model.js';
import { readSafetensorsHeader, readTensor } from '../../web/src/gpt2/safetensors-read.js';
import { compareTensors } from './tolerance.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const outputBytes = new Uint8Array(readFileSync(`${DIR}forward.safetensors`));
const outputs = readSafetensorsHeader(outputBytes, 'forward.safetensors');
const expected = (name) => readTensor(outputBytes, outputs, name, 'forward.safetensors');
const { cases } = JSON.parse(readFileSync(`${DIR}forward.json`, 'utf8'));
const MEDIUM = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 1024, n_layer: 24, n_head: 16 });
const MEDIUM_F32_FILE = 4 * 354_823_168; // its parameters in float32 (a file holds a header more)
const GiB = 2 ** 30;

function expectClose(actual, want, tolerance, label) {
  expect(compareTensors(actual, want, { atol: tolerance, rtol: tolerance }).report, label).toBe('');
}

describe('the memory arithmetic', () => {
  it("gpt2-medium: float32 and its packed copy exceed the WASM heap; its float16 figures, exactly", () => {
    const need = gpt2MemoryBytes(MEDIUM);
    expect(need.parameters).toBe(4 * 354_823_168);
    expect(need.total).toBeGreaterThan(2 * GiB);
    // matrices: wte 50257·1024 and per block 3C² + C² + 2·C·4C, in float16; wpe and the vectors in float32
    const matrices = 50257 * 1024 + 24 * (4 * 1024 ** 2 + 8 * 1024 ** 2);
    expect(need.float16.parameters).toBe(2 * matrices + 4 * (354_823_168 - matrices));
    expect(need.float16.unembedding).toBe(4 * 1024 * 50264);
    expect(need.float16.block).toBe(4 * (1024 * 3072 + 1024 * 1024 + 1024 * 4096 + 4096 * 1024));
    expect(need.float16.heap).toBe(need.float16.unembedding + need.float16.staging + need.float16.block + need.activations);
  });
  it('decides float32, float16 or a refusal that gives both figures', () => {
    const small = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 });
    expect(checkGpt2Memory(small).resident).toBe('float32');
    // a float32 gpt2-medium, streamed into float16 (the loaders hold no file): 1.49 GB, within the default 2 GiB
    expect(gpt2MemoryBytes(MEDIUM).float16.total).toBe(1_489_356_800);
    expect(checkGpt2Memory(MEDIUM)).toMatchObject({ resident: 'float16' });
    // float32 never, whatever the limit: its heap alone exceeds the WASM heap's 2 GiB
    expect(checkGpt2Memory(MEDIUM, { limitBytes: 8 * GiB }).resident).toBe('float16');
    // the same file held whole (as before the loaders streamed) would not fit: the refusal gives every figure
    expect(() => checkGpt2Memory(MEDIUM, { name: 'gpt2-medium', fileBytes: MEDIUM_F32_FILE }))
      .toThrow('loadGpt2: gpt2-medium needs 5.99 GB kept in float32 (1.42 GB of float32 parameters and, in the WASM heap, 1.42 GB for their copy, ' +
        '1.42 GB packed for the fast path and 0.31 GB of activations, 1.42 GB for the file held whole), or 2.91 GB kept in float16 (0.71 GB of parameters, ' +
        '0.78 GB in the WASM heap, 1.42 GB for the file held whole), but 2.15 GB are available; expected a model that fits (gpt2, distilgpt2, gpt2-medium)');
    expect(() => checkGpt2Memory(MEDIUM, { name: 'gpt2-medium', limitBytes: 1.4e9 })).toThrow(/^loadGpt2: gpt2-medium needs 4\.57 GB kept in float32 .*, or 1\.49 GB kept in float16 \(0\.71 GB of parameters, 0\.78 GB in the WASM heap\), but 1\.40 GB are available/);
  });
});

describe('a float16-resident checkpoint', () => {
  let checkpoint;
  let limitBytes;
  const models = {};
  beforeAll(async () => {
    const config = gpt2Config(readFileSync(`${DIR}config.json`, 'utf8'));
    const need = gpt2MemoryBytes(config);
    // room for float16 and not for float32
    limitBytes = need.float16.total;
    expect(limitBytes).toBeLessThan(need.total);
    checkpoint = await loadGpt2FromDirectory(DIR, { modelFile: 'model-f16.safetensors', limitBytes });
    for (const backend of ['wasm-simd', 'wasm-baseline', 'js']) models[backend] = await createGpt2(checkpoint, { backend });
  });
  afterAll(() => Object.values(models).forEach((model) => model.dispose()));

  it('keeps the matrices as float16 bits and the vectors in float32', () => {
    expect(checkpoint.resident).toBe('float16');
    expect(checkpoint.parameters['wte.weight'].data).toBeInstanceOf(Uint16Array);
    expect(checkpoint.parameters['h.1.mlp.c_proj.weight'].data).toBeInstanceOf(Uint16Array);
    expect(checkpoint.parameters['h.1.ln_2.bias'].data).toBeInstanceOf(Float32Array);
    expect(checkpoint.parameters['wpe.weight'].data).toBeInstanceOf(Float32Array);
  });
  it("rounds a float32 file's matrices to float16 as torch's .half() does, bit for bit", () => {
    const config = checkpoint.config;
    const fromF32 = gpt2ParametersFromSafetensors(new Uint8Array(readFileSync(`${DIR}model.safetensors`)), config, 'model.safetensors', { resident: 'float16' });
    for (const name of ['wte.weight', 'h.0.attn.c_attn.weight', 'h.1.mlp.c_fc.weight']) expect(fromF32[name].data).toEqual(checkpoint.parameters[name].data);
  });
  it("runs every case as PyTorch's float16 weights widened to float32 do, on both builds and the JS reference", async () => {
    for (const backend of ['wasm-simd', 'wasm-baseline', 'js']) {
      const model = models[backend];
      expect(model.resident).toBe(backend === 'js' ? 'float32' : 'float16');
      for (const [i, { tokens }] of cases.entries()) {
        const plain = await model.forward(tokens, { attention: false });
        expectClose(plain.logits, expected(`${i}.logits16`), 1e-4, `${backend} case ${i}`);
        expectClose((await model.forward(tokens)).logits, expected(`${i}.logits16`), 1e-4, `${backend} case ${i} with weights`);
      }
    }
  });
  it('streams a float32 file into float16 matrices under the same limit: its logits no farther from float32 than PyTorch\'s float16 model\'s', async () => {
    const streamed = await loadGpt2FromDirectory(DIR, { limitBytes });
    expect(streamed.resident).toBe('float16');
    // the matrices as the float16 file's bits (the vectors stay the float32 file's own)
    for (const [name, { data }] of Object.entries(checkpoint.parameters)) {
      expect(streamed.parameters[name].data.constructor, name).toBe(data.constructor);
      if (data instanceof Uint16Array) expect(streamed.parameters[name].data, name).toEqual(data);
    }
    const model = await createGpt2(streamed, { backend: 'wasm-simd' });
    const reference = await createGpt2(streamed, { backend: 'js' });
    const farthest = (a, b) => a.data.reduce((max, x, k) => Math.max(max, Math.abs(x - b.data[k])), 0);
    for (const [i, { tokens }] of cases.entries()) {
      const { logits } = model.forward(tokens, { attention: false });
      expectClose(logits, reference.forward(tokens).logits, 1e-4, `case ${i}: the JS reference on the same weights`);
      expect(farthest(logits, expected(`${i}.logits`)), `case ${i}`).toBeLessThanOrEqual(farthest(expected(`${i}.logits16`), expected(`${i}.logits`)));
    }
    model.dispose();
  });
  it('reads the same parameters whatever the chunks (elements cut between them), from every dtype into either residency', () => {
    const config = checkpoint.config;
    const sizes = [1, 3, 7, 2, 4093, 5, 65536, 11];
    for (const file of ['model.safetensors', 'model-f16.safetensors', 'model-bf16.safetensors']) {
      const bytes = new Uint8Array(readFileSync(`${DIR}${file}`));
      for (const resident of ['float32', 'float16']) {
        const reader = createCheckpointReader(config, { source: file, resident });
        for (let at = 0, i = 0; at < bytes.length; at += sizes[i % sizes.length], i++) reader.push(bytes.subarray(at, at + sizes[i % sizes.length]));
        const whole = gpt2ParametersFromSafetensors(bytes, config, file, { resident });
        for (const [name, tensor] of Object.entries(reader.finish())) expect(tensor, `${file} ${resident} ${name}`).toEqual(whole[name]);
      }
    }
  });
  it('ablates heads and gives every layer\'s weights and intermediates as the JS reference does', async () => {
    const { tokens } = cases[3];
    for (const ablation of ['zero', 'mean']) {
      const want = models.js.forward(tokens, { headsOff: [[0, 2], [1, 0]], ablation });
      const got = models['wasm-simd'].forward(tokens, { headsOff: [[0, 2], [1, 0]], ablation });
      expectClose(got.logits, want.logits, 1e-4, ablation);
      got.attention.forEach((weights, l) => expectClose(weights, want.attention[l], 1e-5, `${ablation} layer ${l}`));
    }
    const full = models['wasm-simd'].forward(tokens, { intermediates: true });
    expect(full.layers).toHaveLength(2);
    expectClose(full.logits, expected('3.logits16'), 1e-4, 'intermediates');
  });
});
