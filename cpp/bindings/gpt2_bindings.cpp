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
//
// One worker's share of it (cpp/kernels/gpt2_shard.h), used by web/src/gpt2/gpt2-worker.js only:
//   new Gpt2Shard({vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEpsilon,
//                  headBegin, headEnd, mlpBegin, mlpEnd, vocabBegin, vocabEnd, parts})
//   .parameters()                     a view of the share's vectors (gpt2_shard.h's order)
//   .matrixCount(), .matrixFloats(i)  its matrices; .stage(i): a view to write matrix i to, or an Error
//                                     (memory); .packStaged(i): packs it (true or an Error); .releaseStaging();
//                                     .release(i): frees packed matrix i
//   .begin(t, attention, headsOff)    true or an Error (memory); then .residual(): a view of x (t, C) to write x₀ to
//   .attention(layer, k), .mlp(layer, k)  this worker's part of the sublayer into .part(k)
//   .part(j)                          a view of worker j's part (t, C): write a peer's in
//   .addParts(layer, stage)           x += Σ parts + bias (stage 0: attention, 1: MLP)
//   .logits()                         a view of this share's logits (t, v1 − v0)
//   .attentionWeights(layer)          a view of its heads' weights (h1 − h0, t, t) after begin(t, true)
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "heap.h"
#include "kernels/gpt2_inference.h"
#include "kernels/gpt2_shard.h"

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

val memory_error(const std::string& fn, const std::string& what, std::size_t bytes) {
  return val::global("Error").new_(fn + ": " + what + " need " + std::to_string(bytes >> 20) + " MiB; the WASM memory has " +
                                   std::to_string(bytes_available() >> 20) + " MiB left");
}

class Gpt2ShardModel {
 public:
  explicit Gpt2ShardModel(val c)
      : config_{c["vocabSize"].as<int>(), c["contextLength"].as<int>(), c["dModel"].as<int>(), c["heads"].as<int>(),
                c["layers"].as<int>(), c["dMlp"].as<int>(), c["layerNormEpsilon"].as<float>()},
        range_{c["headBegin"].as<int>(), c["headEnd"].as<int>(), c["mlpBegin"].as<int>(), c["mlpEnd"].as<int>(),
               c["vocabBegin"].as<int>(), c["vocabEnd"].as<int>()},
        shard_(config_, range_, c["parts"].as<int>()) {}

  val parameters() { return val(emscripten::typed_memory_view(shard_.parameter_count(), shard_.parameters())); }
  int matrix_count() const { return shard_.matrix_count(); }
  double matrix_floats(int i) const { return static_cast<double>(shard_.matrix_floats(i)); }

  val stage(int i) {
    const std::size_t floats = shard_.matrix_floats(i);
    if (floats * sizeof(float) > bytes_available()) return memory_error("createGpt2", "the staging buffer would", floats * sizeof(float));
    return val(emscripten::typed_memory_view(floats, shard_.stage(i)));
  }

  val pack_staged(int i) {
    const std::size_t bytes = (shard_.matrix_floats(i) + 8 * 4096) * sizeof(float);
    if (bytes > bytes_available()) return memory_error("createGpt2", "the packed weights", bytes);
    shard_.pack_staged(i);
    return val(true);
  }

  void release_staging() { shard_.release_staging(); }
  void release(int i) { shard_.release(i); }

  val begin(int t, bool attention, val heads_off) {
    heads_off_ = emscripten::convertJSArrayToNumberVector<unsigned char>(heads_off);
    const std::size_t growth = shard_.scratch_growth(t, attention) * sizeof(float);
    if (growth > bytes_available()) {
      return memory_error("gpt2.forward", std::to_string(t) + " tokens' activations" + (attention ? " (with the attention weights)" : ""), growth);
    }
    shard_.begin(t, attention);
    t_ = t;
    attention_ = attention;
    return val(true);
  }

  val residual() { return view(static_cast<std::size_t>(t_) * config_.d_model, shard_.residual()); }
  void attention(int layer, int k) { shard_.attention(layer, k, heads_off_.empty() ? nullptr : heads_off_.data()); }
  void mlp(int layer, int k) { shard_.mlp(layer, k); }
  val part(int j) { return view(static_cast<std::size_t>(t_) * config_.d_model, shard_.part(j)); }
  void add_parts(int layer, int stage) { shard_.add_parts(layer, stage); }

  val logits() {
    shard_.logits();
    return view(static_cast<std::size_t>(t_) * (range_.vocab_end - range_.vocab_begin), shard_.logits_data());
  }

  val attention_weights(int layer) {
    const std::size_t count = static_cast<std::size_t>(range_.head_end - range_.head_begin) * t_ * t_;
    return view(attention_ ? count : 0, shard_.attention_weights(layer));
  }

 private:
  static val view(std::size_t count, const float* data) { return val(emscripten::typed_memory_view(count, data)); }

  kernels::Gpt2Config config_;
  kernels::Gpt2ShardRange range_;
  kernels::Gpt2Shard shard_;
  std::vector<unsigned char> heads_off_;
  int t_ = 0;
  bool attention_ = false;
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
  emscripten::class_<Gpt2ShardModel>("Gpt2Shard")
      .constructor<val>()
      .function("parameters", &Gpt2ShardModel::parameters)
      .function("matrixCount", &Gpt2ShardModel::matrix_count)
      .function("matrixFloats", &Gpt2ShardModel::matrix_floats)
      .function("stage", &Gpt2ShardModel::stage)
      .function("packStaged", &Gpt2ShardModel::pack_staged)
      .function("releaseStaging", &Gpt2ShardModel::release_staging)
      .function("release", &Gpt2ShardModel::release)
      .function("begin", &Gpt2ShardModel::begin)
      .function("residual", &Gpt2ShardModel::residual)
      .function("attention", &Gpt2ShardModel::attention)
      .function("mlp", &Gpt2ShardModel::mlp)
      .function("part", &Gpt2ShardModel::part)
      .function("addParts", &Gpt2ShardModel::add_parts)
      .function("logits", &Gpt2ShardModel::logits)
      .function("attentionWeights", &Gpt2ShardModel::attention_weights);
}

}  // namespace ap::bindings
