// Every error message and path reason that README.md and docs/api.md quote is byte-identical to what the code
// gives for the input the doc describes. The quoted messages are read from the markdown at test time (a span in
// backticks that starts with a function's name and a colon), so a message added to the docs needs a case here;
// '…' in a quote stands for the part the doc leaves out.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadAttention, FUNCTION_NAMES } from '../../web/src/index.js';
import { createTrainer } from '../../web/src/train/index.js';
import { loadEnglishModel, textTask } from '../../web/src/model/index.js';
import { resolveThreads } from '../../web/src/core/backends/thread-plan.js';
import { gpuReferenceReason } from '../../web/src/core/planner.js';
import { NAIVE_OVERFLOW, overflowCases } from './overflow-cases.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const DOCS = ['README.md', 'docs/api.md'];
// The names a quoted message may start with: the API's functions and the other calls docs/api.md documents.
const CALLERS = new Set([...FUNCTION_NAMES, 'loadAttention', 'setGpuCrossover', 'createTrainer', 'textTask', 'model.forward',
  'trainer.step', 'trainer.sync', 'trainer.evaluate', 'trainer.predict', 'trainer.attention']);

/** Every quoted message of a doc: the text of `…` spans (joined across line breaks) that start "<caller>: ". */
function quotedMessages(doc) {
  const text = readFileSync(`${ROOT}${doc}`, 'utf8').replace(/```[\s\S]*?```/g, '');
  return [...text.matchAll(/`([^`]+)`/g)].map((m) => m[1].replace(/\s*\n\s*/g, ' '))
    .filter((span) => CALLERS.has(/^([\w.]+): /.exec(span)?.[1]));
}

const tensor = (shape, fill = 0.5) => ({ data: new Float32Array(shape.reduce((a, b) => a * b, 1)).fill(fill), shape });
async function errorOf(call) {
  try {
    const result = await call();
    return result?.overflow ?? null;
  } catch (error) {
    return error;
  }
}
const messageOf = async (call) => (await errorOf(call))?.message ?? 'no error';

let attention;
let english;
beforeAll(async () => {
  attention = await loadAttention({ backend: 'wasm-simd' });
  english = await loadEnglishModel();
});

const projections = (dIn, dOut) => ({ query: tensor([dIn, dOut]), key: tensor([dIn, dOut]), value: tensor([dIn, dOut]) });
const overflow = Object.fromEntries(overflowCases().map(([, fn, args, message]) => [message, () => attention[fn](...args)]));

// The input each quoted message describes.
const CASES = {
  'multiheadAttentionSplit: d_out=10 is not divisible by heads=3':
    () => attention.multiheadAttentionSplit(tensor([1, 2, 3]), projections(3, 10), { heads: 3 }),
  'softmax: the scaled scores overflow float32 (scale=-2000 makes scale·x reach -Infinity)':
    () => attention.softmax({ data: Float32Array.from([3.4e38, -Infinity]), shape: [2] }, { scale: -2000 }),
  'layerNorm: options.weight has shape [4]; expected [C=3] (the last axis of x)':
    () => attention.layerNorm(tensor([2, 3]), { weight: tensor([4]) }),
  "gelu: options.approximate='fast'; expected 'none' or 'tanh'": () => attention.gelu(tensor([2]), { approximate: 'fast' }),
  "loadAttention: options.gpuProbe='yes'; expected true or false": () => loadAttention({ gpuProbe: 'yes' }),
  'setGpuCrossover: thresholdN=0; expected a positive integer or null': async () => (await loadAttention()).setGpuCrossover(0),
  "loadAttention: unknown option 'foo'; expected one of backend, threads, wasmBinary, locateFile, gpuCrossover, gpuProbe, memoryLimit":
    () => loadAttention({ foo: 1 }),
  "loadAttention: options.threads=0; expected 'auto' or an integer from 1 to 64": () => loadAttention({ threads: 0 }),
  // x [1, 512, 3072], (3072, 1024) projections; the wasm-simd module at load has 53 MiB left of 64 MiB.
  'selfAttention: B=1, T=512 needs 28.3 MB for its results and workspace and 44.0 MB for the copies of its inputs; the memory limit is 53 MiB':
    async () => (await loadAttention({ backend: 'wasm-simd', memoryLimit: 64 * 2 ** 20 })).selfAttention(tensor([1, 512, 3072]), projections(3072, 1024)),
  'loadAttention: options.memoryLimit=1000; expected an integer number of bytes from 1048576 (1 MiB) to 2147483648 (2 GiB)':
    () => loadAttention({ memoryLimit: 1000 }),
  'selfAttentionBackward: weights.query has shape …':
    () => attention.selfAttentionBackward(tensor([1, 2, 3]), { ...projections(3, 2), query: tensor([4, 2]) }, tensor([1, 2, 2])),
  "selfAttentionBackward: gradOutput has shape [1, 2, 3]; expected [1, 2, 2], the shape of the forward's output":
    () => attention.selfAttentionBackward(tensor([1, 2, 3]), projections(3, 2), tensor([1, 2, 3])),
  'createTrainer: dModel=5 is not divisible by heads=2': () => createTrainer({ vocabSize: 4, contextLength: 4, dModel: 5, heads: 2 }),
  'trainer.step: the trainer was disposed; …': async () => {
    const trainer = await createTrainer({ vocabSize: 4, contextLength: 4, dModel: 4 });
    trainer.dispose();
    return trainer.step({ inputs: { data: new Int32Array(4), shape: [1, 4] }, targets: { data: new Int32Array(4), shape: [1, 4] } });
  },
  'model.forward: options.headsOff[0] is [2,0]; expected [layer, head] with layer 0 to 1 and head 0 to 3':
    () => english.forward([1, 2, 3], { headsOff: [[2, 0]] }),
  'textTask: ids has 2 tokens; expected at least 4': () => textTask([1, 2], { contextLength: 4 }),
  'selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]':
    () => attention.selfAttention(tensor([1, 2, 3]), { ...projections(3, 2), query: tensor([4, 2]) }),
  'attentionDropout: options.dropout=0.99999999999; expected a number in [0, 1) after rounding to float32 (0.99999999999 becomes 1)':
    () => attention.attentionDropout(tensor([2, 2]), { dropout: 0.99999999999 }),
  ...overflow,
  [NAIVE_OVERFLOW.overflow.message]: () => attention.softmax(...NAIVE_OVERFLOW.args()),
};
// Quoted messages that need what Node lacks, and the test that gives each its input there.
const ELSEWHERE = {
  'matmul: WebGPU validation error (a bug in the kernels or their bindings): …': 'tests/unit/gpu-failures.test.js (a WebGPU device)',
  'multiheadAttentionFused: a worker failed: …': 'tests/unit/threads.test.js (a failing worker)',
};

const matches = (message, quoted) => {
  const parts = quoted.split(' …').join('…').split('…');
  return parts.length === 1 ? message === quoted
    : new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*')}$`, 's').test(message);
};

describe('the messages the docs quote', () => {
  const quoted = [...new Set(DOCS.flatMap(quotedMessages))];

  test('every quoted message has a case (here, or in the test named for it)', () => {
    expect(quoted.length).toBeGreaterThan(20);
    for (const message of quoted) expect(message in CASES || message in ELSEWHERE, message).toBe(true);
    for (const message of [...Object.keys(CASES).filter((m) => !m.includes(' overflow')), ...Object.keys(ELSEWHERE)]) {
      expect(quoted, 'a case whose message the docs no longer quote').toContain(message);
    }
  });

  test.each(quoted.filter((m) => m in CASES))('%s', async (message) => {
    const got = await messageOf(CASES[message]);
    expect(matches(got, message), got).toBe(true);
  });

  test('a bad input is an Error with the fields "Errors" lists, its message formatted from them', async () => {
    const error = await errorOf(CASES['selfAttention: weights.query has shape [4, 2]; expected [d_in=3, d_out]']);
    expect(error).toBeInstanceOf(Error);
    expect({ fn: error.fn, argument: error.argument, value: error.value, expected: error.expected, kind: error.kind })
      .toEqual({ fn: 'selfAttention', argument: 'weights.query', value: [4, 2], expected: '[d_in=3, d_out]', kind: 'shape' });
    const overflowed = await errorOf(CASES['selfAttention: the scaled scores overflow float32 (temperature=1e-45 makes q·k/τ reach Infinity)']);
    expect({ fn: overflowed.fn, argument: overflowed.argument, value: overflowed.value, expected: overflowed.expected,
      kind: overflowed.kind, stage: overflowed.stage, reached: overflowed.reached })
      .toEqual({ fn: 'selfAttention', argument: 'temperature', value: 1e-45, expected: 'finite results', kind: 'overflow',
        stage: 'scaled scores', reached: 'Infinity' });
  });

  test('the module works as before after those errors', () => {
    expect(attention.softmax(tensor([3])).output.data[0]).toBeCloseTo(1 / 3, 6);
  });
});

// The reasons `lastCall`, `threadsReason` and the registry give, as docs/api.md quotes them.
const REASONS = [
  ['intermediates false, no dropout, no mask other than neg_inf: the fused kernel', () => {
    attention.multiheadAttentionSplit(tensor([1, 4, 4]), projections(4, 4), { heads: 2, causal: true, intermediates: false });
    return attention.lastCall.reason;
  }],
  ['intermediates false, no dropout, no mask other than neg_inf: the fused kernel, which skips the padded keys of options.keyPaddingMask', () => {
    const keyPaddingMask = { data: Uint8Array.of(0, 0, 0, 1), shape: [1, 4] };
    attention.multiheadAttentionSplit(tensor([1, 4, 4]), projections(4, 4), { heads: 2, intermediates: false, keyPaddingMask });
    return attention.lastCall.reason;
  }],
  ['options.attnMask: the teaching code (the fused kernel takes no attention mask)', () => {
    const attnMask = { data: new Uint8Array(16).fill(1), shape: [4, 4] };
    attention.multiheadAttentionSplit(tensor([1, 4, 4]), projections(4, 4), { heads: 2, intermediates: false, attnMask });
    return attention.lastCall.reason;
  }],
  ['intermediates false, no dropoutP, no attnMask: the fused kernel, the leading axes as batch×heads', () => {
    attention.scaledDotProductAttention(tensor([2, 3, 4]), tensor([2, 5, 4]), tensor([2, 5, 4]), { intermediates: false });
    return attention.lastCall.reason;
  }],
  ["Ev=3 ≠ E=4: the teaching code, output only (the WASM fused kernel's values are as wide as its keys)", () => {
    attention.scaledDotProductAttention(tensor([2, 3, 4]), tensor([2, 5, 4]), tensor([2, 5, 3]), { intermediates: false });
    return attention.lastCall.reason;
  }],
  ["intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form", async () => {
    const js = await loadAttention({ backend: 'js' });
    js.scaledDotProductAttention(tensor([3, 4]), tensor([5, 4]), tensor([5, 4]), { intermediates: false, isCausal: true });
    return js.lastCall.reason;
  }],
  ...[['the intermediates are asked for: the teaching code', {}], ['dropoutP > 0: the teaching code', { intermediates: false, dropoutP: 0.5 }],
    ['options.attnMask: the teaching code (the fused form takes only isCausal)', { intermediates: false, attnMask: tensor([3, 5], 0) }]]
    .map(([reason, options]) => [reason, async () => {
      const js = await loadAttention({ backend: 'js' });
      js.scaledDotProductAttention(tensor([3, 4]), tensor([5, 4]), tensor([5, 4]), options);
      return js.lastCall.reason;
    }]),
  ["dropout > 0 with dropoutRng 'torch': torch's mask is drawn in order, on the teaching path only", () => {
    attention.multiheadAttentionSplit(tensor([1, 4, 4]), projections(4, 4), { heads: 2, intermediates: false, dropout: 0.5, dropoutRng: 'torch' });
    return attention.lastCall.reason;
  }],
  // The webgpu backend's reason for running the JS reference (lastCall.reason there).
  ["scaledDotProductAttention does matrix work (Q·Kᵀ, weights·V), but the WGSL passes project (B, T, C) inputs and take no (…, L, E) batches of q, k, v, attnMask or Ev ≠ E; the JS reference computes it",
    () => gpuReferenceReason('scaledDotProductAttention')],
  ['layerNorm has no matrix work; the JS reference computes it', () => gpuReferenceReason('layerNorm')],
  ['gelu has no matrix work; the JS reference computes it', () => gpuReferenceReason('gelu')],
  ['this environment has no Web Worker', async () => (await loadAttention({ threads: 2 })).threadsReason],
  ["threads 'auto' uses workers only on a cross-origin isolated page (COOP/COEP headers); this one is not",
    () => resolveThreads('auto', { crossOriginIsolated: false, hasWorker: true, hardwareConcurrency: 8 }).reason],
];

describe('the reasons docs/api.md quotes', () => {
  const api = readFileSync(`${ROOT}docs/api.md`, 'utf8').replace(/\s*\n\s*/g, ' ');
  test.each(REASONS)('%s', async (reason, call) => {
    expect(api).toContain(reason);
    expect(await call()).toBe(reason);
  });
});
