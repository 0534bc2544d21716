// The resident training model (attention_only_training.h): its gradients against central finite differences of
// its own loss, the attention weights it recomputes, clip_grad_norm_, and AdamW's first step. The 50-step match with PyTorch is the JS fixture test
// (tests/unit/trainer-torch.test.js), which runs this code on both WASM builds.
#include "kernels/attention_only_training.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <random>
#include <string>
#include <vector>

namespace ap::kernels {
namespace {

struct Case {
  bool layer_norm;
  int layers;
};

class TrainingGradients : public ::testing::TestWithParam<Case> {};

TEST_P(TrainingGradients, MatchCentralDifferences) {
  const Case c = GetParam();
  AttentionOnlyTraining model({7, 6, 8, 2, c.layers, c.layer_norm});
  std::mt19937 random(3);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  float* p = model.parameters();
  for (std::size_t i = 0; i < model.parameter_count(); ++i) p[i] = normal(random);
  const int batch = 2, t = 5;
  const std::vector<int> inputs = {1, 4, 2, 6, 0, 3, 3, 5, 1, 2};
  const std::vector<int> targets = {4, 2, -100, 0, 5, 3, 5, 1, -100, 6};
  const TrainingLoss loss = model.run(inputs.data(), targets.data(), batch, t, true);
  EXPECT_EQ(loss.count, 8);
  const std::vector<float> grads(model.gradients(), model.gradients() + model.parameter_count());
  const float h = 1e-2f;
  for (std::size_t i = 0; i < model.parameter_count(); i += 7) {
    const float saved = p[i];
    p[i] = saved + h;
    const double up = model.run(inputs.data(), targets.data(), batch, t, false).loss;
    p[i] = saved - h;
    const double down = model.run(inputs.data(), targets.data(), batch, t, false).loss;
    p[i] = saved;
    const double numeric = (up - down) / (2.0 * h);
    EXPECT_NEAR(grads[i], numeric, 2e-3 + 2e-2 * std::abs(numeric)) << "parameter float " << i;
  }
}

INSTANTIATE_TEST_SUITE_P(Models, TrainingGradients,
                         ::testing::Values(Case{false, 1}, Case{false, 2}, Case{true, 1}, Case{true, 2}),
                         [](const ::testing::TestParamInfo<Case>& info) {
                           return std::string(info.param.layer_norm ? "LayerNorm" : "NoLayerNorm") + "_" +
                                  std::to_string(info.param.layers) + "layers";
                         });

// Where the true gradient is exactly 0 the model's is too, so AdamW never moves those weights: at context length 1
// (one key, P = 1) q_proj's and k_proj's; at any length k_proj.bias's (the softmax cancels q·b_k on each row).
TEST(TrainingGradients, AreExactlyZeroWhereTheSoftmaxCancelsThem) {
  for (const bool layer_norm : {false, true}) {
    for (const int t : {1, 5}) {
      const int V = 7, T = 6, d = 8, layers = 2;
      AttentionOnlyTraining model({V, T, d, 2, layers, layer_norm});
      std::mt19937 random(5);
      std::normal_distribution<float> normal(0.0f, 0.5f);
      float* p = model.parameters();
      for (std::size_t i = 0; i < model.parameter_count(); ++i) p[i] = normal(random);
      const int batch = 3;
      std::vector<int> inputs(batch * t), targets(batch * t);
      for (int n = 0; n < batch * t; ++n) {
        inputs[n] = (3 * n + 1) % V;
        targets[n] = (5 * n + 2) % V;
      }
      model.run(inputs.data(), targets.data(), batch, t, true);
      const float* g = model.gradients();
      // the layout of the constructor: tok_emb, pos_emb, then per block [ln], q (W, b), k (W, b), v, out
      std::size_t at = static_cast<std::size_t>(V + T) * d;
      for (int l = 0; l < layers; ++l) {
        if (layer_norm) at += 2 * d;
        const std::size_t q_weight = at, k_bias = at + 2 * d * d + d;
        for (int i = 0; i < d; ++i) EXPECT_EQ(g[k_bias + i], 0.0f) << "k_proj.bias, layer " << l << ", t " << t;
        double q_and_k = 0;  // at t = 5 the weights have real gradients
        for (std::size_t i = q_weight; i < k_bias; ++i) {
          if (t == 1) EXPECT_EQ(g[i], 0.0f) << "q_proj/k_proj float " << i - q_weight << ", layer " << l;
          q_and_k += std::abs(g[i]);
        }
        if (t > 1) EXPECT_GT(q_and_k, 1e-3);
        at += 4 * (d * d + d);
      }
    }
  }
}

TEST(TrainingForward, AttentionWeightsAreCausalRowsOfTheSoftmax) {
  // attention_weights recomputes P from the saved q, k and lse: each row sums to 1 over the keys it sees, 0 past
  // the diagonal (the values against the JS model's: tests/unit/train-engines.test.js)
  AttentionOnlyTraining model({7, 6, 8, 2, 2, true});
  std::mt19937 random(5);
  std::normal_distribution<float> normal(0.0f, 0.5f);
  float* p = model.parameters();
  for (std::size_t i = 0; i < model.parameter_count(); ++i) p[i] = normal(random);
  const int batch = 2, t = 5, heads = 2;
  const std::vector<int> inputs = {1, 4, 2, 6, 0, 3, 3, 5, 1, 2};
  const std::vector<int> targets(10, -100);
  model.run(inputs.data(), targets.data(), batch, t, false);
  for (int layer = 0; layer < 2; ++layer) {
    std::vector<float> weights(static_cast<std::size_t>(batch) * heads * t * t, 7.0f);
    model.attention_weights(layer, weights.data());
    for (std::size_t row = 0; row < weights.size() / t; ++row) {
      const int i = static_cast<int>(row % t);
      double sum = 0;
      for (int j = 0; j < t; ++j) {
        const float w = weights[row * t + j];
        if (j > i) EXPECT_EQ(w, 0.0f) << "layer " << layer << " row " << row << " key " << j;
        else EXPECT_GT(w, 0.0f);
        sum += w;
      }
      EXPECT_NEAR(sum, 1.0, 1e-5) << "layer " << layer << " row " << row;
    }
  }
}

// The trainer's workers (web/src/train/shards.js) split a batch by rows and add the shards' gradients: each
// shard divides its summed loss by the whole batch's count, so the sum is the whole batch's gradient.
TEST(TrainingShards, GradientsWithTheWholeBatchCountAddUpToTheBatchGradient) {
  const AttentionOnlyConfig config{9, 6, 8, 2, 2, true};
  AttentionOnlyTraining whole(config), shard(config);
  std::mt19937 random(5);
  std::normal_distribution<float> normal(0.0f, 0.3f);
  for (std::size_t i = 0; i < whole.parameter_count(); ++i) whole.parameters()[i] = shard.parameters()[i] = normal(random);
  const int t = 4;
  const std::vector<int> inputs = {1, 4, 2, 6, 0, 3, 3, 5, 1, 2, 8, 7};
  const std::vector<int> targets = {4, 2, -100, 0, -100, -100, -100, -100, 1, -100, 6, 3};
  const TrainingLoss all = whole.run(inputs.data(), targets.data(), 3, t, true);
  EXPECT_EQ(all.count, 6);
  // rows 0..1 (one of them wholly ignored) and row 2
  const TrainingLoss first = shard.run(inputs.data(), targets.data(), 2, t, true, all.count);
  const std::vector<float> part(shard.gradients(), shard.gradients() + shard.parameter_count());
  const TrainingLoss second = shard.run(inputs.data() + 2 * t, targets.data() + 2 * t, 1, t, true, all.count);
  std::vector<float> sum(shard.gradients(), shard.gradients() + shard.parameter_count());
  for (std::size_t i = 0; i < sum.size(); ++i) sum[i] += part[i];
  // add_gradients, what the calling thread uses to add a worker's part: float32, element by element
  shard.add_gradients(part.data());
  for (std::size_t i = 0; i < sum.size(); ++i) EXPECT_EQ(shard.gradients()[i], sum[i]) << i;
  EXPECT_EQ(first.count + second.count, all.count);
  EXPECT_NEAR((first.loss * first.count + second.loss * second.count) / all.count, all.loss, 1e-12);
  for (std::size_t i = 0; i < sum.size(); ++i) EXPECT_NEAR(sum[i], whole.gradients()[i], 1e-6) << i;
}

TEST(TrainingOptimizer, ClipsToTheMaxNormAndTakesAdamWFirstStep) {
  AttentionOnlyTraining model({5, 4, 4, 1, 1, false});
  float* p = model.parameters();
  float* g = model.gradients();
  for (std::size_t i = 0; i < model.parameter_count(); ++i) {
    p[i] = 0.5f;
    g[i] = (i % 3 == 0) ? 0.2f : -0.1f;
  }
  const double norm = model.clip_gradients(0);
  double sum = 0;
  for (std::size_t i = 0; i < model.parameter_count(); ++i) sum += static_cast<double>(g[i]) * g[i];
  EXPECT_NEAR(norm, std::sqrt(sum), 1e-6 * norm);
  EXPECT_NEAR(model.clip_gradients(norm / 2), norm, 1e-6 * norm);
  sum = 0;
  for (std::size_t i = 0; i < model.parameter_count(); ++i) sum += static_cast<double>(g[i]) * g[i];
  EXPECT_NEAR(std::sqrt(sum), norm / 2, 1e-5 * norm);
  // step 1: m = (1 − β₁)g, v = (1 − β₂)g², so p ← p(1 − lr·λ) − lr·g/(|g| + ε)
  const std::vector<float> clipped(g, g + model.parameter_count());
  model.adamw_step(1, {0.01, 0.9, 0.999, 1e-8, 0.1});
  for (std::size_t i = 0; i < model.parameter_count(); ++i) {
    const double expected = 0.5 * (1 - 0.01 * 0.1) - 0.01 * clipped[i] / (std::abs(clipped[i]) + 1e-8);
    EXPECT_NEAR(p[i], expected, 1e-6) << i;
  }
}

}  // namespace
}  // namespace ap::kernels
