// scaledDotProductAttention beyond the fixtures (tests/fixtures/scaledDotProductAttention.json, run by
// steps.test.js on every backend): its errors, in the same words on every backend, and its path.
import { beforeAll, describe, expect, test } from 'vitest';
import { BACKENDS, attentionFor } from './backends.js';
import { loadAttention } from '../../web/src/core/index.js';
import { defaultIntermediates, gpuReferenceReason, INTERMEDIATES_LIMIT, plan, sdpaRoute } from '../../web/src/core/planner.js';

const tensor = (shape, fill = (i) => ((i % 7) - 3) / 4) => {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, (_, i) => fill(i)), shape };
};
const q = tensor([2, 3, 4]);
const k = tensor([2, 5, 4]);
const v = tensor([2, 5, 3]);

for (const backend of BACKENDS) {
  describe(`scaledDotProductAttention on ${backend}`, () => {
    let attention;
    beforeAll(async () => {
      attention = await attentionFor(backend);
    });

    const refused = (args, message) => expect(() => attention.scaledDotProductAttention(...args)).toThrow(message);

    test('a boolean mask other than 0/1 is refused, naming the entry', () => {
      const mask = { data: Uint8Array.from([1, 1, 2, 1, 0]), shape: [5] };
      refused([q, k, v, { attnMask: mask }],
        'scaledDotProductAttention: options.attnMask.data[2] is 2; expected 0 or 1 (a boolean mask: 1 = may attend)');
    });

    test('a mask that does not broadcast to (…, L, S) is refused', () => {
      refused([q, k, v, { attnMask: { data: new Float32Array(4), shape: [4] } }],
        'scaledDotProductAttention: options.attnMask has shape [4]; expected a shape broadcastable to [2, 3, 5] (…, L, S)');
      refused([q, k, v, { attnMask: { data: new Uint8Array(30), shape: [1, 2, 3, 5] } }],
        'scaledDotProductAttention: options.attnMask has shape [1, 2, 3, 5]; expected a shape broadcastable to [2, 3, 5] (…, L, S)');
    });

    test('a mask that is not a tensor of Uint8Array or Float32Array is refused', () => {
      refused([q, k, v, { attnMask: { data: new Int32Array(5), shape: [5] } }], 'scaledDotProductAttention: options.attnMask=');
    });

    test('isCausal with attnMask is an Error, as PyTorch', () => {
      refused([q, k, v, { isCausal: true, attnMask: { data: new Uint8Array(5).fill(1), shape: [5] } }],
        'scaledDotProductAttention: options.isCausal=true; expected false when options.attnMask is given (as PyTorch)');
    });

    test('E, S and the leading axes must agree', () => {
      refused([q, tensor([2, 5, 3]), v], 'scaledDotProductAttention: key has shape [2, 5, 3]; expected E=4 in its last axis, as query');
      refused([q, k, tensor([2, 4, 3])], 'scaledDotProductAttention: value has shape [2, 4, 3]; expected S=5 in its second-to-last axis, as key');
      refused([q, tensor([3, 5, 4]), v], 'scaledDotProductAttention: key has shape [3, 5, 4]; expected the leading axes of query [2, 3, 4]');
      refused([q, tensor([5, 4]), v], 'scaledDotProductAttention: key has shape [5, 4]; expected rank 3, the rank of query (…, S, E)');
      refused([tensor([4]), k, v], 'scaledDotProductAttention: query has shape [4]; expected rank ≥ 2 (…, L, E)');
    });

    test('scale is a finite number or null; dropoutP in [0, 1)', () => {
      refused([q, k, v, { scale: Infinity }], 'scaledDotProductAttention: options.scale=Infinity; expected a finite number, or null for 1/√E');
      refused([q, k, v, { dropoutP: 1 }], 'scaledDotProductAttention: options.dropoutP=1; expected a number in [0, 1)');
    });

    test('intermediates false gives the output alone; the planner names the path: fused on js, on WASM where Ev = E', async () => {
      for (const options of [{ isCausal: true }, {}, { scale: -0.75 }, { isCausal: true, scale: 0.5 }]) {
        const all = await attention.scaledDotProductAttention(q, k, v, options);
        const alone = await attention.scaledDotProductAttention(q, k, v, { ...options, intermediates: false });
        expect(Object.keys(alone)).toEqual(['output']);
        expect(Array.from(alone.output.data)).toEqual(Array.from(all.output.data));
        expect(attention.lastCall).toMatchObject(backend === 'js'
          ? { fn: 'scaledDotProductAttention', path: 'fused', reason: "intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form" }
          : { fn: 'scaledDotProductAttention', path: 'teaching', reason: 'Ev=3 ≠ E=4: the teaching code, output only (the WASM fused kernel\'s values are as wide as its keys)' });
      }
      // Ev = E: the WASM builds' fused kernel too, its output the teaching code's to 1e-6 (a different summation order)
      const v4 = tensor([2, 5, 4], (i) => ((i % 5) - 2) / 3);
      for (const options of [{ isCausal: true }, {}, { scale: 0.5 }]) {
        const all = await attention.scaledDotProductAttention(q, k, v4, options);
        const alone = await attention.scaledDotProductAttention(q, k, v4, { ...options, intermediates: false });
        alone.output.data.forEach((x, i) => expect(Math.abs(x - all.output.data[i])).toBeLessThan(1e-6));
        expect(attention.lastCall).toMatchObject({ path: 'fused', reason: backend === 'js'
          ? "intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form"
          : 'intermediates false, no dropoutP, no attnMask: the fused kernel, the leading axes as batch×heads' });
      }
      await attention.scaledDotProductAttention(q, k, v4, { scale: -0.5, intermediates: false });
      expect(attention.lastCall.path).toBe(backend === 'js' ? 'fused' : 'teaching');
      const mask = { data: Uint8Array.from([1, 1, 0, 1, 0]), shape: [5] };
      await attention.scaledDotProductAttention(q, k, v, { attnMask: mask, intermediates: false });
      expect(attention.lastCall).toMatchObject({ path: 'teaching', reason: 'options.attnMask: the teaching code (the fused form takes only isCausal)' });
      await attention.scaledDotProductAttention(q, k, v, { dropoutP: 0.5, intermediates: false });
      expect(attention.lastCall).toMatchObject({ path: 'teaching', reason: 'dropoutP > 0: the teaching code' });
      await attention.scaledDotProductAttention(q, k, v);
      expect(attention.lastCall).toMatchObject({ path: 'teaching', reason: 'the intermediates are asked for: the teaching code' });
    });

    test('the planner owns the intermediates default: on at teaching sizes, off above INTERMEDIATES_LIMIT (…, L, S) values', async () => {
      expect(Object.keys(await attention.scaledDotProductAttention(q, k, v))).toEqual(['scores', 'scaled', 'weights', 'output']);
      // 3·2·100·120 = 72,000 values per (…, L, S) stage > 65,536: only the output, as every attention function
      const big = [tensor([3, 2, 100, 4]), tensor([3, 2, 120, 4]), tensor([3, 2, 120, 2])];
      const alone = await attention.scaledDotProductAttention(...big, { isCausal: true });
      expect(Object.keys(alone)).toEqual(['output']);
      expect(alone.output.shape).toEqual([3, 2, 100, 2]);
      const all = await attention.scaledDotProductAttention(...big, { isCausal: true, intermediates: true });
      alone.output.data.forEach((x, i) => expect(Math.abs(x - all.output.data[i])).toBeLessThan(1e-6));
    });

    test("seed 000's printed causal weights (In [31]), to its 4 decimals", async () => {
      const q0 = { data: Float32Array.from([2, 2, 4, 5, 2, 2, 0, 4, 1, 5, 1, 2, 1, 5, 1, 3, 4, 5, 4, 5, 3, 3, 4, 5]), shape: [2, 3, 4] };
      const k0 = { data: Float32Array.from([5, 4, 4, 3, 0, 5, 2, 2, 4, 4, 1, 5, 5, 1, 2, 4, 5, 5, 1, 1, 0, 4, 2, 1]), shape: [2, 3, 4] };
      const { weights } = await attention.scaledDotProductAttention(q0, k0, k0, { isCausal: true });
      const printed = [1, 0, 0, 0.9975, 0.0025, 0, 0.4683, 0.0634, 0.4683, 1, 0, 0, 0.3775, 0.6225, 0, 0.9707, 0.0293, 0];
      expect(Array.from(weights.data, (w) => Math.round(w * 1e4) / 1e4)).toEqual(printed);
    });
  });
}

describe('the planner on scaledDotProductAttention', () => {
  const options = (given) => ({ attnMask: null, isCausal: false, scale: null, dropoutP: 0, seed: 0, intermediates: false, ...given });
  test('its intermediates default reads (…, L, E) and (…, S, E): N·L·S against INTERMEDIATES_LIMIT', () => {
    const at = (lead, L, S) => defaultIntermediates([{ shape: [...lead, L, 8] }, { shape: [...lead, S, 8] }, { shape: [...lead, S, 3] }], undefined, 'scaledDotProductAttention');
    expect(at([], 256, 256)).toBe(true); // 65,536 = INTERMEDIATES_LIMIT, unbatched
    expect(at([], 256, 257)).toBe(false);
    expect(at([2, 4], 64, 128)).toBe(true); // 8·64·128 = 65,536
    expect(at([2, 4], 64, 129)).toBe(false);
    expect(INTERMEDIATES_LIMIT).toBe(65_536);
  });
  test('on webgpu: the JS reference, and an honest reason why (it does have matrix work)', () => {
    const args = [{ shape: [2, 3, 4] }, { shape: [2, 5, 4] }, { shape: [2, 5, 3] }];
    expect(gpuReferenceReason('scaledDotProductAttention')).toBe('scaledDotProductAttention does matrix work (Q·Kᵀ, weights·V), but the WGSL passes project (B, T, C) inputs and take no (…, L, E) batches of q, k, v, attnMask or Ev ≠ E; the JS reference computes it');
    expect(gpuReferenceReason('scaledDotProductAttention')).not.toContain('no matrix work');
    const fused = plan('scaledDotProductAttention', [...args, options({ isCausal: true })], { name: 'webgpu' });
    expect(fused).toEqual({ path: 'fused', reason: `${gpuReferenceReason('scaledDotProductAttention')}; intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form` });
    const teaching = plan('scaledDotProductAttention', [...args, options({ intermediates: true })], { name: 'webgpu' });
    expect(teaching).toEqual({ path: 'teaching', reason: `${gpuReferenceReason('scaledDotProductAttention')}; the intermediates are asked for: the teaching code` });
  });
});

describe('the memory estimate of scaledDotProductAttention follows the planner\'s path on each backend', () => {
  // L = S = 4096, E = 4: one (L, S) stage is 64 MiB, over the limit with q, k, v beside it; they fit alone.
  const L = 4096;
  const query = tensor([1, L, 4]);
  const key = tensor([1, L, 4]);
  const values = { 'Ev=2': tensor([1, L, 2]), 'Ev=E': tensor([1, L, 4]) };
  const memoryFailure = (call) => {
    try {
      call();
    } catch (error) {
      return error;
    }
    return null;
  };

  test('Ev ≠ E, output alone: js runs its row form (no stage), WASM its teaching code (one stage), estimated so', async () => {
    expect(sdpaRoute(4, 2, { intermediates: false, dropoutP: 0, attnMask: null }, 'js')).toMatchObject({ path: 'fused', stages: 0 });
    expect(sdpaRoute(4, 2, { intermediates: false, dropoutP: 0, attnMask: null }, 'wasm-simd')).toMatchObject({ path: 'teaching', stages: 1 });
    expect(sdpaRoute(4, 4, { intermediates: false, dropoutP: 0, attnMask: null }, 'wasm-simd')).toMatchObject({ path: 'fused', stages: 0 });
    expect(sdpaRoute(4, 2, { intermediates: true, dropoutP: 0, attnMask: null }, 'wasm-simd')).toMatchObject({ path: 'teaching', stages: 5 });
    for (const backend of BACKENDS) {
      const attention = await loadAttention({ backend, memoryLimit: 64 * 2 ** 20 });
      const call = (value) => attention.scaledDotProductAttention(query, key, value, { intermediates: false });
      const wasm = backend !== 'js';
      const failure = memoryFailure(() => call(values['Ev=2']));
      if (wasm) {
        // q, k, v, one (L, S) stage and the output, refused by the API's check before the binding sees it
        expect(failure).toMatchObject({ fn: 'scaledDotProductAttention', kind: 'memory', argument: `L=${L}, S=${L}`, value: 4 * (L * 4 + L * 4 + L * 2 + L * L + L * 2) });
      } else {
        expect(failure).toBe(null);
        expect(attention.lastCall.path).toBe('fused');
      }
      expect(memoryFailure(() => call(values['Ev=E']))).toBe(null);
      expect(attention.lastCall.path).toBe('fused');
      attention.dispose();
    }
  });
});
