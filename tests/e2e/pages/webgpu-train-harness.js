// What tests/e2e/webgpu-train-kernels.spec.js drives: each training kernel (web/src/gpu/train) on SwiftShader
// against the JS trainer's own math (web/src/train), returning the largest excess over the tolerance
// |gpu − js| ≤ atol + rtol·|js| (≤ 0 passes) and the largest abs difference, for the failure message.
import { acquireDevice } from '/web/src/gpu/device.js';
import { GpuRuntime } from '/web/src/gpu/runtime.js';
import * as train from '/web/src/gpu/train/passes.js';
import { adamwStep, clipGradNorm, createAdamState } from '/web/src/train/adamw.js';
import * as ops from '/web/src/train/ops.js';
import { randomTensor } from './webgpu-harness.js';

let runtimePromise;
export async function runtime() {
  runtimePromise ??= acquireDevice().then(({ device }) => new GpuRuntime(device, { stagedGemm: false }));
  return runtimePromise;
}

/** Largest |a − e| − (atol + rtol·|e|) over the elements, and the largest |a − e|. NaN fails. */
export function compare(actual, expected, atol = 1e-5, rtol = 1e-5) {
  let excess = -Infinity;
  let maxAbs = 0;
  for (let i = 0; i < expected.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    const over = difference - (atol + rtol * Math.abs(expected[i]));
    if (!(over <= excess)) excess = Number.isNaN(over) ? Infinity : over;
    if (!(difference <= maxAbs)) maxAbs = Number.isNaN(difference) ? Infinity : difference;
  }
  if (actual.length < expected.length) excess = Infinity;
  return { excess, maxAbs };
}

function merge(...results) {
  return { excess: Math.max(...results.map((r) => r.excess)), maxAbs: Math.max(...results.map((r) => r.maxAbs)) };
}

/**
 * `steps` AdamW steps (with clip_grad_norm_ when maxNorm is given) on tensors of the given lengths, GPU vs
 * web/src/train/adamw.js; fresh random gradients each step. Compares parameters, moments and the norm.
 */
export async function checkAdamw({ lengths, steps = 3, maxNorm = null, lr = 1e-2, weightDecay = 0.1, eps = 1e-8, betas = [0.9, 0.999] }) {
  const gpu = await runtime();
  const names = lengths.map((_, i) => `p${i}`);
  const params = {};
  names.forEach((name, i) => { params[name] = { data: randomTensor(lengths[i], 10 + i), shape: [lengths[i]] }; });
  const state = createAdamState(params);
  const segments = [];
  let total = 0;
  for (const length of lengths) { segments.push({ offset: total, length }); total += length; }
  const flat = new Float32Array(total);
  names.forEach((name, i) => flat.set(params[name].data, segments[i].offset));
  const { table, partialCount } = train.gradNormSegmentTable(segments);
  // resident across steps: one long-lived pass per step would free them, so keep them in a runtime-level pass
  const resident = gpu.beginPass('adamw resident');
  const weights = resident.upload(flat, [total], 'weights');
  const expAvg = resident.allocate([total], 'exp_avg');
  const expAvgSq = resident.allocate([total], 'exp_avg_sq');
  const segmentTable = resident.upload(table, [table.length], 'segments');
  const partials = resident.allocate([Math.max(1, partialCount)], 'partials');
  const clip = resident.allocate([2], 'clip');
  let norms = { excess: -Infinity, maxAbs: 0 };
  let out;
  for (let s = 0; s < steps; s++) {
    const grads = {};
    const flatGrads = new Float32Array(total);
    names.forEach((name, i) => {
      grads[name] = randomTensor(lengths[i], 100 * s + i).map((x) => x * 3);
      flatGrads.set(grads[name], segments[i].offset);
    });
    const norm = clipGradNorm(grads, maxNorm);
    adamwStep(params, grads, state, { lr, betas, eps, weightDecay });
    const pass = gpu.beginPass('adamw step');
    const g = pass.upload(flatGrads, [total], 'grads');
    train.gradNorm(pass, { grads: g, segments, partials, segmentTable, clip, maxNorm });
    train.adamw(pass, { weights, grads: g, expAvg, expAvgSq, clip, step: s + 1, lr, betas, eps, weightDecay });
    out = await pass.finish(s === steps - 1 ? { clip, weights, expAvg, expAvgSq } : { clip });
    norms = merge(norms, compare(out.clip.data.subarray(0, 1), [norm]));
  }
  const expected = (field) => {
    const all = new Float32Array(total);
    names.forEach((name, i) => all.set(field(name), segments[i].offset));
    return all;
  };
  const result = merge(norms,
    compare(out.weights.data, expected((name) => params[name].data)),
    compare(out.expAvg.data, expected((name) => state.expAvg[name])),
    compare(out.expAvgSq.data, expected((name) => state.expAvgSq[name])));
  for (const buffer of resident.buffers) buffer.destroy();
  resident.device.popErrorScope();
  resident.device.popErrorScope();
  return result;
}

const toF64 = (a) => Float64Array.from(a);

/** Cross-entropy (loss, correct, dLogits) vs crossEntropy of web/src/train/ops.js; every third target −100. */
export async function checkCrossEntropy({ rows, vocab, ignoreEvery = 3, allIgnored = false }) {
  const gpu = await runtime();
  const logits = randomTensor(rows * vocab, 21).map((x) => x * 4);
  const targets = new Int32Array(rows);
  for (let n = 0; n < rows; n++) targets[n] = allIgnored || n % ignoreEvery === 1 ? -100 : (n * 7919) % vocab;
  const expected = ops.crossEntropy(toF64(logits), targets, rows, vocab, true);
  const pass = gpu.beginPass('check cross entropy');
  const rowLoss = pass.allocate([rows, 2], 'row loss');
  const dLogits = pass.allocate([rows, vocab], 'dLogits');
  const sums = pass.allocate([2], 'sums');
  train.crossEntropy(pass, { logits: pass.upload(logits, [rows, vocab], 'logits'), targets: pass.upload(targets, [rows], 'targets'),
    rowLoss, dLogits, rows, vocab, count: expected.count });
  train.columnSum(pass, { a: rowLoss, sums, rows, cols: 2 });
  const out = await pass.finish({ sums, dLogits });
  const loss = expected.count ? out.sums.data[0] / expected.count : 0;
  const result = merge(compare(out.dLogits.data, expected.dLogits), compare([loss], [expected.loss]));
  if (out.sums.data[1] !== expected.correct) result.excess = Infinity;
  return result;
}

/** LayerNorm forward (y, rstd), backward (dx accumulated onto a residual gradient) and γ/β gradients. */
export async function checkLayerNorm({ rows, d }) {
  const gpu = await runtime();
  const x = randomTensor(rows * d, 31).map((v, i) => v * 2 + (i % 5));
  const gamma = randomTensor(d, 32).map((v) => 1 + v / 2);
  const beta = randomTensor(d, 33);
  const dy = randomTensor(rows * d, 34);
  const residual = randomTensor(rows * d, 35);
  const saved = ops.layerNormForward(toF64(x), toF64(gamma), toF64(beta), rows, d);
  const gGamma = new Float64Array(d);
  const gBeta = new Float64Array(d);
  const dx = ops.layerNormBackward(saved, toF64(gamma), toF64(dy), rows, d, gGamma, gBeta);
  for (let i = 0; i < dx.length; i++) dx[i] += residual[i];
  // γ and β sit at offsets of a flat parameter buffer, after 3 other floats, as in the trainer's layout
  const flat = new Float32Array(3 + 2 * d);
  flat.set(gamma, 3);
  flat.set(beta, 3 + d);
  const pass = gpu.beginPass('check layer norm');
  const weights = pass.upload(flat, [flat.length], 'weights');
  const y = pass.allocate([rows, d], 'y');
  const xhat = pass.allocate([rows, d], 'xhat');
  const rstd = pass.allocate([rows], 'rstd');
  const gradient = pass.upload(residual, [rows, d], 'dx');
  const dyTensor = pass.upload(dy, [rows, d], 'dy');
  const grads = pass.allocate([flat.length], 'grads');
  train.layerNorm(pass, { x: pass.upload(x, [rows, d], 'x'), weights, y, xhat, rstd, rows, d, offsetGamma: 3, offsetBeta: 3 + d });
  train.layerNormBackward(pass, { dy: dyTensor, xhat, rstd, weights, dx: gradient, rows, d, offsetGamma: 3, accumulate: true });
  train.columnSum(pass, { a: dyTensor, b: xhat, sums: grads, rows, cols: d, offsetOut: 3 });
  train.columnSum(pass, { a: dyTensor, sums: grads, rows, cols: d, offsetOut: 3 + d });
  const out = await pass.finish({ y, rstd, gradient, grads });
  return merge(compare(out.y.data, saved.y), compare(out.rstd.data, saved.rstd), compare(out.gradient.data, dx),
    compare(out.grads.data.subarray(3, 3 + d), gGamma), compare(out.grads.data.subarray(3 + d), gBeta));
}

/**
 * The embeddings' gradients: the token embedding's scatter-add (embeddingGrad) and the positional one
 * (a column sum over the batch), vs the loop at the end of runModel (web/src/train/model.js).
 */
export async function checkEmbeddingGrad({ B, T, vocab, d }) {
  const gpu = await runtime();
  const N = B * T;
  const tokens = Array.from({ length: N }, (_, n) => (n * n * 31 + 7) % Math.max(1, vocab - 1)); // id vocab−1 never occurs
  const dh = randomTensor(N * d, 41);
  const gTok = new Float64Array(vocab * d);
  const gPos = new Float64Array(T * d);
  for (let n = 0; n < N; n++) {
    for (let i = 0; i < d; i++) { gTok[tokens[n] * d + i] += dh[n * d + i]; gPos[(n % T) * d + i] += dh[n * d + i]; }
  }
  const pass = gpu.beginPass('check embedding grad');
  const grads = pass.upload(new Float32Array(vocab * d + T * d).fill(NaN), [vocab * d + T * d], 'grads');
  const dhTensor = pass.upload(dh, [N, d], 'dh');
  train.embeddingGrad(pass, { dh: dhTensor, positions: pass.upload(train.tokenPositions(tokens, vocab), [vocab + 1 + N], 'positions'), grads, vocab, d });
  train.columnSum(pass, { a: dhTensor, sums: grads, rows: B, cols: T * d, offsetOut: vocab * d });
  const out = await pass.finish({ grads });
  return merge(compare(out.grads.data.subarray(0, vocab * d), gTok), compare(out.grads.data.subarray(vocab * d), gPos));
}

/** A linear layer's bias gradient Σ_n dy[n, :] (column sum) vs linearBackward's gb. */
export async function checkBiasGrad({ rows, cols }) {
  const gpu = await runtime();
  const dy = randomTensor(rows * cols, 51);
  const gW = new Float64Array(cols);
  const gb = new Float64Array(cols);
  ops.linearBackward(new Float64Array(rows), new Float64Array(cols), toF64(dy), rows, 1, cols, gW, gb, false);
  const pass = gpu.beginPass('check bias grad');
  const sums = pass.allocate([cols], 'sums');
  train.columnSum(pass, { a: pass.upload(dy, [rows, cols], 'dy'), sums, rows, cols });
  const out = await pass.finish({ sums });
  return compare(out.sums.data, gb);
}

/**
 * Causal MHA forward with lse and its backward recomputed from lse, vs causalAttentionForward/Backward of
 * web/src/train/ops.js (which keep the weights P); lse against the loop log Σ_j exp(s_ij).
 */
export async function checkAttention({ B, T, H, headDim }) {
  const gpu = await runtime();
  const d = H * headDim;
  const [q, k, v, dO] = [61, 62, 63, 64].map((seed) => randomTensor(B * T * d, seed));
  const forward = ops.causalAttentionForward(toF64(q), toF64(k), toF64(v), B, T, d, H);
  const backward = ops.causalAttentionBackward(toF64(q), toF64(k), toF64(v), forward.weights, toF64(dO), B, T, d, H);
  const lse = new Float64Array(B * H * T);
  const scale = 1 / Math.sqrt(headDim);
  for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) {
    let sum = 0;
    for (let j = 0; j <= i; j++) {
      let dot = 0;
      for (let c = 0; c < headDim; c++) dot += q[(b * T + i) * d + h * headDim + c] * k[(b * T + j) * d + h * headDim + c];
      sum += Math.exp(dot * scale);
    }
    lse[(b * H + h) * T + i] = Math.log(sum);
  }
  const pass = gpu.beginPass('check attention');
  const shape = [B, T, d];
  const tensors = { q: pass.upload(q, shape, 'q'), k: pass.upload(k, shape, 'k'), v: pass.upload(v, shape, 'v'), dO: pass.upload(dO, shape, 'dO') };
  const o = pass.allocate(shape, 'o');
  const lseTensor = pass.allocate([B, H, T], 'lse');
  const [dq, dk, dv] = ['dq', 'dk', 'dv'].map((name) => pass.allocate(shape, name));
  train.attentionForward(pass, { ...tensors, o, lse: lseTensor, batch: B, heads: H, T, headDim });
  train.attentionBackward(pass, { ...tensors, o, lse: lseTensor, dq, dk, dv, D: pass.allocate([B, H, T], 'D'), batch: B, heads: H, T, headDim });
  const out = await pass.finish({ o, lse: lseTensor, dq, dk, dv });
  return merge(compare(out.o.data, forward.context), compare(out.lse.data, lse),
    compare(out.dq.data, backward.dq), compare(out.dk.data, backward.dk), compare(out.dv.data, backward.dv));
}

/** A linear layer forward and backward (dx, gW through the transpose and the GEMM, gb) vs ops.js. */
export async function checkLinear({ rows, dIn, dOut, staged = false }) {
  const gpu = await runtime();
  if (staged) gpu.stagedGemm = true;
  const x = randomTensor(rows * dIn, 71);
  const W = randomTensor(dOut * dIn, 72);
  const bias = randomTensor(dOut, 73);
  const dy = randomTensor(rows * dOut, 74);
  const y = ops.linearForward(toF64(x), toF64(W), toF64(bias), rows, dIn, dOut);
  const gW = new Float64Array(dOut * dIn);
  const gb = new Float64Array(dOut);
  const dx = ops.linearBackward(toF64(x), toF64(W), toF64(dy), rows, dIn, dOut, gW, gb);
  // W and b at offsets of a flat parameter buffer (after 5 floats), as the trainer lays them out
  const flat = new Float32Array(5 + dOut * dIn + dOut);
  flat.set(W, 5);
  flat.set(bias, 5 + dOut * dIn);
  const pass = gpu.beginPass('check linear');
  const weights = pass.upload(flat, [flat.length], 'weights');
  const xTensor = pass.upload(x, [rows, dIn], 'x');
  const yTensor = pass.allocate([rows, dOut], 'y');
  const dxTensor = pass.allocate([rows, dIn], 'dx');
  const grads = pass.allocate([flat.length], 'grads');
  const layout = { rows, dIn, dOut, offsetW: 5, offsetB: 5 + dOut * dIn };
  train.linearForward(pass, { x: xTensor, weights, y: yTensor, ...layout });
  train.linearBackward(pass, { x: xTensor, weights, dy: pass.upload(dy, [rows, dOut], 'dy'), dx: dxTensor, grads,
    dyT: pass.allocate([dOut, rows], 'dyT'), ...layout });
  const out = await pass.finish({ y: yTensor, dx: dxTensor, grads });
  gpu.stagedGemm = false;
  return merge(compare(out.y.data, y), compare(out.dx.data, dx),
    compare(out.grads.data.subarray(5, 5 + dOut * dIn), gW), compare(out.grads.data.subarray(5 + dOut * dIn), gb));
}
