// PyTorch's CPU random numbers, bit for bit (checked against torch 1.13: tests/fixtures/torchRandom.json,
// written by tests/fixtures/torch_random.py). The page's seeded weights are these, so a PyTorch snippet
// with the same seed prints the page's numbers; the trainer initialises its layers with them too.
//
//   torch.manual_seed(s)  → new TorchGenerator(s): the mt19937 state seeded as at::mt19937 does
//                           (state[0] = s mod 2³², state[j] = 1812433253·(state[j−1] ^ state[j−1]>>30) + j).
//   torch.rand(...)       → generator.rand(n): each float32 from one 32-bit draw, (draw & (2²⁴−1)) / 2²⁴
//                           (at::uniform_real_distribution<float>: the low 24 bits, float's mantissa).
//   tensor.uniform_(a, b) → generator.uniform(n, a, b): a and b rounded to float32 first, then
//                           (draw & (2²⁴−1)) / 2²⁴ · fround(b − a) + a in double, rounded to float32.
//   nn.Linear(in, out)    → generator.linear(in, out, {bias}): kaiming_uniform_(a=√5) on the (out, in)
//                           weight, i.e. uniform(±√3·gain/√in) with gain = √(2/(1+a²)), then the bias in
//                           uniform(±1/√in). Layers draw in construction order from one generator.
// torch.randn is not here: nothing on the page draws normal numbers.

const N = 624;
const M = 397;
const MATRIX_A = 0x9908b0df;
const UPPER_MASK = 0x80000000;
const LOWER_MASK = 0x7fffffff;
const MANTISSA_MASK = 0xffffff; // 2²⁴ − 1: float32's 24 significant bits
const TWO_POW_MINUS_24 = 1 / 16777216;

function checkCount(method, count) {
  if (!Number.isInteger(count) || count < 0) {
    throw new Error(`TorchGenerator.${method}: count=${count} is not a whole number ≥ 0`);
  }
}

function checkFeatures(name, value) {
  if (!Number.isInteger(value) || value < 1) {
    throw new Error(`TorchGenerator.linear: ${name}=${value} is not a whole number ≥ 1`);
  }
}

/** The generator behind `torch.manual_seed(seed)` on the CPU: mt19937, 32-bit draws. */
export class TorchGenerator {
  /** @param {number} seed a whole number in 0 … 2⁵³; torch keeps its low 32 bits for mt19937 */
  constructor(seed) {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new Error(`TorchGenerator: seed=${seed} is not a whole number in 0…${Number.MAX_SAFE_INTEGER}`);
    }
    this.state = new Uint32Array(N);
    this.state[0] = seed % 4294967296;
    for (let j = 1; j < N; j++) {
      const previous = this.state[j - 1] ^ (this.state[j - 1] >>> 30);
      this.state[j] = (Math.imul(1812433253, previous) + j) >>> 0;
    }
    this.index = N; // the first draw twists the whole state, as at::mt19937 does (left_ = 1)
  }

  twist() {
    const s = this.state;
    for (let k = 0; k < N; k++) {
      const y = (s[k] & UPPER_MASK) | (s[(k + 1) % N] & LOWER_MASK);
      s[k] = s[(k + M) % N] ^ (y >>> 1) ^ (y & 1 ? MATRIX_A : 0);
    }
    this.index = 0;
  }

  /** The next 32-bit draw (CPUGeneratorImpl::random), as an unsigned number. */
  nextUint32() {
    if (this.index >= N) this.twist();
    let y = this.state[this.index++];
    y ^= y >>> 11;
    y ^= (y << 7) & 0x9d2c5680;
    y ^= (y << 15) & 0xefc60000;
    y ^= y >>> 18;
    return y >>> 0;
  }

  /** `torch.rand(count)`: float32 values in [0, 1), in the order torch fills a contiguous tensor. */
  rand(count) {
    checkCount('rand', count);
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) out[i] = (this.nextUint32() & MANTISSA_MASK) * TWO_POW_MINUS_24;
    return out;
  }

  /** `torch.empty(count).uniform_(from, to)`. */
  uniform(count, from, to) {
    checkCount('uniform', count);
    if (!Number.isFinite(from) || !Number.isFinite(to) || from > to) {
      throw new Error(`TorchGenerator.uniform: from=${from}, to=${to} is not a finite range with from ≤ to`);
    }
    const a = Math.fround(from);
    const b = Math.fround(to);
    const width = Math.fround(b - a); // (to - from) in float, as torch computes it
    const out = new Float32Array(count);
    for (let i = 0; i < count; i++) {
      const x = (this.nextUint32() & MANTISSA_MASK) * TWO_POW_MINUS_24;
      out[i] = x * width + a; // double arithmetic, one rounding to float32 on the store
    }
    return out;
  }

  /**
   * `nn.Linear(inFeatures, outFeatures, bias)`'s default initialisation.
   * @returns {{weight: {data: Float32Array, shape: number[]}, bias: {data: Float32Array, shape: number[]}|null}}
   *   weight (out, in) as nn.Linear stores it; bias (out) or null
   */
  linear(inFeatures, outFeatures, { bias = true } = {}) {
    checkFeatures('inFeatures', inFeatures);
    checkFeatures('outFeatures', outFeatures);
    const weightBound = linearWeightBound(inFeatures);
    const weight = { data: this.uniform(inFeatures * outFeatures, -weightBound, weightBound), shape: [outFeatures, inFeatures] };
    if (!bias) return { weight, bias: null };
    const biasBound = 1 / Math.sqrt(inFeatures);
    return { weight, bias: { data: this.uniform(outFeatures, -biasBound, biasBound), shape: [outFeatures] } };
  }
}

/**
 * kaiming_uniform_(a=√5)'s bound for fan_in, computed in the same double operations as
 * torch.nn.init: gain = √(2 / (1 + a²)), std = gain / √fan_in, bound = √3 · std.
 */
export function linearWeightBound(fanIn) {
  const a = Math.sqrt(5);
  const gain = Math.sqrt(2.0 / (1 + a * a));
  const std = gain / Math.sqrt(fanIn);
  return Math.sqrt(3.0) * std;
}

/** `torch.manual_seed(seed)`: a fresh generator (the page never shares one between views). */
export function manualSeed(seed) {
  return new TorchGenerator(seed);
}
