// Runs learner code where it can reach nothing: a Worker inside an <iframe sandbox="allow-scripts">
// (an opaque origin: no access to the page, its storage or its cookies) whose Content-Security-Policy
// allows no network (connect-src 'none') and no scripts but its own inline one and blob: URLs. The
// frame is built from a srcdoc string, so it works from the single file opened from file:// too.
//
// The page talks to the frame through a MessageChannel handed over once; the frame talks to its Worker.
// The learner's module runs only in the Worker (no window, no document, no parent; its postMessage is
// taken away before the module loads), under a time limit (the frame terminates the Worker and says so;
// the page removes the whole frame if even that does not answer) and a size limit on what it returns.
import { runCases } from '../run-cases.js';
import { MAX_OUTPUT_VALUES } from '../grade-core.js';

const CSP = "default-src 'none'; script-src 'unsafe-inline' blob:; worker-src blob:; connect-src 'none'; img-src 'none'; style-src 'none'; font-src 'none'; frame-src 'none'; base-uri 'none'; form-action 'none'";

// The Worker's own code: the shared runner, then the protocol, inside a function so that no name of
// it is global (a classic script's top-level `const post` is visible to the learner's module, which could
// then post a reply of its own). `post` is kept before the learner's module loads and the global
// postMessage (an own property of the global object, which [Global] interfaces carry) replaced for good,
// so learner code cannot speak on the channel.
const WORKER_SOURCE = `'use strict';
(() => {
  const runCases = ${runCases.toString().replace(/^async function \w*/, 'async function')};
  const post = self.postMessage.bind(self);
  Object.defineProperty(self, 'postMessage', { value: () => {}, writable: false, configurable: false });
  self.onmessage = async (event) => {
    self.onmessage = null;
    const { source, cases, maxValues } = event.data;
    let module;
    try {
      module = await import(URL.createObjectURL(new Blob([source], { type: 'text/javascript' })));
    } catch (error) {
      post({ error: 'your code could not be loaded: ' + String(error && error.message ? error.message : error).slice(0, 300) });
      return;
    }
    if (typeof module.default !== 'function') {
      post({ error: 'your module\\'s default export is ' + (module.default === undefined ? 'missing' : typeof module.default) + '; expected a function (export default function …)' });
      return;
    }
    post({ results: await runCases(module.default, cases, maxValues) });
  };
})();`;

// The frame's script: accepts one port from its parent, runs each request in a fresh Worker, checks
// the size and form of the answer and passes on only {runId, results} or {runId, error}.
const FRAME_SCRIPT = `(() => {
  const WORKER_URL = URL.createObjectURL(new Blob([${JSON.stringify(WORKER_SOURCE)}], { type: 'text/javascript' }));
  const isTensor = (o, max) => o && o.data instanceof Float32Array && o.data.length <= max && Array.isArray(o.shape);
  addEventListener('message', (event) => {
    if (event.source !== parent || !event.data || event.data.type !== 'ap-sandbox:port' || !event.ports[0]) return;
    const port = event.ports[0];
    port.onmessage = ({ data }) => {
      const { runId, source, cases, maxValues, timeoutMs } = data;
      const worker = new Worker(WORKER_URL);
      let done = false;
      const finish = (body) => {
        if (done) return;
        done = true;
        clearTimeout(timer);
        worker.terminate();
        port.postMessage({ runId, ...body });
      };
      const timer = setTimeout(() => finish({ timedOut: true }), timeoutMs);
      worker.onmessage = ({ data: reply }) => {
        if (reply && typeof reply.error === 'string') return finish({ error: reply.error.slice(0, 400) });
        const results = reply && Array.isArray(reply.results) ? reply.results.slice(0, cases.length) : [];
        const valid = results.length === cases.length && results.every((r) => r && (typeof r.error === 'string' || isTensor(r.output, maxValues)));
        if (!valid) return finish({ error: 'your code answered in a form the checker does not accept' });
        finish({ results: results.map((r) => (r.output ? { output: { data: r.output.data, shape: r.output.shape.map(Number) } } : { error: String(r.error).slice(0, 400) })) });
      };
      worker.onerror = (event) => { event.preventDefault(); finish({ error: 'your code failed: ' + (event.message || 'an error in the worker') }); };
      worker.postMessage({ source, cases, maxValues });
    };
    port.postMessage({ ready: true });
  });
})();`;

export const SANDBOX_SRCDOC = `<!doctype html><html><head><meta charset="utf-8"><meta http-equiv="Content-Security-Policy" content="${CSP}"><title>sandbox</title></head><body><script>${FRAME_SCRIPT}</script></body></html>`;

/**
 * A sandbox frame attached to `host` (hidden). `run(source, cases, {timeoutMs})` resolves to
 * {results} (one {output} or {error} per case), {error}, or {timedOut: true}.
 */
export function createSandbox(host) {
  let frame = null;
  let ready = null;
  let runs = 0;
  const pending = new Map();

  function start() {
    frame = document.createElement('iframe');
    frame.className = 'exercise-sandbox';
    frame.setAttribute('sandbox', 'allow-scripts');
    frame.setAttribute('title', 'exercise sandbox');
    frame.setAttribute('aria-hidden', 'true');
    frame.tabIndex = -1;
    frame.srcdoc = SANDBOX_SRCDOC;
    const channel = new MessageChannel();
    ready = new Promise((resolve) => {
      channel.port1.onmessage = ({ data }) => {
        if (data.ready) return resolve(channel.port1);
        pending.get(data.runId)?.(data);
        pending.delete(data.runId);
      };
    });
    // The frame's origin is opaque, so the only target origin that reaches it is '*'; the message
    // carries nothing but the port, and goes to this one frame's window.
    frame.addEventListener('load', () => frame.contentWindow.postMessage({ type: 'ap-sandbox:port' }, '*', [channel.port2]), { once: true });
    host.append(frame);
  }

  function reset() {
    frame?.remove();
    for (const resolve of pending.values()) resolve({ error: 'the sandbox was reset' });
    pending.clear();
    frame = null;
  }

  return {
    async run(source, cases, { timeoutMs = 3000 } = {}) {
      if (!frame) start();
      const port = await ready;
      const runId = ++runs;
      return new Promise((resolve) => {
        // The frame stops a runaway Worker itself; should the frame not answer at all, drop it.
        const guard = setTimeout(() => {
          pending.delete(runId);
          reset();
          resolve({ timedOut: true });
        }, timeoutMs + 3000);
        pending.set(runId, (reply) => {
          clearTimeout(guard);
          resolve(reply);
        });
        port.postMessage({ runId, source, cases, maxValues: MAX_OUTPUT_VALUES, timeoutMs });
      });
    },
    dispose: reset,
  };
}
