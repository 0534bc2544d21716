// Internal: the registry's shape and memory rules (web/src/core/registry.js, generated into attention/registry.h at
// build time) applied to C++ tensors, with the words of the JS checks. One table, read by both languages:
//   AxisSizes      every tensor argument's named axes: a name takes its size where first seen (call order), every
//                  later axis of that name must agree: "weights.value has shape [3, 5]; expected [d_in=3, d_out=2]"
//   check_divides  option | axis rules: "d_out=10 is not divisible by heads=3"
//   estimate_floats  a function's memory estimate on a path: Σ coefficient · Π sizes
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "attention/tensor.h"

namespace ap {

class AxisSizes {
 public:
  explicit AxisSizes(std::string function) : function_(std::move(function)) {}

  // Checks `tensor` as the registry's `argument` of this function: present, of its rank, every size ≥ 1, its data
  // and values (check_tensor), then each axis against the sizes already named. `shown` names it in a message
  // (weights.heads[1].query for the registry's weights.heads[].query; "" = argument); `when` selects the row
  // given for an option's presence ("options.xValue"); `transposed` reads a 2-D weight's axes reversed
  // (selfAttention's layout 'linear', said after the message as `suffix`); `unbatched` reads the row without its
  // first (batch) axis (matmul's a (M, K), as the JS check's sequence(…, {unbatched})). A row marked named_rank
  // says a wrong rank as its axes with the sizes known ("expected [K=3, N]"). Returns the first failure or "".
  struct Read {
    std::string shown;
    const char* when = "";
    bool transposed = false;
    const char* suffix = "";
    bool allow_negative_infinity = false;
    bool unbatched = false;
  };
  std::string check(const std::string& argument, const Tensor& tensor, const Read& read);
  std::string check(const std::string& argument, const Tensor& tensor) { return check(argument, tensor, Read{}); }
  // As check, "" when the tensor is absent (the optional biases, outWeight).
  std::string check_optional(const std::string& argument, const Tensor& tensor) {
    return tensor.present() ? check(argument, tensor) : "";
  }

  // The size of a named axis, 0 while unnamed; bind names one the table derives no rule for (d_out = H·d_head).
  // Names are string literals or the generated table's: held as pointers, never copied.
  int operator[](const char* axis) const;
  void bind(const char* axis, int size);

  // Every option | axis rule of this function (registry.js `divides`) for the option's value, e.g.
  // "multiheadAttentionSplit: d_out=10 is not divisible by heads=3".
  std::string check_divides(const char* option, int value) const;

  const std::string& function() const { return function_; }

 private:
  struct Named {
    const char* axis;
    int size;
  };
  static constexpr int kMaxNames = 16;  // a call names at most a dozen sizes (B, T, d_in, d_out, H, …)
  std::string function_;
  Named sizes_[kMaxNames] = {};
  int count_ = 0;
};

// The sizes a memory term reads, by the registry's names (B, Tq, dOut, stages, xFloats, …).
using MemorySizes = std::vector<std::pair<const char*, double>>;

// Floats `function` holds at once on `path` ("teaching" or "fused"; a function without terms for the path uses its
// teaching terms): Σ coefficient · Π sizes over its registry memory terms. Throws std::logic_error when a term
// names a size not given (a registry entry out of step with its check).
double estimate_floats(const std::string& function, const char* path, const MemorySizes& sizes);

}  // namespace ap
