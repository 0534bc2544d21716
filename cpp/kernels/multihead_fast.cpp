// The fast multi-head pipeline: 1. Q = x_q·Wq + bq, K = x_c·Wk + bk, V = x_c·Wv + bv
// 2. context = attention per head (fused)   3. output = context·Wo + bo.
#include "multihead_fast.h"

#include <vector>

#include "attention_heads.h"
#include "gemm.h"

namespace ap::kernels {

namespace {

// y (rows, d_out) = x (rows, d_in)·W + bias, with the given GEMM.
void project(MatmulFunction gemm, const float* x, int rows, int d_in, const Projection& projection, int d_out, float* y) {
  MatmulShape shape{rows, d_in, d_out, d_in, projection.stride, d_out, false};
  gemm(x, projection.weight, y, shape);
  if (projection.bias == nullptr) return;
  for (int i = 0; i < rows; ++i) {
    float* row = y + static_cast<size_t>(i) * d_out;
    for (int j = 0; j < d_out; ++j) row[j] += projection.bias[j];
  }
}

void run_pipeline(const MultiheadProblem& p, float* output, MatmulFunction gemm, void (*attention)(const AttentionHeads&)) {
  const int query_rows = p.batch * p.tq;
  const int context_rows = p.batch * p.tk;
  // 1. projections: (B·T, d_in) → (B·T, d_out); the heads are column blocks of d_head.
  std::vector<float> query(static_cast<size_t>(query_rows) * p.d_out);
  std::vector<float> key(static_cast<size_t>(context_rows) * p.d_out);
  std::vector<float> value(static_cast<size_t>(context_rows) * p.d_out);
  project(gemm, p.x_query, query_rows, p.d_query_in, p.query, p.d_out, query.data());
  project(gemm, p.x_context, context_rows, p.d_context_in, p.key, p.d_out, key.data());
  project(gemm, p.x_context, context_rows, p.d_context_in, p.value, p.d_out, value.data());

  // 2. attention per head, written straight into the concatenated context (B·Tq, d_out).
  std::vector<float> context;
  float* context_out = output;
  if (p.out.weight != nullptr) {
    context.resize(static_cast<size_t>(query_rows) * p.d_out);
    context_out = context.data();
  }
  AttentionHeads heads;
  heads.query = query.data();
  heads.query_stride = p.d_out;
  heads.key = key.data();
  heads.key_stride = p.d_out;
  heads.value = value.data();
  heads.value_stride = p.d_out;
  heads.context = context_out;
  heads.context_stride = p.d_out;
  heads.batch = p.batch;
  heads.tq = p.tq;
  heads.tk = p.tk;
  heads.heads = p.heads;
  heads.d_head = p.d_out / p.heads;
  heads.score_scale = p.score_scale;
  heads.causal = p.causal;
  attention(heads);

  // 3. output projection; without one the output is the context (plus out.bias, if given alone).
  if (p.out.weight != nullptr) {
    project(gemm, context.data(), query_rows, p.d_out, p.out, p.d_out, output);
  } else if (p.out.bias != nullptr) {
    for (int i = 0; i < query_rows; ++i) {
      for (int j = 0; j < p.d_out; ++j) output[static_cast<size_t>(i) * p.d_out + j] += p.out.bias[j];
    }
  }
}

}  // namespace

void multihead_attention_fast(const MultiheadProblem& problem, float* output) {
  run_pipeline(problem, output, matmul, attention_heads_fused);
}

void multihead_attention_reference(const MultiheadProblem& problem, float* output) {
  run_pipeline(problem, output, matmul_reference, attention_heads_reference);
}

}  // namespace ap::kernels
