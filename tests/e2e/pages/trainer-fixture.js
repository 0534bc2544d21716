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
