// Node only. Where the headless grader runs a submission so that it cannot reach the grader
// (docs/exercises.md, "What the grader's sandbox protects"), built from util-linux:
// - unshare: its own PID namespace (it cannot signal or trace any process outside it; killing its first
//   process kills them all) and network namespace (no interface is up: no network, not even the
//   grader's loopback), as root then running as nobody (uid 65534) where nobody can run this Node;
// - prlimit: RLIMIT_DATA, which caps the V8 heap, Buffers, ArrayBuffers and WebAssembly memory alike;
// - setpriv: SIGKILL to each process of the chain when its parent dies, so nothing outlives the grader.
import { execFile } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import inspector from 'node:inspector';
import { delimiter, join } from 'node:path';

/** What Node needs beside a full V8 heap: its own data (~48 MB at start), the young generation, code. */
export const NODE_BASE_MB = 128;
const NOBODY = '65534';

/** Each protection the grader needs, named as the refusal names it, and the probe that shows it holds. */
const PROTECTIONS = [
  { name: 'a memory limit outside the V8 heap (prlimit --data, RLIMIT_DATA)', tool: 'prlimit', args: () => ['--data=1073741824', '--', 'true'] },
  { name: 'a PID namespace (unshare --pid)', tool: 'unshare', args: (user) => [...user, '--fork', '--kill-child', '--pid', '--mount-proc', '--', 'true'] },
  { name: 'a network namespace (unshare --net)', tool: 'unshare', args: (user) => [...user, '--net', '--', 'true'] },
];

function which(tool) {
  const path = `${process.env.PATH ?? ''}${delimiter}/usr/bin${delimiter}/bin${delimiter}/usr/sbin${delimiter}/sbin`;
  for (const dir of path.split(delimiter).filter(Boolean)) {
    try {
      accessSync(join(dir, tool), constants.X_OK);
      return join(dir, tool);
    } catch { /* not here */ }
  }
  return null;
}

function run(file, args) {
  return new Promise((resolve) => {
    execFile(file, args, { timeout: 10_000, env: {} }, (error, stdout, stderr) => {
      resolve({ ok: !error, stdout, detail: (stderr.trim().split('\n').pop() || error?.message || '').slice(0, 200) });
    });
  });
}

const asRoot = () => process.getuid?.() === 0;
/** As root: namespaces straight away, then nobody. Otherwise: in a user namespace, as the same user. */
const userFlags = () => (asRoot() ? [] : ['--map-current-user']);
const dropFlags = (sandbox) => (sandbox.user === 'nobody' ? ['--reuid', NOBODY, '--regid', NOBODY, '--clear-groups'] : []);

/**
 * The command line that runs `node nodeArgs…` as a submission's process: isolated (every protection), or,
 * when the instructor chose to grade without isolation, plain Node (under prlimit where it works).
 * @returns {{file: string, args: string[]}}
 */
export function sandboxCommand(sandbox, { memoryMb, nodeArgs }) {
  const dataBytes = String((memoryMb + NODE_BASE_MB) * 1024 * 1024);
  const { tools } = sandbox;
  if (!sandbox.isolated) {
    return tools.prlimit
      ? { file: tools.prlimit, args: [`--data=${dataBytes}`, '--', process.execPath, ...nodeArgs] }
      : { file: process.execPath, args: nodeArgs };
  }
  return {
    file: tools.setpriv,
    args: [
      '--pdeathsig', 'KILL', '--',
      tools.prlimit, `--data=${dataBytes}`, '--',
      tools.unshare, ...userFlags(), '--fork', '--kill-child', '--pid', '--net', '--mount-proc', '--',
      tools.setpriv, ...dropFlags(sandbox), '--no-new-privs', '--pdeathsig', 'KILL', '--',
      process.execPath, ...nodeArgs,
    ],
  };
}

// Run inside the full chain: it must be its namespace's first process and see no network interface.
const CHAIN_CHECK = `const os = require('node:os');
const problems = [];
if (process.pid !== 1) problems.push('its PID is ' + process.pid + ', not 1');
if (Object.keys(os.networkInterfaces()).length > 0) problems.push('it sees network interfaces');
process.stdout.write(problems.join('; ') || 'isolated uid=' + process.getuid());`;

async function probe() {
  const tools = Object.fromEntries(['setpriv', 'prlimit', 'unshare'].map((tool) => [tool, which(tool)]));
  // As root the submission runs as nobody, unless nobody cannot run this Node (e.g. one installed under
  // /root): then as root, still in its own namespaces (its file access then rests on the permission model).
  const users = asRoot() ? ['nobody', 'root'] : ['same'];
  const sandbox = { isolated: true, tools, missing: [], user: users[0] };
  if (Object.values(tools).every(Boolean)) {
    for (const user of users) {
      sandbox.user = user;
      const { file, args } = sandboxCommand(sandbox, { memoryMb: 64, nodeArgs: ['-e', CHAIN_CHECK] });
      const chain = await run(file, args);
      if (chain.ok && chain.stdout.startsWith('isolated')) return sandbox;
      sandbox.chainProblem ??= chain.ok ? chain.stdout : chain.detail;
    }
  }
  // Something does not hold: find which, to name it.
  for (const protection of PROTECTIONS) {
    const tool = tools[protection.tool];
    const result = tool ? await run(tool, protection.args(userFlags())) : { ok: false, detail: `${protection.tool} (util-linux) is not installed` };
    if (!result.ok) sandbox.missing.push(`${protection.name}: ${result.detail}`);
  }
  if (!tools.setpriv) sandbox.missing.push('SIGKILL to the submission when the grader dies (setpriv --pdeathsig): setpriv (util-linux) is not installed');
  if (sandbox.missing.length === 0) sandbox.missing.push(`Node in its own namespaces: ${sandbox.chainProblem}`);
  sandbox.isolated = false;
  return sandbox;
}

let probed = null;

/**
 * How submissions will run here: {isolated, user: 'nobody'|'root'|'same', tools, missing}. Probed once per
 * process (a few short processes), then cached.
 */
export function probeSandbox() {
  probed ??= probe();
  return probed;
}

/**
 * The sandbox to grade in, or an Error naming each protection that does not hold on this machine, unless
 * the instructor chose `allowUnisolated`.
 */
export async function sandboxFor(fn, { allowUnisolated = false } = {}, sandbox = undefined) {
  sandbox ??= await probeSandbox();
  if (sandbox.isolated || allowUnisolated) return sandbox;
  throw new Error(`${fn}: refusing to run untrusted code without ${sandbox.missing.join('; and without ')}. ` +
    'Grade as root, or where unprivileged user namespaces are allowed (sysctl kernel.unprivileged_userns_clone=1, ' +
    'user.max_user_namespaces > 0), or pass --allow-unisolated ({allowUnisolated: true}) to grade trusted code without it');
}

let signalGuarded = false;

/**
 * Keeps Node's inspector shut in the grading process: a SIGUSR1 listener replaces the signal's default
 * action (opening the inspector on 127.0.0.1:9229), and an inspector that is already open is refused.
 */
export function guardGradingProcess(fn) {
  if (!signalGuarded) {
    process.on('SIGUSR1', () => {});
    signalGuarded = true;
  }
  const url = inspector.url();
  if (url) throw new Error(`${fn}: refusing to grade while this process's inspector is open (${url}); run the grader without --inspect`);
}
