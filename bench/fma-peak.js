// One core's WASM relaxed-SIMD multiply-add peak on the engine at hand, measured rather than assumed: the
// tile module's fma_peak (cpp/kernels/relaxed_tile.wat), 12 independent f32x4 FMA chains on registers with
// no memory traffic, the ceiling every register tile of the GEMM and the fused attention works under. The
// best of several rounds counts (on a shared machine the others include waits for a core).
const STEPS = 1 << 21;  // rounds of 12 FMAs per call: ~200 MFLOP, a few ms
const ROUNDS = 9;

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
  return (STEPS * 12 * 8) / best / 1e6;
}
