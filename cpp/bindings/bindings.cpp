// The embind declarations: one JS function per registry function (web/src/core/registry.js), with its JS
// name, registered by a loop over the registry through one generic binding body (invoke).
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

#include "attention/attention.h"
#include "attention/fast_attention.h"
#include "attention/fast_attention_backward.h"
#include "attention/registry.h"
#include "heap.h"
#include "js_options.h"
#include "js_tensor.h"
#include "matmul.h"

namespace ap::bindings {

namespace {

bool is_object(const val& js) { return has_type(js, "object") && !js.isNull() && !js.isArray() && !is_view(js); }

// "weights is 5; expected an object {query, key, value, …}", as the JS reference words it.
void fail_not_object(Call& call, const std::string& argument, const val& js, const char* keys) {
  call.fail(std::string(call.function()) + ": " + argument + " is " + describe(js) + "; expected an object {" + keys
            + ", …}");
}

// {query, key, value, queryBias?, keyBias?, valueBias?} and, for the multi-head forms, outWeight?, outBias?.
void read_projection_weights(Call& call, const val& js, bool output_projection, ProjectionWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "query, key, value");
  call.read(js[js_key("query")], "weights.query", out.query);
  call.read(js[js_key("key")], "weights.key", out.key);
  call.read(js[js_key("value")], "weights.value", out.value);
  call.read_optional(js[js_key("queryBias")], "weights.queryBias", out.query_bias);
  call.read_optional(js[js_key("keyBias")], "weights.keyBias", out.key_bias);
  call.read_optional(js[js_key("valueBias")], "weights.valueBias", out.value_bias);
  if (!output_projection) return;
  call.read_optional(js[js_key("outWeight")], "weights.outWeight", out.out_weight);
  call.read_optional(js[js_key("outBias")], "weights.outBias", out.out_bias);
}

// {heads: [{query, key, value, …Bias?}], outWeight?, outBias?}
void read_stacked_weights(Call& call, const val& js, StackedWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "heads");
  const val heads = js[js_key("heads")];
  if (!heads.isArray() || heads[js_key("length")].as<int>() == 0) {
    return call.fail_value("weights.heads", heads, "an array of H ≥ 1 heads {query, key, value, …}");
  }
  const int count = heads[js_key("length")].as<int>();
  out.heads.resize(count);
  for (int h = 0; h < count && call.ok(); ++h) {
    const val head = heads[h];
    const std::string where = "weights.heads[" + std::to_string(h) + "]";
    if (!is_object(head)) return fail_not_object(call, where, head, "query, key, value");
    call.read(head[js_key("query")], where + ".query", out.heads[h].query);
    call.read(head[js_key("key")], where + ".key", out.heads[h].key);
    call.read(head[js_key("value")], where + ".value", out.heads[h].value);
    call.read_optional(head[js_key("queryBias")], where + ".queryBias", out.heads[h].query_bias);
    call.read_optional(head[js_key("keyBias")], where + ".keyBias", out.heads[h].key_bias);
    call.read_optional(head[js_key("valueBias")], where + ".valueBias", out.heads[h].value_bias);
  }
  call.read_optional(js[js_key("outWeight")], "weights.outWeight", out.out_weight);
  call.read_optional(js[js_key("outBias")], "weights.outBias", out.out_bias);
}

// {inProjection, inBias?, outWeight?, outBias?}
void read_fused_weights(Call& call, const val& js, FusedWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "inProjection");
  call.read(js[js_key("inProjection")], "weights.inProjection", out.in_projection);
  call.read_optional(js[js_key("inBias")], "weights.inBias", out.in_bias);
  call.read_optional(js[js_key("outWeight")], "weights.outWeight", out.out_weight);
  call.read_optional(js[js_key("outBias")], "weights.outBias", out.out_bias);
}

// The masks of the multi-head forwards and crossAttention (docs/api.md "Masks"; the API has checked and completed
// the options): attnMask and keyPaddingMask, a Uint8Array crossing as float 0/1 (the core's check_masks holds it to
// 0 or 1), and crossAttention's xValue.
void read_masks(Call& call, const val& given, AttentionOptions& options, bool reads_x_value) {
  if (!call.ok() || !is_object(given)) return;
  const auto present = [&](const char* name) { return !given[js_key(name)].isUndefined() && !given[js_key(name)].isNull(); };
  const auto as_float = [](const val& mask) {
    val copy = val::object();
    const val data = mask[js_key("data")];
    copy.set(js_key("shape"), mask[js_key("shape")]);
    copy.set(js_key("data"), data.instanceof(val::global("Uint8Array")) ? val::global("Float32Array").new_(data) : data);
    return copy;
  };
  if (present("attnMask")) {
    const val mask = given[js_key("attnMask")];
    options.attn_mask_boolean = mask[js_key("data")].instanceof(val::global("Uint8Array"));
    call.read(as_float(mask), "options.attnMask", options.attn_mask);
  }
  if (present("keyPaddingMask")) call.read(as_float(given[js_key("keyPaddingMask")]), "options.keyPaddingMask", options.key_padding_mask);
  if (reads_x_value && present("xValue")) call.read(given[js_key("xValue")], "options.xValue", options.x_value);
}

// ---- One binding per registry function --------------------------------------------------------------
// Each is a struct: its inputs, read(js arguments), check(max_bytes) — the core's check_* — and compute()
// → the JS result. The generic body `invoke` below runs them in that order for every function, and the
// registration loops over the registry (AP_REGISTRY_FUNCTIONS, generated from web/src/core/registry.js).
// A new function is one struct here; its name, JS name and arity come from its registry entry.

struct next_token_pairs_binding {
  IntTensor tokens;
  void read(Call& call, const val* js) { call.read(js[0], "tokens", tokens); }
  std::string check(std::size_t max_bytes) const { return check_next_token_pairs(tokens, max_bytes); }
  val compute() const { return to_js(next_token_pairs(tokens)); }
};

// Steps 2–4 share one shape: x in, an AverageResult out.
template <AverageResult (*step)(const Tensor&), std::string (*check_step)(const Tensor&, std::size_t)>
struct causal_average_binding {
  Tensor x;
  void read(Call& call, const val* js) { call.read(js[0], "x", x); }
  std::string check(std::size_t max_bytes) const { return check_step(x, max_bytes); }
  val compute() const { return to_js(step(x)); }
};
using causal_average_loop_binding = causal_average_binding<causal_average_loop, check_causal_average_loop>;
using causal_average_matmul_binding = causal_average_binding<causal_average_matmul, check_causal_average_matmul>;
using causal_average_softmax_binding = causal_average_binding<causal_average_softmax, check_causal_average_softmax>;

struct softmax_binding {
  SoftmaxOptions options;
  Tensor x;
  void read(Call& call, const val* js) {
    read_options(call, js[1], options);
    call.read(js[0], "x", x);
  }
  std::string check(std::size_t max_bytes) const { return check_softmax(x, options, max_bytes); }
  val compute() const {
    val result = val::object();
    result.set(js_key("output"), to_js(softmax(x, options)));
    return result;
  }
};

struct attention_without_weights_binding {
  Normalization normalization = Normalization::Stable;
  Tensor x;
  void read(Call& call, const val* js) {
    read_options(call, js[1], normalization);
    call.read(js[0], "x", x);
  }
  std::string check(std::size_t max_bytes) const { return check_attention_without_weights(x, normalization, max_bytes); }
  val compute() const { return to_js(attention_without_weights(x, normalization)); }
};

struct self_attention_binding {
  AttentionOptions options;
  Tensor x;
  ProjectionWeights weights;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options, kSelfAttentionOptions);
    call.read(js[0], "x", x);
    read_projection_weights(call, js[1], false, weights);
  }
  std::string check(std::size_t max_bytes) const { return check_self_attention(x, weights, options, max_bytes); }
  val compute() const { return to_js(self_attention(x, weights, options)); }
};

struct attention_dropout_binding {
  DropoutOptions options;
  Tensor weights;
  void read(Call& call, const val* js) {
    read_options(call, js[1], options);
    call.read(js[0], "weights", weights);
  }
  std::string check(std::size_t max_bytes) const { return check_attention_dropout(weights, options, max_bytes); }
  val compute() const { return to_js(attention_dropout(weights, options)); }
};

struct compare_binding {
  CompareOptions options;
  Tensor actual;
  Tensor expected;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options);
    call.read(js[0], "actual", actual);
    call.read(js[1], "expected", expected);
  }
  std::string check(std::size_t max_bytes) const { return check_compare(actual, expected, options, max_bytes); }
  val compute() const { return to_js(compare(actual, expected, options)); }
};

// The multi-head and cross functions call the core's fast entry points on checked arguments: their inputs
// (millions of weights at d_model 768) are scanned once, by check(), not twice; the fused kernel runs where
// the options allow it, else the teaching code (cpp/attention/fast_attention.h).
struct multihead_attention_stacked_binding {
  AttentionOptions options;
  Tensor x;
  StackedWeights weights;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options, kMultiheadOptions);
    read_masks(call, js[2], options, false);
    call.read(js[0], "x", x);
    read_stacked_weights(call, js[1], weights);
    // H is the number of heads given; options.heads, when the caller sets it, must say the same.
    const val& given = js[2];
    const bool heads_given = is_object(given) && !given[js_key("heads")].isUndefined() && !given[js_key("heads")].isNull();
    if (call.ok() && heads_given && options.heads != static_cast<int>(weights.heads.size())) {
      call.fail_value("options.heads", given[js_key("heads")], std::to_string(weights.heads.size()) + ", the length of weights.heads");
    }
  }
  std::string check(std::size_t max_bytes) const { return check_multihead_attention_stacked(x, weights, options, max_bytes); }
  val compute() const { return to_js(multihead_attention_stacked_fast(x, weights, options)); }
};

struct multihead_attention_split_binding {
  AttentionOptions options;
  Tensor x;
  ProjectionWeights weights;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options, kMultiheadOptions);
    read_masks(call, js[2], options, false);
    call.read(js[0], "x", x);
    read_projection_weights(call, js[1], true, weights);
  }
  std::string check(std::size_t max_bytes) const { return check_multihead_attention_split(x, weights, options, max_bytes); }
  val compute() const { return to_js(multihead_attention_split_fast(x, weights, options)); }
};

struct multihead_attention_fused_binding {
  AttentionOptions options;
  Tensor x;
  FusedWeights weights;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options, kMultiheadOptions);
    read_masks(call, js[2], options, false);
    call.read(js[0], "x", x);
    read_fused_weights(call, js[1], weights);
  }
  std::string check(std::size_t max_bytes) const { return check_multihead_attention_fused(x, weights, options, max_bytes); }
  val compute() const { return to_js(multihead_attention_fused_fast(x, weights, options)); }
};

struct cross_attention_binding {
  AttentionOptions options;
  Tensor queries;
  Tensor context;
  ProjectionWeights weights;
  void read(Call& call, const val* js) {
    read_options(call, js[3], options, kMultiheadOptions);
    read_masks(call, js[3], options, true);
    call.read(js[0], "xQuery", queries);
    call.read(js[1], "xContext", context);
    read_projection_weights(call, js[2], true, weights);
  }
  std::string check(std::size_t max_bytes) const {
    return check_cross_attention(queries, context, weights, options, max_bytes);
  }
  val compute() const { return to_js(cross_attention_fast(queries, context, weights, options)); }
};

// PyTorch's F.scaled_dot_product_attention. Its options are read here (the API has checked and completed
// them); a boolean attnMask (Uint8Array) crosses as float 0/1, which the core's check holds to 0 or 1.
struct scaled_dot_product_attention_binding {
  SdpaOptions options;
  Tensor query;
  Tensor key;
  Tensor value;
  void read(Call& call, const val* js) {
    call.read(js[0], "query", query);
    call.read(js[1], "key", key);
    call.read(js[2], "value", value);
    if (!call.ok() || !is_object(js[3])) return;
    const val& given = js[3];
    const auto present = [&](const char* name) { return !given[js_key(name)].isUndefined() && !given[js_key(name)].isNull(); };
    if (present("attnMask")) {
      const val mask = given[js_key("attnMask")];
      const val data = mask[js_key("data")];
      options.mask_boolean = data.instanceof(val::global("Uint8Array"));
      val as_float = val::object();
      as_float.set(js_key("shape"), mask[js_key("shape")]);
      as_float.set(js_key("data"), options.mask_boolean ? val::global("Float32Array").new_(data) : data);
      call.read(as_float, "options.attnMask", options.mask);
    }
    if (present("isCausal")) options.is_causal = given[js_key("isCausal")].as<bool>();
    if (present("scale")) {
      options.has_scale = true;
      options.scale = static_cast<float>(given[js_key("scale")].as<double>());
    }
    if (present("dropoutP")) options.dropout_p = static_cast<float>(given[js_key("dropoutP")].as<double>());
    if (present("seed")) options.seed = static_cast<std::uint32_t>(given[js_key("seed")].as<double>());
    if (present("intermediates")) options.intermediates = given[js_key("intermediates")].as<bool>();
    options.path = read_planned_path(given);
  }
  std::string check(std::size_t max_bytes) const {
    return check_scaled_dot_product_attention(query, key, value, options, max_bytes);
  }
  val compute() const {
    const SdpaResult result = scaled_dot_product_attention_fast(query, key, value, options);
    val out = val::object();
    const std::pair<const char*, const Tensor*> named[] = {{"scores", &result.scores}, {"scaled", &result.scaled},
      {"masked", &result.masked}, {"weights", &result.weights}, {"dropped", &result.dropped}, {"output", &result.output}};
    for (const auto& [name, tensor] : named) {
      if (tensor->present()) out.set(js_key(name), to_js(*tensor));
    }
    return out;
  }
};

// PyTorch's F.layer_norm over the last axis. Its options are read here (the API has checked and completed them).
struct layer_norm_binding {
  LayerNormOptions options;
  Tensor x;
  void read(Call& call, const val* js) {
    call.read(js[0], "x", x);
    if (!call.ok() || !is_object(js[1])) return;
    const val& given = js[1];
    call.read_optional(given[js_key("weight")], "options.weight", options.weight);
    call.read_optional(given[js_key("bias")], "options.bias", options.bias);
    const val eps = given[js_key("eps")];
    if (eps.isNumber()) options.eps = static_cast<float>(eps.as<double>());
  }
  std::string check(std::size_t max_bytes) const { return check_layer_norm(x, options, max_bytes); }
  val compute() const {
    val result = val::object();
    result.set(js_key("output"), to_js(layer_norm(x, options)));
    return result;
  }
};

struct matmul_binding {
  MatmulOptions options;
  Tensor a;
  Tensor b;
  void read(Call& call, const val* js) {
    read_options(call, js[2], options);
    call.read(js[0], "a", a);
    call.read(js[1], "b", b);
  }
  std::string check(std::size_t max_bytes) const { return check_matmul(a, b, options.transpose_b, max_bytes); }
  val compute() const {
    val result = val::object();
    result.set(js_key("output"), to_js(matmul(a, b, options.transpose_b)));
    return result;
  }
};

// ---- The backward of each trainable function: the forward's arguments, gradOutput, the forward's options;
// the gradients come back named like the inputs ({x, query, key, value, …Bias?, outWeight?, outBias?}; the
// stacked form's {x, heads: [{query, …}], …}). Self attention runs the teaching backward; the multi-head and
// cross forms their _fast entry points (the fused backward where the forward's fused kernel applies).

void set_present(val& object, const char* name, const Tensor& tensor) {
  if (tensor.present()) object.set(js_key(name), to_js(tensor));
}

// The projection gradients (and the output projection's, where the form has one) into `result`.
void set_projection_gradients(val& result, const ProjectionWeights& g) {
  set_present(result, "query", g.query);
  set_present(result, "key", g.key);
  set_present(result, "value", g.value);
  set_present(result, "queryBias", g.query_bias);
  set_present(result, "keyBias", g.key_bias);
  set_present(result, "valueBias", g.value_bias);
  set_present(result, "outWeight", g.out_weight);
  set_present(result, "outBias", g.out_bias);
}

val gradients_to_js(const ProjectionGradients& gradients) {
  val result = val::object();
  result.set(js_key("x"), to_js(gradients.x));
  set_projection_gradients(result, gradients.weights);
  return result;
}

val gradients_to_js(const StackedGradients& gradients) {
  val result = val::object();
  result.set(js_key("x"), to_js(gradients.x));
  val heads = val::array();
  for (const ProjectionWeights& head : gradients.weights.heads) {
    val one = val::object();
    set_projection_gradients(one, head);
    heads.call<void>("push", one);
  }
  result.set(js_key("heads"), heads);
  set_present(result, "outWeight", gradients.weights.out_weight);
  set_present(result, "outBias", gradients.weights.out_bias);
  return result;
}

val gradients_to_js(const FusedGradients& gradients) {
  val result = val::object();
  result.set(js_key("x"), to_js(gradients.x));
  set_present(result, "inProjection", gradients.weights.in_projection);
  set_present(result, "inBias", gradients.weights.in_bias);
  set_present(result, "outWeight", gradients.weights.out_weight);
  set_present(result, "outBias", gradients.weights.out_bias);
  return result;
}

val gradients_to_js(const CrossAttentionGradients& gradients) {
  val result = val::object();
  result.set(js_key("xQuery"), to_js(gradients.x_query));
  result.set(js_key("xContext"), to_js(gradients.x_context));
  set_projection_gradients(result, gradients.weights);
  return result;
}

struct self_attention_backward_binding {
  AttentionOptions options;
  Tensor x;
  ProjectionWeights weights;
  Tensor grad_output;
  void read(Call& call, const val* js) {
    read_options(call, js[3], options, kSelfAttentionOptions);
    call.read(js[0], "x", x);
    read_projection_weights(call, js[1], false, weights);
    call.read(js[2], "gradOutput", grad_output);
  }
  std::string check(std::size_t max_bytes) const {
    return check_self_attention_backward(x, weights, grad_output, options, max_bytes);
  }
  val compute() const { return gradients_to_js(self_attention_backward_unchecked(x, weights, grad_output, options)); }
};

struct multihead_attention_stacked_backward_binding {
  AttentionOptions options;
  Tensor x;
  StackedWeights weights;
  Tensor grad_output;
  void read(Call& call, const val* js) {
    read_options(call, js[3], options, kMultiheadOptions);
    call.read(js[0], "x", x);
    read_stacked_weights(call, js[1], weights);
    // As the forward: H is the number of heads given; options.heads, when set, must say the same.
    const val& given = js[3];
    const bool heads_given = is_object(given) && !given[js_key("heads")].isUndefined() && !given[js_key("heads")].isNull();
    if (call.ok() && heads_given && options.heads != static_cast<int>(weights.heads.size())) {
      call.fail_value("options.heads", given[js_key("heads")], std::to_string(weights.heads.size()) + ", the length of weights.heads");
    }
    call.read(js[2], "gradOutput", grad_output);
  }
  std::string check(std::size_t max_bytes) const {
    return check_multihead_attention_stacked_backward(x, weights, grad_output, options, max_bytes);
  }
  val compute() const { return gradients_to_js(multihead_attention_stacked_backward_fast(x, weights, grad_output, options)); }
};

struct multihead_attention_split_backward_binding {
  AttentionOptions options;
  Tensor x;
  ProjectionWeights weights;
  Tensor grad_output;
  void read(Call& call, const val* js) {
    read_options(call, js[3], options, kMultiheadOptions);
    call.read(js[0], "x", x);
    read_projection_weights(call, js[1], true, weights);
    call.read(js[2], "gradOutput", grad_output);
  }
  std::string check(std::size_t max_bytes) const {
    return check_multihead_attention_split_backward(x, weights, grad_output, options, max_bytes);
  }
  val compute() const { return gradients_to_js(multihead_attention_split_backward_fast(x, weights, grad_output, options)); }
};

struct multihead_attention_fused_backward_binding {
  AttentionOptions options;
  Tensor x;
  FusedWeights weights;
  Tensor grad_output;
  void read(Call& call, const val* js) {
    read_options(call, js[3], options, kMultiheadOptions);
    call.read(js[0], "x", x);
    read_fused_weights(call, js[1], weights);
    call.read(js[2], "gradOutput", grad_output);
  }
  std::string check(std::size_t max_bytes) const {
    return check_multihead_attention_fused_backward(x, weights, grad_output, options, max_bytes);
  }
  val compute() const { return gradients_to_js(multihead_attention_fused_backward_fast(x, weights, grad_output, options)); }
};

struct cross_attention_backward_binding {
  AttentionOptions options;
  Tensor queries;
  Tensor context;
  ProjectionWeights weights;
  Tensor grad_output;
  void read(Call& call, const val* js) {
    read_options(call, js[4], options, kMultiheadOptions);
    call.read(js[0], "xQuery", queries);
    call.read(js[1], "xContext", context);
    read_projection_weights(call, js[2], true, weights);
    call.read(js[3], "gradOutput", grad_output);
  }
  std::string check(std::size_t max_bytes) const {
    return check_cross_attention_backward(queries, context, weights, grad_output, options, max_bytes);
  }
  val compute() const { return gradients_to_js(cross_attention_backward_fast(queries, context, weights, grad_output, options)); }
};

// Each binding's JS name, from the registry.
template <typename Binding>
constexpr const char* kJsName = nullptr;
#define AP_JS_NAME(js, cpp, parameters) \
  template <>                           \
  constexpr const char* kJsName<cpp##_binding> = #js;
AP_REGISTRY_FUNCTIONS(AP_JS_NAME)
#undef AP_JS_NAME

// The one binding body: read the options and the tensors' layouts (structural checks and the heap
// budget for the copies), the core's check_* on the shapes alone with what will be left once the inputs
// are copied as max_bytes — a call refused there has allocated nothing, so it cannot grow the memory —
// then copy the inputs in, the full check (values) with the heap that is left, compute, copy the results out.
template <typename Binding, typename... Js>
val invoke(Js... js) {
  Call call(kJsName<Binding>);
  const val arguments[] = {js...};
  Binding binding;
  binding.read(call, arguments);
  const auto check = [&](std::size_t max_bytes) { return binding.check(max_bytes); };
  call.check_before_copy(check);
  if (call.ok()) call.copy_inputs();
  call.check(check);
  if (!call.ok()) return call.error_value();
  return binding.compute();
}

// embind needs a function of each arity: the registry gives each function's (arguments + options).
template <typename Binding> val invoke1(val a) { return invoke<Binding>(a); }
template <typename Binding> val invoke2(val a, val b) { return invoke<Binding>(a, b); }
template <typename Binding> val invoke3(val a, val b, val c) { return invoke<Binding>(a, b, c); }
template <typename Binding> val invoke4(val a, val b, val c, val d) { return invoke<Binding>(a, b, c, d); }
template <typename Binding> val invoke5(val a, val b, val c, val d, val e) { return invoke<Binding>(a, b, c, d, e); }

// For the leak test and the page's memory readout: {heapBytes, bytesInUse, bytesAvailable, heapLimitBytes}.
val heap_stats_js() {
  val stats = val::object();
  stats.set(js_key("heapBytes"), static_cast<double>(heap_bytes()));
  stats.set(js_key("bytesInUse"), static_cast<double>(bytes_in_use()));
  stats.set(js_key("bytesAvailable"), static_cast<double>(bytes_available()));
  stats.set(js_key("heapLimitBytes"), static_cast<double>(heap_limit_bytes()));
  return stats;
}

// loadAttention's memoryLimit: every later call is checked against min(bytes, 2 GiB); 0 restores 2 GiB.
void set_memory_limit_js(double bytes) { set_memory_limit(bytes <= 0 ? 0 : static_cast<std::size_t>(bytes)); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  using emscripten::function;
#define AP_BIND(js, cpp, parameters) function(#js, &invoke##parameters<cpp##_binding>);
  AP_REGISTRY_FUNCTIONS(AP_BIND)
#undef AP_BIND
  function("heapStats", &heap_stats_js);
  function("setMemoryLimit", &set_memory_limit_js);
}

}  // namespace ap::bindings
