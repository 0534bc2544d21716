// Every case of the gradient fixtures (tests/fixtures/<function>Backward.json, torch autograd) against the
// native teaching backward. Each gradient the case lists must be present and within the case's tolerance;
// each gradient the case does not list (an optional input that was not given) must be absent.
#include <functional>
#include <map>
#include <string>

#include "attention/fused_rule.h"
#include "paths/fast_attention_backward.h"
#include "fixture_loader.h"
#include "test_support.h"

namespace ap {
namespace {

using nlohmann::json;
using testing::all_close;
using testing::load_fixture;
using testing::to_tensor;

// Gradients keyed by the inputs' JS names; a stacked head's are "heads[h].query", ….
using Gradients = std::map<std::string, Tensor>;

void add_weights(Gradients& named, const std::string& prefix, const ProjectionWeights& w) {
  named[prefix + "query"] = w.query;
  named[prefix + "key"] = w.key;
  named[prefix + "value"] = w.value;
  named[prefix + "queryBias"] = w.query_bias;
  named[prefix + "keyBias"] = w.key_bias;
  named[prefix + "valueBias"] = w.value_bias;
  named[prefix + "outWeight"] = w.out_weight;
  named[prefix + "outBias"] = w.out_bias;
}

Gradients named(const ProjectionGradients& g) {
  Gradients all{{"x", g.x}};
  add_weights(all, "", g.weights);
  return all;
}
Gradients named(const StackedGradients& g) {
  Gradients all{{"x", g.x}, {"outWeight", g.weights.out_weight}, {"outBias", g.weights.out_bias}};
  for (std::size_t h = 0; h < g.weights.heads.size(); ++h) {
    add_weights(all, "heads[" + std::to_string(h) + "].", g.weights.heads[h]);
  }
  return all;
}
Gradients named(const FusedGradients& g) {
  return {{"x", g.x},
          {"inProjection", g.weights.in_projection},
          {"inBias", g.weights.in_bias},
          {"outWeight", g.weights.out_weight},
          {"outBias", g.weights.out_bias}};
}
Gradients named(const CrossAttentionGradients& g) {
  Gradients all{{"xQuery", g.x_query}, {"xContext", g.x_context}};
  add_weights(all, "", g.weights);
  return all;
}

// The expected gradients, flattened the same way.
Gradients expected_gradients(const json& expected) {
  Gradients all;
  for (const auto& [name, value] : expected.items()) {
    if (name == "heads") {
      for (std::size_t h = 0; h < value.size(); ++h)
        for (const auto& [weight, tensor] : value[h].items())
          all["heads[" + std::to_string(h) + "]." + weight] = to_tensor(tensor);
    } else {
      all[name] = to_tensor(value);
    }
  }
  return all;
}

void check_backward_fixture(const std::string& function, const std::function<Gradients(const json& args)>& call) {
  json cases;
  ASSERT_TRUE(load_fixture(function, cases));
  ASSERT_FALSE(cases.empty());
  for (const json& one : cases) {
    SCOPED_TRACE(function + ": " + one.at("name").get<std::string>());
    const double atol = one.value("atol", 1e-5), rtol = one.value("rtol", 1e-5);
    const Gradients actual = call(one.at("args"));
    const Gradients expected = expected_gradients(one.at("expected"));
    for (const auto& [name, tensor] : expected) {
      const auto found = actual.find(name);
      ASSERT_NE(found, actual.end()) << "no gradient named " << name;
      EXPECT_TRUE(all_close(found->second, tensor, atol, rtol)) << "gradient of " << name;
    }
    for (const auto& [name, tensor] : actual) {
      if (!expected.count(name)) EXPECT_FALSE(tensor.present()) << "gradient of " << name << " should be absent";
    }
  }
}

TEST(BackwardFixtures, SelfAttentionBackwardMatchesAutograd) {
  check_backward_fixture("selfAttentionBackward", [](const json& args) {
    return named(self_attention_backward(to_tensor(args[0]), testing::to_projection_weights(args[1]),
                                         to_tensor(args[2]), testing::to_options<AttentionOptions>(args[3])));
  });
}

// The multi-head and cross backward two ways: the teaching functions, and the fast entry points (after the
// check, as a binding calls them) with intermediates false, which run the fused backward wherever the options
// allow it (no dropout; causal only with the '-inf' mask), the teaching code elsewhere: both meet every case.
AttentionOptions options_for(const json& value, bool fast) {
  AttentionOptions options = testing::to_options<AttentionOptions>(value);
  options.intermediates = !fast;
  return options;
}

class BackwardPaths : public ::testing::TestWithParam<bool> {};

TEST_P(BackwardPaths, MultiheadAttentionSplitBackwardMatchesAutograd) {
  const bool fast = GetParam();
  check_backward_fixture("multiheadAttentionSplitBackward", [fast](const json& args) {
    const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
    const ProjectionWeights weights = testing::to_projection_weights(args[1]);
    const AttentionOptions options = options_for(args[3], fast);
    if (!fast) return named(multihead_attention_split_backward(x, weights, grad, options));
    EXPECT_EQ(check_multihead_attention_split_backward(x, weights, grad, options), "");
    return named(multihead_attention_split_backward_fast(x, weights, grad, options));
  });
}

TEST_P(BackwardPaths, MultiheadAttentionStackedBackwardMatchesAutograd) {
  const bool fast = GetParam();
  check_backward_fixture("multiheadAttentionStackedBackward", [fast](const json& args) {
    const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
    const StackedWeights weights = testing::to_stacked_weights(args[1]);
    const AttentionOptions options = options_for(args[3], fast);
    if (!fast) return named(multihead_attention_stacked_backward(x, weights, grad, options));
    EXPECT_EQ(check_multihead_attention_stacked_backward(x, weights, grad, options), "");
    return named(multihead_attention_stacked_backward_fast(x, weights, grad, options));
  });
}

TEST_P(BackwardPaths, MultiheadAttentionFusedBackwardMatchesAutograd) {
  const bool fast = GetParam();
  check_backward_fixture("multiheadAttentionFusedBackward", [fast](const json& args) {
    const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
    const FusedWeights weights = testing::to_fused_weights(args[1]);
    const AttentionOptions options = options_for(args[3], fast);
    if (!fast) return named(multihead_attention_fused_backward(x, weights, grad, options));
    EXPECT_EQ(check_multihead_attention_fused_backward(x, weights, grad, options), "");
    return named(multihead_attention_fused_backward_fast(x, weights, grad, options));
  });
}

TEST_P(BackwardPaths, CrossAttentionBackwardMatchesAutograd) {
  const bool fast = GetParam();
  check_backward_fixture("crossAttentionBackward", [fast](const json& args) {
    const Tensor x_query = to_tensor(args[0]), x_context = to_tensor(args[1]), grad = to_tensor(args[3]);
    const ProjectionWeights weights = testing::to_projection_weights(args[2]);
    const AttentionOptions options = options_for(args[4], fast);
    if (!fast) return named(cross_attention_backward(x_query, x_context, weights, grad, options));
    EXPECT_EQ(check_cross_attention_backward(x_query, x_context, weights, grad, options), "");
    return named(cross_attention_backward_fast(x_query, x_context, weights, grad, options));
  });
}

INSTANTIATE_TEST_SUITE_P(TeachingAndFused, BackwardPaths, ::testing::Values(false, true),
                         [](const ::testing::TestParamInfo<bool>& info) {
                           return info.param ? "FusedPath" : "TeachingPath";
                         });

}  // namespace

// The registry's fixture runner (fixtures_test.cpp) runs each backward as its binding does
// (cpp/bindings/bindings.cpp): the check, then the fast entry point (self attention: the teaching backward)
// with the case's options as given.
void run_backward_fixture_as_binding(const std::string& function) {
  const auto options_of = [](const json& args, std::size_t index) {
    return testing::to_options<AttentionOptions>(args.size() > index ? args[index] : json::object());
  };
  if (function == "selfAttentionBackward") {
    return check_backward_fixture(function, [&](const json& args) {
      const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
      const ProjectionWeights weights = testing::to_projection_weights(args[1]);
      const AttentionOptions options = options_of(args, 3);
      EXPECT_EQ(check_self_attention_backward(x, weights, grad, options), "");
      return named(unchecked::self_attention_backward(x, weights, grad, options));
    });
  }
  if (function == "multiheadAttentionSplitBackward") {
    return check_backward_fixture(function, [&](const json& args) {
      const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
      const ProjectionWeights weights = testing::to_projection_weights(args[1]);
      const AttentionOptions options = options_of(args, 3);
      EXPECT_EQ(check_multihead_attention_split_backward(x, weights, grad, options), "");
      return named(multihead_attention_split_backward_fast(x, weights, grad, options));
    });
  }
  if (function == "multiheadAttentionStackedBackward") {
    return check_backward_fixture(function, [&](const json& args) {
      const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
      const StackedWeights weights = testing::to_stacked_weights(args[1]);
      const AttentionOptions options = options_of(args, 3);
      EXPECT_EQ(check_multihead_attention_stacked_backward(x, weights, grad, options), "");
      return named(multihead_attention_stacked_backward_fast(x, weights, grad, options));
    });
  }
  if (function == "multiheadAttentionFusedBackward") {
    return check_backward_fixture(function, [&](const json& args) {
      const Tensor x = to_tensor(args[0]), grad = to_tensor(args[2]);
      const FusedWeights weights = testing::to_fused_weights(args[1]);
      const AttentionOptions options = options_of(args, 3);
      EXPECT_EQ(check_multihead_attention_fused_backward(x, weights, grad, options), "");
      return named(multihead_attention_fused_backward_fast(x, weights, grad, options));
    });
  }
  if (function == "crossAttentionBackward") {
    return check_backward_fixture(function, [&](const json& args) {
      const Tensor x_query = to_tensor(args[0]), x_context = to_tensor(args[1]), grad = to_tensor(args[3]);
      const ProjectionWeights weights = testing::to_projection_weights(args[2]);
      const AttentionOptions options = options_of(args, 4);
      EXPECT_EQ(check_cross_attention_backward(x_query, x_context, weights, grad, options), "");
      return named(cross_attention_backward_fast(x_query, x_context, weights, grad, options));
    });
  }
  ADD_FAILURE() << "no backward runner for " << function;
}

// A key_padding_mask takes the teaching backward even with intermediates false: the fused backward kernel
// recomputes the weights from the forward's row statistics without skipping padded keys.
TEST(FastBackward, KeyPaddingMaskTakesTheTeachingBackward) {
  const Tensor x = testing::random_tensor({2, 4, 8}, 1), grad = testing::random_tensor({2, 4, 8}, 2);
  ProjectionWeights weights;
  weights.query = testing::random_tensor({8, 8}, 3);
  weights.key = testing::random_tensor({8, 8}, 4);
  weights.value = testing::random_tensor({8, 8}, 5);
  AttentionOptions options;
  options.heads = 2;
  options.causal = false;
  options.key_padding_mask = testing::tensor({2, 4}, {0, 0, 1, 1, 0, 0, 0, 1});
  EXPECT_FALSE(fused_backward_applies([&] { AttentionOptions lean = options; lean.intermediates = false; return lean; }()));
  const ProjectionGradients teaching = unchecked::multihead_attention_split_backward(x, weights, grad, options);
  options.intermediates = false;
  const ProjectionGradients fast = multihead_attention_split_backward_fast(x, weights, grad, options);
  EXPECT_TRUE(all_close(fast.x, teaching.x, 1e-5f));
  EXPECT_TRUE(all_close(fast.weights.key, teaching.weights.key, 1e-5f));
  EXPECT_TRUE(all_close(fast.weights.query, teaching.weights.query, 1e-5f));
  EXPECT_TRUE(all_close(fast.weights.value, teaching.weights.value, 1e-5f));
}

}  // namespace ap
