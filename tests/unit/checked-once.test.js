// Each call is checked once per layer a caller can enter: through the API, by its JS check, after which the WASM
// binding runs the call unchecked (and a pooled call's workers too), and the JS reference computes with the sizes
// the API's check returned; called directly, by the binding's check or the reference's own.
import { beforeAll, describe, expect, test, vi } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { apiChecked, whileApiChecked } from '../../web/src/core/api-checked.js';
import { createRoutingBackend } from '../../web/src/core/backends/auto.js';
import { withDeviceLossFallback } from '../../web/src/core/backends/device-loss.js';
import { computeHeadGroup } from '../../web/src/core/backends/thread-plan.js';
import { createThreadedBackend } from '../../web/src/core/backends/threads.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { ENTRIES } from '../../web/src/core/registry.js';
import { describeAdapter } from '../../web/src/gpu/device.js';
import { randomTensor } from './make-tensors.js';

// Every check the reference's functions import, counted (the API's own CHECKS table is the module's, not these).
const counted = vi.hoisted(() => ({ calls: {} }));
vi.mock('../../web/src/core/reference/checks.js', async (importOriginal) => {
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
});

/** selfAttention's options as the API completes them (the registry's defaults). */
const attentionDefaults = () => Object.fromEntries(Object.entries(ENTRIES.selfAttention.options).map(([name, spec]) => [name, spec.default]));

const withNaN = () => ({ data: Float32Array.from([0.5, NaN, 1, 2]), shape: [1, 2, 2] });

describe('checked once', () => {
  let wasm;
  beforeAll(async () => {
    wasm = await loadWasmBackend({ build: 'simd' });
  });

  test('a direct call is checked by the binding; the same call made as the API makes it runs no check there', () => {
    expect(() => wasm.softmax(withNaN(), {})).toThrow('softmax: x[1] is NaN; expected finite numbers or -Infinity');
    const unchecked = whileApiChecked(() => wasm.softmax(withNaN(), {}));
    expect(Number.isNaN(unchecked.output.data[1])).toBe(true);
    expect(apiChecked()).toBe(false);
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
  });

  test('every entry the API reaches is the unchecked twin of a checked one, with the same results', () => {
    const attention = createAttention(wasm);
    const x = randomTensor([2, 5, 4], 7);
    const viaApi = attention.softmax(x, { scale: 0.5 });
    const direct = wasm.softmax(x, { scale: 0.5 });
    expect(Array.from(viaApi.output.data)).toEqual(Array.from(direct.output.data));
  });

  test("a pooled call the API checked tells its workers so; they run the binding's unchecked entries", async () => {
    const messages = [];
    const pool = {
      workers: [0, 1],
      failed: null,
      async ask(k, message) {
        messages.push({ checked: message.checked, inScope: apiChecked() });
        const copy = structuredClone(message);
        return { part: message.checked ? whileApiChecked(() => computeHeadGroup(wasm, copy)) : computeHeadGroup(wasm, copy) };
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
    expect(counted.calls).toEqual({});
    const direct = reference.selfAttention(x, weights, { ...attentionDefaults(), causal: false });
    expect(counted.calls).toEqual({ checkSelfAttention: 1 });
    expect(Array.from(direct.output.data)).toEqual(Array.from(viaApi.output.data));
  });

  test("a call 'auto' routes to the GPU is still the API's checked call once the GPU side has loaded", async () => {
    const seen = [];
    const answer = (a, b) => ({ output: { data: new Float32Array(a.shape[0] * b.shape[1]), shape: [a.shape[0], b.shape[1]] } });
    const gpu = {
      name: 'webgpu', build: null, supportsOp: () => ({ supported: true }), onLost: () => () => {}, isLost: () => false,
      matmul: async (a, b) => { seen.push({ where: 'gpu', checked: apiChecked() }); return answer(a, b); },
    };
    const cpu = { name: 'wasm-simd', build: 'simd', matmul: (a, b) => { seen.push({ where: 'cpu', checked: apiChecked() }); return answer(a, b); } };
    const backend = createRoutingBackend(cpu, {
      adapterInfo: describeAdapter({ info: { vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100' } }),
      loadGpu: async () => withDeviceLossFallback(gpu, async () => cpu), thresholdN: 64, probe: false,
    });
    const attention = createAttention(backend);
    const square = (n) => ({ data: new Float32Array(n * n).fill(0.5), shape: [n, n] });
    await attention.matmul(square(128), square(128));
    attention.matmul(square(8), square(8));
    expect(seen).toEqual([{ where: 'gpu', checked: true }, { where: 'cpu', checked: true }]);
    expect(apiChecked()).toBe(false);
  });
});
