// loadAttention({threads}) in Chromium: on a cross-origin isolated page 'auto' starts workers and the large
// fused multi-head calls run on them (a Promise) with the single-thread result to 1e-5; small calls stay
// on the main thread, synchronously; bad input throws before any worker sees it. Without isolation 'auto'
// is one thread and an explicit number still gets workers. The served page is tests/e2e/pages/threads.html.
import { test, expect } from '@playwright/test';
import { startServer } from '../../scripts/serve.mjs';
import { expectOverflowAnswers } from '../unit/overflow-cases.js';

const TOLERANCE = 1e-5;
const PAGE = 'tests/e2e/pages/threads.html';

async function openHarness(page, url) {
  await page.goto(url);
  await page.waitForFunction(() => window.harnessReady === true);
}

test.describe('threads on a cross-origin isolated page', () => {
  test.beforeEach(({ page }) => openHarness(page, `/${PAGE}`));

  test("'auto' starts workers; a large causal MHA (T=256, d=256, 8 heads, B=2) runs on them and equals one thread, in all four forms", async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights, otherLayouts, compareCall } = window.threads;
      const threaded = await loadAttention();
      const single = await loadAttention({ threads: 1 });
      const x = randomTensor([2, 256, 256], 1);
      const weights = splitWeights(256, 256, 10);
      const { stacked, fused } = otherLayouts(weights, 8);
      const options = { heads: 8, causal: true };
      const context = randomTensor([2, 300, 192], 2);
      const crossWeights = splitWeights(256, 256, 20, { dContext: 192, out: false }); // no Wo: the heads' columns side by side, then outBias
      return {
        isolated: crossOriginIsolated,
        cores: navigator.hardwareConcurrency,
        threads: threaded.threads,
        threadsReason: threaded.threadsReason,
        singleThreads: single.threads,
        split: await compareCall(threaded, single, 'multiheadAttentionSplit', [x, weights, options]),
        stacked: await compareCall(threaded, single, 'multiheadAttentionStacked', [x, stacked, options]),
        fused: await compareCall(threaded, single, 'multiheadAttentionFused', [x, fused, options]),
        cross: await compareCall(threaded, single, 'crossAttention', [x, context, crossWeights, { heads: 8 }]),
      };
    });
    expect(result.isolated).toBe(true);
    expect(result.threads).toBe(Math.min(result.cores, 4));
    expect(result.threads).toBeGreaterThanOrEqual(2);
    expect(result.threadsReason).toBeNull();
    expect(result.singleThreads).toBe(1);
    for (const fn of ['split', 'stacked', 'fused', 'cross']) {
      expect(result[fn].isPromise, fn).toBe(true);
      expect(result[fn].lastCall.threads, fn).toBe(result.threads);
      expect(result[fn].maxDifference, fn).toBeLessThanOrEqual(TOLERANCE);
    }
    expect(result.split.shape).toEqual([2, 256, 256]);
    expect(result.cross.shape).toEqual([2, 256, 256]);
  });

  test('uneven head groups (8 heads on 3 workers), never more workers than heads, unbatched input', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights, compareCall } = window.threads;
      const threaded = await loadAttention({ backend: 'wasm-simd', threads: 3 });
      const single = await loadAttention({ backend: 'wasm-simd', threads: 1 });
      const x = randomTensor([384, 256], 3);
      const weights = splitWeights(256, 256, 30);
      return {
        threads: threaded.threads,
        eight: await compareCall(threaded, single, 'multiheadAttentionSplit', [x, weights, { heads: 8, causal: true }]),
        two: await compareCall(threaded, single, 'multiheadAttentionSplit', [x, weights, { heads: 2 }]),
      };
    });
    expect(result.threads).toBe(3);
    expect(result.eight).toMatchObject({ isPromise: true, shape: [384, 256] });
    expect(result.eight.lastCall.threads).toBe(3);
    expect(result.eight.maxDifference).toBeLessThanOrEqual(TOLERANCE);
    expect(result.two.lastCall.threads).toBe(2);
    expect(result.two.maxDifference).toBeLessThanOrEqual(TOLERANCE);
  });

  test('the fixtures with heads ≥ 2 (fast path: no dropout, mask neg_inf) give the PyTorch output through the workers', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadForcedPool, loadAttention, maxDifference } = window.threads;
      const forced = await loadForcedPool(2); // crossover 0: these teaching sizes go to the workers too
      const single = await loadAttention({ backend: 'wasm-simd', threads: 1 });
      // The fixture runners' own decoder (uint8 masks stay Uint8Array), as the WebGPU runner imports it.
      const { decodeValue: decode } = await import('/tests/unit/fixture-values.js');
      const checked = [];
      for (const fn of ['multiheadAttentionSplit', 'multiheadAttentionStacked', 'multiheadAttentionFused', 'crossAttention']) {
        const fixture = await (await fetch(`/tests/fixtures/${fn}.json`)).json();
        for (const testCase of fixture.cases) {
          const args = decode(testCase.args);
          const options = { ...args.at(-1) };
          const heads = options.heads ?? args.at(-2).heads?.length ?? 1;
          if (heads < 2 || options.dropout > 0 || (options.causal && (options.mask ?? 'neg_inf') !== 'neg_inf')) continue;
          args[args.length - 1] = { ...options, intermediates: false };
          const ours = await forced[fn](...args);
          const where = forced.lastCall;
          const expected = decode(testCase.expected).output;
          const pytorch = expected.data.reduce((worst, e, i) => Math.max(worst, Math.abs(ours.output.data[i] - e) - 1e-5 * Math.abs(e)), 0);
          const masked = ['attnMask', 'keyPaddingMask', 'xValue'].some((name) => options[name] != null);
          checked.push({ name: `${fn}: ${testCase.name}`, masked, threads: where.threads, pytorch, single: maxDifference(ours.output.data, single[fn](...args).output.data) });
        }
      }
      return checked;
    });
    expect(result.filter(({ masked }) => !masked).length).toBeGreaterThanOrEqual(8);
    for (const { name, masked, threads, pytorch, single } of result) {
      // Masked calls stay on the calling thread (the planner's rule: the pool's kernels take no masks).
      if (masked) expect(threads, name).toBe(1);
      else expect(threads, name).toBeGreaterThanOrEqual(2);
      expect(pytorch, name).toBeLessThanOrEqual(1e-5);
      expect(single, name).toBeLessThanOrEqual(TOLERANCE);
    }
  });

  test('small calls and the teaching path stay on the main thread, synchronously; bad input throws the single-thread Error at once; so does a result that overflows, on the workers too', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights } = window.threads;
      const { runOverflowCases } = await import('/tests/unit/overflow-cases.js');
      const threaded = await loadAttention({ threads: 2 });
      const single = await loadAttention({ threads: 1 });
      const small = threaded.multiheadAttentionSplit(randomTensor([1, 8, 16], 4), splitWeights(16, 16, 40), { heads: 4, causal: true });
      const smallCall = { isPromise: small instanceof Promise, lastCall: threaded.lastCall, hasWeights: 'weights' in small };
      const x = randomTensor([2, 256, 256], 5);
      const weights = splitWeights(256, 256, 50);
      const dropout = threaded.multiheadAttentionSplit(x, weights, { heads: 8, dropout: 0.1, intermediates: false });
      const dropoutCall = { isPromise: dropout instanceof Promise, lastCall: threaded.lastCall };
      x.data[1000] = NaN;
      const errorOf = (attention) => {
        try {
          const value = attention.multiheadAttentionSplit(x, weights, { heads: 8, causal: true });
          return value instanceof Promise ? 'a Promise' : 'no error';
        } catch (error) {
          return error.message;
        }
      };
      const threadedError = errorOf(threaded);
      const singleError = errorOf(single);
      // finite inputs whose scores overflow, on the workers: their NaN parts, then the main thread's diagnosis
      x.data[1000] = 0.5;
      weights.query.data.fill(1e20);
      weights.key.data.fill(1e20);
      const pending = threaded.multiheadAttentionSplit(x, weights, { heads: 8, causal: true, intermediates: false });
      const overflow = { isPromise: pending instanceof Promise, message: 'no error' };
      try {
        await pending;
      } catch (error) {
        overflow.message = error.message;
      }
      overflow.lastCall = threaded.lastCall;
      return { smallCall, dropoutCall, threadedError, singleError, overflow, answers: await runOverflowCases(threaded) };
    });
    expect(result.smallCall).toMatchObject({ isPromise: false, hasWeights: true });
    expect(result.smallCall.lastCall).toMatchObject({ fn: 'multiheadAttentionSplit', threads: 1 });
    expect(result.smallCall.lastCall.reason).toMatch(/intermediates/);
    expect(result.dropoutCall.isPromise).toBe(false);
    expect(result.dropoutCall.lastCall.reason).toMatch(/dropout/);
    expect(result.singleError).toMatch(/^multiheadAttentionSplit: x\[1000\] is NaN/);
    expect(result.threadedError).toBe(result.singleError);
    expect(result.overflow).toMatchObject({ isPromise: true, message: 'multiheadAttentionSplit: the scores overflow float32 (|weights| up to 1e+20 makes q·k reach Infinity)' });
    expect(result.overflow.lastCall.threads).toBeGreaterThanOrEqual(2);
    expectOverflowAnswers(expect, result.answers, 'threads');
  });

  test('memory: a refused call leaves the main module and the workers as they were; compact() gives a large pooled call\'s memory back', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights, compareCall } = window.threads;
      const MiB = 2 ** 20;
      const limited = await loadAttention({ backend: 'wasm-simd', threads: 2, memoryLimit: 64 * MiB });
      await limited.multiheadAttentionSplit(randomTensor([2, 256, 256], 1), splitWeights(256, 256, 10), { heads: 8, causal: true });
      const beforeRefused = limited.memory;
      // 48 MiB of inputs and a fused workspace of 160 MB: over the 64 MiB limit; refused before any worker is asked.
      let refused = null;
      try {
        limited.multiheadAttentionSplit(randomTensor([1, 8192, 1024], 2), splitWeights(1024, 1024, 20), { heads: 8, causal: true });
      } catch (error) {
        refused = error.message;
      }
      const afterRefused = limited.memory;
      limited.dispose();

      const threaded = await loadAttention({ backend: 'wasm-simd', threads: 2 });
      const single = await loadAttention({ backend: 'wasm-simd', threads: 1 });
      const initial = threaded.memory;
      const x = randomTensor([1, 2048, 1024], 3);
      const weights = splitWeights(1024, 1024, 30);
      const options = { heads: 8, causal: true };
      const large = await compareCall(threaded, single, 'multiheadAttentionSplit', [x, weights, options]);
      const grown = threaded.memory;
      await threaded.compact();
      const compacted = threaded.memory;
      const again = await compareCall(threaded, single, 'multiheadAttentionSplit', [x, weights, options]);
      threaded.dispose();
      return { refused, beforeRefused, afterRefused, initial, grown, compacted, large, again };
    });
    const MiB = 2 ** 20;
    expect(result.refused).toMatch(/^multiheadAttentionSplit: B=1, T=8192 needs [\d.]+ MB for its results and workspace and [\d.]+ MB for the copies of its inputs; the memory limit is \d+ MiB$/);
    expect(result.beforeRefused.workers).toHaveLength(2);
    expect(result.afterRefused.bytes - result.beforeRefused.bytes).toBeLessThanOrEqual(64 * MiB);
    expect(result.afterRefused.bytes).toBe(result.beforeRefused.bytes);
    result.afterRefused.workers.forEach((worker, k) => expect(worker.bytes).toBe(result.beforeRefused.workers[k].bytes));
    expect(result.large.lastCall.threads).toBe(2);
    expect(result.large.maxDifference).toBeLessThanOrEqual(TOLERANCE);
    result.grown.workers.forEach((worker, k) => {
      expect(worker.bytes, `worker ${k}`).toBeGreaterThan(result.initial.workers[k].bytes);
      expect(result.compacted.workers[k].bytes, `worker ${k}`).toBeLessThanOrEqual(result.initial.workers[k].bytes + MiB);
      expect(result.compacted.workers[k].peak, `worker ${k}`).toBe(worker.bytes);
    });
    expect(result.compacted.bytes).toBeLessThanOrEqual(result.initial.bytes + MiB);
    expect(result.again.lastCall.threads).toBe(2);
    expect(result.again.maxDifference).toBeLessThanOrEqual(TOLERANCE);
  });

  test('dispose() terminates the workers; later calls run on the main thread', async ({ page }) => {
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights } = window.threads;
      const threaded = await loadAttention({ threads: 2 });
      const before = threaded.threads;
      threaded.dispose();
      const value = threaded.multiheadAttentionSplit(randomTensor([2, 256, 256], 6), splitWeights(256, 256, 60), { heads: 8, causal: true });
      return { before, after: threaded.threads, reason: threaded.threadsReason, isPromise: value instanceof Promise, shape: value.output.shape };
    });
    expect(result).toMatchObject({ before: 2, after: 1, isPromise: false, shape: [2, 256, 256] });
    expect(result.reason).toMatch(/^disposed/);
  });

  test('a worker module that cannot load: one thread, silently, with the reason', async ({ page }) => {
    await page.route('**/attention-worker.js', (route) => route.fulfill({ status: 404, body: 'not found' }));
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights } = window.threads;
      const attention = await loadAttention({ threads: 2 });
      const value = attention.multiheadAttentionSplit(randomTensor([2, 256, 256], 7), splitWeights(256, 256, 70), { heads: 8 });
      return { threads: attention.threads, reason: attention.threadsReason, isPromise: value instanceof Promise };
    });
    expect(result).toMatchObject({ threads: 1, isPromise: false });
    expect(result.reason).toMatch(/^the workers could not start \(.*\); one thread$/);
  });
});

test.describe('threads on a page without cross-origin isolation', () => {
  let server;
  test.beforeAll(async () => { server = await startServer({ root: '.', port: 0, isolated: false }); });
  test.afterAll(async () => { await server?.close(); });

  test("'auto' is one thread and still computes; an explicit threads: 2 gets workers there too", async ({ page }) => {
    await openHarness(page, `${server.url}${PAGE}`);
    const result = await page.evaluate(async () => {
      const { loadAttention, randomTensor, splitWeights, compareCall } = window.threads;
      const auto = await loadAttention();
      const x = randomTensor([2, 256, 256], 8);
      const weights = splitWeights(256, 256, 80);
      const value = auto.multiheadAttentionSplit(x, weights, { heads: 8, causal: true });
      const two = await loadAttention({ threads: 2 });
      return {
        isolated: crossOriginIsolated,
        auto: { threads: auto.threads, reason: auto.threadsReason, isPromise: value instanceof Promise, shape: value.output.shape },
        two: { threads: two.threads, call: await compareCall(two, auto, 'multiheadAttentionSplit', [x, weights, { heads: 8, causal: true }]) },
      };
    });
    expect(result.isolated).toBe(false);
    expect(result.auto).toMatchObject({ threads: 1, isPromise: false, shape: [2, 256, 256] });
    expect(result.auto.reason).toMatch(/cross-origin isolated/);
    expect(result.two.threads).toBe(2);
    expect(result.two.call.isPromise).toBe(true);
    expect(result.two.call.maxDifference).toBeLessThanOrEqual(TOLERANCE);
  });
});
