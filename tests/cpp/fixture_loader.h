// Reads tests/fixtures/<function>.json (format: tests/fixtures/README.md) into the core's types.
// Only the fixture tests include nlohmann/json.
#pragma once

#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "attention/attention.h"

namespace ap::testing {

// The parsed file, or a failed assertion when it is missing or unreadable (a missing fixture fails, never skips).
::testing::AssertionResult load_fixture(const std::string& function, nlohmann::json& cases);

Tensor to_tensor(const nlohmann::json& value);      // {"shape", "data"}; "Infinity", "-Infinity", "NaN" strings
IntTensor to_int_tensor(const nlohmann::json& value);
Tensor optional_tensor(const nlohmann::json& object, const char* key);  // absent key → absent tensor

ProjectionWeights to_projection_weights(const nlohmann::json& value);
StackedWeights to_stacked_weights(const nlohmann::json& value);
FusedWeights to_fused_weights(const nlohmann::json& value);

// Options objects with JS names and defaults; unknown strings fail the parse with the core's message.
AttentionOptions to_attention_options(const nlohmann::json& value);
SoftmaxOptions to_softmax_options(const nlohmann::json& value);
DropoutOptions to_dropout_options(const nlohmann::json& value);
CompareOptions to_compare_options(const nlohmann::json& value);
Normalization to_normalization(const nlohmann::json& options);

}  // namespace ap::testing
