// web/src/core/torch-random.js against PyTorch 1.13's own numbers (tests/fixtures/torchRandom.json, written
// by tests/fixtures/torch_random.py): every float32 must have the same bits.
import { readFileSync } from 'node:fs';
import { describe, expect, test } from 'vitest';
import { TorchGenerator, manualSeed } from '../../web/src/core/torch-random.js';

const FIXTURE = JSON.parse(readFileSync(new URL('../fixtures/torchRandom.json', import.meta.url), 'utf8'));
const bitsOf = (values) => Array.from(new Uint32Array(Float32Array.from(values).buffer));
const count = (shape) => shape.reduce((a, b) => a * b, 1);

describe('TorchGenerator reproduces torch 1.13 bit for bit', () => {
  for (const c of FIXTURE.cases) {
    test(`${c.kind}, seed ${c.seed}`, () => {
      const generator = manualSeed(c.seed);
      if (c.kind === 'rand') {
        for (const draw of c.draws) expect(bitsOf(generator.rand(count(draw.shape)))).toEqual(draw.bits);
      } else if (c.kind === 'uniform') {
        expect(bitsOf(generator.uniform(c.count, c.from, c.to))).toEqual(c.bits);
      } else {
        for (const layer of c.layers) {
          const made = generator.linear(layer.in, layer.out, { bias: layer.bias });
          expect(made.weight.shape).toEqual([layer.out, layer.in]);
          expect(bitsOf(made.weight.data)).toEqual(layer.weight);
          if (layer.bias) expect(bitsOf(made.bias.data)).toEqual(layer.biasBits);
          else expect(made.bias).toBeNull();
        }
      }
    });
  }

  test('the book’s numbers (Raschka ch. 3) to four decimals', () => {
    const round = (values) => Array.from(values, (v) => Number(v.toFixed(4)));
    expect(round(manualSeed(123).rand(6))).toEqual([0.2961, 0.5166, 0.2517, 0.6886, 0.0740, 0.8665]);
    expect(round(manualSeed(789).linear(3, 2, { bias: false }).weight.data)).toEqual([0.3161, 0.4568, 0.5118, -0.1683, -0.3379, -0.0918]);
  });
});

describe('bad input', () => {
  test('names the function, the argument and the value', () => {
    expect(() => new TorchGenerator(-1)).toThrow(/TorchGenerator: seed=-1/);
    expect(() => new TorchGenerator(1.5)).toThrow(/seed=1.5/);
    expect(() => manualSeed(1).rand(-2)).toThrow(/TorchGenerator.rand: count=-2/);
    expect(() => manualSeed(1).uniform(2, 1, 0)).toThrow(/from=1, to=0/);
    expect(() => manualSeed(1).linear(0, 2)).toThrow(/TorchGenerator.linear: inFeatures=0/);
  });
});
