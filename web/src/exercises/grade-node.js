// Headless grading (`npm run grade`, and `gradeExercise` for an instructor's own scripts): the same cases
// and the same comparison as the page. Each submission runs in its own process in the sandbox of
// isolation.js (own PID and network namespaces, a data-segment limit, Node's permission model); this
// process, where no submission code runs, enforces the time limit, validates the reply and judges it
// (docs/exercises.md, "What the grader's sandbox protects").
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { exerciseById, judge, MAX_OUTPUT_VALUES, prepareCases } from './grade-core.js';
import { guardGradingProcess, sandboxCommand, sandboxFor } from './isolation.js';

/** What the child may print before it is stopped: the results of every case, with room for logging. */
const MAX_STDOUT_BYTES = 64 * 1024 * 1024;
/** How long a killed sandbox may take to close its pipes before the grader stops waiting. */
const CLOSE_GRACE_MS = 2_000;
/** The child's program, passed on its command line: it reads no file. Both files are self-contained. */
const CHILD_SCRIPT = ['./run-cases.js', './node-child.mjs'].map((file) => readFileSync(new URL(file, import.meta.url), 'utf8')).join('\n') +
  '\nawait childMain(runCases);\n';

export const GRADE_DEFAULTS = { timeoutMs: 10_000, memoryMb: 256 };

const encode = ({ data, shape }) => ({ shape, base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') });

/**
 * Grades `source` (the text of an ES module whose default export is the entry function) against the
 * exercise `id`. Resolves to the verdict {id, outcome: 'pass'|'fail'|'error', cases: [{input,
 * maxAbsError, pass}], firstMismatch, error?} whatever the submission does. Rejects only for an unknown
 * id, a source that is not text, an invalid option, an open inspector in this process, or a machine where
 * the submission cannot be isolated (unless `allowUnisolated`).
 * @param {string} id e.g. 'causal/neg-inf-mask'
 * @param {string} source
 * @param {{timeoutMs?: number, memoryMb?: number, allowUnisolated?: boolean}} [options]
 */
export async function gradeExercise(id, source, options = {}) {
  const exercise = exerciseById('gradeExercise', id);
  if (typeof source !== 'string') throw new Error(`gradeExercise: source is ${typeof source}; expected the text of an ES module`);
  const { timeoutMs = GRADE_DEFAULTS.timeoutMs, memoryMb = GRADE_DEFAULTS.memoryMb, allowUnisolated = false } = options;
  for (const [name, value] of Object.entries({ timeoutMs, memoryMb })) {
    if (!Number.isSafeInteger(value) || value <= 0) throw new Error(`gradeExercise: options.${name}=${value}; expected a positive integer`);
  }
  guardGradingProcess('gradeExercise');
  const sandbox = await sandboxFor('gradeExercise', { allowUnisolated });
  const prepared = prepareCases(exercise);
  try {
    const nonce = randomBytes(12).toString('hex');
    const input = JSON.stringify({
      nonce,
      source,
      maxValues: MAX_OUTPUT_VALUES,
      cases: prepared.map((c) => ({ args: c.args.map(encode), options: c.options })),
    });
    const run = await runChild(sandbox, input, { timeoutMs, memoryMb });
    if (run.error) return judge(exercise, prepared, { error: run.error });
    const at = run.stdout.lastIndexOf(nonce);
    if (at < 0) return judge(exercise, prepared, { error: deathMessage(run, memoryMb) });
    const reply = readReply(run.stdout.slice(at + nonce.length).split('\n')[0], prepared.length);
    return judge(exercise, prepared, reply);
  } catch (error) {
    // Nothing the submission returns should get here (readReply checks it all); if it does, it is an error.
    return judge(exercise, prepared, { error: `the grader could not judge the submission's reply: ${String(error?.message ?? error).slice(0, 300)}` });
  }
}

function deathMessage(run, memoryMb) {
  if (/heap out of memory|Reached heap limit|Fatal process out of memory|Cannot allocate memory/i.test(run.stderr)) {
    return `the submission ran out of its memory limit (${memoryMb} MB) and was stopped`;
  }
  if (['SIGSEGV', 'SIGBUS', 'SIGABRT', 'SIGTRAP'].includes(run.signal)) {
    return `the submission's process crashed (${run.signal}) before it returned: most likely at its memory limit (${memoryMb} MB)`;
  }
  const reason = run.signal ? `was stopped by ${run.signal}` : `exited with code ${run.code}`;
  return `the submission ${reason} before it returned (${run.stderr.trim().split('\n').pop() ?? ''})`.slice(0, 400);
}

/**
 * The child's reply, checked: {error} for the whole run, or {results} with one {output: {data, shape}} or
 * {error} per case. Anything else is the submission's doing (it broke its process's transport) and
 * becomes an error.
 */
function readReply(line, caseCount) {
  let reply;
  try {
    reply = JSON.parse(line);
  } catch {
    return { error: 'the submission\'s process sent a reply that is not JSON (did it replace JSON.stringify or process.stdout?)' };
  }
  if (reply === null || typeof reply !== 'object') return { error: 'the submission\'s process sent a reply that is not an object' };
  if (typeof reply.error === 'string') return { error: reply.error.slice(0, 400) };
  if (!Array.isArray(reply.results) || reply.results.length !== caseCount) {
    return { error: `the submission's process sent ${Array.isArray(reply.results) ? reply.results.length : 'no'} results; expected ${caseCount}` };
  }
  return { results: reply.results.map(readResult) };
}

function readResult(result) {
  if (result !== null && typeof result === 'object' && typeof result.error === 'string') return { error: result.error.slice(0, 400) };
  const output = result?.output;
  const shape = output?.shape;
  if (!Array.isArray(shape) || !shape.every((d) => Number.isSafeInteger(d) && d >= 0) || typeof output.base64 !== 'string') {
    return { error: 'the submission\'s process sent a malformed result (no shape or no data)' };
  }
  const size = shape.reduce((a, d) => a * d, 1);
  if (size > MAX_OUTPUT_VALUES) return { error: `the function returned ${size} values; the limit is ${MAX_OUTPUT_VALUES}` };
  const bytes = Buffer.from(output.base64, 'base64');
  if (bytes.length !== size * 4) {
    return { error: `the submission's process sent ${bytes.length / 4} values for shape [${shape.join(', ')}], which holds ${size} (did it replace Buffer or a typed array's methods?)` };
  }
  return { output: { data: new Float32Array(bytes.buffer, bytes.byteOffset, size).slice(), shape } };
}

/**
 * Runs the child in its sandbox, in a process group of its own, and SIGKILLs the whole group at the time
 * limit: a stopped child, or one that killed its own supervisor, is killed all the same.
 */
function runChild(sandbox, input, { timeoutMs, memoryMb }) {
  return new Promise((resolve) => {
    const { file, args } = sandboxCommand(sandbox, {
      memoryMb,
      nodeArgs: ['--experimental-permission', `--max-old-space-size=${memoryMb}`, '--no-warnings', '--input-type=module', '-e', CHILD_SCRIPT],
    });
    const child = spawn(file, args, { stdio: ['pipe', 'pipe', 'pipe'], env: {}, detached: true });
    let stdout = '';
    let stderr = '';
    let error = null;
    let settled = false;
    const finish = (code, signal) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(grace);
      resolve({ stdout, stderr, code, signal, error });
    };
    let grace = null;
    const killAll = (why) => {
      error ??= why;
      try {
        process.kill(-child.pid, 'SIGKILL');
      } catch { /* already gone */ }
      grace ??= setTimeout(() => finish(null, 'SIGKILL'), CLOSE_GRACE_MS);
    };
    const timer = setTimeout(() => killAll(`the submission ran past the time limit of ${timeoutMs / 1000} s (an infinite loop, or a stopped process?) and was stopped`), timeoutMs);
    child.on('error', (spawnError) => {
      error ??= `the grader could not start the submission's process: ${spawnError.message}`;
      finish(null, null);
    });
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
      if (stdout.length > MAX_STDOUT_BYTES) killAll(`the submission printed more than ${MAX_STDOUT_BYTES / 1024 / 1024} MB and was stopped`);
    });
    child.stderr.on('data', (chunk) => { if (stderr.length < 100_000) stderr += chunk; });
    child.stdin.on('error', () => {}); // a child that dies early closes its stdin
    child.stdin.end(input);
    // Its pipes close when the whole sandbox is gone (each process gets SIGKILL when its parent dies).
    child.on('close', finish);
  });
}
