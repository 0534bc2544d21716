// AdamW, as torch.optim.AdamW (torch 1.13, single-tensor path) and web/src/train/adamw.js, over every
// parameter at once: parameters, gradients and both moments live in flat buffers (one offset per tensor).
//
//   g = grad · coef                         (coef = min(1, maxNorm/(‖g‖ + 1e-6)) from grad-norm, or 1)
//   p = p · (1 − lr·λ)                      (decoupled weight decay)
//   m = β₁m + (1 − β₁)g;   v = β₂v + (1 − β₂)g²
//   p = p − (m / (√v / √(1 − β₂^step) + ε)) · lr/(1 − β₁^step)
//
// The step's scalars (decay, stepSize, √(1 − β₂^step)) are computed on the CPU in float64 and rounded to
// f32 once, as PyTorch does with its Python floats. coef is read from a storage buffer, so clipping needs
// no read-back.
import { boundedReads, f32, passHead, perElement, u32, uniforms } from '../wgsl.js';

export const ADAMW_UNIFORMS = uniforms([...u32('count'), ...f32('decay', 'beta1', 'beta2', 'oneMinusBeta1', 'oneMinusBeta2', 'stepSize', 'correction2Sqrt', 'eps')]);

export const adamwWgsl = /* wgsl */ `
${passHead(ADAMW_UNIFORMS, 256, [['grads', 'read'], ['clip', 'read'], ['weights', 'read_write'], ['expAvg', 'read_write'], ['expAvgSq', 'read_write']])}

${boundedReads(['readGrad', 'grads'])}
// clip: [total norm, coef]
fn readCoef() -> f32 {
  if (arrayLength(&clip) > 1u) { return clip[1]; }
  return 1.0;
}
${perElement(`
  if (index >= params.count || index >= arrayLength(&weights) || index >= arrayLength(&expAvg) ||
      index >= arrayLength(&expAvgSq)) { return; }
  let g = readGrad(index) * readCoef();
  let p = weights[index] * params.decay;
  let m = expAvg[index] * params.beta1 + g * params.oneMinusBeta1;
  let v = expAvgSq[index] * params.beta2 + (g * g) * params.oneMinusBeta2;
  let denom = sqrt(v) / params.correction2Sqrt + params.eps;
  expAvg[index] = m;
  expAvgSq[index] = v;
  weights[index] = p - (m / denom) * params.stepSize;`)}
`;
