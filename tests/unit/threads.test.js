// The threaded path's decisions and arithmetic, in Node (which has no Web Worker): the `threads` option's
// checks and fallbacks, which calls go to the workers (a pure function), the head groups, and the split /
// combine of the weights and outputs, run in-process with a pool whose "workers" call the WASM core here
// the way attention-worker.js does (computeHeadGroup). Chromium runs the real workers: tests/e2e/threads.spec.js.
import { beforeAll, describe, expect, test } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { loadAttention } from '../../web/src/core/index.js';
import {
  AUTO_MAX_THREADS, computeHeadGroup, multiheadSizes, resolveThreads,
} from '../../web/src/core/backends/thread-plan.js';
import { POOL_CROSSOVER, headGroups, movedFloats, multiheadWork, planPoolCall } from '../../web/src/core/planner.js';
import { createThreadedBackend } from '../../web/src/core/backends/threads.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { loadFixture } from './fixtures.js';
import { columns, concatColumns, maxDifference, randomTensor, slice } from './make-tensors.js';

const ISOLATED = { crossOriginIsolated: true, hasWorker: true, hardwareConcurrency: 8 };

describe('the threads option', () => {
  test.each([0, -1, 1.5, 65, NaN, '2', 'all', null, true])('threads=%s is an Error naming the option, the value and what is expected', async (value) => {
    await expect(loadAttention({ threads: value })).rejects.toThrow(
      /^loadAttention: options\.threads=.*; expected 'auto' or an integer from 1 to 64$/);
  });

  test("'auto' (the default) in Node is one thread: there is no Web Worker", async () => {
    const attention = await loadAttention();
    expect(attention.threads).toBe(1);
    expect(attention.threadsReason).toBe('this environment has no Web Worker');
    expect(attention.lastCall).toBeNull();
  });

  test('an explicit threads: 2 without Worker falls back silently to one thread, says why, and computes', async () => {
    const attention = await loadAttention({ backend: 'wasm-simd', threads: 2 });
    expect(attention.threads).toBe(1);
    expect(attention.threadsReason).toBe('this environment has no Web Worker');
    const x = randomTensor([1, 64, 64], 1);
    const weights = { query: randomTensor([64, 64], 2), key: randomTensor([64, 64], 3), value: randomTensor([64, 64], 4) };
    const result = attention.multiheadAttentionSplit(x, weights, { heads: 4, intermediates: false });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result.output.shape).toEqual([1, 64, 64]);
  });

  test("threads: 1 asks for no workers: no reason; 'js' and 'webgpu' ignore the option", async () => {
    expect((await loadAttention({ backend: 'wasm-simd', threads: 1 })).threadsReason).toBeNull();
    const js = await loadAttention({ backend: 'js', threads: 4 });
    expect([js.threads, js.threadsReason]).toEqual([1, 'the js backend runs on the main thread']);
    const gpu = await loadAttention({ backend: 'webgpu', threads: 4 });
    expect([gpu.threads, gpu.threadsReason]).toEqual([1, "backend 'webgpu' does not use workers"]);
  });

  test('dispose() exists on every Attention object and is harmless without workers', async () => {
    const attention = await loadAttention({ backend: 'js' });
    attention.dispose();
    expect(attention.softmax({ data: new Float32Array([0, 0]), shape: [2] }).output.data[0]).toBe(0.5);
  });
});

describe('resolveThreads: how many workers a page gets', () => {
  test("'auto' on an isolated page: min(hardwareConcurrency, 4)", () => {
    expect(resolveThreads('auto', ISOLATED)).toEqual({ count: AUTO_MAX_THREADS, reason: null });
    expect(resolveThreads('auto', { ...ISOLATED, hardwareConcurrency: 2 })).toEqual({ count: 2, reason: null });
  });

  test("'auto' is one thread on a page that is not isolated, with one core, or without Worker", () => {
    expect(resolveThreads('auto', { ...ISOLATED, crossOriginIsolated: false }).reason).toMatch(/not/);
    expect(resolveThreads('auto', { ...ISOLATED, crossOriginIsolated: undefined }).count).toBe(1);
    expect(resolveThreads('auto', { ...ISOLATED, hardwareConcurrency: 1 })).toEqual({ count: 1, reason: "threads 'auto': navigator.hardwareConcurrency is 1" });
    expect(resolveThreads('auto', { ...ISOLATED, hasWorker: false }).count).toBe(1);
  });

  test('an explicit number is that many workers anywhere there is a Worker, isolated or not', () => {
    expect(resolveThreads(3, { crossOriginIsolated: false, hasWorker: true, hardwareConcurrency: 2 })).toEqual({ count: 3, reason: null });
    expect(resolveThreads(3, { crossOriginIsolated: true, hasWorker: false })).toEqual({ count: 1, reason: 'this environment has no Web Worker' });
    expect(resolveThreads(1, ISOLATED)).toEqual({ count: 1, reason: null });
  });
});

describe('headGroups: contiguous groups, uneven allowed, never more groups than heads', () => {
  test.each([
    [12, 2, [[0, 6], [6, 12]]],
    [8, 3, [[0, 3], [3, 6], [6, 8]]],
    [2, 4, [[0, 1], [1, 2]]],
    [5, 5, [[0, 1], [1, 2], [2, 3], [3, 4], [4, 5]]],
  ])('%i heads on %i workers', (heads, workers, groups) => {
    expect(headGroups(heads, workers)).toEqual(groups);
  });
});

describe('planPoolCall: which calls go to the workers', () => {
  const fast = { scale: true, temperature: 1, causal: true, mask: 'neg_inf', dropout: 0, seed: 0, heads: 12, intermediates: false };
  const shaped = (shape) => ({ shape });
  const splitArgs = (T, d, options = {}) => [shaped([1, T, d]), { query: shaped([d, d]), outWeight: shaped([d, d]) }, { ...fast, ...options }];

  test('the fused fast path at T=1024, d=768, 12 heads: both workers, six heads each', () => {
    const plan = planPoolCall('multiheadAttentionSplit', splitArgs(1024, 768), { workers: 2 });
    expect(plan.pool).toBe(true);
    expect(plan.groups).toEqual([[0, 6], [6, 12]]);
    expect(plan.work).toBe(4 * 1024 * 768 * 768 + 768 * 1024 * 1025);
  });

  test.each([
    ['the intermediates are asked for', { intermediates: true }, /intermediates/],
    ['dropout', { dropout: 0.1 }, /dropout/],
    ["mask 'renormalize'", { mask: 'renormalize' }, /mask 'renormalize'/],
    ['one head', { heads: 1 }, /one head/],
  ])('%s: main thread', (_, options, reason) => {
    const plan = planPoolCall('multiheadAttentionSplit', splitArgs(1024, 768, options), { workers: 2 });
    expect(plan).toEqual({ pool: false, reason: expect.stringMatching(reason) });
  });

  test("mask 'zero' is fine when not causal (the mask does not apply)", () => {
    expect(planPoolCall('multiheadAttentionSplit', splitArgs(1024, 768, { causal: false, mask: 'zero' }), { workers: 2 }).pool).toBe(true);
  });

  test('below the crossover, other functions, one worker and malformed arguments: main thread', () => {
    expect(planPoolCall('multiheadAttentionSplit', splitArgs(64, 768), { workers: 2 }).reason).toMatch(/per float moved: below the workers' crossover/);
    expect(planPoolCall('matmul', [shaped([1024, 1024]), shaped([1024, 1024]), {}], { workers: 2 }).pool).toBe(false);
    expect(planPoolCall('multiheadAttentionSplit', splitArgs(1024, 768), { workers: 1 }).pool).toBe(false);
    expect(planPoolCall('multiheadAttentionSplit', [shaped([1, 1024, 768]), {}, fast], { workers: 2 }).reason).toMatch(/not sized/);
  });

  test('the work counts the causal half, the cross shapes and the output projection', () => {
    const sizes = { B: 2, Tq: 3, Tk: 5, dQuery: 4, dContext: 6, dOut: 8, H: 2, outWeight: true };
    expect(multiheadWork(sizes, false)).toBe(2 * (3 * 4 * 8 + 2 * 5 * 6 * 8 + 2 * 8 * 3 * 5 + 3 * 8 * 8));
    expect(multiheadWork({ ...sizes, outWeight: false }, true)).toBe(2 * (3 * 4 * 8 + 2 * 5 * 6 * 8 + 2 * 8 * 6));
    expect(movedFloats(sizes, true)).toBe(4 * 8 + 2 * 6 * 8 + 8 * 8 + 2 * 3 * 4 + 2 * 5 * 6 + 2 * 3 * 8);
  });

  test.each([
    [1, 128, 256, false], [1, 256, 256, false], [1, 384, 256, true], [2, 256, 256, true], [1, 128, 512, false], [1, 256, 512, true],
    [1, 128, 768, false], [1, 256, 768, true], [2, 128, 768, true], [1, 1024, 768, true],
  ])('the measured crossover: B=%i, T=%i, d=%i → workers %s (about 200 query rows and 100 M multiply-adds)', (B, T, d, pool) => {
    const args = [shaped([B, T, d]), { query: shaped([d, d]), outWeight: shaped([d, d]) }, { ...fast, heads: 8 }];
    expect(planPoolCall('multiheadAttentionSplit', args, { workers: 2 }).pool).toBe(pool);
  });

  test('a call below minWork stays on the main thread however many multiply-adds per float it does', () => {
    const args = [shaped([1, 512, 16]), { query: shaped([16, 16]), outWeight: shaped([16, 16]) }, { ...fast, heads: 2 }];
    const plan = planPoolCall('multiheadAttentionSplit', args, { workers: 2 });
    expect(plan.pool).toBe(false);
    expect(multiheadWork(multiheadSizes('multiheadAttentionSplit', args), true)).toBeLessThan(POOL_CROSSOVER.minWork);
  });
});

/** A pool whose workers run computeHeadGroup on the WASM core in this thread, answering like attention-worker.js. */
function inProcessPool(cpu, count, { fail = null } = {}) {
  return {
    workers: Array.from({ length: count }),
    failed: null,
    asked: [],
    async ask(k, message) {
      this.asked.push({ worker: k, heads: message.options.heads });
      if (fail) throw new Error(fail);
      return { part: computeHeadGroup(cpu, structuredClone(message)) };
    },
    terminate() { this.failed = 'terminated'; },
  };
}

describe('the threaded backend, with in-process workers', () => {
  let single;
  let cpu;
  beforeAll(async () => {
    single = await loadAttention({ backend: 'wasm-simd', threads: 1 });
    cpu = await loadWasmBackend({ build: 'simd' });
  });
  const threaded = (count, settings = { crossover: { workPerFloat: 0, minWork: 0 } }) => {
    const pool = inProcessPool(cpu, count);
    return { pool, attention: createAttention(createThreadedBackend(cpu, pool, settings)) };
  };

  const d = 48;
  const H = 8;
  const x = randomTensor([2, 20, d], 1);
  const split = {
    query: randomTensor([d, d], 2), key: randomTensor([d, d], 3), value: randomTensor([d, d], 4),
    queryBias: randomTensor([d], 5), keyBias: randomTensor([d], 6), valueBias: randomTensor([d], 7),
    outWeight: randomTensor([d, d], 8), outBias: randomTensor([d], 9),
  };
  const dHead = d / H;
  const stacked = {
    heads: Array.from({ length: H }, (_, h) => ({
      query: columns(split.query, h * dHead, dHead), key: columns(split.key, h * dHead, dHead), value: columns(split.value, h * dHead, dHead),
      queryBias: slice(split.queryBias, h * dHead, dHead), valueBias: slice(split.valueBias, h * dHead, dHead), // no keyBias: zeros
    })),
    outWeight: split.outWeight, outBias: split.outBias,
  };
  const fused = {
    inProjection: concatColumns([split.query, split.key, split.value]),
    inBias: concatColumns([split.queryBias, split.keyBias, split.valueBias]),
    outWeight: split.outWeight,
  };
  const options = { heads: H, causal: true, intermediates: false };

  test.each([2, 3, 8])('split, stacked, fused and cross on %i workers equal one thread (B=2, uneven groups)', async (workers) => {
    const { pool, attention } = threaded(workers);
    const context = randomTensor([2, 13, 24], 10);
    const cross = { ...split, key: randomTensor([24, d], 11), value: randomTensor([24, d], 12), outWeight: undefined }; // no Wo: columns placed, then outBias
    const calls = [
      ['multiheadAttentionSplit', [x, split, options]],
      ['multiheadAttentionStacked', [x, stacked, options]],
      ['multiheadAttentionFused', [x, fused, options]],
      ['crossAttention', [x, context, cross, { heads: H, intermediates: false }]],
    ];
    for (const [fn, args] of calls) {
      pool.asked.length = 0;
      const pending = attention[fn](...args);
      expect(pending, fn).toBeInstanceOf(Promise);
      expect(attention.lastCall, fn).toMatchObject({ fn, threads: workers });
      const ours = (await pending).output;
      expect(maxDifference(ours, single[fn](...args).output), fn).toBeLessThanOrEqual(1e-5);
      expect(pool.asked.map((a) => a.heads).reduce((a, b) => a + b), fn).toBe(H);
    }
  });

  test('every multi-head fixture with heads ≥ 2 on the fast path gives the PyTorch output through the workers', async () => {
    const { attention } = threaded(2);
    let checked = 0;
    for (const fn of ['multiheadAttentionSplit', 'multiheadAttentionStacked', 'multiheadAttentionFused', 'crossAttention']) {
      for (const testCase of loadFixture(fn).cases) {
        const args = [...testCase.args];
        const given = args.at(-1);
        const heads = given.heads ?? args.at(-2).heads?.length ?? 1;
        if (heads < 2 || given.dropout > 0 || (given.causal && (given.mask ?? 'neg_inf') !== 'neg_inf')) continue;
        // masked calls (docs/api.md "Masks") stay on the calling thread: the workers take no masks
        if (given.attnMask || given.keyPaddingMask || given.xValue) {
          expect(attention[fn](...args.slice(0, -1), { ...given, intermediates: false }), testCase.name).not.toBeInstanceOf(Promise);
          continue;
        }
        args[args.length - 1] = { ...given, intermediates: false };
        const pending = attention[fn](...args);
        expect(pending, testCase.name).toBeInstanceOf(Promise);
        const { output } = await pending;
        const expected = testCase.expected.output;
        output.data.forEach((value, i) => expect(Math.abs(value - expected.data[i]), `${fn}: ${testCase.name}`).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(expected.data[i])));
        checked++;
      }
    }
    expect(checked).toBeGreaterThanOrEqual(20);
  });

  test('bad input throws the single-thread Error synchronously; no worker is asked', () => {
    const { pool, attention } = threaded(2);
    const bad = { data: x.data.slice(), shape: x.shape };
    bad.data[7] = Infinity;
    const message = (() => { try { single.multiheadAttentionSplit(bad, split, options); } catch (error) { return error.message; } return 'no error'; })();
    expect(message).toMatch(/^multiheadAttentionSplit: x\[7\] is Infinity/);
    expect(() => attention.multiheadAttentionSplit(bad, split, options)).toThrow(message);
    expect(() => attention.multiheadAttentionSplit(x, { ...split, key: randomTensor([d, 40], 1) }, options)).toThrow(/weights\.key has shape \[48, 40\]/);
    expect(pool.asked).toHaveLength(0);
  });

  test('a worker error rejects with an Error naming the function', async () => {
    const pool = inProcessPool(cpu, 2, { fail: 'RuntimeError: memory access out of bounds' });
    const attention = createAttention(createThreadedBackend(cpu, pool, { crossover: { workPerFloat: 0, minWork: 0 } }));
    await expect(attention.multiheadAttentionFused(x, fused, options)).rejects.toThrow(
      'multiheadAttentionFused: a worker failed: RuntimeError: memory access out of bounds');
  });

  test('lastCall records the planner\'s decision after every call, the workers\' and the others', () => {
    const { attention } = threaded(2);
    attention.multiheadAttentionSplit(x, split, { ...options, heads: 1 });
    expect(attention.lastCall).toMatchObject({ fn: 'multiheadAttentionSplit', path: 'fused', threads: 1, reason: 'one head' });
    attention.matmul(randomTensor([4, 4], 1), randomTensor([4, 4], 2));
    expect(attention.lastCall).toMatchObject({ fn: 'matmul', path: 'teaching', threads: 1 });
  });

  test('a worker that died (its error event) moves every later call to the main thread, with the reason', () => {
    const { pool, attention } = threaded(2);
    pool.failed = 'worker 1 failed: RangeError: out of memory';
    expect(attention.threads).toBe(1);
    expect(attention.threadsReason).toBe('the workers failed (worker 1 failed: RangeError: out of memory); calls run on the main thread');
    expect(attention.multiheadAttentionSplit(x, split, options)).not.toBeInstanceOf(Promise);
    expect(pool.asked).toHaveLength(0);
  });

  test('below the crossover the call runs on the main thread and stays synchronous; dispose() moves every call there', () => {
    const { pool, attention } = threaded(2, {}); // the measured crossover: this size is far below it
    const below = attention.multiheadAttentionSplit(x, split, options);
    expect(below).not.toBeInstanceOf(Promise);
    expect(attention.lastCall).toMatchObject({ threads: 1, reason: expect.stringMatching(/below the workers' crossover/) });
    const forced = threaded(2);
    expect(forced.attention.threads).toBe(2);
    forced.attention.dispose();
    expect(forced.attention.threads).toBe(1);
    expect(forced.attention.threadsReason).toMatch(/^disposed/);
    expect(forced.attention.multiheadAttentionSplit(x, split, options)).not.toBeInstanceOf(Promise);
    expect(pool.asked).toHaveLength(0);
  });
});
