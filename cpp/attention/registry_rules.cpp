#include "attention/registry_rules.h"

#include <algorithm>
#include <cstring>
#include <stdexcept>

#include "attention/check_helpers.h"
#include "attention/registry.h"

namespace ap {

namespace {
const registry::ArgumentAxes* find_axes(const std::string& function, const std::string& argument, const char* when) {
  const registry::ArgumentAxes* plain = nullptr;
  for (const registry::ArgumentAxes& row : registry::kAxes) {
    if (function != row.function || argument != row.argument) continue;
    if (std::strcmp(row.when, when) == 0) return &row;
    if (row.when[0] == '\0') plain = &row;
  }
  return plain;
}
}  // namespace

int AxisSizes::operator[](const std::string& axis) const {
  for (const auto& [name, size] : sizes_) {
    if (name == axis) return size;
  }
  return 0;
}

void AxisSizes::bind(const std::string& axis, int size) {
  for (auto& [name, bound] : sizes_) {
    if (name == axis) {
      bound = size;
      return;
    }
  }
  sizes_.emplace_back(axis, size);
}

std::string AxisSizes::check(const std::string& argument, const Tensor& tensor, const Read& read) {
  const std::string shown = read.shown.empty() ? argument : read.shown;
  const registry::ArgumentAxes* row = find_axes(function_, argument, read.when);
  if (row == nullptr) return function_ + ": " + shown + " has no axes in the registry";
  std::vector<std::string> axes(row->axes, row->axes + row->rank);
  if (read.transposed) std::reverse(axes.begin(), axes.end());
  if (auto message = check_tensor(function_, shown, tensor, axes, read.allow_negative_infinity); !message.empty()) {
    return message;
  }
  // Each axis against the sizes named so far; a new name takes its size (also for a later axis of this tensor).
  AxisSizes after = *this;
  bool agrees = true;
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const int bound = after[axes[a]];
    if (bound == 0) {
      after.bind(axes[a], tensor.shape[a]);
    } else if (bound != tensor.shape[a]) {
      agrees = false;
    }
  }
  if (agrees) {
    sizes_ = std::move(after.sizes_);
    return "";
  }
  // "[d_in=3, d_out]": the sizes known before this tensor, the others by name
  std::string expected = "[";
  for (std::size_t a = 0; a < axes.size(); ++a) {
    const int bound = (*this)[axes[a]];
    expected += (a ? ", " : "") + axes[a] + (bound ? "=" + std::to_string(bound) : "");
  }
  expected += "]";
  if (row->note[0] != '\0') expected += std::string(" (") + row->note + ")";
  return function_ + ": " + shown + " has shape " + format_shape(tensor.shape) + "; expected " + expected + read.suffix;
}

std::string AxisSizes::check_divides(const char* option, int value) const {
  for (const registry::Divisor& rule : registry::kDivisors) {
    if (function_ != rule.function || std::strcmp(option, rule.option) != 0) continue;
    const int size = (*this)[rule.axis];
    if (value >= 1 && size % value != 0) {
      return function_ + ": " + rule.axis + "=" + std::to_string(size) + " is not divisible by " + option + "=" +
             std::to_string(value);
    }
  }
  return "";
}

double estimate_floats(const std::string& function, const char* path, const MemorySizes& sizes) {
  bool has_path = false;
  for (const registry::MemoryTerm& term : registry::kMemoryTerms) {
    has_path = has_path || (function == term.function && std::strcmp(term.path, path) == 0);
  }
  const char* read = has_path ? path : "teaching";
  double floats = 0;
  for (const registry::MemoryTerm& term : registry::kMemoryTerms) {
    if (function != term.function || std::strcmp(term.path, read) != 0) continue;
    double product = term.coefficient;
    for (int k = 0; k < term.count; ++k) {
      const char* name = term.sizes[k];
      bool found = false;
      for (const auto& [size_name, value] : sizes) {
        if (std::strcmp(size_name, name) != 0) continue;
        product *= value;
        found = true;
        break;
      }
      if (!found) throw std::logic_error("registry: " + function + "'s memory term needs size " + name);
    }
    floats += product;
  }
  return floats;
}

}  // namespace ap
