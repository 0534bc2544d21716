// Step 8: dropout on the attention weights. Two generators (options.dropoutRng, docs/api.md "Dropout"):
//   'counter' (the default): the counter-based random numbers of docs/api.md, so that the native core, both WASM
//             builds, WebGPU, the fused kernels and this reference drop exactly the same elements;
//   'torch':  the mask torch.nn.Dropout draws after torch.manual_seed(seed) on the CPU (torch 1.13's
//             bernoulli_(1 − p): one double per element from two mt19937 draws), so the book's printed
//             numbers come out; the teaching code only (it draws the elements in order).
import { lowbias32 } from '../random.js';
import { manualSeed } from '../torch-random.js';
import { formatShape, sizeOf } from '../tensor.js';
import { checkAnyTensor, checkDropout, checkDropoutRng, checkMemory, checkSeed } from './check-helpers.js';
import { checkedOnce } from '../api-checked.js';

export { lowbias32 };

/** u(seed, i) in [0, 1): the top 24 bits of lowbias32(i ⊕ lowbias32(seed)), exact in float32. */
export function dropoutUniform(seed, index) {
  return (lowbias32((index ^ lowbias32(seed)) >>> 0) >>> 8) / 2 ** 24;
}

const TWO_POW_32 = 2 ** 32;
const TWO_POW_MINUS_53 = 2 ** -53;

/**
 * torch 1.13 CPU's `bernoulli_(1 − p)` on a fresh generator `torch.manual_seed(seed)`, element by element in
 * flat order: u = random64() masked to 53 bits · 2⁻⁵³ (at::uniform_real_distribution<double>; random64 is two
 * mt19937 draws, the first the high word), kept when u < 1 − p in double. p is held as float32, as the core
 * holds it, so for a p that float32 does not represent exactly (0.1) the keep probability is 1 − fl(p).
 * @returns {Uint8Array} 1 kept, 0 dropped
 */
export function torchDropoutKeeps(count, p, seed) {
  const generator = manualSeed(seed);
  const keep = 1 - Math.fround(p);
  const kept = new Uint8Array(count);
  for (let i = 0; i < count; i++) {
    const high = generator.nextUint32() & 0x1fffff; // the 21 bits of the high word that survive the 53-bit mask
    const low = generator.nextUint32();
    kept[i] = (high * TWO_POW_32 + low) * TWO_POW_MINUS_53 < keep ? 1 : 0;
  }
  return kept;
}

/** Which of `count` elements dropout keeps (1) for p, seed and the generator `rng` ('counter' | 'torch'). */
export function dropoutKeeps(count, p, seed, rng = 'counter') {
  if (rng === 'torch') return torchDropoutKeeps(count, p, seed);
  const kept = new Uint8Array(count);
  for (let i = 0; i < count; i++) kept[i] = dropoutUniform(seed, i) >= p ? 1 : 0;
  return kept;
}

/**
 * The factor a kept weight is multiplied by. 'torch': torch divides its float noise by (1 − p), so the factor
 * is float32's 1 / fl(1 − p); 'counter': 1 / (1 − p).
 */
export function dropoutScale(p, rng = 'counter') {
  return rng === 'torch' ? Math.fround(1 / Math.fround(1 - Math.fround(p))) : 1 / (1 - p);
}

/**
 * Dropout of a flat weights array (a new array is returned): element i is kept (u(seed, i) ≥ p for the counter
 * generator; torch's bernoulli for 'torch') and then scaled by 1/(1 − p), so the expected value of every weight
 * is unchanged. Returns { mask, dropped }.
 */
export function dropWeights(weights, p, seed, rng = 'counter') {
  const kept = dropoutKeeps(weights.length, p, seed, rng);
  const mask = new Float32Array(weights.length);
  const dropped = new Float32Array(weights.length);
  const keepScale = dropoutScale(p, rng);
  for (let i = 0; i < weights.length; i++) {
    if (kept[i]) {
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
  if ('dropoutRng' in options) checkDropoutRng(fn, options.dropoutRng);
  checkMemory(fn, 'teaching', { size: sizeOf(shape) }, `weights of shape ${formatShape(shape)}`);
  return { size: sizeOf(shape) };
}

/** attentionDropout(weights, {dropout, seed, dropoutRng}): weights any shape → { mask, output } of the same shape. */
export function attentionDropout(weights, options) {
  checkedOnce('attentionDropout', () => checkAttentionDropout(weights, options));
  const { mask, dropped } = dropWeights(weights.data, options.dropout, options.seed, options.dropoutRng);
  return {
    mask: { data: mask, shape: [...weights.shape] },
    output: { data: dropped, shape: [...weights.shape] },
  };
}
