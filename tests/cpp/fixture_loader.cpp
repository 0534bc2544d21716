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
template <typename Number>
void read_number(const json& value, Number& out, bool* given) {
  out = value.get<Number>();
  if (given) *given = true;
}
template <typename Enum>
void read_choice(const json& value, const char* name, Enum& out) {
  const std::string message = parse_option("fixture", std::string("options.") + name, value.get<std::string>(), out);
  if (!message.empty()) throw std::runtime_error(message);
}
}  // namespace

void read_member(const json& value, const char*, bool& out, bool*) { out = value.get<bool>(); }
void read_member(const json& value, const char*, int& out, bool* given) { read_number(value, out, given); }
void read_member(const json& value, const char*, float& out, bool* given) { read_number(value, out, given); }
void read_member(const json& value, const char*, double& out, bool* given) { read_number(value, out, given); }
void read_member(const json& value, const char*, Tensor& out, bool* boolean) {
  out = to_tensor(value);
  if (boolean) *boolean = value.value("dtype", "") == "uint8";  // a mask of 0/1 values
}
void read_member(const json& value, const char* name, Normalization& out, bool*) { read_choice(value, name, out); }
void read_member(const json& value, const char* name, MaskMode& out, bool*) { read_choice(value, name, out); }
void read_member(const json& value, const char* name, WeightLayout& out, bool*) { read_choice(value, name, out); }
void read_member(const json& value, const char* name, DropoutRng& out, bool*) { read_choice(value, name, out); }
void read_member(const json& value, const char* name, GeluApproximation& out, bool*) { read_choice(value, name, out); }
void read_member(const json&, const char*, PlannedPath&, bool*) {
  throw std::runtime_error("fixture: options.path is the planner's choice, not a case's");
}

}  // namespace ap::testing
