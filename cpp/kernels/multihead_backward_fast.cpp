// The passes of multihead_backward_fast.h; every product is one GEMM call over all B·T rows.
#include "multihead_backward_fast.h"

#include <algorithm>
#include <cstddef>
#include <vector>

#include "attention_heads_backward.h"
#include "multihead_passes.h"

namespace ap::kernels {

namespace {

using Buffer = std::vector<float>;
using AttentionForward = void (*)(const AttentionHeads&);
using AttentionBackward = void (*)(const AttentionHeadsBackward&);

// a (rows, cols) with row stride `stride` → aᵀ (cols, rows), dense: GEMM multiplies A·B and A·Bᵀ only,
// and the weight gradients are Xᵀ·dY.
Buffer transposed(const float* a, int rows, int cols, int stride) {
  Buffer t(static_cast<std::size_t>(rows) * cols);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) t[static_cast<std::size_t>(j) * rows + i] = a[static_cast<std::size_t>(i) * stride + j];
  return t;
}

// Σ over rows of y (rows, cols) → sum (cols): the gradient of a bias added to every row.
void sum_rows(const float* y, int rows, int cols, float* sum) {
  std::fill_n(sum, cols, 0.0f);
  for (int i = 0; i < rows; ++i)
    for (int j = 0; j < cols; ++j) sum[j] += y[static_cast<std::size_t>(i) * cols + j];
}

// Y = X·W + b given dY (rows, d_out): dW = Xᵀ·dY into the gradient's strided weight, db = Σ_rows dY,
// and dX = dY·Wᵀ (rows, d_in) into grad_x, added to it when `accumulate`.
void project_backward(MatmulFunction gemm, const float* x, int rows, int d_in, const Projection& forward,
                      const float* grad_y, int d_out, const ProjectionGradient& gradient, float* grad_x, bool accumulate) {
  const Buffer x_t = transposed(x, rows, d_in, d_in);
  gemm(x_t.data(), grad_y, gradient.weight, {d_in, rows, d_out, rows, d_out, gradient.stride, false});
  if (gradient.bias != nullptr) sum_rows(grad_y, rows, d_out, gradient.bias);
  // dX = dY·Wᵀ: W (d_in, d_out) is GEMM's transposed B, (n, k) = (d_in, d_out)
  const MatmulShape shape{rows, d_out, d_in, d_out, forward.stride, d_in, true};
  if (!accumulate) {
    gemm(grad_y, forward.weight, grad_x, shape);
    return;
  }
  Buffer term(static_cast<std::size_t>(rows) * d_in);
  gemm(grad_y, forward.weight, term.data(), shape);
  for (std::size_t i = 0; i < term.size(); ++i) grad_x[i] += term[i];
}

void run_backward(const MultiheadBackwardProblem& g, MatmulFunction gemm, AttentionForward attention_forward,
                  AttentionBackward attention_backward) {
  const MultiheadProblem& p = g.forward;
  const int query_rows = p.batch * p.tq, context_rows = p.batch * p.tk, d = p.d_out;
  const std::size_t query_size = static_cast<std::size_t>(query_rows) * d;
  const std::size_t context_size = static_cast<std::size_t>(context_rows) * d;
  Buffer query(query_size), key(context_size), value(context_size), context(query_size);
  Buffer row_max(static_cast<std::size_t>(p.batch) * p.heads * p.tq), log_sum(row_max.size());

  // 1. projections: (B·T, d_in) → (B·T, d_out), the heads being column blocks of d_head
  project(gemm, p.x_query, query_rows, p.d_query_in, p.query, d, query.data());
  project(gemm, p.x_context, context_rows, p.d_context_in, p.key, d, key.data());
  project(gemm, p.x_context, context_rows, p.d_context_in, p.value, d, value.data());

  // 2. centre the values: V' = V − v̄, v̄ the mean of each column over the batch's keys. The weights sum to 1,
  //    so O = v̄ + P·V' and every gradient but the context's is unchanged; but dP_ij = dO_i·v_j then hold
  //    large numbers whose differences the backward takes: with values ≈ 50 (logits near 1e4), dP_ij − dP_i0
  //    cancels ~7 digits in float32 and costs ~4e-3 in the weights' gradients; centred, it cancels none.
  Buffer value_mean(static_cast<std::size_t>(p.batch) * d, 0.0f);
  for (int b = 0; b < p.batch; ++b) {
    float* mean = value_mean.data() + static_cast<std::size_t>(b) * d;
    for (int j = 0; j < p.tk; ++j)
      for (int c = 0; c < d; ++c) mean[c] += value[(static_cast<std::size_t>(b) * p.tk + j) * d + c];
    for (int c = 0; c < d; ++c) mean[c] /= static_cast<float>(p.tk);
    for (int j = 0; j < p.tk; ++j)
      for (int c = 0; c < d; ++c) value[(static_cast<std::size_t>(b) * p.tk + j) * d + c] -= mean[c];
  }

  // 3. the centred context O' = P·V' and each query row's lse (as its raw max and log Σ exp(c·(s − max)))
  AttentionHeads heads = packed_heads(p, query.data(), key.data(), value.data(), context.data());
  heads.row_max = row_max.data();
  heads.log_sum = log_sum.data();
  attention_forward(heads);

  // 4. output = context·Wo + bo: dContext = dOut·Woᵀ (and dbo = Σ_rows dOut)
  Buffer grad_context(query_size);
  if (p.out.weight != nullptr) {
    gemm(g.grad_output, p.out.weight, grad_context.data(), {query_rows, d, d, d, p.out.stride, d, true});
  } else {
    std::copy_n(g.grad_output, query_size, grad_context.begin());
  }
  if (p.out.bias != nullptr && g.out.bias != nullptr) sum_rows(g.grad_output, query_rows, d, g.out.bias);

  // 5. attention: dQ, dK, dV (B·T, d_out), P recomputed from the lse
  Buffer grad_query(query_size), grad_key(context_size), grad_value(context_size);
  attention_backward(packed_backward(heads, grad_context.data(), grad_query.data(), grad_key.data(), grad_value.data()));

  // 6. dWo = contextᵀ·dOut, with the context itself: O = O' + v̄
  if (p.out.weight != nullptr) {
    for (int i = 0; i < query_rows; ++i) {
      const float* mean = value_mean.data() + static_cast<std::size_t>(i / p.tq) * d;
      for (int c = 0; c < d; ++c) context[static_cast<std::size_t>(i) * d + c] += mean[c];
    }
    const Buffer context_t = transposed(context.data(), query_rows, d, d);
    gemm(context_t.data(), g.grad_output, g.out.weight, {d, query_rows, d, query_rows, d, g.out.stride, false});
  }

  // 7. the projections: weights and biases, then the inputs (one input feeding all three adds up)
  float* grad_x_context = g.shared_input ? g.grad_x_query : g.grad_x_context;
  project_backward(gemm, p.x_query, query_rows, p.d_query_in, p.query, grad_query.data(), d, g.query, g.grad_x_query,
                   false);
  project_backward(gemm, p.x_context, context_rows, p.d_context_in, p.key, grad_key.data(), d, g.key, grad_x_context,
                   g.shared_input);
  project_backward(gemm, p.x_context, context_rows, p.d_context_in, p.value, grad_value.data(), d, g.value,
                   grad_x_context, true);
}

}  // namespace

void multihead_attention_backward_fast(const MultiheadBackwardProblem& problem) {
  run_backward(problem, matmul, attention_heads_fused, attention_heads_backward_fused);
}

void multihead_attention_backward_reference(const MultiheadBackwardProblem& problem) {
  run_backward(problem, matmul_reference, attention_heads_reference, attention_heads_backward_reference);
}

}  // namespace ap::kernels
