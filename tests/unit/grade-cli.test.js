// `npm run grade`: the JSON verdict and the exit codes (0 pass, 1 fail, 2 error, time-out or nothing
// exported), `--all DIR`, and what the child process's permission model refuses.
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, test } from 'vitest';
import { EXERCISE_BY_ID } from '../../web/src/exercises/bank/index.js';
import { gradeExercise } from '../../web/src/exercises/grade-node.js';

const folder = mkdtempSync(join(tmpdir(), 'grade-test-'));
afterAll(() => rmSync(folder, { recursive: true, force: true }));

function submission(name, source) {
  const file = join(folder, name);
  writeFileSync(file, source);
  return file;
}

function grade(...args) {
  return new Promise((resolve) => {
    execFile(process.execPath, ['scripts/grade.mjs', ...args], { timeout: 60_000 }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, stdout, stderr });
    });
  });
}

const SOFTMAX = EXERCISE_BY_ID.get('self-attention/stable-softmax');

describe('npm run grade -- --exercise', () => {
  test('a passing submission: exit 0 and a JSON verdict {id, outcome, cases: [{input, maxAbsError, pass}]}', async () => {
    const { code, stdout } = await grade('--exercise', SOFTMAX.id, submission('pass.js', SOFTMAX.solution));
    expect(code).toBe(0);
    const verdict = JSON.parse(stdout);
    expect(verdict).toMatchObject({ id: SOFTMAX.id, outcome: 'pass' });
    expect(verdict.cases.map((c) => c.input)).toEqual(SOFTMAX.cases.map((c) => c.input));
    for (const c of verdict.cases) {
      expect(c.pass).toBe(true);
      expect(c.maxAbsError).toBeLessThanOrEqual(1e-5);
    }
  });

  test('a wrong submission: exit 1, outcome fail, the failing case named', async () => {
    const { code, stdout } = await grade('--exercise', SOFTMAX.id, submission('fail.js', SOFTMAX.wrong[0].source));
    expect(code).toBe(1);
    const verdict = JSON.parse(stdout);
    expect(verdict.outcome).toBe('fail');
    expect(verdict.cases.find((c) => !c.pass).input).toBe('large logits');
  });

  test('a module that exports nothing: exit 2', async () => {
    const { code, stdout } = await grade('--exercise', SOFTMAX.id, submission('nothing.js', 'export const softmax = 1;\n'));
    expect(code).toBe(2);
    expect(JSON.parse(stdout)).toMatchObject({ outcome: 'error', error: expect.stringContaining('default export is missing') });
  });

  test('an infinite loop is stopped at the time limit: exit 2', async () => {
    const { code, stdout } = await grade('--timeout', '1500', '--exercise', SOFTMAX.id, submission('loop.js', 'export default function softmax(x) { for (;;) {} }\n'));
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error).toContain('time limit');
  });

  test('a submission that outgrows its memory limit is stopped: exit 2', async () => {
    const hog = 'export default function softmax(x) { const a = []; for (;;) a.push({ s: "x".repeat(64) + a.length, o: [a.length] }); }\n';
    const { code, stdout } = await grade('--memory', '64', '--timeout', '30000', '--exercise', SOFTMAX.id, submission('hog.js', hog));
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error).toContain('memory limit (64 MB)');
  });

  test('a function that throws, and a syntax error: exit 2', async () => {
    const threw = await grade('--exercise', SOFTMAX.id, submission('throws.js', 'export default () => { throw new Error("boom"); };\n'));
    expect(threw.code).toBe(2);
    expect(JSON.parse(threw.stdout).cases[0].error).toContain('boom');
    const syntax = await grade('--exercise', SOFTMAX.id, submission('syntax.js', 'export default function (x { }\n'));
    expect(syntax.code).toBe(2);
    expect(JSON.parse(syntax.stdout).error).toContain('could not be loaded');
  });

  test('an unknown id, a missing file and bad usage: exit 2', async () => {
    const unknown = await grade('--exercise', 'nope/nothing', submission('x.js', SOFTMAX.solution));
    expect(unknown.code).toBe(2);
    expect(JSON.parse(unknown.stdout).error).toContain('is not an exercise');
    expect((await grade('--exercise', SOFTMAX.id, join(folder, 'missing.js'))).code).toBe(2);
    const usage = await grade('--bogus');
    expect(usage.code).toBe(2);
    expect(usage.stderr).toContain('usage');
  });
});

describe('npm run grade -- --all', () => {
  test('grades ID.js files (the id\'s "/" as "__"), one JSON line each; exit 0 only if all pass', async () => {
    const dir = mkdtempSync(join(folder, 'all-'));
    const causal = EXERCISE_BY_ID.get('causal/neg-inf-mask');
    writeFileSync(join(dir, 'self-attention__stable-softmax.js'), SOFTMAX.solution);
    writeFileSync(join(dir, 'causal__neg-inf-mask.js'), causal.solution);
    const allPass = await grade('--all', dir);
    expect(allPass.code).toBe(0);
    const lines = allPass.stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(lines.map((v) => [v.id, v.outcome])).toEqual([['causal/neg-inf-mask', 'pass'], ['self-attention/stable-softmax', 'pass']]);

    writeFileSync(join(dir, 'causal__neg-inf-mask.js'), causal.wrong[0].source);
    expect((await grade('--all', dir)).code).toBe(1);
    writeFileSync(join(dir, 'loop__running-mean.js'), 'export default 42;\n');
    const withError = await grade('--all', dir);
    expect(withError.code).toBe(2);
    expect(withError.stdout.trim().split('\n')).toHaveLength(3);
  });
});

describe('the child process under the permission model', () => {
  test('cannot write files, start processes or workers, or read files', async () => {
    const source = `export default async function softmax(x) {
  const tried = [];
  const fs = await import('node:fs');
  try { fs.writeFileSync(${JSON.stringify(join(folder, 'written.txt'))}, 'x'); tried.push('wrote'); } catch (e) { tried.push(e.code); }
  try { (await import('node:child_process')).execSync('true'); tried.push('spawned'); } catch (e) { tried.push(e.code); }
  try { new (await import('node:worker_threads')).Worker('1', { eval: true }); tried.push('worker'); } catch (e) { tried.push(e.code); }
  try { fs.readFileSync('/etc/hostname'); tried.push('read'); } catch (e) { tried.push(e.code); }
  throw new Error(tried.join(','));
}
`;
    const verdict = await gradeExercise(SOFTMAX.id, source);
    expect(verdict.outcome).toBe('error');
    expect(verdict.cases[0].error).toContain('ERR_ACCESS_DENIED,ERR_ACCESS_DENIED,ERR_ACCESS_DENIED,ERR_ACCESS_DENIED');
    expect(readdirSync(folder)).not.toContain('written.txt');
  });

  test('cannot forge the verdict by printing', async () => {
    const forged = `console.log(JSON.stringify({ results: [] }));
export default function softmax(x) { return { data: new Float32Array(x.data.length), shape: x.shape }; }
`;
    expect((await gradeExercise(SOFTMAX.id, forged)).outcome).toBe('fail');
  });

  test('a result larger than the size limit is an error', async () => {
    const huge = 'export default () => ({ data: new Float32Array(2_000_000), shape: [2_000_000] });\n';
    const verdict = await gradeExercise(SOFTMAX.id, huge);
    expect(verdict.outcome).toBe('error');
    expect(verdict.cases[0].error).toContain('the limit is');
  });
});
