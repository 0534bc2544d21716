// GPT-2's forward on the fast path, the model kept whole in the WASM heap: the parameters are written once
// (Hugging Face's names and Conv1D (in, out) layouts, in gpt2_parameter order below), and a forward is one
// call with the token ids in and the logits out.
//
//   x₀ = wte[token] + wpe[t]                                                  (T, C)
//   per block l:  a = LN(x; ln_1);  [q k v] = a·c_attn.W + c_attn.b            (T, 3C), one GEMM
//                 c = causal attention per head, 1/√d_head                      (T, C), the fused kernel
//                     (or, when the weights are asked for, softmax(q·kᵀ/√d_head, masked)·v per head)
//                 x ← x + c·attn.c_proj.W + b
//                 m = gelu_tanh(LN(x; ln_2)·c_fc.W + b);  x ← x + m·mlp.c_proj.W + b
//   logits = LN(x; ln_f)·wteᵀ                                                  (T, V), tied unembedding
//
// Ablated heads (`heads_off`: 1 = zeros, 2 = the head's context averaged over the positions) are replaced
// before c_proj. Every product is the packed GEMM (gemm.h) on weights packed once (pack(): the GEMM's panels of c_attn, c_proj,
// c_fc, mlp.c_proj and wteᵀ, built after the parameters are written, not on every call); the residual adds are
// the GEMM's accumulate.
#pragma once

#include <cstddef>
#include <vector>

#include "gemm.h"
#include "gpt2_passes.h"

namespace ap::kernels {

struct Gpt2Config {
  int vocab_size = 0, context_length = 0, d_model = 0, heads = 1, layers = 1, d_mlp = 0;
  float layer_norm_eps = 1e-5f;
};

class Gpt2Inference : private gpt2::Activations {
 public:
  // Expects a validated config (web/src/gpt2/checkpoint.js gpt2Config): d_model divisible by heads.
  explicit Gpt2Inference(const Gpt2Config& config);

  // All parameters, one float array in this order: wte (V, C), wpe (P, C); per layer ln_1.weight, ln_1.bias,
  // attn.c_attn.weight (C, 3C), attn.c_attn.bias, attn.c_proj.weight (C, C), attn.c_proj.bias, ln_2.weight,
  // ln_2.bias, mlp.c_fc.weight (C, M), mlp.c_fc.bias, mlp.c_proj.weight (M, C), mlp.c_proj.bias; ln_f.weight,
  // ln_f.bias (web/src/gpt2/checkpoint.js gpt2ParameterShapes, the same order).
  std::size_t parameter_count() const { return parameters_.size(); }
  float* parameters() { return parameters_.data(); }

  // Packs the matrices for the GEMM (after the parameters are written; again if they change). Floats it
  // allocates: packed_floats().
  void pack();
  std::size_t packed_floats() const;

  // Floats a forward over t tokens needs beyond what is held now (0: none to allocate).
  std::size_t scratch_growth(int t, bool attention) const;

  // tokens: t ids in [0, vocab); 1 ≤ t ≤ context_length (checked by the caller). heads_off: layers·heads
  // flags (0: on, 1: zero-ablated, 2: mean-ablated) or null. attention: also keep every layer's weights (heads, t, t).
  void forward(const int* tokens, int t, const unsigned char* heads_off, bool attention);

  // After forward(): the logits (t, vocab), and layer l's attention weights (heads, t, t) when asked for.
  const float* logits() const { return logits_.data(); }
  const float* attention(int layer) const { return weights_[layer].data(); }

 private:
  struct Layer {
    std::size_t ln_1_weight, ln_1_bias, c_attn_weight, c_attn_bias, attn_proj_weight, attn_proj_bias, ln_2_weight,
        ln_2_bias, c_fc_weight, c_fc_bias, mlp_proj_weight, mlp_proj_bias;
  };
  std::size_t add(std::size_t size);
  void reserve(int t, bool attention);
  void attention_with_weights(int l, int t);

  Gpt2Config config_;
  std::vector<float> parameters_;
  std::size_t wte_ = 0, wpe_ = 0, ln_f_weight_ = 0, ln_f_bias_ = 0;
  std::vector<Layer> layers_;
  // pack()'s panels, per layer c_attn, attn.c_proj, c_fc, mlp.c_proj; and wteᵀ for the unembedding.
  std::vector<PackedMatrix> c_attn_, attn_proj_, c_fc_, mlp_proj_;
  PackedMatrix unembedding_;
  // The activations (gpt2::Activations) are sized for t_ rows.
  int t_ = 0;
};

}  // namespace ap::kernels
