// The API's matrix steps as GPU passes. Each function takes arguments already validated (with the sizes the
// reference's checks returned), records every kernel of the forward pass into one pass, and reads back
// only the tensors the API returns. Shapes follow docs/api.md.
import { HEAD_DIM_LIMIT } from './runtime.js';

const MASK_MODES = { neg_inf: 0, renormalize: 1, zero: 2 };
const NORMALIZATIONS = { stable: 0, naive: 1, sum: 2 };

/** Lower-triangular rows 1, ½ ½, ⅓ ⅓ ⅓, …: a construction, not matrix work, so it is built here. */
function causalAverageWeights(T) {
  const weights = new Float32Array(T * T);
  for (let t = 0; t < T; t++) weights.fill(1 / (t + 1), t * T, t * T + t + 1);
  return weights;
}

/** output[b] = weights·x[b] with the (T, T) weights broadcast over B (outer stride 0). */
function applyCausalWeights(pass, weights, x, { B, T, C }) {
  const output = pass.allocate([B, T, C], 'output');
  pass.gemm({ a: weights, b: x, c: output, M: T, N: C, K: T, batchOuter: B, name: 'weights·x',
    aLayout: { rowStride: T, outerStride: 0 }, bLayout: { rowStride: C, outerStride: T * C },
    cLayout: { rowStride: C, outerStride: T * C } });
  return output;
}

/** Step 3: the averaging matrix times x. */
export async function causalAverageMatmul(runtime, x, sizes) {
  return runtime.run('causalAverageMatmul', async (pass) => {
    const { T } = sizes;
    const weights = causalAverageWeights(T);
    const output = applyCausalWeights(pass, pass.upload(weights, [T, T], 'weights'), pass.upload(x.data, x.shape, 'x'), sizes);
    const results = await pass.finish({ output });
    return { weights: { data: weights, shape: [T, T] }, output: results.output };
  });
}

/** Step 4: zero scores, −∞ above the diagonal, softmax on the GPU, then weights·x. */
export async function causalAverageSoftmax(runtime, x, sizes) {
  return runtime.run('causalAverageSoftmax', async (pass) => {
    const { T } = sizes;
    const scores = pass.allocate([T, T], 'scores'); // GPU buffers start zeroed: every token equally interesting
    const masked = pass.allocate([T, T], 'masked');
    const weights = pass.allocate([T, T], 'weights');
    pass.rowSoftmax({ scores, masked, weights, rows: T, cols: T, rowsPerMatrix: T, causal: true,
      maskMode: MASK_MODES.neg_inf, normalization: NORMALIZATIONS.stable, scale: 1 });
    const output = applyCausalWeights(pass, weights, pass.upload(x.data, x.shape, 'x'), sizes);
    const results = await pass.finish({ masked, weights, output });
    return { scores: { data: new Float32Array(T * T), shape: [T, T] }, ...results };
  });
}

/** Step 5: each last-axis row of scale·x normalised. */
export async function softmax(runtime, x, options, { rows, N }) {
  return runtime.run('softmax', async (pass) => {
    const output = pass.allocate([...x.shape], 'output');
    pass.rowSoftmax({ scores: pass.upload(x.data, x.shape, 'x'), weights: output, rows, cols: N, rowsPerMatrix: rows,
      causal: false, maskMode: MASK_MODES.neg_inf, normalization: NORMALIZATIONS[options.normalization], scale: options.scale });
    return pass.finish({ output });
  });
}

/** Step 5: scores = X·Xᵀ, weights = normalize(scores), output = weights·X. */
export async function attentionWithoutWeights(runtime, x, options, { B, T, C }) {
  return runtime.run('attentionWithoutWeights', async (pass) => {
    const input = pass.upload(x.data, x.shape, 'x');
    const scores = pass.allocate([B, T, T], 'scores');
    const weights = pass.allocate([B, T, T], 'weights');
    const output = pass.allocate([B, T, C], 'output');
    const sequence = { rowStride: C, outerStride: T * C };
    const square = { rowStride: T, outerStride: T * T };
    pass.gemm({ a: input, b: input, c: scores, M: T, N: T, K: C, batchOuter: B, transposeB: true, name: 'X·Xᵀ',
      aLayout: sequence, bLayout: sequence, cLayout: square });
    pass.rowSoftmax({ scores, weights, rows: B * T, cols: T, rowsPerMatrix: T, causal: false,
      maskMode: MASK_MODES.neg_inf, normalization: NORMALIZATIONS[options.normalization], scale: 1 });
    pass.gemm({ a: weights, b: input, c: output, M: T, N: C, K: T, batchOuter: B, name: 'weights·X',
      aLayout: square, bLayout: sequence, cLayout: sequence });
    return pass.finish({ scores, weights, output });
  });
}

/** The fast path: a (batch, M, K) times the shared b (K, N) or bᵀ. */
export async function matmul(runtime, a, b, options, { batch, M, K, N }) {
  return runtime.run('matmul', async (pass) => {
    const output = pass.allocate(a.shape.length === 3 ? [batch, M, N] : [M, N], 'output');
    pass.gemm({ a: pass.upload(a.data, a.shape, 'a'), b: pass.upload(b.data, b.shape, 'b'), c: output,
      M, N, K, batchOuter: batch, transposeB: options.transposeB, name: 'a·b',
      aLayout: { rowStride: K, outerStride: M * K }, bLayout: { rowStride: options.transposeB ? K : N, outerStride: 0 },
      cLayout: { rowStride: N, outerStride: M * N } });
    return pass.finish({ output });
  });
}

/**
 * Projects x (B, T, d_in) into H heads (B, H, T, d_head) in one batched GEMM: head h reads its d_head
 * columns of the weight in place. `weight` describes where: {tensor, columnOffset, rowStride,
 * headStride, transposed}; transposed means stored (d_out, d_in) and used as X·Wᵀ.
 */
function projectHeads(pass, x, weight, bias, { B, T, dIn, H, dHead }, name) {
  const out = pass.allocate([B, H, T, dHead], name);
  pass.gemm({
    a: x, b: weight.tensor, c: out, bias: bias?.tensor, M: T, N: dHead, K: dIn,
    batchOuter: B, batchInner: H, transposeB: weight.transposed, name: `project ${name}`,
    aLayout: { rowStride: dIn, outerStride: T * dIn, innerStride: 0 },
    bLayout: { offset: weight.columnOffset, rowStride: weight.rowStride, innerStride: weight.headStride },
    cLayout: { rowStride: dHead, outerStride: H * T * dHead, innerStride: T * dHead },
    biasLayout: bias && { offset: bias.offset, rowStride: 0, innerStride: dHead },
  });
  return out;
}

/** How projectHeads reads head h of a (d_in, d_out) weight used as X·W, starting at column `offset`. */
export const columnsOf = (tensor, width, offset, dHead) => ({ tensor, columnOffset: offset, rowStride: width, headStride: dHead, transposed: false });

/**
 * Attention for every (batch, head) from projections in (B, H, T, d_head), then the heads concatenated
 * into context (B, Tq, d_out) and the output projection. With intermediates false and d_head within the
 * fused kernel's reach, scores never exist: the fused kernel writes the context directly.
 * @returns {Promise<object>} the multi-head results of docs/api.md, in pass.finish's form
 */
export async function attendHeads(pass, { query, key, value }, { B, H, Tq, Tk, dHead }, weights, options) {
  const dOut = H * dHead;
  const factor = (options.scale ? 1 / Math.sqrt(dHead) : 1) / options.temperature;
  const headLayout = (T) => ({ rowStride: dHead, outerStride: H * T * dHead, innerStride: T * dHead });
  // (B, H, Tq, d_head) -> (B, Tq, H, d_head) = (B, Tq, d_out): each head writes its columns of context.
  const contextLayout = { rowStride: dOut, outerStride: Tq * dOut, innerStride: dHead };
  const context = pass.allocate([B, Tq, dOut], 'context');
  const fused = options.intermediates === false && dHead <= HEAD_DIM_LIMIT;
  const square = [B, H, Tq, Tk];
  const read = {};

  if (fused) {
    pass.fusedAttention({ q: query, k: key, v: value, o: context, batch: B, heads: H, Tq, Tk, headDim: dHead,
      scale: factor, causal: options.causal, maskMode: MASK_MODES[options.mask], dropout: options.dropout,
      seed: options.seed, qLayout: headLayout(Tq), kLayout: headLayout(Tk), vLayout: headLayout(Tk), oLayout: contextLayout });
  } else {
    // 1. scores = Q·Kᵀ  2–4. scale, mask, softmax  5. dropout  6. context = weights·V
    const squareLayout = { rowStride: Tk, outerStride: H * Tq * Tk, innerStride: Tq * Tk };
    read.scores = pass.allocate(square, 'scores');
    pass.gemm({ a: query, b: key, c: read.scores, M: Tq, N: Tk, K: dHead, batchOuter: B, batchInner: H,
      transposeB: true, name: 'Q·Kᵀ', aLayout: headLayout(Tq), bLayout: headLayout(Tk), cLayout: squareLayout });
    read.scaled = pass.allocate(square, 'scaled');
    if (options.causal) read.masked = pass.allocate(square, 'masked');
    read.weights = pass.allocate(square, 'weights');
    pass.rowSoftmax({ scores: read.scores, scaled: read.scaled, masked: read.masked, weights: read.weights,
      rows: B * H * Tq, cols: Tk, rowsPerMatrix: Tq, causal: options.causal, maskMode: MASK_MODES[options.mask],
      normalization: NORMALIZATIONS.stable, scale: factor });
    let attended = read.weights;
    if (options.dropout > 0) {
      read.dropped = pass.allocate(square, 'dropped');
      pass.dropout({ weights: read.weights, dropped: read.dropped, dropout: options.dropout, seed: options.seed });
      attended = read.dropped;
    }
    pass.gemm({ a: attended, b: value, c: context, M: Tq, N: dHead, K: Tk, batchOuter: B, batchInner: H,
      name: 'weights·V', aLayout: squareLayout, bLayout: headLayout(Tk), cLayout: contextLayout });
  }

  // 7. output = context·outWeight + outBias
  let output = context;
  if (weights.outWeight) {
    output = pass.allocate([B, Tq, dOut], 'output');
    pass.gemm({ a: context, b: pass.upload(weights.outWeight.data, weights.outWeight.shape, 'outWeight'), c: output,
      bias: weights.outBias ? pass.upload(weights.outBias.data, weights.outBias.shape, 'outBias') : undefined,
      M: B * Tq, N: dOut, K: dOut, name: 'output projection',
      aLayout: { rowStride: dOut }, bLayout: { rowStride: dOut }, cLayout: { rowStride: dOut }, biasLayout: { rowStride: 0 } });
  }
  if (options.intermediates === false) return pass.finish({ output });
  const results = await pass.finish({ query, key, value, ...read, context, ...(output === context ? {} : { output }) });
  // Without an output projection, output is context: a separate copy, so a caller may change one alone.
  if (output === context) results.output = { data: results.context.data.slice(), shape: [B, Tq, dOut] };
  return results;
}

/** Uploads an optional bias; absent (null/undefined) stays absent. */
const uploadBias = (pass, tensor, name) => (tensor ? { tensor: pass.upload(tensor.data, tensor.shape, name), offset: 0 } : null);

/** Steps 6–8: one head with d_k = d_out; layout 'linear' reads the weights as X·Wᵀ in place. */
export async function selfAttention(runtime, x, weights, options, { B, T, dIn, dOut }) {
  return runtime.run('selfAttention', async (pass) => {
    const input = pass.upload(x.data, x.shape, 'x');
    const linear = options.layout === 'linear';
    const sizes = { B, T, dIn, H: 1, dHead: dOut };
    const project = (name) => {
      const tensor = pass.upload(weights[name].data, weights[name].shape, name);
      const weight = linear
        ? { tensor, columnOffset: 0, rowStride: dIn, headStride: 0, transposed: true }
        : columnsOf(tensor, dOut, 0, dOut);
      return projectHeads(pass, input, weight, uploadBias(pass, weights[`${name}Bias`], `${name}Bias`), sizes, name);
    };
    const projections = { query: project('query'), key: project('key'), value: project('value') };
    const results = await attendHeads(pass, projections, { B, H: 1, Tq: T, Tk: T, dHead: dOut }, {}, options);
    // (B, H=1, T, d_out) is (B, T, d_out); one head's context is its output. selfAttention has no context.
    const squeeze = (tensor) => ({ data: tensor.data, shape: tensor.shape.length === 4 ? [B, ...tensor.shape.slice(2)] : tensor.shape });
    const named = {};
    for (const [name, tensor] of Object.entries(results)) if (name !== 'context') named[name] = squeeze(tensor);
    return named;
  });
}

/** 10a: each head's (d_in, d_head) weights are laid side by side as (H, d_in, d_head) and projected in one GEMM. */
export async function multiheadAttentionStacked(runtime, x, weights, options, { B, T, dIn, H, dHead }) {
  return runtime.run('multiheadAttentionStacked', async (pass) => {
    const input = pass.upload(x.data, x.shape, 'x');
    const project = (name) => {
      const stacked = new Float32Array(H * dIn * dHead);
      weights.heads.forEach((head, h) => stacked.set(head[name].data, h * dIn * dHead));
      const tensor = pass.upload(stacked, [H, dIn, dHead], name);
      let bias = null;
      if (weights.heads.some((head) => head[`${name}Bias`])) {
        // A head without a bias adds zeros.
        const biases = new Float32Array(H * dHead);
        weights.heads.forEach((head, h) => { if (head[`${name}Bias`]) biases.set(head[`${name}Bias`].data, h * dHead); });
        bias = { tensor: pass.upload(biases, [H, dHead], `${name}Bias`), offset: 0 };
      }
      const weight = { tensor, columnOffset: 0, rowStride: dHead, headStride: dIn * dHead, transposed: false };
      return projectHeads(pass, input, weight, bias, { B, T, dIn, H, dHead }, name);
    };
    const projections = { query: project('query'), key: project('key'), value: project('value') };
    return attendHeads(pass, projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
  });
}

/** 10b: one (d_in, d_out) weight per Q, K, V; head h reads columns h·d_head … in place. */
export async function multiheadAttentionSplit(runtime, x, weights, options, { B, T, dIn, dOut, H, dHead }) {
  return runtime.run('multiheadAttentionSplit', async (pass) => {
    const input = pass.upload(x.data, x.shape, 'x');
    const project = (name) => projectHeads(pass, input,
      columnsOf(pass.upload(weights[name].data, weights[name].shape, name), dOut, 0, dHead),
      uploadBias(pass, weights[`${name}Bias`], `${name}Bias`), { B, T, dIn, H, dHead }, name);
    const projections = { query: project('query'), key: project('key'), value: project('value') };
    return attendHeads(pass, projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
  });
}

/** 10c: one (d_in, 3·d_out) weight [Wq | Wk | Wv]; Q, K, V read their column blocks of it in place. */
export async function multiheadAttentionFused(runtime, x, weights, options, { B, T, dIn, dOut, H, dHead }) {
  return runtime.run('multiheadAttentionFused', async (pass) => {
    const input = pass.upload(x.data, x.shape, 'x');
    const inProjection = pass.upload(weights.inProjection.data, weights.inProjection.shape, 'inProjection');
    const inBias = weights.inBias ? pass.upload(weights.inBias.data, weights.inBias.shape, 'inBias') : null;
    const project = (block, name) => projectHeads(pass, input, columnsOf(inProjection, 3 * dOut, block * dOut, dHead),
      inBias && { tensor: inBias, offset: block * dOut }, { B, T, dIn, H, dHead }, name);
    const projections = { query: project(0, 'query'), key: project(1, 'key'), value: project(2, 'value') };
    return attendHeads(pass, projections, { B, H, Tq: T, Tk: T, dHead }, weights, options);
  });
}

/** Step 11: queries from xQuery (B, Tq, d_q), keys and values from xContext (B, Tk, d_kv). */
export async function crossAttention(runtime, xQuery, xContext, weights, options, { B, Tq, Tk, dQuery, dContext, dOut, H, dHead }) {
  return runtime.run('crossAttention', async (pass) => {
    const queries = pass.upload(xQuery.data, xQuery.shape, 'xQuery');
    const context = pass.upload(xContext.data, xContext.shape, 'xContext');
    const project = (input, T, dIn, name) => projectHeads(pass, input,
      columnsOf(pass.upload(weights[name].data, weights[name].shape, name), dOut, 0, dHead),
      uploadBias(pass, weights[`${name}Bias`], `${name}Bias`), { B, T, dIn, H, dHead }, name);
    const projections = {
      query: project(queries, Tq, dQuery, 'query'),
      key: project(context, Tk, dContext, 'key'),
      value: project(context, Tk, dContext, 'value'),
    };
    return attendHeads(pass, projections, { B, H, Tq, Tk, dHead }, weights, options);
  });
}
