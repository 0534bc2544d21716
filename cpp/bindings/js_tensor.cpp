#include "js_tensor.h"

#include <climits>
#include <cstdio>
#include <utility>
#include <vector>

#include "heap.h"

namespace ap::bindings {

namespace {

const char* const kTensorExpectation = "a tensor {data, shape}";

bool is_vowel(char c) { return c == 'A' || c == 'E' || c == 'I' || c == 'O' || c == 'U'; }

// "1.5 GiB", "300.0 MiB": sizes in messages.
std::string format_bytes(double bytes) {
  char text[32];
  if (bytes >= double(1 << 30)) {
    std::snprintf(text, sizeof text, "%.1f GiB", bytes / double(1 << 30));
  } else {
    std::snprintf(text, sizeof text, "%.1f MiB", bytes / double(1 << 20));
  }
  return text;
}

// Copies `count` elements from the heap into a new JS typed array of `type`. The heap view lives only
// for the duration of `set`: nothing allocates between making the view and copying out of it.
template <typename T>
val copy_to_js(const char* type, const std::vector<T>& data) {
  val array = val::global(type).new_(data.size());
  array.call<void>("set", val(emscripten::typed_memory_view(data.size(), data.data())));
  return array;
}

val shape_to_js(const std::vector<int>& shape) {
  val array = val::array();
  for (std::size_t axis = 0; axis < shape.size(); ++axis) array.set(axis, shape[axis]);
  return array;
}

}  // namespace

Call::Call(const char* function) : function_(function) {}

void Call::fail(const std::string& message) {
  if (ok() && !message.empty()) error_ = message;
}

void Call::fail_value(const std::string& argument, const val& value, const std::string& expectation) {
  fail(std::string(function_) + ": " + argument + "=" + describe(value) + "; expected " + expectation);
}

std::size_t Call::check_layout(const val& js, const std::string& argument, const char* data_type,
                               std::vector<int>& shape_out) {
  if (!ok()) return 0;
  if (js.typeOf().as<std::string>() != "object" || js.isNull() || js.isArray()) {
    fail(std::string(function_) + ": " + argument + " is " + describe(js) + "; expected " + kTensorExpectation
         + " with data a " + data_type + " and shape an array of non-negative integers");
    return 0;
  }

  const val shape = js["shape"];
  if (!shape.isArray()) {
    fail(std::string(function_) + ": " + argument + ".shape is " + describe(shape)
         + "; expected an array of non-negative integers");
    return 0;
  }
  const int rank = shape["length"].as<int>();
  if (rank == 0) {
    // The core reads an empty shape as "absent", so a rank-0 tensor cannot be passed through.
    fail(std::string(function_) + ": " + argument + ".shape is []; expected at least one axis");
    return 0;
  }
  const val is_integer = val::global("Number")["isInteger"];
  double count = 1;
  for (int axis = 0; axis < rank; ++axis) {
    const val size = shape[axis];
    if (!is_integer(size).as<bool>() || size.as<double>() < 0 || size.as<double>() > INT_MAX) {
      fail_value(argument + ".shape[" + std::to_string(axis) + "]", size, "a non-negative integer");
      return 0;
    }
    count *= size.as<double>();
    shape_out.push_back(size.as<int>());
  }

  const val data = js["data"];
  if (!data.instanceof(val::global(data_type))) {
    fail(std::string(function_) + ": " + argument + ".data is " + describe(data) + "; expected a " + data_type);
    return 0;
  }
  const double length = data["length"].as<double>();
  if (length != count) {
    char text[64];
    std::snprintf(text, sizeof text, "%.0f elements; expected %.0f", length, count);
    fail(std::string(function_) + ": " + argument + ".data has " + text + " for shape " + format_shape(shape_out));
    return 0;
  }

  // The copy must fit in what is left of the heap; the core's own check covers its results.
  const double bytes = count * 4;
  if (bytes > double(bytes_available())) {
    fail(std::string(function_) + ": " + argument + " needs " + format_bytes(bytes)
         + " on the WASM heap; the memory limit is " + format_bytes(double(heap_limit_bytes())) + " and "
         + format_bytes(double(bytes_available())) + " is left");
    return 0;
  }
  return static_cast<std::size_t>(count);
}

void Call::read(const val& js, const std::string& argument, Tensor& out) {
  std::vector<int> shape;
  const std::size_t count = check_layout(js, argument, "Float32Array", shape);
  if (!ok()) return;
  out.shape = std::move(shape);
  out.data = emscripten::convertJSArrayToNumberVector<float>(js["data"]);
  if (out.data.size() != count) fail(std::string(function_) + ": " + argument + ".data changed while it was read");
}

void Call::read(const val& js, const std::string& argument, IntTensor& out) {
  std::vector<int> shape;
  const std::size_t count = check_layout(js, argument, "Int32Array", shape);
  if (!ok()) return;
  out.shape = std::move(shape);
  out.data = emscripten::convertJSArrayToNumberVector<std::int32_t>(js["data"]);
  if (out.data.size() != count) fail(std::string(function_) + ": " + argument + ".data changed while it was read");
}

void Call::read_optional(const val& js, const std::string& argument, Tensor& out) {
  if (js.isUndefined() || js.isNull()) return;
  read(js, argument, out);
}

std::size_t Call::max_bytes() const { return bytes_available(); }

val Call::error_value() const { return val::global("Error").new_(error_); }

std::string describe(const val& value) {
  if (value.isUndefined()) return "undefined";
  if (value.isNull()) return "null";
  if (value.isString()) return "'" + value.as<std::string>() + "'";
  const std::string type = value.typeOf().as<std::string>();
  if (type == "number" || type == "boolean" || type == "bigint") {
    return val::global("String")(value).as<std::string>();
  }
  if (type == "function") return "a function";
  if (value.isArray()) return "an Array";
  const val constructor = value["constructor"];
  std::string name = "Object";
  if (!constructor.isUndefined() && !constructor.isNull() && constructor["name"].isString()) {
    name = constructor["name"].as<std::string>();
  }
  if (name.empty()) name = "Object";
  return (is_vowel(name[0]) ? "an " : "a ") + name;
}

val to_js(const Tensor& tensor) {
  val js = val::object();
  js.set("data", copy_to_js("Float32Array", tensor.data));
  js.set("shape", shape_to_js(tensor.shape));
  return js;
}

val to_js(const IntTensor& tensor) {
  val js = val::object();
  js.set("data", copy_to_js("Int32Array", tensor.data));
  js.set("shape", shape_to_js(tensor.shape));
  return js;
}

void set_if_present(val& result, const char* name, const Tensor& tensor) {
  if (tensor.present()) result.set(name, to_js(tensor));
}

val to_js(const NextTokenPairs& result) {
  val js = val::object();
  js.set("contexts", to_js(result.contexts));
  js.set("targets", to_js(result.targets));
  return js;
}

val to_js(const AverageResult& result) {
  val js = val::object();
  set_if_present(js, "scores", result.scores);
  set_if_present(js, "masked", result.masked);
  set_if_present(js, "weights", result.weights);
  set_if_present(js, "output", result.output);
  return js;
}

val to_js(const AttentionResult& result) {
  val js = val::object();
  set_if_present(js, "query", result.query);
  set_if_present(js, "key", result.key);
  set_if_present(js, "value", result.value);
  set_if_present(js, "scores", result.scores);
  set_if_present(js, "scaled", result.scaled);
  set_if_present(js, "masked", result.masked);
  set_if_present(js, "weights", result.weights);
  set_if_present(js, "dropped", result.dropped);
  set_if_present(js, "context", result.context);
  set_if_present(js, "output", result.output);
  return js;
}

val to_js(const DropoutResult& result) {
  val js = val::object();
  set_if_present(js, "mask", result.mask);
  set_if_present(js, "output", result.output);
  return js;
}

val to_js(const Comparison& result) {
  val js = val::object();
  js.set("maxAbsError", result.max_abs_error);
  js.set("maxRelError", result.max_rel_error);
  js.set("allclose", result.allclose);
  js.set("firstMismatch", static_cast<double>(result.first_mismatch));
  return js;
}

}  // namespace ap::bindings
