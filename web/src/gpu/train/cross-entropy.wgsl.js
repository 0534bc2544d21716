// Cross-entropy of logits (N, V) against targets (N), targets −100 ignored (F.cross_entropy's
// ignore_index), forward and gradient in one kernel, as crossEntropy in web/src/train/ops.js:
//   per counted row n: loss_n = log Σ_c exp(x_c − max) + max − x_t;  correct_n = (argmax = t);
//   dLogits_n = (softmax(x_n) − onehot(t)) / count;   ignored rows: loss_n = 0, dLogits_n = 0.
// The mean loss is Σ_n loss_n / count, a column sum (column-sum.wgsl.js) with scale 1/count; count is the
// CPU's (the targets come from the CPU with the batch). One workgroup per row; its invocations stride over
// the vocabulary and combine maxima and sums in workgroup memory.
import { boundedReads, f32, u32, uniforms } from '../wgsl.js';

export const CROSS_ENTROPY_UNIFORMS = uniforms([...u32('rows', 'vocab'), ...f32('invCount'), ...u32('wantGradient')]);

export const crossEntropyWgsl = /* wgsl */ `
${CROSS_ENTROPY_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;
const IGNORE_INDEX: i32 = -100;
const LOWEST_F32: f32 = bitcast<f32>(0xff7fffffu);

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> logits: array<f32>;
@group(0) @binding(2) var<storage, read> targets: array<i32>;
@group(0) @binding(3) var<storage, read_write> rowLoss: array<f32>;     // (N, 2): loss_n, correct_n
@group(0) @binding(4) var<storage, read_write> dLogits: array<f32>;

var<workgroup> maxima: array<f32, WORKGROUP_SIZE>;
var<workgroup> argmaxima: array<u32, WORKGROUP_SIZE>;
var<workgroup> sums: array<f32, WORKGROUP_SIZE>;

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

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>,
        @builtin(local_invocation_id) local: vec3<u32>) {
  let row = group.y * groups.x + group.x;
  if (row >= params.rows) { return; }
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
  sums[local.x] = sum;
  workgroupBarrier();
  for (var stride = WORKGROUP_SIZE / 2u; stride > 0u; stride /= 2u) {
    if (local.x < stride) { sums[local.x] += sums[local.x + stride]; }
    workgroupBarrier();
  }
  let total = sums[0];
  let targetIndex = u32(t);
  // 3. loss, correct, gradient
  if (local.x == 0u) {
    writeRow(row, log(total) + rowMax - readLogit(base + targetIndex), select(0.0, 1.0, argmaxima[0] == targetIndex));
  }
  for (var c = local.x; c < params.vocab; c += WORKGROUP_SIZE) {
    let p = exp(readLogit(base + c) - rowMax) / total;
    writeGradient(base + c, (p - select(0.0, 1.0, c == targetIndex)) * params.invCount);
  }
}
`;
