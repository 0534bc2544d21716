// The memory of every way createGpt2 builds a GPT-2 model (web/src/gpt2/memory.js), decided before it starts: one
// thread in float32 or float16, or n workers (each worker's share in its own WASM heap, the checkpoint on the calling
// thread, and the calling thread's copy for forwards below a crossover only where it fits beside them). The
// arithmetic against the C++ shard's own sizes and for gpt2 / gpt2-medium / gpt2-large on 1, 2 and 4 workers; then
// createGpt2 on real worker_threads (bench/node-web-worker.mjs) with the tiny fixture under limits that admit the
// workers but not the copy, or not the workers: no crash, the reason in lastCall or threadsReason.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, afterEach, describe, expect, it } from 'vitest';

import { nodeWebWorker } from '../../bench/node-web-worker.mjs';
import { loadWasmBackend } from '../../web/src/core/backends/wasm.js';
import { gpt2Config } from '../../web/src/gpt2/checkpoint.js';
import { loadGpt2FromDirectory } from '../../web/src/gpt2/load.js';
import { gpt2MemoryBytes, gpt2ShareBytes, gpt2WorkerMemoryBytes, planGpt2Memory, WASM_HEAP_LIMIT } from '../../web/src/gpt2/memory.js';
import { createGpt2 } from '../../web/src/gpt2/model.js';
import { createWorkerGpt2 } from '../../web/src/gpt2/worker-model.js';
import { gpt2Shares } from '../../web/src/gpt2/worker-plan.js';
import { readSafetensorsHeader, readTensor } from '../../web/src/gpt2/safetensors-read.js';
import { compareTensors } from './tolerance.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const checkpoint = await loadGpt2FromDirectory(DIR);
const TINY = checkpoint.config;
const hub = (n_embd, n_layer, n_head) => gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd, n_layer, n_head });
const SMALL = hub(768, 12, 12);
const MEDIUM = hub(1024, 24, 16);
const LARGE = hub(1280, 36, 20);
const XL = hub(1600, 48, 25);
const GiB = 2 ** 30;
const pad8 = (n) => Math.ceil(n / 8) * 8;
/** [threads, threadsReason, oneThreadCopy, copyReason] of a plan, or its Error's message. */
const decide = (config, options) => {
  try {
    const plan = planGpt2Memory(config, options);
    return [plan.threads, plan.threadsReason, plan.oneThreadCopy, plan.copyReason];
  } catch (error) {
    return error.message;
  }
};

describe("each worker's share", () => {
  it("holds its vectors, packed panels, largest staged matrix and a full-context forward's activations (gpt2 on 2 workers)", () => {
    const [first, second] = gpt2Shares(SMALL, 2); // 6 heads (384 columns), 1536 MLP columns, 25128 and 25129 vocabulary rows
    const bytes = gpt2ShareBytes(SMALL, first, 2);
    expect(bytes.vectors).toBe(4 * (12 * (6 * 768 + 3 * 384 + 1536) + 2 * 768));
    expect(bytes.packed).toBe(4 * (12 * (768 * 1152 + 384 * 768 + 768 * 1536 + 1536 * 768) + 768 * 25128));
    expect(bytes.staging).toBe(4 * 25128 * 768); // wte's rows: the largest matrix of the share
    expect(bytes.activations).toBe(4 * 1024 * (2 * 768 + 4 * 384 + 1536 + 25128 + 2 * 768));
    expect(bytes.heap).toBe(bytes.vectors + bytes.packed + bytes.staging + bytes.activations);
    expect(gpt2ShareBytes(SMALL, second, 2).packed - bytes.packed).toBe(4 * 768 * (pad8(25129) - 25128)); // columns padded to 8
  });
  it('counts what the C++ shard allocates: its vectors, its largest matrix, the whole model packed as the fast path packs it', async () => {
    const wasm = await loadWasmBackend({ build: 'simd' });
    for (const n of [1, 2, 3]) {
      const shares = gpt2Shares(TINY, n);
      shares.forEach((share) => {
        const shard = wasm.createGpt2Shard({ ...TINY, ...share, parts: shares.length });
        const bytes = gpt2ShareBytes(TINY, share, shares.length);
        expect(4 * shard.parameters().length, `${n} workers: vectors`).toBe(bytes.vectors);
        const largest = Math.max(...Array.from({ length: shard.matrixCount() }, (_, i) => shard.matrixFloats(i)));
        expect(4 * largest, `${n} workers: staging`).toBe(bytes.staging);
        shard.delete();
      });
    }
    const { vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEpsilon } = TINY;
    const model = wasm.createGpt2Model(vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEpsilon);
    expect(4 * model.packedFloats()).toBe(gpt2ShareBytes(TINY, gpt2Shares(TINY, 1)[0], 1).packed);
    model.delete();
  });
});

describe('the budget of gpt2, gpt2-medium and gpt2-large on 1, 2 and 4 workers', () => {
  it('adds the shares, the calling thread\'s checkpoint and what it sends while they load', () => {
    const figures = (config) => [1, 2, 4].map((n) => {
      const need = gpt2WorkerMemoryBytes(config, n);
      expect(need.total).toBe(need.parameters + need.sending + need.shares.reduce((sum, share) => sum + share.heap, 0));
      expect(need.oneThread).toBe(gpt2MemoryBytes(config).heap);
      return [need.workers, need.total, need.heap];
    });
    // on workers the model needs less than on one thread (1.78 GB): no copy of the parameters in a WASM heap
    expect(figures(SMALL)).toEqual([[1, 1_541_628_928, 889_480_192], [2, 1_557_584_896, 452_733_952], [4, 1_608_371_200, 239_088_640]]);
    expect(figures(MEDIUM)).toEqual([[1, 3_498_115_072, 1_872_969_728], [2, 3_519_684_608, 947_290_112], [4, 3_587_989_504, 490_749_952]]);
    expect(figures(LARGE)).toEqual([[1, 6_965_189_632, 3_611_753_472], [2, 6_992_520_192, 1_819_567_104], [4, 7_078_638_592, 931_345_408]]);
    expect(gpt2WorkerMemoryBytes(TINY, 8).workers).toBe(4); // a share holds at least one head
  });
  it('gpt2: one thread or the workers within the default 2 GiB, every forward on the workers unless a crossover has room for the copy', () => {
    expect(decide(SMALL, { threads: 1 })).toEqual([1, null, false, null]);
    expect(decide(SMALL, { threads: 2 })).toEqual([2, null, false, null]);
    expect(decide(SMALL, { threads: 4 })).toEqual([4, null, false, null]);
    expect(decide(SMALL, { threads: 2, crossover: { minWork: 1e8 } })).toEqual([2, null, false,
      "the calling thread's copy of the model (1.28 GB of WASM heap) would bring the workers' 1.56 GB to 2.84 GB, but 2.15 GB are available"]);
    expect(decide(SMALL, { threads: 2, crossover: { minWork: 1e8 }, limitBytes: 4 * GiB })).toEqual([2, null, true, null]);
    expect(decide(SMALL, { threads: 2, limitBytes: 1.5e9, name: 'gpt2' })).toBe('createGpt2: gpt2 does not fit: on 2 workers it needs 1.56 GB ' +
      "(0.50 GB of parameters on this thread, 0.91 GB in the workers' WASM heaps, 0.15 GB sent while they load), but 1.50 GB are available; " +
      'kept in float32 on one thread it needs 1.78 GB (0.50 GB of parameters, 1.28 GB in the WASM heap), but 1.50 GB are available');
  });
  it('gpt2-medium: in float16 on one thread whatever the threads; in float32 only on workers, with room for them', () => {
    for (const threads of [2, 4]) expect(decide(MEDIUM, { threads, resident: 'float16' })).toEqual([1, 'a float16-resident model runs on one thread', false, null]);
    expect(decide(MEDIUM, { threads: 1, resident: 'float16', limitBytes: 1.4e9, name: 'gpt2-medium' })).toBe('createGpt2: gpt2-medium does not fit: ' +
      'kept in float16 on one thread it needs 1.49 GB (0.71 GB of parameters, 0.78 GB in the WASM heap), but 1.40 GB are available');
    expect(decide(MEDIUM, { threads: 1, name: 'gpt2-medium' })).toBe('createGpt2: gpt2-medium does not fit: ' +
      "kept in float32 on one thread it needs 4.57 GB (1.42 GB of parameters, 3.15 GB in the WASM heap), over a WASM heap's 2.15 GB");
    expect(decide(MEDIUM, { threads: 2, limitBytes: 8 * GiB })).toEqual([2, null, false, null]);
    expect(decide(MEDIUM, { threads: 4, limitBytes: 3e9, name: 'gpt2-medium' })).toMatch(/^createGpt2: gpt2-medium does not fit: on 4 workers it needs 3\.59 GB .*, but 3\.00 GB are available; kept in float32/);
  });
  it('gpt2-large: refused in float16 by the default limit; in float32, workers whose shares fit their heaps', () => {
    expect(decide(LARGE, { threads: 4, resident: 'float16', name: 'gpt2-large' })).toBe('createGpt2: gpt2-large does not fit: ' +
      'kept in float16 on one thread it needs 2.49 GB (1.55 GB of parameters, 0.94 GB in the WASM heap), but 2.15 GB are available');
    expect(decide(LARGE, { threads: 2, limitBytes: 16e9 })).toEqual([2, null, false, null]);
    expect(decide(LARGE, { threads: 4, limitBytes: 16e9 })).toEqual([4, null, false, null]);
    expect(gpt2WorkerMemoryBytes(LARGE, 2).heap).toBeLessThan(WASM_HEAP_LIMIT);
  });
  it("says before starting them that a worker's share exceeds its WASM heap, and how many workers would do", () => {
    expect(decide(XL, { threads: 2, limitBytes: 32e9, name: 'gpt2-xl' })).toBe('createGpt2: gpt2-xl does not fit: on 2 workers a worker\'s share needs 3.47 GB ' +
      "of WASM heap (3.15 GB packed, 0.16 GB of activations, 0.16 GB staging), over a WASM heap's 2.15 GB; 4 workers would need 13.52 GB, 1.80 GB each; " +
      "kept in float32 on one thread it needs 19.07 GB (6.23 GB of parameters, 12.84 GB in the WASM heap), over a WASM heap's 2.15 GB");
    expect(decide(XL, { threads: 4, limitBytes: 32e9 })).toEqual([4, null, false, null]);
    // createGpt2 passes what a fresh module can allocate (its heap less static data, stack and margin)
    expect(decide(LARGE, { threads: 2, limitBytes: 16e9, heapBytes: 1.8e9, name: 'gpt2-large' })).toMatch(
      /^createGpt2: gpt2-large does not fit: on 2 workers a worker's share needs 1\.82 GB of WASM heap \(.*\), over a WASM heap's 1\.80 GB; 3 workers would need 7\.03 GB, 1\.24 GB each;/);
  });
});

describe('createGpt2 on workers under a limit', () => {
  const { cases } = JSON.parse(readFileSync(`${DIR}forward.json`, 'utf8'));
  const outputBytes = new Uint8Array(readFileSync(`${DIR}forward.safetensors`));
  const outputs = readSafetensorsHeader(outputBytes, 'forward.safetensors');
  const expectLogits = (out, i) => {
    const want = readTensor(outputBytes, outputs, `${i}.logits`, 'forward.safetensors').data;
    expect(compareTensors(out.logits, { data: want, shape: out.logits.shape }, { atol: 1e-4, rtol: 1e-4 }).report).toBe('');
  };
  const wasmBinary = readFileSync(fileURLToPath(new URL('../../web/src/core/wasm/attention-simd.wasm', import.meta.url)));
  const models = [];
  const started = [];
  const create = async (options) => {
    const model = await createGpt2(checkpoint, { backend: 'wasm-simd', wasmBinary, ...options });
    models.push(model);
    return model;
  };
  // Node's worker_threads behind the Web Worker interface, as the benchmark runs them
  const had = Object.getOwnPropertyDescriptor(globalThis, 'Worker');
  globalThis.Worker = class { constructor(url) { started.push(url); return nodeWebWorker(url); } };
  afterEach(() => { models.splice(0).forEach((model) => model.dispose()); started.length = 0; });
  afterAll(() => { if (had) Object.defineProperty(globalThis, 'Worker', had); else delete globalThis.Worker; });

  const need = gpt2WorkerMemoryBytes(TINY, 2);
  const crossover = { minWork: 1e6 }; // every tiny forward is below it
  it('runs a forward below the crossover on the workers when the copy does not fit, saying why', async () => {
    const limitBytes = need.total + need.oneThread / 2; // the workers fit, the copy beside them does not
    const model = await create({ threads: 2, crossover, limitBytes });
    expect([model.threads, model.threadsReason]).toEqual([2, null]);
    const out = await model.forward(cases[1].tokens, { attention: false });
    expect(model.lastCall).toMatchObject({ threads: 2, path: 'workers (fused)' });
    expect(model.lastCall.reason).toBe(`${cases[1].tokens.length} tokens: 0M multiply-adds between exchanges, below the workers' crossover (0.5M); ` +
      "the calling thread's copy of the model (0.38 MB of WASM heap) would bring the workers' 0.47 MB to 0.85 MB, but 0.66 MB are available: the workers run it");
    expectLogits(out, 1);
  });
  it('builds the copy for it where it fits, and runs every forward on the workers without a crossover', async () => {
    const withCopy = await create({ threads: 2, crossover, limitBytes: need.total + need.oneThread });
    const out = await withCopy.forward(cases[1].tokens);
    expect(withCopy.lastCall).toMatchObject({ threads: 1, path: 'weights' });
    expect(withCopy.lastCall.reason).toMatch(/below the workers' crossover \(0\.5M\)$/);
    expectLogits(out, 1);
    const plain = await create({ threads: 2 });
    expectLogits(await plain.forward(cases[2].tokens), 2);
    expect(plain.lastCall).toMatchObject({ threads: 2, path: 'workers (weights)', reason: null });
  });
  it('starts no worker where the workers do not fit, and refuses with the figures where nothing does', async () => {
    const oneThread = gpt2MemoryBytes(TINY).total;
    const four = gpt2WorkerMemoryBytes(TINY, 4).total;
    expect(four).toBeGreaterThan(oneThread); // the tiny model's shares cost more than its one-thread copy
    const model = await create({ threads: 4, limitBytes: oneThread });
    expect(started).toHaveLength(0);
    expect(model.threads).toBe(1);
    expect(model.threadsReason).toBe("on 4 workers it needs 0.54 MB (0.14 MB of parameters on this thread, 0.35 MB in the workers' WASM heaps, " +
      '0.05 MB sent while they load), but 0.52 MB are available; one thread');
    expectLogits(model.forward(cases[0].tokens), 0);
    await expect(createGpt2(checkpoint, { backend: 'wasm-simd', wasmBinary, threads: 2, limitBytes: 400_000 })).rejects
      .toThrow(/^createGpt2: gpt2 does not fit: on 2 workers it needs 0\.47 MB .*, but 0\.40 MB are available; kept in float32 on one thread it needs 0\.52 MB/);
    expect(started).toHaveLength(0);
  });
});

describe('workers that fail where the calling thread cannot hold the model', () => {
  it('reject the forward with both reasons, and nothing crashes', async () => {
    const pool = {
      workers: [{}, {}], failed: null, terminated: false,
      ask(k, message) {
        if (message.type !== 'forward') return Promise.resolve({});
        this.failed ??= `worker ${k} failed: out of memory`;
        return Promise.reject(new Error(this.failed));
      },
      terminate() { this.terminated = true; },
    };
    const oneThread = () => Promise.reject(new Error('gpt2 kept in float32 on one thread it needs 1.78 GB (0.50 GB of parameters, 1.28 GB in the WASM heap), but 1.50 GB are available'));
    const engine = await createWorkerGpt2(pool, TINY, checkpoint.parameters, { oneThread });
    await expect(engine.forward([1, 2, 3], new Uint8Array(0), false)).rejects.toThrow('gpt2.forward: the workers failed (worker 0 failed: out of memory); ' +
      'the calling thread runs it, but gpt2 kept in float32 on one thread it needs 1.78 GB (0.50 GB of parameters, 1.28 GB in the WASM heap), but 1.50 GB are available');
    expect(pool.terminated).toBe(true); // stopped, their memory given back, before the copy was asked for
  });
});
