// The fast path's embind declarations (docs/api.md, "Fast path"):
//
//   matmulVariant(a, b, options)                   matmul (bindings.cpp) with options.variant, the
//                                                  numbered GEMM variant to run (the benchmark's harness)
//   multiheadAttentionSplitFast(x, weights, options)      the multi-head functions with
//   multiheadAttentionFusedFast(x, weights, options)      `intermediates: false`: the same arguments,
//   multiheadAttentionStackedFast(x, weights, options)    checks and messages as the teaching
//   crossAttentionFast(xQuery, xContext, weights, options) functions, and only {output} back
//   fastPathInfo()                                 {vocabulary, variants: [{number, name}], defaultVariant,
//                                                  relaxedTileInstalled}
//   relaxedTileSlots()                             {tile, tile5, rowsTile}: the function-table indices JS
//                                                  replaces with the relaxed-SIMD tiles (relaxed_tile.wat)
//   setRelaxedTileInstalled(bool)                  after replacing it: matmul then runs variant 5
//
// The multi-head functions run the fused attention kernel (cpp/kernels/) whenever the options allow it:
// no dropout, and, when causal, the 'neg_inf' mask (the other mask modes are lessons in what goes wrong,
// and dropout needs the weights). Otherwise they run the teaching code with intermediates off.
// As in bindings.cpp, errors are returned as JS Error values and thrown by the loader (wasm.js).
#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "attention/check_helpers.h"
#include "js_options.h"
#include "js_tensor.h"
#include "kernels/gemm.h"
#include "matmul.h"
#include "kernels/multihead_fast.h"

namespace ap::bindings {

namespace {

// ---- reading arguments ------------------------------------------------------------------------------

bool is_object(const val& js) {
  return js.typeOf().as<std::string>() == "object" && !js.isNull() && !js.isArray() &&
         !val::global("ArrayBuffer").call<bool>("isView", js);
}

// "weights is 5; expected an object {query, key, value, …}", worded as bindings.cpp and the JS reference.
void fail_not_object(Call& call, const std::string& argument, const val& js, const char* keys) {
  call.fail(std::string(call.function()) + ": " + argument + " is " + describe(js) + "; expected an object {" + keys + ", …}");
}

void read_projections(Call& call, const val& js, ProjectionWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "query, key, value");
  call.read(js["query"], "weights.query", out.query);
  call.read(js["key"], "weights.key", out.key);
  call.read(js["value"], "weights.value", out.value);
  call.read_optional(js["queryBias"], "weights.queryBias", out.query_bias);
  call.read_optional(js["keyBias"], "weights.keyBias", out.key_bias);
  call.read_optional(js["valueBias"], "weights.valueBias", out.value_bias);
  call.read_optional(js["outWeight"], "weights.outWeight", out.out_weight);
  call.read_optional(js["outBias"], "weights.outBias", out.out_bias);
}

void read_fused(Call& call, const val& js, FusedWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "inProjection");
  call.read(js["inProjection"], "weights.inProjection", out.in_projection);
  call.read_optional(js["inBias"], "weights.inBias", out.in_bias);
  call.read_optional(js["outWeight"], "weights.outWeight", out.out_weight);
  call.read_optional(js["outBias"], "weights.outBias", out.out_bias);
}

void read_stacked(Call& call, const val& js, StackedWeights& out) {
  if (!call.ok()) return;
  if (!is_object(js)) return fail_not_object(call, "weights", js, "heads");
  const val heads = js["heads"];
  if (!heads.isArray() || heads["length"].as<int>() == 0) {
    return call.fail_value("weights.heads", heads, "an array of H ≥ 1 heads {query, key, value, …}");
  }
  out.heads.resize(heads["length"].as<int>());
  for (size_t h = 0; h < out.heads.size() && call.ok(); ++h) {
    const val head = heads[h];
    const std::string where = "weights.heads[" + std::to_string(h) + "]";
    if (!is_object(head)) return fail_not_object(call, where, head, "query, key, value");
    call.read(head["query"], where + ".query", out.heads[h].query);
    call.read(head["key"], where + ".key", out.heads[h].key);
    call.read(head["value"], where + ".value", out.heads[h].value);
    call.read_optional(head["queryBias"], where + ".queryBias", out.heads[h].query_bias);
    call.read_optional(head["keyBias"], where + ".keyBias", out.heads[h].key_bias);
    call.read_optional(head["valueBias"], where + ".valueBias", out.heads[h].value_bias);
  }
  call.read_optional(js["outWeight"], "weights.outWeight", out.out_weight);
  call.read_optional(js["outBias"], "weights.outBias", out.out_bias);
}

// ---- the fused kernel ---------------------------------------------------------------------------

// The fused kernel computes softmax(scaled) with −∞ above the diagonal: the contract's default.
bool fused_kernel_applies(const AttentionOptions& options) {
  return options.dropout == 0.0f && (!options.causal || options.mask == MaskMode::NegInf);
}

const float* data_or_null(const Tensor& tensor) { return tensor.present() ? tensor.data.data() : nullptr; }

kernels::Projection projection_of(const Tensor& weight, const Tensor& bias) {
  return {data_or_null(weight), weight.present() ? weight.shape[1] : 0, data_or_null(bias)};
}

// The fast path holds Q, K, V, the context and the output (B·T·d_out each), one head's packed keys and
// the GEMM's packed panels; never a (T, T) matrix.
std::string check_fast_memory(const Call& call, int batch, int tq, int tk, int d_out, int heads, double extra_floats) {
  constexpr double kGemmPanels = 256.0 * 2048 + 72.0 * 256;
  const double floats = static_cast<double>(batch) * (3.0 * tq + 2.0 * tk) * d_out + static_cast<double>(tk) * d_out / heads +
                        kGemmPanels + extra_floats;
  std::string sizes = "B=" + std::to_string(batch) + (tq == tk ? ", T=" + std::to_string(tq)
                                                               : ", Tq=" + std::to_string(tq) + ", Tk=" + std::to_string(tk));
  return check_memory(call.function(), sizes, floats, call.max_bytes());
}

// Runs the fused pipeline on a checked problem and returns {output: (B, Tq, d_out)}.
val run_fused(kernels::MultiheadProblem problem, const AttentionOptions& options) {
  const int d_head = problem.d_out / problem.heads;
  problem.heads = options.heads;
  problem.causal = options.causal;
  problem.score_scale = (options.scale ? 1.0f / std::sqrt(static_cast<float>(d_head)) : 1.0f) / options.temperature;
  Tensor output = zeros({problem.batch, problem.tq, problem.d_out});
  kernels::multihead_attention_fast(problem, output.data.data());
  val result = val::object();
  result.set("output", to_js(output));
  return result;
}

// The teaching code with its intermediates dropped: for the options the fused kernel does not cover.
val only_output(const AttentionResult& result) {
  val js = val::object();
  js.set("output", to_js(result.output));
  return js;
}

// ---- the embind functions -------------------------------------------------------------------------

val multihead_attention_split_fast_js(val x, val weights, val options) {
  Call call("multiheadAttentionSplit");
  AttentionOptions parsed;
  Tensor input;
  ProjectionWeights w;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x, "x", input);
  read_projections(call, weights, w);
  parsed.intermediates = false;
  const bool fused = call.ok() && fused_kernel_applies(parsed);
  if (call.ok()) call.fail(check_multihead_attention_split(input, w, parsed, fused ? no_memory_limit : call.max_bytes()));
  if (!call.ok()) return call.error_value();
  const int batch = input.shape[0], time = input.shape[1], d_in = input.shape[2], d_out = w.query.shape[1];
  if (!fused) return only_output(multihead_attention_split(input, w, parsed));
  call.fail(check_fast_memory(call, batch, time, time, d_out, parsed.heads, 0));
  if (!call.ok()) return call.error_value();
  kernels::MultiheadProblem p;
  p.x_query = p.x_context = input.data.data();
  p.batch = batch;
  p.tq = p.tk = time;
  p.d_query_in = p.d_context_in = d_in;
  p.d_out = d_out;
  p.heads = parsed.heads;
  p.query = projection_of(w.query, w.query_bias);
  p.key = projection_of(w.key, w.key_bias);
  p.value = projection_of(w.value, w.value_bias);
  p.out = projection_of(w.out_weight, w.out_bias);
  return run_fused(p, parsed);
}

val multihead_attention_fused_fast_js(val x, val weights, val options) {
  Call call("multiheadAttentionFused");
  AttentionOptions parsed;
  Tensor input;
  FusedWeights w;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x, "x", input);
  read_fused(call, weights, w);
  parsed.intermediates = false;
  const bool fused = call.ok() && fused_kernel_applies(parsed);
  if (call.ok()) call.fail(check_multihead_attention_fused(input, w, parsed, fused ? no_memory_limit : call.max_bytes()));
  if (!call.ok()) return call.error_value();
  if (!fused) return only_output(multihead_attention_fused(input, w, parsed));
  const int batch = input.shape[0], time = input.shape[1], d_in = input.shape[2];
  const int stride = w.in_projection.shape[1], d_out = stride / 3;
  call.fail(check_fast_memory(call, batch, time, time, d_out, parsed.heads, 0));
  if (!call.ok()) return call.error_value();
  // Q, K and V are the three column blocks of [Wq | Wk | Wv], read in place with the full row stride.
  const float* in = w.in_projection.data.data();
  const float* bias = data_or_null(w.in_bias);
  kernels::MultiheadProblem p;
  p.x_query = p.x_context = input.data.data();
  p.batch = batch;
  p.tq = p.tk = time;
  p.d_query_in = p.d_context_in = d_in;
  p.d_out = d_out;
  p.heads = parsed.heads;
  p.query = {in, stride, bias};
  p.key = {in + d_out, stride, bias ? bias + d_out : nullptr};
  p.value = {in + 2 * d_out, stride, bias ? bias + 2 * d_out : nullptr};
  p.out = projection_of(w.out_weight, w.out_bias);
  return run_fused(p, parsed);
}

// Head h's (d_in, d_head) matrices side by side: (d_in, H·d_head), the split form's layout.
Tensor concatenate_heads(const std::vector<ProjectionWeights>& heads, const Tensor ProjectionWeights::*matrix) {
  const int rows = (heads[0].*matrix).shape[0], d_head = (heads[0].*matrix).shape[1];
  const int width = d_head * static_cast<int>(heads.size());
  Tensor joined = zeros({rows, width});
  for (size_t h = 0; h < heads.size(); ++h) {
    const Tensor& part = heads[h].*matrix;
    for (int r = 0; r < rows; ++r) {
      for (int c = 0; c < d_head; ++c) joined.data[static_cast<size_t>(r) * width + h * d_head + c] = part.data[static_cast<size_t>(r) * d_head + c];
    }
  }
  return joined;
}

// The heads' biases side by side (absent ones as zeros), or absent when no head has one.
Tensor concatenate_biases(const std::vector<ProjectionWeights>& heads, const Tensor ProjectionWeights::*bias, int d_head) {
  bool any = false;
  for (const ProjectionWeights& head : heads) any |= (head.*bias).present();
  if (!any) return {};
  Tensor joined = zeros({d_head * static_cast<int>(heads.size())});
  for (size_t h = 0; h < heads.size(); ++h) {
    const Tensor& part = heads[h].*bias;
    if (part.present()) std::copy(part.data.begin(), part.data.end(), joined.data.begin() + h * d_head);
  }
  return joined;
}

val multihead_attention_stacked_fast_js(val x, val weights, val options) {
  Call call("multiheadAttentionStacked");
  AttentionOptions parsed;
  Tensor input;
  StackedWeights w;
  read_options(call, options, parsed, kStackedOptions);
  call.read(x, "x", input);
  read_stacked(call, weights, w);
  parsed.intermediates = false;
  const bool fused = call.ok() && fused_kernel_applies(parsed);
  if (call.ok()) call.fail(check_multihead_attention_stacked(input, w, parsed, fused ? no_memory_limit : call.max_bytes()));
  if (!call.ok()) return call.error_value();
  if (!fused) return only_output(multihead_attention_stacked(input, w, parsed));
  const int batch = input.shape[0], time = input.shape[1], d_in = input.shape[2];
  const int heads = static_cast<int>(w.heads.size()), d_head = w.heads[0].query.shape[1], d_out = heads * d_head;
  call.fail(check_fast_memory(call, batch, time, time, d_out, heads, 3.0 * d_in * d_out + 3.0 * d_out));
  if (!call.ok()) return call.error_value();
  ProjectionWeights joined;
  joined.query = concatenate_heads(w.heads, &ProjectionWeights::query);
  joined.key = concatenate_heads(w.heads, &ProjectionWeights::key);
  joined.value = concatenate_heads(w.heads, &ProjectionWeights::value);
  joined.query_bias = concatenate_biases(w.heads, &ProjectionWeights::query_bias, d_head);
  joined.key_bias = concatenate_biases(w.heads, &ProjectionWeights::key_bias, d_head);
  joined.value_bias = concatenate_biases(w.heads, &ProjectionWeights::value_bias, d_head);
  parsed.heads = heads;
  kernels::MultiheadProblem p;
  p.x_query = p.x_context = input.data.data();
  p.batch = batch;
  p.tq = p.tk = time;
  p.d_query_in = p.d_context_in = d_in;
  p.d_out = d_out;
  p.heads = heads;
  p.query = projection_of(joined.query, joined.query_bias);
  p.key = projection_of(joined.key, joined.key_bias);
  p.value = projection_of(joined.value, joined.value_bias);
  p.out = projection_of(w.out_weight, w.out_bias);
  return run_fused(p, parsed);
}

val cross_attention_fast_js(val x_query, val x_context, val weights, val options) {
  Call call("crossAttention");
  AttentionOptions parsed;
  Tensor queries;
  Tensor context;
  ProjectionWeights w;
  read_options(call, options, parsed, kMultiheadOptions);
  call.read(x_query, "xQuery", queries);
  call.read(x_context, "xContext", context);
  read_projections(call, weights, w);
  parsed.intermediates = false;
  const bool fused = call.ok() && fused_kernel_applies(parsed);
  if (call.ok()) call.fail(check_cross_attention(queries, context, w, parsed, fused ? no_memory_limit : call.max_bytes()));
  if (!call.ok()) return call.error_value();
  if (!fused) return only_output(cross_attention(queries, context, w, parsed));
  const int batch = queries.shape[0], tq = queries.shape[1], tk = context.shape[1], d_out = w.query.shape[1];
  call.fail(check_fast_memory(call, batch, tq, tk, d_out, parsed.heads, 0));
  if (!call.ok()) return call.error_value();
  kernels::MultiheadProblem p;
  p.x_query = queries.data.data();
  p.x_context = context.data.data();
  p.batch = batch;
  p.tq = tq;
  p.tk = tk;
  p.d_query_in = queries.shape[2];
  p.d_context_in = context.shape[2];
  p.d_out = d_out;
  p.heads = parsed.heads;
  p.query = projection_of(w.query, w.query_bias);
  p.key = projection_of(w.key, w.key_bias);
  p.value = projection_of(w.value, w.value_bias);
  p.out = projection_of(w.out_weight, w.out_bias);
  return run_fused(p, parsed);
}

// ---- matmul variants (the benchmark's harness) ----------------------------------------------------

// matmul (bindings.cpp) with options.variant: the numbered GEMM variant to run. Same checks.
val matmul_variant_js(val a, val b, val options) {
  Call call("matmul");
  bool transpose_b = false;
  int variant = kernels::default_matmul_variant();
  const int variants = static_cast<int>(kernels::matmul_variants().size());
  if (!is_object(options)) {
    call.fail_value("options", options, "an object {transposeB?, variant?}");
  } else {
    const val transpose = options["transposeB"];
    if (!transpose.isUndefined() && !transpose.isNull()) {
      if (transpose.typeOf().as<std::string>() != "boolean") call.fail_value("options.transposeB", transpose, "true or false");
      else transpose_b = transpose.as<bool>();
    }
    const val number = options["variant"];
    if (call.ok() && !number.isUndefined() && !number.isNull()) {
      const bool integral = number.typeOf().as<std::string>() == "number" && std::floor(number.as<double>()) == number.as<double>();
      if (!integral || number.as<double>() < 1 || number.as<double>() > variants) {
        call.fail_value("options.variant", number, "an integer from 1 to " + std::to_string(variants));
      } else {
        variant = number.as<int>();
      }
    }
  }
  Tensor left, right;
  call.read(a, "a", left);
  call.read(b, "b", right);
  if (call.ok()) call.fail(check_matmul(left, right, transpose_b, call.max_bytes()));
  if (!call.ok()) return call.error_value();
  const int k = left.shape.back();
  const int n = transpose_b ? right.shape[0] : right.shape[1];
  const int rows = static_cast<int>(left.element_count() / k);  // (B·M): b is shared by every batch entry
  std::vector<int> shape = left.shape;
  shape.back() = n;
  Tensor output = zeros(shape);
  kernels::matmul_with_variant(variant, left.data.data(), right.data.data(), output.data.data(),
                               kernels::MatmulShape::dense(rows, k, n, transpose_b));
  val result = val::object();
  result.set("output", to_js(output));
  return result;
}

val fast_path_info_js() {
  val info = val::object();
  info.set("vocabulary", std::string(kernels::vector_vocabulary()));
  val variants = val::array();
  for (const kernels::MatmulVariant& variant : kernels::matmul_variants()) {
    val entry = val::object();
    entry.set("number", variant.number);
    entry.set("name", std::string(variant.name));
    variants.call<void>("push", entry);
  }
  info.set("variants", variants);
  info.set("defaultVariant", kernels::default_matmul_variant());
  info.set("relaxedTileInstalled", kernels::relaxed_tile_installed());
  return info;
}

val relaxed_tile_slots_js() {
  val slots = val::object();
  slots.set("tile", static_cast<double>(kernels::relaxed_tile_slot_address()));
  slots.set("tile5", static_cast<double>(kernels::relaxed_tile5_slot_address()));
  slots.set("rowsTile", static_cast<double>(kernels::relaxed_rows_tile_slot_address()));
  return slots;
}

void set_relaxed_tile_installed_js(bool installed) { kernels::set_relaxed_tile_installed(installed); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_fast_path) {
  using emscripten::function;
  function("matmulVariant", &matmul_variant_js);
  function("multiheadAttentionSplitFast", &multihead_attention_split_fast_js);
  function("multiheadAttentionFusedFast", &multihead_attention_fused_fast_js);
  function("multiheadAttentionStackedFast", &multihead_attention_stacked_fast_js);
  function("crossAttentionFast", &cross_attention_fast_js);
  function("fastPathInfo", &fast_path_info_js);
  function("relaxedTileSlots", &relaxed_tile_slots_js);
  function("setRelaxedTileInstalled", &set_relaxed_tile_installed_js);
}

}  // namespace ap::bindings
