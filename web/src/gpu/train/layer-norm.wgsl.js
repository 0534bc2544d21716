// LayerNorm over the last axis, forward, as layerNormForward in web/src/train/ops.js (torch.nn.LayerNorm:
// biased variance, eps 1e-5):  mean = Σx/d;  rstd = 1/√(Σ(x − mean)²/d + eps);  x̂ = (x − mean)·rstd;
// y = x̂·γ + β.  x: (N, d) → y, x̂: (N, d), rstd: (N). γ and β are read from the flat parameter buffer at
// their offsets. One workgroup per row; mean and variance are two tree sums in workgroup memory (the
// two-pass variance, as the JS loop: layerNormStats).
import { WORKGROUP_SUM, boundedReads, f32, layerNormStats, passHead, perRow, u32, uniforms } from '../wgsl.js';

export const LAYER_NORM_UNIFORMS = uniforms([...u32('rows', 'd', 'offsetGamma', 'offsetBeta'), ...f32('eps')]);

export const layerNormWgsl = /* wgsl */ `
${passHead(LAYER_NORM_UNIFORMS, 64, [['x', 'read'], ['weights', 'read'], ['y', 'read_write'], ['xhat', 'read_write'], ['rstd', 'read_write']])}

${boundedReads(['readX', 'x'], ['readWeight', 'weights'])}
${WORKGROUP_SUM}
${layerNormStats('readX')}
${perRow(`
  let base = row * params.d;
  let stats = layerNormStats(local.x, base);
  let mean = stats.x;
  let r = stats.y;
  for (var i = local.x; i < params.d; i += WORKGROUP_SIZE) {
    let h = (readX(base + i) - mean) * r;
    if (base + i < arrayLength(&xhat)) { xhat[base + i] = h; }
    if (base + i < arrayLength(&y)) {
      y[base + i] = h * readWeight(params.offsetGamma + i) + readWeight(params.offsetBeta + i);
    }
  }
  if (local.x == 0u && row < arrayLength(&rstd)) { rstd[row] = r; }`)}
`;
