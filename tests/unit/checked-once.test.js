// Each call is checked once per layer a caller can enter: through the API, by its JS check, after which the
// backend it budgeted the call for runs it unchecked (the WASM binding's unchecked entry, a pooled call's workers,
// the JS reference with the sizes the API's check returned); called directly, by the binding's check or the
// reference's own. And what the API checked is what runs: a snapshot of the caller's tensors.
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { apiChecked, whileApiChecked } from '../../web/src/core/api-checked.js';
import { createRoutingBackend } from '../../web/src/core/backends/auto.js';
import { withDeviceLossFallback } from '../../web/src/core/backends/device-loss.js';
import { computeHeadGroup } from '../../web/src/core/backends/thread-plan.js';
import { createThreadedBackend } from '../../web/src/core/backends/threads.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { loadAttention } from '../../web/src/core/index.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { ENTRIES } from '../../web/src/core/registry.js';
import { describeAdapter } from '../../web/src/gpu/device.js';
import { randomTensor } from './make-tensors.js';

// Every check the reference's functions import, counted (the API's own CHECKS table holds the module's own
// functions, not these), and the helpers every check is built from (the API's check counts there too).
const counted = vi.hoisted(() => ({
  calls: {},
  async wrap(importOriginal) {
    const original = await importOriginal();
    const wrapped = { ...original };
    for (const [name, value] of Object.entries(original)) {
      if (typeof value !== 'function' || !name.startsWith('check')) continue;
      wrapped[name] = (...args) => {
        counted.calls[name] = (counted.calls[name] ?? 0) + 1;
        return value(...args);
      };
    }
    return wrapped;
  },
}));
vi.mock('../../web/src/core/reference/checks.js', (importOriginal) => counted.wrap(importOriginal));
vi.mock('../../web/src/core/reference/check-helpers.js', (importOriginal) => counted.wrap(importOriginal));

/** selfAttention's options as the API completes them (the registry's defaults). */
const attentionDefaults = () => Object.fromEntries(Object.entries(ENTRIES.selfAttention.options).map(([name, spec]) => [name, spec.default]));

const withNaN = () => ({ data: Float32Array.from([0.5, NaN, 1, 2]), shape: [1, 2, 2] });
const square = (n) => ({ data: new Float32Array(n * n).fill(0.5), shape: [n, n] });
const H100 = () => describeAdapter({ info: { vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100' } });

describe('checked once', () => {
  let wasm;
  beforeAll(async () => {
    wasm = await loadWasmBackend({ build: 'simd' });
  });

  test('a direct call is checked by the binding; the same call made as the API makes it runs no check there', () => {
    expect(() => wasm.softmax(withNaN(), {})).toThrow('softmax: x[1] is NaN; expected finite numbers or -Infinity');
    const unchecked = whileApiChecked(() => wasm.softmax(withNaN(), {}), { fn: 'softmax', backend: wasm.name });
    expect(Number.isNaN(unchecked.output.data[1])).toBe(true);
    // only that function, on the backend the API budgeted it for
    expect(() => whileApiChecked(() => wasm.softmax(withNaN(), {}), { fn: 'gelu', backend: wasm.name })).toThrow(/x\[1\] is NaN/);
    expect(() => whileApiChecked(() => wasm.softmax(withNaN(), {}), { fn: 'softmax', backend: 'webgpu' })).toThrow(/x\[1\] is NaN/);
    expect(apiChecked('softmax')).toBe(false);
    // the module keeps working, checked again outside the scope
    expect(() => wasm.softmax(withNaN(), {})).toThrow(/x\[1\] is NaN/);
  });

  test('through the API the JS check refuses bad values with the words of the binding, before the module is asked', () => {
    const attention = createAttention(wasm);
    let direct;
    try {
      wasm.softmax(withNaN(), {});
    } catch (error) {
      direct = error.message;
    }
    expect(() => attention.softmax(withNaN())).toThrow(direct);
    expect(() => attention.softmax(withNaN())).toThrow(expect.objectContaining({ fn: 'softmax', kind: 'value' }));
    // an API call made from inside another's checks in full
    const nested = () => whileApiChecked(() => attention.softmax(withNaN()), { fn: 'softmax', backend: wasm.name });
    expect(nested).toThrow(expect.objectContaining({ fn: 'softmax', kind: 'value' }));
  });

  test('every entry the API reaches is the unchecked twin of a checked one, with the same results', () => {
    const attention = createAttention(wasm);
    const x = randomTensor([2, 5, 4], 7);
    const viaApi = attention.softmax(x, { scale: 0.5 });
    const direct = wasm.softmax(x, { scale: 0.5 });
    expect(Array.from(viaApi.output.data)).toEqual(Array.from(direct.output.data));
  });

  test('the API checks every call against what the module has left, small ones too', async () => {
    // docs/api.md "Memory": a 64 MiB limit, of which the module at load has about 53 MiB left; 30 MiB in, 30 out
    const attention = await loadAttention({ backend: 'wasm-simd', memoryLimit: 64 * 2 ** 20, threads: 1 });
    const n = 7.5 * 2 ** 20;
    const before = attention.memory.bytes;
    expect(() => attention.gelu({ data: new Float32Array(n).fill(0.5), shape: [n] }))
      .toThrow(/^gelu: x of shape \[7864320\] needs 31\.5 MB for its results and workspace and 31\.5 MB for the copies of its inputs; the memory limit is \d+ MiB$/);
    expect(attention.memory.bytes).toBe(before);
    expect(attention.gelu({ data: new Float32Array(4).fill(0.5), shape: [4] }).output.shape).toEqual([4]);
  });

  test('what the API checked is what runs: a tensor read through getters is read once', () => {
    const attention = createAttention(wasm);
    const small = { data: new Float32Array(4).fill(1), shape: [1, 1, 4] };
    const big = { data: new Float32Array(4096).fill(1), shape: [1, 1, 4096] };
    let reads = 0;
    const a = {
      get shape() { reads += 1; return reads > 1 ? big.shape : small.shape; },
      get data() { return reads > 1 ? big.data : small.data; },
    };
    const b = { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [4, 4] };
    expect(Array.from(attention.matmul(a, b).output.data)).toEqual([24, 28, 32, 36]);
    expect(reads).toBe(1);
  });

  test('a call planned onto a path whose rule refuses it is an Error from the unchecked entry, not a throw inside WASM', () => {
    const x = randomTensor([1, 4, 8], 1);
    const weights = { query: randomTensor([8, 8], 2), key: randomTensor([8, 8], 3), value: randomTensor([8, 8], 4) };
    const call = () => whileApiChecked(() => wasm.multiheadAttentionSplit(x, weights, { heads: 2, intermediates: true, path: 'fused' }),
      { fn: 'multiheadAttentionSplit', backend: wasm.name });
    expect(call).toThrow('multiheadAttentionSplit: the call was planned onto the fused kernel, whose rule does not take its options (intermediates, dropout, mask, attnMask or xValue): the planner and the kernel disagree');
    expect(wasm.multiheadAttentionSplit(x, weights, { heads: 2, intermediates: false }).output.shape).toEqual([1, 4, 8]);
  });

  test("a pooled call the API checked tells its workers so; they run the binding's unchecked entries", async () => {
    const messages = [];
    const pool = {
      workers: [0, 1],
      failed: null,
      async ask(k, message) {
        messages.push({ checked: message.checked, inScope: apiChecked('multiheadAttentionSplit') });
        const copy = structuredClone(message);
        return { part: computeHeadGroup(wasm, copy) };
      },
      terminate() {},
    };
    const attention = createAttention(createThreadedBackend(wasm, pool, { crossover: { workPerFloat: 0, minWork: 0 } }));
    const d = 32;
    const x = randomTensor([1, 12, d], 1);
    const weights = { query: randomTensor([d, d], 2), key: randomTensor([d, d], 3), value: randomTensor([d, d], 4) };
    const pooled = await attention.multiheadAttentionSplit(x, weights, { heads: 4, intermediates: false });
    expect(attention.lastCall.path).toBe('workers');
    expect(messages).toEqual([{ checked: true, inScope: true }, { checked: true, inScope: true }]);
    const one = wasm.multiheadAttentionSplit(x, weights, { heads: 4, intermediates: false });
    const most = Math.max(...one.output.data.map((v, i) => Math.abs(v - pooled.output.data[i])));
    expect(most).toBeLessThan(1e-5);
  });

  test("through the API the JS reference computes with the sizes the API's check returned; called directly it checks", () => {
    const reference = createReferenceBackend();
    const attention = createAttention(reference);
    const x = randomTensor([1, 6, 4], 3);
    const weights = { query: randomTensor([4, 2], 4), key: randomTensor([4, 2], 5), value: randomTensor([4, 2], 6) };
    counted.calls = {};
    const viaApi = attention.selfAttention(x, weights);
    attention.softmax(x);
    attention.multiheadAttentionSplit(x, { ...weights, query: randomTensor([4, 4], 7), key: randomTensor([4, 4], 8), value: randomTensor([4, 4], 9) }, { heads: 2 });
    expect(Object.keys(counted.calls).filter((name) => ['checkSelfAttention', 'checkSoftmax', 'checkMultiheadAttentionSplit'].includes(name))).toEqual([]);
    // gelu's check returns nothing: the API's one run of its structure check is still the only one
    counted.calls = {};
    attention.gelu(x);
    expect(counted.calls.checkAnyTensor).toBe(1);
    counted.calls = {};
    const direct = reference.selfAttention(x, weights, { ...attentionDefaults(), causal: false });
    expect(counted.calls.checkSelfAttention).toBe(1);
    expect(Array.from(direct.output.data)).toEqual(Array.from(viaApi.output.data));
  });

  test('the stacked and fused backwards check their own arguments once, not again as the split form they join into', () => {
    const reference = createReferenceBackend();
    const attention = createAttention(reference);
    const x = randomTensor([1, 5, 4], 11);
    const heads = [0, 1].map((h) => ({ query: randomTensor([4, 2], 12 + h), key: randomTensor([4, 2], 14 + h), value: randomTensor([4, 2], 16 + h) }));
    const fused = { inProjection: randomTensor([4, 12], 18) };
    const gradOutput = randomTensor([1, 5, 4], 19);
    const checks = ['checkMultiheadAttentionStacked', 'checkMultiheadAttentionFused', 'checkMultiheadAttentionSplit'];
    const counts = () => Object.fromEntries(checks.filter((name) => counted.calls[name]).map((name) => [name, counted.calls[name]]));
    counted.calls = {};
    const viaApi = attention.multiheadAttentionStackedBackward(x, { heads }, gradOutput);
    attention.multiheadAttentionFusedBackward(x, fused, gradOutput, { heads: 2 });
    expect(counts()).toEqual({});
    counted.calls = {};
    const direct = reference.multiheadAttentionStackedBackward(x, { heads }, gradOutput, {});
    reference.multiheadAttentionFusedBackward(x, fused, gradOutput, { heads: 2 });
    expect(counts()).toEqual({ checkMultiheadAttentionStacked: 1, checkMultiheadAttentionFused: 1 });
    expect(Array.from(direct.heads[1].key.data)).toEqual(Array.from(viaApi.heads[1].key.data));
  });

  test("a call 'auto' routes to the GPU is still the API's checked call once the GPU side has loaded", async () => {
    const seen = [];
    const answer = (a, b) => ({ output: { data: new Float32Array(a.shape[0] * b.shape[1]), shape: [a.shape[0], b.shape[1]] } });
    let supported = true;
    const gpu = {
      name: 'webgpu', build: null, supportsOp: () => ({ supported, reason: 'refused' }), onLost: () => () => {}, isLost: () => false,
      matmul: async (a, b) => { seen.push({ where: 'gpu', checked: apiChecked('matmul') }); return answer(a, b); },
    };
    const cpu = { name: 'wasm-simd', build: 'simd', matmul: (a, b) => { seen.push({ where: 'cpu', checked: apiChecked('matmul', 'wasm-simd') }); return answer(a, b); } };
    const backend = createRoutingBackend(cpu, {
      adapterInfo: H100(), loadGpu: async () => withDeviceLossFallback(gpu, async () => cpu), thresholdN: 64, probe: false,
    });
    const attention = createAttention(backend);
    await attention.matmul(square(128), square(128));
    attention.matmul(square(8), square(8));
    // the GPU side loaded and refusing: the API budgeted the call for the CPU, which then runs it as checked
    supported = false;
    await attention.matmul(square(128), square(128));
    expect(seen).toEqual([{ where: 'gpu', checked: true }, { where: 'cpu', checked: true }, { where: 'cpu', checked: true }]);
    expect(apiChecked('matmul')).toBe(false);
  });

  test('once a lost GPU has switched to WASM, later calls run there as the checked call the API budgeted for it', async () => {
    const seen = [];
    const answer = (a, b) => ({ output: { data: new Float32Array(a.shape[0] * b.shape[1]), shape: [a.shape[0], b.shape[1]] } });
    let lose;
    const gpu = {
      name: 'webgpu', build: null, onLost: (listener) => { lose = listener; return () => {}; }, isLost: () => false,
      matmul: async () => { throw new Error('not reached'); },
    };
    const fallback = { name: 'wasm-simd', build: 'simd', matmul: (a, b) => { seen.push(apiChecked('matmul', 'wasm-simd')); return answer(a, b); } };
    const attention = createAttention(withDeviceLossFallback(gpu, async () => fallback));
    lose(new Error('device lost'));
    await attention.matmul(square(4), square(4)); // met the switch: after an await, checked where it lands
    await attention.matmul(square(4), square(4));
    expect(seen).toEqual([false, true]);
  });
});
