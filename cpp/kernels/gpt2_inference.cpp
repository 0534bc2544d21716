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

// tanh as Eigen's generic_fast_tanh_float: a 13/6 rational function on [−7.905, 7.905] (tanh is ±1 in float32
// beyond), x itself below 4e-4. No libm call and no branch, so clang vectorises the GELU loop; libm's tanh
// cost a third of the MLP's time.
inline float fast_tanh(float a) {
  const float x = std::min(std::max(a, -7.90531110763549805f), 7.90531110763549805f);
  const float x2 = x * x;
  float p = x2 * -2.76076847742355e-16f + 2.00018790482477e-13f;
  p = x2 * p + -8.60467152213735e-11f;
  p = x2 * p + 5.12229709037114e-08f;
  p = x2 * p + 1.48572235717979e-05f;
  p = x2 * p + 6.37261928875436e-04f;
  p = x2 * p + 4.89352455891786e-03f;
  p = x * p;
  float q = x2 * 1.19825839466702e-06f + 1.18534705686654e-04f;
  q = x2 * q + 2.26843463243900e-03f;
  q = x2 * q + 4.89352518554385e-03f;
  return std::fabs(a) < 0.0004f ? a : p / q;
}

// GPT-2's GELU: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))).
inline float gelu_tanh(float x) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  return 0.5f * x * (1.0f + fast_tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
}

void add_bias(float* y, const float* bias, int rows, int cols) {
  for (int i = 0; i < rows; ++i) {
    float* row = y + static_cast<std::size_t>(i) * cols;
    for (int j = 0; j < cols; ++j) row[j] += bias[j];
  }
}

// y (rows, out) = x (rows, in)·W (in, out) + b: Conv1D's layout, W packed; with `accumulate`, y += that.
void conv1d(const float* x, const PackedMatrix& weight, const float* bias, int rows, float* y, bool accumulate = false) {
  MatmulShape shape = MatmulShape::dense(rows, weight.k, weight.n);
  shape.accumulate = accumulate;
  matmul_prepacked(x, weight, y, shape);
  add_bias(y, bias, rows, weight.n);
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

void Gpt2Inference::pack() {
  const int C = config_.d_model, M = config_.d_mlp;
  const float* P = parameters_.data();
  c_attn_.clear();
  attn_proj_.clear();
  c_fc_.clear();
  mlp_proj_.clear();
  for (const Layer& w : layers_) {
    c_attn_.push_back(pack_matrix(P + w.c_attn_weight, C, 3 * C));
    attn_proj_.push_back(pack_matrix(P + w.attn_proj_weight, C, C));
    c_fc_.push_back(pack_matrix(P + w.c_fc_weight, C, M));
    mlp_proj_.push_back(pack_matrix(P + w.mlp_proj_weight, M, C));
  }
  unembedding_ = pack_matrix(P + wte_, C, config_.vocab_size, true);  // wte (V, C) read as wteᵀ (C, V)
}

std::size_t Gpt2Inference::packed_floats() const {
  const std::size_t C = config_.d_model, M = config_.d_mlp, V = config_.vocab_size;
  const auto padded = [](std::size_t n) { return (n + 7) / 8 * 8; };
  return config_.layers * (C * padded(3 * C) + C * padded(C) + C * padded(M) + M * padded(C)) + C * padded(V);
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
  if (unembedding_.panels.empty()) pack();
  reserve(t, attention);
  const int C = config_.d_model, H = config_.heads;
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
    conv1d(normed_.data(), c_attn_[l], P + w.c_attn_bias, t, qkv_.data());
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
        const unsigned char how = heads_off[l * H + h];
        if (!how) continue;
        // 1: zeros (the head adds nothing); 2: its context averaged over the positions (no position told apart)
        for (int c = 0; c < d_head; ++c) {
          float* column = context_.data() + h * d_head + c;
          double mean = 0;
          if (how == 2) {
            for (int i = 0; i < t; ++i) mean += column[static_cast<std::size_t>(i) * C];
            mean /= t;
          }
          for (int i = 0; i < t; ++i) column[static_cast<std::size_t>(i) * C] = static_cast<float>(mean);
        }
      }
    }
    conv1d(context_.data(), attn_proj_[l], P + w.attn_proj_bias, t, x, true);  // x += c·W + b
    layer_norm(x, P + w.ln_2_weight, P + w.ln_2_bias, t, C, eps, normed_.data());
    conv1d(normed_.data(), c_fc_[l], P + w.c_fc_bias, t, hidden_.data());
    for (float& value : hidden_) value = gelu_tanh(value);
    conv1d(hidden_.data(), mlp_proj_[l], P + w.mlp_proj_bias, t, x, true);  // x += m·W + b
  }
  // 3. logits = LN(x; ln_f)·wteᵀ: (t, C)·(C, V) -> (t, V), wteᵀ packed
  layer_norm(x, P + ln_f_weight_, P + ln_f_bias_, t, C, eps, normed_.data());
  matmul_prepacked(normed_.data(), unembedding_, logits_.data(), MatmulShape::dense(t, C, config_.vocab_size));
}

}  // namespace ap::kernels
