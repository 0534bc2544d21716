// The shipped English model in Node (docs/model.md): the time to read and decode its file (float16 → float32,
// the tokenizer built from its merges) and one forward of a 64-token sentence through the model interface (the JS
// forward: float64 sums), each the median of RUNS runs after one warm-up. Prints the figures; not a test.
//   node bench/english-model.mjs
import { readFileSync } from 'node:fs';
import { ENGLISH_MODEL_URL, modelFromSafetensors } from '../web/src/model/index.js';

const RUNS = 9;
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
function time(fn) {
  fn();
  const times = [];
  for (let i = 0; i < RUNS; i++) {
    const started = performance.now();
    fn();
    times.push(performance.now() - started);
  }
  return median(times);
}

const bytes = new Uint8Array(readFileSync(ENGLISH_MODEL_URL));
const load = time(() => modelFromSafetensors(bytes));
const model = modelFromSafetensors(bytes);
const text = 'Attention lets every token look back at the ones before it, and a trained head learns where to look: at the previous word, at the first token, or at the word that followed this one last time.';
const tokens = Array.from(model.tokenizer.encode(text)).slice(0, 64);
if (tokens.length !== 64) throw new Error(`bench: the sentence has ${tokens.length} tokens; expected at least 64`);
const forward = time(() => model.forward(tokens));
const withIntermediates = time(() => model.forward(tokens, { intermediates: true }));
console.log(`file ${(bytes.length / 1e6).toFixed(2)} MB; decode ${load.toFixed(1)} ms; forward of 64 tokens ${forward.toFixed(1)} ms (${withIntermediates.toFixed(1)} ms with intermediates); median of ${RUNS}`);
