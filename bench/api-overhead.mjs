// What the API layer costs per call, before and after a change, in one Node run: loads two copies of the
// core (this tree's web/src/core and another tree's, given as the first argument) and times the same calls
// through each, alternating rounds so machine load hits both alike. Prints median µs / ms per call.
//   node bench/api-overhead.mjs /path/to/other/tree [rounds]
// The calls: the six-token selfAttention of the page (d=3); a T=6 multi-head call (d=64, 4 heads,
// intermediates false: the fused kernel); causal multi-head attention at T=1024, d=768, 12 heads (the
// benchmark's layer, fused). WASM SIMD build in Node (no relaxed-SIMD tile there).
import { pathToFileURL } from 'node:url';
import { mulberry32 } from '../web/src/core/random.js';

const other = process.argv[2];
const rounds = Number(process.argv[3] ?? 7);
if (!other) throw new Error('usage: node bench/api-overhead.mjs /path/to/other/tree [rounds]');

const random = mulberry32(7);
const tensor = (shape) => ({ data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => random() - 0.5), shape });
const split = (d) => ({ query: tensor([d, d]), key: tensor([d, d]), value: tensor([d, d]), outWeight: tensor([d, d]), outBias: tensor([d]) });

const journey = tensor([6, 3]);
const journeyWeights = { query: tensor([3, 2]), key: tensor([3, 2]), value: tensor([3, 2]) };
const small = tensor([1, 6, 64]);
const smallWeights = split(64);
const large = tensor([1, 1024, 768]);
const largeWeights = split(768);

const CASES = [
  ['selfAttention T=6 d=3', (api) => api.selfAttention(journey, journeyWeights), 2000, 'µs'],
  ['multiheadAttentionSplit T=6 d=64 H=4 fused', (api) => api.multiheadAttentionSplit(small, smallWeights, { heads: 4, intermediates: false }), 2000, 'µs'],
  ['causal MHA T=1024 d=768 H=12 fused', (api) => api.multiheadAttentionSplit(large, largeWeights, { heads: 12, causal: true, intermediates: false }), 3, 'ms'],
];

async function load(root) {
  const { loadAttention } = await import(pathToFileURL(`${root}/web/src/core/index.js`).href);
  return loadAttention({ backend: 'wasm-simd', threads: 1 });
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const here = new URL('..', import.meta.url).pathname.replace(/\/$/, '');
const apis = { after: await load(here), before: await load(other) };
const times = {};
for (const [name, call, repeats] of CASES) {
  for (const api of Object.values(apis)) for (let i = 0; i < Math.min(repeats, 50); i++) call(api); // warm up
}
for (let round = 0; round < rounds; round++) {
  for (const [label, api] of Object.entries(round % 2 ? apis : Object.fromEntries(Object.entries(apis).reverse()))) {
    for (const [name, call, repeats] of CASES) {
      const start = performance.now();
      for (let i = 0; i < repeats; i++) call(api);
      const perCall = (performance.now() - start) / repeats;
      ((times[name] ??= {})[label] ??= []).push(perCall);
    }
  }
}
for (const [name, , , unit] of CASES) {
  const scale = unit === 'µs' ? 1000 : 1;
  const [before, after] = [median(times[name].before) * scale, median(times[name].after) * scale];
  console.log(`${name}: before ${before.toFixed(unit === 'µs' ? 1 : 1)} ${unit}, after ${after.toFixed(1)} ${unit} (median of ${rounds} rounds)`);
}
