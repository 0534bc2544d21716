// What tests/e2e/webgpu-train-kernels.spec.js drives: each training kernel (web/src/gpu/train) on SwiftShader
// against the JS trainer's own math (web/src/train), returning the largest excess over the tolerance
// |gpu − js| ≤ atol + rtol·|js| (≤ 0 passes) and the largest abs difference, for the failure message.
import { acquireDevice } from '/web/src/gpu/device.js';
import { GpuRuntime } from '/web/src/gpu/runtime.js';
import * as train from '/web/src/gpu/train/passes.js';
import { adamwStep, clipGradNorm, createAdamState } from '/web/src/train/adamw.js';
import { randomTensor } from './webgpu-harness.js';

let runtimePromise;
async function runtime() {
  runtimePromise ??= acquireDevice().then(({ device }) => new GpuRuntime(device, { stagedGemm: false }));
  return runtimePromise;
}

/** Largest |a − e| − (atol + rtol·|e|) over the elements, and the largest |a − e|. NaN fails. */
export function compare(actual, expected, atol = 1e-5, rtol = 1e-5) {
  let excess = -Infinity;
  let maxAbs = 0;
  for (let i = 0; i < expected.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    const over = difference - (atol + rtol * Math.abs(expected[i]));
    if (!(over <= excess)) excess = Number.isNaN(over) ? Infinity : over;
    if (!(difference <= maxAbs)) maxAbs = Number.isNaN(difference) ? Infinity : difference;
  }
  if (actual.length < expected.length) excess = Infinity;
  return { excess, maxAbs };
}

function merge(...results) {
  return { excess: Math.max(...results.map((r) => r.excess)), maxAbs: Math.max(...results.map((r) => r.maxAbs)) };
}

/**
 * `steps` AdamW steps (with clip_grad_norm_ when maxNorm is given) on tensors of the given lengths, GPU vs
 * web/src/train/adamw.js; fresh random gradients each step. Compares parameters, moments and the norm.
 */
export async function checkAdamw({ lengths, steps = 3, maxNorm = null, lr = 1e-2, weightDecay = 0.1, eps = 1e-8, betas = [0.9, 0.999] }) {
  const gpu = await runtime();
  const names = lengths.map((_, i) => `p${i}`);
  const params = {};
  names.forEach((name, i) => { params[name] = { data: randomTensor(lengths[i], 10 + i), shape: [lengths[i]] }; });
  const state = createAdamState(params);
  const segments = [];
  let total = 0;
  for (const length of lengths) { segments.push({ offset: total, length }); total += length; }
  const flat = new Float32Array(total);
  names.forEach((name, i) => flat.set(params[name].data, segments[i].offset));
  const { table, partialCount } = train.gradNormSegmentTable(segments);
  // resident across steps: one long-lived pass per step would free them, so keep them in a runtime-level pass
  const resident = gpu.beginPass('adamw resident');
  const weights = resident.upload(flat, [total], 'weights');
  const expAvg = resident.allocate([total], 'exp_avg');
  const expAvgSq = resident.allocate([total], 'exp_avg_sq');
  const segmentTable = resident.upload(table, [table.length], 'segments');
  const partials = resident.allocate([Math.max(1, partialCount)], 'partials');
  const clip = resident.allocate([2], 'clip');
  let norms = { excess: -Infinity, maxAbs: 0 };
  let out;
  for (let s = 0; s < steps; s++) {
    const grads = {};
    const flatGrads = new Float32Array(total);
    names.forEach((name, i) => {
      grads[name] = randomTensor(lengths[i], 100 * s + i).map((x) => x * 3);
      flatGrads.set(grads[name], segments[i].offset);
    });
    const norm = clipGradNorm(grads, maxNorm);
    adamwStep(params, grads, state, { lr, betas, eps, weightDecay });
    const pass = gpu.beginPass('adamw step');
    const g = pass.upload(flatGrads, [total], 'grads');
    train.gradNorm(pass, { grads: g, segments, partials, segmentTable, clip, maxNorm });
    train.adamw(pass, { weights, grads: g, expAvg, expAvgSq, clip, step: s + 1, lr, betas, eps, weightDecay });
    out = await pass.finish(s === steps - 1 ? { clip, weights, expAvg, expAvgSq } : { clip });
    norms = merge(norms, compare(out.clip.data.subarray(0, 1), [norm]));
  }
  const expected = (field) => {
    const all = new Float32Array(total);
    names.forEach((name, i) => all.set(field(name), segments[i].offset));
    return all;
  };
  const result = merge(norms,
    compare(out.weights.data, expected((name) => params[name].data)),
    compare(out.expAvg.data, expected((name) => state.expAvg[name])),
    compare(out.expAvgSq.data, expected((name) => state.expAvgSq[name])));
  for (const buffer of resident.buffers) buffer.destroy();
  resident.device.popErrorScope();
  resident.device.popErrorScope();
  return result;
}
