// The exercise bank: every entry is well formed, its reference solution passes through the real grader
// (a child process under Node's permission model), and every listed wrong solution, and every fix-the-bug
// starter, fails at the first mismatch the entry promises.
import { describe, expect, test } from 'vitest';
import { EXERCISES, EXERCISE_IDS, exercisesOfStep } from '../../web/src/exercises/bank/index.js';
import { prepareCases } from '../../web/src/exercises/grade-core.js';
import { gradeExercise } from '../../web/src/exercises/grade-node.js';
import { STEP_IDS } from '../../web/src/ui/state.js';

const KINDS = ['write', 'predict', 'fix'];

describe('exercise bank', () => {
  test('ids are STEP-ID/slug, unique, and name a step of the page', () => {
    expect(new Set(EXERCISE_IDS).size).toBe(EXERCISE_IDS.length);
    for (const e of EXERCISES) {
      expect(e.id).toMatch(/^[a-z-]+\/[a-z0-9-]+$/);
      expect(e.id.split('/')[0]).toBe(e.step);
      expect(STEP_IDS).toContain(e.step);
    }
  });

  test('at least two exercises for each of steps 2–11, and seed 003\'s Exercises 3.1–3.3', () => {
    for (const step of STEP_IDS.slice(1, 11)) expect(exercisesOfStep(step).length, step).toBeGreaterThanOrEqual(2);
    expect(EXERCISES.map((e) => e.seed).filter(Boolean).sort()).toEqual(['Exercise 3.1', 'Exercise 3.2', 'Exercise 3.3']);
  });

  test('every entry has a kind, an entry function, cases, hints and a solution', () => {
    for (const e of EXERCISES) {
      expect(KINDS).toContain(e.kind);
      expect(typeof e.entry.name).toBe('string');
      expect(Array.isArray(e.entry.params)).toBe(true);
      expect(e.cases.length).toBeGreaterThan(0);
      expect(e.hints.length).toBeGreaterThanOrEqual(2);
      expect(e.solution).toMatch(/export default/);
      if (e.kind !== 'predict') expect(e.starter).toMatch(/export default/);
      if (e.kind === 'predict') expect(['cells', 'choice', 'estimate']).toContain(e.answer.type);
      if (e.kind === 'fix') expect(e.starterMismatch).toBeDefined();
      if (e.kind !== 'fix') expect(e.wrong.length, e.id).toBeGreaterThan(0);
    }
  });

  test('write exercises include edge cases: T=1 or one value, and large logits or ties where a softmax is involved', () => {
    for (const e of EXERCISES.filter((x) => x.kind !== 'predict' && x.step !== 'check' && x.id !== 'weights/transfer-v2-to-v1')) {
      expect(e.cases.some((c) => /T=1|Tq=1|Tk=1|one value|N=1/.test(c.input)), e.id).toBe(true);
    }
    const inputs = EXERCISES.flatMap((e) => e.cases.map((c) => c.input)).join(' | ');
    for (const edge of ['ties', 'large logits', 'a fully masked row']) expect(inputs).toContain(edge);
  });

  test('cases are seeded: preparing them twice gives the same inputs and expected results', () => {
    for (const e of EXERCISES) {
      const [a, b] = [prepareCases(e), prepareCases(e)];
      a.forEach((c, i) => {
        expect(Array.from(c.expected.data)).toEqual(Array.from(b[i].expected.data));
        c.args.forEach((t, j) => expect(Array.from(t.data)).toEqual(Array.from(b[i].args[j].data)));
      });
    }
  });
});

describe.each(EXERCISES.map((e) => [e.id, e]))('%s', (id, exercise) => {
  test('the reference solution passes every case', async () => {
    const verdict = await gradeExercise(id, exercise.solution);
    expect(verdict.error).toBeUndefined();
    expect(verdict.cases.filter((c) => !c.pass)).toEqual([]);
    expect(verdict.outcome).toBe('pass');
    expect(verdict.cases).toHaveLength(exercise.cases.length);
  });

  const wrongs = [
    ...exercise.wrong.map((w) => [w.why, w.source, w.firstMismatch]),
    ...(exercise.kind === 'fix' ? [['the buggy starter', exercise.starter, exercise.starterMismatch]] : []),
  ];
  test.each(wrongs)('a wrong solution fails at its first mismatch: %s', async (why, source, expected) => {
    const verdict = await gradeExercise(id, source);
    expect(verdict.outcome).toBe('fail');
    expect({ case: verdict.firstMismatch.case, index: verdict.firstMismatch.index }).toEqual(expected);
  });
});

describe('docs', () => {
  test('docs/exercises.md lists every exercise id with its entry function', async () => {
    const { readFileSync } = await import('node:fs');
    const text = readFileSync('docs/exercises.md', 'utf8');
    for (const e of EXERCISES) {
      expect(text, e.id).toContain(`| \`${e.id}\` |`);
      expect(text, e.id).toContain(`\`${e.entry.name}(`);
    }
  });
});
