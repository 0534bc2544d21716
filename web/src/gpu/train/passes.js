// The training kernels recorded into a GpuPass (runtime.js): each function packs its kernel's uniforms (declared
// once beside its WGSL: ../wgsl.js), takes its pipeline from the runtime's cache (labelled, keyed by kernel and
// choices) and dispatches.
// Tensors are GpuTensor ({buffer, length, shape}); nothing is read back here.
import { ADAMW_UNIFORMS, adamwWgsl } from './adamw.wgsl.js';
import { GRAD_NORM_PARTIALS_UNIFORMS, GRAD_NORM_TOTAL_UNIFORMS, gradNormPartialsWgsl, gradNormTotalWgsl } from './grad-norm.wgsl.js';
import { CROSS_ENTROPY_UNIFORMS, crossEntropyWgsl } from './cross-entropy.wgsl.js';
import { COLUMN_SUM_UNIFORMS, columnSumWgsl } from './column-sum.wgsl.js';
import { LAYER_NORM_UNIFORMS, layerNormWgsl } from './layer-norm.wgsl.js';
import { LAYER_NORM_BACKWARD_UNIFORMS, layerNormBackwardWgsl } from './layer-norm-backward.wgsl.js';
import { EMBEDDING_GRAD_UNIFORMS, embeddingGradWgsl } from './embedding-grad.wgsl.js';
import { ATTENTION_UNIFORMS, attentionLseWgsl } from './attention-lse.wgsl.js';
import { attentionWeightsWgsl } from './attention-weights.wgsl.js';
import { attentionBackwardQueryWgsl, attentionBackwardKeyWgsl } from './attention-backward.wgsl.js';
import { TRANSPOSE_UNIFORMS, transposeWgsl } from './transpose.wgsl.js';
import { EMBEDDING_UNIFORMS, embeddingWgsl } from './embedding.wgsl.js';
import { ADD_UNIFORMS, addWgsl } from './add.wgsl.js';
import { HEAD_DIM_LIMIT } from '../runtime.js';

export const ELEMENTWISE_THREADS = 256;
export const REDUCE_THREADS = 256;
export const ROW_THREADS = 64;
export const LAYER_NORM_EPS = 1e-5; // torch.nn.LayerNorm's default

function run(pass, spec, name, words, tensors, groups) {
  const pipeline = pass.runtime.pipeline(spec);
  pass.dispatch(pipeline, name, [pass.uniform(words, name), ...tensors.map((t) => t.buffer)], groups);
}

/**
 * One AdamW step over flat buffers (see adamw.wgsl.js). `clip` holds [norm, coef] from gradNorm.
 * @param {import('../runtime.js').GpuPass} pass
 */
export function adamw(pass, { weights, grads, expAvg, expAvgSq, clip, step, lr, betas: [beta1, beta2], eps, weightDecay }) {
  const count = weights.length;
  const words = ADAMW_UNIFORMS.pack({
    count, decay: 1 - lr * weightDecay, beta1, beta2, oneMinusBeta1: 1 - beta1,
    oneMinusBeta2: 1 - beta2, stepSize: lr / (1 - beta1 ** step), correction2Sqrt: Math.sqrt(1 - beta2 ** step), eps,
  });
  run(pass, { key: 'train adamw', source: () => adamwWgsl, constants: { WORKGROUP_SIZE: ELEMENTWISE_THREADS } },
    'adamw', words, [grads, clip, weights, expAvg, expAvgSq], pass.spread(Math.ceil(count / ELEMENTWISE_THREADS)));
}

/**
 * clip = [‖g‖₂, coef] over the tensors at `segments` ({offset, length} in the flat `grads`), as
 * clip_grad_norm_; coef = min(1, maxNorm/(‖g‖ + 1e-6)), or 1 when maxNorm is null/undefined.
 * `partials` needs Σ_t ⌈length_t/256⌉ floats (partialCount(segments)).
 */
export function gradNorm(pass, { grads, segments, partials, segmentTable, clip, maxNorm }) {
  const partialsSpec = { key: 'train grad norm partials', source: () => gradNormPartialsWgsl, constants: { WORKGROUP_SIZE: REDUCE_THREADS } };
  let partialOffset = 0;
  for (const { offset, length } of segments) {
    const groups = Math.ceil(length / REDUCE_THREADS);
    run(pass, partialsSpec, 'grad norm partials', GRAD_NORM_PARTIALS_UNIFORMS.pack({ count: length, offset, partialOffset }), [grads, partials], pass.spread(groups));
    partialOffset += groups;
  }
  const clipping = maxNorm !== undefined && maxNorm !== null;
  run(pass, { key: 'train grad norm total', source: () => gradNormTotalWgsl, constants: { WORKGROUP_SIZE: REDUCE_THREADS } },
    'grad norm total', GRAD_NORM_TOTAL_UNIFORMS.pack({ tensors: segments.length, clipping: clipping ? 1 : 0, maxNorm: clipping ? maxNorm : 0 }),
    [partials, segmentTable, clip], [1, 1, 1]);
}

/** The u32 pairs (partial start, partial count) per tensor that gradNorm's second stage reads. */
export function gradNormSegmentTable(segments) {
  const table = new Uint32Array(Math.max(2, segments.length * 2));
  let start = 0;
  segments.forEach(({ length }, t) => {
    const groups = Math.ceil(length / REDUCE_THREADS);
    table.set([start, groups], 2 * t);
    start += groups;
  });
  return { table, partialCount: start };
}

/**
 * Cross-entropy forward and gradient: rowLoss (N, 2) gets [loss_n, correct_n] per row, dLogits (N, V)
 * (softmax − onehot)/count on counted rows and 0 on ignored ones (target −100). `count` is the number of
 * counted rows (the CPU's, from the targets it made).
 */
export function crossEntropy(pass, { logits, targets, rowLoss, dLogits, rows, vocab, count, wantGradient = true }) {
  run(pass, { key: 'train cross entropy', source: () => crossEntropyWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } },
    'cross entropy', CROSS_ENTROPY_UNIFORMS.pack({ rows, vocab, invCount: count > 0 ? 1 / count : 0, wantGradient: wantGradient ? 1 : 0 }),
    [logits, targets, rowLoss, dLogits ?? pass.scratch('dLogits')], pass.spread(rows));
}

/**
 * sums[offsetOut + c] = scale · Σ_r a[offsetA + r·rowStride + c] (· b[r·rowStride + c] when b is given),
 * c < cols: bias gradients, LayerNorm's γ/β gradients, the positional embedding's gradient, the loss.
 */
export function columnSum(pass, { a, b, sums, rows, cols, rowStride = cols, scale = 1, offsetA = 0, offsetOut = 0 }) {
  run(pass, { key: 'train column sum', source: () => columnSumWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } },
    'column sum', COLUMN_SUM_UNIFORMS.pack({ rows, cols, rowStride, product: b ? 1 : 0, scale, offsetA, offsetOut }),
    [a, b ?? a, sums], pass.spread(Math.ceil(cols / ROW_THREADS)));
}

/** LayerNorm forward: y, xhat (N, d), rstd (N); γ, β at offsetGamma, offsetBeta in `weights`. */
export function layerNorm(pass, { x, weights, y, xhat, rstd, rows, d, offsetGamma, offsetBeta, eps = LAYER_NORM_EPS }) {
  run(pass, { key: 'train layer norm', source: () => layerNormWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } },
    'layer norm', LAYER_NORM_UNIFORMS.pack({ rows, d, offsetGamma, offsetBeta, eps }),
    [x, weights, y, xhat, rstd], pass.spread(rows));
}

/** LayerNorm backward wrt x: dx = (accumulate ? dx : 0) + rstd·(dy·γ − mean(dy·γ) − x̂·mean(dy·γ·x̂)). */
export function layerNormBackward(pass, { dy, xhat, rstd, weights, dx, rows, d, offsetGamma, accumulate = false }) {
  run(pass, { key: 'train layer norm backward', source: () => layerNormBackwardWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } },
    'layer norm backward', LAYER_NORM_BACKWARD_UNIFORMS.pack({ rows, d, offsetGamma, accumulate: accumulate ? 1 : 0 }), [dy, xhat, rstd, weights, dx], pass.spread(rows));
}

/**
 * The positions of each token id, grouped on the CPU (a counting sort): V + 1 start offsets, then the
 * positions n in increasing order per id. What embeddingGrad reads.
 */
export function tokenPositions(tokens, vocab) {
  const out = new Uint32Array(vocab + 1 + tokens.length);
  for (const id of tokens) out[id + 1]++;
  for (let v = 0; v < vocab; v++) out[v + 1] += out[v];
  const next = out.slice(0, vocab);
  tokens.forEach((id, n) => { out[vocab + 1 + next[id]++] = n; });
  return out;
}

/** grads[offsetOut + v·d + c] (+)= Σ_{n: token n = v} dh[n, c], from tokenPositions' table. */
export function embeddingGrad(pass, { dh, positions, grads, vocab, d, offsetOut = 0, accumulate = false }) {
  run(pass, { key: 'train embedding grad', source: () => embeddingGradWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } },
    'embedding grad', EMBEDDING_GRAD_UNIFORMS.pack({ vocab, d, offsetOut, accumulate: accumulate ? 1 : 0 }), [dh, positions, grads],
    pass.spread(Math.ceil((vocab * d) / ROW_THREADS)));
}

const QUERY_THREADS = 64;

function attentionParams(pass, name, { batch, heads, T, headDim, causal = true }) {
  if (headDim > HEAD_DIM_LIMIT) throw new Error(`webgpu: ${name}: d_head=${headDim} exceeds the kernel's ${HEAD_DIM_LIMIT}`);
  if (batch * heads > pass.runtime.maxGroups) {
    throw new Error(`webgpu: ${name}: B·H=${batch * heads} exceeds the device's ${pass.runtime.maxGroups} workgroups per dimension`);
  }
  const headDimMax = Math.max(16, 2 ** Math.ceil(Math.log2(headDim)));
  const words = ATTENTION_UNIFORMS.pack({ T, headDim, heads, rowStride: heads * headDim, scale: 1 / Math.sqrt(headDim), causal: causal ? 1 : 0 });
  return { headDimMax, words, groups: [Math.ceil(T / QUERY_THREADS), batch * heads, 1] };
}

/** Causal MHA forward on q, k, v (B, T, H·d_head) → o (B, T, H·d_head), lse (B, H, T). */
export function attentionForward(pass, { q, k, v, o, lse, ...shape }) {
  const { headDimMax, words, groups } = attentionParams(pass, 'attention forward', shape);
  run(pass, { key: `train attention lse headDimMax=${headDimMax}`, source: () => attentionLseWgsl(headDimMax),
    constants: { WORKGROUP_SIZE: QUERY_THREADS } }, 'attention forward', words, [q, k, v, o, lse], groups);
}

const WEIGHT_TILE = 16;

/** The forward's weights p (B, H, T, T), recomputed from q, k and the saved lse (0 above the diagonal). */
export function attentionWeights(pass, { q, k, lse, p, ...shape }) {
  const { words } = attentionParams(pass, 'attention weights', shape);
  const { T, batch, heads } = shape;
  run(pass, { key: 'train attention weights', source: () => attentionWeightsWgsl, constants: { TILE: WEIGHT_TILE } }, 'attention weights', words,
    [q, k, lse, p], [Math.ceil(T / WEIGHT_TILE), Math.ceil(T / WEIGHT_TILE), batch * heads]);
}

/** Its backward from the saved o and lse: dq, dk, dv (B, T, H·d_head); D (B, H, T) is scratch. */
export function attentionBackward(pass, { q, k, v, o, lse, dO, dq, dk, dv, D, ...shape }) {
  const { headDimMax, words, groups } = attentionParams(pass, 'attention backward', shape);
  run(pass, { key: `train attention backward dq headDimMax=${headDimMax}`, source: () => attentionBackwardQueryWgsl(headDimMax),
    constants: { WORKGROUP_SIZE: QUERY_THREADS } }, 'attention backward dq', words, [q, k, v, dO, lse, o, dq, D], groups);
  run(pass, { key: `train attention backward dk dv headDimMax=${headDimMax}`, source: () => attentionBackwardKeyWgsl(headDimMax),
    constants: { WORKGROUP_SIZE: QUERY_THREADS } }, 'attention backward dk dv', words, [q, k, v, dO, lse, D, dk, dv], groups);
}

/** out (cols, rows) = input (rows, cols)ᵀ, the input starting at offsetIn. */
export function transpose(pass, { input, output, rows, cols, offsetIn = 0 }) {
  run(pass, { key: 'train transpose', source: () => transposeWgsl }, 'transpose', TRANSPOSE_UNIFORMS.pack({ rows, cols, offsetIn }),
    [input, output], [Math.ceil(cols / 16), Math.ceil(rows / 16), 1]);
}

/**
 * A linear layer y = x·Wᵀ + b (W (out, in) at offsetW of `weights`, b at offsetB) on the runtime's GEMM
 * (transposed B).
 */
export function linearForward(pass, { x, weights, y, rows, dIn, dOut, offsetW, offsetB }) {
  pass.gemm({ a: x, b: weights, c: y, bias: weights, M: rows, N: dOut, K: dIn, transposeB: true, name: 'linear forward',
    aLayout: { rowStride: dIn }, bLayout: { offset: offsetW, rowStride: dIn }, cLayout: { rowStride: dOut },
    biasLayout: { offset: offsetB, rowStride: 0 } });
}

/**
 * Its backward: dx = dy·W (when dx is given), gW = dyᵀ·x (the transpose kernel, then the GEMM) written at
 * offsetW of `grads`, gb = Σ_n dy at offsetB (none when offsetB is null: a bias whose gradient is known to be
 * 0 keeps the cleared buffer's exact 0). dyT is scratch of dOut·rows floats.
 */
export function linearBackward(pass, { x, weights, dy, dx, grads, dyT, rows, dIn, dOut, offsetW, offsetB }) {
  if (dx) {
    pass.gemm({ a: dy, b: weights, c: dx, M: rows, N: dIn, K: dOut, name: 'linear backward dx',
      aLayout: { rowStride: dOut }, bLayout: { offset: offsetW, rowStride: dIn }, cLayout: { rowStride: dIn } });
  }
  transpose(pass, { input: dy, output: dyT, rows, cols: dOut });
  weightGradient(pass, { dyT, x, grads, rows, dIn, dOut, offsetW });
  if (offsetB !== null) columnSum(pass, { a: dy, sums: grads, rows, cols: dOut, offsetOut: offsetB });
}

/** The rows of the sum dW = dyᵀ·x that one GEMM of the split takes. */
export const SPLIT_K_ROWS = 64;

/**
 * gW (dOut, dIn) = dyᵀ·x summed over the B·T rows. Its output is small and its K (the rows) long, so one
 * GEMM would run a handful of workgroups each walking all rows; split-K instead: the rows in chunks of
 * SPLIT_K_ROWS, one batched GEMM writing a partial dW per chunk (plus one for the remainder), then a column
 * sum of the partials into grads at offsetW.
 */
function weightGradient(pass, { dyT, x, grads, rows, dIn, dOut, offsetW }) {
  if (rows <= SPLIT_K_ROWS) {
    pass.gemm({ a: dyT, b: x, c: grads, M: dOut, N: dIn, K: rows, name: 'linear backward dW',
      aLayout: { rowStride: rows }, bLayout: { rowStride: dIn }, cLayout: { offset: offsetW, rowStride: dIn } });
    return;
  }
  const chunks = Math.floor(rows / SPLIT_K_ROWS);
  const remainder = rows - chunks * SPLIT_K_ROWS;
  const size = dOut * dIn;
  const partials = pass.allocate([chunks + (remainder ? 1 : 0), dOut, dIn], 'dW partials');
  pass.gemm({ a: dyT, b: x, c: partials, M: dOut, N: dIn, K: SPLIT_K_ROWS, batchOuter: chunks, name: 'linear backward dW chunks',
    aLayout: { rowStride: rows, outerStride: SPLIT_K_ROWS }, bLayout: { rowStride: dIn, outerStride: SPLIT_K_ROWS * dIn },
    cLayout: { rowStride: dIn, outerStride: size } });
  if (remainder) {
    const start = chunks * SPLIT_K_ROWS;
    pass.gemm({ a: dyT, b: x, c: partials, M: dOut, N: dIn, K: remainder, name: 'linear backward dW remainder',
      aLayout: { offset: start, rowStride: rows }, bLayout: { offset: start * dIn, rowStride: dIn },
      cLayout: { offset: chunks * size, rowStride: dIn } });
  }
  columnSum(pass, { a: partials, sums: grads, rows: chunks + (remainder ? 1 : 0), cols: size, rowStride: size, offsetOut: offsetW });
}

/** h (N, d) = tok_emb[tokens] + pos_emb[n mod T], the tables at offsetTok and offsetPos of `weights`. */
export function embedding(pass, { tokens, weights, h, rows, d, T, offsetTok, offsetPos }) {
  run(pass, { key: 'train embedding', source: () => embeddingWgsl, constants: { WORKGROUP_SIZE: ELEMENTWISE_THREADS } },
    'embedding', EMBEDDING_UNIFORMS.pack({ rows, d, T, offsetTok, offsetPos }), [tokens, weights, h],
    pass.spread(Math.ceil((rows * d) / ELEMENTWISE_THREADS)));
}

/** out = a + b, elementwise over out.length. */
export function add(pass, { a, b, out }) {
  run(pass, { key: 'train add', source: () => addWgsl, constants: { WORKGROUP_SIZE: ELEMENTWISE_THREADS } },
    'add', ADD_UNIFORMS.pack({ count: out.length }), [a, b, out], pass.spread(Math.ceil(out.length / ELEMENTWISE_THREADS)));
}
