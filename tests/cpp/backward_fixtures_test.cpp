// Every case of the gradient fixtures (tests/fixtures/<function>Backward.json, torch autograd) against the
// native teaching backward. Each gradient the case lists must be present and within the case's tolerance;
// each gradient the case does not list (an optional input that was not given) must be absent.
#include <functional>
#include <map>
#include <string>

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
                                         to_tensor(args[2]), testing::to_attention_options(args[3])));
  });
}

TEST(BackwardFixtures, MultiheadAttentionSplitBackwardMatchesAutograd) {
  check_backward_fixture("multiheadAttentionSplitBackward", [](const json& args) {
    return named(multihead_attention_split_backward(to_tensor(args[0]), testing::to_projection_weights(args[1]),
                                                    to_tensor(args[2]), testing::to_attention_options(args[3])));
  });
}

TEST(BackwardFixtures, MultiheadAttentionStackedBackwardMatchesAutograd) {
  check_backward_fixture("multiheadAttentionStackedBackward", [](const json& args) {
    return named(multihead_attention_stacked_backward(to_tensor(args[0]), testing::to_stacked_weights(args[1]),
                                                      to_tensor(args[2]), testing::to_attention_options(args[3])));
  });
}

TEST(BackwardFixtures, MultiheadAttentionFusedBackwardMatchesAutograd) {
  check_backward_fixture("multiheadAttentionFusedBackward", [](const json& args) {
    return named(multihead_attention_fused_backward(to_tensor(args[0]), testing::to_fused_weights(args[1]),
                                                    to_tensor(args[2]), testing::to_attention_options(args[3])));
  });
}

TEST(BackwardFixtures, CrossAttentionBackwardMatchesAutograd) {
  check_backward_fixture("crossAttentionBackward", [](const json& args) {
    return named(cross_attention_backward(to_tensor(args[0]), to_tensor(args[1]),
                                          testing::to_projection_weights(args[2]), to_tensor(args[3]),
                                          testing::to_attention_options(args[4])));
  });
}

}  // namespace
}  // namespace ap
