// One core's WASM relaxed-SIMD multiply-add peak on the engine at hand, measured rather than assumed: the
// tile module's fma_peak (cpp/kernels/relaxed_tile.wat), 12 independent f32x4 FMA chains on registers with
// no memory traffic, the ceiling every register tile of the GEMM and the fused attention works under. The
// best of several rounds counts (on a shared machine the others include waits for a core).
const CHAINS = 12;
const STEPS = 1 << 21;  // rounds of 12 FMAs per call: ~200 MFLOP, a few ms
const ROUNDS = 9;
const TILE_URL = new URL('../web/src/core/wasm/relaxed-tile.wasm', import.meta.url);

/** GFLOP/s of the fastest round (4 lanes × 2 flops per FMA), or null where relaxed SIMD does not validate. */
export async function measureFmaPeak(tileBytes) {
  if (!WebAssembly.validate(tileBytes)) return null;
  const memory = new WebAssembly.Memory({ initial: 1 });
  const { instance } = await WebAssembly.instantiate(tileBytes, { env: { memory } });
  const peak = instance.exports.fma_peak;
  if (!peak) return null;
  // short calls first, so that the optimising tier replaces the baseline code before the timed ones
  for (let i = 0; i < 64; i++) peak(1 << 12, 1);
  await new Promise((resolve) => setTimeout(resolve, 20));
  let best = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    peak(STEPS, 1);
    best = Math.min(best, performance.now() - started);
  }
  return (STEPS * CHAINS * 8) / best / 1e6;
}

/** The relaxed tile module's bytes: fetched beside the page in a browser, read from disk in Node. */
export async function loadTileBytes(url = TILE_URL) {
  if (url.protocol === 'file:') {
    const fsModule = 'node:fs/promises';  // a name the browser never resolves: this branch runs in Node only
    return new Uint8Array(await (await import(/* @vite-ignore */ fsModule)).readFile(url));
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url.pathname}: HTTP ${response.status} (the WASM modules are built by npm run build)`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * One measurement for a report: {gflops}, or {error} saying why the relaxed module could not run here.
 * `tileBytes` defaults to the built module (loadTileBytes).
 */
export async function fmaPeakMeasurement(tileBytes) {
  try {
    const gflops = await measureFmaPeak(tileBytes ?? await loadTileBytes());
    return gflops === null ? { error: 'this engine does not validate the relaxed-SIMD tile module' } : { gflops };
  } catch (error) {
    return { error: `the relaxed-SIMD tile module did not run: ${error.message ?? error}` };
  }
}

/** A progress line for one measurement: `when` says which ('before the contestants'). */
export const fmaPeakLine = (when, m) => `one core's relaxed-SIMD FMA peak ${when}: ${typeof m.gflops === 'number' ? `${m.gflops.toFixed(1)} GFLOP/s` : `not measured (${m.error})`}`;

/**
 * What a report keeps of the peak measured before and after the contestants (report.fmaPeak): gflops, the
 * larger of the two (a round that waited for a core is slower, never faster), or error where neither ran;
 * the two measurements and how they were taken.
 */
export function fmaPeakRecord(before, after) {
  const measured = [before, after].filter((m) => typeof m?.gflops === 'number').map((m) => m.gflops);
  return {
    ...(measured.length ? { gflops: Math.max(...measured) } : { error: before?.error ?? after?.error ?? 'not measured' }),
    before, after, chains: CHAINS, stepsPerRound: STEPS, rounds: ROUNDS, source: 'bench/fma-peak.js',
  };
}
