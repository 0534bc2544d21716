// LayerNorm backward wrt its input, as layerNormBackward in web/src/train/ops.js:
//   dx̂ = dy·γ;  dx = rstd·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂))
// from the forward's saved x̂ and rstd. dx is written, or added to (params.accumulate = 1: the residual
// stream's gradient). γ's and β's gradients (Σ_n dy·x̂, Σ_n dy) are column sums (column-sum.wgsl.js).
// One workgroup per row; the two means are tree sums in workgroup memory.
import { WORKGROUP_SUM, boundedReads, passHead, perRow, u32, uniforms } from '../wgsl.js';

export const LAYER_NORM_BACKWARD_UNIFORMS = uniforms(u32('rows', 'd', 'offsetGamma', 'accumulate'));

export const layerNormBackwardWgsl = /* wgsl */ `
${passHead(LAYER_NORM_BACKWARD_UNIFORMS, 64, [['dy', 'read'], ['xhat', 'read'], ['rstd', 'read'], ['weights', 'read'], ['dx', 'read_write']])}

${boundedReads(['readDy', 'dy'], ['readXhat', 'xhat'], ['readRstd', 'rstd'], ['readWeight', 'weights'])}
${WORKGROUP_SUM}
${perRow(`
  let base = row * params.d;
  var partialD = 0.0;
  var partialDX = 0.0;
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let dh = readDy(base + i) * readWeight(params.offsetGamma + i);
    partialD += dh;
    partialDX += dh * readXhat(base + i);
  }
  let meanD = rowSum(local.x, partialD) / f32(params.d);
  let meanDX = rowSum(local.x, partialDX) / f32(params.d);
  let r = readRstd(row);
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let value = r * (readDy(base + i) * readWeight(params.offsetGamma + i) - meanD - readXhat(base + i) * meanDX);
    if (base + i < arrayLength(&dx)) { dx[base + i] = select(0.0, dx[base + i], params.accumulate != 0u) + value; }
  }`)}
`;
