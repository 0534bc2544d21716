// The WASM trainer's resident model: the parameters, gradients, AdamW state and activations of the
// attention-only transformer live in the WASM heap (cpp/kernels/attention_only_training.h), and a training
// step is one call — embeddings, LayerNorm, projections, fused attention, unembedding, cross-entropy, the
// whole backward, clipping and AdamW in C++ on the packed GEMM and the fused attention kernels. The trainer
// keeps its JS copy of the state (trainer.params, trainer.adam) for parameters(), save() and the
// JS-engine paths, and copies back only when one of them asks (pull); evaluate(), predict() and attention()
// run the resident model's forward on its own state, no copy back. With threads, workers hold copies of the
// model and a step's rows are shared among them (shards.js); this thread's model stays the one that counts.
// the planner's contiguous split of heads among workers, here of the batch's rows
import { headGroups } from '../core/engine.js';

/** Marks a worker's error, so that step() goes on on one thread instead of raising it. */
function workerFailed(error) {
  throw Object.assign(new Error('a worker failed', { cause: error }), { workerFailure: true });
}

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
    /** The workers (shards.js) or null; `threadsReason` says why there are none, or why they stopped. */
    this.shards = null;
    this.threadsReason = null;
  }

  /** The packed state, copied: what a worker starts from. */
  state() {
    return { parameters: this.model.parameters().slice(), expAvg: this.model.expAvg().slice(), expAvgSq: this.model.expAvgSq().slice() };
  }

  /** Threads in use: this one and the workers. */
  get threads() { return this.shards ? this.shards.count + 1 : 1; }

  /** A worker failed: the steps go on on this thread, whose model is always current (it never waits on a worker's update). */
  dropShards(error, step) {
    this.shards.terminate();
    this.shards = null;
    this.threadsReason = `the workers failed at step ${step} (${error?.message ?? error}); the trainer runs on the calling thread`;
  }

  /** Copies {name: Float32Array} into a heap array (a fresh view: growing the memory detaches old ones). */
  write(tensors, view) {
    const heap = view();
    this.spec.forEach(([name], i) => { if (tensors[name]) heap.set(tensors[name], this.offsets[i]); });
  }

  writeParameters(params, names) {
    const heap = this.model.parameters();
    for (const name of names) heap.set(params[name].data, this.offsets[this.spec.findIndex(([n]) => n === name)]);
    this.shards?.write({ parameters: this.model.parameters().slice() });
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
  async step(inputs, targets, B, T, gradClip, optimizer, step) {
    if (this.shards) {
      try {
        return await this.stepShared(inputs, targets, B, T, gradClip, optimizer, step);
      } catch (error) {
        if (!error.workerFailure) throw error;
        this.dropShards(error.cause, step);
      }
    }
    const result = this.model.run(inputs, targets, B, T, true, 0);
    if (result instanceof Error) throw result;
    const gradNorm = this.model.clipGradients(gradClip ?? 0);
    this.adamw(optimizer, step);
    return { loss: result.loss, gradNorm };
  }

  adamw({ lr, betas: [beta1, beta2], eps, weightDecay }, step) {
    this.model.adamwStep(step, lr, beta1, beta2, eps, weightDecay);
  }

  /**
   * The rows split among this thread (the first group) and the workers (shards.js); a batch of fewer rows
   * than threads leaves the last workers without rows, but every worker takes the AdamW step.
   */
  async stepShared(inputs, targets, B, T, gradClip, optimizer, step) {
    const groups = headGroups(B, this.threads);
    let count = 0;
    for (const target of targets) count += target !== -100;
    // Each worker handles its messages in order: the rows go out at once, behind the last step's 'apply'
    // (whose failure, if any, is raised below before any answer is used), and this thread starts its own.
    const asked = groups.slice(1).map(([r0, r1], k) => this.shards.gradients(k, inputs.slice(r0 * T, r1 * T), targets.slice(r0 * T, r1 * T), r1 - r0, T, count)
      .catch(workerFailed));
    for (const answer of asked) answer.catch(() => {});
    const rows = groups[0][1] * T;
    const own = this.model.run(inputs.subarray(0, rows), targets.subarray(0, rows), groups[0][1], T, true, count);
    if (own instanceof Error) throw own;
    await this.shards.queued.catch(workerFailed);
    const answers = await Promise.all(asked);
    // the workers' gradients added in worker order, in the heap (one copy in, a SIMD add: float32 as before)
    let loss = own.loss * own.count;
    for (const answer of answers) {
      this.model.gradientPart().set(answer.gradients);
      this.model.addGradientPart();
      loss += answer.loss * answer.count;
    }
    const gradNorm = this.model.clipGradients(gradClip ?? 0);
    // the workers take the same AdamW step on the same gradients while this thread takes its own
    this.shards.apply(answers, this.model.gradients(), step, optimizer);
    this.adamw(optimizer, step);
    return { loss: count ? loss / count : 0, gradNorm };
  }

  /** Forward only → {loss, correct, count}. */
  evaluate(inputs, targets, B, T) {
    const result = this.model.run(inputs, targets, B, T, false, 0);
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
    this.shards?.terminate();
    this.shards = null;
    this.model.delete();
    this.model = null;
  }
}
