// A Web Worker of the trainer's shards (shards.js): its own instance of the WASM build the trainer loaded and
// its own resident model (cpp/kernels/attention_only_training.h), kept identical to the calling thread's: it
// starts from the same parameters and AdamW state, and applies the same AdamW to the same summed, clipped
// gradients. Each step it computes the gradients of its rows of the batch. The trainer has checked every
// argument; an Error here is an engine failure or a bug, answered as {id, error}.
//
// Messages, each answered with {id, ...}; parameter arrays are packed in state_dict order:
//   {type: 'load', build, binaryUrl?, wasmBinary?, config, parameters, expAvg, expAvgSq} → {relaxed}
//   {type: 'gradients', inputs, targets, batch, t, normalizer} → {loss, correct, count, gradients}: the
//       gradients of the shard's summed loss divided by `normalizer` (the whole batch's count)
//   {type: 'apply', gradients, step, optimizer} → {}: the summed, clipped gradients (the array this worker
//       answered with, handed back), then AdamW step `step`
//   {type: 'write', parameters?, expAvg?, expAvgSq?} → {}: setParameters() and loading, copied in
// a worker's own entry: the WASM instance straight from the core's worker module (the engine's other
// re-exports would bundle the planner into the worker)
import { instantiateInWorker } from '../core/backends/worker-module.js';

let model = null;
/** The array the last 'apply' handed back: the next answer's gradients go into it (no fresh memory per step). */
let spare = null;

async function load({ config, parameters, expAvg, expAvgSq, ...build }) {
  const { core, relaxed } = await instantiateInWorker(build, 'trainer shard');
  const { vocabSize, contextLength, dModel, heads, layers, layerNorm } = config;
  model = new core.AttentionOnlyTraining(vocabSize, contextLength, dModel, heads, layers, layerNorm);
  write({ parameters, expAvg, expAvgSq });
  return relaxed;
}

/** Copies packed arrays into the heap (a fresh view each: growing the memory detaches old ones). */
function write({ parameters, expAvg, expAvgSq }) {
  if (parameters) model.parameters().set(parameters);
  if (expAvg) model.expAvg().set(expAvg);
  if (expAvgSq) model.expAvgSq().set(expAvgSq);
}

self.onmessage = async ({ data: message }) => {
  try {
    if (message.type === 'load') {
      self.postMessage({ id: message.id, relaxed: await load(message) });
    } else if (message.type === 'gradients') {
      const { inputs, targets, batch, t, normalizer } = message;
      const result = model.run(inputs, targets, batch, t, true, normalizer);
      if (result instanceof Error) throw result;
      const heap = model.gradients();
      const gradients = spare?.length === heap.length ? spare : new Float32Array(heap.length);
      spare = null;
      gradients.set(heap);
      self.postMessage({ id: message.id, loss: result.loss, correct: result.correct, count: result.count, gradients }, [gradients.buffer]);
    } else if (message.type === 'apply') {
      const { gradients, step, optimizer: { lr, betas: [beta1, beta2], eps, weightDecay } } = message;
      model.gradients().set(gradients);
      model.adamwStep(step, lr, beta1, beta2, eps, weightDecay);
      spare = gradients;
      self.postMessage({ id: message.id });
    } else if (message.type === 'write') {
      write(message);
      self.postMessage({ id: message.id });
    } else {
      throw new Error(`trainer shard: unknown message type ${JSON.stringify(message.type)}`);
    }
  } catch (error) {
    self.postMessage({ id: message.id, error: error?.message ?? String(error) });
  }
};
