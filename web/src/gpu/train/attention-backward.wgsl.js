// Multi-head attention backward with the weights recomputed from the forward's lse (FlashAttention-2), no
// T×T matrix stored, no atomics: two kernels, each output row written by one invocation.
//   p_ij = exp(scale·q_i·k_j − lse_i)   (0 for j > i when causal);   D_i = Σ_c dO_ic·O_ic (= Σ_j p_ij dp_ij)
//   dp_ij = dO_i·v_j;   ds_ij = p_ij (dp_ij − D_i)
//   stage 1, per query row i:  dq_i = scale · Σ_j ds_ij k_j;   also writes D_i
//   stage 2, per key row j:    dv_j = Σ_i p_ij dO_i;   dk_j = scale · Σ_i ds_ij q_i
// Layouts as attention-lse.wgsl.js: q, k, v, O, dO, dq, dk, dv (B, T, d) with heads in place; lse, D (B, H, T).
// This is causalAttentionBackward of web/src/train/ops.js with D_i for its Σ_j P dP.
// A workgroup is WORKGROUP_SIZE consecutive rows of one (batch, head); the rows it loops over (keys and values
// in stage 1, queries and dO in stage 2) are staged KEY_TILE at a time in workgroup memory, each read once for
// the whole workgroup (key-tiles.wgsl.js, as attention-lse.wgsl.js). Each invocation keeps its own row(s) in
// private arrays.
import { keyTiles, stageTiles } from '../key-tiles.wgsl.js';
import { boundedReads, passHead } from '../wgsl.js';
import { ATTENTION_UNIFORMS } from './attention-lse.wgsl.js';

// A stage: the buffers both stages bind (1–5), then its own three (6–8) and the bounded read of the first of
// them; its entry point is invocation `row` of head h in batch b (matrix = b·H + h), hasRow where that row
// exists (D, bound by both, has one value per row). No early return: every invocation stages the tiles (the
// barriers need them all).
const stage = ({ headDimMax, buffers, read, row }, body) => /* wgsl */ `
${passHead(ATTENTION_UNIFORMS, 64, [['q', 'read'], ['k', 'read'], ['v', 'read'], ['dO', 'read'], ['lse', 'read'], ...buffers])}
// The staged rows: K and V in stage 1, Q and dO in stage 2.
${keyTiles(headDimMax, ['tileA', 'tileB'])}

${boundedReads(['readQ', 'q'], ['readK', 'k'], ['readV', 'v'], ['readDO', 'dO'], ['readLse', 'lse'], read)}

// Row t of head h in batch b, read in place from (B, T, H·d_head).
fn rowStart(b: u32, t: u32, h: u32) -> u32 { return (b * params.T + t) * params.rowStride + h * params.headDim; }

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let ${row} = group.x * WORKGROUP_SIZE + local.x;
  let matrix = group.y;
  let hasRow = ${row} < params.T && matrix * params.T + ${row} < arrayLength(&D);
  let dh = params.headDim;
  let b = matrix / params.heads;
  let h = matrix % params.heads;${body}
}
`;

/** Stage 1: dq and D, one invocation per (query row, batch·head). Binds O at 6, dq at 7, D at 8. */
export function attentionBackwardQueryWgsl(headDimMax) {
  return stage({ headDimMax, buffers: [['o', 'read'], ['dq', 'read_write'], ['D', 'read_write']], read: ['readO', 'o'], row: 'i' }, `
  let qRow = rowStart(b, i, h);
  var queryRow: array<f32, HEAD_DIM_MAX>;
  var gradRow: array<f32, HEAD_DIM_MAX>;
  var d = 0.0;
  for (var c = 0u; c < dh; c++) {
    queryRow[c] = select(0.0, readQ(qRow + c), hasRow);
    gradRow[c] = select(0.0, readDO(qRow + c), hasRow);
    d += gradRow[c] * select(0.0, readO(qRow + c), hasRow);
  }
  if (hasRow) { D[matrix * params.T + i] = d; }
  let lseI = select(0.0, readLse(matrix * params.T + i), hasRow);
  let last = select(params.T, i + 1u, params.causal != 0u);
  // The keys any row of this workgroup needs (causal: up to its last row); the same for the whole workgroup.
  let groupLast = select(params.T, min(params.T, (group.x + 1u) * WORKGROUP_SIZE), params.causal != 0u);
  var acc: array<f32, HEAD_DIM_MAX>;
  for (var start = 0u; start < groupLast; start += KEY_TILE) {
    // 1. Stage KEY_TILE rows of K (tileA) and V (tileB), zeros past T.
    ${stageTiles({ start: 'start', count: 'params.T', width: 'dh', into: [
      ['tileA', 'readK', (j) => `rowStart(b, ${j}, h)`], ['tileB', 'readV', (j) => `rowStart(b, ${j}, h)`]] })}
    // 2. p_ij = exp(scale·q_i·k_j − lse_i), dp_ij = dO_i·v_j, ds_ij = p_ij (dp_ij − D_i); dq_i += ds_ij k_j
    for (var t = 0u; t < KEY_TILE; t++) {
      let j = start + t;
      if (j >= last || !hasRow) { break; }
      var dot = 0.0;
      var dp = 0.0;
      for (var c = 0u; c < dh; c++) {
        dot += queryRow[c] * tileA[t * dh + c];
        dp += gradRow[c] * tileB[t * dh + c];
      }
      let ds = exp(params.scale * dot - lseI) * (dp - d);
      for (var c = 0u; c < dh; c++) { acc[c] += ds * tileA[t * dh + c]; }
    }
    workgroupBarrier();
  }
  if (hasRow) {
    for (var c = 0u; c < dh; c++) {
      if (qRow + c < arrayLength(&dq)) { dq[qRow + c] = params.scale * acc[c]; }
    }
  }`);
}

/** Stage 2: dk and dv, one invocation per (key row, batch·head); reads stage 1's D at 6. */
export function attentionBackwardKeyWgsl(headDimMax) {
  return stage({ headDimMax, buffers: [['D', 'read'], ['dk', 'read_write'], ['dv', 'read_write']], read: ['readD', 'D'], row: 'j' }, `
  let kRow = rowStart(b, j, h);
  var keyRow: array<f32, HEAD_DIM_MAX>;
  var valueRow: array<f32, HEAD_DIM_MAX>;
  for (var c = 0u; c < dh; c++) {
    keyRow[c] = select(0.0, readK(kRow + c), hasRow);
    valueRow[c] = select(0.0, readV(kRow + c), hasRow);
  }
  let first = select(0u, j, params.causal != 0u);
  // The queries any row of this workgroup needs (causal: from its first row on); the same for the whole workgroup.
  let groupFirst = select(0u, group.x * WORKGROUP_SIZE, params.causal != 0u);
  var accK: array<f32, HEAD_DIM_MAX>;
  var accV: array<f32, HEAD_DIM_MAX>;
  for (var start = groupFirst; start < params.T; start += KEY_TILE) {
    // 1. Stage KEY_TILE rows of Q (tileA) and dO (tileB), zeros past T.
    ${stageTiles({ start: 'start', count: 'params.T', width: 'dh', into: [
      ['tileA', 'readQ', (i) => `rowStart(b, ${i}, h)`], ['tileB', 'readDO', (i) => `rowStart(b, ${i}, h)`]] })}
    // 2. dv_j += p_ij dO_i;   dk_j += ds_ij q_i
    for (var t = 0u; t < KEY_TILE; t++) {
      let i = start + t;
      if (i >= params.T || !hasRow) { break; }
      if (i < first) { continue; }
      var dot = 0.0;
      var dp = 0.0;
      for (var c = 0u; c < dh; c++) {
        dot += tileA[t * dh + c] * keyRow[c];
        dp += tileB[t * dh + c] * valueRow[c];
      }
      let p = exp(params.scale * dot - readLse(matrix * params.T + i));
      let ds = p * (dp - readD(matrix * params.T + i));
      for (var c = 0u; c < dh; c++) {
        accV[c] += p * tileB[t * dh + c];
        accK[c] += ds * tileA[t * dh + c];
      }
    }
    workgroupBarrier();
  }
  if (hasRow) {
    for (var c = 0u; c < dh; c++) {
      if (kRow + c < arrayLength(&dk)) { dk[kRow + c] = params.scale * accK[c]; }
      if (kRow + c < arrayLength(&dv)) { dv[kRow + c] = accV[c]; }
    }
  }`);
}
