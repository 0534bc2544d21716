// The training section's PyTorch row (bench/train_torch.py), run by bench/run.mjs after the page: the same
// initial parameters and batches as the page's contestants (bench/training.js), and ours' first-step loss to
// check against. Adds its rows and its contestant line to the page's training report. When
// /usr/bin/python3 cannot import torch, the rows say so ('unavailable') and nothing is timed.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { batchCount, initialParameters, LOSS_RTOL, modelConfig, OPTIMIZER, trainingBatch, trainingStats, TRAINING_SIZES } from './training.js';

export const PYTHON = '/usr/bin/python3';
export const TORCH_NAME = 'PyTorch 1.13 CPU eager, 1 thread';

export async function runTorchTraining(training, { root, log = () => {} }) {
  const sizes = Object.keys(training.sizes);
  const env = { ...process.env, OMP_NUM_THREADS: '1', OPENBLAS_NUM_THREADS: '1', MKL_NUM_THREADS: '1' };
  const probe = spawnSync(PYTHON, ['-c', 'import torch; print(torch.__version__)'], { env, encoding: 'utf8' });
  const unavailable = (reason) => {
    training.contestants.push({ name: TORCH_NAME, group: 'peer', error: reason });
    for (const size of sizes) training.results.push({ task: 'training', size, contestant: TORCH_NAME, group: 'peer', threads: 1, status: 'unavailable', reason });
    log(`unavailable: ${TORCH_NAME}: ${reason}`);
  };
  if (probe.status !== 0) {
    unavailable(`torch is not importable by ${PYTHON} (${(probe.stderr || probe.error?.message || '').trim().split('\n').at(-1)}): no PyTorch row in this run`);
    return;
  }
  const dir = mkdtempSync(join(os.tmpdir(), 'bench-torch-'));
  try {
    const plan = { optimizer: OPTIMIZER, sizes: [] };
    for (const size of sizes) {
      if (training.reference[size] === undefined) continue; // ours did not run: nothing to check against
      const { spec, parameters } = initialParameters(size);
      const count = batchCount(size);
      const params = new Float32Array(spec.reduce((n, [name]) => n + parameters[name].data.length, 0));
      let offset = 0;
      for (const [name] of spec) { params.set(parameters[name].data, offset); offset += parameters[name].data.length; }
      const { batch, contextLength } = TRAINING_SIZES[size];
      const tokens = new Int32Array(count * 2 * batch * contextLength);
      for (let s = 0; s < count; s++) {
        const { inputs, targets } = trainingBatch(size, s);
        tokens.set(inputs.data, (2 * s) * batch * contextLength);
        tokens.set(targets.data, (2 * s + 1) * batch * contextLength);
      }
      writeFileSync(join(dir, `${size}-parameters.f32`), Buffer.from(params.buffer));
      writeFileSync(join(dir, `${size}-batches.i32`), Buffer.from(tokens.buffer));
      plan.sizes.push({
        size, config: modelConfig(size), batch, spec, parameters: join(dir, `${size}-parameters.f32`),
        batches: join(dir, `${size}-batches.i32`), count, warmup: TRAINING_SIZES[size].warmup, steps: TRAINING_SIZES[size].steps,
        expectedLoss: training.reference[size], lossRtol: LOSS_RTOL,
      });
    }
    writeFileSync(join(dir, 'plan.json'), JSON.stringify(plan));
    log(`training: ${PYTHON} bench/train_torch.py (torch ${probe.stdout.trim()}, OMP_NUM_THREADS=1) …`);
    const run = spawnSync(PYTHON, [join(root, 'bench', 'train_torch.py'), join(dir, 'plan.json')], { env, encoding: 'utf8', maxBuffer: 64 << 20, timeout: 10 * 60 * 1000 });
    if (run.status !== 0) {
      unavailable(`bench/train_torch.py failed (exit ${run.status}): ${(run.stderr || run.error?.message || '').trim().split('\n').slice(-3).join(' ')}`);
      return;
    }
    const answer = JSON.parse(run.stdout);
    training.contestants.push({ name: TORCH_NAME, group: 'peer', description: `torch ${answer.torch}, torch.get_num_threads() = ${answer.threads}, OMP_NUM_THREADS=1, BLAS ${answer.blas}; torch.optim.AdamW; run by bench/run.mjs beside the page (bench/train_torch.py)` });
    for (const row of answer.results) {
      const full = row.status === 'ok' ? { ...row, ...trainingStats(row.size, row.timesMs) } : row;
      training.results.push(full);
      log(`training ${row.size} ${TORCH_NAME}: ${full.status === 'ok'
        ? `${full.medianMs.toFixed(1)} ms/step (${full.runs} steps; CPU ${full.cpuMsPerStep.toFixed(1)} ms/step), ${full.stepsPerSecond.toFixed(2)} steps/s, ${full.gflops.toFixed(2)} GFLOP/s; first loss ${full.firstLoss.toFixed(6)} (rel. ${full.lossRelError.toExponential(1)})`
        : `${full.status}: ${full.reason}`}`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
