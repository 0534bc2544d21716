// The backward of every trainable attention function: <fn>Backward(…the forward's arguments…, gradOutput,
// options) → the gradients of the loss with respect to every input, named like the inputs (docs/api.md
// "Training"). gradOutput is dLoss/dOutput, shaped like the forward's `output`. The forward is recomputed
// (the same math as the forward's reference), so each function is pure and needs nothing saved.
//
// makeBackwards(math) builds the set over one array type; the exported functions are the float32
// reference, backwardsFloat64 is the float64 variant used only by the finite-difference test.
import { formatShape } from '../../tensor.js';
import {
  checkCrossAttention, checkFinite, checkMultiheadAttentionFused, checkMultiheadAttentionSplit,
  checkMultiheadAttentionStacked, checkSelfAttention, isPresent,
} from '../checks.js';
import { math32, math64 } from './math.js';
import { apiChecked } from '../../api-checked.js';

/** The forward's option defaults (docs/api.md "Options"), so these plain functions take partial options. */
export function attentionDefaults(options = {}) {
  return {
    layout: 'matrix', scale: true, temperature: 1, causal: false, mask: 'neg_inf', dropout: 0, seed: 0, ...options,
  };
}

function checkGradOutput(fn, gradOutput, shape) {
  if (apiChecked(fn)) return; // the API's check held gradOutput to this shape and its values finite
  const ok = gradOutput && ArrayBuffer.isView(gradOutput.data) && Array.isArray(gradOutput.shape) &&
    gradOutput.shape.length === shape.length && gradOutput.shape.every((dim, i) => dim === shape[i]) &&
    gradOutput.data.length === shape.reduce((a, b) => a * b, 1);
  if (!ok) {
    const got = gradOutput && Array.isArray(gradOutput.shape) ? `has shape ${formatShape(gradOutput.shape)}` : 'is not a tensor';
    throw new Error(`${fn}: gradOutput ${got}; expected ${formatShape(shape)}, the shape of the forward's output`);
  }
  // its values as every input's (the float64 variant's finite differences read shapes only)
  if (gradOutput.data instanceof Float32Array) checkFinite(fn, 'gradOutput', gradOutput);
}

const tensor = (data, shape) => ({ data, shape: [...shape] });
const optional = (value) => (isPresent(value) ? value : null);

/**
 * The sizes each function needs. The float32 reference called directly runs the forward's own checks (same
 * messages); on a call the API has checked, and in the float64 variant (fed Float64Array tensors by the
 * finite-difference test only), it reads the shapes.
 */
const CHECKS = {
  selfAttention: checkSelfAttention, split: checkMultiheadAttentionSplit, cross: checkCrossAttention,
  stacked: checkMultiheadAttentionStacked, fused: checkMultiheadAttentionFused,
};
function shapeSizes(kind, args, opts) {
  if (kind === 'cross') {
    const [xq, xc, w] = args;
    const dOut = w.query.shape[1];
    return { B: xq.shape[0], Tq: xq.shape[1], Tk: xc.shape[1], dQuery: xq.shape[2], dContext: xc.shape[2], dOut, H: opts.heads, dHead: dOut / opts.heads };
  }
  const [x, w] = args;
  const [B, T, dIn] = x.shape;
  if (kind === 'selfAttention') return { B, T, dIn, dOut: opts.layout === 'linear' ? w.query.shape[0] : w.query.shape[1] };
  if (kind === 'stacked') return { B, T, dIn, H: w.heads.length, dHead: w.heads[0].query.shape[1] };
  const dOut = kind === 'fused' ? w.inProjection.shape[1] / 3 : w.query.shape[1];
  return { B, T, dIn, dOut, H: opts.heads, dHead: dOut / opts.heads };
}

export function makeBackwards(math) {
  const { F } = math;
  const sizes = (kind, args, opts, fn) => {
    // the API checked this call (api-checked.js): its shapes are read, not checked again
    if (F !== Float32Array || (fn && apiChecked(fn))) return shapeSizes(kind, args, opts);
    try {
      return CHECKS[kind](...args, opts);
    } catch (error) {
      // The forward's check names the forward; the caller called the backward.
      if (fn) error.message = error.message.replace(/^\w+:/, `${fn}:`);
      throw error;
    }
  };
  const cast = (t) => (t ? { data: t.data instanceof F ? t.data : F.from(t.data), shape: t.shape } : null);

  /**
   * The shared part: projections (B, Tq | Tk, d_out) already split into heads → attention → merge →
   * output projection; then back. Returns the gradients of the projections' outputs (B, T, d_out, heads
   * merged) and of outWeight/outBias.
   */
  function headsBackward(projections, dims, weights, dOutput, options) {
    const { B, H, Tq, Tk, dHead } = dims;
    const dOut = H * dHead;
    const { query, key, value } = projections;
    const saved = math.attentionForward(query, key, value, dims, options);
    const grads = {};
    let dContext = dOutput;
    const outWeight = cast(optional(weights.outWeight));
    if (outWeight) {
      const context = math.mergeHeads(saved.context, B, H, Tq, dHead);
      const { dX, dW, dBias } = math.projectBackward(context, B * Tq, dOut, outWeight, dOutput);
      dContext = dX;
      grads.outWeight = tensor(dW, outWeight.shape);
      if (isPresent(weights.outBias)) grads.outBias = tensor(dBias, [dOut]);
    } else if (isPresent(weights.outBias)) {
      const dBias = new F(dOut);
      for (let r = 0; r < B * Tq; r++) for (let j = 0; j < dOut; j++) dBias[j] += dOutput[r * dOut + j];
      grads.outBias = tensor(dBias, [dOut]);
    }
    const dHeads = math.attentionBackward(query, key, value, saved, math.splitHeads(dContext, B, Tq, H, dHead), dims, options);
    return {
      grads,
      dQuery: math.mergeHeads(dHeads.dQuery, B, H, Tq, dHead),
      dKey: math.mergeHeads(dHeads.dKey, B, H, Tk, dHead),
      dValue: math.mergeHeads(dHeads.dValue, B, H, Tk, dHead),
    };
  }

  const addInto = (target, source) => { for (let i = 0; i < target.length; i++) target[i] += source[i]; return target; };

  /**
   * selfAttentionBackward(x, weights, gradOutput, options): x (B, T, d_in), weights {query, key, value,
   * …Bias?} in options.layout, gradOutput (B, T, d_out) → { x, query, key, value, queryBias?, keyBias?, valueBias? }.
   */
  function selfAttentionBackward(x, weights, gradOutput, options) {
    const fn = 'selfAttentionBackward';
    const opts = attentionDefaults(options);
    const { B, T, dIn, dOut } = sizes('selfAttention', [x, weights], opts, fn);
    checkGradOutput(fn, gradOutput, [B, T, dOut]);
    const X = cast(x).data;
    const projected = {};
    for (const name of ['query', 'key', 'value']) {
      projected[name] = math.project(X, B * T, dIn, cast(weights[name]), cast(optional(weights[`${name}Bias`])), opts.layout);
    }
    const dims = { B, H: 1, Tq: T, Tk: T, dHead: dOut };
    const saved = math.attentionForward(projected.query, projected.key, projected.value, dims, opts);
    const d = math.attentionBackward(projected.query, projected.key, projected.value, saved, cast(gradOutput).data, dims, opts);
    const dX = new F(B * T * dIn);
    const result = { x: tensor(dX, x.shape) };
    for (const [name, dY] of [['query', d.dQuery], ['key', d.dKey], ['value', d.dValue]]) {
      const g = math.projectBackward(X, B * T, dIn, cast(weights[name]), dY, opts.layout);
      addInto(dX, g.dX);
      result[name] = tensor(g.dW, weights[name].shape);
      if (isPresent(weights[`${name}Bias`])) result[`${name}Bias`] = tensor(g.dBias, [dOut]);
    }
    return result;
  }

  /** The projection part shared by split and cross: returns grads for query/key/value weights and the inputs. */
  function projectionsBackward(inputs, weights, heads, dims, gradOutput, opts) {
    const { B, Tq, Tk, H, dHead } = dims;
    const rowsOf = { query: B * Tq, key: B * Tk, value: B * Tk };
    const inputOf = { query: inputs.query, key: inputs.context, value: inputs.context };
    const projected = {};
    for (const name of ['query', 'key', 'value']) {
      const { data, dIn } = inputOf[name];
      const T = name === 'query' ? Tq : Tk;
      projected[name] = math.splitHeads(math.project(data, rowsOf[name], dIn, cast(weights[name]),
        cast(optional(weights[`${name}Bias`]))), B, T, H, dHead);
    }
    const back = heads(projected);
    const result = { ...back.grads };
    const dInputs = { query: new F(inputs.query.data.length), context: new F(inputs.context.data.length) };
    for (const [name, dY] of [['query', back.dQuery], ['key', back.dKey], ['value', back.dValue]]) {
      const { data, dIn } = inputOf[name];
      const g = math.projectBackward(data, rowsOf[name], dIn, cast(weights[name]), dY);
      addInto(name === 'query' ? dInputs.query : dInputs.context, g.dX);
      result[name] = tensor(g.dW, weights[name].shape);
      if (isPresent(weights[`${name}Bias`])) result[`${name}Bias`] = tensor(g.dBias, [H * dHead]);
    }
    return { result, dInputs };
  }

  /**
   * multiheadAttentionSplitBackward(x, weights, gradOutput, options): weights {query, key, value (d_in, d_out),
   * …Bias?, outWeight?, outBias?}, gradOutput (B, T, d_out) → { x, query, key, value, …Bias?, outWeight?, outBias? }.
   */
  function multiheadAttentionSplitBackward(x, weights, gradOutput, options) {
    const opts = attentionDefaults({ heads: 1, ...options });
    const known = sizes('split', [x, weights], opts, 'multiheadAttentionSplitBackward');
    checkGradOutput('multiheadAttentionSplitBackward', gradOutput, [known.B, known.T, known.dOut]);
    return splitBackward(x, weights, gradOutput, opts, known);
  }

  /**
   * The split form's backward on sizes its caller has: the split, stacked and fused forms each check their own
   * arguments once, and the stacked and fused forms hand over weights they joined from checked ones.
   */
  function splitBackward(x, weights, gradOutput, opts, { B, T, dIn, H, dHead }) {
    const dims = { B, H, Tq: T, Tk: T, dHead };
    const X = { data: cast(x).data, dIn };
    const { result, dInputs } = projectionsBackward({ query: X, context: X }, weights,
      (p) => headsBackward(p, dims, weights, cast(gradOutput).data, opts), dims, gradOutput, opts);
    return { x: tensor(addInto(dInputs.query, dInputs.context), x.shape), ...result };
  }

  /**
   * crossAttentionBackward(xQuery, xContext, weights, gradOutput, options): gradOutput (B, Tq, d_out)
   * → { xQuery, xContext, query, key, value, …Bias?, outWeight?, outBias? }.
   */
  function crossAttentionBackward(xQuery, xContext, weights, gradOutput, options) {
    const opts = attentionDefaults({ heads: 1, ...options });
    const { B, Tq, Tk, dQuery, dContext, dOut, H, dHead } = sizes('cross', [xQuery, xContext, weights], opts, 'crossAttentionBackward');
    checkGradOutput('crossAttentionBackward', gradOutput, [B, Tq, dOut]);
    const dims = { B, H, Tq, Tk, dHead };
    const { result, dInputs } = projectionsBackward(
      { query: { data: cast(xQuery).data, dIn: dQuery }, context: { data: cast(xContext).data, dIn: dContext } }, weights,
      (p) => headsBackward(p, dims, weights, cast(gradOutput).data, opts), dims, gradOutput, opts);
    return { xQuery: tensor(dInputs.query, xQuery.shape), xContext: tensor(dInputs.context, xContext.shape), ...result };
  }

  /**
   * multiheadAttentionStackedBackward(x, weights, gradOutput, options): weights {heads: [{query, key, value
   * (d_in, d_head), …Bias?}], outWeight?, outBias?} → { x, heads: [{query, key, value, …Bias?}], outWeight?, outBias? }.
   * Head h's projections are columns h·d_head… of the split form, so the split gradients are cut back into heads.
   */
  function multiheadAttentionStackedBackward(x, weights, gradOutput, options) {
    const H = weights.heads.length;
    const opts = attentionDefaults({ heads: H, ...options });
    const { B, T, dIn, dHead } = sizes('stacked', [x, weights], opts, 'multiheadAttentionStackedBackward');
    const dOut = H * dHead;
    checkGradOutput('multiheadAttentionStackedBackward', gradOutput, [B, T, dOut]);
    // Concatenate the heads' (d_in, d_head) columns into the split form's (d_in, d_out).
    const joined = { outWeight: weights.outWeight, outBias: weights.outBias };
    for (const name of ['query', 'key', 'value']) {
      const w = new F(dIn * dOut);
      weights.heads.forEach((head, h) => {
        for (let i = 0; i < dIn; i++) for (let j = 0; j < dHead; j++) w[i * dOut + h * dHead + j] = head[name].data[i * dHead + j];
      });
      joined[name] = { data: w, shape: [dIn, dOut] };
      if (weights.heads.every((head) => isPresent(head[`${name}Bias`]))) {
        const bias = new F(dOut);
        weights.heads.forEach((head, h) => bias.set(cast(head[`${name}Bias`]).data, h * dHead));
        joined[`${name}Bias`] = { data: bias, shape: [dOut] };
      } else if (weights.heads.some((head) => isPresent(head[`${name}Bias`]))) {
        // Some heads without a bias: a zero bias has the same forward, and its gradient is dropped below.
        const bias = new F(dOut);
        weights.heads.forEach((head, h) => { if (isPresent(head[`${name}Bias`])) bias.set(cast(head[`${name}Bias`]).data, h * dHead); });
        joined[`${name}Bias`] = { data: bias, shape: [dOut] };
      }
    }
    const split = splitBackward(x, joined, gradOutput, { ...opts, heads: H }, { B, T, dIn, H, dHead });
    const heads = weights.heads.map((head, h) => {
      const g = {};
      for (const name of ['query', 'key', 'value']) {
        const w = new F(dIn * dHead);
        for (let i = 0; i < dIn; i++) for (let j = 0; j < dHead; j++) w[i * dHead + j] = split[name].data[i * dOut + h * dHead + j];
        g[name] = tensor(w, [dIn, dHead]);
        if (isPresent(head[`${name}Bias`])) g[`${name}Bias`] = tensor(split[`${name}Bias`].data.slice(h * dHead, (h + 1) * dHead), [dHead]);
      }
      return g;
    });
    const result = { x: split.x, heads };
    if (split.outWeight) result.outWeight = split.outWeight;
    if (split.outBias) result.outBias = split.outBias;
    return result;
  }

  /**
   * multiheadAttentionFusedBackward(x, weights, gradOutput, options): weights {inProjection (d_in, 3·d_out),
   * inBias?, outWeight?, outBias?} → { x, inProjection, inBias?, outWeight?, outBias? }.
   */
  function multiheadAttentionFusedBackward(x, weights, gradOutput, options) {
    const opts = attentionDefaults({ heads: 1, ...options });
    const known = sizes('fused', [x, weights], opts, 'multiheadAttentionFusedBackward');
    const { B, T, dIn, dOut } = known;
    checkGradOutput('multiheadAttentionFusedBackward', gradOutput, [B, T, dOut]);
    const columns = (t, rows, width, index) => {
      const out = new F(rows * dOut);
      for (let r = 0; r < rows; r++) for (let j = 0; j < dOut; j++) out[r * dOut + j] = t.data[r * width + index * dOut + j];
      return { data: out, shape: rows === 1 ? [dOut] : [rows, dOut] };
    };
    const split = { outWeight: weights.outWeight, outBias: weights.outBias };
    ['query', 'key', 'value'].forEach((name, index) => {
      split[name] = columns(weights.inProjection, dIn, 3 * dOut, index);
      if (isPresent(weights.inBias)) split[`${name}Bias`] = columns(weights.inBias, 1, 3 * dOut, index);
    });
    const g = splitBackward(x, split, gradOutput, opts, known);
    const inProjection = new F(dIn * 3 * dOut);
    const inBias = new F(3 * dOut);
    ['query', 'key', 'value'].forEach((name, index) => {
      for (let i = 0; i < dIn; i++) for (let j = 0; j < dOut; j++) inProjection[i * 3 * dOut + index * dOut + j] = g[name].data[i * dOut + j];
      if (isPresent(weights.inBias)) inBias.set(g[`${name}Bias`].data, index * dOut);
    });
    const result = { x: g.x, inProjection: tensor(inProjection, [dIn, 3 * dOut]) };
    if (isPresent(weights.inBias)) result.inBias = tensor(inBias, [3 * dOut]);
    if (g.outWeight) result.outWeight = g.outWeight;
    if (g.outBias) result.outBias = g.outBias;
    return result;
  }

  /**
   * scaledDotProductAttentionBackward(query, key, value, gradOutput, options): query (B, H, Tq, d_head),
   * key, value (B, H, Tk, d_head), gradOutput (B, H, Tq, d_head) → { query, key, value }.
   */
  function scaledDotProductAttentionBackward(query, key, value, gradOutput, options) {
    const fn = 'scaledDotProductAttentionBackward';
    const opts = attentionDefaults(options);
    for (const [name, t] of [['query', query], ['key', key], ['value', value]]) {
      if (!t || !Array.isArray(t.shape) || t.shape.length !== 4) {
        throw new Error(`${fn}: ${name} ${t && Array.isArray(t.shape) ? `has shape ${formatShape(t.shape)}` : 'is not a tensor'}; expected rank 4 (B, H, T, d_head)`);
      }
    }
    const [B, H, Tq, dHead] = query.shape;
    const Tk = key.shape[2];
    if (key.shape.join() !== [B, H, Tk, dHead].join()) throw new Error(`${fn}: key has shape ${formatShape(key.shape)}; expected [${B}, ${H}, Tk, ${dHead}]`);
    if (value.shape.join() !== key.shape.join()) throw new Error(`${fn}: value has shape ${formatShape(value.shape)}; expected ${formatShape(key.shape)}, the key's shape`);
    checkGradOutput(fn, gradOutput, [B, H, Tq, dHead]);
    const dims = { B, H, Tq, Tk, dHead };
    const [q, k, v] = [query, key, value].map((t) => cast(t).data);
    const saved = math.attentionForward(q, k, v, dims, opts);
    const d = math.attentionBackward(q, k, v, saved, cast(gradOutput).data, dims, opts);
    return { query: tensor(d.dQuery, query.shape), key: tensor(d.dKey, key.shape), value: tensor(d.dValue, value.shape) };
  }

  /** The forwards' outputs in this array type (for the finite-difference test). */
  const forward = {
    selfAttention(x, weights, options) {
      const opts = attentionDefaults(options);
      const { B, T, dIn, dOut } = sizes('selfAttention', [x, weights], opts);
      const p = ['query', 'key', 'value'].map((name) => math.project(cast(x).data, B * T, dIn, cast(weights[name]),
        cast(optional(weights[`${name}Bias`])), opts.layout));
      return math.attentionForward(...p, { B, H: 1, Tq: T, Tk: T, dHead: dOut }, opts).context;
    },
    multiheadAttentionSplit(x, weights, options) {
      const opts = attentionDefaults({ heads: 1, ...options });
      const { B, T, dIn, H, dHead } = sizes('split', [x, weights], opts);
      const p = ['query', 'key', 'value'].map((name) => math.splitHeads(math.project(cast(x).data, B * T, dIn,
        cast(weights[name]), cast(optional(weights[`${name}Bias`]))), B, T, H, dHead));
      return headsForward(p, { B, H, Tq: T, Tk: T, dHead }, weights, opts);
    },
    crossAttention(xQuery, xContext, weights, options) {
      const opts = attentionDefaults({ heads: 1, ...options });
      const { B, Tq, Tk, dQuery, dContext, H, dHead } = sizes('cross', [xQuery, xContext, weights], opts);
      const p = ['query', 'key', 'value'].map((name) => {
        const [input, rows, dIn, T] = name === 'query' ? [xQuery, B * Tq, dQuery, Tq] : [xContext, B * Tk, dContext, Tk];
        return math.splitHeads(math.project(cast(input).data, rows, dIn, cast(weights[name]), cast(optional(weights[`${name}Bias`]))), B, T, H, dHead);
      });
      return headsForward(p, { B, H, Tq, Tk, dHead }, weights, opts);
    },
  };
  function headsForward([q, k, v], dims, weights, opts) {
    const { B, H, Tq, dHead } = dims;
    let out = math.mergeHeads(math.attentionForward(q, k, v, dims, opts).context, B, H, Tq, dHead);
    if (isPresent(weights.outWeight)) out = math.project(out, B * Tq, H * dHead, cast(weights.outWeight), cast(optional(weights.outBias)));
    else if (isPresent(weights.outBias)) out = out.map((value, i) => value + weights.outBias.data[i % (H * dHead)]);
    return out;
  }

  return {
    selfAttentionBackward, multiheadAttentionSplitBackward, multiheadAttentionStackedBackward,
    multiheadAttentionFusedBackward, crossAttentionBackward, scaledDotProductAttentionBackward, forward,
  };
}

const float32 = makeBackwards(math32);
export const {
  selfAttentionBackward, multiheadAttentionSplitBackward, multiheadAttentionStackedBackward,
  multiheadAttentionFusedBackward, crossAttentionBackward, scaledDotProductAttentionBackward,
} = float32;

/** The same functions in float64, for the finite-difference test only. */
export const backwardsFloat64 = makeBackwards(math64);
