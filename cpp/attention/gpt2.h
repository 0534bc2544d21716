// GPT-2's forward as teaching code: the curriculum's own functions put together, reading like the math.
// One sequence of T tokens; C = d_model, H heads, M the MLP's width, V the vocabulary.
//
//   x = wte[tokens] + wpe[0..T)                                            (T, C)
//   per block:  x = x + multihead_attention_fused(layer_norm(x; ln_1), {c_attn, c_proj}, causal)
//               x = x + gelu_tanh(layer_norm(x; ln_2)·c_fc.W + b)·mlp.c_proj.W + b
//   logits = layer_norm(x; ln_f)·wteᵀ                                      (T, V), the unembedding tied to wte
//
// GPT-2's fused c_attn (C, 3C) is step 10c's in_projection; its Conv1D weights are stored (in, out), the layout
// the steps use (x·W). The fast path is cpp/kernels/gpt2_inference.h; the JS reference web/src/gpt2.
#pragma once

#include <vector>

#include "attention/tensor.h"

namespace ap {

// One block's parameters, Hugging Face's names (h.N.…), shapes in the comments.
struct Gpt2Block {
  Tensor ln_1_weight, ln_1_bias;          // (C)
  Tensor c_attn_weight, c_attn_bias;      // (C, 3C), (3C)
  Tensor attn_proj_weight, attn_proj_bias;  // attn.c_proj: (C, C), (C)
  Tensor ln_2_weight, ln_2_bias;          // (C)
  Tensor c_fc_weight, c_fc_bias;          // mlp.c_fc: (C, M), (M)
  Tensor mlp_proj_weight, mlp_proj_bias;  // mlp.c_proj: (M, C), (C)
};

struct Gpt2Weights {
  Tensor wte;  // (V, C)
  Tensor wpe;  // (P, C), P ≥ T
  std::vector<Gpt2Block> blocks;
  Tensor ln_f_weight, ln_f_bias;  // (C)
  int heads = 1;
  float layer_norm_eps = 1e-5f;
};

// logits (T, V); attention[l] (H, T, T): block l's weights.
struct Gpt2Result {
  Tensor logits;
  std::vector<Tensor> attention;
};

// GELU with GPT-2's tanh approximation: 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (gelu.cpp, gelu's tanh form).
float gelu_tanh(float x);

// tokens: T ids in [0, V), 1 ≤ T ≤ P. Expects weights of consistent shapes (the caller's loader checks them).
Gpt2Result gpt2_forward(const Gpt2Weights& weights, const std::vector<int>& tokens);

}  // namespace ap
