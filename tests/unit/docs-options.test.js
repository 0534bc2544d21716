// docs/api.md and the README name each function, option and default as the code has them: the options with
// their defaults in brackets ("`name` [default]") are read from the doc's sections at test time and held to
// the registry (web/src/core/registry.js), the loader and the trainer; every function the registry declares is
// in the docs, and every name the README's table gives is a function of the API with those options.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadAttention, FUNCTION_NAMES } from '../../web/src/index.js';
import { createTrainer, OPTIMIZER_DEFAULTS } from '../../web/src/train/index.js';
import { HEAD_SCORE_MULTIPLE, TEXT_HELD_OUT_SHARE, ablate, headScores, loadEnglishModel, sequenceLoss, textLoss, textTask, topTokens }
  from '../../web/src/model/index.js';
import { inductionScore, makeBatch } from '../../web/src/train/index.js';
import { REGISTRY } from '../../web/src/core/registry.js';
import { INTERMEDIATES_LIMIT, POOL_CROSSOVER } from '../../web/src/core/planner.js';
import { AUTO_MAX_THREADS, MAX_THREADS } from '../../web/src/core/backends/thread-plan.js';
import { PROBE_BUDGET_MS } from '../../web/src/gpu/crossover-probe.js';
import { AUTO_MIN_WORK } from '../../web/src/train/shards.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const api = readFileSync(`${ROOT}docs/api.md`, 'utf8');
const readme = readFileSync(`${ROOT}README.md`, 'utf8');
const ENTRIES = Object.fromEntries(REGISTRY.map((entry) => [entry.name, entry]));

/** The text of the section of docs/api.md under a heading, up to the next heading of any level. */
function section(heading) {
  const start = api.indexOf(`\n${heading}\n`);
  if (start < 0) throw new Error(`docs/api.md has no heading ${heading}`);
  const rest = api.slice(start + heading.length + 2);
  return rest.slice(0, rest.search(/\n#{2,4} /) >>> 0 || rest.length);
}

/** [option, the default as written] for every "`name` [default]" of a text. */
const bracketDefaults = (text) => [...text.replace(/\s*\n\s*/g, ' ').matchAll(/`(\w+)` \[([^\]]*(?:\[[^\]]*\][^\]]*)?)\]/g)]
  .map((m) => [m[1], m[2]]);
const literal = (text) => new Function(`return (${text});`)();

// A default the doc says in words, and what the registry holds for it.
const WORDED = { 'by size, as the multi-head functions\'': 'planner', none: null };
const writtenDefault = (written) => (written in WORDED ? WORDED[written] : literal(written));
const registryDefault = (spec) => (spec.defaultFrom === 'planner' ? 'planner' : spec.default);

describe('docs/api.md: the options of every function and their defaults', () => {
  test.each([
    // [heading, the functions whose options the section lists, options it names that are not theirs]
    ['## Options (defaults in brackets)', REGISTRY.filter((e) => e.step !== null).map((e) => e.name), []],
    ["### PyTorch's `F.scaled_dot_product_attention` (not a curriculum step)", ['scaledDotProductAttention'], []],
    ["### Layer norm: PyTorch's `F.layer_norm` (not a curriculum step)", ['layerNorm'], []],
    ["### GELU: PyTorch's `F.gelu` (not a curriculum step)", ['gelu'], []],
    ['### Masks (`attnMask`, `keyPaddingMask`) and `xValue`', ['multiheadAttentionSplit', 'crossAttention'], []],
  ])('%s', (heading, functions) => {
    const found = bracketDefaults(section(heading));
    expect(found.length).toBeGreaterThan(0);
    for (const [option, written] of found) {
      const specs = functions.map((fn) => ENTRIES[fn].options?.[option]).filter(Boolean);
      expect(specs.length, `${heading}: \`${option}\` is an option of none of ${functions.join(', ')}`).toBeGreaterThan(0);
      const expected = writtenDefault(written);
      // softmax alone takes `scale` as a number [1], which the section says in a sentence of its own.
      const ofThem = specs.filter((spec) => !(option === 'scale' && spec.type === 'number'));
      for (const spec of ofThem) expect(registryDefault(spec), `${heading}: \`${option}\` [${written}]`).toEqual(expected);
    }
  });

  test('softmax\'s scale is a number [1]; compare\'s atol and rtol are 1e-5; crossAttention\'s heads default to 1', () => {
    expect(api).toContain('For `softmax` alone, `scale` is a number [1].');
    expect(ENTRIES.softmax.options.scale).toMatchObject({ type: 'number', default: 1 });
    expect(api).toContain('options `atol` (1e-5), `rtol` (1e-5)');
    expect([ENTRIES.compare.options.atol.default, ENTRIES.compare.options.rtol.default]).toEqual([1e-5, 1e-5]);
    expect(api).toContain('options `heads` (default 1)');
    expect(ENTRIES.crossAttention.options.heads.default).toBe(1);
  });

  test('every choice of every option is quoted in docs/api.md', () => {
    for (const entry of REGISTRY) {
      for (const [option, spec] of Object.entries(entry.options ?? {})) {
        for (const choice of spec.choices ?? []) expect(api, `${entry.name} options.${option}`).toContain(`'${choice}'`);
      }
    }
  });

  test('every function of the registry is in docs/api.md, with its C++ name, and in the README', () => {
    for (const entry of REGISTRY) {
      expect(api, entry.name).toContain(`\`${entry.name}`);
      if (!entry.name.endsWith('Backward')) {
        expect(api, entry.cpp).toContain(entry.cpp);
        expect(readme, entry.name).toContain(`\`${entry.name}`);
      }
    }
  });
});

describe('the README\'s table of functions', () => {
  let attention;
  beforeAll(async () => { attention = await loadAttention({ backend: 'js' }); });

  test('names functions of the API, each with options it takes', () => {
    const table = readme.slice(readme.indexOf('| step | function |'), readme.indexOf('\nBackends:'));
    const calls = [...table.matchAll(/`(\w+)\(([^`]*)\)`/g)];
    expect(calls.length).toBeGreaterThan(10);
    for (const [, fn, args] of calls) {
      if (fn === 'createTrainer') continue;
      expect(typeof attention[fn], fn).toBe('function');
      const options = /\{([^}]*)\}/.exec(args)?.[1].split(',').map((o) => o.trim()).filter((o) => /^\w+$/.test(o)) ?? [];
      for (const option of options) expect(Object.keys(ENTRIES[fn].options ?? {}), `${fn}: ${option}`).toContain(option);
    }
    for (const name of [...table.matchAll(/`(\w+)`/g)].map((m) => m[1]).filter((n) => /Attention\w*$|^matmul$/.test(n))) {
      expect(FUNCTION_NAMES, name).toContain(name);
    }
  });
});

describe('the loader\'s, the trainer\'s and the models\' defaults', () => {
  test('loadAttention: backend auto, threads auto, memoryLimit 2 GiB', async () => {
    expect(bracketDefaults(section('## Loading (`loadAttention(options)`) and the Attention object')))
      .toEqual(expect.arrayContaining([['backend', "'auto'"], ['threads', "'auto'"], ['memoryLimit', '2147483648'], ['gpuProbe', 'true']]));
    const attention = await loadAttention();
    expect(attention.backend).toBe('wasm-simd');
    expect(attention.memoryLimit).toBe(2147483648);
  });

  test('createTrainer fills in the defaults "The trainer" gives', async () => {
    const text = section('### The trainer');
    const optimizer = /`optimizer`\s*\[`(\{[^`]*\})`/.exec(text.replace(/\s*\n\s*/g, ' '))[1];
    expect(literal(optimizer)).toEqual(OPTIMIZER_DEFAULTS);
    const trainer = await createTrainer({ vocabSize: 4, contextLength: 4, dModel: 4 });
    for (const [option, written] of bracketDefaults(text)) {
      if (option in trainer.config && option !== 'optimizer') expect(trainer.config[option], option).toEqual(writtenDefault(written));
    }
    expect(bracketDefaults(text).map(([option]) => option)).toEqual(expect.arrayContaining(['heads', 'layers', 'layerNorm', 'seed']));
    expect(Object.keys(trainer.config)).toEqual(['vocabSize', 'contextLength', 'dModel', 'heads', 'layers', 'layerNorm', 'seed', 'optimizer', 'gradClip']);
  });

  test('textTask holds out 0.2; head scores\' thresholds are 6 × a uniform head\'s', () => {
    expect(api).toContain('heldOutShare [0.2]');
    expect(TEXT_HELD_OUT_SHARE).toBe(0.2);
    expect(api).toContain('`HEAD_SCORE_MULTIPLE` = 6');
    expect(HEAD_SCORE_MULTIPLE).toBe(6);
  });
});

describe('results have the keys and shapes docs/api.md gives them', () => {
  test('compare, and the (T, T) matrices of steps 3–4 without the batch axis', async () => {
    const attention = await loadAttention({ backend: 'js' });
    const x = { data: Float32Array.of(1, 2, 3, 4, 5, 6), shape: [3, 2] };
    expect(attention.compare(x, x)).toEqual({ maxAbsError: 0, maxRelError: 0, allclose: true, firstMismatch: -1 });
    const average = attention.causalAverageSoftmax(x);
    expect(Object.keys(average)).toEqual(['scores', 'masked', 'weights', 'output']);
    expect([average.weights.shape, average.output.shape]).toEqual([[3, 3], [3, 2]]);
  });

  test('"Models": forward, the losses, ablation, head scores and textTask', async () => {
    const model = await loadEnglishModel();
    const ids = model.tokenizer.encode('the cat sat on the mat and the cat');
    const T = ids.length;
    const { dModel: d, heads: H, vocabSize: V, layers: L } = model.config;
    expect(Object.keys(model.forward(ids))).toEqual(['tokens', 'logits', 'attention']);
    const full = model.forward(ids, { intermediates: true });
    expect(full.tokens).toBeInstanceOf(Int32Array);
    expect([full.logits.shape, full.attention.length, full.attention[0].shape]).toEqual([[T, V], L, [H, T, T]]);
    expect(Object.keys(full.layers[0])).toEqual(['input', 'normed', 'query', 'key', 'value', 'weights', 'context', 'output']);
    expect(['input', 'query', 'context', 'output'].map((k) => full.layers[0][k].shape)).toEqual(Array(4).fill([T, d]));
    const losses = sequenceLoss(model, ids);
    expect(Object.keys(losses)).toEqual(['loss', 'count', 'losses']);
    expect([losses.losses.length, Number.isNaN(losses.losses[0]), losses.count]).toEqual([T, true, T - 1]);
    expect(Object.keys(textLoss(model, ids))).toEqual(['loss', 'count']);
    expect(sequenceLoss(model, ids, { from: 3 }).count).toBe(T - 3);
    expect(Object.keys(topTokens(model, full.logits, 2)[0])).toEqual(['id', 'text', 'probability']);
    expect(topTokens(model, full.logits, 2)).toHaveLength(5);
    const ablation = ablate(model, ids, [[0, 1]]);
    expect([Object.keys(ablation), Object.keys(ablation.after), ablation.ablation]).toEqual([['headsOff', 'ablation', 'before', 'after'], ['loss', 'losses', 'top'], 'zero']);
    const scores = headScores(model); // count [8], length [min(64, contextLength)]
    expect([scores.probes.length, scores.probes[0].length]).toEqual([8, Math.min(64, model.config.contextLength)]);
    expect(Object.keys(scores)).toEqual(['probes', 'uniform', 'thresholds', 'multiple', 'heads']);
    expect(Object.keys(scores.heads[0])).toEqual(['layer', 'head', 'previousToken', 'induction', 'sink', 'self', 'entropy', 'labels', 'label']);
    expect([scores.heads.length, scores.multiple]).toEqual([L * H, 6]);
    const task = textTask(ids, { contextLength: 4 });
    expect([Object.keys(task), task.length]).toEqual([['train', 'heldOut', 'length', 'batch', 'heldOutBatch'], 4]);
  });

  test('"Training": a step, evaluate, attention, predict, makeBatch and inductionScore', async () => {
    const batch = makeBatch('copy', { batch: 2, contextLength: 6, vocabSize: 5 });
    expect([Object.keys(batch), batch.inputs.shape, batch.targets.data]).toEqual([['inputs', 'targets'], [2, 6], expect.any(Int32Array)]);
    const trainer = await createTrainer({ vocabSize: 5, contextLength: 6, dModel: 4, heads: 2 });
    expect(trainer.gradients()).toBeNull();
    expect(Object.keys(await trainer.step(batch))).toEqual(['loss', 'gradNorm']);
    expect(Object.keys(await trainer.evaluate(batch))).toEqual(['loss', 'accuracy']);
    const weights = await trainer.attention(batch.inputs);
    expect(weights.map((w) => w.shape)).toEqual([[2, 2, 6, 6]]);
    expect((await trainer.predict(batch.inputs)).shape).toEqual([2, 6, 5]);
    const induction = inductionScore(weights[0], batch.inputs);
    expect([Object.keys(induction), induction.heads.length]).toEqual([['heads', 'score', 'head'], 2]);
  });
});

describe('the figures docs/api.md states are the code\'s constants', () => {
  const text = api.replace(/\s*\n\s*/g, ' ');
  test.each([
    ['the intermediates default', INTERMEDIATES_LIMIT, 65536, 'stage holds at most 65,536 values'],
    ["the workers' crossover: multiply-adds per float moved", POOL_CROSSOVER.workPerFloat, 200, 'doing at least 200 multiply-adds per float'],
    ["the workers' crossover: multiply-adds per call", POOL_CROSSOVER.minWork, 100e6, 'at least 100 M multiply-adds'],
    ["threads 'auto': at most", AUTO_MAX_THREADS, 4, 'min(`navigator.hardwareConcurrency`, 4)'],
    ['threads: at most', MAX_THREADS, 64, 'an integer from 1 to 64'],
    ["the GPU probe's budget", PROBE_BUDGET_MS, 300, 'within 300 ms (`PROBE_BUDGET_MS`'],
    ["the trainer's threads 'auto': a sequence's forward", AUTO_MIN_WORK, 20e6, 'at least 20 M forward multiply-adds'],
  ])('%s', (_, constant, value, phrase) => {
    expect(text).toContain(phrase);
    expect(constant).toBe(value);
  });

  test('the multi-head functions return output alone above 65,536 values per stage', async () => {
    const attention = await loadAttention({ backend: 'js' });
    const x = (T) => ({ data: new Float32Array(T * 2).fill(0.1), shape: [T, 2] });
    const weights = { query: { data: new Float32Array(4).fill(0.5), shape: [2, 2] } };
    weights.key = weights.query;
    weights.value = weights.query;
    expect(Object.keys(attention.multiheadAttentionSplit(x(256), weights))).toContain('weights');
    expect(Object.keys(attention.multiheadAttentionSplit(x(257), weights))).toEqual(['output']);
    expect(Object.keys(attention.multiheadAttentionSplit(x(4), weights, { intermediates: false }))).toEqual(['output']);
  });

  test('multi-head results: masked only when causal or masked, dropped only with dropout, context and output (B, Tq, d_out)', async () => {
    const attention = await loadAttention({ backend: 'js' });
    const x = { data: Float32Array.from({ length: 16 }, (_, i) => (i % 5) / 5), shape: [1, 4, 4] };
    const matrix = { data: Float32Array.from({ length: 16 }, (_, i) => (i % 3) / 3), shape: [4, 4] };
    const weights = { query: matrix, key: matrix, value: matrix };
    const plain = attention.multiheadAttentionSplit(x, weights, { heads: 2 });
    expect(Object.keys(plain)).toEqual(['query', 'key', 'value', 'scores', 'scaled', 'weights', 'context', 'output']);
    expect([plain.query.shape, plain.weights.shape, plain.context.shape, plain.output.shape]).toEqual([[1, 2, 4, 2], [1, 2, 4, 4], [1, 4, 4], [1, 4, 4]]);
    expect(plain.output.data).toEqual(plain.context.data);
    expect(Object.keys(attention.multiheadAttentionSplit(x, weights, { heads: 2, causal: true, dropout: 0.5 })))
      .toEqual(['query', 'key', 'value', 'scores', 'scaled', 'masked', 'weights', 'dropped', 'context', 'output']);
  });
});
