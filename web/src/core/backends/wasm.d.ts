// Types of the WASM backend (web/src/core/backends/wasm.js). Tensors, options, weights and results are
// the API's (../index.d.ts); the backend takes only batched (rank-3) inputs, as the C++ core does.

import type {
  AttentionWithoutWeightsResult, AverageResult, Comparison, CompareOptions, DropoutOptions, FusedWeights, IntTensor,
  MatmulOptions, MultiheadOptions, MultiheadResult, Normalization, ProjectionWeights, SelfAttentionOptions,
  ModuleMemory, SelfAttentionResult, SoftmaxOptions, SplitWeights, StackedWeights, Tensor,
} from '../index.d.ts';

export interface HeapStats {
  /** Current size of the WASM memory in bytes (it only grows). */
  heapBytes: number;
  /** Bytes malloc has handed out and not freed. */
  bytesInUse: number;
  /** What one call may still allocate: the limit minus static data, stack and live allocations, less a margin. */
  bytesAvailable: number;
  /** The limit calls are checked against: 2 GiB, or the lower memoryLimit the backend was loaded with. */
  heapLimitBytes: number;
}

/**
 * The backend. Every method called directly validates its arguments and throws an Error whose message names
 * the function, the argument, its value and what was expected; the module keeps working after it. A call the
 * API makes (inside api-checked.js whileApiChecked) has been checked there and is not checked again.
 * Every returned typed array is a fresh copy the caller owns.
 */
export interface WasmBackend {
  name: 'wasm-simd' | 'wasm-baseline';
  build: 'simd' | 'baseline';
  heapStats(): HeapStats;
  /** {bytes: the module's memory now, peak: the most any instance of this backend held, across compact()}. */
  readonly memory: ModuleMemory;
  /** Bytes a call may still copy in and allocate (heapStats().bytesAvailable): the API's memory check reads it. */
  memoryRoom(): number;
  /** Replaces the module by a new instance (its grown memory given back); resolves when calls use the new one. */
  compact(): Promise<void>;
  /** Which vector vocabulary the kernels were built with and the numbered GEMM variants (for the benchmark). */
  fastPathInfo(): { vocabulary: 'wasm_simd128' | 'scalar'; variants: Array<{ number: number; name: string }>; defaultVariant: number };
  nextTokenPairs(tokens: IntTensor): { contexts: IntTensor; targets: IntTensor };
  causalAverageLoop(x: Tensor): AverageResult;
  causalAverageMatmul(x: Tensor): AverageResult;
  causalAverageSoftmax(x: Tensor): AverageResult;
  softmax(x: Tensor, options?: SoftmaxOptions): { output: Tensor };
  attentionWithoutWeights(x: Tensor, options?: { normalization?: Normalization }): AttentionWithoutWeightsResult;
  selfAttention(x: Tensor, weights: ProjectionWeights, options?: SelfAttentionOptions): SelfAttentionResult;
  attentionDropout(weights: Tensor, options?: DropoutOptions): { mask: Tensor; output: Tensor };
  compare(actual: Tensor, expected: Tensor, options?: CompareOptions): Comparison;
  multiheadAttentionStacked(x: Tensor, weights: StackedWeights, options?: MultiheadOptions): MultiheadResult;
  multiheadAttentionSplit(x: Tensor, weights: SplitWeights, options?: MultiheadOptions): MultiheadResult;
  multiheadAttentionFused(x: Tensor, weights: FusedWeights, options?: MultiheadOptions): MultiheadResult;
  crossAttention(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, options?: MultiheadOptions): MultiheadResult;
  /** The fast path: a (M, K) or (B, M, K); b (K, N), or (N, K) with transposeB → output (…, M, N). */
  matmul(a: Tensor, b: Tensor, options?: MatmulOptions): { output: Tensor };
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
  /** The bytes every call is checked against, inputs' copies included (1 MiB to 2 GiB) [2 GiB]. */
  memoryLimit?: number;
}

/** Loads one WASM build; throws an Error naming the file and the reason when it cannot. */
export function loadWasmBackend(options?: LoadWasmOptions): Promise<WasmBackend>;
