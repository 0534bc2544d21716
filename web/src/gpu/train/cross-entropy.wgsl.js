// Cross-entropy of logits (N, V) against targets (N), targets −100 ignored (F.cross_entropy's
// ignore_index), forward and gradient in one kernel, as crossEntropy in web/src/train/ops.js:
//   per counted row n: loss_n = log Σ_c exp(x_c − max) + max − x_t;  correct_n = (argmax = t);
//   dLogits_n = (softmax(x_n) − onehot(t)) / count;   ignored rows: loss_n = 0, dLogits_n = 0.
// The mean loss is Σ_n loss_n / count, a column sum (column-sum.wgsl.js) with scale 1/count; count is the
// CPU's (the targets come from the CPU with the batch); rowLoss holds (N, 2): loss_n, correct_n. One
// workgroup per row; its invocations stride over the vocabulary and combine maxima and sums in workgroup
// memory.
import { LOWEST_F32, WORKGROUP_SUM, boundedReads, f32, passHead, perRow, u32, uniforms } from '../wgsl.js';

export const CROSS_ENTROPY_UNIFORMS = uniforms([...u32('rows', 'vocab'), ...f32('invCount'), ...u32('wantGradient')]);

export const crossEntropyWgsl = /* wgsl */ `
${passHead(CROSS_ENTROPY_UNIFORMS, 64, [['logits', 'read'], ['targets', 'read', 'i32'], ['rowLoss', 'read_write'], ['dLogits', 'read_write']])}
const IGNORE_INDEX: i32 = -100;
${LOWEST_F32}

var<workgroup> maxima: array<f32, WORKGROUP_SIZE>;
var<workgroup> argmaxima: array<u32, WORKGROUP_SIZE>;
${WORKGROUP_SUM}

${boundedReads(['readLogit', 'logits'])}
fn readTarget(row: u32) -> i32 {
  if (row < arrayLength(&targets)) { return targets[row]; }
  return IGNORE_INDEX;
}
fn writeGradient(index: u32, value: f32) {
  if (params.wantGradient != 0u && index < arrayLength(&dLogits)) { dLogits[index] = value; }
}
fn writeRow(row: u32, loss: f32, correct: f32) {
  if (2u * row + 1u < arrayLength(&rowLoss)) { rowLoss[2u * row] = loss; rowLoss[2u * row + 1u] = correct; }
}
${perRow(`
  let base = row * params.vocab;
  let t = readTarget(row);
  if (t == IGNORE_INDEX) {
    for (var c = local.x; c < params.vocab; c += WORKGROUP_SIZE) { writeGradient(base + c, 0.0); }
    if (local.x == 0u) { writeRow(row, 0.0, 0.0); }
    return;
  }
  // 1. max and argmax (the first index of the max, as the JS loop's strict >)
  var best = LOWEST_F32;
  var arg = 0u;
  for (var c = local.x; c < params.vocab; c += WORKGROUP_SIZE) {
    let x = readLogit(base + c);
    if (x > best) { best = x; arg = c; }
  }
  maxima[local.x] = best;
  argmaxima[local.x] = arg;
  workgroupBarrier();
  for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
    if (local.x < stride) {
      let other = maxima[local.x + stride];
      let otherArg = argmaxima[local.x + stride];
      if (other > maxima[local.x] || (other == maxima[local.x] && otherArg < argmaxima[local.x])) {
        maxima[local.x] = other;
        argmaxima[local.x] = otherArg;
      }
    }
    workgroupBarrier();
  }
  let rowMax = maxima[0];
  // 2. Σ exp(x − max)
  var sum = 0.0;
  for (var c = local.x; c < params.vocab; c += WORKGROUP_SIZE) { sum += exp(readLogit(base + c) - rowMax); }
  let total = rowSum(local.x, sum);
  let targetIndex = u32(t);
  // 3. loss, correct, gradient
  if (local.x == 0u) {
    writeRow(row, log(total) + rowMax - readLogit(base + targetIndex), select(0.0, 1.0, argmaxima[0] == targetIndex));
  }
  for (var c = local.x; c < params.vocab; c += WORKGROUP_SIZE) {
    let p = exp(readLogit(base + c) - rowMax) / total;
    writeGradient(base + c, (p - select(0.0, 1.0, c == targetIndex)) * params.invCount);
  }`)}
`;
