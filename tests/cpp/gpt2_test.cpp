// GPT-2's teaching forward (cpp/attention/gpt2.h) against the PyTorch fixtures of
// tests/fixtures/gpt2/make_fixtures.py: the tiny checkpoint's logits (1e-4) and every block's attention
// weights (1e-5) for sequences of 1 to 32 tokens. The safetensors files are read here (header JSON, F32 only).
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <fstream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "attention/gpt2.h"

namespace ap {
namespace {

const std::string kDir = std::string(AP_FIXTURES_DIR) + "/gpt2/";

// name → float32 tensor of a safetensors file (F32 tensors only: the fixtures' float32 files).
std::map<std::string, Tensor> read_safetensors(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  const std::vector<char> bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  std::uint64_t header_length = 0;
  std::memcpy(&header_length, bytes.data(), 8);
  const auto header = nlohmann::json::parse(bytes.begin() + 8, bytes.begin() + 8 + static_cast<long>(header_length));
  std::map<std::string, Tensor> tensors;
  for (const auto& [name, info] : header.items()) {
    if (name == "__metadata__" || info["dtype"] != "F32") continue;
    Tensor tensor;
    tensor.shape = info["shape"].get<std::vector<int>>();
    const std::size_t begin = info["data_offsets"][0], end = info["data_offsets"][1];
    tensor.data.resize((end - begin) / 4);
    std::memcpy(tensor.data.data(), bytes.data() + 8 + header_length + begin, end - begin);
    tensors[name] = std::move(tensor);
  }
  return tensors;
}

Gpt2Weights fixture_weights() {
  auto p = read_safetensors(kDir + "model.safetensors");
  std::ifstream config_file(kDir + "config.json");
  const auto config = nlohmann::json::parse(config_file);
  Gpt2Weights w;
  w.wte = p["wte.weight"];
  w.wpe = p["wpe.weight"];
  w.heads = config["n_head"];
  w.layer_norm_eps = config["layer_norm_epsilon"];
  for (int l = 0; l < config["n_layer"].get<int>(); ++l) {
    const auto at = [&](const std::string& name) { return p["h." + std::to_string(l) + "." + name]; };
    w.blocks.push_back({at("ln_1.weight"), at("ln_1.bias"), at("attn.c_attn.weight"), at("attn.c_attn.bias"),
                        at("attn.c_proj.weight"), at("attn.c_proj.bias"), at("ln_2.weight"), at("ln_2.bias"),
                        at("mlp.c_fc.weight"), at("mlp.c_fc.bias"), at("mlp.c_proj.weight"), at("mlp.c_proj.bias")});
  }
  w.ln_f_weight = p["ln_f.weight"];
  w.ln_f_bias = p["ln_f.bias"];
  return w;
}

::testing::AssertionResult close(const Tensor& actual, const Tensor& expected, float tolerance) {
  if (actual.shape != expected.shape) return ::testing::AssertionFailure() << "shapes differ";
  for (std::size_t i = 0; i < expected.data.size(); ++i) {
    if (!(std::fabs(actual.data[i] - expected.data[i]) <= tolerance + tolerance * std::fabs(expected.data[i]))) {
      return ::testing::AssertionFailure() << "[" << i << "] " << actual.data[i] << " vs " << expected.data[i];
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(Gpt2Forward, LogitsAndEveryBlocksWeightsMatchPyTorch) {
  const Gpt2Weights weights = fixture_weights();
  auto expected = read_safetensors(kDir + "forward.safetensors");
  std::ifstream cases_file(kDir + "forward.json");
  const auto cases = nlohmann::json::parse(cases_file)["cases"];
  ASSERT_EQ(cases.size(), 4u);
  for (std::size_t i = 0; i < cases.size(); ++i) {
    const std::vector<int> tokens = cases[i]["tokens"].get<std::vector<int>>();
    const Gpt2Result result = gpt2_forward(weights, tokens);
    const std::string id = std::to_string(i);
    EXPECT_TRUE(close(result.logits, expected[id + ".logits"], 1e-4f)) << cases[i]["name"];
    ASSERT_EQ(result.attention.size(), weights.blocks.size());
    for (std::size_t l = 0; l < result.attention.size(); ++l) {
      EXPECT_TRUE(close(result.attention[l], expected[id + ".attention." + std::to_string(l)], 1e-5f)) << cases[i]["name"] << " block " << l;
    }
  }
}

TEST(Gpt2Forward, GeluIsGpt2sTanhApproximation) {
  EXPECT_FLOAT_EQ(gelu_tanh(0.0f), 0.0f);
  EXPECT_NEAR(gelu_tanh(1.0f), 0.8411920f, 1e-6f);
  EXPECT_NEAR(gelu_tanh(-3.0f), -0.0036373f, 1e-6f);
}

}  // namespace
}  // namespace ap
