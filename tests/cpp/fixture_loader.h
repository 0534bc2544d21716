// Reads tests/fixtures/<function>.json (format: tests/fixtures/README.md) into the core's types.
// Only the fixture tests include nlohmann/json.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attention/attention.h"
#include "paths/option_members.h"

namespace ap::testing {

// The parsed file, or a failed assertion when it is missing or unreadable (a missing fixture fails, never skips).
::testing::AssertionResult load_fixture(const std::string& function, nlohmann::json& cases);

Tensor to_tensor(const nlohmann::json& value);      // {"shape", "data"}; "Infinity", "-Infinity", "NaN" strings
IntTensor to_int_tensor(const nlohmann::json& value);
Tensor optional_tensor(const nlohmann::json& object, const char* key);  // absent key → absent tensor

ProjectionWeights to_projection_weights(const nlohmann::json& value);
StackedWeights to_stacked_weights(const nlohmann::json& value);
FusedWeights to_fused_weights(const nlohmann::json& value);

// One option's JSON value into its member, by the member's type (fixture_loader.cpp); the flag as in
// option_members.h. An unknown string for a choice throws the core's message.
void read_member(const nlohmann::json& value, const char* name, bool& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, int& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, float& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, double& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, Tensor& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, Normalization& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, MaskMode& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, WeightLayout& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, DropoutRng& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, GeluApproximation& out, bool* flag);
void read_member(const nlohmann::json& value, const char* name, PlannedPath& out, bool* flag);

// An options object (JS names; absent keys keep the defaults) into any options struct, by its visit_members.
template <typename Options>
Options to_options(const nlohmann::json& object) {
  Options options{};
  visit_members(options, [&](const char* name, auto& member, bool* flag = nullptr) {
    if (object.contains(name)) read_member(object.at(name), name, member, flag);
  });
  return options;
}

}  // namespace ap::testing
