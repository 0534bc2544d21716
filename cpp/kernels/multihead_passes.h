// The passes the forward (multihead_fast.cpp) and the backward (multihead_backward_fast.cpp) multi-head
// pipelines share: a projection with the given GEMM, and the heads of a problem whose Q, K, V and context are
// packed (B·T, d_out) matrices.
#pragma once

#include "attention_heads.h"
#include "gemm.h"
#include "multihead_fast.h"

namespace ap::kernels {

// y (rows, d_out) = x (rows, d_in)·W + bias, with the given GEMM.
void project(MatmulFunction gemm, const float* x, int rows, int d_in, const Projection& projection, int d_out, float* y);

// The problem's heads over packed query, key, value (read) and context (written): each a (B·T, d_out) matrix
// whose head h is column block h of d_head = d_out / heads; the sizes, scale and mask from the problem, the
// key padding and the lse outputs left unset.
AttentionHeads packed_heads(const MultiheadProblem& p, const float* query, const float* key, const float* value,
                            float* context);

}  // namespace ap::kernels
