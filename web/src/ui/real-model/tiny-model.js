// The built-in tiny model of the Real model view: GPT-2's layout at the fixtures' size (tests/fixtures/gpt2:
// 287-token vocabulary from scripts/gpt2/tiny-tokenizer.mjs, 32 positions, d_model 32, 4 heads, 2 layers),
// its weights drawn here from a seed rather than shipped (they are random either way: the view says it is
// untrained), so the page gains no weights file.
import { mulberry32 } from '../../core/random.js';
import { createBpeTokenizer, parseMerges } from '../../gpt2/bpe-tokenizer.js';
import { gpt2Config, gpt2ParameterShapes } from '../../gpt2/checkpoint.js';
import config from './tiny/config.json';
import merges from './tiny/merges.txt?raw';
import vocab from './tiny/vocab.json';

const SEED = 23;
// Large enough for the attention to be far from uniform (GPT-2's own 0.02 would draw flat heads).
const STD = { 'wte.weight': 0.5, 'wpe.weight': 0.3, 'attn.c_attn.weight': 0.35 };

/** {config, parameters, tokenizer} of the tiny untrained model. */
export function tinyCheckpoint() {
  const parsed = gpt2Config(config, 'tiny/config.json');
  const uniform = mulberry32(SEED);
  const normal = () => Math.sqrt(-2 * Math.log(1 - uniform())) * Math.cos(2 * Math.PI * uniform());
  const parameters = {};
  for (const [name, shape] of Object.entries(gpt2ParameterShapes(parsed))) {
    const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
    const isNorm = /ln_\d|ln_f/.test(name);
    const std = STD[name] ?? STD[name.replace(/^h\.\d+\./, '')] ?? (isNorm ? 0.1 : 0.2);
    for (let i = 0; i < data.length; i++) data[i] = (isNorm && name.endsWith('.weight') ? 1 : 0) + std * normal();
    parameters[name] = { data, shape };
  }
  const tokenizer = createBpeTokenizer({ vocab, merges: parseMerges(merges, 'tiny/merges.txt'), specialTokens: ['<|endoftext|>'], source: 'the tiny model' });
  return { config: parsed, parameters, tokenizer };
}
