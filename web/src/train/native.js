// The WASM trainer's resident model: the parameters, gradients, AdamW state and activations of the
// attention-only transformer live in the WASM heap (cpp/kernels/attention_only_training.h), and a training
// step is one call — embeddings, LayerNorm, projections, fused attention, unembedding, cross-entropy, the
// whole backward, clipping and AdamW in C++ on the packed GEMM and the fused attention kernels. The trainer
// keeps its JS copy of the state (trainer.params, trainer.adam) for parameters(), save() and the
// JS-engine paths, and copies back only when one of them asks (pull); evaluate(), predict() and attention()
// run the resident model's forward on its own state, no copy back.

/** The resident model of a loaded WASM backend (its createTrainingModel, backends/wasm.js), for one trainer. */
export class NativeTraining {
  constructor(core, config, spec, params, adam) {
    const { vocabSize, contextLength, dModel, heads, layers, layerNorm } = config;
    this.spec = spec;
    this.offsets = [];
    let floats = 0;
    for (const [, shape] of spec) {
      this.offsets.push(floats);
      floats += shape.reduce((a, b) => a * b, 1);
    }
    const need = floats * 4 * Float32Array.BYTES_PER_ELEMENT;
    const { bytesAvailable } = core.heapStats();
    if (need > bytesAvailable) {
      throw new Error(`createTrainer: the model's ${floats} parameters with their gradients and AdamW state need ${need >> 20} MiB; the WASM memory has ${Math.floor(bytesAvailable / 2 ** 20)} MiB left`);
    }
    this.model = core.createTrainingModel(vocabSize, contextLength, dModel, heads, layers, layerNorm);
    this.floats = floats;
    this.writeParameters(params, spec.map(([name]) => name));
    this.write(adam.expAvg, () => this.model.expAvg());
    this.write(adam.expAvgSq, () => this.model.expAvgSq());
  }

  /** Copies {name: Float32Array} into a heap array (a fresh view: growing the memory detaches old ones). */
  write(tensors, view) {
    const heap = view();
    this.spec.forEach(([name], i) => { if (tensors[name]) heap.set(tensors[name], this.offsets[i]); });
  }

  writeParameters(params, names) {
    const heap = this.model.parameters();
    for (const name of names) heap.set(params[name].data, this.offsets[this.spec.findIndex(([n]) => n === name)]);
  }

  /** Copies the heap's parameters, AdamW moments and gradients into the trainer's JS state. */
  pull(params, adam, grads) {
    const parts = [[() => this.model.parameters(), (name) => params[name].data],
      [() => this.model.expAvg(), (name) => adam.expAvg[name]], [() => this.model.expAvgSq(), (name) => adam.expAvgSq[name]],
      [() => this.model.gradients(), (name) => grads[name]]];
    for (const [view, target] of parts) {
      const heap = view();
      this.spec.forEach(([name], i) => target(name).set(heap.subarray(this.offsets[i], this.offsets[i] + target(name).length)));
    }
  }

  /** Forward and backward, clip_grad_norm_ (gradClip null: none), AdamW step `step` → {loss, gradNorm}. */
  step(inputs, targets, B, T, gradClip, optimizer, step) {
    const result = this.model.run(inputs, targets, B, T, true);
    if (result instanceof Error) throw result;
    const gradNorm = this.model.clipGradients(gradClip ?? 0);
    const { lr, betas: [beta1, beta2], eps, weightDecay } = optimizer;
    this.model.adamwStep(step, lr, beta1, beta2, eps, weightDecay);
    return { loss: result.loss, gradNorm };
  }

  /** Forward only → {loss, correct, count}. */
  evaluate(inputs, targets, B, T) {
    const result = this.model.run(inputs, targets, B, T, false);
    if (result instanceof Error) throw result;
    return result;
  }

  /** The forward alone on its current state (every target ignored) → the logits (B·T·V), a copy. */
  predict(inputs, B, T) {
    const result = this.model.forward(inputs, B, T, 'trainer.predict');
    if (result instanceof Error) throw result;
    return this.model.logits().slice();
  }

  /** The forward alone → each block's attention weights (B·H·T·T), copies, P recomputed from the saved lse. */
  attention(inputs, B, T, layers) {
    const result = this.model.forward(inputs, B, T, 'trainer.attention');
    if (result instanceof Error) throw result;
    return Array.from({ length: layers }, (_, l) => {
      const weights = this.model.attention(l);
      if (weights instanceof Error) throw weights;
      return weights.slice();
    });
  }

  dispose() {
    this.model.delete();
    this.model = null;
  }
}
