// The fast kernels' embind declarations (docs/api.md, "Fast path"):
//
//   matmulVariant(a, b, options)     matmul (bindings.cpp) with options.variant, the numbered GEMM variant
//                                    to run (the benchmark's harness)
//   fastPathInfo()                   {vocabulary, variants: [{number, name}], defaultVariant, relaxedTileInstalled}
//   relaxedTileSlots()               {tile, tile5, tile6}: the function-table indices JS replaces with the
//                                    relaxed-SIMD tiles (relaxed_tile.wat)
//   setRelaxedTileInstalled(bool)    after replacing them: matmul then runs variant 7 (6 with 5 rows)
//   setRelaxedTileRows(rows)         5 or 6: the installed tile the GEMM uses (replaceable_tiles.h)
//
// The multi-head functions with `intermediates: false` need nothing here: bindings.cpp passes the option
// to the core, which picks the fused kernel or the teaching code (cpp/paths/fast_attention.h).
// As in bindings.cpp, errors are returned as JS Error values and thrown by the loader (wasm.js).
#include <emscripten/bind.h>

#include <cmath>
#include <string>
#include <vector>

#include "attention/attention.h"
#include "js_tensor.h"
#include "kernels/gemm.h"
#include "paths/matmul.h"

namespace ap::bindings {

namespace {

bool is_object(const val& js) { return has_type(js, "object") && !js.isNull() && !js.isArray() && !is_view(js); }

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
  const auto check = [&](std::size_t max_bytes) { return paths::check_matmul(left, right, paths::MatmulOptions{transpose_b}, max_bytes); };
  call.check_before_copy(check);
  if (call.ok()) call.copy_inputs();
  call.check(check);
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
  slots.set("tile6", static_cast<double>(kernels::relaxed_tile6_slot_address()));
  return slots;
}

void set_relaxed_tile_installed_js(bool installed) { kernels::set_relaxed_tile_installed(installed); }
void set_relaxed_tile_rows_js(int rows) { kernels::set_relaxed_tile_rows(rows); }

}  // namespace

EMSCRIPTEN_BINDINGS(fast_kernels) {
  using emscripten::function;
  function("matmulVariant", &matmul_variant_js);
  function("fastPathInfo", &fast_path_info_js);
  function("relaxedTileSlots", &relaxed_tile_slots_js);
  function("setRelaxedTileInstalled", &set_relaxed_tile_installed_js);
  function("setRelaxedTileRows", &set_relaxed_tile_rows_js);
}

}  // namespace ap::bindings
