// The WebGPU backend and trainer in Node on Dawn (npm `webgpu`): what the machine offers, the correctness
// checks, then the GPU rows of the benchmark beside our WASM one thread, in one run.
//
//   node bench/dawn/run.mjs [--set=auto|gpu|emulated] [--gemm=n,…] [--attention=T,…] [--training=size,…]
//                           [--out=DIR] [--probe-only] [--crossover]
//
// 1. What the machine offers: the Vulkan loader and ICDs, the adapters Dawn sees, the adapter the backend
//    gets (vendor, architecture, device, driver description) or exactly why none.
// 2. Checks (bench/dawn/checks.js): every fixture function through the webgpu backend against PyTorch and
//    against the WASM SIMD build; the webgpu trainer's first steps against the CPU engine.
// 3. The suite (bench/suite.js) on the GEMM and causal multi-head attention, and the training step
//    (bench/training.js), each row checked before it is timed: ours webgpu and ours WASM one thread.
// 4. 'auto''s crossover as the page's probe measures it (web/src/gpu/crossover-probe.js), and on a GPU (or
//    with --crossover) the unbudgeted measurement behind crossover.json, as a record for its 'hardware' entry.
// Writes DIR/gpu-<adapter>.json and .md (default bench/results/), rewritten after every stage, so a run cut
// short still leaves what it measured. `--set`: 'gpu' (the issue's sizes), 'emulated' (small sizes, for a CPU
// Vulkan driver such as lavapipe), 'auto' (by the adapter). Exit status: 0 when every check and row passed,
// 1 when one failed (or a stage threw: recorded in `errors`, the run goes on), 2 when there was no adapter.
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { installDawn, LINUX_BACKEND, listDawnAdapters, uninstallDawn, vulkanReport } from './dawn.js';
import { fixtureChecks, trainerChecks } from './checks.js';
import { scalingReferences } from './references.js';
import { gpuTargets, toGpuMarkdown } from './report.js';
import { ourContestants } from '../contestants/ours.js';
import { fmaPeakLine, fmaPeakMeasurement, fmaPeakRecord } from '../fma-peak.js';
import { runSuite } from '../suite.js';
import { oursTraining, oursWebgpuTraining, runTraining } from '../training.js';
import { oursWebgpuContestant } from '../webgpu-contestants.js';
import { probeAdapter } from '../../web/src/gpu/device.js';

/** The size sets: the issue's on a GPU; on a CPU-emulated adapter, sizes that take seconds, not hours. */
export const SETS = {
  gpu: { gemm: [512, 1024, 2048, 4096], attention: [512, 1024, 2048, 4096], training: ['small', 'medium'], trainerChecks: ['tiny', 'small'] },
  emulated: { gemm: [128, 256], attention: [128], training: ['tiny'], trainerChecks: ['tiny'] },
};

const args = Object.fromEntries(process.argv.slice(2).map((arg) => {
  const [key, value = 'true'] = arg.replace(/^--/, '').split('=');
  return [key, value];
}));
const outDir = args.out ?? fileURLToPath(new URL('../results/', import.meta.url));
const started = performance.now();
const log = (line) => console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(6)} s] ${line}`);

/** The results' file name: the adapter's vendor and architecture ('lavapipe' for Mesa's CPU driver). */
function adapterSlug(adapter) {
  if (!adapter) return 'none';
  if (adapter.emulated && /llvmpipe|lavapipe/i.test(`${adapter.device} ${adapter.description}`)) return 'lavapipe';
  const name = [adapter.vendor, adapter.architecture || adapter.device].filter(Boolean).join('-') || 'unknown';
  return name.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
}

const report = {
  kind: 'dawn-node',
  machine: {
    node: process.version, platform: `${process.platform} ${process.arch}`, cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length, memoryGiB: Math.round(totalmem() / 2 ** 30), loadAverage: loadavg().map((x) => Number(x.toFixed(2))),
  },
};

function write() {
  mkdirSync(outDir, { recursive: true });
  const base = join(outDir, `gpu-${adapterSlug(report.webgpuAdapter?.error ? null : report.webgpuAdapter)}`);
  report.seconds = (performance.now() - started) / 1000;
  report.machine.loadAverageAtEnd = loadavg().map((x) => Number(x.toFixed(2)));
  writeFileSync(`${base}.json`, `${JSON.stringify(report, null, 1)}\n`);
  writeFileSync(`${base}.md`, toGpuMarkdown(report));
  return base;
}

// 1. What the machine offers.
report.vulkan = vulkanReport();
log(`Vulkan loader: ${report.vulkan.loader.length ? report.vulkan.loader.join('; ') : 'NONE (no libvulkan.so.1 in ldconfig -p or LD_LIBRARY_PATH)'}`);
log(`Vulkan ICDs: ${report.vulkan.icds.length ? report.vulkan.icds.map((icd) => `${icd.file} → ${icd.library ?? icd.error}${icd.libraryFound === false ? ' (NOT FOUND by the linker)' : ''}`).join('; ') : 'NONE found'}`);
if (Object.keys(report.vulkan.nvidia).length) log(`NVIDIA: ${JSON.stringify(report.vulkan.nvidia)}`);
const { gpu, flags, version } = await installDawn();
report.dawn = { package: `webgpu ${version}`, flags, backend: flags.find((f) => f.startsWith('backend='))?.slice(8) ?? 'default', ...await listDawnAdapters() };
log(`Dawn (npm webgpu ${version}, ${flags.join(' ') || 'no flags'}) sees: ${report.dawn.adapters.length
  ? report.dawn.adapters.map((a) => `${a.backend}: ${a.name}`).join('; ') : `no adapter (${report.dawn.text.replace(/\s+/g, ' ')})`}`);
try {
  const { adapter, adapterInfo } = await probeAdapter({ gpu });
  const limits = ['maxStorageBufferBindingSize', 'maxBufferSize', 'maxComputeWorkgroupStorageSize', 'maxComputeInvocationsPerWorkgroup']
    .reduce((all, name) => ({ ...all, [name]: adapter.limits[name] }), {});
  report.webgpuAdapter = { ...adapterInfo, backend: report.dawn.backend, isFallbackAdapter: adapter.info?.isFallbackAdapter ?? null, limits, features: [...adapter.features].sort() };
  log(`adapter: ${adapterInfo.label} (vendor '${adapterInfo.vendor}', architecture '${adapterInfo.architecture}', device '${adapterInfo.device}', `
    + `driver '${adapterInfo.description}'; Dawn backend ${report.dawn.backend})${adapterInfo.emulated ? ': CPU-emulated' : ''}`);
} catch (error) {
  report.webgpuAdapter = { error: `${error.reason ?? 'error'}: ${error.message}` };
  log(`NO ADAPTER: ${report.webgpuAdapter.error}`);
  if (!report.vulkan.loader.length) log('why: no Vulkan loader (libvulkan.so.1): Dawn\'s Vulkan backend cannot start; carry libvulkan1 (scripts/pack-gpu.sh does)');
  else if (!report.vulkan.icds.length) log('why: no Vulkan ICD manifest: the loader finds no driver; point VK_DRIVER_FILES at the driver\'s ICD JSON');
  else if (report.vulkan.icds.every((icd) => !icd.libraryFound)) log('why: no ICD\'s library can be opened (see "NOT FOUND" above): the driver\'s user-space library is missing or off the linker\'s path');
  else if (!report.dawn.adapters.length) log('why: the loader and a driver are there, but Dawn lists no adapter: its warnings above (stderr) say which Vulkan feature the driver lacks');
}
const set = args.set && args.set !== 'auto' ? args.set : (report.webgpuAdapter.error || report.webgpuAdapter.emulated ? 'emulated' : 'gpu');
if (!SETS[set]) throw new Error(`--set=${set}: expected auto, ${Object.keys(SETS).join(' or ')}`);
// --gemm=… --attention=… --training=… (comma-separated) replace the set's sizes.
for (const key of ['gemm', 'attention', 'training']) {
  if (args[key]) SETS[set][key] = args[key].split(',').map((size) => (key === 'training' ? size : Number(size)));
}
report.set = { name: set, ...SETS[set] };
log(`size set '${set}': GEMM n ∈ {${SETS[set].gemm}}, attention T ∈ {${SETS[set].attention}}, training ${SETS[set].training.join(', ')}`);
let file = write();
if (args['probe-only']) {
  uninstallDawn();
  log(`wrote ${file}.json and .md`);
  process.exit(report.webgpuAdapter.error ? 2 : 0);
}

// A stage that throws is recorded and the run goes on: one call on a lent machine should bring back all it can.
report.errors = [];
async function stage(name, work) {
  try {
    await work();
  } catch (error) {
    report.errors.push({ stage: name, message: error?.stack ?? String(error) });
    log(`STAGE FAILED: ${name}: ${error?.message ?? error}`);
  }
  file = write();
}

// 2. Checks (only with an adapter: without one the rows below say 'unavailable').
if (!report.webgpuAdapter.error) {
  await stage('fixture checks', async () => {
    report.checks = { fixtures: await fixtureChecks({ onProgress: (line) => { if (/FAILED/.test(line)) log(line); } }) };
    const fixtureRows = report.checks.fixtures.rows;
    log(`fixture checks: ${fixtureRows.filter((r) => !r.problems.length).length}/${fixtureRows.length} (function × path × reference) passed, `
      + `${fixtureRows.reduce((n, r) => n + r.cases, 0)} cases`);
  });
  await stage('trainer checks', async () => {
    report.checks.trainer = await trainerChecks({ sizes: SETS[set].trainerChecks, onProgress: log });
  });
}
const checksOk = Boolean(report.checks?.fixtures?.ok && report.checks?.trainer?.ok);

// 3. The suite and the training step: our WASM one thread as the library runs it in Node (the simd128 build;
// the relaxed-SIMD tile is installed in browsers only) and webgpu.
const wasmRow = ourContestants().find((c) => c.name === 'ours simd128');
// One core's relaxed-SIMD FMA peak in this engine, before and after the rows, as the page benchmark measures it:
// the report's "% of peak" divides by it, or by report.js's labelled estimate where Node cannot run the module.
const peakBefore = await fmaPeakMeasurement();
log(fmaPeakLine('before the rows', peakBefore));
report.fmaPeak = fmaPeakRecord(peakBefore);
await stage('GEMM and attention', async () => {
  Object.assign(report, await runSuite({
    contestants: [wasmRow, oursWebgpuContestant()], tasks: ['gemm', 'attention'],
    sizes: { gemm: SETS[set].gemm, attention: SETS[set].attention }, taskOverrides: scalingReferences(), onProgress: log,
  }));
});
await stage('training', async () => {
  report.training = await runTraining({ contestants: [oursTraining(1), oursWebgpuTraining()], sizes: SETS[set].training, onProgress: log });
});
const peakAfter = await fmaPeakMeasurement();
log(fmaPeakLine('after the rows', peakAfter));
report.fmaPeak = fmaPeakRecord(peakBefore, peakAfter);

// 4. 'auto''s crossover on this adapter, measured by the page's own probe (never on a CPU-emulated adapter).
if (!report.webgpuAdapter.error) await stage('auto crossover probe', async () => {
  const { loadAttention } = await import('../../web/src/core/index.js');
  const attention = await loadAttention({ backend: 'auto' });
  const n = 512;
  const square = { data: new Float32Array(n * n).fill(0.5), shape: [n, n] };
  await attention.matmul(square, square, { transposeB: false });
  const record = attention.probing ? await attention.probing : null;
  report.crossover = { decision: attention.gpuCrossover, record };
  log(`'auto' crossover: ${JSON.stringify(attention.gpuCrossover)}${record ? `; probe rows ${record.rows.map((r) => `${r.workload} n=${r.n} gpu ${r.gpuMs.toFixed(2)} ms / wasm ${r.wasmMs.toFixed(2)} ms`).join(', ')}` : ''}`);
  attention.dispose?.();
});
// The unbudgeted measurement behind crossover.json (web/src/gpu/crossover-measure.js), as a record for its
// 'hardware' entry: on a GPU, or when asked (--crossover).
if (!report.webgpuAdapter.error && (set === 'gpu' || args.crossover)) await stage('measureCrossover', async () => {
  const { loadWebGpuBackend } = await import('../../web/src/core/backends/webgpu.js');
  const { loadWasmBackend } = await import('../../web/src/core/backends/wasm.js');
  const { crossoverRecord, measureCrossover } = await import('../../web/src/gpu/crossover-measure.js');
  const wasm = await loadWasmBackend({ build: 'simd' });
  const measured = await measureCrossover({ gpu: await loadWebGpuBackend(), wasm });
  report.crossoverRecord = crossoverRecord(measured, {
    by: 'bench/dawn/run.mjs (measureCrossover of web/src/gpu/crossover-measure.js, in Node on Dawn)', browser: navigator.userAgent,
    adapter: report.webgpuAdapter, wasm: wasm.name, cpu: `${report.machine.cpu} × ${report.machine.cores}`, loadAverage: loadavg().map((x) => +x.toFixed(2)),
  });
  log(`measureCrossover: thresholdN ${measured.thresholdN}; ${measured.rows.map((r) => `n=${r.n} gpu ${r.gpuMs.toFixed(2)} / wasm ${r.wasmMs.toFixed(2)} ms`).join(', ')}`);
});

report.targets = gpuTargets(report);
for (const t of report.targets) log(`target: ${t.target}: ${t.landed}${t.met === null ? '' : t.met ? ' (met)' : ' (not met)'}`);
file = write();
const failedRows = [...report.results ?? [], ...report.training?.results ?? []].filter((r) => r.status === 'wrong' || r.status === 'failed');
for (const row of failedRows) log(`ROW ${row.status.toUpperCase()}: ${row.task} ${row.size} ${row.contestant}: ${row.reason}`);
log(`wrote ${file}.json and .md`);
uninstallDawn();
process.exit(report.webgpuAdapter.error ? 2 : checksOk && !failedRows.length && !report.errors.length ? 0 : 1);
