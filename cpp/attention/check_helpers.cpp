#include "attention/check_helpers.h"

#include "attention/registry.h"

#include <cmath>
#include <cstdint>
#include <cstring>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

namespace ap {

void require_valid(const std::string& message) {
  if (!message.empty()) throw std::invalid_argument(message);
}

namespace {
// The shortest %g text that reads back as the same value, as JS's Number.prototype.toString does.
template <typename Real>
std::string shortest(Real value, int max_digits) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Infinity" : "-Infinity";
  char text[40];
  if (std::floor(value) == value && std::fabs(static_cast<double>(value)) < 1e21) {
    // Whole numbers in plain digits, as JS prints them below 1e21 (4500000000, not 4.5e+09).
    std::snprintf(text, sizeof text, "%.0f", static_cast<double>(value));
    return text;
  }
  for (int digits = 1; digits <= max_digits; ++digits) {
    std::snprintf(text, sizeof text, "%.*g", digits, static_cast<double>(value));
    if (static_cast<Real>(std::strtod(text, nullptr)) == value) break;
  }
  return text;
}
}  // namespace

std::string format_number(double value) { return shortest(value, 17); }
std::string format_float(float value) { return shortest(value, 9); }

std::string format_bytes(double bytes) {
  const char* units[] = {"bytes", "kB", "MB", "GB", "TB", "PB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 5) {
    bytes /= 1000.0;
    ++unit;
  }
  char text[40];
  std::snprintf(text, sizeof text, unit == 0 ? "%.0f %s" : "%.1f %s", bytes, units[unit]);
  return text;
}

std::string format_limit(std::size_t bytes) {
  const char* units[] = {"bytes", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return std::to_string(bytes) + " " + units[unit];
}

namespace {
thread_local bool shapes_only = false;
}  // namespace

ShapesOnlyChecks::ShapesOnlyChecks() : previous_(shapes_only) { shapes_only = true; }
ShapesOnlyChecks::~ShapesOnlyChecks() { shapes_only = previous_; }
bool checking_shapes_only() { return shapes_only; }

namespace {
std::string join_axes(const std::vector<std::string>& axes) {
  std::string text;
  for (std::size_t i = 0; i < axes.size(); ++i) text += (i ? ", " : "") + axes[i];
  return text;
}

// Sizes, data length and values, once the rank is known to be right.
// NaN and ±∞ are the floats whose exponent bits are all ones. One branch-free pass over the bits
// vectorises (a fast path's 768×768 weights are scanned on every call); the search for the offending
// index, and the −∞ exemption, run only when this pass finds something.
bool has_non_finite(const std::vector<float>& data) {
  std::uint32_t found = 0;
  for (const float v : data) {
    std::uint32_t bits;
    std::memcpy(&bits, &v, sizeof bits);
    found |= static_cast<std::uint32_t>((bits & 0x7f800000u) == 0x7f800000u);
  }
  return found != 0;
}

std::string check_contents(const std::string& function, const std::string& argument, const Tensor& tensor,
                           const std::vector<std::string>& axes, bool allow_negative_infinity) {
  for (std::size_t axis = 0; axis < tensor.shape.size(); ++axis) {
    if (tensor.shape[axis] < 1) {
      const std::string name = axis < axes.size() ? axes[axis] : "axis " + std::to_string(axis);
      return function + ": " + argument + " has shape " + format_shape(tensor.shape) + "; expected every size ≥ 1 (" +
             name + "=" + std::to_string(tensor.shape[axis]) + ")";
    }
  }
  // The product in double first, so a huge shape cannot overflow size_t before it is compared.
  if (shapes_only) return "";
  double count = 1;
  for (int size : tensor.shape) count *= size;
  if (static_cast<double>(tensor.data.size()) != count) {
    return function + ": " + argument + " has " + std::to_string(tensor.data.size()) + " values for shape " +
           format_shape(tensor.shape) + "; expected " + format_number(count);
  }
  if (!has_non_finite(tensor.data)) return "";
  for (std::size_t i = 0; i < tensor.data.size(); ++i) {
    const float v = tensor.data[i];
    if (std::isfinite(v) || (allow_negative_infinity && v < 0 && std::isinf(v))) continue;
    return function + ": " + argument + "[" + std::to_string(i) + "] is " + format_float(v) + "; expected " +
           (allow_negative_infinity ? "finite numbers or -Infinity" : "finite numbers");
  }
  return "";
}
}  // namespace

std::string check_tensor(const std::string& function, const std::string& argument, const Tensor& tensor,
                         const std::vector<std::string>& axes, bool allow_negative_infinity) {
  const std::string expected = "a (" + join_axes(axes) + ") tensor";
  if (!tensor.present()) return function + ": " + argument + " is missing; expected " + expected;
  if (tensor.rank() != static_cast<int>(axes.size())) {
    return function + ": " + argument + " has shape " + format_shape(tensor.shape) + "; expected rank " +
           std::to_string(axes.size()) + " (" + join_axes(axes) + ")";
  }
  return check_contents(function, argument, tensor, axes, allow_negative_infinity);
}

std::string check_tensor_any_rank(const std::string& function, const std::string& argument, const Tensor& tensor,
                                  bool allow_negative_infinity) {
  if (!tensor.present()) return function + ": " + argument + " is missing; expected a tensor of rank ≥ 1";
  return check_contents(function, argument, tensor, {}, allow_negative_infinity);
}

std::string check_shape(const std::string& function, const std::string& argument, const Tensor& tensor,
                        const std::vector<int>& expected, const std::string& expected_text) {
  bool matches = tensor.shape.size() == expected.size();
  for (std::size_t axis = 0; matches && axis < expected.size(); ++axis) {
    matches = expected[axis] < 0 || expected[axis] == tensor.shape[axis];
  }
  if (matches) return "";
  return function + ": " + argument + " has shape " + format_shape(tensor.shape) + "; expected " + expected_text;
}

std::string check_memory(const std::string& function, const std::string& sizes, double floats,
                         std::size_t max_bytes) {
  const double bytes = 4.0 * floats;
  if (bytes <= static_cast<double>(max_bytes)) return "";
  return function + ": " + sizes + " needs " + format_bytes(bytes) +
         " for its results and workspace; the memory limit is " + format_limit(max_bytes);
}

std::string check_option_range(const std::string& function, const char* option, double value, const std::string& shown) {
  // The range and its words come from the registry (web/src/core/registry.js), generated into
  // attention/registry.h at build time: one rule, written once.
  for (const registry::OptionRange& range : registry::kOptionRanges) {
    if (function != range.function || std::strcmp(option, range.option) != 0) continue;
    const bool ok = std::isfinite(value) && (!range.integer || std::floor(value) == value) &&
                    (!range.has_min || (range.min_exclusive ? value > range.min : value >= range.min)) &&
                    (!range.has_max || (range.max_exclusive ? value < range.max : value <= range.max));
    if (ok) return "";
    return function + ": options." + option + "=" + shown + "; expected " + range.expected;
  }
  return function + ": options." + option + " is not in the registry";
}

std::string check_dropout_options(const std::string& function, float dropout, double seed) {
  if (auto message = check_option_range(function, "dropout", dropout, format_float(dropout)); !message.empty()) {
    return message;
  }
  return check_option_range(function, "seed", seed, format_number(seed));
}

std::string check_attention_options(const std::string& function, const AttentionOptions& options,
                                    bool reads_heads) {
  if (auto message = check_option_range(function, "temperature", options.temperature, format_float(options.temperature));
      !message.empty())
    return message;
  if (reads_heads) {
    if (auto message = check_option_range(function, "heads", options.heads, std::to_string(options.heads)); !message.empty()) {
      return message;
    }
  }
  return check_dropout_options(function, options.dropout, options.seed);
}

}  // namespace ap
