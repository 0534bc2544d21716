// The op registry: every function of docs/api.md declared once, as plain data (no functions, nothing
// computed), so JS imports it and scripts/generate-registry-header.mjs turns it into C++ at build time.
// Everything that lists functions is a loop over REGISTRY: the embind registration (bindings.cpp, through
// the generated header), the WASM wrapper (backends/wasm.js), the API's argument normalisation and option
// checks (api.js, registry-checks.js), the JS reference's table (reference/index.js), the WebGPU and worker
// lists (backends/webgpu.js, backends/thread-plan.js), the page's capability checks (FUNCTION_NAMES,
// capabilities) and the fixture runners (tests/unit/steps.test.js, tests/cpp/fixtures_test.cpp).
//
// An entry:
//   name      the JS name; cpp: the C++ core's function and the binding's `<cpp>_js`
//   args      [{name, kind, axes, note?}] in call order. kind: 'sequence' (B, T, C) or unbatched (T, C);
//             'tokens' Int32 (B, L) or (L); 'tensor' a float32 tensor as given (of any rank, or of its axes'
//             when it names them: matmul's b (K, N)); 'weights' an object of
//             tensors with `keys` (those ending in Bias, and outWeight, optional) and `shapes`: each key's
//             named axes ('heads[].query': every head's). Axes are checked in call order: a name takes its
//             size where first seen and every later axis of that name must agree ("[d_in=3, d_out]"); `note`
//             is said after a disagreement's expectation ("(the batch size of xQuery)"), as a tensor option's
//   options   {name: option spec} or null (the function takes no options argument). A spec:
//             {type: 'boolean'|'choice'|'number'|'integer'|'mask'|'tensor', default, expected (the words of a message),
//              nullable (null is allowed: the default is computed, e.g. scale 1/√E); a 'mask' is null or
//              {data: Uint8Array (0/1) | Float32Array, shape} (dtype: 'uint8': Uint8Array only), its values and
//              shape checked by the function; a 'tensor' is null or {data: Float32Array, shape}; batchAxis: the
//              API adds B = 1 to it for unbatched input,
//              choices | min, max, minExclusive, maxExclusive, float32 (the core holds it as a float, so
//              the value must survive float32 rounding), defaultFrom: 'heads' (H given by weights.heads)
//              | 'planner' (planner.js decides), divides: the axis it must divide (heads | d_out); a 'tensor'
//              option's axes, its note in a shape message, and weights: the weights' shapes when it is given}
//   results   {name: {batched}}: the results a call may return; batched ones lose B for unbatched input
//   paths     the planner's paths that can run it: 'teaching', 'fused', 'workers', 'webgpu'
//   gpu       how the webgpu backend runs it: 'kernels' (WGSL passes) or 'reference' (the JS reference: no
//             matrix work, or matrix work no WGSL pass of the API takes; then `gpuReason` says which)
//   fixture   true when tests/fixtures/<name>.json holds PyTorch cases for it
//   memory    floats held at once, per path, as a sum of terms [coefficient, ...size names] over the
//             sizes its check returns (registry-checks.js estimateFloats; the C++ checks read the same terms)
// The planner's view of a call (planner.js reads these; an entry without them has no work for a crossover):
//   shapes    the tensors the crossovers and WebGPU's supportsOp read, as argument paths ('weights.heads[].query':
//             the first head's), [the first argument] when absent; each is read by its registry axes (reversed
//             where the argument's `transposedBy` option says so; a sequence given without B has B = 1), an
//             axis 'k·name' naming name = size / k; {path, axes} gives the axes of a tensor of any rank, '…name'
//             the product of its leading axes; a tensor without axes names `size`, its element count
//   sizes     the planner's names for them: {name: an axis name | 'options.<name>' | a number | {max: [a, b]} |
//             {product: [a, b]} | {quotient: [a, b]}}, in order (a later one may read an earlier one)
//   work      multiply-adds, terms as in `memory` (the GPU crossover compares them with n³)
//   gpuFootprint  {largest: the largest GPU buffer in floats, the largest of its terms; matrices: how many
//             matrices one dispatch batches, a sum of terms; headDim?: a size name}. `kept` is 0 when
//             options.intermediates is false, else 1
//   stages    the values of one (…, Tq, Tk) stage, which set the `intermediates` default (planner.js)
//   fused     the fused path's conditions, in the order a refusal names the first that fails:
//             [{option, is (null: absent), onlyIf?: {option: value} the rule applies to, otherwise: the reason,
//             '{name}' standing for the option's value}]
//   route     a path rule of its own (routes.js): 'sdpa'
//
// Adding a function: its math (C++ step, JS reference, optional GPU pass and fast kernel), one entry here,
// a fixture case; docs/api.md lists exactly which files.

const NORMALIZATION = { type: 'choice', choices: ['stable', 'naive', 'sum'], default: 'stable' };
const DROPOUT = { type: 'number', min: 0, max: 1, maxExclusive: true, float32: true, default: 0, expected: 'a number in [0, 1)' };
const SEED = { type: 'integer', min: 0, max: 2 ** 32, maxExclusive: true, default: 0, expected: 'an integer in [0, 2^32)' };
// Dropout's random numbers (docs/api.md "Dropout"): 'counter' on every path; 'torch' (torch.nn.Dropout's own mask
// after torch.manual_seed(seed)) on the teaching path only: the planner sends such a call there.
const DROPOUT_RNG = { type: 'choice', choices: ['counter', 'torch'], default: 'counter' };
const HEADS = { type: 'integer', min: 1, default: 1, divides: 'd_out', expected: 'an integer ≥ 1' };
const INTERMEDIATES = { type: 'boolean', defaultFrom: 'planner' };

const ATTENTION_OPTIONS = {
  scale: { type: 'boolean', default: true },
  temperature: { type: 'number', min: 0, minExclusive: true, float32: true, default: 1, expected: 'a finite number > 0' },
  causal: { type: 'boolean', default: false },
  mask: { type: 'choice', choices: ['neg_inf', 'renormalize', 'zero'], default: 'neg_inf' },
  dropout: DROPOUT,
  seed: SEED,
  dropoutRng: DROPOUT_RNG,
};

// The masks of the multi-head forwards and crossAttention (docs/api.md "Masks"; checked with the sizes of the call
// by reference/masks.js checkMasks). batchAxis: for unbatched input the API adds B = 1, as to the sequences.
const MASK_OPTIONS = {
  attnMask: { type: 'mask', default: null, expected: 'null, or {data: Uint8Array (0/1, 1 = may attend) or Float32Array, shape}' },
  keyPaddingMask: { type: 'mask', dtype: 'uint8', batchAxis: true, default: null, expected: 'null, or {data: Uint8Array (0/1, 1 = padding), shape (B, Tk)}' },
};
// crossAttention's values from their own input (seed 004's encodings_for_v), projected by weights.value (d_xv, d_out).
const X_VALUE = {
  type: 'tensor', batchAxis: true, default: null, expected: 'null, or a tensor {data: Float32Array, shape (B, Tk, d_xv)}',
  axes: ['B', 'Tk', 'd_xv'], note: 'the batch size and Tk of xContext', weights: { value: ['d_xv', 'd_out'] },
};

const PROJECTION_KEYS = ['query', 'key', 'value', 'queryBias', 'keyBias', 'valueBias'];
const OUT_KEYS = ['outWeight', 'outBias'];
// The weights' named axes: queries from d_q, keys and values from d_kv, all projected to d_out.
const projectionShapes = (dQuery, dContext, dOut, prefix = '') => ({
  [`${prefix}query`]: [dQuery, dOut], [`${prefix}key`]: [dContext, dOut], [`${prefix}value`]: [dContext, dOut],
  [`${prefix}queryBias`]: [dOut], [`${prefix}keyBias`]: [dOut], [`${prefix}valueBias`]: [dOut],
});
const OUT_SHAPES = { outWeight: ['d_out', 'd_out'], outBias: ['d_out'] };
const batched = (names) => Object.fromEntries(names.map((name) => [name, { batched: true }]));
const ATTENTION_RESULTS = batched(['query', 'key', 'value', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'output']);
const MULTIHEAD_RESULTS = batched(['query', 'key', 'value', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'context', 'output']);

// The teaching path's (B, H, Tq, Tk) stages: scores, scaled, weights, and masked / dropped when they apply.
const STAGES = ['stages', 'B', 'H', 'Tq', 'Tk'];
// Multi-head teaching path: x, the projections and their per-head copies, the stages, context and output.
const MULTIHEAD_MEMORY = {
  teaching: [[1, 'xFloats'], [2, 'B', 'Tq', 'dOut'], [4, 'B', 'Tk', 'dOut'], [1, ...STAGES], [3, 'B', 'Tq', 'dOut']],
  // Q, context and output (B, Tq, d_out); K and V (B, Tk, d_out); one head's packed keys and values; the packed GEMM's A and B panels.
  fused: [[3, 'B', 'Tq', 'dOut'], [2, 'B', 'Tk', 'dOut'], [2, 'Tk', 'dHead'], [256 * 2048 + 72 * 256]],
};
// The fused kernel's rule (planner.js fusedKernelApplies, whyNotFused): nothing but the output asked for, no
// dropout, the causal mask only as −∞ (the kernel skips masked keys), no attnMask or xValue (the teaching code
// applies them; keyPaddingMask the kernel skips itself).
export const FUSED_KERNEL_RULE = Object.freeze([
  { option: 'intermediates', is: false, otherwise: 'the intermediates are asked for: the teaching code' },
  { option: 'dropout', is: 0, otherwise: 'dropout > 0: the teaching code' },
  { option: 'attnMask', is: null, otherwise: 'options.attnMask: the teaching code (the fused kernel takes no attention mask)' },
  { option: 'xValue', is: null, otherwise: 'options.xValue: the teaching code (the fused kernel projects the values from xContext)' },
  { option: 'mask', is: 'neg_inf', onlyIf: { causal: true }, otherwise: "mask '{mask}': the teaching code" },
]);
// An attention call's planner sizes: B, Tq, Tk, d_in (the wider input), d_out, H, d_head, and the pool's query and
// context widths. Its work: the Q, K, V projections, Q·Kᵀ and weights·V, and the multi-head forms' output projection.
const attentionSizes = (rest) => ({ B: 'B', Tq: 'T', Tk: 'T', dIn: 'd_in', dQuery: 'd_in', dContext: 'd_in', ...rest, dHead: { quotient: ['dOut', 'H'] } });
const ATTENTION_WORK = [[1, 'B', 'Tq', 'dIn', 'dOut'], [2, 'B', 'Tk', 'dIn', 'dOut'], [2, 'B', 'Tq', 'Tk', 'dOut']];
const OUT_PROJECTION_WORK = [[1, 'B', 'Tq', 'dOut', 'dOut']];
// (B, H, Tq, Tk) intermediates unless the fused kernel runs; B·max(Tq, Tk)·max(d_out, d_in) projections; the fused
// (d_in, 3·d_out) weight.
const ATTENTION_FOOTPRINT = {
  largest: [[1, 'kept', 'B', 'H', 'Tq', 'Tk'], [1, 'B', 'Tq', 'dOut'], [1, 'B', 'Tk', 'dOut'], [1, 'B', 'Tq', 'dIn'], [1, 'B', 'Tk', 'dIn'], [3, 'dIn', 'dOut']],
  matrices: [[1, 'B', 'H']], headDim: 'dHead',
};
const ATTENTION_STAGES = [[1, 'B', 'H', 'Tq', 'Tk']];
// Each trainable forward's planner shapes and sizes, shared with its backward.
const FORWARD_SIZING = {
  selfAttention: { shapes: ['x', 'weights.query'], sizes: attentionSizes({ dOut: 'd_out', H: 1 }) },
  multiheadAttentionStacked: { shapes: ['x', 'weights.heads[].query'], sizes: attentionSizes({ H: 'options.heads', dOut: { product: ['d_head', 'H'] } }) },
  multiheadAttentionSplit: { shapes: ['x', 'weights.query'], sizes: attentionSizes({ dOut: 'd_out', H: 'options.heads' }) },
  multiheadAttentionFused: { shapes: ['x', 'weights.inProjection'], sizes: attentionSizes({ dOut: 'd_out', H: 'options.heads' }) },
  crossAttention: {
    shapes: ['xQuery', 'xContext', 'weights.query'],
    sizes: attentionSizes({ Tq: 'Tq', Tk: 'Tk', dIn: { max: ['d_q', 'd_kv'] }, dQuery: 'd_q', dContext: 'd_kv', dOut: 'd_out', H: 'options.heads' }),
  },
};
const MULTIHEAD = {
  paths: ['teaching', 'fused', 'workers', 'webgpu'], gpu: 'kernels', fixture: true, fused: FUSED_KERNEL_RULE,
  work: [...ATTENTION_WORK, ...OUT_PROJECTION_WORK], gpuFootprint: ATTENTION_FOOTPRINT, stages: ATTENTION_STAGES,
};
/** MULTIHEAD_MEMORY with a form's own extra terms on each path. */
const multiheadMemory = ({ teaching = [], fused = [] }) => ({
  teaching: [...MULTIHEAD_MEMORY.teaching, ...teaching], fused: [...MULTIHEAD_MEMORY.fused, ...fused],
});

// The trainable forwards' arguments and options, shared by each forward's entry and its backward's (plain
// data still: the backward's are the forward's arguments with gradOutput after them, and the same options).
const FORWARD_ARGS = {
  selfAttention: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'd_in'] },
    { name: 'weights', kind: 'weights', keys: PROJECTION_KEYS, shapes: projectionShapes('d_in', 'd_in', 'd_out'), transposedBy: { layout: 'linear' } }],
  multiheadAttentionStacked: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'd_in'] },
    { name: 'weights', kind: 'weights', keys: ['heads', ...OUT_KEYS], shapes: { ...projectionShapes('d_in', 'd_in', 'd_head', 'heads[].'), ...OUT_SHAPES } }],
  multiheadAttentionSplit: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'd_in'] },
    { name: 'weights', kind: 'weights', keys: [...PROJECTION_KEYS, ...OUT_KEYS], shapes: { ...projectionShapes('d_in', 'd_in', 'd_out'), ...OUT_SHAPES } }],
  multiheadAttentionFused: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'd_in'] },
    { name: 'weights', kind: 'weights', keys: ['inProjection', 'inBias', ...OUT_KEYS], shapes: { inProjection: ['d_in', '3·d_out'], inBias: ['3·d_out'], ...OUT_SHAPES } }],
  crossAttention: [
    { name: 'xQuery', kind: 'sequence', axes: ['B', 'Tq', 'd_q'] },
    { name: 'xContext', kind: 'sequence', axes: ['B', 'Tk', 'd_kv'], note: 'the batch size of xQuery' },
    { name: 'weights', kind: 'weights', keys: [...PROJECTION_KEYS, ...OUT_KEYS], shapes: { ...projectionShapes('d_q', 'd_kv', 'd_out'), ...OUT_SHAPES } },
  ],
};
const FORWARD_OPTIONS = {
  selfAttention: { layout: { type: 'choice', choices: ['matrix', 'linear'], default: 'matrix' }, ...ATTENTION_OPTIONS },
  // H is the number of heads given; options.heads may only repeat it.
  multiheadAttentionStacked: { ...ATTENTION_OPTIONS, heads: { ...HEADS, defaultFrom: 'heads' }, intermediates: INTERMEDIATES },
  multiheadAttentionSplit: { ...ATTENTION_OPTIONS, heads: HEADS, intermediates: INTERMEDIATES },
  multiheadAttentionFused: { ...ATTENTION_OPTIONS, heads: HEADS, intermediates: INTERMEDIATES },
  crossAttention: { ...ATTENTION_OPTIONS, heads: HEADS, intermediates: INTERMEDIATES },
};
// The backward holds its inputs and weights (inputFloats) and their gradients, the projections Q (B, Tq, d_out),
// K and V (B, Tk, d_out) and their gradients, then on the teaching path the recomputed (B, H, Tq, Tk) stages,
// the context and output and their gradients and one slice's (Tq, Tk) work matrices; on the fused path the
// context, output and their gradients, transposed copies for the GEMMs and the (B, H, Tq) log-sum-exp.
const BACKWARD_MEMORY = {
  teaching: [[2, 'inputFloats'], [4, 'B', 'Tq', 'dOut'], [8, 'B', 'Tk', 'dOut'], [1, ...STAGES], [6, 'B', 'Tq', 'dOut'], [4, 'Tq', 'Tk']],
  fused: [[2, 'inputFloats'], [4, 'B', 'Tq', 'dOut'], [8, 'B', 'Tk', 'dOut'], [9, 'B', 'Tq', 'dOut'], [2, 'B', 'H', 'Tq']],
};
/** BACKWARD_MEMORY with a form's own extra terms on both paths. */
const backwardMemory = (extra = []) => ({
  teaching: [...BACKWARD_MEMORY.teaching, ...extra], fused: [...BACKWARD_MEMORY.fused, ...extra],
});
function backwardEntry(forward, cpp, paths, inputs, gradients) {
  const args = FORWARD_ARGS[forward];
  const sequence = args[0].axes;
  return {
    name: `${forward}Backward`, cpp: `${cpp}_backward`, step: 12,
    args: [...args, { name: 'gradOutput', kind: 'sequence', axes: [sequence[0], sequence[1], 'd_out'] }],
    options: FORWARD_OPTIONS[forward],
    results: { ...batched(inputs), ...Object.fromEntries(gradients.map((name) => [name, { batched: false }])) },
    paths, gpu: 'reference', fixture: true, forward, ...FORWARD_SIZING[forward],
    ...(paths.includes('fused') ? { fused: FUSED_KERNEL_RULE } : {}),
    ...(FORWARD_OPTIONS[forward].intermediates ? { stages: ATTENTION_STAGES } : {}),
    gpuReason: `${forward}Backward does matrix work (the gradients' products), but the API's WGSL passes are forward only (the trainer's WebGPU engine, web/src/gpu/train/, has its own backward); the JS reference computes it`,
    // multiheadAttentionFused's: the (B, T, 3·d_out) projection and its gradient
    memory: backwardMemory(forward === 'multiheadAttentionFused' ? [[12, 'B', 'Tq', 'dOut']] : []),
  };
}

// The causal averages (steps 2–4): a sequence in, its average out. The matrix forms (steps 3 and 4) run as
// WGSL passes: a (T, T) weights matrix times x on each batch.
const CAUSAL_AVERAGE = {
  args: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'C'] }], options: null, results: batched(['output']),
};
const AVERAGE_AS_MATRIX = {
  paths: ['teaching', 'webgpu'], gpu: 'kernels', fixture: true,
  work: [[1, 'B', 'T', 'T', 'C']], gpuFootprint: { largest: [[1, 'B', 'T', 'C'], [1, 'T', 'T']], matrices: [[1, 'B']] },
};

/** @type {ReadonlyArray<object>} every API function, in curriculum order */
export const REGISTRY = Object.freeze([
  {
    name: 'nextTokenPairs', cpp: 'next_token_pairs', step: 1,
    args: [{ name: 'tokens', kind: 'tokens', axes: ['B', 'L'] }],
    options: null,
    results: batched(['contexts', 'targets']),
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [[2, 'B', 'L']] },
  },
  {
    name: 'causalAverageLoop', cpp: 'causal_average_loop', step: 2, ...CAUSAL_AVERAGE,
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [[1, 'B', 'T', 'C']] },
  },
  {
    name: 'causalAverageMatmul', cpp: 'causal_average_matmul', step: 3, ...CAUSAL_AVERAGE, ...AVERAGE_AS_MATRIX,
    memory: { teaching: [[1, 'B', 'T', 'C'], [1, 'T', 'T']] },
  },
  {
    name: 'causalAverageSoftmax', cpp: 'causal_average_softmax', step: 4, ...CAUSAL_AVERAGE, ...AVERAGE_AS_MATRIX,
    memory: { teaching: [[1, 'B', 'T', 'C'], [3, 'T', 'T']] },
  },
  {
    name: 'softmax', cpp: 'softmax', step: 5,
    args: [{ name: 'x', kind: 'tensor' }],
    options: {
      normalization: NORMALIZATION,
      // softmax's scale is the factor itself (attention's `scale` is the 1/√d_k switch).
      scale: { type: 'number', float32: true, default: 1, expected: 'a finite number' },
    },
    results: { output: { batched: false } },
    paths: ['teaching', 'webgpu'], gpu: 'kernels', fixture: true,
    memory: { teaching: [[2, 'size']] },
    work: [[1, 'size']], gpuFootprint: { largest: [[1, 'size']], matrices: [[1]] },
  },
  {
    name: 'attentionWithoutWeights', cpp: 'attention_without_weights', step: 5,
    args: [{ name: 'x', kind: 'sequence', axes: ['B', 'T', 'C'] }],
    options: { normalization: NORMALIZATION },
    results: batched(['scores', 'weights', 'output']),
    paths: ['teaching', 'webgpu'], gpu: 'kernels', fixture: true,
    memory: { teaching: [[2, 'B', 'T', 'T'], [1, 'B', 'T', 'C']] },
    work: [[2, 'B', 'T', 'T', 'C']], gpuFootprint: { largest: [[1, 'B', 'T', 'C'], [1, 'B', 'T', 'T']], matrices: [[1, 'B']] },
  },
  {
    name: 'selfAttention', cpp: 'self_attention', step: 6,
    args: FORWARD_ARGS.selfAttention,
    options: FORWARD_OPTIONS.selfAttention,
    results: ATTENTION_RESULTS,
    paths: ['teaching', 'webgpu'], gpu: 'kernels', fixture: true,
    memory: { teaching: MULTIHEAD_MEMORY.teaching },
    ...FORWARD_SIZING.selfAttention, work: ATTENTION_WORK, gpuFootprint: ATTENTION_FOOTPRINT,
  },
  {
    name: 'attentionDropout', cpp: 'attention_dropout', step: 8,
    args: [{ name: 'weights', kind: 'tensor' }],
    options: { dropout: DROPOUT, seed: SEED, dropoutRng: DROPOUT_RNG },
    results: { mask: { batched: false }, output: { batched: false } },
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [[2, 'size']] },
  },
  {
    name: 'compare', cpp: 'compare', step: 9,
    args: [{ name: 'actual', kind: 'tensor' }, { name: 'expected', kind: 'tensor' }],
    options: {
      atol: { type: 'number', min: 0, default: 1e-5, expected: 'a finite number ≥ 0' },
      rtol: { type: 'number', min: 0, default: 1e-5, expected: 'a finite number ≥ 0' },
    },
    results: {},
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [] },
  },
  {
    name: 'multiheadAttentionStacked', cpp: 'multihead_attention_stacked', step: 10, ...MULTIHEAD,
    args: FORWARD_ARGS.multiheadAttentionStacked, ...FORWARD_SIZING.multiheadAttentionStacked,
    options: { ...FORWARD_OPTIONS.multiheadAttentionStacked, ...MASK_OPTIONS, },
    results: MULTIHEAD_RESULTS,
    // teaching: the heads' projections before they are joined; fused: the heads' weights joined side by side
    memory: multiheadMemory({ teaching: [[3, 'B', 'Tq', 'dOut']], fused: [[3, 'dIn', 'dOut'], [3, 'dOut']] }),
  },
  {
    name: 'multiheadAttentionSplit', cpp: 'multihead_attention_split', step: 10, ...MULTIHEAD,
    args: FORWARD_ARGS.multiheadAttentionSplit, ...FORWARD_SIZING.multiheadAttentionSplit,
    options: { ...FORWARD_OPTIONS.multiheadAttentionSplit, ...MASK_OPTIONS, },
    results: MULTIHEAD_RESULTS,
    memory: multiheadMemory({}),
  },
  {
    name: 'multiheadAttentionFused', cpp: 'multihead_attention_fused', step: 10, ...MULTIHEAD,
    args: FORWARD_ARGS.multiheadAttentionFused, ...FORWARD_SIZING.multiheadAttentionFused,
    options: { ...FORWARD_OPTIONS.multiheadAttentionFused, ...MASK_OPTIONS, },
    results: MULTIHEAD_RESULTS,
    // teaching: the (B, T, 3·d_out) projection before it is split into Q, K, V
    memory: multiheadMemory({ teaching: [[3, 'B', 'Tq', 'dOut']] }),
  },
  {
    name: 'crossAttention', cpp: 'cross_attention', step: 11, ...MULTIHEAD,
    args: FORWARD_ARGS.crossAttention, ...FORWARD_SIZING.crossAttention,
    options: { ...FORWARD_OPTIONS.crossAttention, ...MASK_OPTIONS, xValue: X_VALUE, },
    results: MULTIHEAD_RESULTS,
    // teaching: the context sequence's copy beside the query's
    memory: multiheadMemory({ teaching: [[1, 'contextFloats']] }),
  },
  // The backward of each trainable function (docs/api.md "Training"): the forward's arguments, then gradOutput
  // (dLoss/dOutput, shaped like the forward's output), then the forward's options; the results are the
  // gradients, named like the inputs. The multi-head and cross forms run the fused backward where the
  // forward would run the fused kernel (planner.js fusedKernelApplies), else the teaching backward.
  ...[
    ['selfAttention', 'self_attention', ['teaching'], ['x'], ['query', 'key', 'value', 'queryBias', 'keyBias', 'valueBias']],
    ['multiheadAttentionStacked', 'multihead_attention_stacked', ['teaching', 'fused'], ['x'], ['heads', ...OUT_KEYS]],
    ['multiheadAttentionSplit', 'multihead_attention_split', ['teaching', 'fused'], ['x'], [...PROJECTION_KEYS, ...OUT_KEYS]],
    ['multiheadAttentionFused', 'multihead_attention_fused', ['teaching', 'fused'], ['x'], ['inProjection', 'inBias', ...OUT_KEYS]],
    ['crossAttention', 'cross_attention', ['teaching', 'fused'], ['xQuery', 'xContext'], [...PROJECTION_KEYS, ...OUT_KEYS]],
  ].map(([forward, cpp, paths, inputs, gradients]) => backwardEntry(forward, cpp, paths, inputs, gradients)),
  {
    // PyTorch's F.scaled_dot_product_attention on q (…, L, E), k (…, S, E), v (…, S, Ev): any equal leading axes.
    name: 'scaledDotProductAttention', cpp: 'scaled_dot_product_attention', step: null,
    args: [{ name: 'query', kind: 'tensor' }, { name: 'key', kind: 'tensor' }, { name: 'value', kind: 'tensor' }],
    options: {
      attnMask: { type: 'mask', default: null, expected: 'null, or {data: Uint8Array (0/1, 1 = may attend) or Float32Array, shape}' },
      isCausal: { type: 'boolean', default: false },
      scale: { type: 'number', nullable: true, float32: true, default: null, expected: 'a finite number, or null for 1/√E' },
      dropoutP: DROPOUT,
      seed: SEED,
      intermediates: INTERMEDIATES,
    },
    results: Object.fromEntries(['scores', 'scaled', 'masked', 'weights', 'dropped', 'output'].map((name) => [name, { batched: false }])),
    paths: ['teaching', 'fused'], gpu: 'reference', fixture: true, route: 'sdpa',
    // the fused form: only the output asked for, no dropoutP, no attnMask (isCausal is the kernel's own top-left mask)
    fused: [
      { option: 'intermediates', is: false, otherwise: 'the intermediates are asked for: the teaching code' },
      { option: 'dropoutP', is: 0, otherwise: 'dropoutP > 0: the teaching code' },
      { option: 'attnMask', is: null, otherwise: 'options.attnMask: the teaching code (the fused form takes only isCausal)' },
    ],
    shapes: [{ path: 'query', axes: ['…batch', 'L', 'E'] }, { path: 'key', axes: ['…batch', 'S', 'E'] }],
    stages: [[1, 'batch', 'L', 'S']],
    gpuReason: 'scaledDotProductAttention does matrix work (Q·Kᵀ, weights·V), but the WGSL passes project (B, T, C) inputs and take no (…, L, E) batches of q, k, v, attnMask or Ev ≠ E; the JS reference computes it',
    // q, k, v, the (…, L, S) stages (scores, scaled, masked, weights, dropped: 5; one where the WASM teaching code
    // returns the output alone: planner.js sdpaRoute) and the output; fused (the JS reference's row-at-a-time
    // form, or the WASM kernel): q, k, v, the output and one row of S scores
    memory: {
      teaching: [[1, 'batch', 'L', 'E'], [1, 'batch', 'S', 'E'], [1, 'batch', 'S', 'Ev'], [1, 'stages', 'batch', 'L', 'S'], [1, 'batch', 'L', 'Ev']],
      fused: [[1, 'batch', 'L', 'E'], [1, 'batch', 'S', 'E'], [1, 'batch', 'S', 'Ev'], [1, 'S'], [1, 'batch', 'L', 'Ev']],
    },
  },
  {
    // PyTorch's F.layer_norm over the last axis of x (…, C): mean and biased variance per row, then the affine
    // weight and bias (C) where given.
    name: 'layerNorm', cpp: 'layer_norm', step: null,
    args: [{ name: 'x', kind: 'tensor' }],
    options: {
      weight: { type: 'tensor', default: null, expected: 'null, or a tensor {data: Float32Array, shape (C)}', axes: ['C'], note: 'the last axis of x' },
      bias: { type: 'tensor', default: null, expected: 'null, or a tensor {data: Float32Array, shape (C)}', axes: ['C'], note: 'the last axis of x' },
      eps: { type: 'number', min: 0, minExclusive: true, float32: true, default: 1e-5, expected: 'a finite number > 0' },
    },
    results: { output: { batched: false } },
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [[1, 'size']] },
  },
  {
    // PyTorch's F.gelu, elementwise: x·Φ(x) with erf, or GPT-2's tanh approximation.
    name: 'gelu', cpp: 'gelu', step: null,
    args: [{ name: 'x', kind: 'tensor' }],
    options: { approximate: { type: 'choice', choices: ['none', 'tanh'], default: 'none' } },
    results: { output: { batched: false } },
    paths: ['teaching'], gpu: 'reference', fixture: true,
    memory: { teaching: [[1, 'size']] },
  },
  {
    name: 'matmul', cpp: 'matmul', step: null,
    args: [{ name: 'a', kind: 'sequence', axes: ['B', 'M', 'K'] }, { name: 'b', kind: 'tensor', axes: ['K', 'N'], transposedBy: { transposeB: true } }],
    options: { transposeB: { type: 'boolean', default: false } },
    results: batched(['output']),
    paths: ['teaching', 'webgpu'], gpu: 'kernels', fixture: false,
    memory: { teaching: [[1, 'batch', 'M', 'N']] },
    shapes: ['a', 'b'],
    work: [[1, 'B', 'M', 'K', 'N']], gpuFootprint: { largest: [[1, 'B', 'M', 'K'], [1, 'K', 'N'], [1, 'B', 'M', 'N']], matrices: [[1, 'B']] },
  },
]);

/** The entry of each function by its JS name. */
export const ENTRIES = Object.freeze(Object.fromEntries(REGISTRY.map((entry) => [entry.name, entry])));

/** The names of every API function, in curriculum order. */
export const FUNCTION_NAMES = Object.freeze(REGISTRY.map((entry) => entry.name));

/** The functions a path can run: functionsFor('workers') is the worker pool's list. */
export const functionsFor = (path) => REGISTRY.filter((entry) => entry.paths.includes(path)).map((entry) => entry.name);

/** The functions with PyTorch fixtures (tests/fixtures/<name>.json): what the fixture runners iterate. */
export const FIXTURE_FUNCTIONS = Object.freeze(REGISTRY.filter((entry) => entry.fixture).map((entry) => entry.name));
