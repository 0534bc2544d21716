// Every case of every PyTorch golden file (tests/fixtures/<function>.json) against the native core.
// A missing or empty fixture file fails its test.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>
#include <map>

#include "paths/fast_attention.h"
#include "attention/registry.h"
#include "fixture_loader.h"
#include "test_support.h"

namespace ap {

// backward_fixtures_test.cpp: a <fn>Backward fixture's cases through the binding's path.
void run_backward_fixture_as_binding(const std::string& function);

namespace {

using nlohmann::json;
using testing::all_close;
using testing::load_fixture;
using testing::to_tensor;

// The named results of one call, keyed by their JS names.
using Results = std::map<std::string, Tensor>;

Results named(const AverageResult& r) {
  return {{"scores", r.scores}, {"masked", r.masked}, {"weights", r.weights}, {"output", r.output}};
}
Results named(const AttentionResult& r) {
  return {{"query", r.query},     {"key", r.key},         {"value", r.value},     {"scores", r.scores},
          {"scaled", r.scaled},   {"masked", r.masked},   {"weights", r.weights}, {"dropped", r.dropped},
          {"context", r.context}, {"output", r.output}};
}

// Runs every case of `function` through `call` and checks each expected result with the case's tolerance.
// A result the case expects but the call leaves absent fails; a result the call produces but the case
// does not list is not checked (README: "a result not listed is not checked").
void check_fixture(const std::string& function, const std::function<Results(const json& args)>& call) {
  json cases;
  ASSERT_TRUE(load_fixture(function, cases));
  for (const json& one : cases) {
    SCOPED_TRACE(function + ": " + one.at("name").get<std::string>());
    const double atol = one.value("atol", 1e-5), rtol = one.value("rtol", 1e-5);
    const Results results = call(one.at("args"));
    for (const auto& [name, expected] : one.at("expected").items()) {
      const auto found = results.find(name);
      ASSERT_NE(found, results.end()) << "no result named " << name;
      EXPECT_TRUE(all_close(found->second, to_tensor(expected), atol, rtol)) << "result " << name;
    }
    // Absent stays absent: masked only when causal or a mask is given, dropped only when dropout > 0.
    for (const auto& [name, tensor] : results) {
      if (!one.at("expected").contains(name) && (name == "masked" || name == "dropped")) {
        EXPECT_FALSE(tensor.present()) << name << " should be absent";
      }
    }
  }
}

// Unbatched multi-head cases ((T, C) inputs, a (Tk) keyPaddingMask, a (Tk, d_xv) xValue) run with B = 1, as the
// API runs them, and lose B from their results again.
Tensor batched(Tensor tensor) {
  tensor.shape.insert(tensor.shape.begin(), 1);
  return tensor;
}
AttentionOptions batched_options(AttentionOptions options, bool unbatched) {
  if (!unbatched) return options;
  if (options.key_padding_mask.present()) options.key_padding_mask = batched(options.key_padding_mask);
  if (options.x_value.present()) options.x_value = batched(options.x_value);
  return options;
}
Results unbatched_results(Results results, bool unbatched) {
  if (!unbatched) return results;
  for (auto& [name, tensor] : results) {
    if (tensor.present()) tensor.shape.erase(tensor.shape.begin());
  }
  return results;
}

const json& options_at(const json& args, std::size_t index) {
  static const json empty = json::object();
  return args.size() > index ? args[index] : empty;
}

// How each function's cases run natively, by JS name. Which functions have fixtures is the registry's
// (AP_FIXTURE_FUNCTIONS, generated from web/src/core/registry.js): a registry function with fixtures and no
// runner here fails, so a new function cannot be forgotten. The multi-head forms run through their fast
// entry points (paths/fast_attention.h), as the binding does: the fused kernel where a case allows it.
// scaledDotProductAttention's options from a fixture case (intermediates as the case asks: true).
SdpaOptions sdpa_options(const json& given) {
  SdpaOptions options;
  if (given.contains("attnMask")) {
    options.mask = to_tensor(given.at("attnMask"));
    options.mask_boolean = given.at("attnMask").value("dtype", "") == "uint8";
  }
  options.is_causal = given.value("isCausal", false);
  if (given.contains("scale")) {
    options.has_scale = true;
    options.scale = given.at("scale").get<float>();
  }
  options.dropout_p = given.value("dropoutP", 0.0f);
  options.seed = given.value("seed", 0u);
  return options;
}

const std::map<std::string, std::function<void()>>& runners() {
  static const std::map<std::string, std::function<void()>> table = {
    {"nextTokenPairs", [] {
    json cases;
    ASSERT_TRUE(load_fixture("nextTokenPairs", cases));
    for (const json& one : cases) {
      SCOPED_TRACE(one.at("name").get<std::string>());
      const NextTokenPairs pairs = next_token_pairs(testing::to_int_tensor(one.at("args")[0]));
      const IntTensor contexts = testing::to_int_tensor(one.at("expected").at("contexts"));
      const IntTensor targets = testing::to_int_tensor(one.at("expected").at("targets"));
      EXPECT_EQ(pairs.contexts.shape, contexts.shape);
      EXPECT_EQ(pairs.contexts.data, contexts.data);
      EXPECT_EQ(pairs.targets.shape, targets.shape);
      EXPECT_EQ(pairs.targets.data, targets.data);
    }
     }},
    {"causalAverageLoop", [] {
    check_fixture("causalAverageLoop", [](const json& args) { return named(causal_average_loop(to_tensor(args[0]))); });
     }},
    {"causalAverageMatmul", [] {
    check_fixture("causalAverageMatmul",
                  [](const json& args) { return named(causal_average_matmul(to_tensor(args[0]))); });
     }},
    {"causalAverageSoftmax", [] {
    check_fixture("causalAverageSoftmax",
                  [](const json& args) { return named(causal_average_softmax(to_tensor(args[0]))); });
     }},
    {"softmax", [] {
    check_fixture("softmax", [](const json& args) {
      return Results{{"output", softmax(to_tensor(args[0]), testing::to_softmax_options(options_at(args, 1)))}};
    });
     }},
    {"attentionWithoutWeights", [] {
    check_fixture("attentionWithoutWeights", [](const json& args) {
      return named(attention_without_weights(to_tensor(args[0]), testing::to_normalization(options_at(args, 1))));
    });
     }},
    {"selfAttention", [] {
    check_fixture("selfAttention", [](const json& args) {
      return named(self_attention(to_tensor(args[0]), testing::to_projection_weights(args[1]),
                                  testing::to_attention_options(options_at(args, 2))));
    });
     }},
    {"attentionDropout", [] {
    check_fixture("attentionDropout", [](const json& args) {
      const DropoutResult result = attention_dropout(to_tensor(args[0]), testing::to_dropout_options(options_at(args, 1)));
      return Results{{"mask", result.mask}, {"output", result.output}};
    });
     }},
    {"compare", [] {
    json cases;
    ASSERT_TRUE(load_fixture("compare", cases));
    for (const json& one : cases) {
      SCOPED_TRACE(one.at("name").get<std::string>());
      const json& args = one.at("args");
      const Comparison result = compare(to_tensor(args[0]), to_tensor(args[1]), testing::to_compare_options(options_at(args, 2)));
      const json& expected = one.at("expected");
      const double max_abs = expected.at("maxAbsError"), max_rel = expected.at("maxRelError");
      EXPECT_NEAR(result.max_abs_error, max_abs, 1e-6 + 1e-5 * max_abs);
      EXPECT_NEAR(result.max_rel_error, max_rel, 1e-6 + 1e-5 * max_rel);
      EXPECT_EQ(result.allclose, expected.at("allclose").get<bool>());
      EXPECT_EQ(result.first_mismatch, expected.at("firstMismatch").get<std::int64_t>());
    }
     }},
    {"multiheadAttentionStacked", [] {
    check_fixture("multiheadAttentionStacked", [](const json& args) {
      const bool unbatched = args[0].at("shape").size() == 2;
      const Tensor x = unbatched ? batched(to_tensor(args[0])) : to_tensor(args[0]);
      return unbatched_results(named(multihead_attention_stacked_fast(x, testing::to_stacked_weights(args[1]),
          batched_options(testing::to_attention_options(options_at(args, 2)), unbatched))), unbatched);
    });
     }},
    {"multiheadAttentionSplit", [] {
    check_fixture("multiheadAttentionSplit", [](const json& args) {
      const bool unbatched = args[0].at("shape").size() == 2;
      const Tensor x = unbatched ? batched(to_tensor(args[0])) : to_tensor(args[0]);
      return unbatched_results(named(multihead_attention_split_fast(x, testing::to_projection_weights(args[1]),
          batched_options(testing::to_attention_options(options_at(args, 2)), unbatched))), unbatched);
    });
     }},
    {"multiheadAttentionFused", [] {
    check_fixture("multiheadAttentionFused", [](const json& args) {
      const bool unbatched = args[0].at("shape").size() == 2;
      const Tensor x = unbatched ? batched(to_tensor(args[0])) : to_tensor(args[0]);
      return unbatched_results(named(multihead_attention_fused_fast(x, testing::to_fused_weights(args[1]),
          batched_options(testing::to_attention_options(options_at(args, 2)), unbatched))), unbatched);
    });
     }},
    {"crossAttention", [] {
    check_fixture("crossAttention", [](const json& args) {
      const bool unbatched = args[0].at("shape").size() == 2;
      const Tensor query = unbatched ? batched(to_tensor(args[0])) : to_tensor(args[0]);
      const Tensor context = unbatched ? batched(to_tensor(args[1])) : to_tensor(args[1]);
      return unbatched_results(named(cross_attention_fast(query, context, testing::to_projection_weights(args[2]),
          batched_options(testing::to_attention_options(options_at(args, 3)), unbatched))), unbatched);
    });
     }},
    // The backward of each trainable function: gradients named like the inputs (backward_fixtures_test.cpp).
    {"selfAttentionBackward", [] { run_backward_fixture_as_binding("selfAttentionBackward"); }},
    {"multiheadAttentionStackedBackward", [] { run_backward_fixture_as_binding("multiheadAttentionStackedBackward"); }},
    {"multiheadAttentionSplitBackward", [] { run_backward_fixture_as_binding("multiheadAttentionSplitBackward"); }},
    {"multiheadAttentionFusedBackward", [] { run_backward_fixture_as_binding("multiheadAttentionFusedBackward"); }},
    {"crossAttentionBackward", [] { run_backward_fixture_as_binding("crossAttentionBackward"); }},
    {"scaledDotProductAttention", [] {
    check_fixture("scaledDotProductAttention", [](const json& args) {
      const SdpaResult r = scaled_dot_product_attention(to_tensor(args[0]), to_tensor(args[1]), to_tensor(args[2]),
                                                        sdpa_options(options_at(args, 3)));
      return Results{{"scores", r.scores}, {"scaled", r.scaled}, {"masked", r.masked}, {"weights", r.weights},
                     {"dropped", r.dropped}, {"output", r.output}};
    });
     }},
    {"layerNorm", [] {
    check_fixture("layerNorm", [](const json& args) {
      const json& given = options_at(args, 1);
      LayerNormOptions options;
      if (given.contains("weight")) options.weight = to_tensor(given.at("weight"));
      if (given.contains("bias")) options.bias = to_tensor(given.at("bias"));
      options.eps = given.value("eps", 1e-5f);
      return Results{{"output", layer_norm(to_tensor(args[0]), options)}};
    });
     }},
  };
  return table;
}

#define AP_FIXTURE_NAME(js) #js,
const std::vector<std::string> kFixtureFunctions = {AP_FIXTURE_FUNCTIONS(AP_FIXTURE_NAME)};
#undef AP_FIXTURE_NAME

class Fixtures : public ::testing::TestWithParam<std::string> {};

TEST_P(Fixtures, MatchPyTorch) {
  const auto runner = runners().find(GetParam());
  ASSERT_NE(runner, runners().end()) << "no native runner for " << GetParam();
  runner->second();
}

INSTANTIATE_TEST_SUITE_P(Registry, Fixtures, ::testing::ValuesIn(kFixtureFunctions),
                         [](const ::testing::TestParamInfo<std::string>& info) { return info.param; });

TEST(FixtureRunners, EveryRunnerIsARegistryFunctionWithFixtures) {
  for (const auto& [name, runner] : runners()) {
    EXPECT_NE(std::find(kFixtureFunctions.begin(), kFixtureFunctions.end(), name), kFixtureFunctions.end()) << name;
  }
}

// The fused path: every multi-head and cross-attention case again with intermediates=false through the fast
// entry points, as the binding calls them, which run the fused kernel where the options allow it (docs/api.md:
// keyPaddingMask included) and return only the output; it must match
// PyTorch's output with the same tolerance (the logits-near-1e4 cases included).
AttentionOptions lean(const json& args, std::size_t index) {
  AttentionOptions options = testing::to_attention_options(options_at(args, index));
  options.intermediates = false;
  return options;
}

void check_fused_path(const std::string& function, const std::function<Tensor(const json& args)>& call) {
  json cases;
  ASSERT_TRUE(load_fixture(function, cases));
  for (const json& one : cases) {
    SCOPED_TRACE(function + " (intermediates=false): " + one.at("name").get<std::string>());
    const double atol = one.value("atol", 1e-5), rtol = one.value("rtol", 1e-5);
    EXPECT_TRUE(all_close(call(one.at("args")), to_tensor(one.at("expected").at("output")), atol, rtol));
  }
}

TEST(Fixtures, FusedPathMatchesPyTorch) {
  // unbatched cases run with B = 1 and lose it again, as the API runs them
  const auto input = [](const json& args, std::size_t index) {
    return args[0].at("shape").size() == 2 ? batched(to_tensor(args[index])) : to_tensor(args[index]);
  };
  const auto options = [](const json& args, std::size_t index) { return batched_options(lean(args, index), args[0].at("shape").size() == 2); };
  const auto output = [](const json& args, Tensor out) {
    if (args[0].at("shape").size() == 2) out.shape.erase(out.shape.begin());
    return out;
  };
  check_fused_path("multiheadAttentionStacked", [&](const json& args) {
    return output(args, multihead_attention_stacked_fast(input(args, 0), testing::to_stacked_weights(args[1]), options(args, 2)).output);
  });
  check_fused_path("multiheadAttentionSplit", [&](const json& args) {
    return output(args, multihead_attention_split_fast(input(args, 0), testing::to_projection_weights(args[1]), options(args, 2)).output);
  });
  check_fused_path("multiheadAttentionFused", [&](const json& args) {
    return output(args, multihead_attention_fused_fast(input(args, 0), testing::to_fused_weights(args[1]), options(args, 2)).output);
  });
  check_fused_path("crossAttention", [&](const json& args) {
    return output(args, cross_attention_fast(input(args, 0), input(args, 1), testing::to_projection_weights(args[2]), options(args, 3))
        .output);
  });
  // q, k, v given directly: the fused kernel where sdpa_fused_applies (no attnMask, no dropoutP, Ev == E, scale > 0)
  int fused = 0;
  check_fused_path("scaledDotProductAttention", [&](const json& args) {
    SdpaOptions lean_sdpa = sdpa_options(options_at(args, 3));
    lean_sdpa.intermediates = false;
    const Tensor query = to_tensor(args[0]), value = to_tensor(args[2]);
    if (sdpa_fused_applies(query.shape.back(), value.shape.back(), lean_sdpa)) ++fused;
    return scaled_dot_product_attention_fast(query, to_tensor(args[1]), value, lean_sdpa).output;
  });
  EXPECT_EQ(fused, 4);  // seed 000's two cases and the two near-1e4 cases with Ev = E
}

}  // namespace
}  // namespace ap
