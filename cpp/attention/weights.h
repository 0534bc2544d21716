// The learned parameters each attention function takes (docs/api.md, steps 6–11).
// Every field is a Tensor; an absent (empty-shape) bias or output projection means "none".
// Matrices are in the math layout (d_in, d_out), used as X·W, unless options.layout is 'linear'.
#pragma once

#include <vector>

#include "attention/tensor.h"

namespace ap {

// self_attention (out_* unused), multihead_attention_split, cross_attention; one head of the stacked form.
struct ProjectionWeights {
  Tensor query;       // (d_in, d_out); cross_attention: (d_q, d_out)
  Tensor key;         // (d_in, d_out); cross_attention: (d_kv, d_out)
  Tensor value;       // (d_in, d_out); cross_attention: (d_kv, d_out)
  Tensor query_bias;  // (d_out), optional
  Tensor key_bias;    // (d_out), optional
  Tensor value_bias;  // (d_out), optional
  Tensor out_weight;  // (d_out, d_out), optional (multi-head and cross only)
  Tensor out_bias;    // (d_out), optional (multi-head and cross only)
};

// multihead_attention_stacked: H independent heads, each (d_in, d_head), then concatenated.
struct StackedWeights {
  std::vector<ProjectionWeights> heads;  // query/key/value (d_in, d_head) and their biases; out_* unused
  Tensor out_weight;                     // (d_out, d_out), d_out = H·d_head, optional
  Tensor out_bias;                       // (d_out), optional
};

// multihead_attention_fused: torch.nn.MultiheadAttention's in_proj_weight, transposed.
struct FusedWeights {
  Tensor in_projection;  // (d_in, 3·d_out) = [Wq | Wk | Wv]
  Tensor in_bias;        // (3·d_out), optional
  Tensor out_weight;     // (d_out, d_out), optional
  Tensor out_bias;       // (d_out), optional
};

}  // namespace ap
