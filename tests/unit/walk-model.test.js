// The walk's shipped trained model is what scripts/train-walk-model.mjs produces with the project's trainer
// (JS backend, seed 1): a fresh run gives the committed file byte for byte.
import { execFileSync } from 'node:child_process';
import { expect, test } from 'vitest';

test('scripts/train-walk-model.mjs --check reproduces web/src/ui/trained/walk-model.safetensors', () => {
  const output = execFileSync(process.execPath, ['scripts/train-walk-model.mjs', '--check']).toString();
  expect(output).toContain('byte for byte');
});
