// The fast multi-head pipeline: 1. Q = x_q·Wq + bq, K = x_c·Wk + bk, V = x_c·Wv + bv
// 2. context = attention per head (fused)   3. output = context·Wo + bo.
#include "multihead_fast.h"

#include <cstddef>
#include <memory>

#include "multihead_passes.h"

namespace ap::kernels {

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

AttentionHeads packed_heads(const MultiheadProblem& p, const float* query, const float* key, const float* value,
                            float* context) {
  AttentionHeads heads;
  heads.query = query;
  heads.query_stride = p.d_out;
  heads.key = key;
  heads.key_stride = p.d_out;
  heads.value = value;
  heads.value_stride = p.d_out;
  heads.context = context;
  heads.context_stride = p.d_out;
  heads.batch = p.batch;
  heads.tq = p.tq;
  heads.tk = p.tk;
  heads.heads = p.heads;
  heads.d_head = p.d_out / p.heads;
  heads.score_scale = p.score_scale;
  heads.causal = p.causal;
  return heads;
}

namespace {

void run_pipeline(const MultiheadProblem& p, float* output, MatmulFunction gemm, void (*attention)(const AttentionHeads&)) {
  const int query_rows = p.batch * p.tq;
  const int context_rows = p.batch * p.tk;
  // One uninitialised block (new float[n], not zero-filled vectors) for Q, K, V and, before an output
  // projection, the context: every element is written before it is read, so zero-filling them would be
  // a pass over megabytes for nothing.
  const size_t query_size = static_cast<size_t>(query_rows) * p.d_out;
  const size_t context_size = static_cast<size_t>(context_rows) * p.d_out;
  const bool out_projection = p.out.weight != nullptr;
  std::unique_ptr<float[]> scratch(new float[(out_projection ? 2 : 1) * query_size + 2 * context_size]);
  float* const query = scratch.get();
  float* const key = query + query_size;
  float* const value = key + context_size;
  float* const context = out_projection ? value + context_size : output;  // (B·Tq, d_out)

  // 1. projections: (B·T, d_in) → (B·T, d_out); the heads are column blocks of d_head.
  project(gemm, p.x_query, query_rows, p.d_query_in, p.query, p.d_out, query);
  project(gemm, p.x_context, context_rows, p.d_context_in, p.key, p.d_out, key);
  project(gemm, p.x_context, context_rows, p.d_context_in, p.value, p.d_out, value);

  // 2. attention per head, written straight into the concatenated context (B·Tq, d_out).
  AttentionHeads heads = packed_heads(p, query, key, value, context);
  heads.key_padding = p.key_padding;
  attention(heads);

  // 3. output projection; without one the output is the context (plus out.bias, if given alone).
  if (out_projection) {
    project(gemm, context, query_rows, p.d_out, p.out, p.d_out, output);
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
