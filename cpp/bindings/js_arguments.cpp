#include "js_arguments.h"

#include <climits>
#include <cstring>
#include <iterator>
#include <string>
#include <type_traits>

#include "attention/check_helpers.h"

namespace ap::bindings {

namespace {

bool same(const char* a, const char* b) { return std::strcmp(a, b) == 0; }
bool missing(const val& value) { return value.isUndefined() || value.isNull(); }
bool is_object(const val& js) { return has_type(js, "object") && !js.isNull() && !js.isArray() && !is_view(js); }

// ---- Weights: an object of tensors by the registry's keys --------------------------------------------

// The registry's rule: a key ending in Bias, and outWeight, is optional.
bool optional_key(const char* key) {
  const std::size_t length = std::strlen(key);
  return same(key, "outWeight") || (length >= 4 && same(key + length - 4, "Bias"));
}

// "query, key, value": the required keys, as a message lists them.
std::string required_keys(const char* const* keys) {
  std::string text;
  for (int i = 0; i < registry::kMaxKeys && keys[i][0] != '\0'; ++i) {
    if (optional_key(keys[i])) continue;
    text += (text.empty() ? "" : ", ") + std::string(keys[i]);
  }
  return text;
}

// Each weights struct's tensors by their JS keys.
Tensor* tensor_named(ProjectionWeights& w, const char* key) {
  const std::pair<const char*, Tensor*> fields[] = {{"query", &w.query}, {"key", &w.key}, {"value", &w.value},
    {"queryBias", &w.query_bias}, {"keyBias", &w.key_bias}, {"valueBias", &w.value_bias},
    {"outWeight", &w.out_weight}, {"outBias", &w.out_bias}};
  for (const auto& [name, tensor] : fields) {
    if (same(name, key)) return tensor;
  }
  return nullptr;
}
Tensor* tensor_named(StackedWeights& w, const char* key) {
  return same(key, "outWeight") ? &w.out_weight : same(key, "outBias") ? &w.out_bias : nullptr;
}
Tensor* tensor_named(FusedWeights& w, const char* key) {
  const std::pair<const char*, Tensor*> fields[] = {{"inProjection", &w.in_projection}, {"inBias", &w.in_bias},
    {"outWeight", &w.out_weight}, {"outBias", &w.out_bias}};
  for (const auto& [name, tensor] : fields) {
    if (same(name, key)) return tensor;
  }
  return nullptr;
}

// "weights is 5; expected an object {query, key, value, …}", as the JS reference words it.
void fail_not_object(Call& call, const std::string& where, const val& js, const char* const* keys) {
  call.fail(std::string(call.function()) + ": " + where + " is " + describe(js) + "; expected an object {"
            + required_keys(keys) + ", …}");
}

void read_heads(Call& call, const val& js, const registry::Argument& spec, StackedWeights& out);

// The tensors of `keys` from the object `js` at `where` ("weights", "weights.heads[0]").
template <typename Weights>
void read_keys(Call& call, const val& js, const std::string& where, const registry::Argument& spec,
               const char* const* keys, Weights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, where, js, keys);
  for (int i = 0; i < registry::kMaxKeys && keys[i][0] != '\0' && call.ok(); ++i) {
    const char* key = keys[i];
    if constexpr (std::is_same_v<Weights, StackedWeights>) {
      if (same(key, "heads")) {
        read_heads(call, js[js_key(key)], spec, out);
        continue;
      }
    }
    Tensor* tensor = tensor_named(out, key);
    const std::string path = where + "." + key;
    if (optional_key(key)) call.read_optional(js[js_key(key)], path, *tensor);
    else call.read(js[js_key(key)], path, *tensor);
  }
}

// weights.heads: [{query, key, value, …Bias?}], H ≥ 1 of them.
void read_heads(Call& call, const val& heads, const registry::Argument& spec, StackedWeights& out) {
  if (!heads.isArray() || heads[js_key("length")].as<int>() == 0) {
    return call.fail_value(std::string(spec.name) + ".heads", heads,
                           "an array of H ≥ 1 heads {" + required_keys(spec.head_keys) + ", …}");
  }
  out.heads.resize(heads[js_key("length")].as<int>());
  for (std::size_t h = 0; h < out.heads.size() && call.ok(); ++h) {
    read_keys(call, heads[h], std::string(spec.name) + ".heads[" + std::to_string(h) + "]", spec, spec.head_keys,
              out.heads[h]);
  }
}

}  // namespace

// One present option's value into its member, by the member's type.
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, bool& out, bool*) {
  if (!has_type(value, "boolean")) return call.fail_value(path, value, "true or false");
  out = value.as<bool>();
}

// `heads` becomes a C++ int, so a fraction or a value outside int is rejected here (the API's check, which
// runs first, reports such a value against d_out); the core checks H ≥ 1.
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, int& out, bool*) {
  static const val is_integer = js_global("Number")[js_key("isInteger")];
  if (!is_integer(value).as<bool>() || value.as<double>() > INT_MAX || value.as<double>() < INT_MIN) {
    return call.fail_value(path, value, "an integer from 1 to " + std::to_string(INT_MAX));
  }
  out = value.as<int>();
}

// A JS number, passed on unchanged; the core checks its range (and NaN).
template <typename Number>
void read_number(Call& call, const val& value, const OptionPath& path, const registry::Option& spec, Number& out,
                 bool* given) {
  if (!value.isNumber()) return call.fail_value(path, value, spec.expected);
  out = static_cast<Number>(value.as<double>());
  if (given) *given = true;
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option& spec, float& out,
                bool* given) {
  read_number(call, value, path, spec, out, given);
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option& spec, double& out,
                bool* given) {
  read_number(call, value, path, spec, out, given);
}

// A choice spelled as a JS string; the core's option tables word the message and list the choices.
template <typename Enum>
void read_choice(Call& call, const val& value, const OptionPath& path, Enum& out) {
  if (!value.isString()) return call.fail_value(path, value, option_choices(out));
  call.fail(parse_option(call.function(), path, value.as<std::string>(), out));
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, Normalization& out, bool*) {
  read_choice(call, value, path, out);
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, MaskMode& out, bool*) {
  read_choice(call, value, path, out);
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, WeightLayout& out, bool*) {
  read_choice(call, value, path, out);
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, DropoutRng& out, bool*) {
  read_choice(call, value, path, out);
}
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option&, GeluApproximation& out,
                bool*) {
  read_choice(call, value, path, out);
}

// A tensor option; a 'mask' crosses as float (a Uint8Array's 0/1 copied into a Float32Array, which the core's
// check holds to 0 or 1), its flag saying it came as a Uint8Array.
void read_value(Call& call, const val& value, const OptionPath& path, const registry::Option& spec, Tensor& out,
                bool* boolean) {
  if (!same(spec.type, "mask")) return call.read(value, path, out);
  const val data = value[js_key("data")];
  const bool uint8 = data.instanceof(js_global("Uint8Array"));
  if (boolean) *boolean = uint8;
  val as_float = val::object();
  as_float.set(js_key("shape"), value[js_key("shape")]);
  as_float.set(js_key("data"), uint8 ? js_global("Float32Array").new_(data) : data);
  call.read(as_float, path, out);
}

// options.path: 'fused' or 'teaching'; absent (a direct caller of the backend), the fused kernel's rule decides.
void read_value(Call&, const val& value, const OptionPath&, const registry::Option&, PlannedPath& out, bool*) {
  if (!value.isString()) return;
  const std::string path = value.as<std::string>();
  out = path == "fused" ? PlannedPath::Fused : path == "teaching" ? PlannedPath::Teaching : PlannedPath::ByRule;
}

Signature signature_of(const char* function) {
  Signature signature;
  for (const registry::Argument& row : registry::kArguments) {
    if (same(row.function, function)) signature.arguments.push_back(&row);
  }
  for (const registry::Option& row : registry::kOptions) {
    if (same(row.function, function)) signature.options.push_back(&row);
  }
  return signature;
}

void read_argument(Call& call, const val& js, const registry::Argument& spec, Tensor& out) { call.read(js, spec.name, out); }
void read_argument(Call& call, const val& js, const registry::Argument& spec, IntTensor& out) { call.read(js, spec.name, out); }
void read_argument(Call& call, const val& js, const registry::Argument& spec, ProjectionWeights& out) {
  read_keys(call, js, spec.name, spec, spec.keys, out);
}
void read_argument(Call& call, const val& js, const registry::Argument& spec, StackedWeights& out) {
  read_keys(call, js, spec.name, spec, spec.keys, out);
}
void read_argument(Call& call, const val& js, const registry::Argument& spec, FusedWeights& out) {
  read_keys(call, js, spec.name, spec, spec.keys, out);
}

bool options_object(Call& call, const val& js) {
  if (!call.ok() || missing(js)) return false;
  if (is_object(js)) return true;
  call.fail(std::string(call.function()) + ": options is " + describe(js) + "; expected an object");
  return false;
}

void check_agreement(Call& call, const val& options, const Tensor&, const StackedWeights& weights,
                     const AttentionOptions& read) {
  if (!call.ok() || !is_object(options) || missing(options[js_key("heads")])) return;
  // Its range first (H ≥ 1), as the JS check orders them.
  call.fail(check_option_range(call.function(), "heads", read.heads, std::to_string(read.heads)));
  if (call.ok() && read.heads != static_cast<int>(weights.heads.size())) {
    call.fail_value("options.heads", options[js_key("heads")],
                    std::to_string(weights.heads.size()) + ", the length of weights.heads");
  }
}

void check_agreement(Call& call, const val& options, const Tensor& x, const StackedWeights& weights, const Tensor&,
                     const AttentionOptions& read) {
  check_agreement(call, options, x, weights, read);
}

}  // namespace ap::bindings
