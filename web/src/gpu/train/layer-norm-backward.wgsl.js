// LayerNorm backward wrt its input, as layerNormBackward in web/src/train/ops.js:
//   dx̂ = dy·γ;  dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))
// from the forward's saved x̂ and rstd. dx is written, or added to (params.accumulate = 1: the residual
// stream's gradient). γ's and β's gradients (Σ_n dy·x̂, Σ_n dy) are column sums (column-sum.wgsl.js).
// One workgroup per row; the two means are tree sums in workgroup memory.
import { WORKGROUP_SUM, u32, uniforms } from '../wgsl.js';

export const LAYER_NORM_BACKWARD_UNIFORMS = uniforms(u32('rows', 'd', 'offsetGamma', 'accumulate'));

export const layerNormBackwardWgsl = /* wgsl */ `
${LAYER_NORM_BACKWARD_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dy: array<f32>;
@group(0) @binding(2) var<storage, read> xhat: array<f32>;
@group(0) @binding(3) var<storage, read> rstd: array<f32>;
@group(0) @binding(4) var<storage, read> weights: array<f32>;
@group(0) @binding(5) var<storage, read_write> dx: array<f32>;

fn readAt(index: u32, which: u32) -> f32 {
  switch which {
    case 0u: { if (index < arrayLength(&dy)) { return dy[index]; } }
    case 1u: { if (index < arrayLength(&xhat)) { return xhat[index]; } }
    case 2u: { if (index < arrayLength(&rstd)) { return rstd[index]; } }
    default: { if (index < arrayLength(&weights)) { return weights[index]; } }
  }
  return 0.0;
}

${WORKGROUP_SUM}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let row = group.y * groups.x + group.x;
  if (row >= params.rows) { return; }
  let base = row * params.d;
  var partialD = 0.0;
  var partialDX = 0.0;
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let dh = readAt(base + i, 0u) * readAt(params.offsetGamma + i, 3u);
    partialD += dh;
    partialDX += dh * readAt(base + i, 1u);
  }
  let meanD = rowSum(local.x, partialD) / f32(params.d);
  let meanDX = rowSum(local.x, partialDX) / f32(params.d);
  let r = readAt(row, 2u);
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let value = r * (readAt(base + i, 0u) * readAt(params.offsetGamma + i, 3u) - meanD - readAt(base + i, 1u) * meanDX);
    if (base + i < arrayLength(&dx)) { dx[base + i] = select(0.0, dx[base + i], params.accumulate != 0u) + value; }
  }
}
`;
