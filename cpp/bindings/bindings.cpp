// The embind declarations: one JS function per API function of docs/api.md, with its JS name.
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
// Order inside every function: read the options, copy the tensors in (structural checks and the
// heap budget for the copies), the core's check_* with the heap that is left as max_bytes, compute,
// copy the results out.
// The multi-head and cross functions then call the core's *_unchecked forms: their inputs (millions of
// weights at d_model 768) are scanned once, not twice. With `intermediates: false` the core itself picks
// the fused kernel or the teaching code (cpp/attention/fast_attention.h).
#include <emscripten/bind.h>

#include "attention/attention.h"
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

val next_token_pairs_js(val tokens) {
  Call call("nextTokenPairs");
  IntTensor ids;
  call.read(tokens, "tokens", ids);
  call.check([&](std::size_t max_bytes) { return check_next_token_pairs(ids, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(next_token_pairs(ids));
}

// Steps 2–4 share one shape: x in, an AverageResult out.
template <AverageResult (*step)(const Tensor&), std::string (*check)(const Tensor&, std::size_t)>
val causal_average_js(const char* name, const val& x) {
  Call call(name);
  Tensor input;
  call.read(x, "x", input);
  call.check([&](std::size_t max_bytes) { return check(input, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(step(input));
}

val causal_average_loop_js(val x) {
  return causal_average_js<causal_average_loop, check_causal_average_loop>("causalAverageLoop", x);
}
val causal_average_matmul_js(val x) {
  return causal_average_js<causal_average_matmul, check_causal_average_matmul>("causalAverageMatmul", x);
}
val causal_average_softmax_js(val x) {
  return causal_average_js<causal_average_softmax, check_causal_average_softmax>("causalAverageSoftmax", x);
}

val softmax_js(val x, val options) {
  Call call("softmax");
  SoftmaxOptions parsed;
  Tensor input;
  read_options(call, options, parsed);
  call.read(x, "x", input);
  call.check([&](std::size_t max_bytes) { return check_softmax(input, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  val result = val::object();
  result.set(js_key("output"), to_js(softmax(input, parsed)));
  return result;
}

val attention_without_weights_js(val x, val options) {
  Call call("attentionWithoutWeights");
  Normalization normalization = Normalization::Stable;
  Tensor input;
  read_options(call, options, normalization);
  call.read(x, "x", input);
  call.check([&](std::size_t max_bytes) { return check_attention_without_weights(input, normalization, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(attention_without_weights(input, normalization));
}

val self_attention_js(val x, val weights, val options) {
  Call call("selfAttention");
  AttentionOptions parsed;
  Tensor input;
  ProjectionWeights projections;
  read_options(call, options, parsed, kSelfAttentionOptions);
  call.read(x, "x", input);
  read_projection_weights(call, weights, false, projections);
  call.check([&](std::size_t max_bytes) { return check_self_attention(input, projections, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(self_attention(input, projections, parsed));
}

val attention_dropout_js(val weights, val options) {
  Call call("attentionDropout");
  DropoutOptions parsed;
  Tensor input;
  read_options(call, options, parsed);
  call.read(weights, "weights", input);
  call.check([&](std::size_t max_bytes) { return check_attention_dropout(input, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(attention_dropout(input, parsed));
}

val compare_js(val actual, val expected, val options) {
  Call call("compare");
  CompareOptions parsed;
  Tensor ours;
  Tensor theirs;
  read_options(call, options, parsed);
  call.read(actual, "actual", ours);
  call.read(expected, "expected", theirs);
  call.check([&](std::size_t max_bytes) { return check_compare(ours, theirs, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(compare(ours, theirs, parsed));
}

val multihead_attention_stacked_js(val x, val weights, val options) {
  Call call("multiheadAttentionStacked");
  AttentionOptions parsed;
  Tensor input;
  StackedWeights heads;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x, "x", input);
  read_stacked_weights(call, weights, heads);
  // H is the number of heads given; options.heads, when the caller sets it, must say the same.
  const bool heads_given = is_object(options) && !options[js_key("heads")].isUndefined() && !options[js_key("heads")].isNull();
  if (call.ok() && heads_given && parsed.heads != static_cast<int>(heads.heads.size())) {
    call.fail_value("options.heads", options[js_key("heads")],
                    std::to_string(heads.heads.size()) + ", the length of weights.heads");
  }
  call.check([&](std::size_t max_bytes) { return check_multihead_attention_stacked(input, heads, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(multihead_attention_stacked_unchecked(input, heads, parsed));
}

val multihead_attention_split_js(val x, val weights, val options) {
  Call call("multiheadAttentionSplit");
  AttentionOptions parsed;
  Tensor input;
  ProjectionWeights projections;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x, "x", input);
  read_projection_weights(call, weights, true, projections);
  call.check([&](std::size_t max_bytes) { return check_multihead_attention_split(input, projections, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(multihead_attention_split_unchecked(input, projections, parsed));
}

val multihead_attention_fused_js(val x, val weights, val options) {
  Call call("multiheadAttentionFused");
  AttentionOptions parsed;
  Tensor input;
  FusedWeights fused;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x, "x", input);
  read_fused_weights(call, weights, fused);
  call.check([&](std::size_t max_bytes) { return check_multihead_attention_fused(input, fused, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(multihead_attention_fused_unchecked(input, fused, parsed));
}

val cross_attention_js(val x_query, val x_context, val weights, val options) {
  Call call("crossAttention");
  AttentionOptions parsed;
  Tensor queries;
  Tensor context;
  ProjectionWeights projections;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x_query, "xQuery", queries);
  call.read(x_context, "xContext", context);
  read_projection_weights(call, weights, true, projections);
  call.check([&](std::size_t max_bytes) { return check_cross_attention(queries, context, projections, parsed, max_bytes); });
  if (!call.ok()) return call.error_value();
  return to_js(cross_attention_unchecked(queries, context, projections, parsed));
}

val matmul_js(val a, val b, val options) {
  Call call("matmul");
  MatmulOptions parsed;
  Tensor left;
  Tensor right;
  read_options(call, options, parsed);
  call.read(a, "a", left);
  call.read(b, "b", right);
  call.check([&](std::size_t max_bytes) { return check_matmul(left, right, parsed.transpose_b, max_bytes); });
  if (!call.ok()) return call.error_value();
  val result = val::object();
  result.set(js_key("output"), to_js(matmul(left, right, parsed.transpose_b)));
  return result;
}

// For the leak test and the page's memory readout: {heapBytes, bytesInUse, bytesAvailable, heapLimitBytes}.
val heap_stats_js() {
  val stats = val::object();
  stats.set(js_key("heapBytes"), static_cast<double>(heap_bytes()));
  stats.set(js_key("bytesInUse"), static_cast<double>(bytes_in_use()));
  stats.set(js_key("bytesAvailable"), static_cast<double>(bytes_available()));
  stats.set(js_key("heapLimitBytes"), static_cast<double>(heap_limit_bytes()));
  return stats;
}

}  // namespace

EMSCRIPTEN_BINDINGS(attention_core) {
  using emscripten::function;
  function("nextTokenPairs", &next_token_pairs_js);
  function("causalAverageLoop", &causal_average_loop_js);
  function("causalAverageMatmul", &causal_average_matmul_js);
  function("causalAverageSoftmax", &causal_average_softmax_js);
  function("softmax", &softmax_js);
  function("attentionWithoutWeights", &attention_without_weights_js);
  function("selfAttention", &self_attention_js);
  function("attentionDropout", &attention_dropout_js);
  function("compare", &compare_js);
  function("multiheadAttentionStacked", &multihead_attention_stacked_js);
  function("multiheadAttentionSplit", &multihead_attention_split_js);
  function("multiheadAttentionFused", &multihead_attention_fused_js);
  function("crossAttention", &cross_attention_js);
  function("matmul", &matmul_js);
  function("heapStats", &heap_stats_js);
}

}  // namespace ap::bindings
