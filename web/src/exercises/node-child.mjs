// The Node grader's child process. It runs in the sandbox (isolation.js) under Node's permission model
// with no file access at all: grade-node.js passes the text of this file and of run-cases.js on the
// command line (an ES module that calls `childMain(runCases)`). It reads {nonce, source, cases, maxValues} on stdin, imports the submission from a data:
// URL, runs it on every case and writes one line, the nonce followed by JSON, on stdout. It decides
// nothing: the grader validates that line and judges it where no submission code runs.

/** Self-contained (no imports): it is sent as text. */
export async function childMain(runCases) {
  // The inspector is shut under the permission model; the listener also keeps SIGUSR1 from doing anything.
  process.on('SIGUSR1', () => {});
  // Taken before the submission's module runs, so a submission that patches globals changes only its
  // own results, not how they are sent.
  const stringify = JSON.stringify;
  const bufferFrom = Buffer.from.bind(Buffer);
  const toBase64 = (bytes) => Buffer.prototype.toString.call(bytes, 'base64');
  const write = process.stdout.write.bind(process.stdout);
  const exit = process.exit.bind(process);
  // What a submission might replace to break how its results are read; one that does gets an error
  // verdict that names it (its results would not be what it computed).
  const watched = {
    'JSON.stringify': () => JSON.stringify,
    'Buffer.from': () => Buffer.from,
    'Buffer.prototype.toString': () => Buffer.prototype.toString,
    'Float32Array.from': () => Float32Array.from,
    'Float32Array.prototype[Symbol.iterator]': () => Float32Array.prototype[Symbol.iterator],
    'Array.prototype[Symbol.iterator]': () => Array.prototype[Symbol.iterator],
    'Array.prototype.map': () => Array.prototype.map,
    'process.stdout.write': () => process.stdout.write,
  };
  const original = Object.fromEntries(Object.entries(watched).map(([name, get]) => [name, get()]));
  const replaced = () => Object.keys(watched).filter((name) => {
    try {
      return watched[name]() !== original[name];
    } catch {
      return true;
    }
  });

  const chunks = [];
  for await (const chunk of process.stdin) chunks.push(chunk);
  const { nonce, source, cases, maxValues } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
  const decode = ({ shape, base64 }) => {
    const bytes = bufferFrom(base64, 'base64');
    return { data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice(), shape };
  };
  const encode = ({ data, shape }) => ({ shape, base64: toBase64(bufferFrom(data.buffer, data.byteOffset, data.byteLength)) });
  const inputs = cases.map((c) => ({ args: c.args.map(decode), options: c.options }));
  const url = `data:text/javascript;base64,${toBase64(bufferFrom(source, 'utf8'))}`;

  let reply;
  try {
    const module = await import(url);
    if (typeof module.default !== 'function') {
      reply = { error: `the submission's default export is ${module.default === undefined ? 'missing' : typeof module.default}; expected a function (export default function …)` };
    } else {
      const results = await runCases(module.default, inputs, maxValues);
      reply = { results: results.map((r) => (r.output ? { output: encode(r.output) } : r)) };
    }
  } catch (error) {
    reply = { error: `the submission could not be loaded: ${String(error?.message ?? error).slice(0, 300)}` };
  }
  const tampered = replaced();
  if (tampered.length > 0) reply = { error: `the submission replaced ${tampered.join(', ')}, which the grader needs to read its results` };
  write(`\n${nonce}${stringify(reply)}\n`, () => exit(0));
}
