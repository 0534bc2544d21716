// The multi-head functions' fast entry points. The teaching functions (multihead.h, cross_attention.h) are
// pure math; these run the fused attention kernel (cpp/kernels: packed-GEMM projections, online softmax,
// key tiles above the diagonal skipped) where the options allow it and fall back to the teaching code
// otherwise, never the reverse. The rule (the JS planner's fusedKernelApplies, web/src/core/planner.js, is
// the same rule) and the kernel's memory estimate live here, once, for every weight layout.
#pragma once

#include <cstddef>
#include <string>

#include "attention/attention.h"
#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// The fused kernel computes softmax(scaled) with −∞ above the diagonal, the contract's default; it runs
// when only the output is wanted, there is no dropout (it needs the weights), and a causal mask is
// 'neg_inf' (the other modes are lessons in what goes wrong), and no attn_mask or x_value is given (the kernel
// takes neither; it skips the keys key_padding_mask marks). Otherwise the teaching code runs.
bool fused_kernel_applies(const AttentionOptions& options);

// Whether a call runs the fused kernel: the planned path (options.path) where one is given, else the rule.
bool plans_fused_kernel(const AttentionOptions& options);
// "" unless the call is planned onto the fused kernel (options.path Fused) and the kernel's rule refuses it, or
// the function has no fused path (may_fuse false): the planner and the rule disagree, which is a bug said loudly.
std::string check_planned_path(const std::string& function, const AttentionOptions& options, bool may_fuse = true);
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
// (multihead_attention_*_unchecked, cross_attention_unchecked), which honours options.intermediates.
AttentionResult multihead_attention_stacked_fast(const Tensor& x, const StackedWeights& weights, const AttentionOptions& options);
AttentionResult multihead_attention_split_fast(const Tensor& x, const ProjectionWeights& weights, const AttentionOptions& options);
AttentionResult multihead_attention_fused_fast(const Tensor& x, const FusedWeights& weights, const AttentionOptions& options);
AttentionResult cross_attention_fast(const Tensor& x_query, const Tensor& x_context, const ProjectionWeights& weights,
                                     const AttentionOptions& options);

// scaledDotProductAttention's fused route (the JS planner's sdpaFusedApplies with the kernel's two limits):
// only the output wanted, dropout_p 0, no attn_mask (is_causal is the kernel's top-left mask), Ev == E (the
// kernel's values are as wide as its keys) and a scale > 0 (its online softmax keeps the raw row max).
bool sdpa_fused_applies(int E, int Ev, const SdpaOptions& options);
// Its planned path (options.path) where one is given, else sdpa_fused_applies; planned onto the kernel where
// sdpa_fused_applies refuses, check_scaled_dot_product_attention says so and the fast entry point throws.
bool sdpa_plans_fused(int E, int Ev, const SdpaOptions& options);

// On checked arguments: query (…, L, E), key (…, S, E), value (…, S, E) through the fused kernel, the leading
// axes as batch×heads (one head of width E each) → output alone, when sdpa_plans_fused; else the teaching
// code (scaled_dot_product_attention), which honours options.intermediates.
SdpaResult scaled_dot_product_attention_fast(const Tensor& query, const Tensor& key, const Tensor& value,
                                             const SdpaOptions& options);

}  // namespace ap
