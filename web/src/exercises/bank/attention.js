// Steps 5–7: softmax and attention without weights, trainable projections, the causal mask.
import { maskFuture, randomTensor, tensorOf } from '../tensors.js';
import { answerEntry, answerSource, edit, fixTheBug, mistake, sequence } from './authoring.js';

const matrix = (rows, cols, scale = 1) => (next) => ({ inputs: { x: randomTensor(next, [rows, cols], scale) } });
const projected = (B, T, dIn, dOut, names) => (next) => {
  const inputs = { x: randomTensor(next, [B, T, dIn]) };
  for (const name of names) inputs[name] = randomTensor(next, [dIn, dOut], 0.7);
  return { inputs };
};

// The learner's helpers for the projection exercises: X·W for (B, T, d_in)·(d_in, d_out), and the
// attention of given q, k, v. Shared text, so each solution reads as its own idea.
const PROJECT = `function project(x, w) {
  const [B, T, dIn] = x.shape;
  const dOut = w.shape[1];
  const data = new Float32Array(B * T * dOut);
  for (let r = 0; r < B * T; r++)
    for (let o = 0; o < dOut; o++) {
      let sum = 0;
      for (let i = 0; i < dIn; i++) sum += x.data[r * dIn + i] * w.data[i * dOut + o];
      data[r * dOut + o] = sum;
    }
  return { data, shape: [B, T, dOut] };
}
`;
const ATTEND = (scaleLine) => `function attend(q, k, v) {
  const [B, T, d] = q.shape;
  const out = new Float32Array(B * T * d);
  ${scaleLine}
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++) {
      const scores = [];
      for (let j = 0; j < T; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += q.data[(b * T + i) * d + c] * k.data[(b * T + j) * d + c];
        scores.push(dot * scale);
      }
      const max = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - max));
      const sum = exps.reduce((a, e) => a + e, 0);
      for (let j = 0; j < T; j++)
        for (let c = 0; c < d; c++) out[(b * T + i) * d + c] += (exps[j] / sum) * v.data[(b * T + j) * d + c];
    }
  return { data: out, shape: [B, T, d] };
}
`;
const STABLE_SOFTMAX = `export default function softmax(x) {
  const N = x.shape[x.shape.length - 1];
  const data = new Float32Array(x.data.length);
  for (let r = 0; r < x.data.length / N; r++) {
    const row = x.data.subarray(r * N, (r + 1) * N);
    const max = Math.max(...row);
    if (max === -Infinity) continue; // a fully masked row: weights of 0
    let sum = 0;
    for (let j = 0; j < N; j++) sum += Math.exp(row[j] - max);
    for (let j = 0; j < N; j++) data[r * N + j] = Math.exp(row[j] - max) / sum;
  }
  return { data, shape: [...x.shape] };
}
`;
const SCALED_SCORES = `${PROJECT}
export default function scaledScores(x, wQuery, wKey) {
  const q = project(x, wQuery);
  const k = project(x, wKey);
  const [B, T, d] = q.shape;
  const data = new Float32Array(B * T * T);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j < T; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += q.data[(b * T + i) * d + c] * k.data[(b * T + j) * d + c];
        data[(b * T + i) * T + j] = dot / Math.sqrt(d);
      }
  return { data, shape: [B, T, T] };
}
`;
const CAUSAL_WEIGHTS = (maskValue) => `export default function causalWeights(scaled) {
  const [B, T] = scaled.shape;
  const data = new Float32Array(B * T * T);
  for (let r = 0; r < B * T; r++) {
    const i = r % T;
    const row = [];
    for (let j = 0; j < T; j++) row.push(j > i ? ${maskValue} : scaled.data[r * T + j]);
    const max = Math.max(...row);
    const exps = row.map((s) => Math.exp(s - max));
    const sum = exps.reduce((a, e) => a + e, 0);
    for (let j = 0; j < T; j++) data[r * T + j] = exps[j] / sum;
  }
  return { data, shape: [B, T, T] };
}
`;

export const ATTENTION_EXERCISES = [
  {
    id: 'self-attention/stable-softmax',
    step: 'self-attention',
    kind: 'write',
    title: 'A softmax that survives large logits and fully masked rows',
    prompt: 'Return the softmax of every last-axis row of x. Subtract the row maximum first (exp(1000) is +∞ in float32), and give a row that is all −∞ weights of 0, not NaN.',
    entry: { name: 'softmax', params: ['x'], returns: 'output, the shape of x' },
    cases: [
      { input: '4 rows of 5', seed: 61, make: matrix(4, 5) },
      { input: 'one value (N=1)', seed: 62, make: matrix(1, 1) },
      { input: 'ties', seed: 63, make: () => ({ inputs: { x: tensorOf([2, 4], [1, 1, 1, 1, 3, 3, -2, -2]) } }) },
      { input: 'large logits', seed: 64, make: () => ({ inputs: { x: tensorOf([2, 3], [1000, 1001, 1002, -1000, 0, 1000]) } }) },
      { input: 'a fully masked row', seed: 65, make: () => ({ inputs: { x: tensorOf([2, 3], [-Infinity, -Infinity, -Infinity, 0.5, -Infinity, 1.5]) } }) },
    ],
    reference: (core, { x }) => core.softmax(x).output,
    hints: [
      'softmax(s) = exp(s − max) / Σ exp(s − max): the same value, and no exp ever exceeds 1.',
      'When the maximum of a row is −∞, every entry is masked: leave the row at 0.',
      'Handle each row of length N = x.shape[x.shape.length − 1] on its own.',
    ],
    starter: `export default function softmax(x) {
  const N = x.shape[x.shape.length - 1];
  const data = new Float32Array(x.data.length);
  return { data, shape: [...x.shape] };
}
`,
    solution: STABLE_SOFTMAX,
    wrong: [
      mistake('the naive softmax: exp overflows to +∞ for large logits', `export default function softmax(x) {
  const N = x.shape[x.shape.length - 1];
  const data = new Float32Array(x.data.length);
  for (let r = 0; r < x.data.length / N; r++) {
    let sum = 0;
    for (let j = 0; j < N; j++) sum += Math.exp(x.data[r * N + j]);
    for (let j = 0; j < N; j++) data[r * N + j] = Math.exp(x.data[r * N + j]) / sum;
  }
  return { data, shape: [...x.shape] };
}
`, { case: 3, index: 0 }),
      mistake('stable, but a fully masked row becomes 0/0 = NaN',
        STABLE_SOFTMAX.replace('    if (max === -Infinity) continue; // a fully masked row: weights of 0\n', ''), { case: 4, index: 0 }),
    ],
  },
  {
    id: 'self-attention/without-weights',
    step: 'self-attention',
    kind: 'write',
    title: 'Attention without trainable weights',
    prompt: 'Return the output of attention without weights: scores = X·Xᵀ per batch, weights = softmax over each row, output = weights·X.',
    entry: { name: 'attendWithoutWeights', params: ['x'], returns: 'output (B, T, C)' },
    cases: [
      { input: 'B=1, T=6, C=3', seed: 71, make: sequence(1, 6, 3) },
      { input: 'T=1', seed: 72, make: sequence(1, 1, 3) },
      { input: 'B=2, T=4, C=2, large values (×6)', seed: 73, make: sequence(2, 4, 2, 6) },
    ],
    reference: (core, { x }) => core.attentionWithoutWeights(x).output,
    hints: [
      'score[i][j] is the dot product of token i and token j.',
      'Use a stable softmax: the large-value case makes exp overflow otherwise.',
    ],
    starter: `export default function attendWithoutWeights(x) {
  const [B, T, C] = x.shape;
  const data = new Float32Array(B * T * C);
  return { data, shape: [B, T, C] };
}
`,
    solution: `export default function attendWithoutWeights(x) {
  const [B, T, C] = x.shape;
  const out = new Float32Array(B * T * C);
  const at = (b, t, c) => x.data[(b * T + t) * C + c];
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++) {
      const scores = [];
      for (let j = 0; j < T; j++) {
        let dot = 0;
        for (let c = 0; c < C; c++) dot += at(b, i, c) * at(b, j, c);
        scores.push(dot);
      }
      const max = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - max));
      const sum = exps.reduce((a, e) => a + e, 0);
      for (let j = 0; j < T; j++)
        for (let c = 0; c < C; c++) out[(b * T + i) * C + c] += (exps[j] / sum) * at(b, j, c);
    }
  return { data: out, shape: [B, T, C] };
}
`,
    wrong: [
      mistake('skips the softmax: output = scores·X', `export default function attendWithoutWeights(x) {
  const [B, T, C] = x.shape;
  const out = new Float32Array(B * T * C);
  const at = (b, t, c) => x.data[(b * T + t) * C + c];
  for (let b = 0; b < B; b++)
    for (let i = 0; i < T; i++)
      for (let j = 0; j < T; j++) {
        let dot = 0;
        for (let c = 0; c < C; c++) dot += at(b, i, c) * at(b, j, c);
        for (let c = 0; c < C; c++) out[(b * T + i) * C + c] += dot * at(b, j, c);
      }
  return { data: out, shape: [B, T, C] };
}
`),
    ],
  },
  {
    id: 'self-attention/which-heatmap-next',
    step: 'self-attention',
    kind: 'predict',
    title: 'Which heatmap comes next?',
    prompt: 'These are the scores X·Xᵀ of a short sequence. Which of the heatmaps below are the attention weights that come next?',
    answer: {
      type: 'choice',
      label: 'weights',
      shown: (core, { x }) => core.attentionWithoutWeights(x).scores,
      choices: (core, { x }) => {
        const { scores, weights } = core.attentionWithoutWeights(x);
        const sum = core.attentionWithoutWeights(x, { normalization: 'sum' }).weights;
        const [, T] = scores.shape;
        const columns = new Float32Array(T * T); // softmax down each column: the wrong axis
        const byColumn = core.softmax({ data: transpose(scores.data, T), shape: [T, T] }).output.data;
        for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) columns[i * T + j] = byColumn[j * T + i];
        return [
          { label: 'each column sums to 1', tensor: { data: columns, shape: [T, T] } },
          { label: 'each row sums to 1, all weights positive', tensor: reshape2(weights, T) },
          { label: 'each row divided by its sum', tensor: reshape2(sum, T) },
        ];
      },
    },
    entry: answerEntry('the chosen heatmap\'s index, a tensor of shape [1]'),
    cases: [{ input: 'T=4, C=3', seed: 81, make: sequence(1, 4, 3) }],
    tolerance: { atol: 0, rtol: 0 },
    reference: () => tensorOf([1], [1]),
    hints: ['The softmax runs along each query\'s row: how much token i attends to each token j.', 'A softmax is never negative.'],
    solution: answerSource(1),
    wrong: [
      mistake('the softmax down the columns', answerSource(0)),
    ],
  },
  {
    id: 'weights/scaled-scores',
    step: 'weights',
    kind: 'write',
    title: 'Scaled attention scores',
    prompt: 'Project x into queries and keys (Q = X·W_query, K = X·W_key) and return the scaled scores Q·Kᵀ / √d_k for every batch.',
    entry: { name: 'scaledScores', params: ['x', 'wQuery', 'wKey'], returns: 'scaled (B, T, T)' },
    cases: [
      { input: 'B=1, T=6, d_in=3, d_out=2', seed: 91, make: projected(1, 6, 3, 2, ['wQuery', 'wKey']) },
      { input: 'T=1', seed: 92, make: projected(1, 1, 3, 2, ['wQuery', 'wKey']) },
      { input: 'B=2, T=4, d_in=4, d_out=8', seed: 93, make: projected(2, 4, 4, 8, ['wQuery', 'wKey']) },
    ],
    reference: (core, { x, wQuery, wKey }) => core.selfAttention(x, { query: wQuery, key: wKey, value: wKey }).scaled,
    hints: [
      'd_k is the width of the keys: wKey.shape[1].',
      'scaled[b][i][j] = (q_i · k_j) / √d_k.',
    ],
    starter: `${PROJECT}
export default function scaledScores(x, wQuery, wKey) {
  const q = project(x, wQuery);
  const k = project(x, wKey);
  const [B, T, d] = q.shape;
  const data = new Float32Array(B * T * T);
  return { data, shape: [B, T, T] };
}
`,
    solution: SCALED_SCORES,
    wrong: [
      mistake('scales by 1/d_k instead of 1/√d_k', edit(SCALED_SCORES, ['dot / Math.sqrt(d)', 'dot / d'])),
    ],
  },
  fixTheBug({
    id: 'weights/forgot-sqrt',
    step: 'weights',
    title: 'Fix the bug: self-attention without 1/√d_k',
    prompt: 'This self-attention forgets to scale the scores, so its softmax saturates as d_k grows. Fix it.',
    entry: { name: 'selfAttention', params: ['x', 'wQuery', 'wKey', 'wValue'], returns: 'output (B, T, d_out)' },
    cases: [
      { input: 'B=1, T=6, d_in=3, d_out=2', seed: 101, make: projected(1, 6, 3, 2, ['wQuery', 'wKey', 'wValue']) },
      { input: 'T=1', seed: 102, make: projected(1, 1, 3, 2, ['wQuery', 'wKey', 'wValue']) },
      { input: 'B=2, T=5, d_in=4, d_out=16', seed: 103, make: projected(2, 5, 4, 16, ['wQuery', 'wKey', 'wValue']) },
    ],
    reference: (core, { x, wQuery, wKey, wValue }) => core.selfAttention(x, { query: wQuery, key: wKey, value: wValue }).output,
    hints: ['Which line computes the scale?', 'scale = 1 / √d_k, with d_k the width of the queries and keys.'],
    starter: `${PROJECT}
${ATTEND('const scale = 1;')}
export default function selfAttention(x, wQuery, wKey, wValue) {
  return attend(project(x, wQuery), project(x, wKey), project(x, wValue));
}
`,
    solution: `${PROJECT}
${ATTEND('const scale = 1 / Math.sqrt(d);')}
export default function selfAttention(x, wQuery, wKey, wValue) {
  return attend(project(x, wQuery), project(x, wKey), project(x, wValue));
}
`,
  }),
  fixTheBug({
    id: 'weights/linear-layout',
    step: 'weights',
    title: 'Fix the bug: weights stored like nn.Linear',
    prompt: 'These weights are stored like torch.nn.Linear.weight, (d_out, d_in), and must be used as X·Wᵀ. The code reads them as if they were (d_in, d_out). Fix the projection.',
    entry: { name: 'selfAttention', params: ['x', 'wQuery', 'wKey', 'wValue'], returns: 'output (B, T, d_out)' },
    cases: [
      { input: 'B=1, T=6, d_in=3, d_out=2', seed: 111, make: linearLayout(1, 6, 3, 2) },
      { input: 'T=1', seed: 112, make: linearLayout(1, 1, 3, 2) },
      { input: 'B=2, T=4, d_in=4, d_out=4', seed: 113, make: linearLayout(2, 4, 4, 4) },
    ],
    reference: (core, { x, wQuery, wKey, wValue }) => core.selfAttention(x, { query: wQuery, key: wKey, value: wValue }, { layout: 'linear' }).output,
    hints: [
      'With W of shape (d_out, d_in), element (o, i) sits at w.data[o * dIn + i].',
      'd_out is w.shape[0] in this layout.',
    ],
    starter: `${PROJECT}
${ATTEND('const scale = 1 / Math.sqrt(d);')}
export default function selfAttention(x, wQuery, wKey, wValue) {
  // the weights are (d_out, d_in)
  const asMatrix = (w) => ({ data: w.data, shape: [w.shape[1], w.shape[0]] });
  return attend(project(x, asMatrix(wQuery)), project(x, asMatrix(wKey)), project(x, asMatrix(wValue)));
}
`,
    solution: `${PROJECT}
${ATTEND('const scale = 1 / Math.sqrt(d);')}
export default function selfAttention(x, wQuery, wKey, wValue) {
  // the weights are (d_out, d_in): transpose them into (d_in, d_out)
  const transposed = (w) => {
    const [dOut, dIn] = w.shape;
    const data = new Float32Array(dOut * dIn);
    for (let o = 0; o < dOut; o++) for (let i = 0; i < dIn; i++) data[i * dOut + o] = w.data[o * dIn + i];
    return { data, shape: [dIn, dOut] };
  };
  return attend(project(x, transposed(wQuery)), project(x, transposed(wKey)), project(x, transposed(wValue)));
}
`,
  }),
  {
    id: 'causal/neg-inf-mask',
    step: 'causal',
    kind: 'write',
    title: 'The causal mask with −∞',
    prompt: 'Given the scaled scores (B, T, T), set every future key (j > i) to −∞ and return the softmax of each row.',
    entry: { name: 'causalWeights', params: ['scaled'], returns: 'weights (B, T, T)' },
    cases: [
      { input: 'B=1, T=5', seed: 121, make: scores(1, 5) },
      { input: 'T=1', seed: 122, make: scores(1, 1) },
      { input: 'ties', seed: 123, make: () => ({ inputs: { scaled: tensorOf([1, 3, 3], [2, 2, 2, 2, 2, 2, 2, 2, 2]) } }) },
      { input: 'large logits', seed: 124, make: scores(2, 4, 500) },
    ],
    reference: (core, { scaled }) => core.softmax(maskFuture(scaled)).output,
    hints: [
      'Row i keeps keys 0..i; exp(−∞) = 0 removes the rest from the softmax.',
      'Subtract the row maximum over the kept keys before exp: the large-logit case needs it.',
    ],
    starter: `export default function causalWeights(scaled) {
  const [B, T] = scaled.shape;
  const data = new Float32Array(B * T * T);
  return { data, shape: [B, T, T] };
}
`,
    solution: CAUSAL_WEIGHTS('-Infinity'),
    wrong: [
      mistake('forgets the mask: every token sees the future', CAUSAL_WEIGHTS('scaled.data[r * T + j]')),
    ],
  },
  fixTheBug({
    id: 'causal/mask-with-zero',
    step: 'causal',
    title: 'Fix the bug: masking with 0 before the softmax',
    prompt: 'This code masks the future by setting its scores to 0 before the softmax. exp(0) = 1, so the future still gets weight. Fix it.',
    entry: { name: 'causalWeights', params: ['scaled'], returns: 'weights (B, T, T)' },
    cases: [
      { input: 'B=1, T=6', seed: 131, make: scores(1, 6) },
      { input: 'T=1', seed: 132, make: scores(1, 1) },
      { input: 'B=2, T=3, large logits', seed: 133, make: scores(2, 3, 300) },
    ],
    reference: (core, { scaled }) => core.softmax(maskFuture(scaled)).output,
    hints: ['What is exp(0)? What is exp(−∞)?', 'Mask with -Infinity, not 0.'],
    starter: CAUSAL_WEIGHTS('0'),
    solution: CAUSAL_WEIGHTS('-Infinity'),
  }),
];

function scores(B, T, scale = 1) {
  return (next) => ({ inputs: { scaled: randomTensor(next, [B, T, T], scale) } });
}

function linearLayout(B, T, dIn, dOut) {
  return (next) => {
    const inputs = { x: randomTensor(next, [B, T, dIn]) };
    for (const name of ['wQuery', 'wKey', 'wValue']) inputs[name] = randomTensor(next, [dOut, dIn], 0.7);
    return { inputs };
  };
}

function transpose(data, T) {
  const out = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) out[j * T + i] = data[i * T + j];
  return out;
}

function reshape2(tensor, T) {
  return { data: tensor.data, shape: [T, T] };
}
