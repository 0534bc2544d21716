// What the bank's entries are written with. A starter or a wrong answer is its exercise's solution with a
// change or two, so it is written as those changes: the bug the learner must find is the visible difference,
// and the solution and its variants cannot drift apart. A predict exercise's answer is one number.
import { randomTensor } from '../tensors.js';

/**
 * `source` with each [from, to] applied in turn; every `from` must stand exactly once in the text it edits
 * (a typo must not leave a wrong answer equal to the solution).
 * @param {string} source
 * @param {...[string, string]} changes
 */
export function edit(source, ...changes) {
  return changes.reduce((text, [from, to]) => {
    const at = text.indexOf(from);
    if (at < 0 || text.includes(from, at + 1)) throw new Error(`exercise bank: '${from}' stands ${at < 0 ? 'nowhere' : 'more than once'} in the source it edits`);
    return text.slice(0, at) + to + text.slice(at + from.length);
  }, source);
}

/** The source of a predict exercise's answer: `expression`, a number, as a tensor of shape [1]. */
export const answerSource = (expression) => `export default () => ({ data: Float32Array.of(${expression}), shape: [1] });\n`;

/** The entry of a predict exercise: a function `answer()` that returns `returns`. */
export const answerEntry = (returns) => ({ name: 'answer', params: [], returns });

/** A case's inputs: one random sequence x of shape (B, T, C), its values times `scale`. */
export const sequence = (B, T, C, scale = 1) => (next) => ({ inputs: { x: randomTensor(next, [B, T, C], scale) } });

/** A wrong answer: the mistake, its source, and where it first fails (by default case 0's first value). */
export const mistake = (why, source, firstMismatch = { case: 0, index: 0 }) => ({ why, source, firstMismatch });

/**
 * A fix-the-bug exercise: its starter is the bug, and it fails first at case 0's first value; the starter is its
 * one wrong answer, so it lists none.
 */
export const fixTheBug = ({ id, step, ...exercise }) => ({ id, step, kind: 'fix', starterMismatch: { case: 0, index: 0 }, ...exercise, wrong: [] });
