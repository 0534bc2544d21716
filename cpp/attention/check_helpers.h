// Internal: the pieces every check_* function is built from, so that all messages share one format:
// "<jsFunction>: <argument> <what it is>; expected <what it should be>".
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "attention/checks.h"
#include "attention/options.h"
#include "attention/tensor.h"

namespace ap {

// While one of these is alive (on this thread) the checks read shapes only: no data length, no value.
// The WASM binding runs a call's check this way before it copies the inputs into the heap, so a call
// that the memory check refuses is refused before anything is allocated for it.
class ShapesOnlyChecks {
 public:
  ShapesOnlyChecks();
  ~ShapesOnlyChecks();
  ShapesOnlyChecks(const ShapesOnlyChecks&) = delete;
  ShapesOnlyChecks& operator=(const ShapesOnlyChecks&) = delete;

 private:
  bool previous_;
};

// True inside a ShapesOnlyChecks scope.
bool checking_shapes_only();

// Throws std::invalid_argument(message) unless message is empty. The compute functions' only throw.
void require_valid(const std::string& message);

// A step's public entry point (every step's body is unchecked::<step>, which the bindings run once the call is
// checked): the step's check, whose message names the first bad argument, then the step on the checked arguments.
// (The check's type is read from the step's, never deduced: the public check is an overload of the internal one.)
template <typename T>
struct NotDeduced {
  using type = T;
};
template <typename Result, typename... Args>
Result checked(typename NotDeduced<std::string (*)(const Args&..., std::size_t)>::type check,
               Result (*step)(const Args&...), const Args&... args) {
  require_valid(check(args..., no_memory_limit));
  return step(args...);
}

// Numbers as JS prints them: 3, 0.5, 1.1, NaN, Infinity, -Infinity.
std::string format_number(double value);
std::string format_float(float value);

// 57.6 GB (decimal, for estimates) and 2 GiB (binary, for limits that are powers of two).
std::string format_bytes(double bytes);
std::string format_limit(std::size_t bytes);

// A float tensor argument: present, rank == axes.size() (axes name the sizes, e.g. {"B", "T", "C"}),
// every size ≥ 1, data.size() == the shape's element count, every value finite (−∞ also allowed when
// allow_negative_infinity). Returns the first failure's message or "".
std::string check_tensor(const std::string& function, const std::string& argument, const Tensor& tensor,
                         const std::vector<std::string>& axes, bool allow_negative_infinity = false);

// As check_tensor, for any rank ≥ 1.
std::string check_tensor_any_rank(const std::string& function, const std::string& argument, const Tensor& tensor,
                                  bool allow_negative_infinity = false);

// tensor.shape must equal `expected`, where −1 matches any size. `expected_text` is how the message
// spells the expectation, e.g. "[d_in=3, d_out]".
std::string check_shape(const std::string& function, const std::string& argument, const Tensor& tensor,
                        const std::vector<int>& expected, const std::string& expected_text);

// Rejects when `floats` float32 values (results plus workspace) exceed max_bytes; `sizes` names the
// sizes that drive the estimate ("B=4, T=30000").
std::string check_memory(const std::string& function, const std::string& sizes, double floats,
                         std::size_t max_bytes);

// "" when `value` lies in the registry's range for `function`'s numeric option (web/src/core/registry.js,
// generated into attention/registry.h), else "<function>: options.<option>=<shown>; expected <its words>".
std::string check_option_range(const std::string& function, const char* option, double value, const std::string& shown);

// dropout in [0, 1) and seed an integer in [0, 2³²).
std::string check_dropout_options(const std::string& function, float dropout, double seed);

// temperature finite and > 0, dropout and seed as above, heads ≥ 1 when the function reads it.
std::string check_attention_options(const std::string& function, const AttentionOptions& options, bool reads_heads);

}  // namespace ap
