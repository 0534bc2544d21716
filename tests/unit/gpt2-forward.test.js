// GPT-2's forward on every backend and path against the PyTorch fixtures (tests/fixtures/gpt2/make_fixtures.py):
// the tiny checkpoint's logits (1e-4) and every layer's attention weights (1e-5) for sequences of 1 to 32
// tokens, on the JS reference ('teaching'), the WASM fast path without weights (the fused kernel: 'fused') and
// with them ('weights'), SIMD and baseline builds; the float16 checkpoint against PyTorch's float16 run;
// ablation the same on every path; and the forward's errors.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { loadAttention } from '../../web/src/core/index.js';
import { ablate, headScores } from '../../web/src/model/index.js';
import { gpt2ParametersFromSafetensors } from '../../web/src/gpt2/checkpoint-stream.js';
import { loadGpt2FromDirectory } from '../../web/src/gpt2/load.js';
import { createGpt2 } from '../../web/src/gpt2/model.js';
import { readSafetensorsHeader, readTensor } from '../../web/src/gpt2/safetensors-read.js';
import { compareTensors } from './tolerance.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const { cases } = JSON.parse(readFileSync(`${DIR}forward.json`, 'utf8'));
const outputBytes = new Uint8Array(readFileSync(`${DIR}forward.safetensors`));
const outputs = readSafetensorsHeader(outputBytes, 'forward.safetensors');
const expected = (name) => readTensor(outputBytes, outputs, name, 'forward.safetensors');
const LOGITS = { atol: 1e-4, rtol: 1e-4 };
const WEIGHTS = { atol: 1e-5, rtol: 1e-5 };
const BACKENDS = process.env.AP_BACKENDS ? process.env.AP_BACKENDS.split(',') : ['js', 'wasm-simd', 'wasm-baseline'];

const checkpoint = await loadGpt2FromDirectory(DIR);
const models = {};
beforeAll(async () => {
  for (const backend of BACKENDS) models[backend] = await createGpt2(checkpoint, { backend });
});
afterAll(() => { for (const model of Object.values(models)) model.dispose(); });

function expectClose(actual, want, tolerance, label) {
  const { report } = compareTensors(actual, want, tolerance);
  expect(report, label).toBe('');
}

describe.each(BACKENDS)('GPT-2 forward on %s matches PyTorch', (backend) => {
  cases.forEach(({ name, tokens }, i) => {
    it(`${name}: logits without the weights (the fused path), logits and every layer's weights with them`, () => {
      const model = models[backend];
      const plain = model.forward(tokens, { attention: false });
      expectClose(plain.logits, expected(`${i}.logits`), LOGITS, 'logits');
      expect(plain.attention).toBeUndefined();
      expect(model.lastCall).toMatchObject({ backend, path: backend === 'js' ? 'teaching' : 'fused' });
      const full = model.forward(tokens);
      expect(model.lastCall.path).toBe(backend === 'js' ? 'teaching' : 'weights');
      expectClose(full.logits, expected(`${i}.logits`), LOGITS, 'logits with weights');
      expect(full.tokens).toEqual(Int32Array.from(tokens));
      expect(full.attention).toHaveLength(2);
      full.attention.forEach((weights, l) => expectClose(weights, expected(`${i}.attention.${l}`), WEIGHTS, `layer ${l} weights`));
    });
  });
});

describe.each(['js', 'wasm-simd'])("GPT-2 composed of the attention API's functions on %s matches PyTorch", (backend) => {
  it('logits and every layer\'s weights, each call on the path its planner picks', async () => {
    const model = await createGpt2(checkpoint, { attention: await loadAttention({ backend }) });
    const { tokens } = cases[3];
    expectClose((await model.forward(tokens, { attention: false })).logits, expected('3.logits'), LOGITS, 'logits');
    expect(model.lastCall.backend).toBe(`api:${backend}`);
    expect(model.lastCall.path).toMatch(/multiheadAttentionFused: (fused|teaching)/);
    const full = await model.forward(tokens);
    full.attention.forEach((weights, l) => expectClose(weights, expected(`3.attention.${l}`), WEIGHTS, `layer ${l} weights`));
    const headsOff = [[0, 1], [1, 3]];
    expectClose((await model.forward(tokens, { headsOff })).logits, models.js.forward(tokens, { headsOff }).logits, LOGITS, 'ablated logits');
  });
});

describe('GPT-2 forward, other checks', () => {
  it('runs the float16 checkpoint as PyTorch does (its weights widened to float32)', async () => {
    const half = { ...checkpoint, parameters: gpt2ParametersFromSafetensors(new Uint8Array(readFileSync(`${DIR}model-f16.safetensors`)), checkpoint.config) };
    const model = await createGpt2(half, { backend: 'wasm-simd' });
    expectClose(model.forward(cases[3].tokens).logits, expected('3.logits16'), LOGITS, 'float16 logits');
    model.dispose();
  });
  it('ablates the same heads the same way on every path (zeros and means), and an ablated head changes the logits', () => {
    const tokens = cases[2].tokens;
    const headsOff = [[0, 1], [1, 3]];
    for (const ablation of ['zero', 'mean']) {
      const reference = models.js.forward(tokens, { headsOff, ablation });
      for (const backend of ['wasm-simd', 'wasm-baseline']) {
        for (const attention of [false, true]) {
          expectClose(models[backend].forward(tokens, { headsOff, ablation, attention }).logits, reference.logits, LOGITS, `${backend} ${ablation} ${attention}`);
        }
      }
      const intact = models.js.forward(tokens).logits.data;
      expect(Math.max(...reference.logits.data.map((v, i) => Math.abs(v - intact[i])))).toBeGreaterThan(1e-2);
    }
    const zero = models.js.forward(tokens, { headsOff }).logits.data;
    const mean = models.js.forward(tokens, { headsOff, ablation: 'mean' }).logits.data;
    expect(Math.max(...zero.map((v, i) => Math.abs(v - mean[i])))).toBeGreaterThan(1e-3);
  });
  it('gives every layer\'s tensors with intermediates (the JS reference on any engine)', () => {
    const { tokens } = cases[1];
    const full = models['wasm-simd'].forward(tokens, { intermediates: true });
    expect(models['wasm-simd'].lastCall).toMatchObject({ backend: 'js', path: 'teaching' });
    expect(full.layers).toHaveLength(2);
    expect(Object.keys(full.layers[0])).toEqual(['input', 'normed', 'query', 'key', 'value', 'weights', 'context', 'output']);
    expect(full.layers[1].query.shape).toEqual([tokens.length, 32]);
    expectClose(full.layers[0].weights, expected('1.attention.0'), WEIGHTS, 'layer 0 weights');
    expectClose(full.logits, expected('1.logits'), LOGITS, 'logits');
  });
  it("is read by the model interface's headScores and ablate", () => {
    const scores = headScores(models['wasm-simd'], { count: 2, length: 16 });
    expect(scores.heads).toHaveLength(8);
    for (const head of scores.heads) expect(head.previousToken).toBeGreaterThanOrEqual(0);
    const result = ablate(models['wasm-simd'], Int32Array.from(cases[3].tokens), [[1, 0]]);
    expect(result.after.loss).not.toBe(result.before.loss);
  });
  it('is a model of the model interface: name, tokenizer.tokenText, config.dHead', () => {
    const model = models.js;
    expect(model.name).toBe('gpt2');
    expect(model.config.dHead).toBe(8);
    const ids = model.tokenizer.encode(' the cat');
    expect(ids).toBeInstanceOf(Int32Array);
    expect(Array.from(ids, (id) => model.tokenizer.tokenText(id))).toEqual([' the', ' c', 'at']);
  });
  it('names what is wrong with tokens and headsOff', () => {
    const model = models['wasm-simd'];
    expect(() => model.forward([])).toThrow('gpt2.forward: tokens has 0 ids; expected 1 to 32 (the model\'s context length)');
    expect(() => model.forward(new Array(33).fill(1))).toThrow(/tokens has 33 ids; expected 1 to 32/);
    expect(() => model.forward([1, 287])).toThrow('gpt2.forward: tokens[1] is 287; expected an integer id in [0, 287)');
    expect(() => model.forward('abc')).toThrow(/tokens is string; expected an array of token ids/);
    expect(() => model.forward([1], { headsOff: [[2, 0]] })).toThrow('gpt2.forward: options.headsOff[0] is [2,0]; expected [layer, head] with layer 0 to 1 and head 0 to 3');
    expect(() => model.forward([1], { headsOff: 5 })).toThrow('gpt2.forward: options.headsOff is 5; expected an array of [layer, head] pairs (0-based)');
    expect(() => model.forward([1], { ablation: 'resample' })).toThrow("gpt2.forward: options.ablation='resample'; expected 'zero' or 'mean'");
    expect(model.forward([5]).logits.shape).toEqual([1, 287]);
  });
  it('on WebGPU, names the tensor a device cannot bind in one buffer (before any pass runs; wte is cut into row blocks)', async () => {
    const { createWebGpuGpt2 } = await import('../../web/src/gpt2/webgpu-model.js');
    globalThis.GPUBufferUsage ??= { STORAGE: 0x80, COPY_DST: 0x8, COPY_SRC: 0x4, MAP_READ: 0x1, UNIFORM: 0x40 };
    const destroyed = [];
    const device = {
      limits: { maxStorageBufferBindingSize: 12 * 1024, maxBufferSize: 2 ** 30, maxComputeWorkgroupsPerDimension: 65535 },
      createBuffer: ({ label }) => ({ label, destroy: () => destroyed.push(label) }),
      queue: { writeBuffer() {} },
    };
    await expect(createWebGpuGpt2(checkpoint.config, checkpoint.parameters, { device }))
      .rejects.toThrow('createGpt2: h.0.mlp.c_fc.weight needs 0.02 MiB in one buffer; this WebGPU device binds at most 0.01 MiB per buffer');
    expect(destroyed).toEqual(['gpt2: vectors', 'gpt2: h.0.attn.c_attn.weight', 'gpt2: h.0.attn.c_proj.weight']);
  });
  it('encodes text with the checkpoint\'s tokenizer', () => {
    const ids = models.js.tokenizer.encode('the cat');
    expect(models.js.forward(ids).logits.shape).toEqual([ids.length, 287]);
  });
});
