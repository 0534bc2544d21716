// ms per training step of the trainer in Node, per backend, for the tiny and small models.
// Wall time and this process's CPU time (the CPU time is the fairer figure on a shared machine).
//   node bench/train-node.mjs [tiny|small] [steps] [backend ...]
import { createTrainer, makeBatch } from '../web/src/train/index.js';

const SIZES = {
  tiny: { vocabSize: 32, contextLength: 32, dModel: 64, heads: 4, layers: 2, batch: 32 },
  small: { vocabSize: 256, contextLength: 128, dModel: 256, heads: 8, layers: 4, batch: 16 },
};
const [size = 'tiny', stepsArg = '20', ...backends] = process.argv.slice(2);
const { batch, ...model } = SIZES[size];
const steps = Number(stepsArg);
for (const backend of backends.length ? backends : ['js', 'wasm-simd', 'wasm-baseline']) {
  const trainer = await createTrainer({ ...model, seed: 1, backend });
  const batches = Array.from({ length: 3 + steps }, (_, step) => makeBatch('induction', {
    batch, contextLength: model.contextLength, vocabSize: model.vocabSize, seed: 1, step }));
  for (let s = 0; s < 3; s++) await trainer.step(batches[s]); // warm-up
  const cpu = process.cpuUsage();
  const wall = performance.now();
  for (let s = 3; s < 3 + steps; s++) await trainer.step(batches[s]);
  const wallMs = (performance.now() - wall) / steps;
  const { user, system } = process.cpuUsage(cpu);
  const cpuMs = (user + system) / 1000 / steps;
  console.log(`${size} ${trainer.backend}: ${wallMs.toFixed(1)} ms/step wall, ${cpuMs.toFixed(1)} ms/step CPU (${steps} steps, B=${batch}, T=${model.contextLength}, d=${model.dModel}, H=${model.heads}, L=${model.layers}, V=${model.vocabSize})`);
}
