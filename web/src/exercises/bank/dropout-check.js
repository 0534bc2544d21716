// Steps 8–9: dropout on the attention weights, and checking a result against a trusted one.
import { randomTensor, tensorOf } from '../tensors.js';
import { fixTheBug, mistake } from './authoring.js';

/** Attention weights from the core (rows summing to 1) and dropout's keep mask for them. */
const dropoutCase = (B, T, p, seed) => (next, core) => {
  const x = randomTensor(next, [B, T, 3]);
  const weights = core.attentionWithoutWeights(x).weights;
  const keep = core.attentionDropout(weights, { dropout: p, seed }).mask;
  return { inputs: { weights, keep }, options: { p, seed } };
};

const APPLY_DROPOUT = (factor) => `export default function applyDropout(weights, keep, { p }) {
  const data = new Float32Array(weights.data.length);
  for (let i = 0; i < data.length; i++) data[i] = weights.data[i] * keep.data[i]${factor};
  return { data, shape: [...weights.shape] };
}
`;

/** A pair to compare: expected, and actual = expected plus small and large differences. */
const comparePair = (shape, noise, options) => (next) => {
  const expected = randomTensor(next, shape);
  const actual = randomTensor(next, shape, noise);
  for (let i = 0; i < actual.data.length; i++) actual.data[i] += expected.data[i];
  return { inputs: { actual, expected }, options };
};

const MISMATCH = (term) => `export default function mismatchCells(actual, expected, { atol, rtol }) {
  const data = new Float32Array(actual.data.length);
  for (let i = 0; i < data.length; i++) {
    const error = Math.abs(actual.data[i] - expected.data[i]);
    data[i] = error > atol + rtol * Math.abs(${term}.data[i]) ? 1 : 0;
  }
  return { data, shape: [...actual.shape] };
}
`;

// Both dropout exercises: the learner's function and the core's answer.
const APPLY_DROPOUT_ENTRY = { name: 'applyDropout', params: ['weights', 'keep'], options: '{p, seed}', returns: 'dropped, the shape of weights' };
const droppedWeights = (core, { weights }, { p, seed }) => core.attentionDropout(weights, { dropout: p, seed }).output;

export const DROPOUT_CHECK_EXERCISES = [
  {
    id: 'dropout/scale-kept',
    step: 'dropout',
    kind: 'write',
    title: 'Dropout on the attention weights',
    prompt: 'Given the attention weights, a keep mask (1 kept, 0 dropped) and the dropout rate p, return the dropped weights: the kept ones scaled by 1/(1 − p), so that each weight keeps its expected value.',
    entry: APPLY_DROPOUT_ENTRY,
    cases: [
      { input: 'p=0.5, B=1, T=6', seed: 141, make: dropoutCase(1, 6, 0.5, 123) },
      { input: 'p=0 (nothing dropped)', seed: 142, make: dropoutCase(1, 4, 0, 7) },
      { input: 'p=0.9, B=2, T=5', seed: 143, make: dropoutCase(2, 5, 0.9, 99) },
      { input: 'T=1', seed: 144, make: dropoutCase(1, 1, 0.25, 1) },
    ],
    reference: droppedWeights,
    hints: ['Multiply each weight by its keep value.', 'Then divide by 1 − p: in expectation a kept weight times (1 − p) is the original.'],
    starter: `export default function applyDropout(weights, keep, { p }) {
  const data = new Float32Array(weights.data.length);
  return { data, shape: [...weights.shape] };
}
`,
    solution: APPLY_DROPOUT(' / (1 - p)'),
    wrong: [
      mistake('scales by (1 − p) instead of dividing by it', APPLY_DROPOUT(' * (1 - p)')),
    ],
  },
  fixTheBug({
    id: 'dropout/forgot-rescale',
    step: 'dropout',
    title: 'Fix the bug: dropout without 1/(1 − p)',
    prompt: 'This dropout zeroes the dropped weights but leaves the kept ones as they were, so the rows sum to about 1 − p during training. Fix it.',
    entry: APPLY_DROPOUT_ENTRY,
    cases: [
      { input: 'p=0.5, B=1, T=6', seed: 151, make: dropoutCase(1, 6, 0.5, 5) },
      { input: 'p=0.1, B=2, T=3', seed: 152, make: dropoutCase(2, 3, 0.1, 8) },
      { input: 'p=0 (nothing dropped)', seed: 153, make: dropoutCase(1, 3, 0, 2) },
      { input: 'T=1', seed: 154, make: dropoutCase(1, 1, 0.5, 3) },
    ],
    reference: droppedWeights,
    hints: ['What should a kept weight be multiplied by?', 'Divide the kept weights by 1 − p.'],
    starter: APPLY_DROPOUT(''),
    solution: APPLY_DROPOUT(' / (1 - p)'),
  }),
  {
    id: 'check/max-abs-error',
    step: 'check',
    kind: 'write',
    title: 'The largest absolute difference',
    prompt: 'Return max |actual − expected| over all elements, as a tensor of shape [1].',
    entry: { name: 'maxAbsError', params: ['actual', 'expected'], returns: 'a tensor of shape [1]' },
    cases: [
      { input: '(2, 6, 2), small noise', seed: 161, make: comparePair([2, 6, 2], 1e-3) },
      { input: 'equal tensors', seed: 162, make: comparePair([3, 3], 0) },
      { input: 'one value', seed: 163, make: comparePair([1], 2) },
      { input: 'large negative differences', seed: 164, make: comparePair([4, 5], 50) },
    ],
    reference: (core, { actual, expected }) => tensorOf([1], [core.compare(actual, expected).maxAbsError]),
    hints: ['Take the absolute value of each difference before the maximum.', 'Start the running maximum at 0, not at the first difference.'],
    starter: `export default function maxAbsError(actual, expected) {
  let max = 0;
  return { data: Float32Array.of(max), shape: [1] };
}
`,
    solution: `export default function maxAbsError(actual, expected) {
  let max = 0;
  for (let i = 0; i < actual.data.length; i++) max = Math.max(max, Math.abs(actual.data[i] - expected.data[i]));
  return { data: Float32Array.of(max), shape: [1] };
}
`,
    wrong: [
      mistake('the largest signed difference: negative differences are missed', `export default function maxAbsError(actual, expected) {
  let max = 0;
  for (let i = 0; i < actual.data.length; i++) max = Math.max(max, actual.data[i] - expected.data[i]);
  return { data: Float32Array.of(max), shape: [1] };
}
`, { case: 2, index: 0 }),
    ],
  },
  {
    id: 'check/mismatch-cells',
    step: 'check',
    kind: 'write',
    title: 'Which cells are not close?',
    prompt: 'Return 1 where |actual − expected| > atol + rtol·|expected| (the allclose rule of numpy and torch) and 0 elsewhere.',
    entry: { name: 'mismatchCells', params: ['actual', 'expected'], options: '{atol, rtol}', returns: 'the shape of actual' },
    cases: [
      { input: 'atol=rtol=1e-5, (3, 4)', seed: 171, make: comparePair([3, 4], 2e-5, { atol: 1e-5, rtol: 1e-5 }) },
      { input: 'rtol only (0.1)', seed: 172, make: () => ({ inputs: { actual: tensorOf([4], [1.105, 2, -1.2, 10.5]), expected: tensorOf([4], [1, 2.1, -1, 10]) }, options: { atol: 0, rtol: 0.1 } }) },
      { input: 'atol only (0.5)', seed: 173, make: comparePair([2, 5], 0.6, { atol: 0.5, rtol: 0 }) },
    ],
    reference: (core, { actual, expected }, { atol, rtol }) => {
      // The core's compare, one element at a time: its firstMismatch says whether that element is close.
      const cell = (t, i) => ({ data: t.data.subarray(i, i + 1), shape: [1] });
      const flags = Array.from(actual.data, (_, i) => (core.compare(cell(actual, i), cell(expected, i), { atol, rtol }).allclose ? 0 : 1));
      return tensorOf(actual.shape, flags);
    },
    hints: ['The relative term uses |expected|, the trusted value, not |actual|.', 'Compare with > (an error exactly at the bound is close).'],
    starter: `export default function mismatchCells(actual, expected, { atol, rtol }) {
  const data = new Float32Array(actual.data.length);
  return { data, shape: [...actual.shape] };
}
`,
    solution: MISMATCH('expected'),
    wrong: [
      mistake('the relative term uses |actual|', MISMATCH('actual'), { case: 1, index: 0 }),
    ],
  },
];
