// The walk's "trained" switch (model=trained, steps 6–11): one layer of the shipped English model on the step's
// sentence in the model's own tokens. Every number is checked against the model's own forward intermediates, never
// against pinned values of the English weights (the model may be retrained).
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, test } from 'vitest';
import { loadAttention } from '../../web/src/core/index.js';
import { modelFromSafetensors } from '../../web/src/model/english.js';
import { parseState, updateState } from '../../web/src/ui/state.js';
import { STEPS } from '../../web/src/ui/steps.js';
import { encodeSafetensors } from '../../web/src/train/safetensors.js';
import { initParameters } from '../../web/src/train/model.js';
import {
  ALL_HEADS_STEP, englishWalkModel, trainedControls, trainedNotes, trainedRun, TRAINED_LOCKS, TRAINED_STEPS,
} from '../../web/src/ui/trained/walk-inputs.js';
import { carriedModel } from '../../web/src/ui/trained/carried-model.js';
import { checkFixture } from '../fixtures/snippet_texts.mjs';

const english = modelFromSafetensors(new Uint8Array(readFileSync(new URL('../../web/src/model/english.safetensors', import.meta.url))));
const walk = englishWalkModel(english);
const { dModel: D, heads: H, dHead: DH } = english.config;
let api;
beforeAll(async () => { api = await loadAttention({ backend: 'js' }); });

/** Runs a step as the page does with model=trained: its state, inputs and named tensors. */
async function runTrained(search) {
  const { state } = parseState(search);
  const run = trainedRun(walk, state, state.step);
  const step = STEPS.find((s) => s.id === state.step);
  const result = await step.run({ api, inputs: run.inputs, state: run.state, fixture: checkFixture(), loadBackend: async () => api });
  return { ...run, named: Object.fromEntries(result.tensors.map((view) => [view.name, view.tensor])) };
}

// Columns [from, to) of a (rows, cols) tensor's data.
function columns({ data, shape }, from, to) {
  const cols = shape.at(-1);
  const out = [];
  for (let r = 0; r < data.length / cols; r++) out.push(...data.subarray(r * cols + from, r * cols + to));
  return out;
}
function expectClose(actual, expected, tolerance = 2e-5) {
  expect(actual.length).toBe(expected.length);
  let worst = 0;
  for (let i = 0; i < expected.length; i++) worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  expect(worst).toBeLessThanOrEqual(tolerance);
}
const forwardOf = (text) => english.forward(walk.tokens(text).ids, { intermediates: true });

describe('model=trained: one layer of the English model', () => {
  test('every step 6–11 has it; the single-head steps add a Layer and a Head control, step 10 its heads panel\'s Layer', () => {
    expect(TRAINED_STEPS).toEqual(['weights', 'causal', 'dropout', 'check', 'multihead', 'cross']);
    for (const id of TRAINED_STEPS) expect(STEPS.find((s) => s.id === id).controls).toContain('model');
    expect(trainedControls('causal')).toEqual(['model-layer', 'model-head']);
    expect(trainedControls(ALL_HEADS_STEP)).toEqual([]);
    expect(trainedControls('loop')).toEqual([]);
  });

  test('the sizes come from the model and the sentence\'s tokens; they are the locked ones', async () => {
    const sentence = 'The quick brown fox';
    const { state } = parseState(`step=causal&model=trained&sentence=${encodeURIComponent(sentence)}&T=3&dModel=5&seed=9`);
    const single = trainedRun(walk, state, 'causal').state;
    expect(single).toMatchObject({ T: english.tokenizer.encode(sentence).length, dModel: D, dOut: DH, heads: 1, sentence });
    const all = trainedRun(walk, { ...state, step: 'multihead' }, 'multihead').state;
    expect(all).toMatchObject({ dModel: D, dOut: D, heads: H });
    expect(TRAINED_LOCKS).toEqual(['T', 'dModel', 'dOut', 'heads', 'seed']);
    expect(TRAINED_LOCKS).not.toContain('sentence'); // any sentence: the model reads it in its own tokens
  });

  test('step 7, layer 1 head 1 (the defaults): x is the layer\'s LayerNorm output; Q, K, V and the weights are the model\'s', async () => {
    const { inputs, named, state } = await runTrained('step=causal&model=trained');
    expect(state).toMatchObject({ 'model-layer': 1, 'model-head': 1 });
    const layer = forwardOf(state.sentence).layers[0];
    expectClose(inputs.x.data, layer.normed.data, 0);
    expect(inputs.x.shape).toEqual([state.T, D]);
    expect(named['W_query.weight'].shape).toEqual([DH, D]); // the walk's Linear layout: (d_out, d_in)
    expectClose(named.weights.data, english.forward(inputs.ids).attention[0].data.subarray(0, state.T * state.T));
  });

  test('step 6, layer 2 head 3: query, key and value are that head\'s columns of the model\'s', async () => {
    const { named, state } = await runTrained('step=weights&model=trained&model-layer=2&model-head=3');
    const layer = forwardOf(state.sentence).layers[1];
    for (const name of ['query', 'key', 'value']) expectClose(named[name].data, columns(layer[name], 2 * DH, 3 * DH));
    expect(named.b_query.shape).toEqual([DH]);
  });

  test('step 10 shows every head of the layer: its weights and context are the model\'s', async () => {
    const { named, state } = await runTrained('step=multihead&model=trained&model-layer=2');
    const layer = forwardOf(state.sentence).layers[1];
    expectClose(named.weights.data, layer.weights.data);
    expectClose(named['context (split heads)'].data, layer.context.data);
    expectClose(named['context (stacked heads)'].data, layer.context.data);
    expect(Object.keys(named).some((name) => name.startsWith('output (§3.6.2'))).toBe(false); // the book's seeded form stays out
  });

  test('steps 8 and 9 take the same inputs: with p = 0 and the mask, step 8\'s weights are the model\'s; step 9 checks the JS reference', async () => {
    const { named, inputs, state } = await runTrained('step=dropout&model=trained&dropout=0&model-head=2');
    const attention = english.forward(inputs.ids).attention[0].data;
    expectClose(named.weights.data, attention.subarray(state.T * state.T, 2 * state.T * state.T));
    const check = await runTrained('step=check&model=trained&model-head=2');
    expect(check.named['JS reference output']).toBeDefined();
    expectClose(check.named['JS reference output'].data, columns(forwardOf(state.sentence).layers[0].context, DH, 2 * DH));
  });

  test('step 11: the sentence\'s queries attend over the context\'s keys and values through the same layer and head', async () => {
    const { inputs, named, state } = await runTrained('step=cross&model=trained&model-layer=2&model-head=4&layout=matrix');
    const sentence = forwardOf(state.sentence).layers[1];
    const context = forwardOf(state.context).layers[1];
    expectClose(inputs.x.data, sentence.normed.data, 0);
    expectClose(inputs.xContext.data, context.normed.data, 0);
    const [Tq, Tk] = [inputs.tokens.length, inputs.contextTokens.length];
    expect(Tq).not.toBe(Tk);
    // softmax(q_h k_hᵀ / √d_head) with no mask, from the two forwards' own queries and keys
    const q = columns(sentence.query, 3 * DH, 4 * DH);
    const k = columns(context.key, 3 * DH, 4 * DH);
    const expected = [];
    for (let i = 0; i < Tq; i++) {
      const row = Array.from({ length: Tk }, (_, j) => {
        let dot = 0;
        for (let c = 0; c < DH; c++) dot += q[i * DH + c] * k[j * DH + c];
        return dot / Math.sqrt(DH);
      });
      const max = Math.max(...row);
      const sum = row.reduce((a, s) => a + Math.exp(s - max), 0);
      expected.push(...row.map((s) => Math.exp(s - max) / sum));
    }
    expectClose(named.weights.data, expected);
    const notes = trainedNotes(walk, state, inputs, 'cross');
    expect(notes.map((n) => n.note)).toEqual(['trained', 'trained-cross']);
    expect(notes[1].text).toMatch(/decoder-only/);
  });

  test('the note says which layer and head, that x is after the LayerNorm (pre-LN), and why the sizes are locked', () => {
    const { state } = parseState('step=causal&model=trained&model-layer=2&model-head=3');
    const run = trainedRun(walk, state, 'causal');
    const [note] = trainedNotes(walk, run.state, run.inputs, 'causal');
    expect(note.note).toBe('trained');
    expect(note.text).toMatch(/layer 2 of the shipped English model/);
    expect(note.text).toMatch(/head 3/);
    expect(note.text).toMatch(/after its LayerNorm \(the model is pre-LN/);
    expect(note.text).toMatch(/locked/);
    expect(trainedNotes(walk, run.state, run.inputs, 'weights').map((n) => n.note)).toEqual(['trained', 'trained-weights']);
  });

  test('a layer or head beyond the model\'s is said in a note, not clamped silently', () => {
    const { state } = parseState('step=causal&model=trained&model-layer=4&model-head=8');
    const run = trainedRun(walk, state, 'causal');
    const clamped = trainedNotes(walk, run.state, run.inputs, 'causal', state).find((n) => n.note === 'trained-clamped');
    expect(clamped.text).toBe(`model-layer 4: this model has 2 layers, so model-layer 2 is shown. model-head 8: this model has ${H} heads per layer, so model-head ${H} is shown.`);
    const inside = parseState('step=causal&model=trained&model-layer=2&model-head=1').state;
    const runInside = trainedRun(walk, inside, 'causal');
    expect(trainedNotes(walk, runInside.state, runInside.inputs, 'causal', inside).map((n) => n.note)).not.toContain('trained-clamped');
    const all = parseState('step=multihead&model=trained&model-head=8').state; // step 10 shows every head: no head note
    const runAll = trainedRun(walk, all, 'multihead');
    expect(trainedNotes(walk, runAll.state, runAll.inputs, 'multihead', all).map((n) => n.note)).not.toContain('trained-clamped');
  });

  test('a layer or head beyond the model\'s is clamped to its last; edits reach x and the weights', () => {
    const { state } = parseState('step=causal&model=trained&model-layer=4&model-head=8&edits=1.100:0.5,Wq.2.3:-0.75');
    const run = trainedRun(walk, state, 'causal');
    expect(run.state).toMatchObject({ 'model-layer': english.config.layers, 'model-head': H });
    expect(run.inputs.x.data[1 * D + 100]).toBe(0.5);
    expect(run.inputs.weights.shown.query.data[2 * D + 3]).toBe(-0.75);
    expect(run.inputs.projection.query.data[3 * DH + 2]).toBe(-0.75); // the core's (d_in, d_out): transposed
  });
});

describe('the state table for it', () => {
  test('model-layer and model-head default to 1; old links\' model-layer keeps working; the bounds fit the model', () => {
    const { state, notices } = parseState('step=multihead&model=trained');
    expect(notices).toEqual([]);
    expect(state).toMatchObject({ 'model-layer': 1, 'model-head': 1 });
    expect(parseState('step=multihead&model=trained&model-layer=2').state['model-layer']).toBe(2);
    expect(parseState('step=causal&model-head=3').state['model-head']).toBe(3);
    expect(parseState('T=64&dModel=128&dOut=128').notices).toEqual([]);
    expect(parseState('T=65').notices).toHaveLength(1);
    expect(parseState('dModel=129').notices).toHaveLength(1);
    expect(parseState('edits=63.127:1,Wq.127.31:-1').state.edits).toHaveLength(2);
    expect(updateState(state, { 'model-layer': 2, 'model-head': 4 }).state).toMatchObject({ 'model-layer': 2, 'model-head': 4 });
  });
});

describe('a model carried from the Training tab', () => {
  const config = { vocabSize: 5, contextLength: 8, dModel: 8, heads: 2, layers: 2, layerNorm: false };
  const vocabulary = ['the', 'cat', 'sat', 'on', 'mat'];
  const bytes = encodeSafetensors(initParameters(config, 3), { attention_playground: JSON.stringify({ version: 1, config: { ...config, seed: 3 } }) });

  test('its words are its tokens; x is its layer input; a word it never saw is named', async () => {
    expect(carriedModel(bytes, vocabulary, 'the dog sat')).toEqual({ missing: ['dog'] });
    const { model } = carriedModel(bytes, vocabulary, 'the cat sat on the mat');
    const { state } = parseState('step=causal&model=trained&sentence=the+cat+sat+on+the+mat&model-layer=2&model-head=2');
    const run = trainedRun(model, state, 'causal');
    expect(run.state).toMatchObject({ T: 6, dModel: 8, dOut: 4, heads: 1 });
    expect(run.inputs.tokens).toEqual(['the', 'cat', 'sat', 'on', 'the', 'mat']);
    const layer = model.model.forward([0, 1, 2, 3, 0, 4], { intermediates: true }).layers[1];
    expectClose(run.inputs.x.data, layer.normed.data, 0);
    expect(trainedNotes(model, run.state, run.inputs, 'causal')[0].note).toBe('carried');
    expect(() => trainedRun(model, { ...state, sentence: 'the dog' }, 'causal')).toThrow(/never saw “dog”/);
  });
});
