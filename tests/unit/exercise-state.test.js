// The `exercise` URL parameter: an exercise id from the bank, or nothing; anything else falls back with a notice.
import { describe, expect, test } from 'vitest';
import { parseState, serializeState, updateState, defaultState } from '../../web/src/ui/state.js';
import { EXERCISE_IDS } from '../../web/src/exercises/bank/index.js';

describe('exercise parameter', () => {
  test('takes every id of the bank and round-trips through the URL', () => {
    for (const id of EXERCISE_IDS) {
      const { state, notices } = parseState(`exercise=${encodeURIComponent(id)}&embed=1`);
      expect(notices).toEqual([]);
      expect(state.exercise).toBe(id);
      expect(parseState(serializeState(state)).state.exercise).toBe(id);
    }
  });

  test('defaults to none, and an unknown id is refused with a notice', () => {
    expect(defaultState().exercise).toBe('');
    const { state, notices } = parseState('exercise=causal%2F%3Cscript%3E');
    expect(state.exercise).toBe('');
    expect(notices).toHaveLength(1);
    expect(notices[0]).toContain('exercise');
  });

  test('can be opened and closed by an update', () => {
    const opened = updateState(defaultState(), { exercise: 'loop/running-mean' }).state;
    expect(opened.exercise).toBe('loop/running-mean');
    expect(updateState(opened, { exercise: '' }).state.exercise).toBe('');
  });
});
