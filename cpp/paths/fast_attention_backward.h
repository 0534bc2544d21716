// The multi-head and cross backward's fast entry points, as fast_attention.h's for the forward: where the
// forward would run the fused kernel (fused_kernel_applies: intermediates false, no dropout, a causal mask
// 'neg_inf'), they run the fused backward pipeline of cpp/kernels (multihead_backward_fast.h: the
// projections' gradients by GEMM, the attention's recomputed from each row's log-sum-exp, O(T·d) memory);
// otherwise the teaching backward (attention_backward.h), never the reverse.
#pragma once

#include "attention/attention_backward.h"
#include "attention/options.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// On checked arguments (check_*_backward): the fused backward when fused_kernel_applies(options), else the
// teaching unchecked::*_backward.
StackedGradients multihead_attention_stacked_backward_fast(const Tensor& x, const StackedWeights& weights,
                                                           const Tensor& grad_output, const AttentionOptions& options);
ProjectionGradients multihead_attention_split_backward_fast(const Tensor& x, const ProjectionWeights& weights,
                                                            const Tensor& grad_output, const AttentionOptions& options);
FusedGradients multihead_attention_fused_backward_fast(const Tensor& x, const FusedWeights& weights,
                                                       const Tensor& grad_output, const AttentionOptions& options);
CrossAttentionGradients cross_attention_backward_fast(const Tensor& x_query, const Tensor& x_context,
                                                      const ProjectionWeights& weights, const Tensor& grad_output,
                                                      const AttentionOptions& options);

// The fused backward itself, on checked arguments. x_query (B, Tq, d_q), x_context (B, Tk, d_kv): split (the same tensor twice, gradients
// summed into x) and cross attention; grad_output (B, Tq, d_out).
ProjectionGradients fused_kernel_backward_split(const Tensor& x, const ProjectionWeights& weights,
                                                const Tensor& grad_output, const AttentionOptions& options);
CrossAttentionGradients fused_kernel_backward_cross(const Tensor& x_query, const Tensor& x_context,
                                                    const ProjectionWeights& weights, const Tensor& grad_output,
                                                    const AttentionOptions& options);
// in_projection (d_in, 3·d_out) read in place; its gradient written in place, block by block.
FusedGradients fused_kernel_backward_fused(const Tensor& x, const FusedWeights& weights, const Tensor& grad_output,
                                           const AttentionOptions& options);
// The heads' weights joined side by side into split's layout, their gradients cut apart again.
StackedGradients fused_kernel_backward_stacked(const Tensor& x, const StackedWeights& weights,
                                               const Tensor& grad_output, const AttentionOptions& options);

}  // namespace ap
