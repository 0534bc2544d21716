// The passes of GPT-2's forward that the whole model (gpt2_inference.h) and one worker's share of it
// (gpt2_shard.h) both run: LayerNorm, GPT-2's tanh GELU, Conv1D on packed weights, causal attention over
// [q k v] rows (fused, or keeping the weights) and the ablation of heads.
#pragma once

#include <cstddef>
#include <vector>

#include "gemm.h"

namespace ap::kernels::gpt2 {

// y (rows, d) = (x − mean)/√(var + eps)·γ + β per row, the biased variance, as torch's LayerNorm. Where given,
// xhat (rows, d) keeps x̂ = (x − mean)/√(var + eps) and rstd (rows) 1/√(var + eps), for a backward (the
// attention-only trainer's, attention_only_training.cpp).
void layer_norm(const float* x, const float* gamma, const float* beta, int rows, int d, float eps, float* y,
                float* xhat = nullptr, float* rstd = nullptr);

// y ← gelu_tanh(y) elementwise: 0.5·y·(1 + tanh(√(2/π)·(y + 0.044715·y³))).
void gelu_tanh_in_place(float* y, std::size_t count);

// y (rows, out) = x (rows, in)·W (in, out) + b: Conv1D's layout, W packed; with `accumulate`, y += that.
// bias may be null (none).
void conv1d(const float* x, const PackedMatrix& weight, const float* bias, int rows, float* y, bool accumulate = false);

// Causal attention of `heads` heads over qkv (t, ≥ 3·heads·d_head) rows of stride `stride`: q at column 0,
// k at heads·d_head, v at 2·heads·d_head; context (t, heads·d_head), row stride context_stride.
// fused: the online-softmax kernel; with_weights: softmax(q·kᵀ/√d_head, masked) per head, its weights
// written to weights (heads, t, t).
void causal_attention_fused(const float* qkv, int stride, int t, int heads, int d_head, float* context, int context_stride);
void causal_attention_with_weights(const float* qkv, int stride, int t, int heads, int d_head, float* weights,
                                   float* context, int context_stride);

// Replaces the context columns of the heads `flags` switches off (flags[h]: 0 on, 1 zeros, 2 the head's
// context averaged over the t positions), heads [0, heads) of a (t, ·) context of row stride `stride`.
void ablate_heads(const unsigned char* flags, int heads, int d_head, int t, float* context, int stride);

// The activations of a forward over t rows, as the whole model and one worker's share both keep them: the
// residual stream x and a LayerNorm's output (t, C), [q k v] (t, 3·width), the context (t, width), the MLP's
// hidden layer (t, mlp), the logits (t, vocab), and per layer its attention weights (heads, t, t) when asked for.
// width, mlp, vocab and heads are the share's (the whole model's: C, d_mlp, V, H).
class Activations {
 protected:
  explicit Activations(int layers) : weights_(layers) {}
  // The floats they need for t rows (the weights of every layer with attention), and those they hold now.
  std::size_t activation_floats(std::size_t t, std::size_t C, std::size_t width, std::size_t mlp, std::size_t vocab,
                                std::size_t heads, bool attention) const;
  std::size_t held_floats() const;
  // Sizes them for t rows; without attention the weights are given back.
  void size_activations(std::size_t t, std::size_t C, std::size_t width, std::size_t mlp, std::size_t vocab,
                        std::size_t heads, bool attention);

  std::vector<float> x_, normed_, qkv_, context_, hidden_, logits_;
  std::vector<std::vector<float>> weights_;
};

}  // namespace ap::kernels::gpt2
