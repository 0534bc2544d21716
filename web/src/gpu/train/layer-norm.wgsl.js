// LayerNorm over the last axis, forward, as layerNormForward in web/src/train/ops.js (torch.nn.LayerNorm:
// biased variance, eps 1e-5):  mean = Σx/d;  rstd = 1/√(Σ(x − mean)²/d + eps);  x̂ = (x − mean)·rstd;
// y = x̂·γ + β.  x: (N, d) → y, x̂: (N, d), rstd: (N). γ and β are read from the flat parameter buffer at
// their offsets. One workgroup per row; mean and variance are two tree sums in workgroup memory (the
// two-pass variance, as the JS loop, not E[x²] − E[x]²).
import { WORKGROUP_SUM, boundedReads, f32, u32, uniforms } from '../wgsl.js';

export const LAYER_NORM_UNIFORMS = uniforms([...u32('rows', 'd', 'offsetGamma', 'offsetBeta'), ...f32('eps')]);

export const layerNormWgsl = /* wgsl */ `
${LAYER_NORM_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> x: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> y: array<f32>;
@group(0) @binding(4) var<storage, read_write> xhat: array<f32>;
@group(0) @binding(5) var<storage, read_write> rstd: array<f32>;

${boundedReads(['readX', 'x'], ['readWeight', 'weights'])}

${WORKGROUP_SUM}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let row = group.y * groups.x + group.x;
  if (row >= params.rows) { return; }
  let base = row * params.d;
  var partial = 0.0;
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) { partial += readX(base + i); }
  let mean = rowSum(local.x, partial) / f32(params.d);
  partial = 0.0;
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) { let c = readX(base + i) - mean; partial += c * c; }
  let r = 1.0 / sqrt(rowSum(local.x, partial) / f32(params.d) + params.eps);
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let h = (readX(base + i) - mean) * r;
    if (base + i < arrayLength(&xhat)) { xhat[base + i] = h; }
    if (base + i < arrayLength(&y)) {
      y[base + i] = h * readWeight(params.offsetGamma + i) + readWeight(params.offsetBeta + i);
    }
  }
  if (local.x == 0u && row < arrayLength(&rstd)) { rstd[row] = r; }
}
`;
