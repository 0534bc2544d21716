// examples/train-induction.mjs runs as a user would run it: the two-layer model learns the induction task.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

describe('examples/train-induction.mjs', () => {
  test('trains the two-layer induction task below loss 0.1 and finds an induction head', () => {
    const output = execFileSync(process.execPath, ['examples/train-induction.mjs'], { cwd: ROOT, encoding: 'utf8' });
    expect(output.startsWith('backend: wasm-simd\n')).toBe(true);
    // The seeded run, step for step on this backend (the comment at the top of the example states it).
    expect(output).toMatch(/loss 0\.0\d+ < 0\.1 after 192 steps/);
    const head = output.match(/induction head: layer (\d), head (\d), score ([\d.]+)/);
    expect(head).not.toBeNull();
    expect(Number(head[1])).toBe(1); // the second layer: it needs the first layer's previous-token information
    expect(Number(head[3])).toBeGreaterThan(0.5);
  }, 120_000);
});
