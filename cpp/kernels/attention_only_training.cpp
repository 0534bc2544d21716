// The passes of attention_only_training.h. Elementwise work (embeddings, LayerNorm, cross-entropy, bias
// sums, AdamW) is plain loops; every product is one GEMM call over all batch·T rows.
#include "attention_only_training.h"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <vector>

#include "attention_heads.h"
#include "attention_heads_backward.h"
#include "gemm.h"
#include "gpt2_passes.h"
#include "simd.h"

namespace ap::kernels {

namespace {

constexpr float kLayerNormEps = 1e-5f;  // torch.nn.LayerNorm's default

// y (rows, out) = x (rows, in)·Wᵀ + b with W stored (out, in) as nn.Linear.weight.
void linear_forward(const float* x, const float* weight, const float* bias, int rows, int in, int out, float* y) {
  matmul(x, weight, y, {rows, in, out, in, in, out, true});
  for (int i = 0; i < rows; ++i) {
    float* row = y + static_cast<std::size_t>(i) * out;
    for (int j = 0; j < out; ++j) row[j] += bias[j];
  }
}

// The weight and bias gradients of linear_forward given dY (rows, out): gW (out, in) = dYᵀ·x, gb = Σ_rows dY.
// dYᵀ is read by the GEMM's packing (transpose_a), not copied; gb sums each column row by row (the same order).
void linear_weight_gradients(const float* x, const float* grad_y, int rows, int in, int out, float* grad_weight,
                             float* grad_bias) {
  MatmulShape shape{out, rows, in, out, in, in, false};
  shape.transpose_a = true;
  matmul(grad_y, x, grad_weight, shape);
  std::fill_n(grad_bias, out, 0.0f);
  for (int i = 0; i < rows; ++i) {
    const float* row = grad_y + static_cast<std::size_t>(i) * out;
    for (int j = 0; j < out; ++j) grad_bias[j] += row[j];
  }
}

// Given dy: gγ += Σ dy·x̂, gβ += Σ dy, and grad_x += 1/σ·(dx̂ − mean(dx̂) − x̂·mean(dx̂·x̂)) with dx̂ = dy·γ.
void layer_norm_backward(const float* xhat, const float* rstd, const float* gamma, const float* grad_y, int rows, int d,
                         float* grad_gamma, float* grad_beta, float* grad_x) {
  std::fill_n(grad_gamma, d, 0.0f);
  std::fill_n(grad_beta, d, 0.0f);
  for (int n = 0; n < rows; ++n) {
    const float* hat = xhat + static_cast<std::size_t>(n) * d;
    const float* dy = grad_y + static_cast<std::size_t>(n) * d;
    float* dx = grad_x + static_cast<std::size_t>(n) * d;
    double mean_d = 0, mean_dx = 0;
    for (int i = 0; i < d; ++i) {
      grad_gamma[i] += dy[i] * hat[i];
      grad_beta[i] += dy[i];
      const double dh = static_cast<double>(dy[i]) * gamma[i];
      mean_d += dh;
      mean_dx += dh * hat[i];
    }
    mean_d /= d;
    mean_dx /= d;
    for (int i = 0; i < d; ++i)
      dx[i] += static_cast<float>(rstd[n] * (static_cast<double>(dy[i]) * gamma[i] - mean_d - hat[i] * mean_dx));
  }
}

}  // namespace

std::size_t AttentionOnlyTraining::add_parameter(std::size_t size) {
  const std::size_t offset = parameters_.size();
  parameters_.resize(offset + size, 0.0f);
  sizes_.push_back(size);
  return offset;
}

AttentionOnlyTraining::AttentionOnlyTraining(const AttentionOnlyConfig& config) : config_(config) {
  const std::size_t V = config.vocab_size, T = config.context_length, d = config.d_model;
  tok_emb_ = add_parameter(V * d);
  pos_emb_ = add_parameter(T * d);
  layers_.resize(config.layers);
  for (Layer& layer : layers_) {
    if (config.layer_norm) {
      layer.ln_weight = add_parameter(d);
      layer.ln_bias = add_parameter(d);
    }
    layer.q_weight = add_parameter(d * d);
    layer.q_bias = add_parameter(d);
    layer.k_weight = add_parameter(d * d);
    layer.k_bias = add_parameter(d);
    layer.v_weight = add_parameter(d * d);
    layer.v_bias = add_parameter(d);
    layer.out_weight = add_parameter(d * d);
    layer.out_bias = add_parameter(d);
  }
  if (config.layer_norm) {
    ln_final_weight_ = add_parameter(d);
    ln_final_bias_ = add_parameter(d);
  }
  unembed_weight_ = add_parameter(V * d);
  unembed_bias_ = add_parameter(V);
  qkv_weight_.assign(config.layers, std::vector<float>(3 * d * d));
  qkv_bias_.assign(config.layers, std::vector<float>(3 * d));
  grad_qkv_weight_.assign(3 * d * d, 0.0f);
  grad_qkv_bias_.assign(3 * d, 0.0f);
  gradients_.assign(parameters_.size(), 0.0f);
  exp_avg_.assign(parameters_.size(), 0.0f);
  exp_avg_sq_.assign(parameters_.size(), 0.0f);
}

namespace {

// Floats of activations for `rows` rows (what reserve allocates).
std::size_t activation_floats(const AttentionOnlyConfig& c, int batch, int rows) {
  const std::size_t n = rows, d = c.d_model, L = c.layers, V = c.vocab_size;
  const std::size_t stats = static_cast<std::size_t>(batch) * c.heads * (rows / batch);
  std::size_t per_layer = 4 * n * d + 2 * stats;           // [q k v], context, lse
  if (c.layer_norm) per_layer += 2 * n * d + n;            // normed, x̂, 1/σ
  std::size_t total = (L + 1) * n * d + L * per_layer;     // hidden
  total += (c.layer_norm ? 2 * n * d + n : 0) + n * V;     // final LayerNorm, logits
  total += 6 * n * d;                                      // backward scratch
  return total;
}

}  // namespace

std::size_t AttentionOnlyTraining::scratch_growth(int batch, int t) const {
  if (batch * t <= rows_ && t == t_ && batch == batch_) return 0;
  return activation_floats(config_, batch, batch * t);
}

void AttentionOnlyTraining::reserve(int batch, int t) {
  if (batch == batch_ && t == t_) return;
  batch_ = batch;
  t_ = t;
  rows_ = batch * t;
  const std::size_t n = rows_, d = config_.d_model, L = config_.layers, V = config_.vocab_size;
  const std::size_t stats = static_cast<std::size_t>(batch) * config_.heads * t;
  auto sized = [](std::vector<std::vector<float>>& list, std::size_t count, std::size_t size) {
    list.resize(count);
    for (auto& v : list) v.assign(size, 0.0f);
  };
  sized(hidden_, L + 1, n * d);
  sized(normed_, config_.layer_norm ? L : 0, n * d);
  sized(xhat_, config_.layer_norm ? L : 0, n * d);
  sized(rstd_, config_.layer_norm ? L : 0, n);
  sized(qkv_, L, 3 * n * d);
  sized(context_, L, n * d);
  sized(row_max_, L, stats);
  sized(log_sum_, L, stats);
  final_normed_.assign(config_.layer_norm ? n * d : 0, 0.0f);
  final_xhat_.assign(config_.layer_norm ? n * d : 0, 0.0f);
  final_rstd_.assign(config_.layer_norm ? n : 0, 0.0f);
  logits_.assign(n * V, 0.0f);
  for (auto* v : {&grad_hidden_, &grad_a_, &grad_context_}) v->assign(n * d, 0.0f);
  grad_qkv_.assign(3 * n * d, 0.0f);
}

TrainingLoss AttentionOnlyTraining::run(const int* inputs, const int* targets, int batch, int t, bool want_gradients,
                                       int normalizer) {
  reserve(batch, t);
  const int N = batch * t, d = config_.d_model, V = config_.vocab_size, H = config_.heads, L = config_.layers;
  const int d_head = d / H;
  const float* P = parameters_.data();
  const std::size_t nd = static_cast<std::size_t>(N) * d;

  // 1. h₀ = tok_emb[token] + pos_emb[t]
  {
    float* h = hidden_[0].data();
    for (int n = 0; n < N; ++n) {
      const float* tok = P + tok_emb_ + static_cast<std::size_t>(inputs[n]) * d;
      const float* pos = P + pos_emb_ + static_cast<std::size_t>(n % t) * d;
      float* row = h + static_cast<std::size_t>(n) * d;
      for (int i = 0; i < d; ++i) row[i] = tok[i] + pos[i];
    }
  }

  // 2. the blocks
  auto heads_of = [&](int l) {
    AttentionHeads heads;
    heads.query = qkv_[l].data();
    heads.query_stride = 3 * d;
    heads.key = qkv_[l].data() + d;
    heads.key_stride = 3 * d;
    heads.value = qkv_[l].data() + 2 * d;
    heads.value_stride = 3 * d;
    heads.context = context_[l].data();
    heads.context_stride = d;
    heads.batch = batch;
    heads.tq = t;
    heads.tk = t;
    heads.heads = H;
    heads.d_head = d_head;
    heads.score_scale = 1.0f / std::sqrt(static_cast<float>(d_head));
    heads.causal = true;
    heads.row_max = row_max_[l].data();
    heads.log_sum = log_sum_[l].data();
    return heads;
  };
  for (int l = 0; l < L; ++l) {
    const Layer& w = layers_[l];
    const float* h = hidden_[l].data();
    const float* a = h;
    if (config_.layer_norm) {
      // LayerNorm (biased variance, eps 1e-5): y = x̂·γ + β, keeping x̂ and 1/σ for the backward
      gpt2::layer_norm(h, P + w.ln_weight, P + w.ln_bias, N, d, kLayerNormEps, normed_[l].data(), xhat_[l].data(),
                       rstd_[l].data());
      a = normed_[l].data();
    }
    // [q k v] = a·[W_q; W_k; W_v]ᵀ + [b_q b_k b_v]: one GEMM with n = 3d
    float* packed = qkv_weight_[l].data();
    float* packed_bias = qkv_bias_[l].data();
    const std::size_t dd = static_cast<std::size_t>(d) * d;
    std::copy_n(P + w.q_weight, dd, packed);
    std::copy_n(P + w.k_weight, dd, packed + dd);
    std::copy_n(P + w.v_weight, dd, packed + 2 * dd);
    std::copy_n(P + w.q_bias, d, packed_bias);
    std::copy_n(P + w.k_bias, d, packed_bias + d);
    std::copy_n(P + w.v_bias, d, packed_bias + 2 * d);
    linear_forward(a, packed, packed_bias, N, d, 3 * d, qkv_[l].data());
    attention_heads_fused(heads_of(l));
    float* next = hidden_[l + 1].data();
    linear_forward(context_[l].data(), P + w.out_weight, P + w.out_bias, N, d, d, next);
    for (std::size_t i = 0; i < nd; ++i) next[i] += h[i];
  }

  // 3. logits and the cross-entropy; with gradients, logits_ becomes dLoss/dlogits = (softmax − onehot)/count
  const float* final_hidden = hidden_[L].data();
  if (config_.layer_norm) {
    gpt2::layer_norm(final_hidden, P + ln_final_weight_, P + ln_final_bias_, N, d, kLayerNormEps, final_normed_.data(),
                     final_xhat_.data(), final_rstd_.data());
    final_hidden = final_normed_.data();
  }
  float* logits = logits_.data();
  linear_forward(final_hidden, P + unembed_weight_, P + unembed_bias_, N, d, V, logits);
  TrainingLoss result;
  for (int n = 0; n < N; ++n) result.count += targets[n] != -100;
  const double divisor = normalizer > 0 ? normalizer : result.count;
  double loss = 0;
  std::vector<double> shifted_exp(V);  // exp(logit − max) of one row, computed once for the sum and the softmax
  for (int n = 0; n < N; ++n) {
    float* row = logits + static_cast<std::size_t>(n) * V;
    const int target = targets[n];
    if (target == -100) {
      if (want_gradients) std::fill_n(row, V, 0.0f);
      continue;
    }
    float max = row[0];
    int arg = 0;
    for (int c = 1; c < V; ++c)
      if (row[c] > max) { max = row[c]; arg = c; }
    double sum = 0;
    for (int c = 0; c < V; ++c) {
      shifted_exp[c] = std::exp(static_cast<double>(row[c]) - max);
      sum += shifted_exp[c];
    }
    loss += std::log(sum) + max - row[target];
    result.correct += arg == target;
    if (want_gradients) {
      const double scale = 1.0 / (sum * divisor);
      for (int c = 0; c < V; ++c) row[c] = static_cast<float>(shifted_exp[c] * scale);
      row[target] -= static_cast<float>(1.0 / divisor);
    }
  }
  result.loss = result.count ? loss / result.count : 0;
  if (!want_gradients) return result;

  // Backward, in reverse.
  float* G = gradients_.data();
  std::fill(gradients_.begin(), gradients_.end(), 0.0f);
  float* dh = grad_hidden_.data();
  // unembed: dW = dLogitsᵀ·h_f, db = Σ dLogits, dh_f = dLogits·W (W (V, d) is B as stored)
  linear_weight_gradients(final_hidden, logits, N, d, V, G + unembed_weight_, G + unembed_bias_);
  if (config_.layer_norm) {
    float* dhf = grad_a_.data();
    matmul(logits, P + unembed_weight_, dhf, {N, V, d, V, d, d, false});
    std::fill_n(dh, nd, 0.0f);
    layer_norm_backward(final_xhat_.data(), final_rstd_.data(), P + ln_final_weight_, dhf, N, d, G + ln_final_weight_,
                        G + ln_final_bias_, dh);
  } else {
    matmul(logits, P + unembed_weight_, dh, {N, V, d, V, d, d, false});
  }
  float* dcontext = grad_context_.data();
  float* dqkv = grad_qkv_.data();
  float* da = grad_a_.data();
  const std::size_t dd = static_cast<std::size_t>(d) * d;
  for (int l = L - 1; l >= 0; --l) {
    const Layer& w = layers_[l];
    // out_proj (the residual passes dh through unchanged): dW_out = dhᵀ·c, dc = dh·W_out
    linear_weight_gradients(context_[l].data(), dh, N, d, d, G + w.out_weight, G + w.out_bias);
    matmul(dh, P + w.out_weight, dcontext, {N, d, d, d, d, d, false});
    // attention: dQ, dK, dV with P recomputed from the lse
    AttentionHeadsBackward backward;
    backward.forward = heads_of(l);
    backward.grad_context = dcontext;
    backward.grad_context_stride = d;
    backward.row_max = row_max_[l].data();
    backward.log_sum = log_sum_[l].data();
    backward.grad_query = dqkv;
    backward.grad_query_stride = 3 * d;
    backward.grad_key = dqkv + d;
    backward.grad_key_stride = 3 * d;
    backward.grad_value = dqkv + 2 * d;
    backward.grad_value_stride = 3 * d;
    attention_heads_backward_fused(backward);
    // the projections, packed as the forward's: d[W_q; W_k; W_v] = d[q k v]ᵀ·a, db = Σ d[q k v], then each block
    // into its parameter's gradient; da = d[q k v]·[W_q; W_k; W_v]
    const float* a = config_.layer_norm ? normed_[l].data() : hidden_[l].data();
    linear_weight_gradients(a, dqkv, N, d, 3 * d, grad_qkv_weight_.data(), grad_qkv_bias_.data());
    std::copy_n(grad_qkv_weight_.data(), dd, G + w.q_weight);
    std::copy_n(grad_qkv_weight_.data() + dd, dd, G + w.k_weight);
    std::copy_n(grad_qkv_weight_.data() + 2 * dd, dd, G + w.v_weight);
    std::copy_n(grad_qkv_bias_.data(), d, G + w.q_bias);
    // The key bias adds q_i·b to every score of row i, which the softmax cancels: its gradient Σ_i,j c·dS_ij·q_i
    // is 0 for every input (each row of dS sums to 0), and Σ_rows dK would be that 0's rounding noise, which
    // AdamW divides by its √v into steps of size lr. It stays the exact 0 the buffer holds.
    std::copy_n(grad_qkv_bias_.data() + 2 * d, d, G + w.v_bias);
    matmul(dqkv, qkv_weight_[l].data(), da, {N, 3 * d, d, 3 * d, d, d, false});
    if (config_.layer_norm) {
      layer_norm_backward(xhat_[l].data(), rstd_[l].data(), P + w.ln_weight, da, N, d, G + w.ln_weight, G + w.ln_bias,
                          dh);
    } else {
      for (std::size_t i = 0; i < nd; ++i) dh[i] += da[i];
    }
  }
  // the embeddings: scatter-add the rows of dh₀
  for (int n = 0; n < N; ++n) {
    float* tok = G + tok_emb_ + static_cast<std::size_t>(inputs[n]) * d;
    float* pos = G + pos_emb_ + static_cast<std::size_t>(n % t) * d;
    const float* row = dh + static_cast<std::size_t>(n) * d;
    for (int i = 0; i < d; ++i) {
      tok[i] += row[i];
      pos[i] += row[i];
    }
  }
  return result;
}

void AttentionOnlyTraining::attention_weights(int layer, float* out) const {
  const int d = config_.d_model, H = config_.heads, d_head = d / H, t = t_;
  const float scale = 1.0f / std::sqrt(static_cast<float>(d_head));
  const float* qkv = qkv_[layer].data();
  for (int b = 0; b < batch_; ++b) {
    for (int h = 0; h < H; ++h) {
      // S = Q·Kᵀ of the head (one GEMM, into its (t, t) block of out), then in place
      // P_ij = exp(c·(s_ij − row_max_i) − log_sum_i) as the backward recomputes it (attention_heads_backward.h)
      const std::size_t head = static_cast<std::size_t>(b) * H + h;
      float* block = out + head * t * t;
      const float* q = qkv + static_cast<std::size_t>(b) * t * 3 * d + h * d_head;
      matmul(q, q + d, block, {t, d_head, t, 3 * d, 3 * d, t, true});
      for (int i = 0; i < t; ++i) {
        const float row_max = row_max_[layer][head * t + i], log_sum = log_sum_[layer][head * t + i];
        float* row = block + static_cast<std::size_t>(i) * t;
        for (int j = 0; j <= i; ++j) row[j] = std::exp(scale * (row[j] - row_max) - log_sum);
        std::fill(row + i + 1, row + t, 0.0f);
      }
    }
  }
}

double AttentionOnlyTraining::clip_gradients(double max_norm) {
  // As adamw.js's clipGradNorm: each parameter's norm rounded to float32, their squares summed in float64.
  double total = 0;
  std::size_t offset = 0;
  for (const std::size_t size : sizes_) {
    double sum = 0;
    for (std::size_t i = offset; i < offset + size; ++i) sum += static_cast<double>(gradients_[i]) * gradients_[i];
    const double norm = static_cast<float>(std::sqrt(sum));
    total += norm * norm;
    offset += size;
  }
  const float norm = static_cast<float>(std::sqrt(total));
  if (max_norm > 0) {
    const float coefficient = static_cast<float>(std::min(1.0, static_cast<double>(static_cast<float>(
                                                                   max_norm / static_cast<float>(norm + 1e-6)))));
    if (coefficient < 1.0f)
      for (float& g : gradients_) g *= coefficient;
  }
  return norm;
}

void AttentionOnlyTraining::adamw_step(int step, const AdamWSettings& s) {
  // adamw.js's adamwStep, the same float32 roundings (a float·float product or quotient rounds once in
  // both languages; the scalars are computed in float64 and rounded where adamw.js rounds them).
  const float decay = static_cast<float>(1 - s.lr * s.weight_decay);
  const float step_size = static_cast<float>(s.lr / (1 - std::pow(s.beta1, step)));
  const float correction2_sqrt = static_cast<float>(std::sqrt(1 - std::pow(s.beta2, step)));
  const float one_minus_beta1 = static_cast<float>(1 - s.beta1);
  const float one_minus_beta2 = static_cast<float>(1 - s.beta2);
  const float beta1 = static_cast<float>(s.beta1), beta2 = static_cast<float>(s.beta2), eps = static_cast<float>(s.eps);
  float* p = parameters_.data();
  float* m = exp_avg_.data();
  float* v = exp_avg_sq_.data();
  const float* g = gradients_.data();
  const std::size_t count = parameters_.size();
  for (std::size_t i = 0; i < count; ++i) {
    const float gi = g[i];
    const float decayed = p[i] * decay;
    const float mi = m[i] * beta1 + gi * one_minus_beta1;
    const float gg = gi * gi;
    const float vi = v[i] * beta2 + gg * one_minus_beta2;
    m[i] = mi;
    v[i] = vi;
    const float denom = std::sqrt(vi) / correction2_sqrt + eps;
    const float ratio = mi / denom;
    p[i] = decayed - ratio * step_size;
  }
}

void AttentionOnlyTraining::add_gradients(const float* part) {
  float* g = gradients_.data();
  const std::size_t count = gradients_.size();
  std::size_t i = 0;
  for (; i + simd::kLanes <= count; i += simd::kLanes) simd::store(g + i, simd::add(simd::load(g + i), simd::load(part + i)));
  for (; i < count; ++i) g[i] += part[i];
}

}  // namespace ap::kernels
