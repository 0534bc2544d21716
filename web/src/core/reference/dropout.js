// Step 8: dropout on the attention weights, with the counter-based random numbers of docs/api.md, so
// that the native core, both WASM builds, WebGPU and this reference drop exactly the same elements.
import { lowbias32 } from '../random.js';
import { formatShape, sizeOf } from '../tensor.js';
import { checkAnyTensor, checkDropout, checkMemory, checkSeed } from './check-helpers.js';

export { lowbias32 };

/** u(seed, i) in [0, 1): the top 24 bits of lowbias32(i ⊕ lowbias32(seed)), exact in float32. */
export function dropoutUniform(seed, index) {
  return (lowbias32((index ^ lowbias32(seed)) >>> 0) >>> 8) / 2 ** 24;
}

/**
 * Dropout of a flat weights array (a new array is returned): element i is kept when u(seed, i) ≥ p and then scaled by
 * 1/(1 − p), so the expected value of every weight is unchanged. Returns { mask, dropped }.
 */
export function dropWeights(weights, p, seed) {
  const mask = new Float32Array(weights.length);
  const dropped = new Float32Array(weights.length);
  const keepScale = 1 / (1 - p);
  for (let i = 0; i < weights.length; i++) {
    if (dropoutUniform(seed, i) >= p) {
      mask[i] = 1;
      dropped[i] = weights[i] * keepScale;
    }
  }
  return { mask, dropped };
}

/** attentionDropout's check (checks.js CHECKS holds it): weights of any rank, dropout in [0, 1), a 32-bit seed. */
export function checkAttentionDropout(weights, options) {
  const fn = 'attentionDropout';
  const shape = checkAnyTensor(fn, 'weights', weights);
  checkDropout(fn, options.dropout);
  checkSeed(fn, options.seed);
  checkMemory(fn, 'teaching', { size: sizeOf(shape) }, `weights of shape ${formatShape(shape)}`);
  return { size: sizeOf(shape) };
}

/** attentionDropout(weights, {dropout, seed}): weights any shape → { mask, output } of the same shape. */
export function attentionDropout(weights, options) {
  checkAttentionDropout(weights, options);
  const { mask, dropped } = dropWeights(weights.data, options.dropout, options.seed);
  return {
    mask: { data: mask, shape: [...weights.shape] },
    output: { data: dropped, shape: [...weights.shape] },
  };
}
