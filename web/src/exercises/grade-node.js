// Headless grading (`npm run grade`, and `gradeExercise` for an instructor's own scripts): the same cases
// and the same comparison as the page, with the submission run in a child Node process under the
// permission model (docs/exercises.md, "What the grader's sandbox protects").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { exerciseById, judge, MAX_OUTPUT_VALUES, prepareCases } from './grade-core.js';

const CHILD = fileURLToPath(new URL('./node-child.mjs', import.meta.url));
const RUN_CASES = fileURLToPath(new URL('./run-cases.js', import.meta.url));
/** What the child may print before it is stopped: the results of every case, with room for logging. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;

export const GRADE_DEFAULTS = { timeoutMs: 10_000, memoryMb: 256 };

const encode = ({ data, shape }) => ({ shape, base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') });
const decode = ({ shape, base64 }) => {
  const bytes = Buffer.from(base64, 'base64');
  return { data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice(), shape };
};

/**
 * Grades `source` (the text of an ES module whose default export is the entry function) against the
 * exercise `id`. Resolves to the verdict {id, outcome: 'pass'|'fail'|'error', cases: [{input,
 * maxAbsError, pass}], firstMismatch, error?}; rejects only for an unknown id or a source that is not text.
 * @param {string} id e.g. 'causal/neg-inf-mask'
 * @param {string} source
 * @param {{timeoutMs?: number, memoryMb?: number}} [options]
 */
export async function gradeExercise(id, source, options = {}) {
  const exercise = exerciseById('gradeExercise', id);
  if (typeof source !== 'string') throw new Error(`gradeExercise: source is ${typeof source}; expected the text of an ES module`);
  const { timeoutMs, memoryMb } = { ...GRADE_DEFAULTS, ...options };
  const prepared = prepareCases(exercise);
  const nonce = randomBytes(12).toString('hex');
  const input = JSON.stringify({
    nonce,
    source,
    maxValues: MAX_OUTPUT_VALUES,
    cases: prepared.map((c) => ({ args: c.args.map(encode), options: c.options })),
  });
  const run = await runChild(input, { timeoutMs, memoryMb });
  if (run.error) return judge(exercise, prepared, { error: run.error });
  const at = run.stdout.lastIndexOf(nonce);
  if (at < 0) {
    const reason = run.signal ? `was stopped by ${run.signal}` : `exited with code ${run.code}`;
    return judge(exercise, prepared, { error: `the submission ${reason} before it returned (${run.stderr.trim().split('\n').pop() ?? ''})`.slice(0, 400) });
  }
  const reply = JSON.parse(run.stdout.slice(at + nonce.length).split('\n')[0]);
  if (reply.error) return judge(exercise, prepared, { error: reply.error });
  return judge(exercise, prepared, { results: reply.results.map((r) => (r.output ? { output: decode(r.output) } : r)) });
}

function runChild(input, { timeoutMs, memoryMb }) {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [
      '--experimental-permission', `--allow-fs-read=${CHILD}`, `--allow-fs-read=${RUN_CASES}`,
      `--max-old-space-size=${memoryMb}`, '--no-warnings', CHILD,
    ], { stdio: ['pipe', 'pipe', 'pipe'], env: {} });
    let stdout = '';
    let stderr = '';
    let error = null;
    const timer = setTimeout(() => {
      error = `the submission ran past the time limit of ${timeoutMs / 1000} s (an infinite loop?) and was stopped`;
      child.kill('SIGKILL');
    }, timeoutMs);
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.length > MAX_STDOUT_BYTES && !error) {
        error = `the submission printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MB and was stopped`;
        child.kill('SIGKILL');
      }
    });
    child.stderr.on('data', (chunk) => { if (stderr.length < 100_000) stderr += chunk; });
    child.stdin.on('error', () => {}); // a child that dies early closes its stdin
    child.stdin.end(input);
    child.on('close', (code, signal) => {
      clearTimeout(timer);
      if (!error && /heap out of memory|Reached heap limit/i.test(stderr)) error = `the submission ran out of its memory limit (${memoryMb} MB) and was stopped`;
      resolve({ stdout, stderr, code, signal, error });
    });
  });
}
