// The README's Node example runs as a user would run it, and prints the numbers DESIGN.md promises.
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

function runExample(...args) {
  return execFileSync(process.execPath, ['examples/node-example.mjs', ...args], { cwd: ROOT, encoding: 'utf8' });
}

describe('examples/node-example.mjs', () => {
  test.each([
    ['by default, on the SIMD WebAssembly build', [], 'backend: wasm-simd\n'],
    ['on the JS reference', ['js'], 'backend: js\n'],
  ])('prints the six-token weights and outputs %s', (_, args, firstLine) => {
    const output = runExample(...args);
    expect(output.startsWith(firstLine)).toBe(true);
    // Step 5, query "journey": its weights and context vector (DESIGN.md).
    expect(output).toContain('journey  0.1385 0.2379 0.2333 0.1240 0.1082 0.1581\n');
    expect(output).toContain('journey  0.4419 0.6515 0.5683\n');
    // Step 6 with torch.manual_seed(123) projections: the context vector of "journey".
    expect(output).toContain('selfAttention: output [6,2]\n');
    expect(output).toContain('journey  0.3061 0.8210\n');
  });
});
