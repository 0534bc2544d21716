// GPT-2's forward (gpt2.h) from the steps: layer_norm, multihead_attention_fused (step 10c, causal) and
// Conv1D products x·W + b on Eigen; gelu_tanh is gelu's (gelu.cpp).
#include "attention/gpt2.h"

#include <cmath>

#include "attention/attention.h"
#include "attention/eigen_views.h"

namespace ap {

namespace {

// x (T, in)·W (in, out) + b: GPT-2's Conv1D, as a (T, out) tensor.
Tensor conv1d(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  const int T = x.shape[0], in = weight.shape[0], out = weight.shape[1];
  Tensor y{{T, out}, std::vector<float>(static_cast<std::size_t>(T) * out)};
  matrix_view(y, 0, T, out).noalias() = matrix_view(x, 0, T, in) * matrix_view(weight, 0, in, out);
  matrix_view(y, 0, T, out).rowwise() += ConstRowVectorView(bias.data.data(), out);
  return y;
}

void add_into(Tensor& x, const Tensor& y) {
  for (std::size_t i = 0; i < x.data.size(); ++i) x.data[i] += y.data[i];
}

}  // namespace

Gpt2Result gpt2_forward(const Gpt2Weights& w, const std::vector<int>& tokens) {
  const int T = static_cast<int>(tokens.size());
  const int C = w.wte.shape[1], V = w.wte.shape[0];
  Gpt2Result result;

  // 1. x = wte[tokens] + wpe[0..T): (T, C)
  Tensor x{{T, C}, std::vector<float>(static_cast<std::size_t>(T) * C)};
  for (int t = 0; t < T; ++t) {
    for (int c = 0; c < C; ++c) {
      x.data[static_cast<std::size_t>(t) * C + c] =
          w.wte.data[static_cast<std::size_t>(tokens[t]) * C + c] + w.wpe.data[static_cast<std::size_t>(t) * C + c];
    }
  }
  AttentionOptions causal;
  causal.causal = true;
  causal.heads = w.heads;
  for (const Gpt2Block& block : w.blocks) {
    // 2. x = x + attention(LN(x)): step 10c with c_attn as the in_projection, c_proj as the output projection
    Tensor a = layer_norm(x, {block.ln_1_weight, block.ln_1_bias, w.layer_norm_eps});
    a.shape = {1, T, C};  // (T, C) -> (B=1, T, C)
    AttentionResult attended = multihead_attention_fused(
        a, {block.c_attn_weight, block.c_attn_bias, block.attn_proj_weight, block.attn_proj_bias}, causal);
    attended.weights.shape = {w.heads, T, T};  // (1, H, T, T) -> (H, T, T)
    result.attention.push_back(std::move(attended.weights));
    attended.output.shape = {T, C};
    add_into(x, attended.output);
    // 3. x = x + MLP(LN(x)), the MLP gelu_tanh(·c_fc)·c_proj
    Tensor hidden = conv1d(layer_norm(x, {block.ln_2_weight, block.ln_2_bias, w.layer_norm_eps}), block.c_fc_weight,
                           block.c_fc_bias);
    for (float& value : hidden.data) value = gelu_tanh(value);
    add_into(x, conv1d(hidden, block.mlp_proj_weight, block.mlp_proj_bias));
  }
  // 4. logits = LN(x; ln_f)·wteᵀ: (T, C)·(C, V) -> (T, V)
  const Tensor final_x = layer_norm(x, {w.ln_f_weight, w.ln_f_bias, w.layer_norm_eps});
  result.logits = Tensor{{T, V}, std::vector<float>(static_cast<std::size_t>(T) * V)};
  matrix_view(result.logits, 0, T, V).noalias() = matrix_view(final_x, 0, T, C) * matrix_view(w.wte, 0, V, C).transpose();
  return result;
}

}  // namespace ap
