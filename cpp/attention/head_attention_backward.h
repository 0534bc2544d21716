// Internal: the backward of head_attention.h (attend_heads), written once for self, multi-head and cross attention.
#pragma once

#include "attention/options.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap {

// The gradients of attention's three inputs, in their shapes.
struct QueryKeyValueGradients {
  Tensor query;  // (B, H, Tq, d_k), or (B, Tq, d_out) from attend_heads_backward
  Tensor key;    // (B, H, Tk, d_k), or (B, Tk, d_out)
  Tensor value;  // (B, H, Tk, d_v), or (B, Tk, d_out)
};

// query (B, H, Tq, d_k), key (B, H, Tk, d_k), value (B, H, Tk, d_v); forward: the result that
// attention_per_head filled for them with these options (scaled, masked, weights, dropped);
// grad_context (B, H, Tq, d_v) → dQ, dK, dV. The passes of the forward, walked backwards.
QueryKeyValueGradients attention_per_head_backward(const Tensor& query, const Tensor& key, const Tensor& value,
                                                   const AttentionResult& forward, const Tensor& grad_context,
                                                   const AttentionOptions& options);

// The gradients of attend_heads' inputs: query (B, Tq, d_out), key and value (B, Tk, d_out), out_weight and
// out_bias (absent when the forward had none).
struct HeadsGradients {
  QueryKeyValueGradients projected;
  Tensor out_weight;
  Tensor out_bias;
};

// attend_heads' arguments and grad_output (B, Tq, d_out) → HeadsGradients. Recomputes attend_heads' forward
// with every intermediate, then runs its four passes backwards.
HeadsGradients attend_heads_backward(const Tensor& query, const Tensor& key, const Tensor& value, int heads,
                                     const Tensor& out_weight, const Tensor& out_bias, const Tensor& grad_output,
                                     const AttentionOptions& options);

}  // namespace ap
