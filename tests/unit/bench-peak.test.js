// The page benchmark's FMA peak: measured in the run (bench/fma-peak.js) and the denominator of every
// "% of peak" and of the training target in the report (bench/report.js), or an estimate labelled as one
// where the relaxed module could not run. No timing assertions.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

import { fmaPeakLine, fmaPeakMeasurement, fmaPeakRecord } from '../../bench/fma-peak.js';
import { figuresBlock } from '../../bench/readme-figures.mjs';
import { FMA_PEAK_GFLOPS, fmaPeakOf, toMarkdown, toSvg, trainingTargets } from '../../bench/report.js';
import { trainingFlops, TRAINING_SIZES } from '../../bench/training.js';

const TILE = readFileSync(new URL('../../web/src/core/wasm/relaxed-tile.wasm', import.meta.url));

/** A training-only report whose small row runs at `gflops` useful GFLOP/s. */
function reportAt(gflops, fmaPeak) {
  const row = (size, g) => {
    const medianMs = trainingFlops(size) / (g * 1e6);
    return { task: 'training', size, contestant: 'ours (wasm-simd, 1 thread)', status: 'ok', medianMs, runs: 5, minMs: medianMs, maxMs: medianMs, stepsPerSecond: 1000 / medianMs, tokensPerSecond: 1, gflops: g };
  };
  return {
    environment: { date: '2026-01-01T00:00:00.000Z', userAgent: 'test', hardwareConcurrency: 2, crossOriginIsolated: true, seconds: 1 },
    machine: { loadAverage: [0.1, 0.2, 0.3] }, versions: {}, tasks: {}, results: [], contestants: [], settings: { runs: 0, atol: 0, rtol: 0 },
    ...(fmaPeak ? { fmaPeak } : {}),
    training: {
      sizes: { tiny: { ...TRAINING_SIZES.tiny, flopsPerStep: trainingFlops('tiny') }, small: { ...TRAINING_SIZES.small, flopsPerStep: trainingFlops('small') } },
      task: 'induction', seed: 1, optimizer: { lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0.01 }, lossRtol: 1e-4, slowStepMs: 4000, reference: {},
      contestants: [], results: [row('tiny', gflops / 2), row('small', gflops)],
    },
  };
}

describe('the FMA peak of the page benchmark', () => {
  it('keeps the larger of the measurements before and after the contestants, and how they were taken', () => {
    const record = fmaPeakRecord({ gflops: 60 }, { gflops: 65.7 });
    expect(record).toMatchObject({ gflops: 65.7, before: { gflops: 60 }, after: { gflops: 65.7 }, chains: 12, rounds: 9, stepsPerRound: 2 ** 21 });
    expect(fmaPeakRecord({ error: 'no relaxed SIMD' }, { gflops: 64 }).gflops).toBe(64);
    const none = fmaPeakRecord({ error: 'no relaxed SIMD' }, { error: 'no relaxed SIMD' });
    expect(none.gflops).toBeUndefined();
    expect(none.error).toBe('no relaxed SIMD');
    expect(fmaPeakLine('before the contestants', { gflops: 65.72 })).toBe("one core's relaxed-SIMD FMA peak before the contestants: 65.7 GFLOP/s");
    expect(fmaPeakLine('after the rows', { error: 'no relaxed SIMD' })).toBe("one core's relaxed-SIMD FMA peak after the rows: not measured (no relaxed SIMD)");
  });

  it('says why where the relaxed module cannot run', async () => {
    expect(await fmaPeakMeasurement(new Uint8Array([1, 2, 3]))).toEqual({ error: 'this engine does not validate the relaxed-SIMD tile module' });
    // Vitest's Node runs without --experimental-wasm-relaxed-simd: the built module does not validate there.
    const here = await fmaPeakMeasurement(TILE);
    if (WebAssembly.validate(TILE)) expect(here.gflops).toBeGreaterThan(0);
    else expect(here).toEqual({ error: 'this engine does not validate the relaxed-SIMD tile module' });
  });

  it('divides every % of peak and the training target by the measured peak, and says how it was measured', () => {
    const fmaPeak = fmaPeakRecord({ gflops: 60.04 }, { gflops: 65.7 });
    const report = reportAt(45, fmaPeak);
    expect(fmaPeakOf(report)).toMatchObject({ gflops: 65.7, measured: true });
    const md = toMarkdown(report);
    expect(md).toContain("One core's WASM relaxed-SIMD multiply-add peak, measured in this run in the engine that ran the contestants, before and after them: **65.7 GFLOP/s** (before 60.0, after 65.7; the larger counts).");
    expect(md).toContain('12 independent f32x4 FMA chains on registers, no memory traffic, the best of 9 rounds of 2097152 steps');
    expect(md).toContain('45.0 GFLOP/s = 68% of peak');  // 45 / 65.7
    expect(md).toContain('22.5 GFLOP/s = 34% of peak');
    expect(md).toContain('% of peak: of 65.7 GFLOP/s, one core\'s WASM relaxed-SIMD FMA peak, measured in this run before and after the contestants (bench/fma-peak.js).');
    expect(md).toContain('| training small: ≥ 60% of the WASM FMA peak (65.7 GFLOP/s measured in this run, one core) as useful GFLOP/s | 45.0 GFLOP/s = 68% | yes |');
    expect(md).not.toContain(`${FMA_PEAK_GFLOPS} GFLOP/s`);
    expect(toSvg(report)).toContain('one-core WASM FMA peak 65.7 (measured in this run)');
    expect(figuresBlock(report)).toContain("| ours, % of one core's FMA peak (65.7 GFLOP/s measured in this run) | 34% | 68% |");
    // 38 GFLOP/s: 75% of the estimate, 58% of the measured peak
    const target = (r) => trainingTargets(r).find((t) => /FMA peak/.test(t.target));
    expect(target(reportAt(38, fmaPeak))).toMatchObject({ landed: '38.0 GFLOP/s = 58%', met: false });
    expect(target(reportAt(38))).toMatchObject({ landed: '38.0 GFLOP/s = 75%', met: true });
  });

  it('falls back to the estimate only where nothing was measured, and labels it so', () => {
    const failed = reportAt(45, fmaPeakRecord({ error: 'this engine does not validate the relaxed-SIMD tile module' }, { error: 'x' }));
    const md = toMarkdown(failed);
    expect(md).toContain("One core's WASM relaxed-SIMD multiply-add peak: **not measured** (this engine does not validate the relaxed-SIMD tile module). "
      + 'Every "% of peak" in this report divides by **an estimate, 51 GFLOP/s** (2 FMA ports × 4 lanes × 2 flops at an assumed ~3.2 GHz), not by a measurement.');
    expect(md).toContain('45.0 GFLOP/s = 88% of peak');
    expect(md).toContain('an estimate from an assumed clock: not measured in this run');
    expect(md).toContain('(51 GFLOP/s, an estimate: not measured, one core)');
    expect(toSvg(failed)).toContain('one-core WASM FMA peak 51 (an estimate: not measured)');
    // a report from before the benchmark measured its peak
    expect(toMarkdown(reportAt(45))).toContain('**not measured** (this report records no measurement)');
    expect(figuresBlock(reportAt(45))).toContain("| ours, % of one core's FMA peak (51 GFLOP/s, an estimate: not measured) | 44% | 88% |");
  });
});
