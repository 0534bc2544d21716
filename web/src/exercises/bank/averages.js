// Steps 2–4: the causal average by a loop, by a matrix, and by a softmax over a −∞ mask.
import { maskedCells, tensorOf } from '../tensors.js';
import { answerEntry, answerSource, edit, fixTheBug, mistake, sequence } from './authoring.js';

const RUNNING_MEAN = `export default function causalAverage(x) {
  const [B, T, C] = x.shape;
  const data = new Float32Array(B * T * C);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++)
      for (let c = 0; c < C; c++) {
        let sum = 0;
        for (let s = 0; s <= t; s++) sum += x.data[(b * T + s) * C + c];
        data[(b * T + t) * C + c] = sum / (t + 1);
      }
  return { data, shape: [B, T, C] };
}
`;
const AVERAGING_WEIGHTS = `export default function causalWeights(x) {
  const T = x.shape[1];
  const data = new Float32Array(T * T);
  for (let i = 0; i < T; i++)
    for (let j = 0; j <= i; j++) data[i * T + j] = 1 / (i + 1);
  return { data, shape: [T, T] };
}
`;
const MASKED_CELLS = `export default () => {
  const data = new Float32Array(25);
  for (let i = 0; i < 5; i++) for (let j = i + 1; j < 5; j++) data[i * 5 + j] = 1;
  return { data, shape: [5, 5] };
};
`;

export const AVERAGE_EXERCISES = [
  {
    id: 'loop/running-mean',
    step: 'loop',
    kind: 'write',
    title: 'The running mean, by a loop',
    prompt: 'Return y with y[b, t] = the mean of x[b, 0..t] (every token up to and including t), for every batch b and channel c.',
    entry: { name: 'causalAverage', params: ['x'], returns: 'output (B, T, C)' },
    cases: [
      { input: 'B=1, T=4, C=3', seed: 1, make: sequence(1, 4, 3) },
      { input: 'T=1', seed: 2, make: sequence(1, 1, 3) },
      { input: 'B=2, T=6, C=2', seed: 3, make: sequence(2, 6, 2) },
      { input: 'large values (×1000)', seed: 4, make: sequence(1, 5, 2, 1000) },
    ],
    reference: (core, { x }) => core.causalAverageLoop(x).output,
    hints: [
      'Index a (B, T, C) tensor as x.data[(b * T + t) * C + c].',
      'For token t, sum x over s = 0..t (inclusive) and divide by t + 1, the number of tokens summed.',
    ],
    starter: `export default function causalAverage(x) {
  const [B, T, C] = x.shape;
  const data = new Float32Array(B * T * C);
  // y[b, t, c] = mean of x[b, 0..t, c]
  return { data, shape: [B, T, C] };
}
`,
    solution: RUNNING_MEAN,
    wrong: [
      mistake('divides by T instead of the t + 1 tokens summed', edit(RUNNING_MEAN, ['sum / (t + 1)', 'sum / T'])),
    ],
  },
  fixTheBug({
    id: 'loop/off-by-one',
    step: 'loop',
    title: 'Fix the bug: the running mean that skips the current token',
    prompt: 'This loop averages the tokens before t but forgets token t itself. Fix it so that y[b, t] is the mean of x[b, 0..t].',
    entry: { name: 'causalAverage', params: ['x'], returns: 'output (B, T, C)' },
    cases: [
      { input: 'B=1, T=5, C=2', seed: 11, make: sequence(1, 5, 2) },
      { input: 'T=1', seed: 12, make: sequence(1, 1, 4) },
      { input: 'B=3, T=3, C=1', seed: 13, make: sequence(3, 3, 1) },
    ],
    reference: (core, { x }) => core.causalAverageLoop(x).output,
    hints: [
      'Look at the first row of your output: what is the mean of one token?',
      'The inner loop must include s = t, and the count is t + 1.',
    ],
    starter: edit(RUNNING_MEAN, ['s <= t', 's < t'], ['sum / (t + 1)', 'sum / Math.max(t, 1)']),
    solution: RUNNING_MEAN,
  }),
  {
    id: 'matmul/averaging-weights',
    step: 'matmul',
    kind: 'write',
    title: 'The averaging matrix',
    prompt: 'Return the (T, T) weights whose product with x is the causal average: row i holds 1/(i+1) in columns 0..i and 0 after.',
    entry: { name: 'causalWeights', params: ['x'], returns: 'weights (T, T)' },
    cases: [
      { input: 'T=4', seed: 21, make: sequence(1, 4, 3) },
      { input: 'T=1', seed: 22, make: sequence(1, 1, 2) },
      { input: 'B=2, T=7', seed: 23, make: sequence(2, 7, 2) },
    ],
    reference: (core, { x }) => core.causalAverageMatmul(x).weights,
    hints: [
      'Only T = x.shape[1] matters; the values of x do not.',
      'Start from tril(ones(T, T)) and divide each row by its sum, i + 1.',
    ],
    starter: `export default function causalWeights(x) {
  const T = x.shape[1];
  const data = new Float32Array(T * T);
  return { data, shape: [T, T] };
}
`,
    solution: AVERAGING_WEIGHTS,
    wrong: [
      mistake('divides every row by T, not by its own number of ones', edit(AVERAGING_WEIGHTS, ['1 / (i + 1)', '1 / T'])),
    ],
  },
  {
    id: 'matmul/estimate-weight',
    step: 'matmul',
    kind: 'predict',
    title: 'Estimate a weight',
    prompt: 'For T = 6 tokens, what is weights[3][1] of the averaging matrix (row 3, column 1, counting from 0)?',
    answer: { type: 'estimate', label: 'weights[3][1]' },
    entry: answerEntry('the estimate, a tensor of shape [1]'),
    cases: [{ input: 'T=6', seed: 31, make: sequence(1, 6, 3) }],
    tolerance: { atol: 0.01, rtol: 0 },
    reference: (core, { x }) => tensorOf([1], [core.causalAverageMatmul(x).weights.data[3 * 6 + 1]]),
    hints: ['Row 3 averages tokens 0, 1, 2 and 3.', 'Four tokens share the row equally.'],
    solution: answerSource(0.25),
    wrong: [
      mistake('one sixth: the row divided by T', answerSource('1 / 6')),
    ],
  },
  {
    id: 'softmax/causal-softmax-weights',
    step: 'softmax',
    kind: 'write',
    title: 'Averaging weights from a softmax',
    prompt: 'Build the same averaging weights a third way: scores of zeros, −∞ above the diagonal, and a softmax over each row. Return the (T, T) weights.',
    entry: { name: 'causalSoftmaxWeights', params: ['x'], returns: 'weights (T, T)' },
    cases: [
      { input: 'T=5', seed: 41, make: sequence(1, 5, 2) },
      { input: 'T=1', seed: 42, make: sequence(1, 1, 2) },
      { input: 'B=2, T=3', seed: 43, make: sequence(2, 3, 4) },
    ],
    reference: (core, { x }) => core.causalAverageSoftmax(x).weights,
    hints: [
      'exp(−∞) is 0, and every unmasked score is 0, so exp gives 1 on and below the diagonal.',
      'Divide each row by the sum of its exponentials.',
    ],
    starter: `export default function causalSoftmaxWeights(x) {
  const T = x.shape[1];
  const scores = new Float32Array(T * T); // zeros
  const data = new Float32Array(T * T);
  return { data, shape: [T, T] };
}
`,
    solution: `export default function causalSoftmaxWeights(x) {
  const T = x.shape[1];
  const data = new Float32Array(T * T);
  for (let i = 0; i < T; i++) {
    const row = [];
    for (let j = 0; j < T; j++) row.push(j > i ? -Infinity : 0);
    const max = Math.max(...row);
    const exps = row.map((s) => Math.exp(s - max));
    const sum = exps.reduce((a, b) => a + b, 0);
    for (let j = 0; j < T; j++) data[i * T + j] = exps[j] / sum;
  }
  return { data, shape: [T, T] };
}
`,
    wrong: [
      mistake('no mask: every token averages the whole sequence, future included', `export default function causalSoftmaxWeights(x) {
  const T = x.shape[1];
  return { data: new Float32Array(T * T).fill(1 / T), shape: [T, T] };
}
`),
    ],
  },
  {
    id: 'softmax/predict-masked-cells',
    step: 'softmax',
    kind: 'predict',
    title: 'Which cells does the causal mask set to −∞?',
    prompt: 'For T = 5, click every cell of the (T, T) scores that the causal mask sets to −∞ (row = query i, column = key j).',
    answer: { type: 'cells', label: 'masked (T, T)', shape: [5, 5] },
    entry: answerEntry('a (5, 5) tensor, 1 where masked and 0 elsewhere'),
    cases: [{ input: 'T=5', seed: 51, make: sequence(1, 5, 2) }],
    reference: (core, { x }) => maskedCells(core.causalAverageSoftmax(x).masked),
    hints: ['Token i may look at itself and at earlier tokens.', 'The masked cells are those with j > i: strictly above the diagonal.'],
    solution: MASKED_CELLS,
    wrong: [
      mistake('masks the past (below the diagonal) instead of the future', edit(MASKED_CELLS, ['let j = i + 1; j < 5', 'let j = 0; j < i']), { case: 0, index: 1 }),
    ],
  },
];
