// Types of the backward functions (docs/api.md "Training" → "Backward functions"). Each takes the forward's
// arguments, then gradOutput (dLoss/d output, the forward output's shape), then the forward's options, and
// returns the gradient of every tensor input, named after it; an absent optional weight has no gradient.
import type {
  AttentionOptions, FusedWeights, MultiheadOptions, ProjectionWeights, SelfAttentionOptions, SplitWeights,
  StackedWeights, Tensor,
} from '../../index.js';

/**
 * Gradients of the query/key/value projections and their biases: the keys of the weights, each gradient
 * the shape of its weight (a bias's present when the bias was).
 */
export interface ProjectionGradients extends ProjectionWeights {}

/** Gradients of the output projection (present when outWeight / outBias were given). */
export interface OutProjectionGradients {
  outWeight?: Tensor;
  outBias?: Tensor;
}

/** selfAttentionBackward: dx (B, T, d_in) and the projections' gradients in options.layout. */
export interface SelfAttentionGradients extends ProjectionGradients {
  x: Tensor;
}
export interface SplitGradients extends ProjectionGradients, OutProjectionGradients {
  x: Tensor;
}
export interface StackedGradients extends OutProjectionGradients {
  x: Tensor;
  heads: Array<ProjectionGradients>;
}
export interface FusedGradients extends OutProjectionGradients {
  x: Tensor;
  inProjection: Tensor;
  inBias?: Tensor;
}
export interface CrossAttentionGradients extends ProjectionGradients, OutProjectionGradients {
  xQuery: Tensor;
  xContext: Tensor;
}
/** scaledDotProductAttentionBackward: (B, H, T, d_head) each. */
export interface ScaledDotProductGradients {
  query: Tensor;
  key: Tensor;
  value: Tensor;
}

/** x (B, T, d_in), gradOutput (B, T, d_out). */
export function selfAttentionBackward(x: Tensor, weights: ProjectionWeights, gradOutput: Tensor, options?: SelfAttentionOptions): SelfAttentionGradients;
/** gradOutput (B, T, d_out). */
export function multiheadAttentionSplitBackward(x: Tensor, weights: SplitWeights, gradOutput: Tensor, options?: MultiheadOptions): SplitGradients;
export function multiheadAttentionStackedBackward(x: Tensor, weights: StackedWeights, gradOutput: Tensor, options?: MultiheadOptions): StackedGradients;
export function multiheadAttentionFusedBackward(x: Tensor, weights: FusedWeights, gradOutput: Tensor, options?: MultiheadOptions): FusedGradients;
/** xQuery (B, Tq, d_q), xContext (B, Tk, d_kv), gradOutput (B, Tq, d_out). */
export function crossAttentionBackward(xQuery: Tensor, xContext: Tensor, weights: SplitWeights, gradOutput: Tensor, options?: MultiheadOptions): CrossAttentionGradients;
/** query (B, H, Tq, d_head), key and value (B, H, Tk, d_head), gradOutput (B, H, Tq, d_head). */
export function scaledDotProductAttentionBackward(query: Tensor, key: Tensor, value: Tensor, gradOutput: Tensor, options?: AttentionOptions): ScaledDotProductGradients;
