// GPT-2 on workers (web/src/gpt2/worker-model.js): the model cut into shares (worker-plan.js), each share a
// cpp/kernels/gpt2_shard.h in its own WASM instance run by shard-host.js, the shares exchanging their partial
// sums over real MessagePorts; here the hosts run in-process (Node has no Web Worker; the Web Workers
// themselves are tested in Chromium, tests/e2e/gpt2-workers-model.spec.js). The PyTorch fixtures hold on 2
// and 3 workers (an uneven cut), with and without the weights, ablated as the JS reference is.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { installRelaxedTile } from '../../web/src/core/backends/relaxed-tile.js';
import { gpt2Config } from '../../web/src/gpt2/checkpoint.js';
import { loadGpt2FromDirectory } from '../../web/src/gpt2/load.js';
import { createGpt2 } from '../../web/src/gpt2/model.js';
import { readSafetensorsHeader, readTensor } from '../../web/src/gpt2/safetensors-read.js';
import { createShardHost } from '../../web/src/gpt2/shard-host.js';
import { createWorkerGpt2 } from '../../web/src/gpt2/worker-model.js';
import { gpt2Shares, planGpt2Workers } from '../../web/src/gpt2/worker-plan.js';
import { compareTensors } from './tolerance.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const WASM = fileURLToPath(new URL('../../web/src/core/wasm/', import.meta.url));
const { cases } = JSON.parse(readFileSync(`${DIR}forward.json`, 'utf8'));
const outputBytes = new Uint8Array(readFileSync(`${DIR}forward.safetensors`));
const outputs = readSafetensorsHeader(outputBytes, 'forward.safetensors');
const expected = (name) => readTensor(outputBytes, outputs, name, 'forward.safetensors').data;
const checkpoint = await loadGpt2FromDirectory(DIR);
const SMALL = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 });

function expectClose(actual, want, tolerance, label) {
  expect(compareTensors({ data: actual, shape: [actual.length] }, { data: want, shape: [want.length] }, { atol: tolerance, rtol: tolerance }).report, label).toBe('');
}

/** n shard hosts in this thread, each on its own instance of a WASM build, behind worker-pool.js's ask(). */
async function inProcessPool(n, build) {
  const { default: create } = await import(`../../web/src/core/wasm/attention-${build}.mjs`);
  const wasmBinary = readFileSync(`${WASM}attention-${build}.wasm`);
  const hosts = Array.from({ length: n }, () => createShardHost(async () => {
    const core = await create({ wasmBinary });
    return { core, relaxed: build === 'simd' ? await installRelaxedTile(core, readFileSync(`${WASM}relaxed-tile.wasm`)) : 'baseline' };
  }));
  await Promise.all(hosts.map((host) => host.handle({ type: 'load' })));
  return {
    workers: hosts,
    ask: async (k, message) => (await hosts[k].handle(message)).answer,
    terminate: () => hosts.forEach((host) => host.dispose()),
  };
}

const engines = {};
beforeAll(async () => {
  for (const [name, n, build] of [['2 simd', 2, 'simd'], ['3 simd', 3, 'simd'], ['2 baseline', 2, 'baseline']]) {
    engines[name] = await createWorkerGpt2(await inProcessPool(n, build), checkpoint.config, checkpoint.parameters, { crossover: { minWork: 0 } });
  }
});
afterAll(() => Object.values(engines).forEach((engine) => engine.dispose()));

describe('GPT-2 on workers matches PyTorch', () => {
  it.each(['2 simd', '3 simd', '2 baseline'])('on %s workers: every case\'s logits, with and without every layer\'s weights', async (name) => {
    const engine = engines[name];
    expect(engine.threads).toBe(Number(name[0]));
    for (const [i, { tokens }] of cases.entries()) {
      const plain = await engine.forward(tokens, new Uint8Array(0), false);
      expect(plain.threads).toBe(Number(name[0]));
      expect(plain.attention).toBeNull();
      expectClose(plain.logits, expected(`${i}.logits`), 1e-4, `case ${i} logits`);
      const full = await engine.forward(tokens, new Uint8Array(0), true);
      expectClose(full.logits, expected(`${i}.logits`), 1e-4, `case ${i} logits with weights`);
      full.attention.forEach((weights, l) => expectClose(weights, expected(`${i}.attention.${l}`), 1e-5, `case ${i} layer ${l} weights`));
    }
  });
  it('ablates heads of every share as the JS reference does (zeros and means)', async () => {
    const reference = await createGpt2(checkpoint, { backend: 'js' });
    const { tokens } = cases[2];
    const flags = new Uint8Array(8);
    for (const [ablation, value] of [['zero', 1], ['mean', 2]]) {
      flags.fill(0);
      flags[0 * 4 + 1] = value; // layer 0 head 1 (the first share)
      flags[1 * 4 + 3] = value; // layer 1 head 3 (the last share)
      const want = reference.forward(tokens, { headsOff: [[0, 1], [1, 3]], ablation, attention: false }).logits.data;
      expectClose((await engines['3 simd'].forward(tokens, flags, false)).logits, want, 1e-4, ablation);
      expectClose((await engines['2 simd'].forward(tokens, flags, true)).logits, want, 1e-4, `${ablation} with weights`);
    }
  });
});

describe('forwards called together', () => {
  it('run one at a time, each as PyTorch', async () => {
    const outs = await Promise.all(cases.map(({ tokens }, i) => engines['2 simd'].forward(tokens, new Uint8Array(0), i % 2 === 0)));
    outs.forEach((out, i) => expectClose(out.logits, expected(`${i}.logits`), 1e-4, `case ${i} logits`));
    for (const { ms } of outs) expect(ms).toBeGreaterThan(0); // each its own time (not asserted against a clock)
  });
});

describe('a worker that dies', () => {
  it('leaves the model on the calling thread, which still matches PyTorch', async () => {
    const pool = await inProcessPool(2, 'simd');
    const { loadWasmBackend } = await import('../../web/src/core/backends/wasm.js');
    const { createWasmGpt2 } = await import('../../web/src/gpt2/wasm-model.js');
    const oneThread = async () => createWasmGpt2(await loadWasmBackend({ build: 'simd' }), checkpoint.config, checkpoint.parameters);
    const engine = await createWorkerGpt2(pool, checkpoint.config, checkpoint.parameters, { crossover: { minWork: 0 }, oneThread });
    // worker 1's error event: worker-pool.js fails the pool and rejects what it was asked
    const ask = pool.ask;
    pool.ask = (k, message) => {
      if (k !== 1) return ask(k, message);
      pool.failed = 'worker 1 failed: out of memory';
      return Promise.reject(new Error(pool.failed));
    };
    const out = await engine.forward(cases[3].tokens, new Uint8Array(0), false);
    expect(out.threads).toBe(1);
    expect(out.reason).toBe('the workers failed (worker 1 failed: out of memory); the calling thread runs it');
    expectClose(out.logits, expected('3.logits'), 1e-4, 'logits on the calling thread');
    engine.dispose();
  });
});

describe('the cut and the plan', () => {
  it("cuts heads as the planner's groups, the MLP and the vocabulary at multiples of 8", () => {
    expect(gpt2Shares(checkpoint.config, 3)).toEqual([
      { headBegin: 0, headEnd: 2, mlpBegin: 0, mlpEnd: 40, vocabBegin: 0, vocabEnd: 96 },
      { headBegin: 2, headEnd: 3, mlpBegin: 40, mlpEnd: 88, vocabBegin: 96, vocabEnd: 192 },
      { headBegin: 3, headEnd: 4, mlpBegin: 88, mlpEnd: 128, vocabBegin: 192, vocabEnd: 287 },
    ]);
    expect(gpt2Shares(SMALL, 2).map((s) => [s.headEnd - s.headBegin, s.mlpEnd - s.mlpBegin, s.vocabEnd - s.vocabBegin])).toEqual([[6, 1536, 25128], [6, 1536, 25129]]);
    expect(gpt2Shares(checkpoint.config, 8)).toHaveLength(4);
  });
  it("sends GPT-2 small's forward to the workers from one token, the tiny model's never; a crossover given moves the line", () => {
    expect(planGpt2Workers(SMALL, 1, 2)).toEqual({ workers: true, reason: '1 tokens: 4.9M multiply-adds between exchanges' });
    for (const T of [16, 128, 512]) expect(planGpt2Workers(SMALL, T, 2).workers).toBe(true);
    expect(planGpt2Workers(checkpoint.config, 32, 2)).toEqual({ workers: false, reason: "32 tokens: 0.2M multiply-adds between exchanges, below the workers' crossover (1M)" });
    expect(planGpt2Workers(SMALL, 8, 2, { minWork: 1e8 }).reason).toBe("8 tokens: 40M multiply-adds between exchanges, below the workers' crossover (50M)");
    expect(planGpt2Workers(SMALL, 512, 1).workers).toBe(false);
  });
  it("createGpt2({threads}) on one thread, and why: no Web Worker here; with 'auto', a model too small to pay", async () => {
    const model = await createGpt2(checkpoint, { backend: 'wasm-simd', threads: 2 });
    expect([model.threads, model.threadsReason]).toEqual([1, 'this environment has no Web Worker']);
    model.forward(cases[0].tokens);
    expect(model.lastCall.threads).toBe(1);
    model.dispose();
    const auto = await createGpt2(checkpoint, { backend: 'wasm-simd', threads: 'auto' });
    expect(auto.threadsReason).toMatch(/^threads 'auto': even a full context \(32 tokens: 0\.2M multiply-adds between exchanges, below the workers' crossover \(1M\)\)$/);
    auto.dispose();
  });
  it('workers that cannot start (file://, a Content-Security-Policy) leave the model on one thread, saying why', async () => {
    const had = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
    globalThis.Worker = class { constructor() { throw new DOMException('Script at file:///gpt2-worker.js cannot be accessed', 'SecurityError'); } };
    try {
      const model = await createGpt2(checkpoint, { backend: 'wasm-simd', threads: 2 });
      expect([model.threads, model.threadsReason]).toEqual([1, 'the workers could not start (Script at file:///gpt2-worker.js cannot be accessed); one thread']);
      expectClose(model.forward(cases[1].tokens).logits.data, expected('1.logits'), 1e-4, 'logits on one thread');
      model.dispose();
    } finally {
      if (had) Object.defineProperty(globalThis, 'Worker', had); else delete globalThis.Worker;
    }
  });
});
