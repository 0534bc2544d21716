// The multi-head functions' fast entry points. The teaching functions (multihead.h, cross_attention.h) are
// pure math; these run the fused attention kernel (cpp/kernels: packed-GEMM projections, online softmax,
// key tiles above the diagonal skipped) where the call was planned onto it and the teaching code otherwise,
// never the reverse. The rule that decides (the JS planner's fusedKernelApplies is the same rule) lives in
// attention/fused_rule.h, which the checks read too.
#pragma once

#include <cstddef>
#include <string>

#include "attention/attention.h"
#include "attention/fused_rule.h"
#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// plans_fused_kernel, asserting check_planned_path: the fast entry points below run what it says.
bool runs_fused_kernel(const AttentionOptions& options);

// The fused pipeline on checked arguments → {output (B, Tq, d_out)}, every other field absent.
// x_query (B, Tq, d_q), x_context (B, Tk, d_kv) (the same tensor for self-attention); weights as split/cross.
AttentionResult fused_kernel_attention(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                       const AttentionOptions& options);
// x (B, T, d_in); in_projection (d_in, 3·d_out) = [Wq | Wk | Wv], read in place.
AttentionResult fused_kernel_attention(const Tensor& x, const FusedWeights& weights, const AttentionOptions& options);
// x (B, T, d_in); H heads of (d_in, d_head), joined side by side into split's layout; H from the weights.
AttentionResult fused_kernel_attention(const Tensor& x, const StackedWeights& weights, const AttentionOptions& options);

// On checked arguments: the fused kernel when runs_fused_kernel(options), else the teaching code
// (unchecked::multihead_attention_*, unchecked::cross_attention), which honours options.intermediates.
AttentionResult multihead_attention_stacked_fast(const Tensor& x, const StackedWeights& weights, const AttentionOptions& options);
AttentionResult multihead_attention_split_fast(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options);
AttentionResult multihead_attention_fused_fast(const Tensor& x, const FusedWeights& weights, const AttentionOptions& options);
AttentionResult cross_attention_fast(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                     const AttentionOptions& options);

// On checked arguments: query (…, L, E), key (…, S, E), value (…, S, E) through the fused kernel, the leading
// axes as batch×heads (one head of width E each) → output alone, when sdpa_plans_fused; else the teaching
// code (unchecked::scaled_dot_product_attention), which honours options.intermediates.
SdpaResult scaled_dot_product_attention_fast(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const SdpaOptions& options);

}  // namespace ap
