// A backward's memory estimate is its registry entry's terms (BACKWARD_MEMORY), summed by the JS checks
// (reference/checks.js) and the C++ core's (checks_backward.cpp) alike: the js backend and the WASM binding,
// each given the same memory limit, refuse a backward call from the same size on, in the same words.
import { describe, expect, test } from 'vitest';
import { loadAttention } from '../../web/src/core/index.js';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { waveTensor } from './wasm-helpers.js';

const LIMIT = 64 * 2 ** 20; // 64 MiB: room for the module beside the estimate

/** The message of `call`'s refusal, or null when it computes. */
function refusal(call) {
  try {
    call();
    return null;
  } catch (error) {
    return error.message;
  }
}

/** [function, options, its arguments at size T, a T it refuses] */
const CASES = [
  ['selfAttentionBackward', {}, (T) => {
    const d = 4;
    return [waveTensor([1, T, d]), { query: waveTensor([d, d], 1), key: waveTensor([d, d], 2), value: waveTensor([d, d], 3) }, waveTensor([1, T, d], 4)];
  }, 4096],
  ['multiheadAttentionSplitBackward', { heads: 2, causal: true, intermediates: true }, (T) => {
    const d = 4;
    return [waveTensor([1, T, d]), { query: waveTensor([d, d], 1), key: waveTensor([d, d], 2), value: waveTensor([d, d], 3) }, waveTensor([1, T, d], 4)];
  }, 4096],
  ['crossAttentionBackward', { heads: 2, causal: false, dropout: 0.1, seed: 3 }, (T) => {
    const d = 4;
    return [waveTensor([1, T, d]), waveTensor([1, T + 3, d], 5), { query: waveTensor([d, d], 1), key: waveTensor([d, d], 2), value: waveTensor([d, d], 3) }, waveTensor([1, T, d], 4)];
  }, 4096],
];

describe.each(['simd', 'baseline'])('the %s build', (build) => {
  test.each(CASES)('%s: js and wasm refuse from the same size on, in the same words', async (fn, options, argsAt, top) => {
    const core = await loadWasmBackend({ build, memoryLimit: LIMIT });
    const js = await loadAttention({ backend: 'js', memoryLimit: LIMIT });
    // the first T js refuses (a bisection over T: the estimate grows with T)
    let low = 1;
    let high = top;
    while (high - low > 1) {
      const middle = Math.floor((low + high) / 2);
      if (refusal(() => js[fn](...argsAt(middle), options)) === null) low = middle;
      else high = middle;
    }
    const jsMessage = refusal(() => js[fn](...argsAt(high), options));
    expect(jsMessage).toMatch(new RegExp(`^${fn}: B=1, .* needs [\\d.]+ MB for its results and workspace; the memory limit is 64 MiB$`));
    // The binding refuses there with the same estimate; its limit is LIMIT or, near it, what its module has left.
    const wasmMessage = refusal(() => core[fn](...argsAt(high), options));
    const estimate = (message) => message.slice(0, message.indexOf('; the memory limit is'));
    expect(estimate(wasmMessage)).toBe(estimate(jsMessage));
    // One size below, the binding's estimate fits LIMIT as the js one does: it computes, or it is refused
    // only by its module's room (a limit below 64 MiB) with an estimate within LIMIT.
    const below = refusal(() => core[fn](...argsAt(low), options));
    if (below !== null) {
      const [, megabytes, room] = below.match(/needs ([\d.]+) MB for its results and workspace; the memory limit is (\d+) MiB$/);
      expect(Number(room)).toBeLessThan(64);
      expect(Number(megabytes) * 1e6).toBeLessThanOrEqual(LIMIT);
    }
  }, 120_000);
});
