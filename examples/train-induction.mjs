// Trains the two-layer attention-only transformer on the 'induction' task (docs/api.md "Training") until
// the masked loss falls below 0.1, then prints the induction head's attention and its score.
// Run from the repository root:
//   node examples/train-induction.mjs           (the WASM GEMM for the linear layers; JS if WASM cannot load)
//   node examples/train-induction.mjs js        (any backend createTrainer accepts)
// Seeded: the same backend gives the same run, step for step. With the default backend the loss first
// falls below 0.1 on the 192nd step (at most 1,000 are run); each step is a fresh batch (makeBatch's seed 1, step s).
import { createTrainer, inductionScore, makeBatch } from '../web/src/train/index.js';

const backend = process.argv[2] ?? 'auto';
const task = { vocabSize: 16, contextLength: 16 };
const trainer = await createTrainer({
  ...task, dModel: 32, heads: 2, layers: 2, seed: 1, backend, optimizer: { name: 'adamw', lr: 0.01 },
});
console.log(`backend: ${trainer.backend}`);

const MAX_STEPS = 1000;
let step = 0;
let loss = Infinity;
const started = performance.now();
for (; step < MAX_STEPS && loss >= 0.1; step++) {
  ({ loss } = await trainer.step(makeBatch('induction', { batch: 16, ...task, seed: 1, step })));
  if (step % 50 === 0) console.log(`step ${step}: loss ${loss.toFixed(4)}`);
}
const seconds = (performance.now() - started) / 1000;
console.log(`loss ${loss.toFixed(4)} < 0.1 after ${step} steps (${seconds.toFixed(1)} s)`);
if (loss >= 0.1) process.exitCode = 1;

// A held-out batch: the attention of every layer, and each layer's induction score.
const held = makeBatch('induction', { batch: 8, ...task, seed: 2, step: 0 });
const attention = await trainer.attention(held.inputs);
const scores = attention.map((weights) => inductionScore(weights, held.inputs));
scores.forEach((s, layer) => console.log(`layer ${layer}: induction score per head ${s.heads.map((h) => h.toFixed(3)).join(' ')}`));
const layer = scores.reduce((best, s, l) => (s.score > scores[best].score ? l : best), 0);
const { head, score } = scores[layer];
console.log(`induction head: layer ${layer}, head ${head}, score ${score.toFixed(3)}`);

// Its pattern on the first held-out sequence: row t is query t, '#' ≥ 0.5, '+' ≥ 0.2, '.' ≥ 0.05.
const T = task.contextLength;
const tokens = Array.from(held.inputs.data.subarray(0, T));
console.log(`tokens: ${tokens.join(' ')}`);
for (let t = 0; t < T; t++) {
  const row = attention[layer].data.subarray((head * T + t) * T, (head * T + t + 1) * T);
  const cells = Array.from(row, (w) => (w >= 0.5 ? '#' : w >= 0.2 ? '+' : w >= 0.05 ? '.' : ' ')).join('');
  console.log(`${String(t).padStart(2)} ${String(tokens[t]).padStart(2)} |${cells}|`);
}
