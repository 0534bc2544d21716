// Internal: the attention math of (B, H, Tq, d) heads, written once for self, multi-head and cross attention
// (named apart from PyTorch's scaled_dot_product_attention, whose signature differs).
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// query (B, H, Tq, d_k), key (B, H, Tk, d_k), value (B, H, Tk, d_v) → per-head context (B, H, Tq, d_v).
// Fills result.scores, scaled, masked (when causal or a mask is given: masks.h), weights (B, H, Tq, Tk) and dropped (when dropout > 0),
// following options (scale by 1/√d_k, temperature, causal mask mode, dropout with the counter RNG over
// the flat index of the (B, H, Tq, Tk) weights). Arguments are assumed checked.
Tensor attention_per_head(const Tensor& query, const Tensor& key, const Tensor& value,
                          const AttentionOptions& options, AttentionResult& result);

// The multi-head tail shared by split, fused, stacked and cross attention:
// projected query (B, Tq, d_out), key and value (B, Tk, d_out) → split into options.heads heads,
// attention per head, heads merged into context (B, Tq, d_out), output = context·out_weight + out_bias
// (context itself without out_weight). Honours options.intermediates.
AttentionResult attend_heads(const Tensor& query, const Tensor& key, const Tensor& value, int heads,
                             const Tensor& out_weight, const Tensor& out_bias, const AttentionOptions& options);

}  // namespace ap
