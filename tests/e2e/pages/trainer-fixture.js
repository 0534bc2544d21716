// The trainer's PyTorch fixture cases (tests/fixtures/trainAttentionOnly.json, decoded by a spec in Node and
// passed in as plain arrays) as createTrainer takes them: shared by the trainer harnesses.

/** A fixture batch of plain arrays as {inputs, targets} Int32 tensors. */
export const asTensors = (batch) => ({
  inputs: { data: Int32Array.from(batch.inputs.data), shape: batch.inputs.shape },
  targets: { data: Int32Array.from(batch.targets.data), shape: batch.targets.shape },
});

/** createTrainer's options for a case: its config, initial parameters and optimiser, plus `options` (backend, threads, syncEvery). */
export function trainerOptions(testCase, options) {
  const parameters = Object.fromEntries(Object.entries(testCase.initial).map(([name, t]) => [name, { data: Float32Array.from(t.data), shape: t.shape }]));
  return { ...testCase.config, seed: 0, parameters, optimizer: testCase.optimizer, gradClip: testCase.gradClip ?? undefined, ...options };
}

/** The largest |a[i] − b[i]|. */
export const worstDifference = (a, b) => a.reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i])), 0);

/**
 * k_proj.bias after `steps` AdamW steps with a gradient of exactly 0 (every engine's: the softmax cancels a bias on
 * the keys): weight decay alone, p = fround(p · fround(1 − lr·λ)) per step, as every engine's AdamW rounds it.
 */
export function decayedOnly(initial, { lr, weightDecay }, steps) {
  const decay = Math.fround(1 - lr * weightDecay);
  return Float32Array.from(initial, (p) => {
    let v = Math.fround(p);
    for (let s = 0; s < steps; s++) v = Math.fround(v * decay);
    return v;
  });
}

/**
 * Every k_proj.bias of a trained case: the worst distance from weight decay alone (0 when its gradient was exactly
 * 0 at every step) and from torch's final value (torch's own rounding noise, which AdamW amplifies).
 */
export function keyBiasErrors(testCase, ours) {
  let fromDecay = 0;
  let fromTorch = 0;
  for (const [name, t] of Object.entries(testCase.final)) {
    if (!name.endsWith('k_proj.bias')) continue;
    const decayed = decayedOnly(testCase.initial[name].data, testCase.optimizer, testCase.batches.length);
    fromDecay = Math.max(fromDecay, worstDifference(ours[name].data, decayed));
    fromTorch = Math.max(fromTorch, worstDifference(ours[name].data, t.data));
  }
  return { fromDecay, fromTorch };
}
