// The trainer's resident model (cpp/kernels/attention_only_training.h) as an embind class, used by
// web/src/train/native.js only (not an API function of docs/api.md):
//
//   new AttentionOnlyTraining(vocabSize, contextLength, dModel, heads, layers, layerNorm)
//   .parameters() / .gradients() / .expAvg() / .expAvgSq()   Float32Array views into the WASM heap, state_dict
//                                                             order; a view dies when the memory grows, so
//                                                             JS takes a fresh one for every copy
//   .run(inputs, targets, batch, t, gradients, normalizer)   {loss, correct, count} or an Error (memory); the
//                                                            gradients divide the summed loss by normalizer
//                                                            (0: by count), so a shard's add up (shards.js)
//   .forward(inputs, batch, t, fn)                           the forward alone, every target ignored (fn names
//                                                            the caller in the memory Error); then
//   .logits()                                                a view of its logits (batch·t, vocab), and
//   .attention(layer)                                        a view of block `layer`'s weights (batch, heads, t, t),
//                                                            both valid until the next call
//   .clipGradients(maxNorm)                                  the norm before clipping; maxNorm ≤ 0: no clipping
//   .adamwStep(step, lr, beta1, beta2, eps, weightDecay)
//   .gradientPart()                                          a view of a heap array of the gradients' size, to
//                                                            copy a worker's gradients into (allocated on first use)
//   .addGradientPart()                                       gradients += that array (float32, element by element)
//   .delete()                                                frees it (embind)
// The trainer validates the config and the tokens before calling (web/src/train/trainer.js).
#include <emscripten/bind.h>
#include <emscripten/val.h>

#include <string>
#include <vector>

#include "heap.h"
#include "kernels/attention_only_training.h"

namespace ap::bindings {

namespace {

using emscripten::val;

class TrainingModel {
 public:
  TrainingModel(int vocab_size, int context_length, int d_model, int heads, int layers, bool layer_norm)
      : config_{vocab_size, context_length, d_model, heads, layers, layer_norm}, model_(config_) {}

  val parameters() { return view(model_.parameters()); }
  val gradients() { return view(model_.gradients()); }
  val exp_avg() { return view(model_.exp_avg()); }
  val exp_avg_sq() { return view(model_.exp_avg_sq()); }

  val run(val inputs, val targets, int batch, int t, bool gradients, int normalizer) {
    labels_ = emscripten::convertJSArrayToNumberVector<int>(targets);
    return execute("trainer.step", inputs, batch, t, gradients, normalizer);
  }

  val forward(val inputs, int batch, int t, const std::string& function) {
    labels_.assign(static_cast<std::size_t>(batch) * t, -100);
    return execute(function, inputs, batch, t, false);
  }

  val logits() {
    return val(emscripten::typed_memory_view(static_cast<std::size_t>(batch_) * t_ * config_.vocab_size, model_.logits()));
  }

  val attention(int layer) {
    const std::size_t size = static_cast<std::size_t>(batch_) * config_.heads * t_ * t_;
    if (size > weights_.size() && (size - weights_.size()) * sizeof(float) > bytes_available()) {
      return val::global("Error").new_(std::string("trainer.attention: the weights of shape [") + std::to_string(batch_) +
                                       ", " + std::to_string(config_.heads) + ", " + std::to_string(t_) + ", " +
                                       std::to_string(t_) + "] need " + std::to_string(size * sizeof(float) >> 20) +
                                       " MiB; the WASM memory has " + std::to_string(bytes_available() >> 20) + " MiB left");
    }
    weights_.resize(size);
    model_.attention_weights(layer, weights_.data());
    return val(emscripten::typed_memory_view(weights_.size(), weights_.data()));
  }

  double clip_gradients(double max_norm) { return model_.clip_gradients(max_norm); }

  val gradient_part() {
    part_.resize(model_.parameter_count());
    return view(part_.data());
  }
  void add_gradient_part() { model_.add_gradients(part_.data()); }

  void adamw_step(int step, double lr, double beta1, double beta2, double eps, double weight_decay) {
    model_.adamw_step(step, {lr, beta1, beta2, eps, weight_decay});
  }

 private:
  // run's and forward's work, labels_ holding the targets; `function` names the caller in the memory Error
  val execute(const std::string& function, val inputs, int batch, int t, bool gradients, int normalizer = 0) {
    const std::size_t growth = model_.scratch_growth(batch, t) * sizeof(float);
    if (growth > bytes_available()) {
      return val::global("Error").new_(function + ": a batch of shape [" + std::to_string(batch) + ", " +
                                       std::to_string(t) + "] needs " + std::to_string(growth >> 20) +
                                       " MiB of activations; the WASM memory has " +
                                       std::to_string(bytes_available() >> 20) + " MiB left");
    }
    tokens_ = emscripten::convertJSArrayToNumberVector<int>(inputs);
    const kernels::TrainingLoss loss = model_.run(tokens_.data(), labels_.data(), batch, t, gradients, normalizer);
    batch_ = batch;
    t_ = t;
    val result = val::object();
    result.set("loss", loss.loss);
    result.set("correct", loss.correct);
    result.set("count", loss.count);
    return result;
  }

  val view(float* data) { return val(emscripten::typed_memory_view(model_.parameter_count(), data)); }

  kernels::AttentionOnlyConfig config_;
  kernels::AttentionOnlyTraining model_;
  std::vector<int> tokens_, labels_;
  std::vector<float> weights_;  // attention(layer)'s
  std::vector<float> part_;     // gradientPart()'s
  int batch_ = 0, t_ = 0;       // the last run's
};

}  // namespace

EMSCRIPTEN_BINDINGS(training) {
  emscripten::class_<TrainingModel>("AttentionOnlyTraining")
      .constructor<int, int, int, int, int, bool>()
      .function("parameters", &TrainingModel::parameters)
      .function("gradients", &TrainingModel::gradients)
      .function("expAvg", &TrainingModel::exp_avg)
      .function("expAvgSq", &TrainingModel::exp_avg_sq)
      .function("run", &TrainingModel::run)
      .function("forward", &TrainingModel::forward)
      .function("logits", &TrainingModel::logits)
      .function("attention", &TrainingModel::attention)
      .function("clipGradients", &TrainingModel::clip_gradients)
      .function("adamwStep", &TrainingModel::adamw_step)
      .function("gradientPart", &TrainingModel::gradient_part)
      .function("addGradientPart", &TrainingModel::add_gradient_part);
}

}  // namespace ap::bindings
