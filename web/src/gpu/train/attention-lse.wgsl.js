// Multi-head attention forward that also returns each row's log-sum-exp, for the backward to recompute
// the weights from (FlashAttention-2): per (batch, head) and query row i, over keys j (j ≤ i when causal),
//   s_ij = scale · q_i·k_j;   lse_i = log Σ_j exp(s_ij);   o_i = Σ_j exp(s_ij − lse_i) · v_j
// with an online softmax (running max m and sum l, the accumulator rescaled by exp(m_old − m_new)), so no
// T×T matrix is stored. q, k, v, o: (B, T, d) with head h in columns [h·d_head, (h+1)·d_head); lse: (B, H, T).
// One invocation per (query row, batch·head); the accumulator and the query row are private arrays of
// HEAD_DIM_MAX floats. A workgroup is WORKGROUP_SIZE consecutive query rows of one (batch, head): it stages
// KEY_TILE keys and values at a time in workgroup memory, each read once from the storage buffer for the
// whole workgroup instead of once per row (key-tiles.wgsl.js, as fused-attention.wgsl.js). The sums run in
// the order of the untiled kernel (key by key, column by column).
import { keyTiles, stageTiles } from '../key-tiles.wgsl.js';
import { LOWEST_F32, boundedReads, f32, passHead, u32, uniforms } from '../wgsl.js';

export const ATTENTION_UNIFORMS = uniforms([...u32('T', 'headDim', 'heads', 'rowStride'), ...f32('scale'), ...u32('causal')]);

export function attentionLseWgsl(headDimMax) {
  return /* wgsl */ `
${passHead(ATTENTION_UNIFORMS, 64, [['q', 'read'], ['k', 'read'], ['v', 'read'], ['o', 'read_write'], ['lse', 'read_write']])}
${keyTiles(headDimMax, ['keyTile', 'valueTile'])}
${LOWEST_F32}

${boundedReads(['readQ', 'q'], ['readK', 'k'], ['readV', 'v'])}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let i = group.x * WORKGROUP_SIZE + local.x;
  let matrix = group.y;                    // b·H + h
  // No early return: every invocation takes part in staging the tiles (the barriers need them all).
  let hasQuery = i < params.T && matrix < arrayLength(&lse) / max(params.T, 1u);
  let d = params.headDim;
  let b = matrix / params.heads;
  let h = matrix % params.heads;
  // (B, T, H·d_head) read in place: row (b, t) of head h starts at (b·T + t)·rowStride + h·d_head
  let head = h * d;
  let qRow = (b * params.T + i) * params.rowStride + head;
  let last = select(params.T, i + 1u, params.causal != 0u);
  // The keys any row of this workgroup needs (causal: up to its last row); the same for the whole workgroup.
  let groupLast = select(params.T, min(params.T, (group.x + 1u) * WORKGROUP_SIZE), params.causal != 0u);
  var queryRow: array<f32, HEAD_DIM_MAX>;
  var acc: array<f32, HEAD_DIM_MAX>;
  for (var c = 0u; c < d; c++) { queryRow[c] = select(0.0, readQ(qRow + c), hasQuery); }
  var m = LOWEST_F32;
  var l = 0.0;
  for (var keyStart = 0u; keyStart < groupLast; keyStart += KEY_TILE) {
    // 1. Stage KEY_TILE keys and values (zeros past T).
    ${stageTiles({ start: 'keyStart', count: 'params.T', width: 'd', into: [
      ['keyTile', 'readK', (j) => `(b * params.T + ${j}) * params.rowStride + head`],
      ['valueTile', 'readV', (j) => `(b * params.T + ${j}) * params.rowStride + head`]] })}
    // 2. Online softmax over the staged keys this row sees.
    for (var t = 0u; t < KEY_TILE; t++) {
      let j = keyStart + t;
      if (j >= last || !hasQuery) { break; }
      var dot = 0.0;
      for (var c = 0u; c < d; c++) { dot += queryRow[c] * keyTile[t * d + c]; }
      let s = params.scale * dot;
      let mNew = max(m, s);
      let correction = exp(m - mNew);
      let weight = exp(s - mNew);
      l = l * correction + weight;
      for (var c = 0u; c < d; c++) { acc[c] = acc[c] * correction + weight * valueTile[t * d + c]; }
      m = mNew;
    }
    workgroupBarrier();
  }
  if (hasQuery) {
    for (var c = 0u; c < d; c++) {
      if (qRow + c < arrayLength(&o)) { o[qRow + c] = acc[c] / l; }
    }
    lse[matrix * params.T + i] = m + log(l);
  }
}
`;
}
