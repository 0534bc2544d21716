// The training tasks, the induction score and the trainer's own promises (reproducibility, save/load).
import { describe, expect, it } from 'vitest';
import {
  CORPUS, createTrainer, decodeSafetensors, inductionScore, initParameters, loadTrainer, makeBatch, parameterSpec,
  taskVocabulary, tokenizeText,
} from '../../web/src/train/index.js';

const options = { batch: 3, contextLength: 8, vocabSize: 10, seed: 5, step: 2 };
const row = (t, b, T = 8) => Array.from(t.data.subarray(b * T, (b + 1) * T));

describe('makeBatch', () => {
  it('is a pure function of the task, the seed and the step', () => {
    for (const task of ['corpus', 'previous', 'copy', 'reverse', 'sort', 'induction']) {
      const vocabSize = task === 'corpus' ? taskVocabulary('corpus').length : 10;
      const a = makeBatch(task, { ...options, vocabSize });
      expect(a.inputs.shape).toEqual([3, 8]);
      expect(a.inputs.data).toBeInstanceOf(Int32Array);
      expect(makeBatch(task, { ...options, vocabSize })).toEqual(a);
      expect(makeBatch(task, { ...options, vocabSize, step: 3 })).not.toEqual(a);
    }
  });
  it("'previous': target t is input t − 1, the first ignored", () => {
    const { inputs, targets } = makeBatch('previous', options);
    expect(row(targets, 1)).toEqual([-100, ...row(inputs, 1).slice(0, 7)]);
  });
  it("'copy', 'reverse', 'sort': half, separator 0, the answer; the first half's targets ignored", () => {
    const copy = makeBatch('copy', options);
    const x = row(copy.inputs, 0);
    expect(x[4]).toBe(0);
    expect(x.slice(5)).toEqual(x.slice(0, 3));
    expect(row(copy.targets, 0)).toEqual([-100, -100, -100, -100, ...x.slice(0, 4)]);
    const odd = makeBatch('copy', { ...options, contextLength: 7 });
    const y = row(odd.inputs, 0, 7);
    expect(row(odd.targets, 0, 7)).toEqual([-100, -100, -100, y[4], y[5], y[6], -100]);
    const rev = makeBatch('reverse', options);
    const r = row(rev.inputs, 0);
    expect(row(rev.targets, 0).slice(4)).toEqual(r.slice(0, 4).reverse());
    const sort = makeBatch('sort', options);
    const s = row(sort.inputs, 2);
    expect(row(sort.targets, 2).slice(4)).toEqual(s.slice(0, 4).sort((p, q) => p - q));
  });
  it("'induction': T/2 distinct tokens repeated, loss on the repeat only", () => {
    const { inputs, targets } = makeBatch('induction', options);
    const x = row(inputs, 0);
    expect(new Set(x.slice(0, 4)).size).toBe(4);
    expect(x.slice(4)).toEqual(x.slice(0, 4));
    expect(row(targets, 0)).toEqual([-100, -100, -100, -100, x[1], x[2], x[3], x[0]]);
  });
  it("'induction' with randomOffset: the copies at random places, counted targets the pattern's next tokens", () => {
    // the default task's batches (the trainer fixture and the page depend on them) are unchanged by the option
    const plain = makeBatch('induction', options);
    expect(Array.from(plain.inputs.data)).toEqual([8, 1, 7, 0, 8, 1, 7, 0, 8, 0, 4, 5, 8, 0, 4, 5, 5, 9, 2, 6, 5, 9, 2, 6]);
    expect(makeBatch('induction', { ...options, randomOffset: false })).toEqual(plain);
    const T = 16;
    const n = T / 4;
    const opts = { batch: 64, contextLength: T, vocabSize: 20, seed: 1, step: 0, randomOffset: true };
    const { inputs, targets } = makeBatch('induction', opts);
    expect(makeBatch('induction', opts)).toEqual({ inputs, targets });
    const gaps = new Set();
    const starts = new Set();
    for (let b = 0; b < opts.batch; b++) {
      const x = row(inputs, b, T);
      const y = row(targets, b, T);
      const counted = y.map((v, t) => (v === -100 ? -1 : t)).filter((t) => t >= 0);
      expect(counted.length).toBe(n - 1);
      const second = counted[0];
      // the second copy's tokens but its last are counted, each predicting the next token of the pattern
      const pattern = [...x.slice(second, second + n - 1), y[second + n - 2]];
      expect(new Set(pattern).size).toBe(n);
      for (let i = 0; i < n - 1; i++) expect(y[second + i]).toBe(pattern[i + 1]);
      // the first copy: the only earlier occurrence of the pattern's tokens (filler avoids them)
      const first = x.indexOf(pattern[0]);
      expect(first).toBeLessThanOrEqual(second - n);
      expect(x.slice(first, first + n)).toEqual(pattern);
      for (let t = 0; t < second; t++) if (t < first || t >= first + n) expect(pattern).not.toContain(x[t]);
      gaps.add(second - first);
      starts.add(first);
    }
    // neither the place nor the distance is fixed: a positional head cannot solve it
    expect(gaps.size).toBeGreaterThan(3);
    expect(starts.size).toBeGreaterThan(3);
    expect(() => makeBatch('copy', { ...options, randomOffset: true })).toThrow("makeBatch: options.randomOffset=true with task='copy'; expected it only with task 'induction'");
    expect(() => makeBatch('induction', { ...options, randomOffset: 1 })).toThrow('makeBatch: options.randomOffset=1; expected true or false');
    expect(() => makeBatch('induction', { ...options, contextLength: 7, randomOffset: true })).toThrow('makeBatch: options.contextLength=7; expected at least 8');
  });
  it("'corpus' and 'text': next word, ids from the text's own vocabulary", () => {
    const { vocabulary, tokens } = tokenizeText('the cat sat on the mat');
    expect(vocabulary).toEqual(['the', 'cat', 'sat', 'on', 'mat']);
    expect(Array.from(tokens)).toEqual([0, 1, 2, 3, 0, 4]);
    const { inputs, targets } = makeBatch('text', { ...options, vocabSize: 5, text: 'the cat sat on the mat' });
    expect(row(targets, 0).slice(0, 7)).toEqual(row(inputs, 0).slice(1));
    expect(CORPUS.split(' ').length).toBeGreaterThan(100);
  });
  it('names the function, the option and what was expected', () => {
    expect(() => makeBatch('nope', options)).toThrow("makeBatch: task='nope'; expected one of 'corpus'");
    expect(() => makeBatch('text', options)).toThrow('makeBatch: options.text is undefined; expected a string');
    expect(() => makeBatch('corpus', options)).toThrow(/makeBatch: options.vocabSize=10 is smaller than the corpus's vocabulary/);
    expect(() => makeBatch('copy', { ...options, batch: 0 })).toThrow('makeBatch: options.batch=0; expected an integer from 1 to 65536');
  });
});

describe('inductionScore', () => {
  it('is the mean attention from each repeated token to the token after its first occurrence', () => {
    const inputs = { data: Int32Array.from([4, 5, 6, 4, 5, 6]), shape: [1, 6] };
    const T = 6;
    const data = new Float32Array(2 * T * T);
    // head 0 attends to t − 2 (the token after the first occurrence); head 1 to itself.
    for (let t = 0; t < T; t++) { data[t * T + Math.max(0, t - 2)] = 1; data[(T + t) * T + t] = 1; }
    const score = inductionScore({ data, shape: [1, 2, T, T] }, inputs);
    expect(score.heads).toEqual([1, 0]);
    expect(score).toMatchObject({ score: 1, head: 0 });
  });
});

describe('the trainer', () => {
  const config = { vocabSize: 6, contextLength: 5, dModel: 4, heads: 2, layers: 2, seed: 9, backend: 'js' };
  const batch = (step) => makeBatch('copy', { batch: 2, contextLength: 5, vocabSize: 6, seed: 1, step });
  it('initialises from its seed as documented, in state_dict order', () => {
    const spec = parameterSpec({ ...config, layerNorm: true });
    expect(spec.map(([name]) => name).slice(0, 6)).toEqual(['tok_emb.weight', 'pos_emb.weight', 'blocks.0.ln.weight', 'blocks.0.ln.bias', 'blocks.0.q_proj.weight', 'blocks.0.q_proj.bias']);
    expect(spec.at(-1)).toEqual(['unembed.bias', [6], 'zeros']);
    const p = initParameters(config, 9);
    expect(Math.abs(p['tok_emb.weight'].data[0])).toBeLessThan(0.1);
    expect(p['unembed.bias'].data.every((v) => v === 0)).toBe(true);
  });
  it('repeats a seeded run bit for bit, and resumes from save() exactly', async () => {
    const run = async () => {
      const trainer = await createTrainer(config);
      const losses = [];
      for (let s = 0; s < 3; s++) losses.push((await trainer.step(batch(s))).loss);
      return { trainer, losses };
    };
    const a = await run();
    const b = await run();
    expect(b.losses).toEqual(a.losses);
    const resumed = await loadTrainer(a.trainer.save(), { backend: 'js' });
    expect(resumed.steps).toBe(3);
    const next = await a.trainer.step(batch(3));
    expect(await resumed.step(batch(3))).toEqual(next);
    expect(resumed.parameters()).toEqual(a.trainer.parameters());
    const { tensors, metadata } = decodeSafetensors(a.trainer.save());
    expect(Object.keys(tensors)).toContain('optimizer.exp_avg.blocks.1.v_proj.weight');
    expect(metadata.optimizer_step).toBe('4');
  });
  it.each(['wasm-simd', 'wasm-baseline'])('repeats a seeded run bit for bit on %s', async (backend) => {
    const run = async () => {
      const trainer = await createTrainer({ ...config, layerNorm: true, backend });
      const results = [];
      for (let s = 0; s < 3; s++) results.push(await trainer.step(batch(s)));
      return { results, parameters: trainer.parameters() };
    };
    expect(await run()).toEqual(await run());
  });
  it('returns attention per layer, gradients and evaluation', async () => {
    const trainer = await createTrainer(config);
    expect(trainer.gradients()).toBeNull();
    const { loss, gradNorm } = await trainer.step(batch(0));
    expect(loss).toBeGreaterThan(0);
    expect(gradNorm).toBeGreaterThan(0);
    expect(trainer.gradients()['blocks.0.q_proj.weight'].shape).toEqual([4, 4]);
    const attention = await trainer.attention(batch(0).inputs);
    expect(attention).toHaveLength(2);
    expect(attention[0].shape).toEqual([2, 2, 5, 5]);
    expect(attention[0].data[1]).toBe(0); // causal: query 0 sees only key 0
    const { accuracy } = await trainer.evaluate(batch(1));
    expect(accuracy).toBeGreaterThanOrEqual(0);
    trainer.dispose();
    await expect(trainer.step(batch(1))).rejects.toThrow('trainer.step: the trainer was disposed');
  });
  it('rejects bad options and batches with a clear Error', async () => {
    await expect(createTrainer({ ...config, dModel: 5 })).rejects.toThrow('createTrainer: dModel=5 is not divisible by heads=2');
    await expect(createTrainer({ ...config, optimizer: { name: 'sgd' } })).rejects.toThrow("createTrainer: options.optimizer.name='sgd'; expected 'adamw'");
    await expect(createTrainer({ ...config, parameters: { 'tok_emb.weight': { data: new Float32Array(4), shape: [2, 2] } } }))
      .rejects.toThrow("createTrainer: options.parameters['tok_emb.weight'] has shape [2, 2]; expected [6, 4]");
    const trainer = await createTrainer(config);
    const bad = { inputs: { data: Int32Array.from([0, 7]), shape: [1, 2] }, targets: { data: Int32Array.from([0, -100]), shape: [1, 2] } };
    await expect(trainer.step(bad)).rejects.toThrow('trainer.step: inputs.data[1]=7; expected a token id from 0 to vocabSize−1=5');
  });
  it('names the type when the type is wrong, not the shape', async () => {
    const trainer = await createTrainer(config);
    const ids = Int32Array.from({ length: 20 }, (_, i) => i % 6);
    const floats = { data: Float32Array.from(ids), shape: [4, 5] };
    await expect(trainer.step({ inputs: floats, targets: { data: ids, shape: [4, 5] } }))
      .rejects.toThrow('trainer.step: inputs.data is a Float32Array(20); expected an Int32Array');
    await expect(trainer.step({ inputs: { data: ids, shape: [4, 5] }, targets: floats }))
      .rejects.toThrow('trainer.step: targets.data is a Float32Array(20); expected an Int32Array');
    await expect(trainer.predict([0, 1])).rejects.toThrow('trainer.predict: inputs is an Array(2); expected a tensor {data: Int32Array, shape: number[]}');
    await expect(trainer.step({ inputs: { data: ids, shape: [20] }, targets: { data: ids, shape: [4, 5] } }))
      .rejects.toThrow('trainer.step: inputs has shape [20]; expected [B, T]');
    await expect(trainer.step({ inputs: { data: ids, shape: [4, 4] }, targets: { data: ids, shape: [4, 5] } }))
      .rejects.toThrow('trainer.step: inputs.data has 20 values; expected 16 for shape [4, 4]');
    const weights = trainer.parameters();
    expect(() => trainer.setParameters({ 'tok_emb.weight': { data: new Int32Array(24), shape: [6, 4] } }))
      .toThrow("trainer.setParameters: parameters['tok_emb.weight'].data is an Int32Array(24); expected a Float32Array");
    expect(trainer.parameters()).toEqual(weights);
  });
});

describe("createTrainer({backend: 'webgpu'}) where there is no WebGPU", () => {
  it('is an Error naming the backend and why (Node has no navigator.gpu)', async () => {
    await expect(createTrainer({ vocabSize: 5, contextLength: 4, dModel: 4, backend: 'webgpu' }))
      .rejects.toThrow(/^createTrainer: backend 'webgpu' could not load: WebGPU: navigator\.gpu is undefined/);
  });
  it('checks syncEvery', async () => {
    await expect(createTrainer({ vocabSize: 5, contextLength: 4, dModel: 4, syncEvery: 0 }))
      .rejects.toThrow("createTrainer: options.syncEvery=0; expected an integer ≥ 1");
  });
  it('sync() does nothing off WebGPU', async () => {
    const trainer = await createTrainer({ vocabSize: 5, contextLength: 4, dModel: 4, backend: 'js' });
    await trainer.sync();
    expect(trainer.steps).toBe(0);
  });
});
