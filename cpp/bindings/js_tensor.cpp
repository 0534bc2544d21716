#include "js_tensor.h"

#include <climits>
#include <deque>
#include <utility>
#include <vector>

#include "attention/check_helpers.h"
#include "heap.h"

namespace ap::bindings {

namespace {

// A handful of names at most (the API's argument, option and result names): a linear scan of
// addresses beats hashing the text. A deque, so references handed out stay valid as it grows.
const val& interned(std::deque<std::pair<const char*, val>>& cache, const char* name, val (*make)(const char*)) {
  for (const auto& [address, value] : cache) {
    if (address == name) return value;
  }
  cache.emplace_back(name, make(name));
  return cache.back().second;
}

// A new JS typed array holding a copy of `data`: slice() of a view of the heap. The view lives only
// inside this one call, so heap growth can never leave the caller holding a detached view.
template <typename T>
val copy_to_js(const std::vector<T>& data) {
  return val(emscripten::typed_memory_view(data.size(), data.data())).call<val>("slice");
}

val shape_to_js(const std::vector<int>& shape) {
  val array = val::array();
  for (std::size_t axis = 0; axis < shape.size(); ++axis) array.set(axis, shape[axis]);
  return array;
}

}  // namespace

const val& js_global(const char* name) {
  static std::deque<std::pair<const char*, val>> globals;
  return interned(globals, name, [](const char* text) { return val::global(text); });
}

const val& js_key(const char* name) {
  static std::deque<std::pair<const char*, val>> keys;
  return interned(keys, name, [](const char* text) { return val(text); });
}

bool has_type(const val& value, const char* type) { return value.typeOf().strictlyEquals(js_key(type)); }

bool is_view(const val& value) {
  static const val is_view_function = js_global("ArrayBuffer")[js_key("isView")];
  return is_view_function(value).as<bool>();
}

Call::Call(const char* function, bool checks) : function_(function), checks_(checks) {}

void Call::fail(const std::string& message) {
  if (ok() && !message.empty()) error_ = message;
}

void Call::fail_value(const std::string& argument, const val& value, const std::string& expectation) {
  fail(prefix(argument) + "=" + describe(value) + "; expected " + expectation);
}

std::size_t Call::check_layout(const val& js, const std::string& argument, const char* data_type,
                               std::vector<int>& shape_out) {
  if (!ok()) return 0;
  if (!checks_) return read_layout(js, shape_out);
  // The same checks, in the same order and words, as checkTensorStructure in web/src/core/tensor.js.
  if (!has_type(js, "object") || js.isNull() || js.isArray() || is_view(js)) {
    fail(prefix(argument) + " is " + describe(js) + "; expected a tensor {data: " + data_type + ", shape: number[]}");
    return 0;
  }

  const val data = js[js_key("data")];
  if (!data.instanceof(js_global(data_type))) {
    fail(prefix(argument) + ".data is " + describe(data) + "; expected " + (data_type[0] == 'I' ? "an " : "a ")
         + data_type);
    return 0;
  }

  const val shape = js[js_key("shape")];
  static const val is_safe_integer = js_global("Number")[js_key("isSafeInteger")];
  bool shape_valid = shape.isArray();
  const int rank = shape_valid ? shape[js_key("length")].as<int>() : 0;
  for (int axis = 0; shape_valid && axis < rank; ++axis) {
    shape_valid = is_safe_integer(shape[axis]).as<bool>() && shape[axis].as<double>() >= 0;
  }
  if (!shape_valid) {
    const std::string text = shape.isArray() ? js_global("JSON").call<std::string>("stringify", shape) : describe(shape);
    fail(prefix(argument) + ".shape is " + text + "; expected an array of non-negative integers");
    return 0;
  }
  if (rank == 0) {
    // The core reads an empty shape as "absent", and no API function takes a scalar.
    fail(prefix(argument) + " has shape []; expected a tensor of rank ≥ 1");
    return 0;
  }
  double count = 1;
  for (int axis = 0; axis < rank; ++axis) {
    const double size = shape[axis].as<double>();
    if (size > INT_MAX) {
      fail(prefix(argument) + ".shape[" + std::to_string(axis) + "]=" + format_number(size) + "; expected at most "
           + std::to_string(INT_MAX));
      return 0;
    }
    count *= size;
    shape_out.push_back(static_cast<int>(size));
  }

  const double length = data[js_key("length")].as<double>();
  if (length != count) {
    fail(prefix(argument) + ".data has " + format_number(length) + " values; expected " + format_number(count)
         + " for shape " + format_shape(shape_out));
    return 0;
  }

  // The copies of the inputs read so far and this one must fit in what is left of the heap; the core's
  // own check covers its results.
  const double bytes = count * 4;
  const double available = double(bytes_available());
  if (input_bytes_ + bytes > available) {
    const double left = available > input_bytes_ ? available - input_bytes_ : 0;
    fail(prefix(argument) + " needs " + format_bytes(bytes) + " on the WASM heap; the memory limit is "
         + format_limit(heap_limit_bytes()) + " and " + format_bytes(left) + " is left");
    return 0;
  }
  input_bytes_ += bytes;
  return static_cast<std::size_t>(count);
}

std::size_t Call::read_layout(const val& js, std::vector<int>& shape_out) {
  const val shape = js[js_key("shape")];
  const int rank = shape[js_key("length")].as<int>();
  std::size_t count = 1;
  for (int axis = 0; axis < rank; ++axis) {
    shape_out.push_back(shape[axis].as<int>());
    count *= static_cast<std::size_t>(shape_out.back());
  }
  return count;
}

std::string Call::prefix(const std::string& argument) const { return std::string(function_) + ": " + argument; }

void Call::read(const val& js, const std::string& argument, Tensor& out) {
  std::vector<int> shape;
  const std::size_t count = check_layout(js, argument, "Float32Array", shape);
  if (!ok()) return;
  out.shape = std::move(shape);
  pending_.push_back({js[js_key("data")], &out.data, nullptr, count, argument});
}

void Call::read(const val& js, const std::string& argument, IntTensor& out) {
  std::vector<int> shape;
  const std::size_t count = check_layout(js, argument, "Int32Array", shape);
  if (!ok()) return;
  out.shape = std::move(shape);
  pending_.push_back({js[js_key("data")], nullptr, &out.data, count, argument});
}

void Call::copy_inputs() {
  for (PendingCopy& input : pending_) {
    if (!ok()) break;
    const std::size_t copied = input.floats
        ? (*input.floats = emscripten::convertJSArrayToNumberVector<float>(input.data)).size()
        : (*input.ints = emscripten::convertJSArrayToNumberVector<std::int32_t>(input.data)).size();
    if (copied != input.count) fail(prefix(input.argument) + ".data changed while it was read");
  }
  pending_.clear();
}

void Call::read_optional(const val& js, const std::string& argument, Tensor& out) {
  if (js.isUndefined() || js.isNull()) return;
  read(js, argument, out);
}

std::size_t Call::heap_left() { return bytes_available() / (std::size_t{1} << 20) * (std::size_t{1} << 20); }

std::size_t Call::heap_limit() { return heap_limit_bytes(); }

val Call::error_value() const { return js_global("Error").new_(error_); }

std::string describe(const val& value) {
  // The same words as describeValue in web/src/core/tensor.js.
  if (value.isNull()) return "null";
  if (value.isUndefined()) return "undefined";
  if (value.isString()) {
    const std::string text = value.as<std::string>();
    const val length = value[js_key("length")];
    if (length.as<double>() <= 40) return "'" + text + "'";
    return "'" + value.call<std::string>("slice", 0, 40) + "…'";
  }
  const std::string type = value.typeOf().as<std::string>();
  if (type == "number" || type == "boolean" || type == "bigint") return js_global("String")(value).as<std::string>();
  if (value.isArray()) return "an Array(" + format_number(value[js_key("length")].as<double>()) + ")";
  if (is_view(value)) {
    return "a " + value[js_key("constructor")][js_key("name")].as<std::string>() + "("
           + js_global("String")(value[js_key("length")]).as<std::string>() + ")";
  }
  if (type == "function") return "a function";
  const val keys = js_global("Object").call<val>("keys", value).call<val>("slice", 0, 8);
  return "an object with keys " + js_global("JSON").call<std::string>("stringify", keys);
}

val to_js(const Tensor& tensor) {
  val js = val::object();
  js.set(js_key("data"), copy_to_js(tensor.data));
  js.set(js_key("shape"), shape_to_js(tensor.shape));
  return js;
}

val to_js(const IntTensor& tensor) {
  val js = val::object();
  js.set(js_key("data"), copy_to_js(tensor.data));
  js.set(js_key("shape"), shape_to_js(tensor.shape));
  return js;
}

void set_if_present(val& result, const char* name, const Tensor& tensor) {
  if (tensor.present()) result.set(name, to_js(tensor));
}

val to_js(const Comparison& result) {
  val js = val::object();
  js.set(js_key("maxAbsError"), result.max_abs_error);
  js.set(js_key("maxRelError"), result.max_rel_error);
  js.set(js_key("allclose"), result.allclose);
  js.set(js_key("firstMismatch"), static_cast<double>(result.first_mismatch));
  return js;
}

}  // namespace ap::bindings
