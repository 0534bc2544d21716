// The backward of the fast multi-head pipeline (multihead_fast.h): the projections' gradients with the
// packed GEMM, attention's with the fused backward kernel (attention_heads_backward.h). O(T·d) scratch:
// Q, K, V, the context, their gradients and the per-row log-sum-exp, never the (T, T) weights.
//
//   1. Q, K, V = projections (GEMM), as the forward
//   2. V' = V − v̄ (each column's mean over the keys): the weights sum to 1, so O = v̄ + P·V' and the
//      gradients are unchanged, while the backward's differences dO_i·v'_j − dO_i·v'_0 no longer cancel digits
//   3. context O' = P·V' and lse per query row (attention_heads_fused, asked for its statistics)
//   4. output = O·Wo + bo:     dO = dOut·Woᵀ,  dbo = Σ_rows dOut
//   5. attention:              dQ, dK, dV (attention_heads_backward_fused)
//   6.                         dWo = Oᵀ·dOut, O = O' + v̄
//   7. Q = X_q·Wq + bq, …:     dWq = X_qᵀ·dQ,  dbq = Σ_rows dQ,  dX_q = dQ·Wqᵀ;  dX_c = dK·Wkᵀ + dV·Wvᵀ
#pragma once

#include "multihead_fast.h"

namespace ap::kernels {

// Where a projection's gradients go: weight (d_in, d_out) rows with stride `stride` (the forward
// projection's layout, so the three column blocks of one in-projection's gradient can be written in place),
// bias (d_out) or null (not computed: the forward had no bias).
struct ProjectionGradient {
  float* weight = nullptr;
  int stride = 0;
  float* bias = nullptr;
};

struct MultiheadBackwardProblem {
  MultiheadProblem forward;              // the forward's problem, as multihead_attention_fast takes it
  const float* grad_output = nullptr;    // (batch, tq, d_out)
  // x_query and x_context are one tensor (self-attention): grad_x_query gets the sum of both gradients
  // and grad_x_context is not used.
  bool shared_input = false;
  float* grad_x_query = nullptr;         // (batch, tq, d_query_in), overwritten
  float* grad_x_context = nullptr;       // (batch, tk, d_context_in), overwritten
  ProjectionGradient query, key, value;  // overwritten
  ProjectionGradient out;                // weight used when forward.out.weight is given; bias when forward.out.bias is
};

// Expects a validated problem (the core checks shapes once).
void multihead_attention_backward_fast(const MultiheadBackwardProblem& problem);

// The same pipeline with the reference GEMM and the reference attention, forward and backward: what the tests
// compare with.
void multihead_attention_backward_reference(const MultiheadBackwardProblem& problem);

}  // namespace ap::kernels
