// Runs a learner's entry function on each case and checks the shape of what it returns. It is the one
// piece of code that shares a thread with learner code, so it is self-contained (no imports, no outer
// names): the Node grader sends its text to its sandboxed process (grade-node.js) and the page's sandboxed
// Worker receives its source text (runCases.toString()). It decides nothing: the comparison with the core
// happens outside, where the learner's code cannot reach.

/**
 * @param {Function} fn the submission's default export
 * @param {{args: object[], options?: object}[]} cases tensors {data: Float32Array, shape} and plain options
 * @param {number} maxValues the most values one result may hold
 * @returns {Promise<({output: {data: Float32Array, shape: number[]}} | {error: string})[]>}
 */
export async function runCases(fn, cases, maxValues) {
  const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an Array' : typeof value);
  const results = [];
  for (const testCase of cases) {
    try {
      const args = testCase.args.map((t) => ({ data: Float32Array.from(t.data), shape: [...t.shape] }));
      if (testCase.options !== undefined) args.push({ ...testCase.options });
      const out = await fn(...args);
      if (out === null || typeof out !== 'object' || !Array.isArray(out.shape) || out.data === undefined) {
        results.push({ error: `the function returned ${describe(out)}; expected a tensor {data: Float32Array, shape: number[]}` });
        continue;
      }
      const shape = out.shape.map(Number);
      const length = Number(out.data.length);
      if (!shape.every((d) => Number.isSafeInteger(d) && d >= 0) || !Number.isSafeInteger(length)) {
        results.push({ error: `the function returned shape ${JSON.stringify(out.shape)}; expected non-negative integers` });
        continue;
      }
      if (length > maxValues) {
        results.push({ error: `the function returned ${length} values; the limit is ${maxValues}` });
        continue;
      }
      const size = shape.reduce((a, d) => a * d, 1);
      if (size !== length) {
        results.push({ error: `the function returned ${length} values for shape [${shape.join(', ')}], which holds ${size}` });
        continue;
      }
      results.push({ output: { data: Float32Array.from(out.data, Number), shape } });
    } catch (error) {
      results.push({ error: `the function threw: ${String(error && error.message ? error.message : error).slice(0, 300)}` });
    }
  }
  return results;
}
