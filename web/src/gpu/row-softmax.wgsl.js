// Row softmax with scale and optional causal mask: the attention-weights stage for every row of the scores.
//
//   scores: (rows, cols) where row r is query i = r mod rowsPerMatrix of its (batch, head) matrix
//   scaled = scale · scores
//   masked (causal only), by params.maskMode (docs/api.md, option `mask`):
//     0 'neg_inf':     scaled with −∞ where j > i;            weights = normalize(masked)
//     1 'renormalize': normalize(scaled) with 0 where j > i;  weights = masked / row sum
//     2 'zero':        scaled with 0 where j > i (the classic mistake); weights = normalize(masked)
//   normalize, by params.normalization: 0 stable exp(s − max)/Σ, 1 naive exp(s)/Σ exp(s), 2 sum s/Σ s.
//
// An −∞ score (masked, or given to `softmax`) takes no part and gets weight 0; a row with no finite score
// gets weights 0, not NaN. WGSL may assume finite floats, so −∞ is never computed with: it is recognised
// by its bits on the way in and written as bits on the way out (the scaled/masked outputs are u32 views).
//
// One workgroup per row; its invocations stride over the columns and combine partial maxima and sums in
// workgroup memory.
import { LOWEST_F32, WORKGROUP_SUM_AND_MAX, boundedReads, f32, passHead, u32, uniforms } from './wgsl.js';

export const ROW_SOFTMAX_UNIFORMS = uniforms([...u32('rows', 'cols', 'rowsPerMatrix', 'causal', 'maskMode', 'normalization'), ...f32('scale'),
  ...u32('writeScaled', 'writeMasked', 'rowOffset')]);

export const rowSoftmaxWgsl = /* wgsl */ `
${passHead(ROW_SOFTMAX_UNIFORMS, 64, [['scores', 'read'], ['scaledOut', 'read_write', 'u32'], ['maskedOut', 'read_write', 'u32'], ['weightsOut', 'read_write']])}
const NEG_INF_BITS: u32 = 0xff800000u;
${LOWEST_F32}
${WORKGROUP_SUM_AND_MAX}

${boundedReads(['readScore', 'scores'])}
fn writeBits(index: u32, bits: u32, toMasked: bool) {
  if (toMasked) {
    if (index < arrayLength(&maskedOut)) { maskedOut[index] = bits; }
  } else if (index < arrayLength(&scaledOut)) { scaledOut[index] = bits; }
}
fn writeWeight(index: u32, value: f32) {
  if (index < arrayLength(&weightsOut)) { weightsOut[index] = value; }
}

// A score that may be absent (−∞).
struct Entry { value: f32, present: bool }

fn scaledEntry(index: u32) -> Entry {
  let x = readScore(index);
  if (bitcast<u32>(x) == NEG_INF_BITS) { return Entry(0.0, false); }
  return Entry(params.scale * x, true);
}

// The entry that is normalised: the masked score for 'neg_inf' and 'zero', the scaled score otherwise.
fn normalizedInput(rowBase: u32, query: u32, j: u32) -> Entry {
  let e = scaledEntry(rowBase + j);
  if (params.causal != 0u && j > query) {
    if (params.maskMode == 0u) { return Entry(0.0, false); }
    if (params.maskMode == 2u) { return Entry(0.0, true); }
  }
  return e;
}

// The numerator of normalize(·) for one entry; 'stable' subtracts the row maximum.
fn numerator(e: Entry, maximum: f32) -> f32 {
  if (!e.present) { return 0.0; }
  if (params.normalization == 0u) { return exp(e.value - maximum); }
  if (params.normalization == 1u) { return exp(e.value); }
  return e.value;
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  // Uniform control flow: every invocation of a workgroup has the same row, so all reach the barriers.
  let row = params.rowOffset + group.y * groups.x + group.x;
  if (row >= params.rows) { return; }
  let thread = local.x;
  let rowBase = row * params.cols;
  let query = row % params.rowsPerMatrix;

  // 1. Row maximum and count of the entries that take part (for 'stable' and fully masked rows).
  var localMax = LOWEST_F32;
  var localCount = 0.0;
  for (var j = thread; j < params.cols; j += WORKGROUP_SIZE) {
    let e = normalizedInput(rowBase, query, j);
    if (e.present) { localMax = max(localMax, e.value); localCount += 1.0; }
  }
  let maximum = rowMax(thread, localMax);
  let present = rowSum(thread, localCount);

  // 2. Denominator of normalize(·).
  var localSum = 0.0;
  for (var j = thread; j < params.cols; j += WORKGROUP_SIZE) {
    localSum += numerator(normalizedInput(rowBase, query, j), maximum);
  }
  let denominator = rowSum(thread, localSum);

  // 3. For 'renormalize': the sum of the probabilities that survive the mask.
  let renormalize = params.causal != 0u && params.maskMode == 1u;
  var kept = 1.0;
  if (renormalize) {
    var localKept = 0.0;
    for (var j = thread; j <= min(query, params.cols - 1u); j += WORKGROUP_SIZE) {
      localKept += numerator(normalizedInput(rowBase, query, j), maximum) / denominator;
    }
    kept = rowSum(thread, localKept);
  }

  // 4. Write scaled, masked and weights.
  for (var j = thread; j < params.cols; j += WORKGROUP_SIZE) {
    let index = rowBase + j;
    let s = scaledEntry(index);
    if (params.writeScaled != 0u) { writeBits(index, select(NEG_INF_BITS, bitcast<u32>(s.value), s.present), false); }
    let e = normalizedInput(rowBase, query, j);
    var weight = 0.0;
    // No finite entry, or every exp underflowed: weights 0, not 0/0 (as the reference does).
    let degenerate = present == 0.0 || denominator == 0.0;
    if (!degenerate) { weight = numerator(e, maximum) / denominator; }
    let future = params.causal != 0u && j > query;
    if (renormalize) {
      if (future) { weight = 0.0; }
      if (params.writeMasked != 0u) { writeBits(index, bitcast<u32>(weight), true); }
      if (kept > 0.0) { weight = weight / kept; } else { weight = 0.0; }
    } else if (params.writeMasked != 0u) {
      writeBits(index, select(NEG_INF_BITS, bitcast<u32>(e.value), e.present), true);
    }
    writeWeight(index, weight);
  }
}
`;
