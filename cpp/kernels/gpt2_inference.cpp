// gpt2_inference.h's forward over gpt2_passes.h's passes: every product is one GEMM call over the T rows.
#include "gpt2_inference.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstring>

#include "gemm.h"
#include "gpt2_passes.h"

namespace ap::kernels {

using gpt2::ablate_heads;
using gpt2::conv1d;
using gpt2::layer_norm;

std::size_t Gpt2Inference::add(std::size_t size) {
  const std::size_t offset = parameters_.size();
  parameters_.resize(offset + size);
  return offset;
}

Gpt2Inference::Gpt2Inference(const Gpt2Config& config) : Activations(config.layers), config_(config) {
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
  const std::size_t C = config_.d_model;
  const std::size_t need = activation_floats(t, C, C, config_.d_mlp, config_.vocab_size, config_.heads, attention);
  const std::size_t held = held_floats();
  return need > held ? need - held : 0;
}

void Gpt2Inference::reserve(int t, bool attention) {
  const std::size_t C = config_.d_model;
  size_activations(t, C, C, config_.d_mlp, config_.vocab_size, config_.heads, attention);
  t_ = t;
}

// Layer l's attention with its weights kept (heads, t, t).
void Gpt2Inference::attention_with_weights(int l, int t) {
  const int C = config_.d_model, H = config_.heads;
  gpt2::causal_attention_with_weights(qkv_.data(), 3 * C, t, H, C / H, weights_[l].data(), context_.data(), C);
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
      gpt2::causal_attention_fused(qkv_.data(), 3 * C, t, H, d_head, context_.data(), C);
    }
    if (heads_off) ablate_heads(heads_off + l * H, H, d_head, t, context_.data(), C);
    conv1d(context_.data(), attn_proj_[l], P + w.attn_proj_bias, t, x, true);  // x += c·W + b
    layer_norm(x, P + w.ln_2_weight, P + w.ln_2_bias, t, C, eps, normed_.data());
    conv1d(normed_.data(), c_fc_[l], P + w.c_fc_bias, t, hidden_.data());
    gpt2::gelu_tanh_in_place(hidden_.data(), static_cast<std::size_t>(t) * config_.d_mlp);
    conv1d(hidden_.data(), mlp_proj_[l], P + w.mlp_proj_bias, t, x, true);  // x += m·W + b
  }
  // 3. logits = LN(x; ln_f)·wteᵀ: (t, C)·(C, V) -> (t, V), wteᵀ packed
  layer_norm(x, P + ln_f_weight_, P + ln_f_bias_, t, C, eps, normed_.data());
  matmul_prepacked(normed_.data(), unembedding_, logits_.data(), MatmulShape::dense(t, C, config_.vocab_size));
}

}  // namespace ap::kernels
