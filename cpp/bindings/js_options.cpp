#include "js_options.h"

#include <climits>
#include <iterator>
#include <string>

namespace ap::bindings {

namespace {

// options[name], or undefined when options itself is absent. Missing and null both mean "default".
val option(const val& options, const char* name) {
  if (options.isUndefined() || options.isNull()) return val::undefined();
  return options[js_key(name)];
}

bool missing(const val& value) { return value.isUndefined() || value.isNull(); }

std::string path(const char* name) { return std::string("options.") + name; }

void read_bool(Call& call, const val& options, const char* name, bool& out) {
  const val value = option(options, name);
  if (!call.ok() || missing(value)) return;
  if (!has_type(value, "boolean")) {
    call.fail_value(path(name), value, "true or false");
    return;
  }
  out = value.as<bool>();
}

// A JS number, passed on unchanged; the core checks its range (and NaN).
template <typename Number>
void read_number(Call& call, const val& options, const char* name, const char* expectation, Number& out) {
  const val value = option(options, name);
  if (!call.ok() || missing(value)) return;
  if (!value.isNumber()) {
    call.fail_value(path(name), value, expectation);
    return;
  }
  out = static_cast<Number>(value.as<double>());
}

// `heads` becomes a C++ int, so a fraction or a value outside int is rejected here (the API's check, which
// runs first, reports such a value against d_out); the core checks H ≥ 1.
void read_heads(Call& call, const val& options, int& out) {
  const val value = option(options, "heads");
  if (!call.ok() || missing(value)) return;
  static const val is_integer = js_global("Number")[js_key("isInteger")];
  const bool integer = is_integer(value).as<bool>();
  if (!integer || value.as<double>() > INT_MAX || value.as<double>() < INT_MIN) {
    call.fail_value("options.heads", value, "an integer from 1 to " + std::to_string(INT_MAX));
    return;
  }
  out = value.as<int>();
}

// Every value of each enum option, in the order messages list them.
constexpr Normalization kNormalizations[] = {Normalization::Stable, Normalization::Naive, Normalization::Sum};
constexpr MaskMode kMaskModes[] = {MaskMode::NegInf, MaskMode::Renormalize, MaskMode::Zero};
constexpr WeightLayout kLayouts[] = {WeightLayout::Matrix, WeightLayout::Linear};
constexpr DropoutRng kDropoutRngs[] = {DropoutRng::Counter, DropoutRng::Torch};
const auto& all_values(Normalization) { return kNormalizations; }
const auto& all_values(MaskMode) { return kMaskModes; }
const auto& all_values(WeightLayout) { return kLayouts; }
const auto& all_values(DropoutRng) { return kDropoutRngs; }

// "'stable', 'naive' or 'sum'"
template <typename Enum>
std::string choices(Enum any) {
  const auto& values = all_values(any);
  const std::size_t count = std::size(values);
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    if (i > 0) text += i + 1 == count ? " or " : ", ";
    text += std::string("'") + option_name(values[i]) + "'";
  }
  return text;
}

// An enum option spelled as a JS string; the core's parse_option words the message and lists the choices.
template <typename Enum>
void read_choice(Call& call, const val& options, const char* name, Enum& out) {
  const val value = option(options, name);
  if (!call.ok() || missing(value)) return;
  if (value.isString()) {
    call.fail(parse_option(call.function(), path(name), value.as<std::string>(), out));
    return;
  }
  call.fail_value(path(name), value, choices(out));
}

// The options argument itself: absent is fine (all defaults); anything else must be a plain object.
void check_object(Call& call, const val& options) {
  if (!call.ok() || missing(options)) return;
  if (!has_type(options, "object") || options.isArray() || is_view(options)) {
    call.fail(std::string(call.function()) + ": options is " + describe(options) + "; expected an object");
  }
}

}  // namespace

void read_options(Call& call, const val& options, AttentionOptions& out, AttentionOptionSet which) {
  check_object(call, options);
  read_bool(call, options, "scale", out.scale);
  read_number(call, options, "temperature", "a finite number > 0", out.temperature);
  read_bool(call, options, "causal", out.causal);
  read_choice(call, options, "mask", out.mask);
  read_number(call, options, "dropout", "a number in [0, 1)", out.dropout);
  read_number(call, options, "seed", "an integer in [0, 2^32)", out.seed);
  read_choice(call, options, "dropoutRng", out.dropout_rng);
  if (which.layout) read_choice(call, options, "layout", out.layout);
  if (which.heads) read_heads(call, options, out.heads);
  read_bool(call, options, "intermediates", out.intermediates);
  out.path = read_planned_path(options);
}

PlannedPath read_planned_path(const val& options) {
  const val value = option(options, "path");
  if (!value.isString()) return PlannedPath::ByRule;
  const std::string path = value.as<std::string>();
  return path == "fused" ? PlannedPath::Fused : path == "teaching" ? PlannedPath::Teaching : PlannedPath::ByRule;
}

void read_options(Call& call, const val& options, SoftmaxOptions& out) {
  check_object(call, options);
  read_choice(call, options, "normalization", out.normalization);
  // For softmax alone `scale` is a number (the factor), not attention's 1/√d_k switch.
  read_number(call, options, "scale", "a finite number", out.scale);
}

void read_options(Call& call, const val& options, DropoutOptions& out) {
  check_object(call, options);
  read_number(call, options, "dropout", "a number in [0, 1)", out.dropout);
  read_number(call, options, "seed", "an integer in [0, 2^32)", out.seed);
  read_choice(call, options, "dropoutRng", out.dropout_rng);
}

void read_options(Call& call, const val& options, CompareOptions& out) {
  check_object(call, options);
  read_number(call, options, "atol", "a finite number ≥ 0", out.atol);
  read_number(call, options, "rtol", "a finite number ≥ 0", out.rtol);
}

void read_options(Call& call, const val& options, Normalization& out) {
  check_object(call, options);
  read_choice(call, options, "normalization", out);
}

void read_options(Call& call, const val& options, MatmulOptions& out) {
  check_object(call, options);
  read_bool(call, options, "transposeB", out.transpose_b);
}

}  // namespace ap::bindings
