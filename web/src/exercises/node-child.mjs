// The Node grader's child process: reads {nonce, source, cases, maxValues} on stdin, imports the
// submission from a data: URL, runs it on every case (run-cases.js) and writes one line, the nonce
// followed by JSON, on stdout. It runs under Node's permission model (grade-node.js): it may read only
// this file and run-cases.js, and may not write files or start processes or workers.
import { runCases } from './run-cases.js';

const chunks = [];
for await (const chunk of process.stdin) chunks.push(chunk);
const { nonce, source, cases, maxValues } = JSON.parse(Buffer.concat(chunks).toString('utf8'));
const write = process.stdout.write.bind(process.stdout);
const decode = ({ shape, base64 }) => {
  const bytes = Buffer.from(base64, 'base64');
  return { data: new Float32Array(bytes.buffer, bytes.byteOffset, bytes.length / 4).slice(), shape };
};
const encode = ({ data, shape }) => ({ shape, base64: Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64') });

let reply;
try {
  const module = await import(`data:text/javascript;base64,${Buffer.from(source, 'utf8').toString('base64')}`);
  if (typeof module.default !== 'function') {
    reply = { error: `the submission's default export is ${module.default === undefined ? 'missing' : typeof module.default}; expected a function (export default function …)` };
  } else {
    const results = await runCases(module.default, cases.map((c) => ({ args: c.args.map(decode), options: c.options })), maxValues);
    reply = { results: results.map((r) => (r.output ? { output: encode(r.output) } : r)) };
  }
} catch (error) {
  reply = { error: `the submission could not be loaded: ${String(error?.message ?? error).slice(0, 300)}` };
}
write(`\n${nonce}${JSON.stringify(reply)}\n`, () => process.exit(0));
