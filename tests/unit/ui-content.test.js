// The page's content against its sources: every step's PyTorch panel is the snippet that torch ran
// (tests/fixtures/torchSnippets.json, `npm run fixtures`) and the page computes the numbers it printed;
// every step's C++ panel is a region of cpp/attention/*.cpp; the book's numbers (Raschka ch. 3, the
// curriculum's seed 003) appear at the steps' defaults; per-step defaults and the heads rule hold.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadAttention } from '../../web/src/core/index.js';
import { cppPanel, extractRegions } from '../../web/src/ui/cpp-regions.js';
import { buildInputs } from '../../web/src/ui/inputs.js';
import { STEP_IDS, headChoices, parseState, serializeState, updateState } from '../../web/src/ui/state.js';
import { STEPS } from '../../web/src/ui/steps.js';
import { STRINGS } from '../../web/src/ui/strings.js';
import { TRAINED_STEPS } from '../../web/src/ui/trained/walk-inputs.js';
import { checkFixture, defaultSnippets, ENGLISH_MODEL_FILE, pageInputs, trainedSnippets } from '../fixtures/snippet_texts.mjs';

const RECORDED = JSON.parse(readFileSync(new URL('../fixtures/torchSnippets.json', import.meta.url), 'utf8'));
const RECORDED_BY_ID = new Map(RECORDED.steps.map((s) => [s.id, s]));
const CPP_DIR = new URL('../../cpp/attention/', import.meta.url);
const SOURCES = Object.fromEntries(readdirSync(CPP_DIR).filter((f) => f.endsWith('.cpp'))
  .map((f) => [`cpp/attention/${f}`, readFileSync(new URL(f, CPP_DIR), 'utf8')]));

let api;
beforeAll(async () => { api = await loadAttention({ backend: 'js' }); });

/** Runs a step at the state a URL gives (the trained model's with model=trained) and returns its named tensors (and step 1's pairs). */
async function runStep(search) {
  const { state, inputs } = pageInputs(search);
  const step = STEPS.find((s) => s.id === state.step);
  const result = await step.run({ api, inputs, state, fixture: checkFixture(), loadBackend: async () => api });
  const named = Object.fromEntries((result.tensors ?? []).map((view) => [view.name, view.tensor]));
  if (result.pairs) Object.assign(named, { 'pairs.contexts': result.pairs.contexts, 'pairs.targets': result.pairs.targets });
  return { state, inputs, named, result };
}

const round4 = (values) => Array.from(values, (v) => Number(v.toFixed(4)));
const row = (tensor, r) => { const cols = tensor.shape.at(-1); return round4(tensor.data.subarray(r * cols, (r + 1) * cols)); };

describe('runnable PyTorch', () => {
  test('every step has a recorded snippet, in step order', () => {
    expect(RECORDED.steps.map((s) => s.id)).toEqual(STEP_IDS);
  });

  // At the defaults (RECORDED.steps), and with the trained model on the steps that have one (RECORDED.trained:
  // its embeddings and projections written out, so the snippet prints the page's trained numbers).
  const cases = [
    ...defaultSnippets().map((snippet) => ({ snippet, recorded: RECORDED_BY_ID.get(snippet.id), query: `step=${snippet.id}` })),
    ...trainedSnippets().map((snippet) => ({ snippet, recorded: RECORDED.trained.find((r) => r.query === snippet.query), query: snippet.query })),
  ];
  test('the trained model\'s snippets are recorded for every trained step, against the shipped model\'s file', () => {
    const sha256 = createHash('sha256').update(readFileSync(new URL(`../../${ENGLISH_MODEL_FILE}`, import.meta.url))).digest('hex');
    expect(RECORDED.englishModelSha256, `${ENGLISH_MODEL_FILE} changed since torchSnippets.json was recorded: run /usr/bin/python3 tests/fixtures/torch_snippets.py`).toBe(sha256);
    expect(RECORDED.trained.map((r) => r.query)).toEqual(trainedSnippets().map((s) => s.query));
    expect(new Set(RECORDED.trained.map((r) => r.id))).toEqual(new Set(TRAINED_STEPS));
    for (const record of RECORDED.trained) {
      // the weights are read from the model's file, not written out
      expect(record.text).toContain(`open("${ENGLISH_MODEL_FILE}", "rb")`);
      expect(record.text.length).toBeLessThan(8000);
      // No weight comes from a seed; step 8's dropout mask does (torch.manual_seed right before each nn.Dropout call).
      expect(record.text.replace(/torch\.manual_seed\(\d+\)\n(mask|dropped) = dropout\(/g, '')).not.toContain('torch.manual_seed');
    }
  });
  for (const { snippet, recorded, query } of cases) {
    test(`${query}: the page writes the snippet torch ran, and computes what it printed`, async () => {
      expect(recorded, `no recorded snippet for ${query}`).toBeDefined();
      expect(snippet.text).toBe(recorded.text);
      const { named } = await runStep(query);
      const step = STEPS.find((s) => s.id === snippet.id);
      for (const [variable, tensorName] of step.torchChecks) {
        const expected = recorded.values[variable];
        // step 9 away from the PyTorch fixture's inputs (a trained model's) shows the JS reference's output instead
        const actual = named[tensorName] ?? (tensorName === 'PyTorch output' ? named['JS reference output'] : undefined);
        expect(actual, `${snippet.id}: the page shows no tensor "${tensorName}"`).toBeDefined();
        expect(actual.data.length).toBe(expected.data.length);
        expected.data.forEach((value, i) => {
          expect(Math.abs(actual.data[i] - value), `${snippet.id} ${variable}[${i}]`).toBeLessThanOrEqual(1e-5 + 1e-5 * Math.abs(value));
        });
      }
    });
  }

  test('a snippet follows the state: the learner’s edits, the layout, the sizes, the scale', () => {
    const { state } = parseState('step=weights&layout=linear&seed=5&dModel=4&T=3&scale=0&temperature=2&edits=0.1:0.5,Wq.1.2:-0.75');
    const text = STEPS.find((s) => s.id === 'weights').torch({ state, inputs: buildInputs(state), fixture: checkFixture() });
    expect(text).toContain('torch.manual_seed(5)');
    expect(text).toContain('W_query = torch.nn.Linear(d_in, d_out, bias=False)');
    expect(text).toContain('W_query.weight[1, 2] = -0.75   # your edit');
    expect(text).toContain('weights = torch.softmax(scores / 2.0, dim=-1)');
    expect(text).toMatch(/x = torch\.tensor\(\[\n(    \[[^\]]+\],  # \S+\n){3}\]\)/);
    expect(text).toContain('0.5, '); // x's edited cell, written out with the rest of x
  });

  test('float literals read back as the same float32', async () => {
    const { pyFloat } = await import('../../web/src/ui/torch-snippets.js');
    for (const value of [0.43, 0.1, -0.75, 1, 100, 1e-7, 0.2961, Math.PI, -1 / 3, 3.4e38]) {
      const text = pyFloat(value);
      expect(Math.fround(Number(text))).toBe(Math.fround(value));
      expect(text).toMatch(/[.e]/); // Python reads it as a float
    }
  });

  test('dropout at the defaults is plain torch.nn.Dropout after torch.manual_seed, as the book', () => {
    const text = RECORDED_BY_ID.get('dropout').text;
    expect(text).toContain('dropout = torch.nn.Dropout(0.5)');
    expect(text).toContain('torch.manual_seed(123)\ndropped = dropout(weights)');
    expect(text).not.toMatch(/keep = torch\.tensor\(/);
  });

  test('with the counter-based generator, dropout passes the mask in as a tensor and says why', () => {
    const { state, inputs } = pageInputs('step=dropout&dropoutRng=counter');
    const text = STEPS.find((s) => s.id === 'dropout').torch({ state, inputs, fixture: checkFixture() });
    expect(text).toMatch(/keep = torch\.tensor\(/);
    expect(text).toMatch(/not from torch's/);
    expect(text).toMatch(/docs\/api\.md/);
  });
});

describe('the book’s numbers at the defaults (seed 003, Raschka ch. 3)', () => {
  test('step 5: the six 3-d inputs, weights of "journey"', async () => {
    const { named, inputs } = await runStep('step=self-attention');
    expect(round4(inputs.x.data)).toEqual([0.43, 0.15, 0.89, 0.55, 0.87, 0.66, 0.57, 0.85, 0.64, 0.22, 0.58, 0.33, 0.77, 0.25, 0.1, 0.05, 0.8, 0.55]);
    expect(row(named.weights, 1)).toEqual([0.1385, 0.2379, 0.2333, 0.1240, 0.1082, 0.1581]);
  });

  test('step 6, matrix layout: seed 123 and torch.rand(3, 2) three times', async () => {
    const { named, state } = await runStep('step=weights');
    expect(state).toMatchObject({ seed: 123, layout: 'matrix', dOut: 2 });
    expect(round4(named.W_query.data)).toEqual([0.2961, 0.5166, 0.2517, 0.6886, 0.0740, 0.8665]);
    expect(row(named.output, 1)).toEqual([0.3061, 0.8210]);
  });

  test('step 6, Linear layout: seed 789 and three nn.Linear(3, 2, bias=False)', async () => {
    const { named, state } = await runStep('step=weights&layout=linear');
    expect(state.seed).toBe(789);
    expect(round4(named['W_query.weight'].data)).toEqual([0.3161, 0.4568, 0.5118, -0.1683, -0.3379, -0.0918]);
    expect(named['W_query.weight'].shape).toEqual([2, 3]);
    expect(row(named.output, 0)).toEqual([-0.0739, 0.0713]);
  });

  test('step 7: the seed-789 weights, row 0 before the mask', async () => {
    const { named } = await runStep('step=causal');
    expect(row(named['weights before the mask'], 0)).toEqual([0.1921, 0.1646, 0.1652, 0.1550, 0.1721, 0.1510]);
    expect(row(named.weights, 0)).toEqual([1, 0, 0, 0, 0, 0]);
  });

  test('step 7: the book\'s masked scores are the unscaled ones, shown beside the scaled', async () => {
    const { named } = await runStep('step=causal');
    expect(row(named['masked (unscaled scores, as the book prints them)'], 1).slice(0, 2)).toEqual([0.4656, 0.1723]);
    expect(row(named['masked (unscaled scores, as the book prints them)'], 5)).toEqual([0.3408, 0.1270, 0.1290, 0.0198, 0.1290, 0.0078]);
    expect(row(named['scores (unscaled, Q·Kᵀ)'], 0)[0]).toBe(0.2899);
    expect(row(named.masked, 0)[0]).toBe(Number((0.28987 / Math.SQRT2).toFixed(4)));
  });

  test('step 8: torch.nn.Dropout(0.5)\'s own mask after torch.manual_seed(123), as the book prints it', async () => {
    const { state, named } = await runStep('step=dropout');
    expect(state).toMatchObject({ dropout: 0.5, dropoutSeed: 123, dropoutRng: 'torch' });
    expect(row(named['dropout(ones)'], 0)).toEqual([2, 2, 0, 2, 2, 0]);
    expect(row(named['dropout(ones)'], 5)).toEqual([0, 2, 2, 2, 2, 0]);
    expect(row(named.dropped, 0)).toEqual([2, 0, 0, 0, 0, 0]);
    expect(row(named.dropped, 1)).toEqual([0, 0, 0, 0, 0, 0]);
    expect(row(named.dropped, 2)).toEqual([0.7599, 0.6194, 0.6206, 0, 0, 0]);
    expect(row(named.dropped, 4)).toEqual([0, 0.3966, 0, 0.3775, 0, 0]);
  });

  test('step 10 is the book\'s MultiHeadAttentionWrapper (seed 123, d_out 4 as two heads of 2) and its §3.6.2 form', async () => {
    const { state, named, result } = await runStep('step=multihead');
    expect(state).toMatchObject({ dOut: 4, heads: 2, seed: 123 });
    expect(named.weights.shape.slice(-3)).toEqual([2, 6, 6]);
    expect(row(named['context (stacked heads)'], 0)).toEqual([-0.4519, 0.2216, 0.4772, 0.1063]);
    expect(row(named['context (split heads)'], 5)).toEqual([-0.5299, -0.1081, 0.5077, 0.3493]);
    const book = named['output (§3.6.2 MultiHeadAttention: d_out 2, 2 heads, out_proj)'];
    expect(row(book, 0)).toEqual([0.3190, 0.4858]);
    expect(row(book, 5)).toEqual([0.2575, 0.4028]);
    expect(result.checks.find((c) => c.name === 'stackedEqualsSplit').comparison.allclose).toBe(true);
  });

  test('step 11 opens with Tq ≠ Tk: 3 query tokens over an 8-token context', async () => {
    const { named } = await runStep('step=cross');
    expect(named.weights.shape.slice(-2)).toEqual([3, 8]);
  });

  test('step 9 checks its own sentence: against PyTorch at the defaults, the JS reference after an edit', async () => {
    const atDefaults = await runStep('step=check');
    expect(atDefaults.result.backends.reference).toBe('pytorch');
    expect(Object.keys(atDefaults.named)).toContain('PyTorch output');
    expect(row(atDefaults.named['PyTorch output'], 0)).toEqual([-0.0872, 0.0286]);
    const edited = await runStep('step=check&edits=0.0:0.5');
    expect(edited.result.backends.reference).toBe('js');
    expect(Object.keys(edited.named)).toContain('JS reference output');
  });
});

describe('the real C++', () => {
  const regions = extractRegions(SOURCES);

  for (const step of STEPS) {
    test(`${step.id}: every block of the C++ panel is a region of the source, line for line`, () => {
      const panel = cppPanel(step.cpp, regions);
      const blocks = panel.split(/\n\n(?=\/\/ cpp\/attention\/)/);
      expect(blocks).toHaveLength(step.cpp.length);
      for (const block of blocks) {
        const [where, ...code] = block.split('\n');
        const [, path, first, last] = /^\/\/ (\S+), lines (\d+)–(\d+)$/.exec(where);
        const source = SOURCES[path].split('\n').slice(Number(first) - 1, Number(last));
        expect(source[0 - 0]).not.toMatch(/region/);
        const kept = source.filter((line) => !/^\s*\/\/ (region: |endregion)/.test(line));
        const indent = /^ */.exec(kept[0])[0].length;
        expect(code).toEqual(kept.map((line) => line.slice(Math.min(indent, /^ */.exec(line)[0].length))));
        expect(SOURCES[path].split('\n')[Number(first) - 2]).toMatch(/\/\/ region: /);
        expect(SOURCES[path].split('\n')[Number(last)]).toMatch(/\/\/ endregion/);
      }
    });
  }

  // The C++ tab opens with the lines that compute the step's new idea (issue 21): each step's operations
  // are within the panel's first `within` lines, and the plumbing (`after`) only follows them.
  const NEW_IDEA = {
    framing: { ops: [/= sequence\[t\];/, /= sequence\[t \+ 1\];/] },
    loop: { ops: [/sum \+= x\.data/, /= sum \/ \(t \+ 1\);/] },
    matmul: { ops: [/= 1\.0f \/ \(t \+ 1\);/, /apply_to_each_batch\(result\.weights, x\)/] },
    softmax: { ops: [/= -std::numeric_limits<float>::infinity\(\);/, /softmax_row\(result\.weights/] },
    'self-attention': { ops: [/= xb \* xb\.transpose\(\);/] },
    weights: {
      within: 40,
      ops: [/result\.query = project\(x, weights\.query/, /result\.key = project\(x, weights\.key/,
        /result\.value = project\(x, weights\.value/, /matrix_view\(key, .*\.transpose\(\);/, /1\.0f \/ std::sqrt\(/,
        /v \*= factor;/, /weights = result\.scaled;/, /normalise_rows\(weights/, /matrix_view\(\*used, .*\) \*$/,
        /matrix_view\(value, /],
      after: [/as_one_head/, /attention_per_head\(/],
    },
    causal: { ops: [/for \(int j = i \+ 1; j < cols; \+\+j\) block\[.*\] = value;/, /fill_future\(.*-std::numeric_limits<float>::infinity\(\)\);/] },
    dropout: { ops: [/keeps\(i\) \? result\.dropped\.data\[i\] \* keeps\.scale\(\) : 0\.0f;/] },
    check: { ops: [/error <= options\.atol \+ options\.rtol \* std::fabs\(e\)/] },
    multihead: {
      ops: [/Tensor split = zeros\(\{batch, heads, time, d_head\}\);/, /split\.data\[.*\] =$/, /\* d_out \+ h \* d_head \+ i\];/],
      after: [/merge_heads\(/, /project\(x, weights\.query/],
    },
    cross: { ops: [/query = project\(x_query, /, /key = project\(x_context, /, /value = project\(.*x_context, /] },
    learn: { ops: [/dW = dO \* V\.transpose\(\);/, /= P\.transpose\(\) \* dO;/] },
  };

  test('every step has its new idea listed', () => {
    expect(Object.keys(NEW_IDEA).sort()).toEqual(STEPS.map((s) => s.id).sort());
  });

  for (const step of STEPS) {
    test(`${step.id}: the C++ panel opens with the step's new idea`, () => {
      const { ops, after = [], within = 20 } = NEW_IDEA[step.id];
      const lines = cppPanel(step.cpp, regions).split('\n');
      const at = (pattern) => lines.findIndex((line) => pattern.test(line));
      const found = ops.map((op) => [op, at(op)]);
      for (const [op, line] of found) {
        expect(line, `${op} in the first ${within} lines of:\n${lines.slice(0, within).join('\n')}`).toBeGreaterThanOrEqual(0);
        expect(line, `${op}`).toBeLessThan(within);
      }
      const last = Math.max(...found.map(([, line]) => line));
      for (const plumbing of after) {
        expect(at(plumbing), `${plumbing} comes after the new idea`).toBeGreaterThan(last);
      }
    });
  }

  test('a panel naming a region the source lacks fails', () => {
    expect(() => cppPanel(['no-such-region'], regions)).toThrow(/cppPanel: no region "no-such-region"/);
  });

  test('malformed markers are refused', () => {
    expect(() => extractRegions({ 'a.cpp': '// region: x\nint a;\n' })).toThrow(/never closed/);
    expect(() => extractRegions({ 'a.cpp': 'int a;\n// endregion\n' })).toThrow(/never opened/);
    expect(() => extractRegions({ 'a.cpp': '// region: x\n// endregion\n// region: x\n// endregion\n' })).toThrow(/marked twice/);
  });
});

describe('per-step defaults and the heads rule', () => {
  test('an absent parameter means the step’s default; links name only what differs', () => {
    expect(parseState('step=causal').state).toMatchObject({ seed: 789, layout: 'linear', dOut: 2 });
    expect(parseState('step=framing').state.T).toBe(6);
    expect(serializeState(parseState('step=multihead').state)).toBe('step=multihead');
    expect(serializeState(parseState('step=causal&seed=123').state)).toBe('step=causal&seed=123');
  });

  test('moving between steps carries what was changed and takes the new step’s defaults for the rest', () => {
    let { state } = parseState('step=weights');
    state = updateState(state, { step: 'causal' }).state;
    expect(state).toMatchObject({ seed: 789, layout: 'linear' });
    state = updateState(state, { T: 8 }).state;
    state = updateState(state, { step: 'multihead' }).state;
    expect(state).toMatchObject({ T: 8, seed: 123, dOut: 4, heads: 2 });
    state = updateState(state, { step: 'weights', layout: 'linear' }).state;
    expect(state).toMatchObject({ seed: 789, dOut: 2, T: 8 });
  });

  test('the heads control offers the divisors of d_out only', () => {
    expect(headChoices({ dOut: 4 })).toEqual([1, 2, 4]);
    expect(headChoices({ dOut: 12 })).toEqual([1, 2, 3, 4, 6]);
    expect(headChoices({ dOut: 7 })).toEqual([1, 7]);
  });

  test('a d_out change that breaks H moves H to the nearest divisor, with a notice', () => {
    const { state } = parseState('step=multihead');
    const moved = updateState(state, { dOut: 6 });
    expect(moved.state.heads).toBe(2);
    expect(moved.adjusted).toEqual([]);
    const broken = updateState({ ...state, heads: 4, dOut: 8 }, { dOut: 6 });
    expect(broken.state.heads).toBe(3);
    expect(broken.adjusted).toEqual(['d_out=6 does not split into heads=4; using heads=3, the nearest divisor of d_out.']);
  });

  test('a URL with an invalid pair gets the same notice', () => {
    const { state, notices } = parseState('step=multihead&dOut=5&heads=2');
    expect(state.heads).toBe(1);
    expect(notices).toEqual(['d_out=5 does not split into heads=2; using heads=1, the nearest divisor of d_out.']);
  });

  test('the page mentions the ←/→ shortcut', () => {
    expect(STRINGS.arrowKeys).toMatch(/←.*→/);
  });
});
