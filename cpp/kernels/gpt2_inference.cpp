// The passes of gpt2_inference.h: LayerNorm, GELU and the embeddings are plain loops; every product is one
// GEMM call over the T rows.
#include "gpt2_inference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "attention_heads.h"
#include "gemm.h"

namespace ap::kernels {

namespace {

// y (rows, d) = (x − mean)/√(var + eps)·γ + β per row, the biased variance, as torch's LayerNorm.
void layer_norm(const float* x, const float* gamma, const float* beta, int rows, int d, float eps, float* y) {
  for (int n = 0; n < rows; ++n) {
    const float* in = x + static_cast<std::size_t>(n) * d;
    float* out = y + static_cast<std::size_t>(n) * d;
    double mean = 0;
    for (int i = 0; i < d; ++i) mean += in[i];
    mean /= d;
    double variance = 0;
    for (int i = 0; i < d; ++i) variance += (in[i] - mean) * (in[i] - mean);
    const double inverse_std = 1.0 / std::sqrt(variance / d + eps);
    for (int i = 0; i < d; ++i) out[i] = static_cast<float>((in[i] - mean) * inverse_std) * gamma[i] + beta[i];
  }
}

// GPT-2's GELU: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
inline float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

void add_bias(float* y, const float* bias, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    float* row = y + static_cast<std::size_t>(i) * cols;
    for (int j = 0; j < cols; ++j) row[j] += bias[j];
  }
}

// y (rows, out) = x (rows, in)·W (in, out) + b: Conv1D's layout, no transpose; with `accumulate`, y += that.
void conv1d(const float* x, const float* weight, const float* bias, int rows, int in, int out, float* y,
            bool accumulate = false) {
  MatmulShape shape = MatmulShape::dense(rows, in, out);
  shape.accumulate = accumulate;
  matmul(x, weight, y, shape);
  add_bias(y, bias, rows, out);
}

}  // namespace

std::size_t Gpt2Inference::add(std::size_t size) {
  const std::size_t offset = parameters_.size();
  parameters_.resize(offset + size);
  return offset;
}

Gpt2Inference::Gpt2Inference(const Gpt2Config& config) : config_(config) {
  const std::size_t C = config.d_model, M = config.d_mlp;
  wte_ = add(static_cast<std::size_t>(config.vocab_size) * C);
  wpe_ = add(static_cast<std::size_t>(config.context_length) * C);
  for (int l = 0; l < config.layers; ++l) {
    Layer w{};
    w.ln_1_weight = add(C);
    w.ln_1_bias = add(C);
    w.c_attn_weight = add(C * 3 * C);
    w.c_attn_bias = add(3 * C);
    w.attn_proj_weight = add(C * C);
    w.attn_proj_bias = add(C);
    w.ln_2_weight = add(C);
    w.ln_2_bias = add(C);
    w.c_fc_weight = add(C * M);
    w.c_fc_bias = add(M);
    w.mlp_proj_weight = add(M * C);
    w.mlp_proj_bias = add(C);
    layers_.push_back(w);
  }
  ln_f_weight_ = add(C);
  ln_f_bias_ = add(C);
  attention_.resize(config.layers);
}

std::size_t Gpt2Inference::scratch_growth(int t, bool attention) const {
  const std::size_t T = t, C = config_.d_model, M = config_.d_mlp, V = config_.vocab_size;
  std::size_t need = T * (3 * C + 3 * C + M + V);
  if (attention) need += static_cast<std::size_t>(config_.layers) * config_.heads * T * T;
  std::size_t held = x_.capacity() + normed_.capacity() + qkv_.capacity() + context_.capacity() + hidden_.capacity() +
                     logits_.capacity();
  for (const auto& weights : attention_) held += weights.capacity();
  return need > held ? need - held : 0;
}

void Gpt2Inference::reserve(int t, bool attention) {
  const std::size_t T = t, C = config_.d_model;
  x_.resize(T * C);
  normed_.resize(T * C);
  qkv_.resize(T * 3 * C);
  context_.resize(T * C);
  hidden_.resize(T * config_.d_mlp);
  logits_.resize(T * config_.vocab_size);
  for (auto& weights : attention_) {
    if (attention) weights.resize(static_cast<std::size_t>(config_.heads) * T * T);
    else std::vector<float>().swap(weights);
  }
  t_ = t;
}

// Layer l's attention with its weights kept (heads, t, t): per head, S = q·kᵀ·scale (one GEMM), the
// future masked (weight 0), a stable softmax per row, then context = P·v (one GEMM).
void Gpt2Inference::attention_with_weights(int l, int t) {
  const int C = config_.d_model, H = config_.heads, d_head = C / H;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  for (int h = 0; h < H; ++h) {
    float* P = attention_[l].data() + static_cast<std::size_t>(h) * t * t;
    const float* q = qkv_.data() + h * d_head;
    const float* k = qkv_.data() + C + h * d_head;
    const float* v = qkv_.data() + 2 * C + h * d_head;
    matmul(q, k, P, {t, d_head, t, 3 * C, 3 * C, t, true});  // (t, d_head)·(t, d_head)ᵀ -> (t, t)
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
    matmul(P, v, context_.data() + h * d_head, {t, t, d_head, t, 3 * C, C, false});  // (t, t)·(t, d_head)
  }
}

void Gpt2Inference::forward(const int* tokens, int t, const unsigned char* heads_off, bool attention) {
  reserve(t, attention);
  const int C = config_.d_model, H = config_.heads, M = config_.d_mlp, V = config_.vocab_size;
  const int d_head = C / H;
  const float eps = config_.layer_norm_eps;
  const float* P = parameters_.data();
  float* x = x_.data();

  // 1. x = wte[token] + wpe[position]
  for (int i = 0; i < t; ++i) {
    const float* token = P + wte_ + static_cast<std::size_t>(tokens[i]) * C;
    const float* position = P + wpe_ + static_cast<std::size_t>(i) * C;
    for (int c = 0; c < C; ++c) x[static_cast<std::size_t>(i) * C + c] = token[c] + position[c];
  }
  // 2. the blocks
  for (int l = 0; l < config_.layers; ++l) {
    const Layer& w = layers_[l];
    layer_norm(x, P + w.ln_1_weight, P + w.ln_1_bias, t, C, eps, normed_.data());
    conv1d(normed_.data(), P + w.c_attn_weight, P + w.c_attn_bias, t, C, 3 * C, qkv_.data());
    if (attention) {
      attention_with_weights(l, t);
    } else {
      AttentionHeads heads;
      heads.query = qkv_.data();
      heads.key = qkv_.data() + C;
      heads.value = qkv_.data() + 2 * C;
      heads.query_stride = heads.key_stride = heads.value_stride = 3 * C;
      heads.context = context_.data();
      heads.context_stride = C;
      heads.batch = 1;
      heads.tq = heads.tk = t;
      heads.heads = H;
      heads.d_head = d_head;
      heads.score_scale = 1.0f / std::sqrt(static_cast<float>(d_head));
      heads.causal = true;
      attention_heads_fused(heads);
    }
    if (heads_off) {
      for (int h = 0; h < H; ++h) {
        if (!heads_off[l * H + h]) continue;
        for (int i = 0; i < t; ++i) std::fill_n(context_.data() + static_cast<std::size_t>(i) * C + h * d_head, d_head, 0.0f);
      }
    }
    conv1d(context_.data(), P + w.attn_proj_weight, P + w.attn_proj_bias, t, C, C, x, true);  // x += c·W + b
    layer_norm(x, P + w.ln_2_weight, P + w.ln_2_bias, t, C, eps, normed_.data());
    conv1d(normed_.data(), P + w.c_fc_weight, P + w.c_fc_bias, t, C, M, hidden_.data());
    for (float& value : hidden_) value = gelu_tanh(value);
    conv1d(hidden_.data(), P + w.mlp_proj_weight, P + w.mlp_proj_bias, t, M, C, x, true);  // x += m·W + b
  }
  // 3. logits = LN(x; ln_f)·wteᵀ: (t, C)·(V, C)ᵀ -> (t, V)
  layer_norm(x, P + ln_f_weight_, P + ln_f_bias_, t, C, eps, normed_.data());
  matmul(normed_.data(), P + wte_, logits_.data(), MatmulShape::dense(t, C, V, true));
}

}  // namespace ap::kernels
