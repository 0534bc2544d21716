// The training kernels recorded into a GpuPass (runtime.js): each function packs its kernel's Params,
// takes its pipeline from the runtime's cache (labelled, keyed by kernel and choices) and dispatches.
// Tensors are GpuTensor ({buffer, length, shape}); nothing is read back here.
import { adamwWgsl } from './adamw.wgsl.js';
import { gradNormPartialsWgsl, gradNormTotalWgsl } from './grad-norm.wgsl.js';

export const ELEMENTWISE_THREADS = 256;
export const REDUCE_THREADS = 256;

function params(words, floats = {}) {
  const array = new Uint32Array(Math.max(4, Math.ceil(words.length / 4) * 4));
  array.set(words);
  const view = new Float32Array(array.buffer);
  for (const [index, value] of Object.entries(floats)) view[index] = value;
  return array;
}

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
  const words = params([count, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], {
    4: 1 - lr * weightDecay, 5: beta1, 6: beta2, 7: 1 - beta1,
    8: 1 - beta2, 9: lr / (1 - beta1 ** step), 10: Math.sqrt(1 - beta2 ** step), 11: eps,
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
    run(pass, partialsSpec, 'grad norm partials', params([length, offset, partialOffset, 0]), [grads, partials], [groups, 1, 1]);
    partialOffset += groups;
  }
  const clipping = maxNorm !== undefined && maxNorm !== null;
  run(pass, { key: 'train grad norm total', source: () => gradNormTotalWgsl, constants: { WORKGROUP_SIZE: REDUCE_THREADS } },
    'grad norm total', params([segments.length, clipping ? 1 : 0, 0, 0], { 2: clipping ? maxNorm : 0 }),
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
