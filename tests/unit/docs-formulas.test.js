// The formulas docs/api.md "Training" writes out, recomputed here from its words alone: the parameters' names,
// shapes and order (the state_dict table), their "normal" initialisation, and the saved file's metadata.
import { describe, expect, test } from 'vitest';
import { createTrainer, decodeSafetensors, initParameters, parameterSpec } from '../../web/src/train/index.js';
import { mulberry32 } from '../../web/src/core/random.js';

const config = { vocabSize: 5, contextLength: 3, dModel: 4, heads: 2, layers: 2, layerNorm: true };

describe('docs/api.md "The model"', () => {
  test('the parameters are the state_dict of the table, in its order', () => {
    const { vocabSize: V, contextLength: T, dModel: d } = config;
    const block = (l) => [[`blocks.${l}.ln.weight`, [d]], [`blocks.${l}.ln.bias`, [d]],
      ...['q', 'k', 'v', 'out'].flatMap((p) => [[`blocks.${l}.${p}_proj.weight`, [d, d]], [`blocks.${l}.${p}_proj.bias`, [d]]])];
    expect(parameterSpec(config).map(([name, shape]) => [name, shape])).toEqual([
      ['tok_emb.weight', [V, d]], ['pos_emb.weight', [T, d]], ...block(0), ...block(1),
      ['ln_final.weight', [d]], ['ln_final.bias', [d]], ['unembed.weight', [V, d]], ['unembed.bias', [V]],
    ]);
    expect(parameterSpec({ ...config, layerNorm: false }).map(([name]) => name).filter((n) => n.includes('ln'))).toEqual([]);
  });

  test('"normal": one mulberry32(seed) stream, 0.02·√(−2 ln u₁)·cos(2π u₂) per element; LayerNorm 1 and 0; biases 0', () => {
    const seed = 7;
    const next = mulberry32(seed);
    const parameters = initParameters(config, seed);
    for (const [name, shape] of parameterSpec(config)) {
      const { data } = parameters[name];
      expect(parameters[name].shape, name).toEqual(shape);
      if (name.endsWith('ln.weight') || name === 'ln_final.weight') expect(data.every((v) => v === 1), name).toBe(true);
      else if (name.endsWith('.bias')) expect(data.every((v) => v === 0), name).toBe(true);
      else {
        const expected = Float32Array.from(data, () => {
          const u1 = 1 - next();
          const u2 = next();
          return 0.02 * Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
        });
        expect(data, name).toEqual(expected);
      }
    }
  });
});

describe('docs/api.md "The saved file"', () => {
  test('F32 parameters and AdamW state under their names; metadata format, optimizer_step and the config', async () => {
    const trainer = await createTrainer({ ...config, seed: 3, backend: 'js' });
    const inputs = { data: Int32Array.of(1, 2, 3), shape: [1, 3] };
    await trainer.step({ inputs, targets: { data: Int32Array.of(2, 3, 4), shape: [1, 3] } });
    const { tensors, metadata } = decodeSafetensors(trainer.save());
    const names = parameterSpec(config).map(([name]) => name);
    expect(Object.keys(tensors).sort()).toEqual([...names, ...names.map((n) => `optimizer.exp_avg.${n}`),
      ...names.map((n) => `optimizer.exp_avg_sq.${n}`)].sort());
    expect(tensors['tok_emb.weight'].data).toEqual(trainer.parameters()['tok_emb.weight'].data);
    expect(metadata.format).toBe('pt');
    expect(metadata.optimizer_step).toBe('1');
    const saved = JSON.parse(metadata.attention_playground);
    expect(saved.version).toBe(1);
    expect(saved.config).toEqual(trainer.config);
  });
});
