#!/usr/bin/env node
// Measures the GPU/WASM crossover in headless Chromium and writes web/src/gpu/crossover.json, the data the
// backend's automatic choice reads (prefersGpu). Run after scripts/build.sh:
//
//   node scripts/measure-crossover.mjs [--sizes 32,64,...]
//
// On a machine without a GPU, Chromium's WebGPU is SwiftShader (Vulkan on the CPU): the file says so, and
// its threshold is only right for such machines.
import { readFile, writeFile } from 'node:fs/promises';
import { cpus, loadavg } from 'node:os';
import { fileURLToPath } from 'node:url';
import { chromium } from '@playwright/test';
import { startServer } from './serve.mjs';
import { CHROMIUM_ARGS } from '../playwright.config.js';
import { crossoverRecord } from '../web/src/gpu/crossover-measure.js';

const root = fileURLToPath(new URL('../', import.meta.url));
const output = fileURLToPath(new URL('../web/src/gpu/crossover.json', import.meta.url));
const sizesArgument = process.argv.indexOf('--sizes');
const sizes = sizesArgument > 0 ? process.argv[sizesArgument + 1].split(',').map(Number) : undefined;

const server = await startServer({ root, port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: CHROMIUM_ARGS });
try {
  const page = await browser.newPage();
  await page.goto(`${server.url}tests/e2e/pages/webgpu.html`);
  await page.waitForFunction(() => window.harnessReady);
  const measured = await page.evaluate(async (sizes) => {
    const { loadWebGpuBackend } = await import('/web/src/core/backends/webgpu.js');
    const { loadWasmBackend } = await import('/web/src/core/backends/wasm.js');
    const { measureCrossover } = await import('/web/src/gpu/crossover-measure.js');
    const gpu = await loadWebGpuBackend();
    const wasm = await loadWasmBackend({ build: 'simd' });
    const result = await measureCrossover({ gpu, wasm, sizes });
    return { ...result, adapter: gpu.adapter, wasmBackend: wasm.name, userAgent: navigator.userAgent };
  }, sizes);
  const record = crossoverRecord(measured, {
    by: 'scripts/measure-crossover.mjs',
    browser: `${browser.version()} headless (${measured.userAgent})`,
    adapter: measured.adapter,
    wasm: measured.wasmBackend,
    cpu: `${cpus()[0]?.model ?? 'unknown'} × ${cpus().length}`,
    loadAverage: loadavg().map((x) => +x.toFixed(2)),
  });
  // One record per kind of adapter: a SwiftShader threshold says nothing about a hardware GPU.
  const kind = measured.adapter.emulated ? 'swiftshader' : 'hardware';
  const all = JSON.parse(await readFile(output, 'utf8').catch(() => '{}'));
  all[kind] = record;
  await writeFile(output, `${JSON.stringify(all, null, 2)}\n`);
  console.table(record.rows);
  console.log(`crossover[${kind}]: thresholdN=${record.thresholdN} (${record.provenance.adapter}) → ${output}`);
} finally {
  await browser.close();
  await server.close();
}
