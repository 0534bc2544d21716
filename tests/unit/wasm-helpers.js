// Shared by the wasm-*.test.js suites: the two builds, small tensors, and the six-token example with
// its known numbers. These suites call the WASM backend directly (not through the API layer), so they
// exercise the binding's own checks, conversions and memory handling.
import { expect } from 'vitest';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';

export const BUILDS = ['simd', 'baseline'];

const loaded = new Map();

/** The backend of one build, loaded once per test file. */
export function backendFor(build) {
  if (!loaded.has(build)) loaded.set(build, loadWasmBackend({ build }));
  return loaded.get(build);
}

export function tensor(values, shape) {
  return { data: Float32Array.from(values), shape };
}

/** Deterministic values in [-amplitude, amplitude]: a sine of the index, so every row differs. */
export function waveTensor(shape, phase = 0, amplitude = 1) {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, (_, i) => amplitude * Math.sin(0.37 * i + phase)), shape };
}

export function identity(n) {
  const data = new Float32Array(n * n);
  for (let i = 0; i < n; i++) data[i * n + i] = 1;
  return { data, shape: [n, n] };
}

/** "Your journey starts with one step", (B, T, C) = (1, 6, 3). */
export const JOURNEY = tensor([
  0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33, 0.77, 0.25, 0.10, 0.05, 0.80, 0.55,
], [1, 6, 3]);

/** With the second token ("journey") as query: its weights and its context vector (DESIGN.md, step 5). */
export const JOURNEY_WEIGHTS = [0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581];
export const JOURNEY_CONTEXT = [0.4419, 0.6515, 0.5683];

/** Row `row` of the last two axes of a (1, T, N) tensor. */
export function row(t, index) {
  const n = t.shape[t.shape.length - 1];
  return Array.from(t.data.subarray(index * n, (index + 1) * n));
}

/** Every |actual − expected| ≤ atol + rtol·|expected|, with the first difference in the failure message. */
export function expectClose(actual, expected, atol, rtol = 0) {
  expect(actual.length).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const bound = atol + rtol * Math.abs(expected[i]);
    if (!(Math.abs(actual[i] - expected[i]) <= bound)) {
      expect.fail(`element ${i}: ${actual[i]} vs ${expected[i]} (|diff| ${Math.abs(actual[i] - expected[i])} > ${bound})`);
    }
  }
}

/** The six-token example still gives its known numbers: the module works. */
export function expectJourney(backend) {
  const { weights, output } = backend.attentionWithoutWeights(JOURNEY);
  expectClose(row(weights, 1), JOURNEY_WEIGHTS, 1e-4);
  expectClose(row(output, 1), JOURNEY_CONTEXT, 1e-4);
}
