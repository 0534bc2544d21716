// The bank's authoring helpers (web/src/exercises/bank/authoring.js): a starter or a wrong answer written as
// edits of its solution must differ from it, so an edit whose text is missing or ambiguous is an error.
import { describe, expect, test } from 'vitest';
import { answerSource, edit } from '../../web/src/exercises/bank/authoring.js';

describe('exercise authoring', () => {
  const source = 'const a = 1;\nconst b = a + 1;\n';

  test('edit applies each change in turn', () => {
    expect(edit(source, ['a + 1', 'a - 1'], ['const a = 1', 'const a = 2'])).toBe('const a = 2;\nconst b = a - 1;\n');
  });

  test('edit refuses a change whose text stands nowhere or more than once', () => {
    expect(() => edit(source, ['a * 1', 'a'])).toThrow("exercise bank: 'a * 1' stands nowhere in the source it edits");
    expect(() => edit(source, ['const', 'let'])).toThrow("exercise bank: 'const' stands more than once in the source it edits");
  });

  test('answerSource is a module whose default export returns the number as a tensor of shape [1]', () => {
    expect(answerSource('1 / 4')).toBe('export default () => ({ data: Float32Array.of(1 / 4), shape: [1] });\n');
  });
});
