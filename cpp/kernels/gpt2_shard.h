// One worker's share of GPT-2's forward for tensor-parallel inference (Megatron-LM's split of a block):
// worker k of n holds heads [h0, h1) of every layer's attention (those heads' columns of c_attn's q, k and v,
// and the same rows of attn.c_proj), columns [m0, m1) of the MLP (c_fc's columns, mlp.c_proj's rows), and
// rows [v0, v1) of wte for its columns of the logits. Each worker keeps the residual stream x (t, C) itself:
//
//   x₀ = wte[token] + wpe[t]                          (given by the caller, the same to every worker)
//   per block l:  part_k = attention_k(LN(x; ln_1))·c_proj[rows of heads_k]      (t, C), this worker's share
//                 x ← x + Σ_k part_k + c_proj.b        (the parts exchanged, summed in worker order)
//                 part_k = gelu(LN(x; ln_2)·c_fc[:, m0:m1] + b[m0:m1])·mlp.c_proj[m0:m1, :]
//                 x ← x + Σ_k part_k + mlp.c_proj.b
//   logits[:, v0:v1] = LN(x; ln_f)·wte[v0:v1]ᵀ
//
// Every worker sums the same parts in the same order, so every worker's x is the same, bit for bit; two
// exchanges of (t, C) floats per block are all the workers share. The caller (web/src/gpt2/worker-model.js)
// moves the parts between them.
#pragma once

#include <cstddef>
#include <vector>

#include "gemm.h"
#include "gpt2_inference.h"

namespace ap::kernels {

struct Gpt2ShardRange {
  int head_begin = 0, head_end = 0;    // [h0, h1) of config.heads
  int mlp_begin = 0, mlp_end = 0;      // [m0, m1) of config.d_mlp
  int vocab_begin = 0, vocab_end = 0;  // [v0, v1) of config.vocab_size
};

class Gpt2Shard : private gpt2::Activations {
 public:
  // Expects a validated config and ranges inside it (web/src/gpt2/worker-plan.js), `parts` ≥ 1 workers.
  Gpt2Shard(const Gpt2Config& config, const Gpt2ShardRange& range, int parts);

  // This share's vectors, one float array in this order: per layer ln_1.weight, ln_1.bias (C each), c_attn.bias's
  // entries of the heads for q, then k, then v (3·w, w = (h1 − h0)·d_head), attn.c_proj.bias (C), ln_2.weight,
  // ln_2.bias, mlp.c_fc.bias[m0:m1], mlp.c_proj.bias (C); then ln_f.weight, ln_f.bias.
  std::size_t parameter_count() const { return parameters_.size(); }
  float* parameters() { return parameters_.data(); }

  // Its matrices, each written by the caller into a staging buffer and packed, one at a time (the unpacked
  // copies are never all held): matrix 4l + 0, c_attn's columns of the heads for q, k, v (C, 3·w); 4l + 1,
  // attn.c_proj's rows of the heads (w, C); 4l + 2, mlp.c_fc's columns (C, m1 − m0); 4l + 3, mlp.c_proj's rows
  // (m1 − m0, C); 4·layers, wte's rows [v0, v1) (v1 − v0, C). matrix_floats(i): its size; stage(i): the buffer
  // to write it to; pack_staged(i): packs it. release_staging() frees the buffer after the last.
  int matrix_count() const { return 4 * config_.layers + 1; }
  std::size_t matrix_floats(int i) const;
  float* stage(int i);
  void pack_staged(int i);
  void release_staging() { std::vector<float>().swap(staging_); }
  // Frees packed matrix i: a caller that streams the layers (float16-resident weights, web/src/gpt2/half-model.js)
  // packs a layer's matrices before its block and releases them after it.
  void release(int i) { packed_[i] = PackedMatrix{}; }
  // The floats of every packed matrix (what the packing allocates), and of the staging buffer at its largest.
  std::size_t packed_floats() const;
  std::size_t staging_floats() const;
  // Floats a forward over t tokens needs beyond what is held now.
  std::size_t scratch_growth(int t, bool attention) const;

  // Starts a forward over t tokens: x (t, C) is to be written at residual() before attention(0).
  void begin(int t, bool attention);
  float* residual() { return x_.data(); }
  // This worker's part of block l's attention (heads_off: layers·heads flags or null) or MLP, written to part(k).
  void attention(int layer, int k, const unsigned char* heads_off);
  void mlp(int layer, int k);
  // Worker j's part of the current sublayer, (t, C): this worker's own, or a peer's written in by the caller.
  float* part(int j) { return parts_[j].data(); }
  // x ← x + Σ_j part(j) + bias of block l's attention (stage 0) or MLP (stage 1).
  void add_parts(int layer, int stage);
  // logits (t, v1 − v0) = LN(x; ln_f)·wte[v0:v1]ᵀ.
  void logits();
  const float* logits_data() const { return logits_.data(); }
  // Block l's weights of this worker's heads (h1 − h0, t, t), after a forward begun with attention.
  const float* attention_weights(int layer) const { return weights_[layer].data(); }

 private:
  struct Layer {
    std::size_t ln_1_weight, ln_1_bias, c_attn_bias, attn_proj_bias, ln_2_weight, ln_2_bias, c_fc_bias, mlp_proj_bias;
  };
  std::size_t add(std::size_t size);
  void matrix_shape(int i, int& rows, int& cols) const;

  Gpt2Config config_;
  Gpt2ShardRange range_;
  int heads_ = 0, width_ = 0, mlp_ = 0, vocab_ = 0;  // this share's heads, their columns, MLP columns, vocabulary rows
  std::vector<float> parameters_;
  std::vector<Layer> layers_;
  std::size_t ln_f_weight_ = 0, ln_f_bias_ = 0;
  std::vector<float> staging_;
  // pack_staged()'s panels: matrix i of the order above.
  std::vector<PackedMatrix> packed_;
  int t_ = 0;
  // The activations (gpt2::Activations) are sized for t_ rows, and so is each worker's part (t, C).
  std::vector<std::vector<float>> parts_;
  bool keep_weights_ = false;
};

}  // namespace ap::kernels
