// Steps 10–11: splitting and merging heads, and cross-attention with Tq ≠ Tk.
import { columnBlock, maskedCells, randomTensor, reshape, stackAxis1 } from '../tensors.js';
import { answerEntry, mistake } from './authoring.js';

/** x (B, T, d_in) and one projection (d_in, d_out) used for query, key and value. */
const splitCase = (B, T, dIn, dOut, heads) => (next, core) => {
  const x = randomTensor(next, [B, T, dIn]);
  const w = randomTensor(next, [dIn, dOut], 0.7);
  const query = core.selfAttention(x, { query: w, key: w, value: w }).query;
  return { inputs: { query, x, w }, options: { heads } };
};

/** Each head's own attention output (B, T, d_head), stacked (B, H, T, d_head), from the column blocks of W. */
const mergeCase = (B, T, dIn, dOut, heads) => (next, core) => {
  const x = randomTensor(next, [B, T, dIn]);
  const [wq, wk, wv] = [0, 1, 2].map(() => randomTensor(next, [dIn, dOut], 0.7));
  const dHead = dOut / heads;
  const perHead = [];
  for (let h = 0; h < heads; h++) {
    const block = (w) => columnBlock(w, h * dHead, dHead);
    perHead.push(core.selfAttention(x, { query: block(wq), key: block(wk), value: block(wv) }).output);
  }
  return { inputs: { heads: stackAxis1(perHead), x, wq, wk, wv } };
};

/** Two sequences of different lengths and cross-attention's projections to d_out. */
const crossCase = (B, Tq, Tk, dQ, dKv, dOut) => (next) => ({
  inputs: {
    xQuery: randomTensor(next, [B, Tq, dQ]),
    xContext: randomTensor(next, [B, Tk, dKv]),
    projection: {
      query: randomTensor(next, [dQ, dOut], 0.8),
      key: randomTensor(next, [dKv, dOut], 0.8),
      value: randomTensor(next, [dKv, dOut], 0.8),
    },
  },
});

/** The same case with the query and key (B, T, d) as the learner's inputs. */
const crossProjected = (B, Tq, Tk, dQ, dKv, dOut, scale = 1) => (next, core) => {
  const { inputs } = crossCase(B, Tq, Tk, dQ, dKv, dOut)(next);
  if (scale !== 1) for (const t of [inputs.xQuery, inputs.xContext]) t.data.forEach((v, i) => { t.data[i] = v * scale; });
  const result = core.crossAttention(inputs.xQuery, inputs.xContext, inputs.projection);
  return { inputs: { ...inputs, query: reshape(result.query, [B, Tq, dOut]), key: reshape(result.key, [B, Tk, dOut]) } };
};

const SPLIT = (index) => `export default function splitHeads(query, { heads }) {
  const [B, T, dOut] = query.shape;
  const dHead = dOut / heads;
  const data = new Float32Array(query.data.length);
  for (let b = 0; b < B; b++)
    for (let h = 0; h < heads; h++)
      for (let t = 0; t < T; t++)
        for (let c = 0; c < dHead; c++)
          data[((b * heads + h) * T + t) * dHead + c] = query.data[${index}];
  return { data, shape: [B, heads, T, dHead] };
}
`;

const MERGE = (index) => `export default function mergeHeads(heads) {
  const [B, H, T, dHead] = heads.shape;
  const data = new Float32Array(heads.data.length);
  for (let b = 0; b < B; b++)
    for (let t = 0; t < T; t++)
      for (let h = 0; h < H; h++)
        for (let c = 0; c < dHead; c++)
          data[(b * T + t) * H * dHead + h * dHead + c] = heads.data[${index}];
  return { data, shape: [B, T, H * dHead] };
}
`;

const CROSS = (scale) => `export default function crossWeights(query, key) {
  const [B, Tq, d] = query.shape;
  const Tk = key.shape[1];
  const data = new Float32Array(B * Tq * Tk);
  for (let b = 0; b < B; b++)
    for (let i = 0; i < Tq; i++) {
      const scores = [];
      for (let j = 0; j < Tk; j++) {
        let dot = 0;
        for (let c = 0; c < d; c++) dot += query.data[(b * Tq + i) * d + c] * key.data[(b * Tk + j) * d + c];
        scores.push(dot${scale});
      }
      const max = Math.max(...scores);
      const exps = scores.map((s) => Math.exp(s - max));
      const sum = exps.reduce((a, e) => a + e, 0);
      for (let j = 0; j < Tk; j++) data[(b * Tq + i) * Tk + j] = exps[j] / sum;
    }
  return { data, shape: [B, Tq, Tk] };
}
`;

export const HEAD_EXERCISES = [
  {
    id: 'multihead/split-heads',
    step: 'multihead',
    kind: 'write',
    title: 'Split the queries into heads',
    prompt: 'Split the queries (B, T, d_out) into H heads of d_head = d_out / H columns each and put the head axis before the tokens: (B, H, T, d_head). Head h owns columns h·d_head … (h+1)·d_head − 1.',
    entry: { name: 'splitHeads', params: ['query'], options: '{heads}', returns: 'query (B, H, T, d_head)' },
    cases: [
      { input: 'B=1, T=6, d_out=4, H=2', seed: 181, make: splitCase(1, 6, 3, 4, 2) },
      { input: 'T=1, H=3', seed: 182, make: splitCase(1, 1, 3, 6, 3) },
      { input: 'B=2, T=4, d_out=8, H=4', seed: 183, make: splitCase(2, 4, 5, 8, 4) },
      { input: 'H=1 (one head)', seed: 184, make: splitCase(1, 3, 2, 4, 1) },
    ],
    reference: (core, { x, w }, { heads }) => core.multiheadAttentionSplit(x, { query: w, key: w, value: w }, { heads }).query,
    hints: [
      'In PyTorch: query.view(B, T, H, d_head).transpose(1, 2).',
      'Viewing (B, T, d_out) straight as (B, H, T, d_head) mixes tokens and heads: the transpose matters.',
      'Output element (b, h, t, c) reads input element (b, t, h·d_head + c).',
    ],
    starter: `export default function splitHeads(query, { heads }) {
  const [B, T, dOut] = query.shape;
  const dHead = dOut / heads;
  const data = new Float32Array(query.data.length);
  return { data, shape: [B, heads, T, dHead] };
}
`,
    solution: SPLIT('(b * T + t) * dOut + h * dHead + c'),
    wrong: [
      mistake('a plain view as (B, H, T, d_head) without the transpose', SPLIT('((b * heads + h) * T + t) * dHead + c'), { case: 0, index: 2 }),
    ],
  },
  {
    id: 'multihead/merge-heads',
    step: 'multihead',
    kind: 'write',
    title: 'Merge the heads back',
    prompt: 'Each head attended on its own; its outputs are stacked as (B, H, T, d_head). Concatenate the heads along the features for every token: (B, T, H·d_head). Stacked heads and split heads give the same context.',
    entry: { name: 'mergeHeads', params: ['heads'], returns: 'context (B, T, H·d_head)' },
    cases: [
      { input: 'B=1, T=6, H=2, d_head=2', seed: 191, make: mergeCase(1, 6, 3, 4, 2) },
      { input: 'T=1, H=4', seed: 192, make: mergeCase(1, 1, 3, 8, 4) },
      { input: 'B=2, T=3, H=3, d_head=1', seed: 193, make: mergeCase(2, 3, 2, 3, 3) },
    ],
    reference: (core, { x, wq, wk, wv, heads }) => core.multiheadAttentionSplit(x, { query: wq, key: wk, value: wv }, { heads: heads.shape[1] }).context,
    hints: [
      'In PyTorch: context.transpose(1, 2).contiguous().view(B, T, H * d_head).',
      'Output element (b, t, h·d_head + c) reads input element (b, h, t, c).',
    ],
    starter: `export default function mergeHeads(heads) {
  const [B, H, T, dHead] = heads.shape;
  const data = new Float32Array(heads.data.length);
  return { data, shape: [B, T, H * dHead] };
}
`,
    solution: MERGE('((b * H + h) * T + t) * dHead + c'),
    wrong: [
      mistake('a plain view as (B, T, H·d_head) without the transpose', MERGE('(b * T + t) * H * dHead + h * dHead + c'), { case: 0, index: 2 }),
    ],
  },
  {
    id: 'cross/cross-weights',
    step: 'cross',
    kind: 'write',
    title: 'Cross-attention weights with Tq ≠ Tk',
    prompt: 'The queries come from one sequence (B, Tq, d) and the keys from another (B, Tk, d). Return the weights softmax(Q·Kᵀ / √d), one row per query: (B, Tq, Tk).',
    entry: { name: 'crossWeights', params: ['query', 'key'], returns: 'weights (B, Tq, Tk)' },
    cases: [
      { input: 'Tq=4, Tk=6, d=2', seed: 201, make: crossProjected(1, 4, 6, 3, 5, 2) },
      { input: 'Tq=1', seed: 202, make: crossProjected(1, 1, 3, 3, 3, 4) },
      { input: 'Tk=1', seed: 203, make: crossProjected(1, 3, 1, 2, 4, 4) },
      { input: 'B=2, large logits', seed: 204, make: crossProjected(2, 3, 5, 3, 3, 4, 40) },
    ],
    reference: (core, { xQuery, xContext, projection }) => {
      const { weights } = core.crossAttention(xQuery, xContext, projection);
      const [B, , Tq, Tk] = weights.shape;
      return reshape(weights, [B, Tq, Tk]);
    },
    hints: ['Row i holds query i against every key j: Tk columns, not Tq.', 'Scale by 1/√d before the softmax, and subtract the row maximum.'],
    starter: `export default function crossWeights(query, key) {
  const [B, Tq, d] = query.shape;
  const Tk = key.shape[1];
  const data = new Float32Array(B * Tq * Tk);
  return { data, shape: [B, Tq, Tk] };
}
`,
    solution: CROSS(' / Math.sqrt(d)'),
    wrong: [
      mistake('forgets 1/√d_head', CROSS('')),
    ],
  },
  {
    id: 'cross/predict-causal-cells',
    step: 'cross',
    kind: 'predict',
    title: 'A causal mask when Tq ≠ Tk',
    prompt: 'With 3 queries and 5 keys and causal on (top-left aligned, as torch.tril), click every cell the mask sets to −∞.',
    answer: { type: 'cells', label: 'masked (Tq, Tk)', shape: [3, 5] },
    entry: answerEntry('a (3, 5) tensor, 1 where masked and 0 elsewhere'),
    cases: [{ input: 'Tq=3, Tk=5', seed: 211, make: crossCase(1, 3, 5, 2, 2, 2) }],
    reference: (core, { xQuery, xContext, projection }) => maskedCells(reshape(core.crossAttention(xQuery, xContext, projection, { causal: true }).masked, [3, 5])),
    hints: ['Query i keeps keys j ≤ i, whatever Tk is.', 'Row 0 keeps only key 0; row 2 keeps keys 0, 1 and 2.'],
    solution: `export default () => {
  const data = new Float32Array(15);
  for (let i = 0; i < 3; i++) for (let j = i + 1; j < 5; j++) data[i * 5 + j] = 1;
  return { data, shape: [3, 5] };
};
`,
    wrong: [
      mistake('bottom-right aligned: the last query sees every key', `export default () => {
  const data = new Float32Array(15);
  for (let i = 0; i < 3; i++) for (let j = i + 3; j < 5; j++) data[i * 5 + j] = 1;
  return { data, shape: [3, 5] };
};
`, { case: 0, index: 1 }),
    ],
  },
];
