// Step 10. Multi-head attention, three ways that agree when their weights correspond.
// All take x: (B, T, d_in) and return query (B, H, T, d_head), key, value (B, H, T, d_head);
// scores, scaled, masked (when causal), weights, dropped (when dropout > 0) (B, H, T, T);
// context (B, T, d_out), the heads concatenated; output (B, T, d_out) = context·out_weight + out_bias
// (equal to context without out_weight). d_out = H·d_head; scores are scaled by 1/√d_head.
// With options.intermediates false only output is returned. These are the teaching code, pure math; the
// fast entry points that run the fused kernel and fall back to them are in cpp/paths/fast_attention.h.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// 10a. H independent heads, weights.heads[h].query/key/value (d_in, d_head), concatenated.
// H comes from weights.heads.size(); options.heads is ignored. Head h's columns of the concatenation
// are split's column block h.
AttentionResult multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                            const AttentionOptions& options = {});

// 10b. One projection per Q, K, V of (d_in, d_out), split into options.heads heads of d_head columns.
AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                          const AttentionOptions& options = {});

// 10c. One fused in_projection (d_in, 3·d_out) = [Wq | Wk | Wv], as torch.nn.MultiheadAttention
// (its in_proj_weight transposed); otherwise as split.
AttentionResult multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                          const AttentionOptions& options = {});

namespace unchecked {
// The same three on arguments that passed their check_* (checks.h): what the functions above, the fast entry
// points (cpp/paths) and the bindings run once a call is checked.
AttentionResult multihead_attention_stacked(const Tensor& x, const StackedWeights& weights,
                                            const AttentionOptions& options);
AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                          const AttentionOptions& options);
AttentionResult multihead_attention_fused(const Tensor& x, const FusedWeights& weights,
                                          const AttentionOptions& options);
}  // namespace unchecked

}  // namespace ap
