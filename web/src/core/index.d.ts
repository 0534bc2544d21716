// Types of the attention core's JS API (web/src/core/index.js). docs/api.md is the contract; this file
// states it for TypeScript and editors. Shapes follow PyTorch: x is (B, T, C), row-major float32.
import type {
  CrossAttentionGradients, FusedGradients, SelfAttentionGradients, SplitGradients, StackedGradients,
} from './reference/backward/attention.js';

/** A row-major float32 tensor. data.length is the product of shape. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Token ids (step 1). */
export interface IntTensor {
  data: Int32Array;
  shape: number[];
}

/** How a row of scores becomes weights: exp(s − max)/Σ, exp(s)/Σ exp(s) (overflows for s ≳ 88), or s/Σ s. */
export type Normalization = 'stable' | 'naive' | 'sum';
/** How the causal mask is applied: −∞ then softmax; softmax, zero, renormalise; or 0 then softmax (the classic mistake). */
export type MaskMode = 'neg_inf' | 'renormalize' | 'zero';
/** 'matrix': W is (d_in, d_out) used as X·W; 'linear': W is (d_out, d_in) like torch.nn.Linear.weight, used as X·Wᵀ. */
export type WeightLayout = 'matrix' | 'linear';

/** The names loadAttention accepts. */
export type BackendChoice = 'auto' | 'wasm' | 'wasm-simd' | 'wasm-baseline' | 'js' | 'webgpu';

/** Options of the attention functions (steps 6–11). Every option is optional; defaults in brackets. */
export interface AttentionOptions {
  /** Multiply the scores by 1/√d_k (d_k = d_out for one head, d_head for several). [true] */
  scale?: boolean;
  /** scaled = scores · (scale ? 1/√d_k : 1) / temperature; finite and > 0. [1] */
  temperature?: number;
  /** Row i attends only to keys j ≤ i (top-left aligned, also when Tq ≠ Tk). [false] */
  causal?: boolean;
  /** How the causal mask is applied. ['neg_inf'] */
  mask?: MaskMode;
  /** Dropout probability p on the weights (after the mask), in [0, 1). [0] */
  dropout?: number;
  /** Seed of dropout's random numbers, an integer in [0, 2³²). [0] */
  seed?: number;
  /** Whose random numbers draw the dropout mask (docs/api.md "Dropout's random numbers"). ['counter'] */
  dropoutRng?: DropoutRng;
}

/** selfAttention's options: the attention options plus the weight layout. */
export interface SelfAttentionOptions extends AttentionOptions {
  /** ['matrix'] */
  layout?: WeightLayout;
}

/** The multi-head and cross-attention options. */
export interface MultiheadOptions extends AttentionOptions {
  /** H. d_out must be divisible by it. [1]; multiheadAttentionStacked: the number of heads given. */
  heads?: number;
  /**
   * false: return only { output }, computed by the fused kernel (O(T·d) memory) where the options allow.
   * [true while each (B, H, Tq, Tk) stage holds at most INTERMEDIATES_LIMIT = 65,536 values; false above]
   */
  intermediates?: boolean;
}

/**
 * The masks of the multi-head forwards and crossAttention (docs/api.md "Masks"), applied to the scaled scores
 * with causal's −∞ (mask must be 'neg_inf'); a row left with no key gets zero weights and a zero output.
 */
export interface MultiheadMaskOptions extends MultiheadOptions {
  /**
   * 0/1 Uint8Array (1 = may attend; nn.MultiheadAttention's boolean attn_mask means the opposite) or a Float32Array
   * added to the scaled scores (may hold −∞), of shape (Tq, Tk), (B, Tq, Tk) or (B, H, Tq, Tk), each axis its size
   * or 1; PyTorch's (B·H, Tq, Tk) is not accepted. [null]
   */
  attnMask?: AttentionMask | null;
  /** (B, Tk) 0/1 Uint8Array, 1 = padding (ignored), as nn.MultiheadAttention's key_padding_mask; (Tk) for unbatched input. [null] */
  keyPaddingMask?: { data: Uint8Array; shape: number[] } | null;
}

/** crossAttention's options: the masks, and the values' own input. */
export interface CrossAttentionOptions extends MultiheadMaskOptions {
  /** (B, Tk, d_xv) (or (Tk, d_xv) unbatched): the values' input, projected by weights.value (d_xv, d_out); [null: xContext] */
  xValue?: Tensor | null;
}

export interface SoftmaxOptions {
  /** ['stable'] */
  normalization?: Normalization;
  /** softmax of scale·x (−∞ entries stay −∞); a finite number. [1] */
  scale?: number;
}

/**
 * 'counter': u(seed, i) ≥ p from the flat index alone, the same on every path and backend; 'torch': the mask
 * torch.nn.Dropout(p) draws after torch.manual_seed(seed) on the CPU, bit for bit (the teaching path only).
 */
export type DropoutRng = 'counter' | 'torch';

export interface DropoutOptions {
  /** p in [0, 1). [0] */
  dropout?: number;
  /** An integer in [0, 2³²). [0] */
  seed?: number;
  /** Whose random numbers draw the mask. ['counter'] */
  dropoutRng?: DropoutRng;
}

export interface CompareOptions {
  /** [1e-5] */
  atol?: number;
  /** [1e-5] */
  rtol?: number;
}

/** scaledDotProductAttention's attnMask: 0/1 Uint8Array (1 = may attend) or Float32Array added to the scaled scores (may hold −∞). */
export interface AttentionMask {
  data: Uint8Array | Float32Array;
  shape: number[];
}

/** PyTorch's F.scaled_dot_product_attention options. */
export interface ScaledDotProductAttentionOptions {
  /** Broadcastable to (…, L, S). [null] */
  attnMask?: AttentionMask | null;
  /** Top-left tril(ones(L, S)); an Error together with attnMask. [false] */
  isCausal?: boolean;
  /** The factor of Q·Kᵀ. [null: 1/√E] */
  scale?: number | null;
  /** Dropout probability on the weights, in [0, 1). [0] */
  dropoutP?: number;
  /** The dropout RNG's seed (docs/api.md). [0] */
  seed?: number;
  /**
   * false: output alone, by the fused path where no attnMask and no dropoutP (WASM: also Ev = E, scale > 0).
   * [true while each (…, L, S) stage holds at most INTERMEDIATES_LIMIT = 65,536 values; false above]
   */
  intermediates?: boolean;
}

/** scores, scaled, weights (…, L, S), masked (a mask applies), dropped (dropoutP > 0), output (…, L, Ev). */
export interface ScaledDotProductAttentionResult {
  scores?: Tensor;
  scaled?: Tensor;
  masked?: Tensor;
  weights?: Tensor;
  dropped?: Tensor;
  output: Tensor;
}

/** PyTorch's F.layer_norm options, over the last axis C of x. */
export interface LayerNormOptions {
  /** The affine scale γ (C). [null: none] */
  weight?: Tensor | null;
  /** The affine shift β (C). [null: none] */
  bias?: Tensor | null;
  /** Added to the biased variance before its square root; a number > 0, held as float32. [1e-5] */
  eps?: number;
}

/** PyTorch's F.gelu options. */
export interface GeluOptions {
  /** 'none': x·Φ(x) with erf; 'tanh': GPT-2's approximation. ['none'] */
  approximate?: 'none' | 'tanh';
}

export interface MatmulOptions {
  /** b is stored (N, K) and used as bᵀ. [false] */
  transposeB?: boolean;
}

/** Single-head projections (selfAttention) and the split/cross multi-head projections. */
export interface ProjectionWeights {
  /** (d_in, d_out), or (d_out, d_in) with layout 'linear'. crossAttention: (d_q, d_out). */
  query: Tensor;
  /** Same shape as query. crossAttention: (d_kv, d_out). */
  key: Tensor;
  /** Same shape as key. */
  value: Tensor;
  /** (d_out) */
  queryBias?: Tensor;
  keyBias?: Tensor;
  valueBias?: Tensor;
}

/** The output projection of the multi-head functions: output = context·outWeight + outBias. */
export interface OutProjection {
  /** (d_out, d_out), math layout. Without it, output equals context. */
  outWeight?: Tensor;
  /** (d_out); only together with outWeight. */
  outBias?: Tensor;
}

/** multiheadAttentionStacked: H heads, each with its own (d_in, d_head) projections; d_out = H·d_head. */
export interface StackedWeights extends OutProjection {
  heads: ProjectionWeights[];
}

export interface SplitWeights extends ProjectionWeights, OutProjection {}

/** multiheadAttentionFused: torch.nn.MultiheadAttention's in_proj_weight, transposed. */
export interface FusedWeights extends OutProjection {
  /** (d_in, 3·d_out) = [Wq | Wk | Wv]. */
  inProjection: Tensor;
  /** (3·d_out) */
  inBias?: Tensor;
}

/** Steps 2–4. For (T, C) input, output is (T, C); the (T, T) matrices never have a batch axis. */
export interface AverageResult {
  /** Step 4: (T, T) zeros. */
  scores?: Tensor;
  /** Step 4: (T, T), −∞ above the diagonal. */
  masked?: Tensor;
  /** Steps 3–4: (T, T), rows 1, ½ ½, ⅓ ⅓ ⅓, … */
  weights?: Tensor;
  /** (B, T, C): y[b, t] = mean(x[b, 0..t]). */
  output: Tensor;
}

/**
 * What a naive softmax's overflow reports (docs/api.md "Errors"): the fields an Error of kind 'overflow' would
 * carry, and its message. The results carrying it hold the NaN and ±∞ as computed.
 */
export interface OverflowReport {
  fn: string;
  kind: 'overflow';
  argument: 'normalization';
  value: 'naive';
  expected: 'finite results';
  /** The stage that overflowed, in words ('weights', 'output'). */
  stage: string;
  /** 'Infinity', '-Infinity' or 'NaN'. */
  reached: string;
  expression: string;
  message: string;
}

/** Step 5 without weights: scores = X·Xᵀ, weights (B, T, T); output = weights·X (B, T, C). */
export interface AttentionWithoutWeightsResult {
  scores: Tensor;
  weights: Tensor;
  output: Tensor;
  /** Only when normalization 'naive' overflowed (not enumerable). */
  readonly overflow?: OverflowReport;
}

/**
 * Steps 6–8: query, key, value (B, T, d_out); scores, scaled, masked (only when causal), weights,
 * dropped (only when dropout > 0) (B, T, T); output (B, T, d_out). Absent results are absent keys.
 */
export interface SelfAttentionResult {
  query: Tensor;
  key: Tensor;
  value: Tensor;
  scores: Tensor;
  scaled: Tensor;
  masked?: Tensor;
  weights: Tensor;
  dropped?: Tensor;
  output: Tensor;
}

/**
 * Steps 10–11: query (B, H, Tq, d_head); key, value (B, H, Tk, d_head); scores, scaled, masked
 * (only when causal), weights, dropped (only when dropout > 0) (B, H, Tq, Tk); context (B, Tq, d_out),
 * the heads concatenated; output (B, Tq, d_out) after the output projection. With
 * `intermediates: false` only output is present.
 */
export interface MultiheadResult {
  query?: Tensor;
  key?: Tensor;
  value?: Tensor;
  scores?: Tensor;
  scaled?: Tensor;
  masked?: Tensor;
  weights?: Tensor;
  dropped?: Tensor;
  context?: Tensor;
  output: Tensor;
}

/** Step 9, plain numbers. */
export interface Comparison {
  /** max |a − e| */
  maxAbsError: number;
  /** max |a − e| / |e| over the elements with e ≠ 0 (0 if none). */
  maxRelError: number;
  /** Every element has |a − e| ≤ atol + rtol·|e|. */
  allclose: boolean;
  /** The first row-major flat index where that fails, or −1. */
  firstMismatch: number;
}

/** A value, or a Promise of it when the backend is asynchronous (WebGPU). */
export type MaybePromise<T> = T | Promise<T>;

/**
 * The attention core on one backend. Every function takes and returns plain tensors (fresh arrays the
 * caller owns; never views of WASM memory). Inputs named x may be unbatched, (T, C): the result then
 * has no batch axis either, as in PyTorch. Bad input throws an Error whose message names the function,
 * the argument, the value and what was expected, e.g.
 * "selfAttention: x.data has 11 values; expected 12 for shape [2, 2, 3]"; the object keeps working after it.
 * On the WebGPU backend every function returns a Promise (argument errors are still thrown at once); so
 * does a multi-head call that goes to the workers (LoadOptions.threads), checked on this thread first.
 */
/** The GPU crossover of 'auto' (Attention.gpuCrossover). */
export interface GpuCrossover {
  /** Calls doing at least thresholdN³ multiply-adds go to WebGPU; null: none does. */
  readonly thresholdN: number | null;
  readonly source: 'forced' | 'set' | 'stored' | 'committed' | 'probing' | 'none';
  /** Which measurement decided, e.g. 'measured in this browser on … on 2026-11-23: the GPU was faster from n=512'. */
  readonly reason: string;
}

/** What the planner decided for the last call (Attention.lastCall). */
export interface LastCall {
  fn: string;
  backend: string;
  path: 'teaching' | 'fused' | 'workers' | 'webgpu';
  reason: string;
  threads: number;
}

export interface Attention {
  /**
   * The backend in use now: 'wasm-simd', 'wasm-baseline', 'js' or 'webgpu'. With 'auto' routing calls
   * between WASM and WebGPU, the one that answered the last call.
   */
  readonly backend: string;
  /** The WASM build ('simd' | 'baseline'), or null for the other backends. */
  readonly build: 'simd' | 'baseline' | null;
  /** Why the backend asked for was not used (null when it was). Read live: a lost WebGPU device sets it. */
  readonly fallbackReason: string | null;
  /**
   * After every call, on every backend: the planner's answer (web/src/core/planner.js) — which backend ran
   * it, on which path ('teaching' code, the 'fused' kernel, the 'workers', 'webgpu') and why, and how many
   * workers took it (1: the calling thread). null before the first call.
   */
  readonly lastCall: LastCall | null;
  /**
   * Web Workers in use for the large fused multi-head calls (LoadOptions.threads), or 1: every call runs
   * on the calling thread. Read live: dispose() or a worker that died makes it 1.
   */
  readonly threads: number;
  /**
   * Why `threads` is 1 when more could have been asked for: 'auto' on a page that is not cross-origin
   * isolated, no Worker (Node), workers that could not start, the 'js' or 'webgpu' backend, dispose().
   * null when the count asked for is in use (or threads: 1 was asked).
   */
  readonly threadsReason: string | null;
  /** Terminates the workers, if any; later calls run on the calling thread. The object keeps working. */
  dispose(): void;
  /**
   * {bytes, peak} of the calling thread's WASM module, plus `workers: [{bytes, peak}]` when a pool runs.
   * The 'js' backend (and 'webgpu' on its GPU) has no module: {bytes: 0, peak: 0}.
   */
  readonly memory: AttentionMemory;
  /** The limit every call is checked against, inputs' copies included (LoadOptions.memoryLimit) [2 GiB]. */
  readonly memoryLimit: number;
  /**
   * Re-instantiates the WASM modules (the calling thread's and every worker's) to give their grown memory
   * back; resolves when later calls use the new ones (memory.bytes is then back to its size at load).
   * Resolves at once where there is no module ('js').
   */
  compact(): Promise<void>;
  /**
   * Only on 'webgpu' and on 'auto' routing: called when the calls move to another backend (the device
   * was lost, or could not be had); returns a function that unsubscribes.
   */
  onBackendChange?(listener: (change: { backend: string; reason: string }) => void): () => void;
  /**
   * 'auto' only: the GPU crossover routing uses now, where it came from (forced through loadAttention's
   * gpuCrossover > set through setGpuCrossover > stored: measured in this browser for this adapter and
   * browser version > committed: web/src/gpu/crossover.json > probing: being measured, WASM meanwhile >
   * none) and the words lastCall.reason starts with.
   */
  readonly gpuCrossover?: GpuCrossover;
  /** 'auto' only: stores a crossover with source 'set' for this adapter (null: never the GPU); anything but a positive integer or null is an Error. */
  setGpuCrossover?(thresholdN: number | null): void;
  /** 'auto' only: removes the stored (and a forced or set) crossover; the next call that could go to the GPU measures again. */
  clearGpuCrossover?(): void;

  /** Step 1. tokens (B, L) or (L), L ≥ 2 → contexts, targets (B, L−1): position t's target is targets[b, t]. */
  nextTokenPairs(tokens: IntTensor): MaybePromise<{ contexts: IntTensor; targets: IntTensor }>;
  /** Step 2. x (B, T, C) → { output }: the mean of tokens 0..t by the explicit loop. */
  causalAverageLoop(x: Tensor): MaybePromise<{ output: Tensor }>;
  /** Step 3. x → { weights (T, T), output }: the same mean as one matrix product. */
  causalAverageMatmul(x: Tensor): MaybePromise<{ weights: Tensor; output: Tensor }>;
  /** Step 4. x → { scores, masked, weights (T, T), output }: zeros, −∞ above the diagonal, softmax. */
  causalAverageSoftmax(x: Tensor): MaybePromise<Required<AverageResult>>;
  /** Step 5. x (…, N), any rank ≥ 1, may hold −∞ → { output }: each last-axis row of scale·x normalised. A row of only −∞ gives 0s. */
  /** `overflow` (not enumerable) only when normalization 'naive' overflowed, the results holding its NaN. */
  softmax(x: Tensor, options?: SoftmaxOptions): MaybePromise<{ output: Tensor; readonly overflow?: OverflowReport }>;
  /** Step 5. x (B, T, C) → scores = X·Xᵀ, weights, output = weights·X. */
  attentionWithoutWeights(x: Tensor, options?: { normalization?: Normalization }): MaybePromise<AttentionWithoutWeightsResult>;
  /** Steps 6–8. x (B, T, d_in), projections (d_in, d_out) → Q, K, V, every stage of the weights, output. */
  selfAttention(x: Tensor, weights: ProjectionWeights, options?: SelfAttentionOptions): MaybePromise<SelfAttentionResult>;
  /** Step 8. weights, any shape → { mask (1 kept, 0 dropped), output = weights·mask/(1−p) }; element i is kept when u(seed, i) ≥ p, or as torch.nn.Dropout with dropoutRng 'torch' (docs/api.md). */
  attentionDropout(weights: Tensor, options?: DropoutOptions): MaybePromise<{ mask: Tensor; output: Tensor }>;
  /** Step 9. Two tensors of the same shape → a Comparison. */
  compare(actual: Tensor, expected: Tensor, options?: CompareOptions): MaybePromise<Comparison>;
  /** Step 10a. H independent heads, concatenated, then the output projection. */
  multiheadAttentionStacked(x: Tensor, weights: StackedWeights, options?: MultiheadMaskOptions): MaybePromise<MultiheadResult>;
  /** Step 10b. One (d_in, d_out) projection per Q, K, V split into options.heads heads. */
  multiheadAttentionSplit(x: Tensor, weights: SplitWeights, options?: MultiheadMaskOptions): MaybePromise<MultiheadResult>;
  /** Step 10c. One (d_in, 3·d_out) projection, as torch.nn.MultiheadAttention. */
  multiheadAttentionFused(x: Tensor, weights: FusedWeights, options?: MultiheadMaskOptions): MaybePromise<MultiheadResult>;
  /** Step 11. Queries from xQuery (B, Tq, d_q), keys and values from xContext (B, Tk, d_kv) → (Tq, Tk) weights. */
  crossAttention(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, options?: CrossAttentionOptions): MaybePromise<MultiheadResult>;
  /** Step 12 (docs/api.md "Training"). The forward's arguments, gradOutput (B, T, d_out) = dLoss/doutput, the forward's options → the gradient of every input, named like it. */
  selfAttentionBackward(x: Tensor, weights: ProjectionWeights, gradOutput: Tensor, options?: SelfAttentionOptions): MaybePromise<SelfAttentionGradients>;
  /** Step 12. Gradients of x, heads[h].query …, outWeight, outBias. */
  multiheadAttentionStackedBackward(x: Tensor, weights: StackedWeights, gradOutput: Tensor, options?: MultiheadOptions): MaybePromise<StackedGradients>;
  /** Step 12. Gradients of x, query, key, value, their biases, outWeight, outBias. */
  multiheadAttentionSplitBackward(x: Tensor, weights: SplitWeights, gradOutput: Tensor, options?: MultiheadOptions): MaybePromise<SplitGradients>;
  /** Step 12. Gradients of x, inProjection, inBias, outWeight, outBias. */
  multiheadAttentionFusedBackward(x: Tensor, weights: FusedWeights, gradOutput: Tensor, options?: MultiheadOptions): MaybePromise<FusedGradients>;
  /** Step 12. gradOutput (B, Tq, d_out) → gradients of xQuery, xContext and the weights. */
  crossAttentionBackward(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, gradOutput: Tensor, options?: MultiheadOptions): MaybePromise<CrossAttentionGradients>;
  /** PyTorch's F.scaled_dot_product_attention: query (…, L, E), key (…, S, E), value (…, S, Ev), the leading axes equal. */
  scaledDotProductAttention(query: Tensor, key: Tensor, value: Tensor, options?: ScaledDotProductAttentionOptions): MaybePromise<ScaledDotProductAttentionResult>;
  /** PyTorch's F.layer_norm(x, (C,), weight, bias, eps): x (…, C) of any rank ≥ 1 → { output (…, C) }, each row by its mean and biased variance. */
  layerNorm(x: Tensor, options?: LayerNormOptions): MaybePromise<{ output: Tensor }>;
  /** PyTorch's F.gelu(x, approximate): x of any rank ≥ 1 → { output } of its shape, elementwise. */
  gelu(x: Tensor, options?: GeluOptions): MaybePromise<{ output: Tensor }>;
  /** Fast path. a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB → { output (M, N) or (B, M, N) }. Throws when the backend has no matmul. */
  matmul(a: Tensor, b: Tensor, options?: MatmulOptions): MaybePromise<{ output: Tensor }>;
}

/**
 * What a backend provides to the API layer (web/src/core/api.js). Its methods receive arguments the
 * API has already normalised: x of rank 3, weights objects without absent entries, complete options
 * (every option of the function present, defaults filled; for a function with a fused path, `path`: 'fused' or
 * 'teaching', the path the API planned, which the backend runs). They return { resultName: { data, shape } }
 * (or a Promise of it), with only the results produced, and throw an Error on semantic errors
 * (mismatched shapes, sizes of 0, non-finite values, memory) with the messages of docs/api.md.
 */
export interface Backend {
  /** 'wasm-simd' | 'wasm-baseline' | 'js' | 'webgpu' */
  readonly name: string;
  /** The WASM build, or null. */
  readonly build?: 'simd' | 'baseline' | null;
  nextTokenPairs(tokens: IntTensor): MaybePromise<object>;
  causalAverageLoop(x: Tensor): MaybePromise<object>;
  causalAverageMatmul(x: Tensor): MaybePromise<object>;
  causalAverageSoftmax(x: Tensor): MaybePromise<object>;
  softmax(x: Tensor, options: Required<SoftmaxOptions>): MaybePromise<object>;
  attentionWithoutWeights(x: Tensor, options: { normalization: Normalization }): MaybePromise<object>;
  selfAttention(x: Tensor, weights: ProjectionWeights, options: Required<SelfAttentionOptions>): MaybePromise<object>;
  attentionDropout(weights: Tensor, options: Required<DropoutOptions>): MaybePromise<object>;
  compare(actual: Tensor, expected: Tensor, options: Required<CompareOptions>): MaybePromise<Comparison>;
  multiheadAttentionStacked(x: Tensor, weights: StackedWeights, options: Required<MultiheadMaskOptions>): MaybePromise<object>;
  multiheadAttentionSplit(x: Tensor, weights: SplitWeights, options: Required<MultiheadMaskOptions>): MaybePromise<object>;
  multiheadAttentionFused(x: Tensor, weights: FusedWeights, options: Required<MultiheadMaskOptions>): MaybePromise<object>;
  crossAttention(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, options: Required<CrossAttentionOptions>): MaybePromise<object>;
  selfAttentionBackward(x: Tensor, weights: ProjectionWeights, gradOutput: Tensor, options: Required<SelfAttentionOptions>): MaybePromise<object>;
  multiheadAttentionStackedBackward(x: Tensor, weights: StackedWeights, gradOutput: Tensor, options: Required<MultiheadOptions>): MaybePromise<object>;
  multiheadAttentionSplitBackward(x: Tensor, weights: SplitWeights, gradOutput: Tensor, options: Required<MultiheadOptions>): MaybePromise<object>;
  multiheadAttentionFusedBackward(x: Tensor, weights: FusedWeights, gradOutput: Tensor, options: Required<MultiheadOptions>): MaybePromise<object>;
  crossAttentionBackward(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, gradOutput: Tensor, options: Required<MultiheadOptions>): MaybePromise<object>;
  scaledDotProductAttention(query: Tensor, key: Tensor, value: Tensor, options: Required<ScaledDotProductAttentionOptions>): MaybePromise<object>;
  layerNorm(x: Tensor, options: Required<LayerNormOptions>): MaybePromise<object>;
  gelu(x: Tensor, options: Required<GeluOptions>): MaybePromise<object>;
  matmul(a: Tensor, b: Tensor, options: Required<MatmulOptions>): MaybePromise<object>;
  /** Optional (backends/threads.js): workers in use, why not, and how to stop them. Absent: 1, null, nothing. */
  readonly threads?: number;
  readonly threadsReason?: string | null;
  dispose?(): void;
  /** Optional: a backend without it makes api.matmul throw. */
  matmul?(a: Tensor, b: Tensor, options: Required<MatmulOptions>): MaybePromise<object>;
}

export interface LoadOptions {
  /**
   * 'auto' [default]: WebAssembly (the SIMD build when this engine supports it); if it cannot load,
   * the JS reference, with fallbackReason set. Where navigator.gpu gives an adapter, each call doing at
   * least thresholdN³ multiply-adds (the crossover measured for the adapter, web/src/gpu/crossover.json)
   * that WebGPU supports at its size goes to WebGPU and returns a Promise; the device is requested on the
   * first such call. A crossover of null (SwiftShader) keeps every call on WebAssembly.
   * 'webgpu': the WebGPU backend; if it cannot load, WebAssembly, then the JS reference, with fallbackReason.
   * 'wasm' (either build, as 'auto'), 'wasm-simd', 'wasm-baseline', 'js': exactly that backend; failing to
   * load it rejects with an Error naming the file and the reason.
   */
  backend?: BackendChoice;
  /**
   * Web Workers for the WASM backends (docs/api.md, "Threads"). 'auto' [default]: min(hardwareConcurrency, 4)
   * on a cross-origin isolated page, else 1. An integer from 1 to 64: that many, on any page. Workers that
   * cannot start fall back silently to one thread (Attention.threads, threadsReason). The multi-head
   * functions with ≥ 2 heads on the fused path, above the measured crossover, then run on them and return
   * a Promise; every other call runs on the calling thread. 'js' and 'webgpu' ignore it.
   */
  threads?: 'auto' | number;
  /** The .wasm bytes, when the caller has them (a single-file page); otherwise read in Node, fetched in browsers. */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Emscripten's locateFile: where the glue finds its .wasm file. */
  locateFile?: (path: string, prefix: string) => string;
  /**
   * Forces the GPU/WASM crossover of 'auto' (and webgpu's prefersGpu): calls doing at least thresholdN³
   * multiply-adds go to WebGPU; null: never the GPU. It wins over a stored or committed crossover, and no
   * probe runs (docs/api.md, "Choosing the backend").
   */
  gpuCrossover?: { thresholdN: number | null };
  /**
   * 'auto' [true]: on a real adapter with no stored crossover, the first call that could go to the GPU
   * schedules a probe (≤ 300 ms, in idle time) that measures it and stores it in browser storage; false:
   * never probe. SwiftShader and fallback adapters are never probed.
   */
  gpuProbe?: boolean;
  /**
   * The bytes every call may take, the copies of its inputs in the WASM module included: an integer from
   * 1 MiB (1048576) to 2 GiB (2147483648) [2 GiB, the WASM module's maximum]; anything else is an Error.
   * A call over it is refused with an Error (kind 'memory') before anything is allocated for it, so the
   * module's memory stays as it was. Set in the main thread's module and in every worker's.
   */
  memoryLimit?: number;
}

/** The memory of one WASM module (Attention.memory). */
export interface ModuleMemory {
  /** The module's memory now, in bytes (WebAssembly memory only grows, until compact()). */
  readonly bytes: number;
  /** The most this module held, in bytes, across compact(). */
  readonly peak: number;
}

/** Attention.memory: the calling thread's module, and each worker's where a pool runs. */
export interface AttentionMemory extends ModuleMemory {
  /** Each worker's module as of its last answer (every answer carries it); absent without workers. */
  readonly workers?: readonly ModuleMemory[];
}

/** Loads the attention core on the chosen backend. Unknown option names and backend names are Errors. */
export function loadAttention(options?: LoadOptions): Promise<Attention>;

/** The names of every API function, in curriculum order (the keys of Attention that are functions). */
export const FUNCTION_NAMES: readonly string[];

/** What the registry declares a function can do: for the page's capability checks. */
export interface Capability {
  /** The paths that can run it ('teaching' always; 'fused', 'workers', 'webgpu' where they exist). */
  paths: readonly ('teaching' | 'fused' | 'workers' | 'webgpu')[];
  /** How the webgpu backend runs it: its own GPU passes ('kernels') or the JS reference ('reference'). */
  gpu: 'kernels' | 'reference';
  /** The names of the options it takes (empty: it takes no options argument). */
  options: readonly string[];
}

/** Every API function's capabilities, from the registry (web/src/core/registry.js), by name. */
export const CAPABILITIES: Readonly<Record<string, Capability>>;

/** The number of elements of a shape. */
export function sizeOf(shape: readonly number[]): number;
/** "[2, 2, 3]", the way shapes appear in messages. */
export function formatShape(shape: readonly number[]): string;
/** { data, shape } with data used as given (not copied). */
export function makeTensor<D extends Float32Array | Int32Array>(data: D, shape: readonly number[]): { data: D; shape: number[] };

/** PyTorch's CPU generator (torch.manual_seed's mt19937), bit for bit: docs/api.md "PyTorch's random numbers". */
export class TorchGenerator {
  /** seed: a whole number in 0 … 2⁵³; its low 32 bits seed mt19937, as torch.manual_seed. */
  constructor(seed: number);
  /** torch.rand(count): float32 values in [0, 1). */
  rand(count: number): Float32Array;
  /** tensor.uniform_(from, to) on `count` values. */
  uniform(count: number, from: number, to: number): Float32Array;
  /** nn.Linear(inFeatures, outFeatures)'s default initialisation: weight (out, in), bias (out) or null. */
  linear(inFeatures: number, outFeatures: number, options?: { bias?: boolean }): { weight: { data: Float32Array; shape: number[] }; bias: { data: Float32Array; shape: number[] } | null };
}
/** torch.manual_seed(seed): a fresh TorchGenerator. */
export function manualSeed(seed: number): TorchGenerator;

/** The device cannot go on (no adapter or device, lost, out of memory, internal error): calls fall back to WASM. */
export class GpuUnavailableError extends Error {
  readonly name: 'GpuUnavailableError';
  readonly reason: 'no-navigator-gpu' | 'no-adapter' | 'adapter-request-failed' | 'device-request-failed' | 'limits-too-small' | 'device-lost' | 'out-of-memory' | 'internal-error';
}
/** A bug in the WebGPU kernels or their bindings (a validation error, an exception): the call rejects, nothing falls back. */
export class GpuKernelError extends Error {
  readonly name: 'GpuKernelError';
  /** The function whose kernels failed, e.g. 'matmul' or 'trainer.step'; the message starts with it. */
  readonly fn: string;
}
