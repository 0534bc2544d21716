// The WASM heap stays flat over 1,000 training steps, on the trainer's own WASM path (native.js: the model
// resident in the heap, its activations allocated once per batch shape) and on the JS model whose linear
// layers call the WASM matmul (linear.js, what attention() and predict() use): every call frees what it allocates.
import { describe, expect, test } from 'vitest';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { adamwStep, createAdamState } from '../../web/src/train/adamw.js';
import { wasmLinear } from '../../web/src/train/linear.js';
import { initParameters, parameterSpec, runModel } from '../../web/src/train/model.js';
import { NativeTraining } from '../../web/src/train/native.js';
import { makeBatch } from '../../web/src/train/tasks.js';

const STEPS = 1000;
const config = { vocabSize: 16, contextLength: 16, dModel: 32, heads: 2, layers: 2, layerNorm: true };

describe.each(['simd', 'baseline'])('the %s build', (build) => {
  test(`the heap stays flat over ${STEPS} training steps`, async () => {
    const backend = await loadWasmBackend({ build });
    // wasmLinear needs only matmul(a, b, {transposeB}) and the backend's name.
    const linear = wasmLinear({ backend: `wasm-${build}`, matmul: (a, b, options) => backend.matmul(a, b, options) });
    const params = initParameters(config, 1);
    const adam = createAdamState(params);
    const step = (s) => {
      const { inputs, targets } = makeBatch('induction', { batch: 8, contextLength: 16, vocabSize: 16, seed: 1, step: s });
      const run = runModel(config, params, inputs.data, targets.data, { B: 8, T: 16, wantGradients: true, linear });
      const grads = Object.fromEntries(Object.entries(run.grads).map(([n, g]) => [n, Float32Array.from(g)]));
      adamwStep(params, grads, adam, { lr: 0.01, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0.01 });
      return run.loss;
    };
    for (let s = 0; s < 10; s++) step(s); // warm-up
    const before = backend.heapStats();
    let loss;
    for (let s = 10; s < 10 + STEPS; s++) loss = step(s);
    const after = backend.heapStats();
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(loss).toBeLessThan(1);
  });
  test(`the heap stays flat over ${STEPS} steps of the resident model`, async () => {
    const backend = await loadWasmBackend({ build });
    const params = initParameters(config, 1);
    const native = new NativeTraining(backend, config, parameterSpec(config), params, createAdamState(params));
    const optimizer = { lr: 0.01, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0.01 };
    const step = (s) => {
      const { inputs, targets } = makeBatch('induction', { batch: 8, contextLength: 16, vocabSize: 16, seed: 1, step: s });
      return native.step(inputs.data, targets.data, 8, 16, 1, optimizer, s + 1).loss;
    };
    for (let s = 0; s < 10; s++) step(s); // warm-up
    const before = backend.heapStats();
    let loss;
    for (let s = 10; s < 10 + STEPS; s++) loss = step(s);
    const after = backend.heapStats();
    expect(after.bytesInUse).toBe(before.bytesInUse);
    expect(after.heapBytes).toBe(before.heapBytes);
    expect(loss).toBeLessThan(1);
    native.dispose();
  });
});
