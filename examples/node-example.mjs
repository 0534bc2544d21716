// Self-attention on the six-token sentence "Your journey starts with one step" (DESIGN.md steps 5–6),
// first without trainable weights, then with query/key/value projections, through the same API the
// page uses. Run from the repository root:
//   node examples/node-example.mjs            (WASM, falling back to the JS reference)
//   node examples/node-example.mjs js         (any backend name loadAttention accepts)
import { loadAttention } from '../web/src/core/index.js';

const tokens = ['Your', 'journey', 'starts', 'with', 'one', 'step'];
// One 3-d embedding per token, (T, C) = (6, 3): unbatched, as PyTorch allows.
const x = {
  data: new Float32Array([
    0.43, 0.15, 0.89, // Your
    0.55, 0.87, 0.66, // journey
    0.57, 0.85, 0.64, // starts
    0.22, 0.58, 0.33, // with
    0.77, 0.25, 0.10, // one
    0.05, 0.80, 0.55, // step
  ]),
  shape: [6, 3],
};

const attention = await loadAttention({ backend: process.argv[2] ?? 'auto' });
console.log(`backend: ${attention.backend}${attention.fallbackReason ? ` (fallback: ${attention.fallbackReason})` : ''}`);

const row = (tensor, t) => Array.from(tensor.data.subarray(t * tensor.shape[1], (t + 1) * tensor.shape[1]));
const format = (values) => values.map((v) => v.toFixed(4)).join(' ');
function printRows(title, tensor) {
  console.log(`${title} ${JSON.stringify(tensor.shape)}`);
  tokens.forEach((token, t) => console.log(`  ${token.padEnd(8)} ${format(row(tensor, t))}`));
}

// Step 5: scores = X·Xᵀ, weights = softmax of each row, output = weights·X.
const plain = attention.attentionWithoutWeights(x);
printRows('without weights: weights (row t: how much token t attends to each token)', plain.weights);
printRows('without weights: output (the context vector of each token)', plain.output);

// Step 6: Q = X·Wq, K = X·Wk, V = X·Wv with (d_in=3, d_out=2) matrices (torch.manual_seed(123); torch.rand),
// weights = softmax(Q·Kᵀ/√2), output = weights·V.
const projection = (data) => ({ data: new Float32Array(data), shape: [3, 2] });
const trained = attention.selfAttention(x, {
  query: projection([0.2961, 0.5166, 0.2517, 0.6886, 0.0740, 0.8665]),
  key: projection([0.1366, 0.1025, 0.1841, 0.7264, 0.3153, 0.6871]),
  value: projection([0.0756, 0.1966, 0.3164, 0.4017, 0.1186, 0.8274]),
});
printRows('selfAttention: weights', trained.weights);
printRows('selfAttention: output', trained.output);
