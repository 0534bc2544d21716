#!/usr/bin/env node
// Trains the model behind the walk's "trained" weights (steps 6–10) with the project's own trainer, and writes
// web/src/ui/trained/walk-model.safetensors (parameters only, state_dict names; metadata: config, sentence,
// steps, final loss). Reproducible: the JS backend, seed 1, makeBatch('text') on the walk's default sentence.
//   node scripts/train-walk-model.mjs           (writes the file)
//   node scripts/train-walk-model.mjs --check   (exits 1 unless a fresh run gives the shipped file byte for byte)
// The sizes it fixes are the walk's when "trained" is on: T = 6 (the sentence's words), d_model = d_out = 4,
// 2 heads of 2, the sentence's six words as the vocabulary.
import { readFileSync, writeFileSync } from 'node:fs';
import { createTrainer, encodeSafetensors, makeBatch, tokenizeText } from '../web/src/train/index.js';

export const WALK_MODEL = {
  sentence: 'Your journey starts with one step', dModel: 4, heads: 2, layers: 1, seed: 1, lr: 0.03, batch: 16, steps: 300,
};

const { sentence, dModel, heads, layers, seed, lr, batch, steps } = WALK_MODEL;
const { vocabulary } = tokenizeText(sentence);
const T = vocabulary.length;
const trainer = await createTrainer({ vocabSize: vocabulary.length, contextLength: T, dModel, heads, layers, seed, backend: 'js', optimizer: { name: 'adamw', lr } });
let loss = null;
for (let step = 0; step < steps; step++) {
  ({ loss } = await trainer.step(makeBatch('text', { batch, contextLength: T, vocabSize: vocabulary.length, seed, step, text: sentence })));
}
const bytes = encodeSafetensors(trainer.parameters(), {
  format: 'pt',
  attention_playground: JSON.stringify({ version: 1, config: trainer.config, sentence, vocabulary, steps, loss }),
});
const file = new URL('../web/src/ui/trained/walk-model.safetensors', import.meta.url);
if (process.argv.includes('--check')) {
  const same = Buffer.compare(Buffer.from(bytes), readFileSync(file)) === 0;
  console.log(same ? 'walk model: the shipped file is reproduced byte for byte' : 'walk model: the shipped file differs from a fresh run');
  if (!same) process.exitCode = 1;
} else {
  writeFileSync(file, bytes);
  console.log(`walk model: ${steps} steps, last loss ${loss.toExponential(3)}, ${bytes.length} bytes`);
}
