// Types of the WASM backend (web/src/core/backends/wasm.js). The shapes of every argument and result
// are those of docs/api.md; the backend takes only batched (rank-3) inputs, as the C++ core does.

/** A row-major float32 tensor. */
export interface Tensor {
  data: Float32Array;
  shape: number[];
}

/** Token ids for step 1. */
export interface IntTensor {
  data: Int32Array;
  shape: number[];
}

export type Normalization = 'stable' | 'naive' | 'sum';
export type MaskMode = 'neg_inf' | 'renormalize' | 'zero';
export type WeightLayout = 'matrix' | 'linear';

/**
 * Options of selfAttention, the multi-head functions and crossAttention; missing ones take the defaults.
 * With `intermediates: false` the multi-head functions and crossAttention run the fast path and return
 * only {output}.
 */
export interface AttentionOptions {
  /** Multiply scores by 1/√d_k. Default true. */
  scale?: boolean;
  /** Finite and > 0. Default 1. */
  temperature?: number;
  /** Default false. */
  causal?: boolean;
  /** How the causal mask is applied. Default 'neg_inf'. */
  mask?: MaskMode;
  /** In [0, 1). Default 0. */
  dropout?: number;
  /** An integer in [0, 2³²). Default 0. */
  seed?: number;
  /** selfAttention only. Default 'matrix'. */
  layout?: WeightLayout;
  /** Split, fused and cross only. Default 1. */
  heads?: number;
  /** false: return only output (and context for multi-head). Default true. */
  intermediates?: boolean;
}

export interface SoftmaxOptions {
  normalization?: Normalization;
  /** softmax of scale·x. Default 1. */
  scale?: number;
}

export interface DropoutOptions {
  dropout?: number;
  seed?: number;
}

export interface CompareOptions {
  atol?: number;
  rtol?: number;
}

export interface ProjectionWeights {
  query: Tensor;
  key: Tensor;
  value: Tensor;
  queryBias?: Tensor;
  keyBias?: Tensor;
  valueBias?: Tensor;
  /** Multi-head and cross only. */
  outWeight?: Tensor;
  outBias?: Tensor;
}

export interface StackedWeights {
  heads: Array<Pick<ProjectionWeights, 'query' | 'key' | 'value' | 'queryBias' | 'keyBias' | 'valueBias'>>;
  outWeight?: Tensor;
  outBias?: Tensor;
}

export interface FusedWeights {
  /** (d_in, 3·d_out) = [Wq | Wk | Wv]. */
  inProjection: Tensor;
  inBias?: Tensor;
  outWeight?: Tensor;
  outBias?: Tensor;
}

/** Steps 2–5 (causal averages, attention without weights); only the present results are keys. */
export interface AverageResult {
  scores?: Tensor;
  masked?: Tensor;
  weights?: Tensor;
  output: Tensor;
}

/** Steps 6–11; a result the call does not produce is absent. */
export interface AttentionResult {
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

export interface Comparison {
  maxAbsError: number;
  maxRelError: number;
  allclose: boolean;
  /** Flat index of the first element outside tolerance, or −1. */
  firstMismatch: number;
}

export interface HeapStats {
  /** Current size of the WASM memory in bytes (it only grows). */
  heapBytes: number;
  /** Bytes malloc has handed out and not freed. */
  bytesInUse: number;
  /** What one call may still allocate: the limit minus static data, stack and live allocations, less a margin. */
  bytesAvailable: number;
  /** The hard limit, 2 GiB. */
  heapLimitBytes: number;
}

/**
 * The backend. Every method validates its arguments and throws an Error whose message names the
 * function, the argument, its value and what was expected; the module keeps working after it.
 * Every returned typed array is a fresh copy the caller owns.
 */
export interface WasmBackend {
  name: 'wasm-simd' | 'wasm-baseline';
  build: 'simd' | 'baseline';
  heapStats(): HeapStats;
  /** Which vector vocabulary the kernels were built with and the numbered GEMM variants (for the benchmark). */
  fastPathInfo(): { vocabulary: 'wasm_simd128' | 'scalar'; variants: Array<{ number: number; name: string }>; defaultVariant: number };
  nextTokenPairs(tokens: IntTensor): { contexts: IntTensor; targets: IntTensor };
  causalAverageLoop(x: Tensor): AverageResult;
  causalAverageMatmul(x: Tensor): AverageResult;
  causalAverageSoftmax(x: Tensor): AverageResult;
  softmax(x: Tensor, options?: SoftmaxOptions): { output: Tensor };
  attentionWithoutWeights(x: Tensor, options?: { normalization?: Normalization }): AverageResult;
  selfAttention(x: Tensor, weights: ProjectionWeights, options?: AttentionOptions): AttentionResult;
  attentionDropout(weights: Tensor, options?: DropoutOptions): { mask: Tensor; output: Tensor };
  compare(actual: Tensor, expected: Tensor, options?: CompareOptions): Comparison;
  multiheadAttentionStacked(x: Tensor, weights: StackedWeights, options?: AttentionOptions): AttentionResult;
  multiheadAttentionSplit(x: Tensor, weights: ProjectionWeights, options?: AttentionOptions): AttentionResult;
  multiheadAttentionFused(x: Tensor, weights: FusedWeights, options?: AttentionOptions): AttentionResult;
  crossAttention(xQuery: Tensor, xContext: Tensor, weights: ProjectionWeights, options?: AttentionOptions): AttentionResult;
  /** The fast path: a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB → output (…, M, N). */
  matmul(a: Tensor, b: Tensor, options?: { transposeB?: boolean }): { output: Tensor };
  /** matmul with a chosen GEMM variant (1 is the reference). */
  matmulVariant(a: Tensor, b: Tensor, options?: { transposeB?: boolean; variant?: number }): { output: Tensor };
}

export interface LoadWasmOptions {
  /** 'auto' (default): 'simd' when this engine validates WebAssembly SIMD, else 'baseline'. */
  build?: 'auto' | 'simd' | 'baseline';
  /** The .wasm bytes, when the caller has them already (otherwise read in Node, fetched in browsers). */
  wasmBinary?: ArrayBuffer | Uint8Array;
  /** Where the glue finds its .wasm file (Emscripten's locateFile). */
  locateFile?: (path: string, prefix: string) => string;
}

/** Loads one WASM build; throws an Error naming the file and the reason when it cannot. */
export function loadWasmBackend(options?: LoadWasmOptions): Promise<WasmBackend>;
