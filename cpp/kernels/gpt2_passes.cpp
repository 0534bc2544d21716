// The passes of gpt2_passes.h: LayerNorm, GELU and the ablation are plain loops; every product is one GEMM call.
#include "gpt2_passes.h"

#include <algorithm>
#include <cmath>

#include "attention_heads.h"
#include "simd.h"

namespace ap::kernels::gpt2 {

void layer_norm(const float* x, const float* gamma, const float* beta, int rows, int d, float eps, float* y,
                float* xhat, float* rstd) {
  for (int n = 0; n < rows; ++n) {
    const float* in = x + static_cast<std::size_t>(n) * d;
    float* out = y + static_cast<std::size_t>(n) * d;
    double mean = 0;
    for (int i = 0; i < d; ++i) mean += in[i];
    mean /= d;
    double variance = 0;
    for (int i = 0; i < d; ++i) variance += (in[i] - mean) * (in[i] - mean);
    const double inverse_std = 1.0 / std::sqrt(variance / d + eps);
    if (rstd != nullptr) rstd[n] = static_cast<float>(inverse_std);
    if (xhat == nullptr) {
      for (int i = 0; i < d; ++i) out[i] = static_cast<float>((in[i] - mean) * inverse_std) * gamma[i] + beta[i];
      continue;
    }
    float* hat = xhat + static_cast<std::size_t>(n) * d;
    for (int i = 0; i < d; ++i) {
      hat[i] = static_cast<float>((in[i] - mean) * inverse_std);
      out[i] = hat[i] * gamma[i] + beta[i];
    }
  }
}

// 0.5·y·(1 + tanh(u)) = y·σ(2u) = y / (1 + e^(−2u)), u = √(2/π)·(y + 0.044715·y³): one exp and one
// division per element, four at a time (simd.h's exp: ~2 ulp; e^(−2u) saturates at e^88 for very negative
// y, where the quotient is then ~0, as GELU is); cheaper than a rational tanh (Eigen's 13/6 one was here).
void gelu_tanh_in_place(float* y, std::size_t count) {
  using namespace simd;
  constexpr float kMinusTwoSqrt2OverPi = -2.0f * 0.7978845608028654f;
  const f32x4 linear = splat(kMinusTwoSqrt2OverPi), cubic = splat(kMinusTwoSqrt2OverPi * 0.044715f), one = splat(1.0f);
  std::size_t i = 0;
  for (; i + kLanes <= count; i += kLanes) {
    const f32x4 x = load(y + i);
    const f32x4 minus_two_u = mul(x, mul_add(mul(x, x), cubic, linear));
    store(y + i, div(x, add(one, simd::exp(minus_two_u))));
  }
  for (; i < count; ++i) {
    const float x = y[i];
    y[i] = x / (1.0f + simd::exp(x * (x * x * (kMinusTwoSqrt2OverPi * 0.044715f) + kMinusTwoSqrt2OverPi)));
  }
}

void conv1d(const float* x, const PackedMatrix& weight, const float* bias, int rows, float* y, bool accumulate) {
  MatmulShape shape = MatmulShape::dense(rows, weight.k, weight.n);
  shape.accumulate = accumulate;
  matmul_prepacked(x, weight, y, shape);
  if (!bias) return;
  for (int i = 0; i < rows; ++i) {
    float* row = y + static_cast<std::size_t>(i) * weight.n;
    for (int j = 0; j < weight.n; ++j) row[j] += bias[j];
  }
}

void causal_attention_fused(const float* qkv, int stride, int t, int heads, int d_head, float* context, int context_stride) {
  const int width = heads * d_head;
  AttentionHeads problem;
  problem.query = qkv;
  problem.key = qkv + width;
  problem.value = qkv + 2 * width;
  problem.query_stride = problem.key_stride = problem.value_stride = stride;
  problem.context = context;
  problem.context_stride = context_stride;
  problem.batch = 1;
  problem.tq = problem.tk = t;
  problem.heads = heads;
  problem.d_head = d_head;
  problem.score_scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  problem.causal = true;
  attention_heads_fused(problem);
}

// Per head, S = q·kᵀ·scale (one GEMM), the future masked (weight 0), a stable softmax per row, then
// context = P·v (one GEMM).
void causal_attention_with_weights(const float* qkv, int stride, int t, int heads, int d_head, float* weights,
                                   float* context, int context_stride) {
  const int width = heads * d_head;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (int h = 0; h < heads; ++h) {
    float* P = weights + static_cast<std::size_t>(h) * t * t;
    const float* q = qkv + h * d_head;
    const float* k = qkv + width + h * d_head;
    const float* v = qkv + 2 * width + h * d_head;
    matmul(q, k, P, {t, d_head, t, stride, stride, t, true});  // (t, d_head)·(t, d_head)ᵀ -> (t, t)
    for (int i = 0; i < t; ++i) {
      float* row = P + static_cast<std::size_t>(i) * t;
      float max = -INFINITY;
      for (int j = 0; j <= i; ++j) max = std::max(max, row[j] * scale);
      double sum = 0;
      for (int j = 0; j <= i; ++j) {
        row[j] = std::exp(row[j] * scale - max);
        sum += row[j];
      }
      const float inverse = static_cast<float>(1.0 / sum);
      for (int j = 0; j <= i; ++j) row[j] *= inverse;
      std::fill(row + i + 1, row + t, 0.0f);
    }
    matmul(P, v, context + h * d_head, {t, t, d_head, t, stride, context_stride, false});  // (t, t)·(t, d_head)
  }
}

void ablate_heads(const unsigned char* flags, int heads, int d_head, int t, float* context, int stride) {
  for (int h = 0; h < heads; ++h) {
    const unsigned char how = flags[h];
    if (!how) continue;
    for (int c = 0; c < d_head; ++c) {
      float* column = context + h * d_head + c;
      double mean = 0;
      if (how == 2) {
        for (int i = 0; i < t; ++i) mean += column[static_cast<std::size_t>(i) * stride];
        mean /= t;
      }
      for (int i = 0; i < t; ++i) column[static_cast<std::size_t>(i) * stride] = static_cast<float>(mean);
    }
  }
}

std::size_t Activations::activation_floats(std::size_t t, std::size_t C, std::size_t width, std::size_t mlp,
                                          std::size_t vocab, std::size_t heads, bool attention) const {
  std::size_t floats = t * (2 * C + 3 * width + width + mlp + vocab);
  if (attention) floats += weights_.size() * heads * t * t;
  return floats;
}

std::size_t Activations::held_floats() const {
  std::size_t held = x_.capacity() + normed_.capacity() + qkv_.capacity() + context_.capacity() + hidden_.capacity() +
                     logits_.capacity();
  for (const auto& weights : weights_) held += weights.capacity();
  return held;
}

void Activations::size_activations(std::size_t t, std::size_t C, std::size_t width, std::size_t mlp, std::size_t vocab,
                                   std::size_t heads, bool attention) {
  x_.resize(t * C);
  normed_.resize(t * C);
  qkv_.resize(t * 3 * width);
  context_.resize(t * width);
  hidden_.resize(t * mlp);
  logits_.resize(t * vocab);
  for (auto& weights : weights_) {
    if (attention) weights.resize(heads * t * t);
    else std::vector<float>().swap(weights);
  }
}

}  // namespace ap::kernels::gpt2
