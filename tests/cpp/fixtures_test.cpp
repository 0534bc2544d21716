// Every case of every PyTorch golden file (tests/fixtures/<function>.json) against the native core.
// A missing or empty fixture file fails its test.
#include <algorithm>
#include <functional>
#include <string>
#include <vector>
#include <map>
#include <tuple>
#include <type_traits>
#include <utility>

#include "paths/paths.h"
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

// ---- Every registry function's cases run by one loop ----------------------------------------------------
// A case's JSON arguments are read by the C++ parameter types of paths::unchecked::<cpp> (the path the binding runs: the
// multi-head forms through their fast entry points, the fused kernel where a case allows it), the call made, and
// its results compared by name. Which functions have fixtures is the registry's (AP_FIXTURE_FUNCTIONS).

void read(const json& j, Tensor& out) { out = to_tensor(j); }
void read(const json& j, IntTensor& out) { out = testing::to_int_tensor(j); }
void read(const json& j, ProjectionWeights& out) { out = testing::to_projection_weights(j); }
void read(const json& j, StackedWeights& out) { out = testing::to_stacked_weights(j); }
void read(const json& j, FusedWeights& out) { out = testing::to_fused_weights(j); }
// Any options struct (and the bare Normalization attentionWithoutWeights takes), by its members' JS names.
template <typename Options, std::enable_if_t<kIsOptions<Options>, int> = 0>
void read(const json& j, Options& out) {
  out = testing::to_options<Options>(j);
}

// An unbatched case ((T, C) sequences, a (Tk) keyPaddingMask, a (Tk, d_xv) xValue) runs with B = 1, as the API
// runs it: every sequence argument gains B, and so do the options' batched tensors.
template <typename Input>
void add_batch_axis(Input&, bool) {}
void add_batch_axis(Tensor& tensor, bool is_sequence) {
  if (is_sequence) tensor = batched(tensor);
}
void add_batch_axis(AttentionOptions& options, bool) { options = batched_options(options, true); }

Results named(const Tensor& output) { return {{"output", output}}; }
Results named(const DropoutResult& r) { return {{"mask", r.mask}, {"output", r.output}}; }
Results named(const SdpaResult& r) {
  return {{"scores", r.scores}, {"scaled", r.scaled}, {"masked", r.masked}, {"weights", r.weights},
          {"dropped", r.dropped}, {"output", r.output}};
}

// nextTokenPairs' token ids and compare's figures are not float tensors: their own comparisons.
void check_cases(const std::string& function, const std::function<NextTokenPairs(const json&)>& call) {
  json cases;
  ASSERT_TRUE(load_fixture(function, cases));
  for (const json& one : cases) {
    SCOPED_TRACE(one.at("name").get<std::string>());
    const NextTokenPairs pairs = call(one.at("args"));
    const IntTensor contexts = testing::to_int_tensor(one.at("expected").at("contexts"));
    const IntTensor targets = testing::to_int_tensor(one.at("expected").at("targets"));
    EXPECT_EQ(pairs.contexts.shape, contexts.shape);
    EXPECT_EQ(pairs.contexts.data, contexts.data);
    EXPECT_EQ(pairs.targets.shape, targets.shape);
    EXPECT_EQ(pairs.targets.data, targets.data);
  }
}
void check_cases(const std::string& function, const std::function<Comparison(const json&)>& call) {
  json cases;
  ASSERT_TRUE(load_fixture(function, cases));
  for (const json& one : cases) {
    SCOPED_TRACE(one.at("name").get<std::string>());
    const Comparison result = call(one.at("args"));
    const json& expected = one.at("expected");
    const double max_abs = expected.at("maxAbsError"), max_rel = expected.at("maxRelError");
    EXPECT_NEAR(result.max_abs_error, max_abs, 1e-6 + 1e-5 * max_abs);
    EXPECT_NEAR(result.max_rel_error, max_rel, 1e-6 + 1e-5 * max_rel);
    EXPECT_EQ(result.allclose, expected.at("allclose").get<bool>());
    EXPECT_EQ(result.first_mismatch, expected.at("firstMismatch").get<std::int64_t>());
  }
}

template <typename Run>
struct Parameters;
template <typename Result, typename... Args>
struct Parameters<Result (*)(Args...)> {
  using Inputs = std::tuple<std::decay_t<Args>...>;
  using Output = Result;
};

// Runs `run` on one case's arguments: read by type, B added where the case is unbatched (its first argument a
// 'sequence' of rank 2), and taken off every result again.
template <typename Run, std::size_t... I>
auto call_case(const char* function, Run run, const json& args, std::index_sequence<I...>) {
  typename Parameters<Run>::Inputs inputs;
  (read(options_at(args, I), std::get<I>(inputs)), ...);
  // the registry's rows of this function's arguments, in call order
  std::vector<bool> sequence(sizeof...(I), false);
  std::size_t index = 0;
  for (const registry::Argument& row : registry::kArguments) {
    if (std::string(row.function) != function) continue;
    if (index < sequence.size()) sequence[index] = std::string(row.kind) == "sequence";
    ++index;
  }
  const bool unbatched = sequence[0] && args[0].at("shape").size() == 2;
  if (unbatched) (add_batch_axis(std::get<I>(inputs), sequence[I]), ...);
  return std::make_pair(run(std::get<I>(inputs)...), unbatched);
}

template <typename Run>
void run_fixture(const char* function, Run run) {
  using Output = typename Parameters<Run>::Output;
  constexpr auto indices = std::make_index_sequence<std::tuple_size_v<typename Parameters<Run>::Inputs>>{};
  if constexpr (std::is_same_v<Output, ProjectionGradients> || std::is_same_v<Output, StackedGradients> ||
                std::is_same_v<Output, FusedGradients> || std::is_same_v<Output, CrossAttentionGradients>) {
    run_backward_fixture_as_binding(function);  // gradients named like the inputs (backward_fixtures_test.cpp)
  } else if constexpr (std::is_same_v<Output, NextTokenPairs> || std::is_same_v<Output, Comparison>) {
    check_cases(function, std::function<Output(const json&)>([&](const json& args) {
      return call_case(function, run, args, indices).first;
    }));
  } else {
    check_fixture(function, [&](const json& args) {
      auto [result, unbatched] = call_case(function, run, args, indices);
      return unbatched_results(named(result), unbatched);
    });
  }
}

const std::map<std::string, std::function<void()>>& runners() {
  static const std::map<std::string, std::function<void()>> table = {
#define AP_RUNNER(js, cpp, parameters) {#js, [] { run_fixture(#js, &paths::unchecked::cpp); }},
      AP_REGISTRY_FUNCTIONS(AP_RUNNER)
#undef AP_RUNNER
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

// The fused path: every multi-head and cross-attention case again with intermediates=false through the fast
// entry points, as the binding calls them, which run the fused kernel where the options allow it (docs/api.md:
// keyPaddingMask included) and return only the output; it must match
// PyTorch's output with the same tolerance (the logits-near-1e4 cases included).
AttentionOptions lean(const json& args, std::size_t index) {
  AttentionOptions options = testing::to_options<AttentionOptions>(options_at(args, index));
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
    SdpaOptions lean_sdpa = testing::to_options<SdpaOptions>(options_at(args, 3));
    lean_sdpa.intermediates = false;
    const Tensor query = to_tensor(args[0]), value = to_tensor(args[2]);
    if (sdpa_fused_applies(query.shape.back(), value.shape.back(), lean_sdpa)) ++fused;
    return scaled_dot_product_attention_fast(query, to_tensor(args[1]), value, lean_sdpa).output;
  });
  EXPECT_EQ(fused, 4);  // seed 000's two cases and the two near-1e4 cases with Ev = E
}

}  // namespace
}  // namespace ap
