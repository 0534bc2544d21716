// The trainer's resident model (cpp/kernels/attention_only_training.h) as an embind class, used by
// web/src/train/native.js only (not an API function of docs/api.md):
//
//   new AttentionOnlyTraining(vocabSize, contextLength, dModel, heads, layers, layerNorm)
//   .parameters() / .gradients() / .expAvg() / .expAvgSq()   Float32Array views into the WASM heap, state_dict
//                                                             order; a view dies when the memory grows, so
//                                                             JS takes a fresh one for every copy
//   .run(inputs, targets, batch, t, gradients)               {loss, correct, count} or an Error (memory)
//   .clipGradients(maxNorm)                                  the norm before clipping; maxNorm ≤ 0: no clipping
//   .adamwStep(step, lr, beta1, beta2, eps, weightDecay)
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
      : model_({vocab_size, context_length, d_model, heads, layers, layer_norm}) {}

  val parameters() { return view(model_.parameters()); }
  val gradients() { return view(model_.gradients()); }
  val exp_avg() { return view(model_.exp_avg()); }
  val exp_avg_sq() { return view(model_.exp_avg_sq()); }

  val run(val inputs, val targets, int batch, int t, bool gradients) {
    const std::size_t growth = model_.scratch_growth(batch, t) * sizeof(float);
    if (growth > bytes_available()) {
      return val::global("Error").new_(std::string("trainer.step: a batch of shape [") + std::to_string(batch) + ", " +
                                       std::to_string(t) + "] needs " + std::to_string(growth >> 20) +
                                       " MiB of activations; the WASM memory has " +
                                       std::to_string(bytes_available() >> 20) + " MiB left");
    }
    tokens_ = emscripten::convertJSArrayToNumberVector<int>(inputs);
    labels_ = emscripten::convertJSArrayToNumberVector<int>(targets);
    const kernels::TrainingLoss loss = model_.run(tokens_.data(), labels_.data(), batch, t, gradients);
    val result = val::object();
    result.set("loss", loss.loss);
    result.set("correct", loss.correct);
    result.set("count", loss.count);
    return result;
  }

  double clip_gradients(double max_norm) { return model_.clip_gradients(max_norm); }

  void adamw_step(int step, double lr, double beta1, double beta2, double eps, double weight_decay) {
    model_.adamw_step(step, {lr, beta1, beta2, eps, weight_decay});
  }

 private:
  val view(float* data) { return val(emscripten::typed_memory_view(model_.parameter_count(), data)); }

  kernels::AttentionOnlyTraining model_;
  std::vector<int> tokens_, labels_;
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
      .function("clipGradients", &TrainingModel::clip_gradients)
      .function("adamwStep", &TrainingModel::adamw_step);
}

}  // namespace ap::bindings
