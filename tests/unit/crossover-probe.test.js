// The in-browser crossover probe, driven by a fake adapter's timings and a fake clock.
import { describe, expect, it } from 'vitest';
import {
  PROBE_BUDGET_MS, STORAGE_PREFIX, browserVersion, createCrossoverStore, crossoverKey, crossoverOf,
  probeCrossover, probeDeclined,
} from '../../web/src/gpu/crossover-probe.js';
import { describeRecord } from '../../web/src/core/gpu-crossover.js';

/** A fake clock that each timed call advances, and a `time` answering from per-backend cost models. */
function fakeAdapter({ gpuMs, wasmMs, compileMs = 40 }) {
  let clock = 0;
  const calls = [];
  const compiled = new Set();
  return {
    calls,
    now: () => clock,
    time: async (backend, workload, n) => {
      calls.push({ backend, workload, n });
      let ms = backend === 'gpu' ? gpuMs(workload, n) : wasmMs(workload, n);
      if (backend === 'gpu' && !compiled.has(workload)) {
        compiled.add(workload);
        ms += compileMs;
      }
      clock += ms;
      return ms;
    },
  };
}

/** A real-GPU-like adapter: a fixed dispatch cost, then far more FLOP/s than WASM. */
const fastGpu = () => fakeAdapter({
  gpuMs: (workload, n) => 1.5 + (2 * n ** 3) / 2e9,
  wasmMs: (workload, n) => (2 * n ** 3) / 40e6,
});

class MemoryStorage {
  #items = new Map();
  get length() { return this.#items.size; }
  key(i) { return [...this.#items.keys()][i] ?? null; }
  getItem(key) { return this.#items.has(key) ? this.#items.get(key) : null; }
  setItem(key, value) { this.#items.set(key, String(value)); }
  removeItem(key) { this.#items.delete(key); }
}

describe('crossover probe', () => {
  it('finds the size from which a fast GPU wins every workload, within the budget', async () => {
    const adapter = fastGpu();
    const record = await probeCrossover({ time: adapter.time, now: adapter.now });
    // WASM: 128 → 0.1 ms, 256 → 0.8 ms, 512 → 6.7 ms; GPU ≥ 1.5 ms: the GPU wins from 512.
    expect(record.thresholdN).toBe(512);
    expect(record.spentMs).toBeLessThanOrEqual(PROBE_BUDGET_MS);
    expect(record.rows.map((row) => `${row.workload}@${row.n}`)).toContain('attention@512');
    expect(record.source).toBe('probe');
  });

  it('stops early rather than overrun the budget on a slow adapter, and reports null when WASM always wins', async () => {
    const adapter = fakeAdapter({ gpuMs: (w, n) => (2 * n ** 3) / 0.5e6, wasmMs: (w, n) => (2 * n ** 3) / 40e6 });
    const record = await probeCrossover({ time: adapter.time, now: adapter.now });
    expect(record.thresholdN).toBeNull();
    expect(record.complete).toBe(false);
    expect(record.spentMs).toBeLessThanOrEqual(PROBE_BUDGET_MS);
    expect(adapter.calls.some((call) => call.n === 1024)).toBe(false);
  });

  it('needs the GPU to win at every larger size, not just once', () => {
    const rows = [
      { workload: 'matmul', n: 128, gpuMs: 1, wasmMs: 2 },
      { workload: 'matmul', n: 256, gpuMs: 3, wasmMs: 2 },
      { workload: 'matmul', n: 512, gpuMs: 3, wasmMs: 9 },
      { workload: 'attention', n: 512, gpuMs: 3, wasmMs: 8 },
    ];
    expect(crossoverOf(rows)).toBe(512);
    expect(crossoverOf([])).toBeNull();
  });

  it('never probes SwiftShader or a fallback adapter', () => {
    expect(probeDeclined({ emulated: true })).toMatch(/never probed/);
    expect(probeDeclined({ emulated: false })).toBeNull();
  });

  it('keys a record by adapter and browser version, so a new browser measures again', () => {
    const info = { vendor: 'nvidia', architecture: 'hopper', device: '', description: 'H100' };
    const older = crossoverKey(info, browserVersion('Mozilla/5.0 … Chrome/156.0.8078.73 Safari/537.36'));
    const newer = crossoverKey(info, browserVersion('Mozilla/5.0 … Chrome/157.0.1.2 Safari/537.36'));
    expect(older.startsWith(STORAGE_PREFIX)).toBe(true);
    expect(older).toContain('nvidia|hopper||H100|Chrome/156.0.8078.73');
    expect(older).not.toBe(newer);
  });

  it('stores, reads back, clears one record or all, and ignores records it cannot read', async () => {
    const storage = new MemoryStorage();
    const store = createCrossoverStore(storage);
    const adapter = fastGpu();
    const record = await probeCrossover({ time: adapter.time, now: adapter.now });
    store.set('attention-playground:crossover:a', record);
    store.set('attention-playground:crossover:b', { ...record, thresholdN: null });
    storage.setItem('unrelated', 'kept');
    expect(store.get('attention-playground:crossover:a')).toEqual(record);
    storage.setItem('attention-playground:crossover:c', '{not json');
    expect(store.get('attention-playground:crossover:c')).toBeNull();
    store.clear('attention-playground:crossover:a');
    expect(store.get('attention-playground:crossover:a')).toBeNull();
    expect(store.get('attention-playground:crossover:b').thresholdN).toBeNull();
    store.clear();
    expect(storage.length).toBe(1);
    expect(describeRecord(record, 'nvidia hopper')).toMatch(/measured in this browser on nvidia hopper .*faster from n=512/);
  });

  it('goes on without storage where the browser refuses it, and says why', () => {
    const refusing = { getItem() { throw new Error('denied'); }, setItem() { throw new Error('denied'); }, removeItem() {}, key() { return null; }, length: 0 };
    const store = createCrossoverStore(refusing);
    expect(store.get('x')).toBeNull();
    expect(store.error).toMatch(/refused: denied/);
    expect(createCrossoverStore(null).error).toMatch(/no browser storage/);
  });
});
