// One training step of the attention-only transformer (docs/api.md "Training", web/src/train/model.js) kept
// whole in the WASM heap: the parameters, their gradients, the AdamW state and the activations live here
// across steps, so a step is one call from JS with the tokens in and the loss out.
//
//   h₀ = tok_emb[token] + pos_emb[t]                                     (N = batch·T rows of d)
//   per block l:  a = LN(h) or h;  [q k v] = a·[W_q; W_k; W_v]ᵀ + [b_q b_k b_v] (one GEMM, the three weights
//                 packed into one (3d, d) matrix);  c = causal attention (attention_heads_fused, lse kept)
//                 h ← h + c·W_outᵀ + b_out
//   logits = (LN_final(h) or h)·W_unembedᵀ + b_unembed;  loss = mean cross-entropy over targets ≠ −100
//
// The backward runs the same products on the packed GEMM (gemm.h: dX = dY·W, dW = dYᵀ·X with dYᵀ read
// by the GEMM's packing) and the attention's on the fused FlashAttention-2 backward (attention_heads_backward.h), which
// recomputes P from the saved log-sum-exp: no (T, T) tensor is kept. The parameters are one float array in
// state_dict order and layouts (nn.Linear weights (out, in)); the gradients, exp_avg and exp_avg_sq use the
// same offsets. AdamW and clip_grad_norm_ round to float32 exactly where web/src/train/adamw.js does
// (torch 1.13's single-tensor AdamW).
#pragma once

#include <cstddef>
#include <vector>

namespace ap::kernels {

struct AttentionOnlyConfig {
  int vocab_size = 0, context_length = 0, d_model = 0, heads = 1, layers = 1;
  bool layer_norm = false;
};

struct AdamWSettings {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, eps = 1e-8, weight_decay = 0.01;
};

struct TrainingLoss {
  double loss = 0;  // mean over the counted rows; 0 when none is counted
  int correct = 0;  // counted rows whose arg-max logit is the target
  int count = 0;    // rows whose target is not −100
};

class AttentionOnlyTraining {
 public:
  // Expects a validated config (the trainer checks it): d_model divisible by heads.
  explicit AttentionOnlyTraining(const AttentionOnlyConfig& config);

  // Floats of all parameters, and each parameter's size in state_dict order.
  std::size_t parameter_count() const { return parameters_.size(); }
  const std::vector<std::size_t>& parameter_sizes() const { return sizes_; }
  float* parameters() { return parameters_.data(); }
  float* gradients() { return gradients_.data(); }
  float* exp_avg() { return exp_avg_.data(); }
  float* exp_avg_sq() { return exp_avg_sq_.data(); }

  // Floats of activations a step on (batch, t) tokens needs beyond what is held now (0: none to allocate).
  std::size_t scratch_growth(int batch, int t) const;

  // Forward on tokens (batch, t) ids in [0, vocab), targets ids or −100; with `gradients` the backward too,
  // the gradients overwritten. Expects 1 ≤ t ≤ context_length. The gradients are those of the summed loss
  // divided by `normalizer`, or by this batch's own count when it is 0: a shard of a larger batch (the
  // trainer's workers) passes the whole batch's count, so that the shards' gradients simply add up.
  TrainingLoss run(const int* inputs, const int* targets, int batch, int t, bool gradients, int normalizer = 0);

  // After run() (with or without gradients: the forward's activations are kept): the logits (batch·t, vocab) of
  // a run without gradients, and block `layer`'s attention weights (batch, heads, t, t) written into `out`, P
  // recomputed from the saved q, k and lse statistics (0 above the causal diagonal).
  const float* logits() const { return logits_.data(); }
  void attention_weights(int layer, float* out) const;

  // clip_grad_norm_: the global norm of the per-parameter norms, before clipping; max_norm ≤ 0 clips nothing.
  double clip_gradients(double max_norm);

  // torch.optim.AdamW's step number `step` (1, 2, …) on every parameter with the current gradients.
  void adamw_step(int step, const AdamWSettings& settings);

  // gradients += part (parameter_count() floats, the same layout), in float32: a worker's share of a batch
  // added to this model's (the trainer's threads, web/src/train/shards.js).
  void add_gradients(const float* part);

 private:
  struct Layer {
    std::size_t ln_weight = 0, ln_bias = 0, q_weight = 0, q_bias = 0, k_weight = 0, k_bias = 0, v_weight = 0,
                v_bias = 0, out_weight = 0, out_bias = 0;
  };
  std::size_t add_parameter(std::size_t size);
  void reserve(int batch, int t);

  AttentionOnlyConfig config_;
  std::vector<float> parameters_, gradients_, exp_avg_, exp_avg_sq_;
  std::vector<std::size_t> sizes_;
  std::size_t tok_emb_ = 0, pos_emb_ = 0, ln_final_weight_ = 0, ln_final_bias_ = 0, unembed_weight_ = 0,
              unembed_bias_ = 0;
  std::vector<Layer> layers_;

  // Per block, W_q, W_k, W_v packed into one (3d, d) matrix and their biases into one (3d) vector.
  std::vector<std::vector<float>> qkv_weight_, qkv_bias_;
  // Activations for `rows_` = batch·t rows: hidden_[l] (rows, d) is block l's input (hidden_[layers] the last
  // block's output); per block its LayerNorm output, x̂ and 1/σ (with LayerNorm), [q k v] (rows, 3d), the
  // context and the lse statistics.
  int rows_ = 0, batch_ = 0, t_ = 0;
  std::vector<std::vector<float>> hidden_, normed_, xhat_, rstd_, qkv_, context_, row_max_, log_sum_;
  std::vector<float> final_normed_, final_xhat_, final_rstd_, logits_;
  // Backward scratch.
  std::vector<float> grad_hidden_, grad_a_, grad_context_, grad_qkv_, grad_qkv_weight_, grad_qkv_bias_;
};

}  // namespace ap::kernels
