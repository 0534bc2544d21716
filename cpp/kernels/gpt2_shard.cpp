// gpt2_shard.h's share of the forward, over gpt2_passes.h's passes.
#include "gpt2_shard.h"

#include <algorithm>
#include <cmath>

#include "gpt2_passes.h"

namespace ap::kernels {

std::size_t Gpt2Shard::add(std::size_t size) {
  const std::size_t offset = parameters_.size();
  parameters_.resize(offset + size);
  return offset;
}

Gpt2Shard::Gpt2Shard(const Gpt2Config& config, const Gpt2ShardRange& range, int parts)
    : Activations(config.layers), config_(config), range_(range) {
  const std::size_t C = config.d_model;
  heads_ = range.head_end - range.head_begin;
  width_ = heads_ * (config.d_model / config.heads);
  mlp_ = range.mlp_end - range.mlp_begin;
  vocab_ = range.vocab_end - range.vocab_begin;
  for (int l = 0; l < config.layers; ++l) {
    Layer w{};
    w.ln_1_weight = add(C);
    w.ln_1_bias = add(C);
    w.c_attn_bias = add(3 * static_cast<std::size_t>(width_));
    w.attn_proj_bias = add(C);
    w.ln_2_weight = add(C);
    w.ln_2_bias = add(C);
    w.c_fc_bias = add(mlp_);
    w.mlp_proj_bias = add(C);
    layers_.push_back(w);
  }
  ln_f_weight_ = add(C);
  ln_f_bias_ = add(C);
  packed_.resize(matrix_count());
  parts_.resize(parts);
}

void Gpt2Shard::matrix_shape(int i, int& rows, int& cols) const {
  const int C = config_.d_model;
  const int shapes[4][2] = {{C, 3 * width_}, {width_, C}, {C, mlp_}, {mlp_, C}};
  if (i == 4 * config_.layers) {
    rows = vocab_;
    cols = C;
  } else {
    rows = shapes[i % 4][0];
    cols = shapes[i % 4][1];
  }
}

std::size_t Gpt2Shard::matrix_floats(int i) const {
  int rows = 0, cols = 0;
  matrix_shape(i, rows, cols);
  return static_cast<std::size_t>(rows) * cols;
}

float* Gpt2Shard::stage(int i) {
  staging_.resize(matrix_floats(i));
  return staging_.data();
}

void Gpt2Shard::pack_staged(int i) {
  int rows = 0, cols = 0;
  matrix_shape(i, rows, cols);
  // wte's rows (v, C) are the unembedding's columns: packed as wteᵀ (C, v)
  packed_[i] = i == 4 * config_.layers ? pack_matrix(staging_.data(), cols, rows, true) : pack_matrix(staging_.data(), rows, cols);
}

std::size_t Gpt2Shard::packed_floats() const {
  const auto padded = [](std::size_t n) { return (n + 7) / 8 * 8; };
  std::size_t total = 0;
  for (int i = 0; i < matrix_count(); ++i) {
    int rows = 0, cols = 0;
    matrix_shape(i, rows, cols);
    total += i == 4 * config_.layers ? static_cast<std::size_t>(cols) * padded(rows) : static_cast<std::size_t>(rows) * padded(cols);
  }
  return total;
}

std::size_t Gpt2Shard::staging_floats() const {
  std::size_t most = 0;
  for (int i = 0; i < matrix_count(); ++i) most = std::max(most, matrix_floats(i));
  return most;
}

std::size_t Gpt2Shard::scratch_growth(int t, bool attention) const {
  const std::size_t T = t, C = config_.d_model;
  const std::size_t need = activation_floats(T, C, width_, mlp_, vocab_, heads_, attention) + T * parts_.size() * C;
  std::size_t held = held_floats();
  for (const auto& part : parts_) held += part.capacity();
  return need > held ? need - held : 0;
}

void Gpt2Shard::begin(int t, bool attention) {
  const std::size_t T = t, C = config_.d_model;
  size_activations(T, C, width_, mlp_, vocab_, heads_, attention);
  for (auto& part : parts_) part.resize(T * C);
  keep_weights_ = attention;
  t_ = t;
}

void Gpt2Shard::attention(int layer, int k, const unsigned char* heads_off) {
  const int C = config_.d_model, d_head = C / config_.heads, t = t_;
  const Layer& w = layers_[layer];
  const float* P = parameters_.data();
  gpt2::layer_norm(x_.data(), P + w.ln_1_weight, P + w.ln_1_bias, t, C, config_.layer_norm_eps, normed_.data());
  gpt2::conv1d(normed_.data(), packed_[4 * layer], P + w.c_attn_bias, t, qkv_.data());  // (t, 3w): [q k v] of the heads
  if (keep_weights_) {
    gpt2::causal_attention_with_weights(qkv_.data(), 3 * width_, t, heads_, d_head, weights_[layer].data(), context_.data(), width_);
  } else {
    gpt2::causal_attention_fused(qkv_.data(), 3 * width_, t, heads_, d_head, context_.data(), width_);
  }
  if (heads_off) gpt2::ablate_heads(heads_off + layer * config_.heads + range_.head_begin, heads_, d_head, t, context_.data(), width_);
  gpt2::conv1d(context_.data(), packed_[4 * layer + 1], nullptr, t, parts_[k].data());  // (t, w)·(w, C)
}

void Gpt2Shard::mlp(int layer, int k) {
  const int C = config_.d_model, t = t_;
  const Layer& w = layers_[layer];
  const float* P = parameters_.data();
  gpt2::layer_norm(x_.data(), P + w.ln_2_weight, P + w.ln_2_bias, t, C, config_.layer_norm_eps, normed_.data());
  gpt2::conv1d(normed_.data(), packed_[4 * layer + 2], P + w.c_fc_bias, t, hidden_.data());
  gpt2::gelu_tanh_in_place(hidden_.data(), static_cast<std::size_t>(t) * mlp_);
  gpt2::conv1d(hidden_.data(), packed_[4 * layer + 3], nullptr, t, parts_[k].data());
}

void Gpt2Shard::add_parts(int layer, int stage) {
  const std::size_t C = config_.d_model, count = static_cast<std::size_t>(t_) * C;
  const float* bias = parameters_.data() + (stage == 0 ? layers_[layer].attn_proj_bias : layers_[layer].mlp_proj_bias);
  float* x = x_.data();
  // Σ_j part_j in worker order, then the bias: the same sums on every worker
  for (std::size_t i = 0; i < count; i += C) {
    for (std::size_t c = 0; c < C; ++c) {
      float sum = parts_[0][i + c];
      for (std::size_t j = 1; j < parts_.size(); ++j) sum += parts_[j][i + c];
      x[i + c] += sum + bias[c];
    }
  }
}

void Gpt2Shard::logits() {
  const int C = config_.d_model, t = t_;
  const float* P = parameters_.data();
  gpt2::layer_norm(x_.data(), P + ln_f_weight_, P + ln_f_bias_, t, C, config_.layer_norm_eps, normed_.data());
  matmul_prepacked(normed_.data(), packed_[4 * config_.layers], logits_.data(), MatmulShape::dense(t, C, vocab_));
}

}  // namespace ap::kernels
