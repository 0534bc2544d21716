#!/usr/bin/env node
// Headless grading of exercise submissions (docs/exercises.md):
//   npm run grade -- --exercise ID submission.js   one JSON verdict; exit 0 pass, 1 fail, 2 error
//   npm run grade -- --all DIR                     DIR/ID.js (the id's "/" as "__"), one JSON line each;
//                                                  exit 0 only if all pass (2 if any errored, else 1)
//   --timeout MS (default 10000), --memory MB (default 256): the limits of each submission's process.
//   --allow-unisolated: grade where the submission cannot be isolated (trusted code only).
// Each submission runs in its own sandboxed process (web/src/exercises/isolation.js); none runs here.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { guardGradingProcess, sandboxFor } from '../web/src/exercises/isolation.js';
import { gradeExercise, GRADE_DEFAULTS } from '../web/src/exercises/grade-node.js';

const EXIT = { pass: 0, fail: 1, error: 2 };
const USAGE = 'usage: npm run grade -- --exercise ID submission.js | --all DIR  [--timeout MS] [--memory MB] [--allow-unisolated]';

function usage(message) {
  process.stderr.write(`grade: ${message}\n${USAGE}\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const args = { timeoutMs: GRADE_DEFAULTS.timeoutMs, memoryMb: GRADE_DEFAULTS.memoryMb, allowUnisolated: false, files: [] };
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i];
    const value = () => (i + 1 < argv.length ? argv[++i] : usage(`${arg} needs a value`));
    if (arg === '--exercise') args.exercise = value();
    else if (arg === '--all') args.all = value();
    else if (arg === '--timeout') args.timeoutMs = positive(arg, value());
    else if (arg === '--memory') args.memoryMb = positive(arg, value());
    else if (arg === '--allow-unisolated') args.allowUnisolated = true;
    else if (arg.startsWith('--')) usage(`unknown option ${arg}`);
    else args.files.push(arg);
  }
  return args;
}

function positive(name, text) {
  const value = Number(text);
  if (!Number.isInteger(value) || value <= 0) usage(`${name}=${text}; expected a positive integer`);
  return value;
}

async function gradeFile(id, file, limits) {
  let source;
  try {
    source = readFileSync(file, 'utf8');
  } catch (error) {
    return { id, outcome: 'error', error: `cannot read ${file}: ${error.code ?? error.message}`, cases: [] };
  }
  try {
    return await gradeExercise(id, source, limits);
  } catch (error) {
    return { id, outcome: 'error', error: error.message, cases: [] };
  }
}

const args = parseArgs(process.argv.slice(2));
const limits = { timeoutMs: args.timeoutMs, memoryMb: args.memoryMb, allowUnisolated: args.allowUnisolated };
try {
  guardGradingProcess('grade');
  const sandbox = await sandboxFor('grade', limits);
  if (!sandbox.isolated) process.stderr.write(`grade: WARNING: grading without ${sandbox.missing.join('; without ')} (--allow-unisolated)\n`);
} catch (error) {
  process.stderr.write(`${error.message}\n`);
  process.exit(2);
}
if (args.exercise !== undefined && args.all === undefined) {
  if (args.files.length !== 1) usage('--exercise takes exactly one submission file');
  const verdict = await gradeFile(args.exercise, args.files[0], limits);
  process.stdout.write(`${JSON.stringify(verdict)}\n`);
  process.exitCode = EXIT[verdict.outcome];
} else if (args.all !== undefined && args.exercise === undefined && args.files.length === 0) {
  let names;
  try {
    names = readdirSync(args.all).filter((name) => name.endsWith('.js')).sort();
  } catch (error) {
    usage(`cannot read the folder ${args.all}: ${error.code ?? error.message}`);
  }
  if (names.length === 0) usage(`${args.all} holds no submissions (ID.js, the id's "/" written "__")`);
  let worst = 0;
  for (const name of names) {
    const id = name.slice(0, -3).replaceAll('__', '/');
    const verdict = await gradeFile(id, join(args.all, name), limits);
    process.stdout.write(`${JSON.stringify(verdict)}\n`);
    worst = Math.max(worst, EXIT[verdict.outcome]);
  }
  process.exitCode = worst;
} else {
  usage('give either --exercise ID FILE or --all DIR');
}
