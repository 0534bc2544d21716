// gelu(x, options): PyTorch's F.gelu, elementwise, the teaching path in plain JS (the C++ twin is
// cpp/attention/gelu.cpp, same words). x of any rank ≥ 1; options.approximate 'none' (erf) or 'tanh' (GPT-2's).
import { formatShape, sizeOf } from '../tensor.js';
import { ENTRIES } from '../registry.js';
import { checkOption } from '../registry-checks.js';
import { checkAnyTensor, checkMemory } from './check-helpers.js';
import { checkedOnce } from '../api-checked.js';

const FN = 'gelu';

/** GELU with GPT-2's tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))). */
export const geluTanh = (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x)));

/**
 * erf(z) in double precision (JS has no Math.erf): (2/√π)·e^(−z²)·Σ (2z²)ⁿ·z / (2n+1)!!, a series of positive
 * terms (no cancellation) whose sum is within a few ulps; beyond |z| = 6, erf is ±1 to double precision.
 */
export function erf(z) {
  if (Math.abs(z) >= 6) return Math.sign(z);
  const twoZ2 = 2 * z * z;
  let term = z;
  let sum = z;
  for (let n = 1; Math.abs(term) > 1e-17 * Math.abs(sum); n++) {
    term *= twoZ2 / (2 * n + 1);
    sum += term;
  }
  return (2 / Math.sqrt(Math.PI)) * Math.exp(-z * z) * sum;
}

/** The exact GELU: x·Φ(x) = 0.5·x·(1 + erf(x/√2)). */
export const geluErf = (x) => 0.5 * x * (1 + erf(x / Math.SQRT2));

/** Checks every argument (docs/api.md "Errors"). */
export function checkGelu(x, options) {
  const shape = checkAnyTensor(FN, 'x', x);
  checkOption(FN, 'approximate', ENTRIES[FN].options.approximate, options.approximate);
  checkMemory(FN, 'teaching', { size: sizeOf(shape) }, `x of shape ${formatShape(shape)}`);
}

/** {output}: GELU of each value, in double, rounded to float32. */
export function gelu(x, options) {
  checkedOnce('gelu', () => checkGelu(x, options));
  const form = options.approximate === 'tanh' ? geluTanh : geluErf;
  const output = new Float32Array(x.data.length);
  for (let i = 0; i < output.length; i++) output[i] = form(x.data[i]);
  return { output: { data: output, shape: [...x.shape] } };
}
