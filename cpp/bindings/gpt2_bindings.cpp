// GPT-2's fast-path forward (cpp/kernels/gpt2_inference.h) as an embind class, used by web/src/gpt2/wasm-model.js
// only (not an API function of docs/api.md):
//
//   new Gpt2Inference(vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEps)
//   .parameters()                           a Float32Array view of every parameter in the heap, in
//                                           gpt2_inference.h's order; JS copies the checkpoint in once. The
//                                           view dies when the memory grows: take a fresh one for every copy
//   .pack()                                 builds the GEMM's packed copy of the matrices (after the copy in),
//                                           or an Error (memory); .packedFloats(): the floats it takes
//   .forward(tokens, headsOff, attention)   true, or an Error (memory); tokens an Int32Array of ids,
//                                           headsOff a Uint8Array of layers·heads flags (empty: none)
//   .logits()                               a view of the logits (t, vocab), valid until the next call
//   .attention(layer)                       a view of layer's weights (heads, t, t) after a forward with them
//   .delete()                               frees it (embind)
// The JS side validates the config and the tokens before calling (web/src/gpt2/wasm-model.js).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "heap.h"
#include "kernels/gpt2_inference.h"

namespace ap::bindings {

namespace {

using emscripten::val;

class Gpt2Model {
 public:
  Gpt2Model(int vocab_size, int context_length, int d_model, int heads, int layers, int d_mlp, float eps)
      : config_{vocab_size, context_length, d_model, heads, layers, d_mlp, eps}, model_(config_) {}

  val parameters() { return val(emscripten::typed_memory_view(model_.parameter_count(), model_.parameters())); }

  val pack() {
    const std::size_t need = model_.packed_floats() * sizeof(float);
    if (need > bytes_available()) {
      return val::global("Error").new_("createGpt2: the packed weights need " + std::to_string(need >> 20) +
                                       " MiB; the WASM memory has " + std::to_string(bytes_available() >> 20) + " MiB left");
    }
    model_.pack();
    return val(true);
  }

  double packed_floats() const { return static_cast<double>(model_.packed_floats()); }

  val forward(val tokens, val heads_off, bool attention) {
    tokens_ = emscripten::convertJSArrayToNumberVector<int>(tokens);
    heads_off_ = emscripten::convertJSArrayToNumberVector<unsigned char>(heads_off);
    const int t = static_cast<int>(tokens_.size());
    const std::size_t growth = model_.scratch_growth(t, attention) * sizeof(float);
    if (growth > bytes_available()) {
      return val::global("Error").new_("gpt2.forward: " + std::to_string(t) + " tokens need " +
                                       std::to_string(growth >> 20) + " MiB of activations" +
                                       (attention ? " (with every layer's attention weights)" : "") +
                                       "; the WASM memory has " + std::to_string(bytes_available() >> 20) + " MiB left");
    }
    model_.forward(tokens_.data(), t, heads_off_.empty() ? nullptr : heads_off_.data(), attention);
    t_ = t;
    return val(true);
  }

  val logits() {
    return val(emscripten::typed_memory_view(static_cast<std::size_t>(t_) * config_.vocab_size, model_.logits()));
  }

  val attention(int layer) {
    return val(emscripten::typed_memory_view(static_cast<std::size_t>(config_.heads) * t_ * t_, model_.attention(layer)));
  }

 private:
  kernels::Gpt2Config config_;
  kernels::Gpt2Inference model_;
  std::vector<int> tokens_;
  std::vector<unsigned char> heads_off_;
  int t_ = 0;
};

}  // namespace

EMSCRIPTEN_BINDINGS(gpt2) {
  emscripten::class_<Gpt2Model>("Gpt2Inference")
      .constructor<int, int, int, int, int, int, float>()
      .function("parameters", &Gpt2Model::parameters)
      .function("pack", &Gpt2Model::pack)
      .function("packedFloats", &Gpt2Model::packed_floats)
      .function("forward", &Gpt2Model::forward)
      .function("logits", &Gpt2Model::logits)
      .function("attention", &Gpt2Model::attention);
}

}  // namespace ap::bindings
