// Step 11. Cross-attention: queries from one sequence, keys and values from another.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"
#include "attention/weights.h"

namespace ap {

// x_query: (B, Tq, d_q), x_context: (B, Tk, d_kv); weights.query (d_q, d_out), key/value (d_kv, d_out),
// optional biases, out_weight (d_out, d_out), out_bias; options.heads H (default 1) →
// multi-head results with Tq rows and Tk columns: query (B, H, Tq, d_head), key/value (B, H, Tk, d_head),
// scores… (B, H, Tq, Tk), context and output (B, Tq, d_out). Causal rows are top-left aligned (j ≤ i).
// options.x_value (B, Tk, d_xv): the values' own input, with weights.value (d_xv, d_out); options.attn_mask and
// key_padding_mask as masks.h. options.intermediates false: only output. Teaching code; cross_attention_fast (cpp/paths/fast_attention.h) runs the fused kernel.
AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context,
                                const ProjectionWeights& weights, const AttentionOptions& options = {});

namespace unchecked {
// The same on arguments that passed check_cross_attention (checks.h): what the function above, its fast entry
// point (cpp/paths) and the bindings run once a call is checked.
AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context,
                                const ProjectionWeights& weights, const AttentionOptions& options);
}  // namespace unchecked

}  // namespace ap
