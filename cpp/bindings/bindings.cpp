// The embind declarations: two JS functions per registry function (web/src/core/registry.js), registered by a
// loop over the registry through one generic binding body (invoke). A function needs nothing here. `<name>`, for
// a direct caller of the module, runs its check, paths::check_<cpp>, once; `<name>Unchecked`, for the JS API,
// which has checked the call already (web/src/core/api.js), runs none. Both then run paths::unchecked::<cpp>, the
// planned path's entry point or the teaching step's body (cpp/paths/paths.h); the arguments are read by that
// function's parameter types and the registry's names for them (js_arguments.h), the results written back by type.
//
// Memory ownership
// - JS owns its arguments. Each call copies every input tensor once into a std::vector on the WASM
//   heap (convertJSArrayToNumberVector) and never keeps a reference to a JS object past the call.
// - The core's results are std::vectors owned by the C++ call; each is copied once into a new JS
//   Float32Array / Int32Array, and all C++ memory of the call is freed before it returns. JS may keep
//   everything it gets back for as long as it likes: nothing returned is a view of the heap, so
//   heap growth in a later call cannot turn it into zeros.
// - No embind classes cross the boundary, so there is nothing for JS to .delete().
//
// Errors are returned, not thrown
// Each function returns either its results or a JS Error object, and web/src/core/backends/wasm.js
// throws the Error. Throwing from inside WASM (val::throw_) unwinds past C++ frames without running
// destructors and without restoring the shadow-stack pointer: measured with this Emscripten, every
// throw loses the stack of the frames it unwinds (336 bytes in a five-deep test), so a page that shows
// enough errors would eventually overflow the 5 MiB stack into the heap. Returning the Error lets every
// C++ frame end normally.
//
#include <emscripten/bind.h>

#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "attention/attention.h"
#include "attention/registry.h"
#include "heap.h"
#include "js_arguments.h"
#include "js_tensor.h"
#include "paths/paths.h"

namespace ap::bindings {

namespace {

// ---- Results back to JS, by the type `run` returns ---------------------------------------------------------
// Each result struct's tensors by their JS names, in the order a result lists them; an absent one is an absent key.
// The gradients are named like the inputs ({x, query, key, value, …Bias?, outWeight?, outBias?}; the stacked
// form's {x, heads: [{query, …}], …}).

using NamedTensors = std::vector<std::pair<const char*, const Tensor*>>;

std::vector<std::pair<const char*, const IntTensor*>> named_tensors(const NextTokenPairs& r) {
  return {{"contexts", &r.contexts}, {"targets", &r.targets}};
}
NamedTensors named_tensors(const AverageResult& r) {
  return {{"scores", &r.scores}, {"masked", &r.masked}, {"weights", &r.weights}, {"output", &r.output}};
}
NamedTensors named_tensors(const AttentionResult& r) {
  return {{"query", &r.query},     {"key", &r.key},         {"value", &r.value},     {"scores", &r.scores},
          {"scaled", &r.scaled},   {"masked", &r.masked},   {"weights", &r.weights}, {"dropped", &r.dropped},
          {"context", &r.context}, {"output", &r.output}};
}
NamedTensors named_tensors(const DropoutResult& r) { return {{"mask", &r.mask}, {"output", &r.output}}; }
NamedTensors named_tensors(const SdpaResult& r) {
  return {{"scores", &r.scores},   {"scaled", &r.scaled},   {"masked", &r.masked},
          {"weights", &r.weights}, {"dropped", &r.dropped}, {"output", &r.output}};
}
NamedTensors named_tensors(const ProjectionWeights& w) {
  return {{"query", &w.query},          {"key", &w.key},           {"value", &w.value},
          {"queryBias", &w.query_bias}, {"keyBias", &w.key_bias},  {"valueBias", &w.value_bias},
          {"outWeight", &w.out_weight}, {"outBias", &w.out_bias}};
}
// `first`, then the weights' tensors.
NamedTensors then_weights(NamedTensors first, const ProjectionWeights& weights) {
  const NamedTensors rest = named_tensors(weights);
  first.insert(first.end(), rest.begin(), rest.end());
  return first;
}
NamedTensors named_tensors(const ProjectionGradients& g) { return then_weights({{"x", &g.x}}, g.weights); }
NamedTensors named_tensors(const CrossAttentionGradients& g) {
  return then_weights({{"xQuery", &g.x_query}, {"xContext", &g.x_context}}, g.weights);
}
NamedTensors named_tensors(const FusedGradients& g) {
  return {{"x", &g.x}, {"inProjection", &g.weights.in_projection}, {"inBias", &g.weights.in_bias},
          {"outWeight", &g.weights.out_weight}, {"outBias", &g.weights.out_bias}};
}

// {name: {data, shape}} for every present tensor of a result.
template <typename Result>
val result_to_js(const Result& result) {
  val js = val::object();
  for (const auto& [name, tensor] : named_tensors(result)) {
    if (tensor->present()) js.set(js_key(name), to_js(*tensor));
  }
  return js;
}

// A function returning one tensor returns {output}.
val result_to_js(const Tensor& output) {
  val result = val::object();
  result.set(js_key("output"), to_js(output));
  return result;
}

val result_to_js(const Comparison& result) { return to_js(result); }

// The stacked form's gradients: every head's as an object in weights.heads' order.
val result_to_js(const StackedGradients& gradients) {
  val result = val::object();
  result.set(js_key("x"), to_js(gradients.x));
  val heads = val::array();
  for (const ProjectionWeights& head : gradients.weights.heads) heads.call<void>("push", result_to_js(head));
  result.set(js_key("heads"), heads);
  set_if_present(result, "outWeight", gradients.weights.out_weight);
  set_if_present(result, "outBias", gradients.weights.out_bias);
  return result;
}

// ---- The one binding body ----------------------------------------------------------------------------------

// The decayed parameter types of `run`: what the call reads its JS arguments into.
template <typename Run>
struct Parameters;
template <typename Result, typename... Args>
struct Parameters<Result (*)(Args...)> {
  using Inputs = std::tuple<std::decay_t<Args>...>;
  using Output = Result;
};
template <typename Run>
using InputsOf = typename Parameters<std::remove_const_t<Run>>::Inputs;
template <typename Run>
using OutputOf = typename Parameters<std::remove_const_t<Run>>::Output;

// Reads the options (the last JS argument, where the function has them) and then every argument, by type; the
// checked entry then holds the arguments to what only JS can see between them (check_agreement).
template <bool Checked, typename Inputs, std::size_t... I>
void read_inputs(Call& call, const Signature& signature, const val* js, Inputs& inputs, std::index_sequence<I...>) {
  const auto read_options_at = [&](auto& input, std::size_t index) {
    if constexpr (kIsOptions<std::decay_t<decltype(input)>>) read_options(call, js[index], signature.options, input);
  };
  const auto read_argument_at = [&](auto& input, std::size_t index) {
    if constexpr (!kIsOptions<std::decay_t<decltype(input)>>) read_argument(call, js[index], *signature.arguments[index], input);
  };
  (read_options_at(std::get<I>(inputs), I), ...);
  (read_argument_at(std::get<I>(inputs), I), ...);
  if constexpr (Checked) check_agreement(call, js[sizeof...(I) - 1], std::get<I>(inputs)...);
}

// The unchecked entry's one guard, not a check of the arguments: a call planned onto a path whose rule refuses it
// (the JS planner and the C++ rule disagree, a bug) is an Error in the words of the checked entry's check, never a
// throw from inside WASM (the fast entry points assert the same). `Result`: what the function returns (a
// backward's gradients take the backward's rule).
template <typename Result, typename... Inputs>
std::string planned_path_error(const char* name, const Inputs&... inputs) {
  const auto all = std::tie(inputs...);
  const auto& options = std::get<sizeof...(Inputs) - 1>(all);
  using Options = std::decay_t<decltype(options)>;
  if constexpr (std::is_same_v<Options, AttentionOptions>) {
    constexpr bool backward = std::is_same_v<Result, ProjectionGradients> || std::is_same_v<Result, StackedGradients> ||
                              std::is_same_v<Result, FusedGradients> || std::is_same_v<Result, CrossAttentionGradients>;
    return backward ? check_planned_backward_path(name, options) : check_planned_path(name, options);
  } else if constexpr (std::is_same_v<Options, SdpaOptions>) {
    return check_sdpa_planned_path(std::get<0>(all).shape.back(), std::get<2>(all).shape.back(), options);
  } else {
    return "";
  }
}

// The checked entry (a direct caller of the module): read the options and the tensors' layouts (structural
// checks and the heap budget for the copies), the core's check on the shapes alone with what will be left once
// the inputs are copied as max_bytes — a call refused there has allocated nothing, so it cannot grow the memory —
// then copy the inputs in, the full check (values) with the heap that is left, run, copy the results out.
// The unchecked entry (the JS API, web/src/core/api.js, which has checked the call in full, memory against this
// module's room included): read the shapes (the layouts are not checked again), copy, run; no check_* runs.
template <typename Function, bool Checked, std::size_t... I>
val invoke_with(const val* js, std::index_sequence<I...> indices) {
  Call call(Function::name, Checked);
  static const Signature signature = signature_of(Function::name);
  InputsOf<decltype(Function::run)> inputs;
  read_inputs<Checked>(call, signature, js, inputs, indices);
  if constexpr (Checked) {
    const auto check = [&](std::size_t max_bytes) { return Function::check(std::get<I>(inputs)..., max_bytes); };
    call.check_before_copy(check);
    if (call.ok()) call.copy_inputs();
    call.check(check);
  } else {
    if (call.ok()) call.fail(planned_path_error<OutputOf<decltype(Function::run)>>(Function::name, std::get<I>(inputs)...));
    if (call.ok()) call.copy_inputs();
  }
  if (!call.ok()) return call.error_value();
  return result_to_js(Function::run(std::get<I>(inputs)...));
}

template <typename Function, bool Checked, typename... Js>
val invoke(Js... js) {
  const val arguments[] = {js...};
  return invoke_with<Function, Checked>(arguments, std::index_sequence_for<Js...>{});
}

// embind needs a function of each arity: the registry gives each function's (arguments + options).
template <typename F, bool C> val invoke1(val a) { return invoke<F, C>(a); }
template <typename F, bool C> val invoke2(val a, val b) { return invoke<F, C>(a, b); }
template <typename F, bool C> val invoke3(val a, val b, val c) { return invoke<F, C>(a, b, c); }
template <typename F, bool C> val invoke4(val a, val b, val c, val d) { return invoke<F, C>(a, b, c, d); }
template <typename F, bool C> val invoke5(val a, val b, val c, val d, val e) { return invoke<F, C>(a, b, c, d, e); }

// Each registry function: its JS name, its check and its run on checked arguments, by the registry's C++ name.
#define AP_FUNCTION(js, cpp, parameters)                                                                   \
  struct js##_function {                                                                                   \
    static constexpr const char* name = #js;                                                               \
    template <typename... Inputs>                                                                          \
    static std::string check(const Inputs&... inputs) { return paths::check_##cpp(inputs...); }           \
    static constexpr auto run = &paths::unchecked::cpp;                                                    \
  };                                                                                                       \
  static_assert(std::tuple_size_v<InputsOf<decltype(js##_function::run)>> == parameters,                   \
                #js ": the registry's arguments and options do not match the parameters of paths::unchecked::" #cpp);
AP_REGISTRY_FUNCTIONS(AP_FUNCTION)
#undef AP_FUNCTION

// For the leak test and the page's memory readout: {heapBytes, bytesInUse, bytesAvailable, heapLimitBytes}.
val heap_stats_js() {
  val stats = val::object();
  stats.set(js_key("heapBytes"), static_cast<double>(heap_bytes()));
  stats.set(js_key("bytesInUse"), static_cast<double>(bytes_in_use()));
  stats.set(js_key("bytesAvailable"), static_cast<double>(bytes_available()));
  stats.set(js_key("heapLimitBytes"), static_cast<double>(heap_limit_bytes()));
  return stats;
}

// heapStats().bytesAvailable alone, without building an object: the API's memory check reads it on every call.
double bytes_available_js() { return static_cast<double>(bytes_available()); }

// loadAttention's memoryLimit: every later call is checked against min(bytes, 2 GiB); 0 restores 2 GiB.
void set_memory_limit_js(double bytes) { set_memory_limit(bytes <= 0 ? 0 : static_cast<std::size_t>(bytes)); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  using emscripten::function;
#define AP_BIND(js, cpp, parameters)                                   \
  function(#js, &invoke##parameters<js##_function, true>);             \
  function(#js "Unchecked", &invoke##parameters<js##_function, false>);
  AP_REGISTRY_FUNCTIONS(AP_BIND)
#undef AP_BIND
  function("heapStats", &heap_stats_js);
  function("bytesAvailable", &bytes_available_js);
  function("setMemoryLimit", &set_memory_limit_js);
}

}  // namespace ap::bindings
