// layerNorm(x, options): PyTorch's F.layer_norm over the last axis, the teaching path in plain JS (the C++ twin
// is cpp/attention/layer_norm.cpp, same words). x (…, C) of any rank ≥ 1; options.weight and options.bias (C).
import { formatShape, sizeOf } from '../tensor.js';
import { ENTRIES } from '../registry.js';
import { checkOption } from '../registry-checks.js';
import { AxisSizes, checkAnyTensor, checkMemory, isPresent } from './check-helpers.js';
import { checkedOnce } from '../api-checked.js';

const FN = 'layerNorm';

/** Checks every argument (docs/api.md "Errors"); returns {rows, C}. */
export function checkLayerNorm(x, options) {
  const shape = checkAnyTensor(FN, 'x', x);
  const C = shape[shape.length - 1];
  // weight and bias are (C), C the last axis of x (the registry's axes and note)
  const axes = new AxisSizes(FN);
  axes.bind('C', C);
  if (isPresent(options.weight)) axes.option('weight', options.weight);
  if (isPresent(options.bias)) axes.option('bias', options.bias);
  checkOption(FN, 'eps', ENTRIES[FN].options.eps, options.eps);
  checkMemory(FN, 'teaching', { size: sizeOf(shape) }, `x of shape ${formatShape(shape)}`);
  return { rows: sizeOf(shape) / C, C };
}

/** {output}: each last-axis row normalised by its mean and biased variance, then · weight + bias where given. */
export function layerNorm(x, options) {
  const { rows, C } = checkedOnce('layerNorm', () => checkLayerNorm(x, options));
  const weight = options.weight?.data;
  const bias = options.bias?.data;
  const eps = Math.fround(options.eps);
  const output = new Float32Array(x.data.length);
  for (let r = 0; r < rows; r++) {
    const offset = r * C;
    // 1. mean μ = Σ x / C
    let mean = 0;
    for (let c = 0; c < C; c++) mean += x.data[offset + c];
    mean /= C;
    // 2. variance σ² = Σ (x − μ)² / C: biased (divided by C, not C − 1), as PyTorch normalises
    let variance = 0;
    for (let c = 0; c < C; c++) variance += (x.data[offset + c] - mean) ** 2;
    variance /= C;
    // 3. x̂ = (x − μ) / √(σ² + eps)   4. y = x̂ · weight + bias
    const inverseStd = 1 / Math.sqrt(variance + eps);
    for (let c = 0; c < C; c++) {
      let y = (x.data[offset + c] - mean) * inverseStd;
      if (weight) y *= weight[c];
      if (bias) y += bias[c];
      output[offset + c] = y;
    }
  }
  return { output: { data: output, shape: [...x.shape] } };
}
