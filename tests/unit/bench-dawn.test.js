// The GPU runner's pieces that need no GPU (bench/dawn/): the references that scale to n = 4096 agree with
// the suite's whole-output ones and catch a wrong row, the report names a CPU-emulated adapter as such, and
// the runner without any Vulkan driver says that there is no adapter, and why, instead of failing.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { attentionRowsFloat64, gemmRowsFloat64, sampledRows } from '../../bench/dawn/references.js';
import { gpuTargets, toGpuMarkdown } from '../../bench/dawn/report.js';
import { attentionInputs, gemmInputs } from '../../bench/inputs.js';
import { attentionNaive, gemmFloat64 } from '../../bench/naive.js';
import { compareOutputs } from '../../bench/suite.js';
import { emulatedSuffix } from '../../bench/webgpu-contestants.js';

describe('the sampled-row references', () => {
  it('check the first, last and middle rows', () => {
    expect(sampledRows(4096)).toEqual([0, 1, 1024, 2048, 3072, 4094, 4095]);
    expect(sampledRows(2)).toEqual([0, 1]);
  });

  it('GEMM rows equal the float64 triple loop, and a wrong value in a checked row fails', () => {
    const inputs = gemmInputs(40);
    const full = gemmFloat64(inputs.a, inputs.b, 40);
    const rows = gemmRowsFloat64(inputs);
    expect(compareOutputs(full, rows).ok).toBe(true);
    const wrong = full.slice();
    wrong[39 * 40 + 7] += 0.01;
    expect(compareOutputs(wrong, rows)).toMatchObject({ ok: false, message: expect.stringContaining('[1567]') });
  });

  it('attention rows equal the naive causal multi-head layer (masking in the first rows, every key in the last)', () => {
    const inputs = attentionInputs(24, { dModel: 64, heads: 4 });
    const full = attentionNaive(inputs);
    const rows = attentionRowsFloat64(inputs);
    expect(compareOutputs(full, rows).ok).toBe(true);
    const wrong = full.slice();
    wrong[64 + 3] += 0.01; // row 1
    expect(compareOutputs(wrong, rows).ok).toBe(false);
    expect(compareOutputs(full.subarray(1), rows).ok).toBe(false);
  });
});

describe('the GPU report', () => {
  const lavapipe = {
    vendor: 'mesa', architecture: 'software', device: 'llvmpipe-llvm-15', description: 'llvmpipe: Mesa 25.0.7',
    emulated: true, label: 'mesa software llvmpipe: Mesa 25.0.7 — fallback adapter (CPU-emulated)',
  };

  it('names each CPU emulation in the row names, and a GPU not at all', () => {
    expect(emulatedSuffix(lavapipe)).toBe(' — lavapipe (CPU-emulated)');
    expect(emulatedSuffix({ emulated: true, label: 'google swiftshader — SwiftShader (CPU-emulated)' })).toBe(' — SwiftShader (CPU-emulated)');
    expect(emulatedSuffix({ emulated: false, label: 'nvidia hopper' })).toBe('');
  });

  it('holds a GPU to the targets with its datasheet peak; an emulated adapter to none', () => {
    const row = (task, size, contestant, medianMs, gflops) => ({ task, size, contestant, status: 'ok', medianMs, gflops });
    const gpu = { vendor: 'nvidia', architecture: 'hopper', device: 'nvidia-h100-80gb-hbm3', description: 'NVIDIA: 580.159.4', emulated: false };
    const report = {
      webgpuAdapter: gpu,
      results: [row('gemm', 4096, 'ours webgpu', 7, 25000), row('attention', 4096, 'ours simd128', 1500, 30), row('attention', 4096, 'ours webgpu', 50, 900)],
      training: { results: [row('training', 'small', 'ours (wasm-simd, 1 thread)', 350, 40), row('training', 'small', 'ours webgpu', 50, 300)] },
      crossover: { decision: { thresholdN: 256, source: 'probe', reason: 'measured' } },
    };
    const targets = gpuTargets(report);
    expect(targets.map((t) => t.met)).toEqual([true, true, false, true]);
    expect(targets[0].landed).toContain('37.4% of 66900');
    expect(gpuTargets({ ...report, webgpuAdapter: { ...lavapipe }, crossover: { decision: { thresholdN: null, source: 'committed', reason: 'r' } } })
      .map((t) => t.met)).toEqual([null, true, false, null]);
  });
});

describe('node bench/dawn/run.mjs without a Vulkan driver', () => {
  it('reports no adapter and why, writes gpu-none.*, and exits 2', () => {
    const out = mkdtempSync(join(tmpdir(), 'dawn-none-'));
    let status = 0;
    let output = '';
    try {
      output = execFileSync(process.execPath, ['bench/dawn/run.mjs', '--probe-only', `--out=${out}`], {
        env: { ...process.env, VK_DRIVER_FILES: join(out, 'no-such-icd.json'), XDG_RUNTIME_DIR: out },
        encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'],
      });
    } catch (error) {
      status = error.status;
      output = error.stdout;
    }
    expect(status).toBe(2);
    expect(output).toContain('NO ADAPTER: no-adapter');
    expect(readdirSync(out).sort()).toEqual(['gpu-none.json', 'gpu-none.md']);
    const report = JSON.parse(readFileSync(join(out, 'gpu-none.json'), 'utf8'));
    expect(report.webgpuAdapter.error).toMatch(/^no-adapter: /);
    expect(readFileSync(join(out, 'gpu-none.md'), 'utf8')).toContain('**No adapter**');
  });
});
