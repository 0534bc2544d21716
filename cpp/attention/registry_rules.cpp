#include "attention/registry_rules.h"

#include <cstring>
#include <stdexcept>

#include "attention/check_helpers.h"
#include "attention/registry.h"

namespace ap {

namespace {
const registry::ArgumentAxes* find_axes(const std::string& function, const std::string& argument, const char* when) {
  const registry::ArgumentAxes* plain = nullptr;
  for (const registry::ArgumentAxes& row : registry::kAxes) {
    if (std::strcmp(row.function, function.c_str()) != 0 || std::strcmp(row.argument, argument.c_str()) != 0) continue;
    if (std::strcmp(row.when, when) == 0) return &row;
    if (row.when[0] == '\0') plain = &row;
  }
  return plain;
}
}  // namespace

int AxisSizes::operator[](const char* axis) const {
  for (int k = 0; k < count_; ++k) {
    if (std::strcmp(sizes_[k].axis, axis) == 0) return sizes_[k].size;
  }
  return 0;
}

void AxisSizes::bind(const char* axis, int size) {
  for (int k = 0; k < count_; ++k) {
    if (std::strcmp(sizes_[k].axis, axis) == 0) {
      sizes_[k].size = size;
      return;
    }
  }
  if (count_ == kMaxNames) throw std::logic_error("registry: " + function_ + " names more than 16 sizes");
  sizes_[count_++] = {axis, size};
}

std::string AxisSizes::check(const std::string& argument, const Tensor& tensor, const Read& read) {
  const std::string shown = read.shown.empty() ? argument : read.shown;
  const registry::ArgumentAxes* row = find_axes(function_, argument, read.when);
  if (row == nullptr) return function_ + ": " + shown + " has no axes in the registry";
  // The axes read: the row's, without its batch axis when unbatched, reversed when transposed.
  const int first = read.unbatched ? 1 : 0;
  const int rank = row->rank - first;
  const char* axes[registry::kMaxRank];
  for (int a = 0; a < rank; ++a) axes[a] = row->axes[first + (read.transposed ? rank - 1 - a : a)];
  // "[d_in=3, d_out]": the sizes known before this tensor, the others by name
  const auto named = [&] {
    std::string expected = "[";
    for (int a = 0; a < rank; ++a) {
      const int bound = (*this)[axes[a]];
      expected += std::string(a ? ", " : "") + axes[a] + (bound ? "=" + std::to_string(bound) : "");
    }
    expected += "]";
    if (row->note[0] != '\0') expected += std::string(" (") + row->note + ")";
    return function_ + ": " + shown + " has shape " + format_shape(tensor.shape) + "; expected " + expected + read.suffix;
  };
  if (row->named_rank && tensor.present() && tensor.rank() != rank) return named();
  if (auto message = check_tensor(function_, shown, tensor, std::vector<std::string>(axes, axes + rank),
                                  read.allow_negative_infinity);
      !message.empty()) {
    return message;
  }
  // Each axis against the sizes named so far; a new name takes its size (also for a later axis of this tensor).
  // On disagreement the names this tensor added are dropped again (they are the last ones).
  const int named_before = count_;
  bool agrees = true;
  for (int a = 0; a < rank; ++a) {
    const int bound = (*this)[axes[a]];
    if (bound == 0) {
      bind(axes[a], tensor.shape[a]);
    } else if (bound != tensor.shape[a]) {
      agrees = false;
    }
  }
  if (agrees) return "";
  count_ = named_before;
  return named();
}

std::string AxisSizes::check_divides(const char* option, int value) const {
  for (const registry::Divisor& rule : registry::kDivisors) {
    if (std::strcmp(rule.function, function_.c_str()) != 0 || std::strcmp(option, rule.option) != 0) continue;
    const int size = (*this)[rule.axis];
    if (value >= 1 && size % value != 0) {
      return function_ + ": " + rule.axis + "=" + std::to_string(size) + " is not divisible by " + option + "=" +
             std::to_string(value);
    }
  }
  return "";
}

double estimate_floats(const std::string& function, const char* path, const MemorySizes& sizes) {
  // One pass: the path's sum, and the teaching sum for a function without terms for the path.
  bool has_path = false;
  double floats = 0, teaching = 0;
  for (const registry::MemoryTerm& term : registry::kMemoryTerms) {
    if (std::strcmp(term.function, function.c_str()) != 0) continue;
    const bool on_path = std::strcmp(term.path, path) == 0;
    if (!on_path && std::strcmp(term.path, "teaching") != 0) continue;
    has_path = has_path || on_path;
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
    (on_path ? floats : teaching) += product;
  }
  return has_path ? floats : teaching;
}

}  // namespace ap
