// The global gradient norm of torch.nn.utils.clip_grad_norm_ as a two-stage reduction, no atomics:
//   stage 1 (gradNormPartialsWgsl), one dispatch per tensor: workgroup w writes Σ g² over its chunk of the
//     tensor to partials[partialOffset + w] (a tree sum in workgroup memory);
//   stage 2 (gradNormTotalWgsl), one workgroup: per tensor t, s_t = Σ its partials; total = √(Σ_t (√s_t)²)
//     (per-tensor norms first, as PyTorch does); coef = min(1, maxNorm/(total + 1e-6)), or 1 with no maxNorm.
//   Writes clip = [total, coef], which the AdamW kernel reads.
// Segments (partial start, partial count) per tensor come in a storage buffer of u32 pairs.
import { WORKGROUP_SUM, boundedReads, f32, passHead, u32, uniforms } from '../wgsl.js';

export const GRAD_NORM_PARTIALS_UNIFORMS = uniforms(u32('count', 'offset', 'partialOffset'));
export const GRAD_NORM_TOTAL_UNIFORMS = uniforms([...u32('tensors', 'clipping'), ...f32('maxNorm')]);

export const gradNormPartialsWgsl = /* wgsl */ `
${passHead(GRAD_NORM_PARTIALS_UNIFORMS, 256, [['grads', 'read'], ['partials', 'read_write']])}

${WORKGROUP_SUM}

fn readGrad(index: u32) -> f32 {
  if (index < params.count && params.offset + index < arrayLength(&grads)) { return grads[params.offset + index]; }
  return 0.0;
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let chunk = group.y * groups.x + group.x;
  let g = readGrad(chunk * WORKGROUP_SIZE + local.x);
  let sum = rowSum(local.x, g * g);
  let slot = params.partialOffset + chunk;
  if (local.x == 0u && slot < arrayLength(&partials)) { partials[slot] = sum; }
}
`;

export const gradNormTotalWgsl = /* wgsl */ `
${passHead(GRAD_NORM_TOTAL_UNIFORMS, 256, [['partials', 'read'], ['segments', 'read', 'u32'], ['clip', 'read_write']])}

${WORKGROUP_SUM}

${boundedReads(['readPartial', 'partials'], ['readSegment', 'segments', 'u32'])}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(local_invocation_id) local: vec3<u32>) {
  var total = 0.0;
  for (var t = 0u; t < params.tensors; t++) {
    let start = readSegment(2u * t);
    let count = readSegment(2u * t + 1u);
    var sum = 0.0;
    for (var i = local.x; i < count; i += WORKGROUP_SIZE) { sum += readPartial(start + i); }
    let norm = sqrt(rowSum(local.x, sum));
    total += norm * norm;
  }
  total = sqrt(total);
  if (local.x == 0u && arrayLength(&clip) > 1u) {
    clip[0] = total;
    clip[1] = select(1.0, min(1.0, params.maxNorm / (total + 1e-6)), params.clipping != 0u);
  }
}
`;
