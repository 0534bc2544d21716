// The inputs the page builds from its state: tokens, embeddings and seeded weights.
import { describe, expect, test } from 'vitest';
import { defaultState } from '../../web/src/ui/state.js';
import {
  buildInputs, columns, seededMatrix, takeTokens, tokenIds, tokenize, transposed,
} from '../../web/src/ui/inputs.js';

describe('inputs', () => {
  test('the default sentence gives the classic six-token embeddings', () => {
    const inputs = buildInputs(defaultState());
    expect(inputs.tokens).toEqual(['Your', 'journey', 'starts', 'with', 'one', 'step']);
    expect(inputs.x.shape).toEqual([6, 3]);
    expect(Array.from(inputs.x.data.subarray(3, 6))).toEqual([0.55, 0.87, 0.66].map(Math.fround));
  });

  test('step 1 frames T+1 tokens and never wraps around the sentence (issue 11 #7)', () => {
    const short = buildInputs({ ...defaultState(), sentence: 'a b', T: 3 });
    expect(short.tokens).toEqual(['a', 'b', 'a']); // the other steps still repeat a short sentence
    expect(Array.from(short.framingIds)).toEqual([0, 1]); // one pair: a → b, not b → a
    expect(short.framingVocabulary).toEqual(['a', 'b']);
    const long = buildInputs({ ...defaultState(), sentence: 'a b c d e', T: 3 });
    expect(Array.from(long.framingIds)).toEqual([0, 1, 2, 3]);
    const one = buildInputs({ ...defaultState(), sentence: 'a', T: 2 });
    expect(Array.from(one.framingIds)).toEqual([0, 0, 0]); // a single word still makes pairs
  });

  test('a word keeps its random embedding when the sentence around it changes', () => {
    const one = buildInputs({ ...defaultState(), sentence: 'alpha beta', T: 2, dModel: 4 });
    const two = buildInputs({ ...defaultState(), sentence: 'gamma alpha', T: 2, dModel: 4 });
    expect(Array.from(two.x.data.subarray(4, 8))).toEqual(Array.from(one.x.data.subarray(0, 4)));
  });

  test('seeded weights are deterministic, in [-1, 1), and change with the seed', () => {
    const a = seededMatrix(7, 'query', 3, 4);
    expect(seededMatrix(7, 'query', 3, 4).data).toEqual(a.data);
    expect(seededMatrix(8, 'query', 3, 4).data).not.toEqual(a.data);
    for (const v of a.data) expect(v >= -1 && v < 1).toBe(true);
  });

  test('edits replace cells of x, and edits outside x are ignored', () => {
    const state = { ...defaultState(), edits: [{ matrix: 'x', row: 0, col: 2, value: -3.5 }, { matrix: 'x', row: 20, col: 0, value: 1 }, { matrix: 'Wq', row: 0, col: 0, value: 9 }] };
    const inputs = buildInputs(state);
    expect(inputs.x.data[2]).toBe(-3.5);
    expect(inputs.x.data.length).toBe(18);
  });

  test('weight edits replace cells of their own projection only; the seeded values stay elsewhere', () => {
    const plain = buildInputs(defaultState());
    const edits = [
      { matrix: 'Wq', row: 2, col: 1, value: 7.5 }, { matrix: 'crossWk', row: 0, col: 0, value: -2 },
      { matrix: 'Wv', row: 40, col: 0, value: 1 },
    ];
    const inputs = buildInputs({ ...defaultState(), edits });
    expect(inputs.projection.query.data[2 * 2 + 1]).toBe(7.5);
    expect(inputs.crossProjection.key.data[0]).toBe(-2);
    const changed = (a, b) => Array.from(a.data).filter((v, i) => v !== b.data[i]).length;
    expect(changed(inputs.projection.query, plain.projection.query)).toBe(1);
    expect(changed(inputs.crossProjection.key, plain.crossProjection.key)).toBe(1);
    for (const name of ['key', 'value']) expect(inputs.projection[name].data).toEqual(plain.projection[name].data);
    for (const name of ['query', 'value']) expect(inputs.crossProjection[name].data).toEqual(plain.crossProjection[name].data);
    expect(inputs.x.data).toEqual(plain.x.data);
  });

  test('tokenize, ids, column blocks and transposes', () => {
    expect(tokenize('  Hello,   world  ')).toEqual(['Hello,', 'world']);
    expect(takeTokens(['x'], 3)).toEqual(['x', 'x', 'x']);
    expect(Array.from(tokenIds(['A', 'b', 'a']).ids)).toEqual([0, 1, 0]);
    const m = { data: Float32Array.from([1, 2, 3, 4, 5, 6]), shape: [2, 3] };
    expect(columns(m, 1, 3)).toEqual({ data: Float32Array.from([2, 3, 5, 6]), shape: [2, 2] });
    expect(transposed(m)).toEqual({ data: Float32Array.from([1, 4, 2, 5, 3, 6]), shape: [3, 2] });
  });
});
