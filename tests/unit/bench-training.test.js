// The benchmark's training section without a browser: the FLOP count, the PyTorch script's check of the
// first loss (validate, then time; a disagreement is reported and not timed), the targets and the README
// block generated from a results file. No timing assertions.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';

import { figuresBlock } from '../../bench/readme-figures.mjs';
import { trainingMarkdown, trainingTargets } from '../../bench/report.js';
import { PYTHON, runTorchTraining, TORCH_NAME } from '../../bench/torch-training.mjs';
import { initialParameters, modelConfig, OPTIMIZER, SEED, trainingBatch, trainingFlops, TRAINING_SIZES } from '../../bench/training.js';
import { createTrainer } from '../../web/src/train/index.js';

const torchPresent = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' }).status === 0;

describe('training section', () => {
  it('counts 6·F useful flops per step, F = L·(4·N·d² + B·d·T(T+1)) + N·d·V', () => {
    // tiny: N = 1024; per layer 4·1024·64² + 32·64·32·33; unembedding 1024·64·32
    expect(trainingFlops('tiny')).toBe(6 * (2 * (4 * 1024 * 64 * 64 + 32 * 64 * 32 * 33) + 1024 * 64 * 32));
    expect(trainingFlops('small')).toBe(6 * (4 * (4 * 2048 * 256 * 256 + 16 * 256 * 128 * 129) + 2048 * 256 * 256));
  });

  it('gives every contestant the same parameters and batches as the trainer seeded alike', async () => {
    const trainer = await createTrainer({ ...modelConfig('tiny'), seed: SEED, backend: 'js' });
    const { parameters } = initialParameters('tiny');
    for (const [name, t] of Object.entries(trainer.parameters())) expect(parameters[name].data).toEqual(t.data);
    expect(trainingBatch('tiny', 3).inputs.shape).toEqual([TRAINING_SIZES.tiny.batch, TRAINING_SIZES.tiny.contextLength]);
  });

  it.skipIf(!torchPresent)('times PyTorch only when its first loss equals ours, and reports it otherwise', async () => {
    const trainer = await createTrainer({ ...modelConfig('tiny'), seed: SEED, optimizer: OPTIMIZER, backend: 'js' });
    const { loss } = await trainer.step(trainingBatch('tiny', 0));
    const section = (reference) => ({ sizes: { tiny: TRAINING_SIZES.tiny }, reference: { tiny: reference }, contestants: [], results: [] });
    const good = section(loss);
    await runTorchTraining(good, { root: process.cwd() });
    const row = good.results.find((r) => r.contestant === TORCH_NAME);
    expect(row.status).toBe('ok');
    expect(row.lossRelError).toBeLessThan(1e-5);
    expect(row.runs).toBe(TRAINING_SIZES.tiny.steps);
    const bad = section(loss * 1.01);
    await runTorchTraining(bad, { root: process.cwd() });
    const wrong = bad.results.find((r) => r.contestant === TORCH_NAME);
    expect(wrong.status).toBe('wrong');
    expect(wrong.timesMs).toBeUndefined();
    expect(wrong.reason).toMatch(/first step's loss .* vs ours/);
  }, 120000);

  it('judges the targets and writes the README block from a results file', () => {
    const ok = (size, contestant, medianMs) => ({
      task: 'training', size, contestant, status: 'ok', medianMs, runs: 5, minMs: medianMs, maxMs: medianMs,
      stepsPerSecond: 1000 / medianMs, tokensPerSecond: 1, gflops: trainingFlops(size) / (medianMs * 1e6),
    });
    const report = {
      environment: { date: '2026-01-01T00:00:00.000Z' }, machine: { loadAverage: [0.1, 0.2, 0.3] }, versions: {},
      training: {
        sizes: { tiny: { ...TRAINING_SIZES.tiny, flopsPerStep: trainingFlops('tiny') }, small: { ...TRAINING_SIZES.small, flopsPerStep: trainingFlops('small') } },
        task: 'induction', seed: 1, optimizer: OPTIMIZER, lossRtol: 1e-4, slowStepMs: 4000, reference: {},
        contestants: [],
        results: [
          ok('tiny', 'ours (wasm-simd, 1 thread)', 10), ok('tiny', 'tfjs-wasm', 150), ok('tiny', 'PyTorch 1.13 CPU eager, 1 thread', 11),
          ok('small', 'ours (wasm-simd, 1 thread)', 400), ok('small', 'tfjs-wasm', 3000),
          { task: 'training', size: 'small', contestant: 'PyTorch 1.13 CPU eager, 1 thread', status: 'unavailable', reason: 'torch is not importable' },
          { task: 'training', size: 'small', contestant: 'ours (wasm-simd, 2 threads)', status: 'unavailable', reason: 'createTrainer({threads: 2}): this environment has no Web Worker' },
        ],
      },
    };
    const met = Object.fromEntries(trainingTargets(report).map((t) => [t.target, t.met]));
    expect(met['training tiny: ≥ 10× tfjs-wasm steps/s']).toBe(true);
    expect(met['training small: ≥ 10× tfjs-wasm steps/s']).toBe(false); // 7.5×
    expect(met['training tiny: more steps/s than PyTorch CPU eager, one thread']).toBe(true);
    // small: 15.3 GFLOP in 0.4 s = 38 GFLOP/s ≥ 0.6·51, the labelled estimate where the run measured no peak
    expect(met['training small: ≥ 60% of the WASM FMA peak (51 GFLOP/s, an estimate: not measured, one core) as useful GFLOP/s']).toBe(true);
    // against a peak measured in the run: 38 GFLOP/s < 0.6·65.7
    const measured = Object.fromEntries(trainingTargets({ ...report, fmaPeak: { gflops: 65.7 } }).map((t) => [t.target, t.met]));
    expect(measured['training small: ≥ 60% of the WASM FMA peak (65.7 GFLOP/s measured in this run, one core) as useful GFLOP/s']).toBe(false);
    expect(met['training small, 2 threads: ≥ 1.6× one thread']).toBe(false);
    expect(trainingMarkdown(report).join('\n')).toContain('| training small, 2 threads: ≥ 1.6× one thread | unavailable: createTrainer({threads: 2}): this environment has no Web Worker | no |');
    const block = figuresBlock(report);
    expect(block).toContain('15.00×'); // tiny: tfjs 150 ms / ours 10 ms
    expect(block).toContain('Targets met: 3 of 6');
    expect(figuresBlock({ environment: {} })).toMatch(/has no training section/);
  });
});
