// Measures where the GPU starts to beat WASM: an n×n·n×n GEMM through the webgpu backend's matmul (upload,
// kernel, read-back: what a caller waits for) and through the WASM backend's matmul, in the same browser,
// for each n. The crossover is the smallest n from which the GPU is faster at every larger n measured.
// Run by scripts/measure-crossover.mjs; the result is web/src/gpu/crossover.json.

/** Deterministic values in [-1, 1). */
function randomMatrix(n, seed) {
  const data = new Float32Array(n * n);
  let state = seed >>> 0;
  for (let i = 0; i < data.length; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    data[i] = state / 2 ** 31 - 1;
  }
  return { data, shape: [n, n] };
}

/** Median milliseconds of `call` over at least `minReps` runs and `minMs` milliseconds, after one warm-up. */
async function time(call, { minReps = 3, minMs = 300 } = {}) {
  await call();
  const samples = [];
  const start = performance.now();
  while (samples.length < minReps || performance.now() - start < minMs) {
    const t0 = performance.now();
    await call();
    samples.push(performance.now() - t0);
    if (samples.length >= 50) break;
  }
  samples.sort((a, b) => a - b);
  return samples[Math.floor(samples.length / 2)];
}

/**
 * @param {{gpu: object, wasm: object, sizes?: number[]}} backends the webgpu and a WASM backend
 * @returns {Promise<{workload: string, rows: {n: number, gpuMs: number, wasmMs: number, gpuGflops: number, wasmGflops: number}[], thresholdN: number|null}>}
 */
export async function measureCrossover({ gpu, wasm, sizes = [32, 64, 96, 128, 192, 256, 384, 512] }) {
  const hasMatmul = await Promise.resolve()
    .then(() => wasm.matmul(randomMatrix(2, 3), randomMatrix(2, 4), { transposeB: false }))
    .then(() => true, () => false);
  const workload = hasMatmul ? 'matmul' : 'causalAverageMatmul';
  const rows = [];
  for (const n of sizes) {
    const a = randomMatrix(n, 1);
    const b = randomMatrix(n, 2);
    // The GEMM each backend runs: matmul, or, while the WASM binding lacks it, causalAverageMatmul on
    // x (1, n, n), which is the (n, n)·(n, n) product weights·x (plus O(n²) to build the weights).
    const run = workload === 'matmul'
      ? (backend) => backend.matmul(a, b, { transposeB: false })
      : (backend) => backend.causalAverageMatmul({ data: b.data, shape: [1, n, n] });
    // Both must agree before either is timed: a variant that is not validated is not benchmarked.
    const [gpuResult, wasmResult] = [await run(gpu), await run(wasm)];
    let maxAbsError = 0;
    for (let i = 0; i < n * n; i++) maxAbsError = Math.max(maxAbsError, Math.abs(gpuResult.output.data[i] - wasmResult.output.data[i]));
    if (!(maxAbsError <= 1e-3)) throw new Error(`measureCrossover: n=${n}: webgpu and ${wasm.name} differ by ${maxAbsError}`);
    const gpuMs = await time(() => run(gpu));
    const wasmMs = await time(() => run(wasm));
    const gflops = (ms) => (2 * n ** 3) / (ms * 1e6);
    rows.push({ n, gpuMs, wasmMs, gpuGflops: gflops(gpuMs), wasmGflops: gflops(wasmMs), maxAbsError });
  }
  // The smallest n from which the GPU wins at every larger measured n; null when it never does.
  let thresholdN = null;
  for (let i = rows.length - 1; i >= 0 && rows[i].gpuMs < rows[i].wasmMs; i--) thresholdN = rows[i].n;
  return { workload, rows, thresholdN };
}

/**
 * A crossover.json record of one measureCrossover result, with where it was measured: what
 * scripts/measure-crossover.mjs (Chromium) and bench/dawn/run.mjs (Node on Dawn) write.
 * @param {{workload: string, rows: object[], thresholdN: number|null}} measured
 * @param {{by: string, browser: string, adapter: {label: string, emulated: boolean}, wasm: string, cpu: string, loadAverage: number[]}} where
 */
export function crossoverRecord(measured, { by, browser, adapter, wasm, cpu, loadAverage }) {
  return {
    thresholdN: measured.thresholdN,
    rule: 'the GPU is chosen when a call does at least thresholdN³ multiply-adds (null: WASM always wins here)',
    workload: `${measured.workload}: (n, n)·(n, n), time per call including upload and read-back, median`,
    provenance: {
      measuredAt: new Date().toISOString(),
      by,
      browser,
      adapter: adapter.label,
      emulated: adapter.emulated,
      note: adapter.emulated ? 'SwiftShader (CPU-emulated): WebGPU runs on the CPU; no real GPU was measured' : 'hardware GPU',
      wasm,
      cpu,
      loadAverage, // a shared machine: SwiftShader's threads compete
    },
    rows: measured.rows.map((row) => ({
      n: row.n, gpuMs: +row.gpuMs.toFixed(3), wasmMs: +row.wasmMs.toFixed(3),
      gpuGflops: +row.gpuGflops.toFixed(3), wasmGflops: +row.wasmGflops.toFixed(3),
    })),
  };
}
