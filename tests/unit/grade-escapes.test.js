// The grader against hostile submissions (issue 25): each escape runs through real graders (scripts/grade.mjs
// or gradeExercise) with the sandbox on. A machine where the sandbox cannot be built fails these tests
// (gradeExercise and `npm run grade` refuse to grade there); nothing is skipped.
import { execFile, spawn } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, test } from 'vitest';
import { EXERCISE_BY_ID } from '../../web/src/exercises/bank/index.js';
import { gradeExercise } from '../../web/src/exercises/grade-node.js';
import { NODE_BASE_MB, probeSandbox, sandboxFor } from '../../web/src/exercises/isolation.js';

const CAUSAL = EXERCISE_BY_ID.get('causal/neg-inf-mask');
const SOFTMAX = EXERCISE_BY_ID.get('self-attention/stable-softmax');
/** A wrong answer to causal/neg-inf-mask: only an escape could make it pass. */
const WRONG = 'export default function causalWeights(s) { return { data: new Float32Array(s.data.length).fill(0.5), shape: s.shape }; }\n';
/** Throws what the submission's top-level code recorded in `tried`, so the test can read it in the verdict. */
const REPORT = 'export default function causalWeights() { throw new Error("tried " + JSON.stringify(tried)); }\n';

const folder = mkdtempSync(join(tmpdir(), 'grade-escapes-'));
const pwned = join(folder, 'written-by-the-grader.txt');
afterAll(() => rmSync(folder, { recursive: true, force: true }));

let server;
let connections = 0;
beforeAll(async () => {
  server = createServer((socket) => { connections++; socket.end(); }).listen(0, '127.0.0.1');
  await new Promise((resolve) => server.on('listening', resolve));
});
afterAll(() => server.close());

function submission(name, source) {
  const file = join(folder, name);
  writeFileSync(file, source);
  return file;
}

function grade(args, { env = process.env, execArgv = [] } = {}) {
  return new Promise((resolve) => {
    const started = Date.now();
    execFile(process.execPath, [...execArgv, 'scripts/grade.mjs', ...args], { timeout: 30_000, env }, (error, stdout, stderr) => {
      resolve({ code: error ? error.code : 0, signal: error?.signal ?? null, stdout, stderr, ms: Date.now() - started });
    });
  });
}

/** The processes descending from `pid` (from /proc: the sandbox's are visible there under host PIDs). */
function descendants(pid) {
  const parents = new Map();
  for (const name of readdirSync('/proc').filter((n) => /^\d+$/.test(n))) {
    try {
      const stat = readFileSync(`/proc/${name}/stat`, 'utf8');
      parents.set(Number(name), Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]));
    } catch { /* gone */ }
  }
  const found = [];
  for (let frontier = [pid]; frontier.length > 0;) {
    const children = [...parents].filter(([, parent]) => frontier.includes(parent)).map(([child]) => child);
    found.push(...children);
    frontier = children;
  }
  return found;
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const reported = (verdict) => verdict.cases[0].error ?? verdict.error;

// Issue 25's escape: SIGUSR1 opens the grader's inspector, the submission connects to it and runs code
// there (Math.abs = () => 0 makes every comparison pass; the same route writes a file as the grader).
const INSPECTOR_ESCAPE = `import http from 'node:http';
import net from 'node:net';
const tried = [];
for (const pid of [process.ppid, 0, -1]) {
  try { process.kill(pid, 'SIGUSR1'); tried.push('signalled ' + pid); } catch (e) { tried.push(e.code); }
}
await new Promise((r) => setTimeout(r, 300));
const expression = ${JSON.stringify(`Math.abs = () => 0; process.getBuiltinModule('fs').writeFileSync(${JSON.stringify(pwned)}, 'x')`)};
const url = await new Promise((resolve) => {
  http.get('http://127.0.0.1:9229/json/list', (res) => {
    let body = ''; res.on('data', (c) => { body += c; }); res.on('end', () => resolve(JSON.parse(body)[0].webSocketDebuggerUrl));
  }).on('error', (e) => { tried.push(e.code); resolve(null); });
});
if (url) {
  const { port, pathname } = new URL(url);
  await new Promise((resolve) => {
    const s = net.connect(Number(port), '127.0.0.1', () => {
      s.write('GET ' + pathname + ' HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nUpgrade: websocket\\r\\nConnection: Upgrade\\r\\n' +
        'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\\r\\nSec-WebSocket-Version: 13\\r\\n\\r\\n');
      const message = Buffer.from(JSON.stringify({ id: 1, method: 'Runtime.evaluate', params: { expression } }));
      const header = Buffer.from([0x81, 0x80 | 126, message.length >> 8, message.length & 255, 0, 0, 0, 0]);
      s.write(Buffer.concat([header, message]));
      tried.push('connected to the inspector');
    });
    s.on('data', (d) => { if (String(d).includes('"id":1')) { s.end(); resolve(); } });
    s.on('error', (e) => { tried.push(e.code); resolve(); });
  });
}
`;

describe('the sandbox this machine gives each submission', () => {
  test('holds every protection (own PID namespace, no network, a data-segment limit)', async () => {
    const sandbox = await probeSandbox();
    expect(sandbox.missing).toEqual([]);
    expect(sandbox.isolated).toBe(true);
  });

  test('where a protection is missing, grading is refused with its name unless the instructor opts out', async () => {
    const missing = { isolated: false, tools: {}, missing: ['a network namespace (unshare --net): unshare failed: Operation not permitted'] };
    await expect(sandboxFor('grade', {}, missing)).rejects.toThrow(/^grade: refusing to run untrusted code without a network namespace \(unshare --net\): .*--allow-unisolated/);
    await expect(sandboxFor('grade', { allowUnisolated: true }, missing)).resolves.toBe(missing);
  });
});

describe.concurrent('hostile submissions against `npm run grade`', () => {
  test('SIGUSR1 to the grader does not open its inspector: the wrong answer fails and nothing is written', async () => {
    const escape = await grade(['--exercise', CAUSAL.id, submission('usr1.js', INSPECTOR_ESCAPE + WRONG)]);
    expect(escape.code).toBe(1);
    expect(JSON.parse(escape.stdout).outcome).toBe('fail');
    expect(escape.stderr).not.toContain('Debugger');
    const report = await grade(['--exercise', CAUSAL.id, submission('usr1-report.js', INSPECTOR_ESCAPE + REPORT)]);
    expect(reported(JSON.parse(report.stdout))).not.toContain('connected to the inspector');
    expect(existsSync(pwned)).toBe(false);
  });

  test('SIGSTOP to the grader, its group and every process: a verdict at the time limit', async () => {
    const source = `for (const pid of [process.ppid, 0, -1]) { try { process.kill(pid, 'SIGSTOP'); } catch {} }
export default function causalWeights(s) { for (;;) {} }
`;
    const { code, stdout, ms } = await grade(['--timeout', '1500', '--exercise', CAUSAL.id, submission('stop.js', source)]);
    expect(code).toBe(2);
    expect(JSON.parse(stdout).error).toContain('time limit of 1.5 s');
    expect(ms).toBeLessThan(25_000);
  });

  test('SIGTERM and SIGKILL to the grader during --all: every file still gets its verdict', async () => {
    const dir = mkdtempSync(join(folder, 'all-'));
    const killer = `for (const signal of ['SIGTERM', 'SIGKILL']) for (const pid of [process.ppid, 0, -1]) { try { process.kill(pid, signal); } catch {} }\n${WRONG}`;
    writeFileSync(join(dir, 'causal__mask-with-zero.js'), killer);
    writeFileSync(join(dir, 'causal__neg-inf-mask.js'), CAUSAL.solution);
    writeFileSync(join(dir, 'self-attention__stable-softmax.js'), SOFTMAX.solution);
    const { code, signal, stdout } = await grade(['--all', dir]);
    expect(signal).toBe(null);
    const verdicts = stdout.trim().split('\n').map((line) => JSON.parse(line));
    expect(verdicts.map((v) => v.id)).toEqual(['causal/mask-with-zero', 'causal/neg-inf-mask', 'self-attention/stable-softmax']);
    expect(verdicts[0].outcome).not.toBe('pass');
    expect(verdicts.slice(1).map((v) => v.outcome)).toEqual(['pass', 'pass']);
    expect(code).toBeGreaterThan(0);
  });

  test('a grader that is killed takes its submission\'s processes with it', async () => {
    const file = submission('forever.js', 'export default function causalWeights() { for (;;) {} }\n');
    const grader = spawn(process.execPath, ['scripts/grade.mjs', '--timeout', '60000', '--exercise', CAUSAL.id, file], { stdio: 'ignore' });
    let sandbox = [];
    for (let i = 0; i < 100 && sandbox.length < 2; i++, await sleep(100)) sandbox = descendants(grader.pid);
    expect(sandbox.length).toBeGreaterThanOrEqual(2); // the chain (setpriv, prlimit, unshare: one PID) and Node
    grader.kill('SIGKILL');
    let left = sandbox;
    for (let i = 0; i < 50 && left.length > 0; i++, await sleep(100)) left = sandbox.filter((pid) => existsSync(`/proc/${pid}/stat`) && !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z '));
    expect(left).toEqual([]);
  });

  test('graded by an unprivileged user: in a user namespace where the kernel allows one, else refused', async () => {
    // As root, the grader runs as nobody from a copy anyone may read (the clone may sit under /root).
    const asUser = process.getuid() === 0 ? ['/usr/bin/setpriv', '--reuid', '65534', '--regid', '65534', '--clear-groups', '--'] : [];
    const copy = mkdtempSync(join(folder, 'unprivileged-'));
    cpSync('package.json', join(copy, 'package.json'));
    cpSync('scripts/grade.mjs', join(copy, 'scripts/grade.mjs'));
    for (const dir of ['web/src/exercises', 'web/src/core', 'web/src/base']) cpSync(dir, join(copy, dir), { recursive: true, filter: (path) => !path.includes('/wasm') });
    const source = `for (const signal of ['SIGUSR1', 'SIGSTOP', 'SIGTERM']) for (const pid of [process.ppid, 0, -1]) { try { process.kill(pid, signal); } catch {} }\n${WRONG}`;
    writeFileSync(join(copy, 'escape.js'), source);
    const everyone = (path) => {
      chmodSync(path, 0o755);
      if (statSync(path).isDirectory()) for (const name of readdirSync(path)) everyone(join(path, name));
    };
    chmodSync(folder, 0o755);
    everyone(copy);
    const [file, ...prefix] = [...asUser, process.execPath];
    const run = (args) => new Promise((resolve) => {
      execFile(file, [...prefix, ...args], { timeout: 30_000, env: {} }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, signal: error?.signal ?? null, stdout, stderr }));
    });
    const userNamespaces = await new Promise((resolve) => {
      const [tool, ...rest] = [...asUser, '/usr/bin/unshare', '--map-current-user', '--fork', '--pid', '--net', '--', 'true'];
      execFile(tool, rest, (error) => resolve(!error));
    });
    const graded = await run([join(copy, 'scripts/grade.mjs'), '--timeout', '1500', '--exercise', CAUSAL.id, join(copy, 'escape.js')]);
    expect(graded.signal).toBe(null);
    if (userNamespaces) {
      expect(['fail', 'error']).toContain(JSON.parse(graded.stdout).outcome);
    } else {
      expect(graded.code).toBe(2);
      expect(graded.stderr).toMatch(/refusing to run untrusted code without a PID namespace/);
    }
  });

  test('a grader started with --inspect, or NODE_OPTIONS=--inspect, refuses to grade', async () => {
    const file = submission('plain.js', CAUSAL.solution);
    const flagged = await grade(['--exercise', CAUSAL.id, file], { execArgv: ['--inspect=127.0.0.1:0'] });
    expect(flagged.code).toBe(2);
    expect(flagged.stderr).toContain('refusing to grade while this process\'s inspector is open');
    const optioned = await grade(['--exercise', CAUSAL.id, file], { env: { ...process.env, NODE_OPTIONS: '--inspect=127.0.0.1:0' } });
    expect(optioned.code).toBe(2);
    expect(optioned.stderr).toContain('run the grader without --inspect');
  });
});

describe.concurrent('hostile submissions against gradeExercise', () => {
  test('the submission cannot open an inspector in its own process or signal this one', async () => {
    const source = `import inspector from 'node:inspector';
const tried = [];
for (const pid of [process.ppid, 0, -1]) { try { process.kill(pid, 'SIGUSR1'); tried.push('signalled'); } catch (e) { tried.push(e.code); } }
try { inspector.open(0); tried.push('opened ' + inspector.url()); } catch (e) { tried.push(e.code); }
${REPORT}`;
    const verdict = await gradeExercise(CAUSAL.id, source);
    expect(reported(verdict)).toContain('ERR_ACCESS_DENIED');
    expect(reported(verdict)).not.toContain('opened');
    expect(inspector.url()).toBe(undefined);
  });

  test('no network: a connection to a loopback server, by net or fetch, never arrives', async () => {
    const { port } = server.address();
    const source = `import net from 'node:net';
const tried = [];
await new Promise((resolve) => { const s = net.connect(${port}, '127.0.0.1', () => { tried.push('connected'); s.end(); resolve(); }); s.on('error', (e) => { tried.push(e.code); resolve(); }); });
try { await fetch('http://127.0.0.1:${port}/'); tried.push('fetched'); } catch (e) { tried.push(e.cause?.code ?? e.message); }
${REPORT}`;
    const before = connections;
    const verdict = await gradeExercise(CAUSAL.id, source);
    expect(reported(verdict)).toMatch(/tried \["ENETUNREACH","ENETUNREACH"\]/);
    expect(connections - before).toBe(0);
  });

  test('memory outside the V8 heap is capped: Buffers, ArrayBuffers and WebAssembly memory', async () => {
    const memoryMb = 256;
    const source = `const MB = 1024 * 1024;
const held = []; let total = 0; const tried = [];
try { for (let i = 0; i < 16; i++) { held.push(Buffer.allocUnsafe(256 * MB)); total += 256; } } catch (e) { tried.push('Buffer: ' + e.message); }
try { for (let i = 0; i < 16; i++) { held.push(new ArrayBuffer(256 * MB)); total += 256; } } catch (e) { tried.push('ArrayBuffer: ' + e.message); }
try { const m = new WebAssembly.Memory({ initial: 1, maximum: 32768 }); held.push(m); for (let i = 0; i < 64; i++) { m.grow(512); total += 32; } } catch (e) { tried.push('WebAssembly: ' + e.message); }
tried.push('held ' + total + ' MB');
${REPORT}`;
    const verdict = await gradeExercise(CAUSAL.id, source, { memoryMb });
    const error = reported(verdict);
    expect(error).toContain('Buffer: Array buffer allocation failed');
    expect(error).toContain('ArrayBuffer: Array buffer allocation failed');
    expect(error).toContain('WebAssembly: WebAssembly.Memory.grow(): Unable to grow instance memory');
    expect(Number(error.match(/held (\d+) MB/)[1])).toBeLessThanOrEqual(memoryMb + NODE_BASE_MB);
  });

  test('patched globals: every verdict resolves, an error naming what was replaced, never a pass', async () => {
    const patches = {
      'JSON.stringify': 'JSON.stringify = () => \'{"results":[]}\';',
      'Buffer.from': 'const from = Buffer.from; Buffer.from = () => from.call(Buffer, "");',
      'Float32Array.prototype[Symbol.iterator]': 'Float32Array.prototype[Symbol.iterator] = function* () {};',
      'process.stdout.write': 'process.stdout.write = () => true;',
    };
    const verdicts = await Promise.all(Object.values(patches).map((patch) => gradeExercise(CAUSAL.id, `${patch}\n${CAUSAL.solution}`)));
    Object.keys(patches).forEach((name, i) => {
      expect(verdicts[i].outcome, name).toBe('error');
      expect(verdicts[i].error, name).toContain(`the submission replaced ${name}`);
    });
    // Not watched, and harmless: a reply's fields are its own properties.
    const polluted = 'Object.defineProperty(Object.prototype, "output", { get() { return { shape: [1], base64: "AACAPw==" }; }, set() {} });';
    expect((await gradeExercise(CAUSAL.id, `${polluted}\n${WRONG}`)).outcome).toBe('fail');
  });
});
