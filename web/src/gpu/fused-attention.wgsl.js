// Fused attention with an online softmax: per (batch, head), output = softmax(mask(scale · Q·Kᵀ)) · V
// without ever storing the Tq × Tk weights (O(T · d_head) memory instead of O(T²)).
//
//   Q: (Tq, d_head), K, V: (Tk, d_head), O: (Tq, d_head) for each (b, h), each read in place from its
//   projection through an offset, a row stride and batch/head strides (head h of (B, T, d_out) is offset
//   h·d_head, row stride d_out).
//
// One invocation owns one query row. For each key it keeps the running maximum m, the running
// denominator l = Σ exp(s − m) and the running numerator acc = Σ exp(s − m) · keep/(1 − p) · v, rescaling
// both by exp(m_old − m_new) when the maximum grows (Milakov & Gimelshein 2018; FlashAttention). The
// keys and values are staged KEY_TILE rows at a time in workgroup memory, shared by all query rows
// (key-tiles.wgsl.js).
//
// Causal: key j takes part in row i when j ≤ i ('neg_inf' and 'renormalize' give the same weights);
// maskMode 2 ('zero') gives future keys the score 0 instead. Dropout uses the counter-based hash of
// docs/api.md on the flat index of the weight ((b·H + h)·Tq + i)·Tk + j, so it equals the unfused path.
import { keyTiles, stageTiles } from './key-tiles.wgsl.js';
import { LOWBIAS32, LOWEST_F32, boundedReads, f32, passHead, u32, uniforms } from './wgsl.js';

export const FUSED_ATTENTION_UNIFORMS = uniforms([...u32('Tq', 'Tk', 'headDim', 'heads'), ...f32('scale'), ...u32('causal', 'maskMode'), ...f32('dropout'),
  ...u32('seedHash'), ...f32('keepScale'), ...u32('qOffset', 'qRowStride', 'qBatchStride', 'qHeadStride', 'kOffset', 'kRowStride',
  'kBatchStride', 'kHeadStride', 'vOffset', 'vRowStride', 'vBatchStride', 'vHeadStride', 'oOffset', 'oRowStride', 'oBatchStride',
  'oHeadStride')]);

/**
 * @param {number} headDimMax the largest d_head the pipeline serves (a multiple of 4)
 * @returns {string} WGSL source
 */
export function fusedAttentionWgsl(headDimMax) {
  return /* wgsl */ `
${passHead(FUSED_ATTENTION_UNIFORMS, 64, [['q', 'read'], ['k', 'read'], ['v', 'read'], ['o', 'read_write']])}
${keyTiles(headDimMax, ['keyTile', 'valueTile'])}
${LOWEST_F32}

${boundedReads(['readQ', 'q'], ['readK', 'k'], ['readV', 'v'])}
fn writeO(index: u32, value: f32) { if (index < arrayLength(&o)) { o[index] = value; } }
${LOWBIAS32}
fn dropoutKeep(index: u32) -> f32 {
  if (params.dropout <= 0.0) { return 1.0; }
  let u = f32(lowbias32(index ^ params.seedHash) >> 8u) / 16777216.0;
  return select(0.0, params.keepScale, u >= params.dropout);
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let batch = group.y / params.heads;
  let head = group.y % params.heads;
  let query = group.x * WORKGROUP_SIZE + local.x;
  let hasQuery = query < params.Tq;
  let d = params.headDim;
  let qBase = params.qOffset + batch * params.qBatchStride + head * params.qHeadStride + query * params.qRowStride;
  let kBase = params.kOffset + batch * params.kBatchStride + head * params.kHeadStride;
  let vBase = params.vOffset + batch * params.vBatchStride + head * params.vHeadStride;

  var queryRow: array<f32, HEAD_DIM_MAX>;
  var acc: array<f32, HEAD_DIM_MAX>;
  for (var c = 0u; c < d; c++) { queryRow[c] = select(0.0, readQ(qBase + c), hasQuery); }
  var runningMax = LOWEST_F32;
  var denominator = 0.0;
  let weightRowBase = ((batch * params.heads + head) * params.Tq + query) * params.Tk;

  for (var keyStart = 0u; keyStart < params.Tk; keyStart += KEY_TILE) {
    // 1. Stage KEY_TILE keys and values (zeros past Tk).
    ${stageTiles({ start: 'keyStart', count: 'params.Tk', width: 'd', into: [
      ['keyTile', 'readK', (key) => `kBase + ${key} * params.kRowStride`],
      ['valueTile', 'readV', (key) => `vBase + ${key} * params.vRowStride`]] })}

    // 2. Online softmax over the staged keys.
    for (var t = 0u; t < KEY_TILE; t++) {
      let key = keyStart + t;
      if (key >= params.Tk || !hasQuery) { break; }
      let future = params.causal != 0u && key > query;
      if (future && params.maskMode != 2u) { continue; }
      var score = 0.0;
      if (!future) {
        for (var c = 0u; c < d; c++) { score += queryRow[c] * keyTile[t * d + c]; }
        score *= params.scale;
      }
      let newMax = max(runningMax, score);
      let rescale = exp(runningMax - newMax);
      let p = exp(score - newMax);
      denominator = denominator * rescale + p;
      let contribution = p * dropoutKeep(weightRowBase + key);
      for (var c = 0u; c < d; c++) { acc[c] = acc[c] * rescale + contribution * valueTile[t * d + c]; }
      runningMax = newMax;
    }
    workgroupBarrier();
  }

  // 3. output = acc / denominator. Every row sees key 0, so a denominator of 0 means every score was −∞ (q·k
  // overflowed float32): 0/0 makes the row NaN, not a masked row's zeros, as on the CPU (where the float
  // arithmetic is IEEE's, as on SwiftShader; WGSL lets a compiler assume no NaN).
  if (hasQuery) {
    let oBase = params.oOffset + batch * params.oBatchStride + head * params.oHeadStride + query * params.oRowStride;
    for (var c = 0u; c < d; c++) {
      writeO(oBase + c, acc[c] / denominator);
    }
  }
}
`;
}
