// Reading JS arguments into core types and writing core results back as plain JS values.
//
// A JS tensor is {data: Float32Array, shape: number[]} (token ids: Int32Array). The core can check
// ranks, sizes and values, but not what only exists on the JS side: whether `data` is a typed array
// of the right kind, whether `shape` is an array of non-negative integers, whether data.length equals
// the product of the shape, and whether the copy fits in what is left of the 2 GiB heap. A direct call's
// are checked here, before the one bulk copy into the heap; a call the JS API checked (the unchecked entry)
// has its shapes read, not checked again.
//
// A Call gathers the first error of one binding call; once it has one, every later read is skipped,
// so a binding function reads all its arguments in a straight line and looks at the error once.
#pragma once

#include <emscripten/val.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "attention/check_helpers.h"
#include "attention/results.h"
#include "attention/tensor.h"

namespace ap::bindings {

using emscripten::val;

class Call {
 public:
  // `function` is the JS API name the messages start with ("selfAttention"). Without `checks` (the binding's
  // unchecked entry: the JS API has checked the call) a tensor's layout is read, not checked.
  explicit Call(const char* function, bool checks = true);

  const char* function() const { return function_; }
  bool ok() const { return error_.empty(); }
  const std::string& error() const { return error_; }

  // Records `message` (a full message from the core, or "" for none) unless an error is already set.
  void fail(const std::string& message);
  // Records "<function>: <argument>=<value>; expected <expectation>".
  void fail_value(const std::string& argument, const val& value, const std::string& expectation);

  // A required tensor argument. `argument` is its path in messages ("x", "weights.query"). Its layout is
  // checked and its shape set now; its data is copied into the heap by copy_inputs(), once the call's
  // check has passed on the shapes alone (check_before_copy).
  void read(const val& js, const std::string& argument, Tensor& out);
  // Token ids (Int32Array data).
  void read(const val& js, const std::string& argument, IntTensor& out);
  // An optional tensor: undefined or null leaves `out` absent (empty shape).
  void read_optional(const val& js, const std::string& argument, Tensor& out);

  // What the core may allocate now: the heap left after the inputs were copied in, in whole MiB.
  std::size_t max_bytes() const { return heap_left(); }

  // Bytes the inputs read so far take (or will take, before copy_inputs) on the heap.
  double input_bytes() const { return input_bytes_; }

  // The core's check_* on the shapes alone (ShapesOnlyChecks), before any input is copied: max_bytes is
  // what will be left once the inputs are in. A call refused here has allocated nothing in the module.
  // Inputs under kCheckBeforeCopyBytes skip it: their copies cannot grow the memory by more than that, and
  // the teaching sizes' calls (tens of µs) do not pay for a second pass of the check.
  static constexpr double kCheckBeforeCopyBytes = 1 << 20;
  template <typename Check>
  void check_before_copy(const Check& check) {
    if (!ok() || input_bytes_ < kCheckBeforeCopyBytes) return;
    const std::size_t left = heap_left();
    const auto inputs = static_cast<std::size_t>(input_bytes_);
    const std::size_t mib = std::size_t{1} << 20;
    const std::size_t after_inputs = inputs >= left ? 0 : (left - inputs) / mib * mib;
    ShapesOnlyChecks shapes_only;
    check_against(check, after_inputs);
  }

  // Copies the data of every tensor read into the heap (one bulk copy each).
  void copy_inputs();

  // Runs the core's check_* as check(max_bytes) unless an error is already set. max_bytes is what is
  // left of the heap after the inputs were copied in, rounded down to whole MiB so a message reads
  // "the memory limit is 1975 MiB". A request beyond the whole 2 GiB is reported against 2 GiB, in the
  // words the JS reference uses (so the check runs again, for memory messages only: it scans every input).
  template <typename Check>
  void check(const Check& check) {
    if (!ok()) return;
    check_against(check, max_bytes());
  }

  // A JS Error carrying the message. Returned, not thrown: see the top of bindings.cpp.
  val error_value() const;

 private:
  static std::size_t heap_left();
  static std::size_t heap_limit();

  template <typename Check>
  void check_against(const Check& check, std::size_t max_bytes) {
    const std::string message = check(max_bytes);
    if (message.empty()) return;
    if (message.find("the memory limit is") == std::string::npos) return fail(message);
    const std::string against_limit = check(heap_limit());
    fail(against_limit.empty() ? message : against_limit);
  }

  // Checks shape and data; returns the element count, or sets the error and returns 0.
  std::size_t check_layout(const val& js, const std::string& argument, const char* data_type,
                           std::vector<int>& shape);
  // The shape of a tensor whose layout was checked already; returns the element count.
  std::size_t read_layout(const val& js, std::vector<int>& shape);

  // "<function>: <argument>", how every message starts.
  std::string prefix(const std::string& argument) const;

  // A tensor whose layout was checked and whose data waits for copy_inputs().
  struct PendingCopy {
    val data;
    std::vector<float>* floats;
    std::vector<std::int32_t>* ints;
    std::size_t count;
    std::string argument;
  };

  const char* function_;
  bool checks_;
  std::string error_;
  std::vector<PendingCopy> pending_;
  double input_bytes_ = 0;
};

// A JS global ("Float32Array") or a property name ("shape") as a JS value, made once and kept. Embind
// decodes a C string byte by byte in JS on every use; with the names cached, a six-token
// selfAttention call spends a third less time in the binding. Keyed by the literal's address.
const val& js_global(const char* name);
const val& js_key(const char* name);

// typeof value === type.
bool has_type(const val& value, const char* type);
// ArrayBuffer.isView(value): a typed array (or DataView).
bool is_view(const val& value);

// "undefined", "null", "'text'", "1.5", "true", "an Array(3)", "a Float64Array(6)", "an object with keys [...]".
std::string describe(const val& value);

// {data: Float32Array (a copy), shape: [...]}.
val to_js(const Tensor& tensor);
// {data: Int32Array (a copy), shape: [...]}.
val to_js(const IntTensor& tensor);
// Sets result[name] only when the tensor is present, so absent results are absent keys.
void set_if_present(val& result, const char* name, const Tensor& tensor);

// compare's figures as a plain JS object (the other results: bindings.cpp, by their tensors' names).
val to_js(const Comparison& result);

}  // namespace ap::bindings
