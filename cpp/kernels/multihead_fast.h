// Multi-head attention on the fast path: projections with the packed GEMM, the fused attention kernel
// per head, the optional output projection. Only the output is produced (no intermediates), and the
// scratch is O(T·d): Q, K, V and the context, never the (T, T) weights.
//
//   x_query:   (batch, tq, d_query_in)          x_context: (batch, tk, d_context_in) (x_query for self-attention)
//   query_weight (d_query_in, d_out), key_weight / value_weight (d_context_in, d_out), math layout x·W,
//     each with its own row stride (so the three column blocks of one (d_in, 3·d_out) in-projection
//     can be passed without copying); biases (d_out) or null
//   out_weight (d_out, d_out) and out_bias (d_out), or null: then output = context (+ out_bias if given)
//   output:    (batch, tq, d_out)
#pragma once

namespace ap::kernels {

struct Projection {
  const float* weight = nullptr;  // (d_in, d_out) rows with stride `stride`
  int stride = 0;
  const float* bias = nullptr;    // (d_out) or null
};

struct MultiheadProblem {
  const float* x_query = nullptr;
  const float* x_context = nullptr;
  int batch = 0, tq = 0, tk = 0, d_query_in = 0, d_context_in = 0, d_out = 0, heads = 0;
  Projection query, key, value;
  Projection out;                  // out.weight null: no output projection (out.bias is still added)
  float score_scale = 1.0f;        // 1/√d_head/temperature, or 1/temperature when unscaled
  bool causal = true;
  const float* key_padding = nullptr;  // (batch, tk), nonzero = padding (attention_heads.h); null: none
};

// output: (batch, tq, d_out), overwritten. Expects a validated problem (the binding checks shapes).
void multihead_attention_fast(const MultiheadProblem& problem, float* output);

// The same pipeline with the reference GEMM and the reference attention: what the tests compare with.
void multihead_attention_reference(const MultiheadProblem& problem, float* output);

}  // namespace ap::kernels
