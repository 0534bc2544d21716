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
import { boundedReads, f32, u32, uniforms } from '../wgsl.js';

export const ADAMW_UNIFORMS = uniforms([...u32('count'), ...f32('decay', 'beta1', 'beta2', 'oneMinusBeta1', 'oneMinusBeta2', 'stepSize', 'correction2Sqrt', 'eps')]);

export const adamwWgsl = /* wgsl */ `
${ADAMW_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> grads: array<f32>;
@group(0) @binding(2) var<storage, read> clip: array<f32>;   // [total norm, coef]
@group(0) @binding(3) var<storage, read_write> weights: array<f32>;
@group(0) @binding(4) var<storage, read_write> expAvg: array<f32>;
@group(0) @binding(5) var<storage, read_write> expAvgSq: array<f32>;

${boundedReads(['readGrad', 'grads'])}
fn readCoef() -> f32 {
  if (arrayLength(&clip) > 1u) { return clip[1]; }
  return 1.0;
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.count || index >= arrayLength(&weights) || index >= arrayLength(&expAvg) ||
      index >= arrayLength(&expAvgSq)) { return; }
  let g = readGrad(index) * readCoef();
  let p = weights[index] * params.decay;
  let m = expAvg[index] * params.beta1 + g * params.oneMinusBeta1;
  let v = expAvgSq[index] * params.beta2 + (g * g) * params.oneMinusBeta2;
  let denom = sqrt(v) / params.correction2Sqrt + params.eps;
  expAvg[index] = m;
  expAvgSq[index] = v;
  weights[index] = p - (m / denom) * params.stepSize;
}
`;
