// Seed 003's Exercises 3.1–3.3, adapted: the weights of the two self-attention layouts, d_out = 1 in the
// wrapper of two heads, and the parameter count of a GPT-2-size multi-head attention.
import { identity, randomTensor, tensorOf } from '../tensors.js';
import { answerEntry, answerSource, mistake } from './authoring.js';

const linearWeight = (dIn, dOut) => (next) => ({ inputs: { linearWeight: randomTensor(next, [dOut, dIn]) } });

export const SEED_003_EXERCISES = [
  {
    id: 'weights/transfer-v2-to-v1',
    step: 'weights',
    kind: 'write',
    seed: 'Exercise 3.1',
    title: 'Transfer weights from SelfAttention_v2 to SelfAttention_v1',
    prompt: 'SelfAttention_v2 keeps nn.Linear weights, (d_out, d_in), used as X·Wᵀ; SelfAttention_v1 keeps nn.Parameter matrices (d_in, d_out), used as X·W. Return the v1 matrix that makes both produce the same output.',
    entry: { name: 'transferWeights', params: ['linearWeight'], returns: 'the v1 matrix (d_in, d_out)' },
    cases: [
      { input: 'd_in=3, d_out=2 (the book\'s sizes)', seed: 221, make: linearWeight(3, 2) },
      { input: 'd_in=1, d_out=1', seed: 222, make: linearWeight(1, 1) },
      { input: 'd_in=4, d_out=6', seed: 223, make: linearWeight(4, 6) },
    ],
    // I·Wᵀ through the core's matmul (transposeB reads b as (N, K)): exactly the v1 matrix.
    reference: (core, { linearWeight }) => core.matmul(identity(linearWeight.shape[1]), linearWeight, { transposeB: true }).output,
    hints: ['nn.Linear stores its weight transposed.', 'attention_v1.W_query.data = attention_v2.W_query.weight.T: return the transpose.'],
    starter: `export default function transferWeights(linearWeight) {
  const [dOut, dIn] = linearWeight.shape;
  const data = new Float32Array(dIn * dOut);
  return { data, shape: [dIn, dOut] };
}
`,
    solution: `export default function transferWeights(linearWeight) {
  const [dOut, dIn] = linearWeight.shape;
  const data = new Float32Array(dIn * dOut);
  for (let o = 0; o < dOut; o++) for (let i = 0; i < dIn; i++) data[i * dOut + o] = linearWeight.data[o * dIn + i];
  return { data, shape: [dIn, dOut] };
}
`,
    wrong: [
      mistake('copies the data and only relabels the shape (no transpose)', `export default function transferWeights(linearWeight) {
  const [dOut, dIn] = linearWeight.shape;
  return { data: Float32Array.from(linearWeight.data), shape: [dIn, dOut] };
}
`, { case: 0, index: 1 }),
    ],
  },
  {
    id: 'multihead/two-dimensional-output',
    step: 'multihead',
    kind: 'predict',
    seed: 'Exercise 3.2',
    title: 'Two heads, two-dimensional context vectors',
    prompt: 'MultiHeadAttentionWrapper(d_in=3, d_out, context_length, 0.0, num_heads=2) concatenates its heads. Which d_out makes the context vectors two-dimensional, keeping num_heads=2?',
    answer: { type: 'estimate', label: 'd_out' },
    entry: answerEntry('d_out, a tensor of shape [1]'),
    cases: [{ input: 'd_in=3, num_heads=2', seed: 231, make: (next) => ({ inputs: { x: randomTensor(next, [1, 6, 3]) } }) }],
    tolerance: { atol: 0, rtol: 0 },
    // The wrapper stacks heads of width d_out each: ask the core which d_out gives a context of width 2.
    reference: (core, { x }) => {
      for (let dOut = 1; dOut <= 4; dOut++) {
        const head = () => ({ query: tensorOf([3, dOut], new Array(3 * dOut).fill(0.1)), key: tensorOf([3, dOut], new Array(3 * dOut).fill(0.2)), value: tensorOf([3, dOut], new Array(3 * dOut).fill(0.3)) });
        const { context } = core.multiheadAttentionStacked(x, { heads: [head(), head()] });
        if (context.shape[2] === 2) return tensorOf([1], [dOut]);
      }
      throw new Error('multihead/two-dimensional-output: no d_out from 1 to 4 gives a context of width 2');
    },
    hints: ['Each head of the wrapper outputs d_out features.', 'Two heads concatenated: 2 · d_out = 2.'],
    solution: answerSource(1),
    wrong: [
      mistake('d_out = 2 gives 4 features: each head has d_out of its own', answerSource(2)),
    ],
  },
  {
    id: 'multihead/gpt2-parameter-count',
    step: 'multihead',
    kind: 'predict',
    seed: 'Exercise 3.3',
    title: 'The parameters of a GPT-2-size multi-head attention',
    prompt: 'MultiHeadAttention(d_in=768, d_out=768, context_length=1024, dropout=0.0, num_heads=12, qkv_bias=False), with out_proj = nn.Linear(d_out, d_out) (it has a bias). How many trainable parameters does it have?',
    answer: { type: 'estimate', label: 'parameters' },
    entry: answerEntry('the count, a tensor of shape [1]'),
    cases: [{ input: 'GPT-2 small: d=768, 12 heads', seed: 241, make: () => ({ inputs: {} }) }],
    tolerance: { atol: 0.5, rtol: 0 },
    // The weights the core's split multi-head attention takes at this size; it runs them (one token, so it
    // is quick) to confirm they are exactly the module's parameters, and their sizes are the count.
    reference: (core) => {
      const d = 768;
      const matrix = () => ({ data: new Float32Array(d * d), shape: [d, d] });
      const weights = { query: matrix(), key: matrix(), value: matrix(), outWeight: matrix(), outBias: { data: new Float32Array(d), shape: [d] } };
      core.multiheadAttentionSplit({ data: new Float32Array(d), shape: [1, 1, d] }, weights, { heads: 12 });
      return tensorOf([1], [Object.values(weights).reduce((n, t) => n + t.data.length, 0)]);
    },
    hints: [
      'W_query, W_key and W_value are each 768 × 768, without biases.',
      'out_proj is another 768 × 768 plus a bias of 768. The causal mask is a buffer, not a parameter.',
    ],
    solution: answerSource('4 * 768 * 768 + 768'),
    wrong: [
      mistake('forgets the output projection\'s bias', answerSource('4 * 768 * 768')),
    ],
  },
];
