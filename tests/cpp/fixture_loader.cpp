#include <fstream>
#include <limits>
#include <stdexcept>

#include <gtest/gtest.h>

#include "fixture_loader.h"

namespace ap::testing {

using nlohmann::json;

::testing::AssertionResult load_fixture(const std::string& function, json& cases) {
  const std::string path = std::string(AP_FIXTURES_DIR) + "/" + function + ".json";
  std::ifstream file(path);
  if (!file) return ::testing::AssertionFailure() << "missing fixture " << path;
  try {
    const json document = json::parse(file);
    cases = document.at("cases");
  } catch (const std::exception& error) {
    return ::testing::AssertionFailure() << "unreadable fixture " << path << ": " << error.what();
  }
  if (cases.empty()) return ::testing::AssertionFailure() << "fixture " << path << " has no cases";
  return ::testing::AssertionSuccess();
}

namespace {
float to_float(const json& value) {
  if (value.is_string()) {
    const std::string text = value.get<std::string>();
    if (text == "Infinity") return std::numeric_limits<float>::infinity();
    if (text == "-Infinity") return -std::numeric_limits<float>::infinity();
    if (text == "NaN") return std::numeric_limits<float>::quiet_NaN();
    throw std::runtime_error("unexpected number text '" + text + "'");
  }
  return value.get<float>();
}
}  // namespace

Tensor to_tensor(const json& value) {
  Tensor tensor;
  tensor.shape = value.at("shape").get<std::vector<int>>();
  for (const json& number : value.at("data")) tensor.data.push_back(to_float(number));
  return tensor;
}

IntTensor to_int_tensor(const json& value) {
  IntTensor tensor;
  tensor.shape = value.at("shape").get<std::vector<int>>();
  tensor.data = value.at("data").get<std::vector<std::int32_t>>();
  return tensor;
}

Tensor optional_tensor(const json& object, const char* key) {
  return object.contains(key) ? to_tensor(object.at(key)) : Tensor{};
}

ProjectionWeights to_projection_weights(const json& value) {
  ProjectionWeights weights;
  weights.query = optional_tensor(value, "query");
  weights.key = optional_tensor(value, "key");
  weights.value = optional_tensor(value, "value");
  weights.query_bias = optional_tensor(value, "queryBias");
  weights.key_bias = optional_tensor(value, "keyBias");
  weights.value_bias = optional_tensor(value, "valueBias");
  weights.out_weight = optional_tensor(value, "outWeight");
  weights.out_bias = optional_tensor(value, "outBias");
  return weights;
}

StackedWeights to_stacked_weights(const json& value) {
  StackedWeights weights;
  for (const json& head : value.at("heads")) weights.heads.push_back(to_projection_weights(head));
  weights.out_weight = optional_tensor(value, "outWeight");
  weights.out_bias = optional_tensor(value, "outBias");
  return weights;
}

FusedWeights to_fused_weights(const json& value) {
  FusedWeights weights;
  weights.in_projection = optional_tensor(value, "inProjection");
  weights.in_bias = optional_tensor(value, "inBias");
  weights.out_weight = optional_tensor(value, "outWeight");
  weights.out_bias = optional_tensor(value, "outBias");
  return weights;
}

namespace {
template <typename Enum>
Enum parse_enum(const json& options, const char* key, Enum fallback) {
  if (!options.contains(key)) return fallback;
  Enum value = fallback;
  const std::string message = parse_option("fixture", std::string("options.") + key, options.at(key).get<std::string>(), value);
  if (!message.empty()) throw std::runtime_error(message);
  return value;
}
}  // namespace

AttentionOptions to_attention_options(const json& value) {
  AttentionOptions options;
  options.scale = value.value("scale", options.scale);
  options.temperature = value.value("temperature", options.temperature);
  options.causal = value.value("causal", options.causal);
  options.mask = parse_enum(value, "mask", options.mask);
  options.dropout = value.value("dropout", options.dropout);
  options.seed = value.value("seed", options.seed);
  options.dropout_rng = parse_enum(value, "dropoutRng", options.dropout_rng);
  options.layout = parse_enum(value, "layout", options.layout);
  options.heads = value.value("heads", options.heads);
  options.intermediates = value.value("intermediates", options.intermediates);
  // the masks (a "uint8" tensor is boolean) and crossAttention's xValue
  if (value.contains("attnMask")) {
    options.attn_mask = to_tensor(value.at("attnMask"));
    options.attn_mask_boolean = value.at("attnMask").value("dtype", "") == "uint8";
  }
  if (value.contains("keyPaddingMask")) options.key_padding_mask = to_tensor(value.at("keyPaddingMask"));
  if (value.contains("xValue")) options.x_value = to_tensor(value.at("xValue"));
  return options;
}

SoftmaxOptions to_softmax_options(const json& value) {
  SoftmaxOptions options;
  options.normalization = to_normalization(value);
  options.scale = value.value("scale", options.scale);
  return options;
}

DropoutOptions to_dropout_options(const json& value) {
  DropoutOptions options;
  options.dropout = value.value("dropout", options.dropout);
  options.seed = value.value("seed", options.seed);
  options.dropout_rng = parse_enum(value, "dropoutRng", options.dropout_rng);
  return options;
}

CompareOptions to_compare_options(const json& value) {
  CompareOptions options;
  options.atol = value.value("atol", options.atol);
  options.rtol = value.value("rtol", options.rtol);
  return options;
}

Normalization to_normalization(const json& options) {
  return parse_enum(options, "normalization", Normalization::Stable);
}

}  // namespace ap::testing
