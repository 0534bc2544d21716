// The attention weights of a forward that kept only each row's log-sum-exp (attention-lse.wgsl.js), for
// trainer.attention(): P_ij = exp(scale · q_i·k_j − lse_i) for keys j ≤ i (causal; 0 above the diagonal),
// the dot product summed in the forward's order, so each row is the forward's softmax. q, k: (B, T, d)
// with head h in columns [h·d_head, (h+1)·d_head); lse: (B, H, T); p: (B, H, T, T). One invocation per
// weight: (key j, query i, batch·head), in TILE × TILE workgroups.
import { ATTENTION_UNIFORMS } from './attention-lse.wgsl.js';
import { bindings, boundedReads } from '../wgsl.js';

export const attentionWeightsWgsl = /* wgsl */ `
${ATTENTION_UNIFORMS.struct}

${bindings([['q', 'read'], ['k', 'read'], ['lse', 'read'], ['p', 'read_write']])}

override TILE: u32 = 16u;

${boundedReads(['readQ', 'q'], ['readK', 'k'])}

@compute @workgroup_size(TILE, TILE, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let j = id.x;
  let i = id.y;
  let matrix = id.z;                        // b·H + h
  let T = params.T;
  if (i >= T || j >= T || (matrix + 1u) * T > arrayLength(&lse)) { return; }
  let out = (matrix * T + i) * T + j;
  if (out >= arrayLength(&p)) { return; }
  if (params.causal != 0u && j > i) {
    p[out] = 0.0;
    return;
  }
  let b = matrix / params.heads;
  let head = (matrix % params.heads) * params.headDim;
  let qRow = (b * T + i) * params.rowStride + head;
  let kRow = (b * T + j) * params.rowStride + head;
  var dot = 0.0;
  for (var c = 0u; c < params.headDim; c++) { dot += readQ(qRow + c) * readK(kRow + c); }
  p[out] = exp(params.scale * dot - lse[matrix * T + i]);
}
`;
