// Two shares of GPT-2 (gpt2_shard.h), their parts exchanged and summed by hand, give the whole model's
// forward (gpt2_inference.h): the logits and every layer's weights, with heads of both shares ablated.
#include <gtest/gtest.h>

#include <cstring>
#include <vector>

#include "kernels/gpt2_inference.h"
#include "kernels/gpt2_shard.h"
#include "test_data.h"

namespace ap::kernels {
namespace {

using testing::all_close;
using testing::random_values;

constexpr Gpt2Config kConfig{50, 16, 32, 4, 2, 64, 1e-5f};
constexpr int C = 32, H = 4, M = 64, V = 50, L = 2, D = C / H;

struct Whole {
  std::vector<float> all;  // gpt2_inference.h's order
  std::size_t at = 0;
  const float* take(std::size_t n) { at += n; return all.data() + at - n; }
};

// Share k's vectors and matrices cut from the whole model's parameters (web/src/gpt2/worker-plan.js's cut).
void fill(Gpt2Shard& shard, const std::vector<float>& parameters, const Gpt2ShardRange& r) {
  Whole whole{parameters};
  const float* wte = whole.take(V * C);
  whole.take(16 * C);  // wpe: the caller's
  const int w = (r.head_end - r.head_begin) * D, h0 = r.head_begin * D, m0 = r.mlp_begin, m = r.mlp_end - r.mlp_begin;
  float* vectors = shard.parameters();
  const auto put = [&](const float* from, int n) { std::memcpy(vectors, from, n * sizeof(float)); vectors += n; };
  for (int l = 0; l < L; ++l) {
    const float* ln_1_w = whole.take(C); const float* ln_1_b = whole.take(C);
    const float* c_attn = whole.take(C * 3 * C); const float* c_attn_b = whole.take(3 * C);
    const float* proj = whole.take(C * C); const float* proj_b = whole.take(C);
    const float* ln_2_w = whole.take(C); const float* ln_2_b = whole.take(C);
    const float* fc = whole.take(C * M); const float* fc_b = whole.take(M);
    const float* mlp_proj = whole.take(M * C); const float* mlp_proj_b = whole.take(C);
    put(ln_1_w, C); put(ln_1_b, C);
    for (int b = 0; b < 3; ++b) put(c_attn_b + b * C + h0, w);
    put(proj_b, C); put(ln_2_w, C); put(ln_2_b, C); put(fc_b + m0, m); put(mlp_proj_b, C);
    float* s = shard.stage(4 * l);
    for (int i = 0; i < C; ++i) for (int b = 0; b < 3; ++b) std::memcpy(s + i * 3 * w + b * w, c_attn + i * 3 * C + b * C + h0, w * sizeof(float));
    shard.pack_staged(4 * l);
    std::memcpy(shard.stage(4 * l + 1), proj + h0 * C, w * C * sizeof(float));
    shard.pack_staged(4 * l + 1);
    s = shard.stage(4 * l + 2);
    for (int i = 0; i < C; ++i) std::memcpy(s + i * m, fc + i * M + m0, m * sizeof(float));
    shard.pack_staged(4 * l + 2);
    std::memcpy(shard.stage(4 * l + 3), mlp_proj + m0 * C, m * C * sizeof(float));
    shard.pack_staged(4 * l + 3);
  }
  std::memcpy(vectors, whole.take(C), C * sizeof(float));  // ln_f.weight
  std::memcpy(vectors + C, whole.take(C), C * sizeof(float));  // ln_f.bias
  std::memcpy(shard.stage(4 * L), wte + r.vocab_begin * C, (r.vocab_end - r.vocab_begin) * C * sizeof(float));
  shard.pack_staged(4 * L);
  shard.release_staging();
}

TEST(Gpt2Shard, TwoSharesGiveTheWholeModelsLogitsAndWeights) {
  Gpt2Inference whole(kConfig);
  const std::vector<float> parameters = random_values(whole.parameter_count(), 23, 0.3f);
  std::memcpy(whole.parameters(), parameters.data(), parameters.size() * sizeof(float));
  const std::vector<Gpt2ShardRange> ranges = {{0, 3, 0, 24, 0, 16}, {3, 4, 24, 64, 16, 50}};  // an uneven cut
  std::vector<Gpt2Shard> shards;
  for (const auto& range : ranges) shards.emplace_back(kConfig, range, 2);
  for (int k = 0; k < 2; ++k) fill(shards[k], parameters, ranges[k]);

  const std::vector<int> tokens = {3, 14, 15, 9, 26, 5, 35, 8, 9, 7, 9, 3};
  const int t = static_cast<int>(tokens.size());
  std::vector<unsigned char> heads_off(L * H, 0);
  heads_off[0 * H + 1] = 1;  // layer 0, head 1 (share 0): zeros
  heads_off[1 * H + 3] = 2;  // layer 1, head 3 (share 1): its mean
  for (const bool attention : {false, true}) {
    whole.forward(tokens.data(), t, heads_off.data(), attention);
    for (auto& shard : shards) {
      shard.begin(t, attention);
      for (int i = 0; i < t; ++i) for (int c = 0; c < C; ++c) shard.residual()[i * C + c] = parameters[tokens[i] * C + c] + parameters[V * C + i * C + c];
    }
    for (int l = 0; l < L; ++l) {
      for (int stage = 0; stage < 2; ++stage) {
        for (int k = 0; k < 2; ++k) stage == 0 ? shards[k].attention(l, k, heads_off.data()) : shards[k].mlp(l, k);
        // the exchange: each share's part copied into the other's
        std::memcpy(shards[1].part(0), shards[0].part(0), t * C * sizeof(float));
        std::memcpy(shards[0].part(1), shards[1].part(1), t * C * sizeof(float));
        for (auto& shard : shards) shard.add_parts(l, stage);
      }
    }
    std::vector<float> logits(t * V), expected(whole.logits(), whole.logits() + t * V);
    for (int k = 0; k < 2; ++k) {
      shards[k].logits();
      const int v0 = ranges[k].vocab_begin, v = ranges[k].vocab_end - v0;
      for (int i = 0; i < t; ++i) std::memcpy(&logits[i * V + v0], shards[k].logits_data() + i * v, v * sizeof(float));
    }
    EXPECT_TRUE(all_close(logits, expected, 1e-5, 1e-5)) << "attention " << attention;
    if (!attention) continue;
    for (int l = 0; l < L; ++l) {
      std::vector<float> weights(whole.attention(l), whole.attention(l) + H * t * t), joined;
      for (int k = 0; k < 2; ++k) {
        const float* part = shards[k].attention_weights(l);
        joined.insert(joined.end(), part, part + (ranges[k].head_end - ranges[k].head_begin) * t * t);
      }
      EXPECT_TRUE(all_close(joined, weights, 1e-6, 1e-6)) << "layer " << l;
    }
  }
}

}  // namespace
}  // namespace ap::kernels
