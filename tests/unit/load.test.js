// loadAttention: which backend it picks, how it falls back and says why, and how it refuses nonsense.
// Plus the API layer's handling of an asynchronous backend (the shape WebGPU has), tested with the
// reference wrapped in Promises so it runs in Node.
import { describe, expect, test } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { FUNCTION_NAMES, loadAttention } from '../../web/src/core/index.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import { JOURNEY, randomTensor } from './make-tensors.js';

const NOT_WASM = new Uint8Array([0x00, 0x61, 0x73]);

describe('loadAttention', () => {
  test("'auto' loads the SIMD WebAssembly build where SIMD is supported (Node 20 has it)", async () => {
    const attention = await loadAttention();
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.build).toBe('simd');
    expect(attention.fallbackReason).toBeNull();
  });

  test("'js' loads the reference, and every function of docs/api.md is there", async () => {
    const attention = await loadAttention({ backend: 'js' });
    expect(attention.backend).toBe('js');
    expect(attention.build).toBeNull();
    for (const fn of FUNCTION_NAMES) expect(typeof attention[fn], fn).toBe('function');
    expect(FUNCTION_NAMES).toHaveLength(14);
  });

  test("'auto' falls back to the JS reference when WebAssembly cannot load, and says why", async () => {
    const attention = await loadAttention({ backend: 'auto', wasmBinary: NOT_WASM });
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toMatch(/^WebAssembly could not load: loadWasmBackend: could not instantiate .*attention-simd\.wasm/);
    expect(attention.attentionWithoutWeights(JOURNEY).weights.data[7]).toBeCloseTo(0.2379, 4);
  });

  test('an explicitly requested WASM build that cannot load is an Error, not a silent fallback', async () => {
    await expect(loadAttention({ backend: 'wasm-baseline', wasmBinary: NOT_WASM }))
      .rejects.toThrow(/^loadWasmBackend: could not instantiate .*attention-baseline\.wasm \(.*CompileError/);
  });

  test("'webgpu' without WebGPU (Node) falls back to WebAssembly and says why", async () => {
    const attention = await loadAttention({ backend: 'webgpu' });
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.fallbackReason).toMatch(/^WebGPU is unavailable: .*navigator\.gpu/);
  });

  test('unknown backends and options are Errors', async () => {
    await expect(loadAttention({ backend: 'cuda' })).rejects.toThrow(
      "loadAttention: options.backend='cuda'; expected one of 'auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'");
    await expect(loadAttention({ backnd: 'js' })).rejects.toThrow(
      "loadAttention: unknown option 'backnd'; expected one of backend, wasmBinary, locateFile");
    await expect(loadAttention('js')).rejects.toThrow("loadAttention: options is 'js'; expected an object");
  });
});

describe('the API over an asynchronous backend', () => {
  const reference = createReferenceBackend();
  const asynchronous = Object.fromEntries(Object.entries(reference).map(([key, value]) => [
    key, typeof value === 'function' ? async (...args) => value(...args) : value,
  ]));
  const attention = createAttention({ ...asynchronous, name: 'async-test' });

  test('returns a Promise of the same normalised results (batch axis dropped for (T, C) input)', async () => {
    const pending = attention.attentionWithoutWeights(JOURNEY);
    expect(pending).toBeInstanceOf(Promise);
    const { weights, output } = await pending;
    expect(weights.shape).toEqual([6, 6]);
    expect(output.shape).toEqual([6, 3]);
    expect(weights.data[7]).toBeCloseTo(0.2379, 4);
  });

  test('argument errors are thrown before the backend is called; semantic errors reject', async () => {
    expect(() => attention.softmax({ data: [1], shape: [1] })).toThrow('softmax: x.data is an Array(1); expected a Float32Array');
    const withNaN = randomTensor([2, 2], 1);
    withNaN.data[3] = NaN;
    await expect(attention.softmax(withNaN)).rejects.toThrow('softmax: x[3] is NaN; expected finite numbers or -Infinity');
  });

  test('a backend without a function says so', () => {
    const partial = createAttention({ name: 'partial', softmax: reference.softmax });
    expect(() => partial.matmul(randomTensor([2, 2], 1), randomTensor([2, 2], 2))).toThrow(
      'matmul: the partial backend does not provide matmul');
  });
});
