// Loading the two WASM builds in Node: each reports its build, its kernels use the vocabulary the
// build promises, and a load that cannot succeed says which file and why.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';
import { simd } from 'wasm-feature-detect';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { backendFor, BUILDS, expectJourney } from './wasm-helpers.js';

const API_FUNCTIONS = [
  'nextTokenPairs', 'causalAverageLoop', 'causalAverageMatmul', 'causalAverageSoftmax', 'softmax',
  'attentionWithoutWeights', 'selfAttention', 'attentionDropout', 'compare', 'multiheadAttentionStacked',
  'multiheadAttentionSplit', 'multiheadAttentionFused', 'crossAttention', 'matmul',
];

describe.each(BUILDS)('the %s build', (build) => {
  test('loads and reports its build', async () => {
    const backend = await backendFor(build);
    expect(backend.name).toBe(`wasm-${build}`);
    expect(backend.build).toBe(build);
  });

  test('provides every API function of docs/api.md', async () => {
    const backend = await backendFor(build);
    for (const name of API_FUNCTIONS) expect(typeof backend[name], name).toBe('function');
  });

  test('runs its kernels with the vector vocabulary of its build', async () => {
    const backend = await backendFor(build);
    expect(backend.fastPathInfo().vocabulary).toBe(build === 'simd' ? 'wasm_simd128' : 'scalar');
  });

  test('computes the six-token example', async () => {
    expectJourney(await backendFor(build));
  });

  test('starts with a 16 MiB heap under a 2 GiB limit', async () => {
    const stats = (await backendFor(build)).heapStats();
    expect(stats.heapLimitBytes).toBe(2 ** 31);
    expect(stats.heapBytes).toBeGreaterThanOrEqual(16 * 2 ** 20);
    expect(stats.bytesInUse).toBeGreaterThanOrEqual(0);
    expect(stats.bytesAvailable).toBeGreaterThan(1.9 * 2 ** 30);
    expect(stats.bytesAvailable).toBeLessThan(stats.heapLimitBytes);
  });
});

// wabt's validator with the SIMD proposal switched off: the baseline module must pass it (it runs on
// engines without SIMD), the SIMD module must not (else its kernels were not vectorised at all).
function validatesWithoutSimd(build) {
  const file = fileURLToPath(new URL(`../../web/src/core/wasm/attention-${build}.wasm`, import.meta.url));
  try {
    execFileSync('wasm-validate', ['--disable-simd', file], { stdio: 'pipe' });
    return true;
  } catch (error) {
    if (error.code === 'ENOENT') throw new Error('wasm-validate (wabt) is missing; run scripts/setup.sh');
    return false;
  }
}

describe('the instructions in each module', () => {
  test('the baseline module has no SIMD instruction', () => {
    expect(validatesWithoutSimd('baseline')).toBe(true);
  });

  test('the SIMD module uses SIMD instructions', () => {
    expect(validatesWithoutSimd('simd')).toBe(false);
  });
});

describe('choosing and loading a build', () => {
  test("'auto' picks the SIMD build where WebAssembly SIMD validates", async () => {
    const backend = await loadWasmBackend({ build: 'auto' });
    expect(backend.build).toBe((await simd()) ? 'simd' : 'baseline');
  });

  test('an unknown build name is an Error naming it', async () => {
    await expect(loadWasmBackend({ build: 'avx' }))
      .rejects.toThrow("loadWasmBackend: build=\"avx\"; expected 'auto', 'simd' or 'baseline'");
  });

  test('bytes that are not WebAssembly give an Error naming the file and the reason', async () => {
    const quiet = console.warn;
    console.warn = () => {};
    try {
      await expect(loadWasmBackend({ build: 'baseline', wasmBinary: new Uint8Array([0, 1, 2, 3]) }))
        .rejects.toThrow(/^loadWasmBackend: could not instantiate .*attention-baseline\.wasm \(.*CompileError/);
    } finally {
      console.warn = quiet;
    }
  });

  test('the caller may hand over the .wasm bytes itself', async () => {
    const { readFile } = await import('node:fs/promises');
    const bytes = await readFile(new URL('../../web/src/core/wasm/attention-baseline.wasm', import.meta.url));
    expectJourney(await loadWasmBackend({ build: 'baseline', wasmBinary: bytes }));
  });
});
