// The GPU runner's report (bench/dawn/run.mjs) as Markdown: the suite's and the training's tables through
// bench/report.js, then the checks, the issue's GPU targets, the 'auto' crossover and what the machine offered.
import { toMarkdown, trainingMarkdown, webgpuNote } from '../report.js';

/**
 * fp32 (non-tensor) peaks from the vendors' datasheets, matched against the adapter's device and driver
 * strings and nvidia-smi's name: the denominator of "GEMM at n=4096 ≥ 30% of peak". Unknown adapters get none.
 */
export const FP32_PEAKS = [
  { match: /H100.*PCIe/i, gflops: 51200, source: 'NVIDIA H100 PCIe datasheet' },
  { match: /H100|H200/i, gflops: 66900, source: 'NVIDIA H100/H200 SXM datasheet' },
  { match: /A100/i, gflops: 19500, source: 'NVIDIA A100 datasheet' },
];

const WASM = /^ours (relaxed-SIMD|simd128)$/;
const GPU = /^ours webgpu/;
const ok = (rows, test, size, task) => rows.find((r) => r.status === 'ok' && r.size === size && (!task || r.task === task) && test.test(r.contestant));

/** The issue's targets on a real GPU, each {target, landed, met} (met null where not measured). */
export function gpuTargets(report) {
  const adapter = report.webgpuAdapter ?? {};
  const names = `${adapter.device ?? ''} ${adapter.description ?? ''} ${report.vulkan?.nvidia?.smi ?? ''}`;
  const peak = adapter.emulated ? null : FP32_PEAKS.find((p) => p.match.test(names)) ?? null;
  const results = report.results ?? [];
  const training = report.training?.results ?? [];
  const out = [];
  const gemm = ok(results, GPU, 4096, 'gemm');
  out.push({
    target: 'GEMM n=4096 ≥ 30% of the GPU\'s fp32 peak',
    landed: !gemm ? 'not measured' : peak ? `${gemm.gflops.toFixed(0)} GFLOP/s = ${((100 * gemm.gflops) / peak.gflops).toFixed(1)}% of ${peak.gflops} (${peak.source})`
      : `${gemm.gflops.toFixed(0)} GFLOP/s; no fp32 peak known for this adapter`,
    met: gemm && peak ? gemm.gflops >= 0.3 * peak.gflops : null,
  });
  const ratio = (rows, size, task, goal, what) => {
    const gpu = ok(rows, GPU, size, task);
    const wasm = ok(rows, WASM, size, task) ?? rows.find((r) => r.status === 'ok' && r.size === size && /wasm-simd, 1 thread/.test(r.contestant));
    return {
      target: `${what} ≥ ${goal}× our WASM one thread`,
      landed: gpu && wasm ? `${(wasm.medianMs / gpu.medianMs).toFixed(1)}× (${gpu.medianMs.toFixed(2)} vs ${wasm.medianMs.toFixed(2)} ms, ${wasm.contestant})` : 'not measured',
      met: gpu && wasm ? wasm.medianMs / gpu.medianMs >= goal : null,
    };
  };
  out.push(ratio(results, 4096, 'attention', 20, 'causal MHA T=4096'));
  out.push(ratio(training, 'small', 'training', 10, 'training step, small model'));
  const decision = report.crossover?.decision;
  out.push({
    target: '\'auto\'\'s crossover on this adapter, measured by the page\'s probe',
    landed: decision ? `thresholdN ${decision.thresholdN ?? 'null'} (source ${decision.source}): ${decision.reason}` : 'not measured',
    // A CPU-emulated adapter is never probed (crossover-probe.js probeDeclined): no GPU target there.
    met: decision && !adapter.emulated ? decision.source === 'probe' || decision.source === 'stored' : null,
  });
  return out;
}

const exp = (x) => (Number.isFinite(x) ? x.toExponential(1) : String(x));

function checksMarkdown(checks) {
  if (!checks) return [];
  const out = ['', '## Checks before timing', ''];
  const { fixtures, trainer } = checks;
  if (!fixtures) return out;
  out.push(`Every function with PyTorch fixtures (tests/fixtures/, the registry's list) through the public API on the webgpu backend, `
    + `against PyTorch's values and against the WASM SIMD build's results on the same arguments, |error| ≤ ${fixtures.tolerance.atol} + `
    + `${fixtures.tolerance.rtol}·|expected| (a case may widen it); the multi-head functions also on their fused path (intermediates: false). `
    + `Worst |error| per row.`, '');
  out.push('| function | path | cases | vs PyTorch | vs WASM |', '|---|---|---:|---|---|');
  const keys = [...new Set(fixtures.rows.map((r) => `${r.fn}|${r.path}`))];
  for (const key of keys) {
    const [fn, path] = key.split('|');
    const rows = fixtures.rows.filter((r) => r.fn === fn && r.path === path);
    const cell = (r) => (!r ? '–' : r.problems.length ? `**FAILED** (${r.problems.length}): ${r.problems[0].slice(0, 160)}` : `ok (${exp(r.worst.maxAbsError)})`);
    out.push(`| ${fn} | ${path} | ${rows[0].cases} | ${cell(rows.find((r) => r.against === 'PyTorch'))} | ${cell(rows.find((r) => r.against !== 'PyTorch'))} |`);
  }
  if (!trainer) return out;
  out.push('', `The trainer: createTrainer({backend: 'webgpu'}) against the CPU engine (wasm-simd, one thread) from the same parameters on the same `
    + `batches; every step's loss (relative) and the parameters after the steps (absolute) within ${trainer.tolerance}.`, '');
  out.push('| model | steps | loss rel. error | parameters max abs error | verdict |', '|---|---:|---:|---:|---|');
  for (const r of trainer.rows) out.push(`| ${r.size} | ${r.steps} | ${r.error ? '–' : exp(r.lossRelError)} | ${r.error ? '–' : exp(r.parameterError)} | ${r.error ? `**FAILED**: ${r.error}` : r.ok ? 'ok' : '**FAILED**'} |`);
  return out;
}

function machineMarkdown(report) {
  const { machine, vulkan, dawn, webgpuAdapter: adapter } = report;
  const out = ['', '## What the machine offered', ''];
  out.push(`- Host: ${machine.cpu}, ${machine.cores} logical cores, ${machine.memoryGiB} GiB; Node.js ${machine.node} (${machine.platform}); `
    + `load average ${machine.loadAverage.join(' / ')} at the start${machine.loadAverageAtEnd ? `, ${machine.loadAverageAtEnd.join(' / ')} at the end` : ''}.`);
  if (dawn) {
    out.push(`- Dawn: npm ${dawn.package}, backend ${dawn.backend} (create([${dawn.flags.map((f) => `'${f}'`).join(', ')}])); adapters it lists: `
      + `${dawn.adapters.length ? dawn.adapters.map((a) => `${a.backend}: ${a.name}`).join('; ') : `none (${dawn.text.replace(/\s+/g, ' ')})`}.`);
  }
  if (adapter && !adapter.error) {
    out.push(`- Adapter: vendor '${adapter.vendor}', architecture '${adapter.architecture}', device '${adapter.device}', driver (description) `
      + `'${adapter.description}'; isFallbackAdapter ${adapter.isFallbackAdapter}; ${adapter.emulated ? '**CPU-emulated**' : 'a GPU'}. Limits: `
      + `${Object.entries(adapter.limits).map(([k, v]) => `${k} ${v}`).join(', ')}.`);
  } else if (adapter) {
    out.push(`- **No adapter**: ${adapter.error}`);
  }
  if (vulkan) {
    out.push(`- Vulkan loader: ${vulkan.loader.length ? vulkan.loader.join('; ') : 'none'}.`);
    out.push(`- Vulkan ICDs: ${vulkan.icds.length ? vulkan.icds.map((icd) => `${icd.file} (${icd.library ?? icd.error}${icd.apiVersion ? `, API ${icd.apiVersion}` : ''})`).join('; ') : 'none'}.`);
    if (Object.keys(vulkan.env).length) out.push(`- Environment: ${Object.entries(vulkan.env).map(([k, v]) => `${k}=${v}`).join(', ')}.`);
    if (Object.keys(vulkan.nvidia).length) out.push(`- NVIDIA: ${Object.entries(vulkan.nvidia).map(([k, v]) => `${k}: ${v}`).join('; ')}.`);
  }
  return out;
}

/** The whole report as Markdown. */
export function toGpuMarkdown(report) {
  const adapter = report.webgpuAdapter;
  const name = !adapter || adapter.error ? 'no adapter' : adapter.label;
  const title = `WebGPU in Node (Dawn): ${name}`;
  const machine = `Dawn backend ${report.dawn?.backend ?? '?'}; size set '${report.set?.name ?? '?'}'`;
  let out;
  if (report.environment) {
    out = toMarkdown(report, { title, machine, targets: false }).trimEnd().split('\n');
  } else {
    out = [`# ${title}`, '', `Stopped before the benchmark (${machine}).`, ...webgpuNote({ ...report, results: [], training: null })];
    if (report.training) out.push(...trainingMarkdown(report, { targets: false }));
  }
  if (report.errors?.length) {
    out.push('', '## Stages that failed', '');
    for (const e of report.errors) out.push(`- **${e.stage}**: ${e.message.split('\n')[0]}`);
  }
  out.push(...checksMarkdown(report.checks));
  if (report.targets) {
    out.push('', '## Targets on a real GPU (issue #26; goals, not tests)', '', '| target | landed | met |', '|---|---|---|');
    for (const t of report.targets) out.push(`| ${t.target} | ${t.landed} | ${t.met === null ? '–' : t.met ? 'yes' : 'no'} |`);
  }
  if (report.crossover?.record) {
    out.push('', `The probe's rows (${report.crossover.record.complete ? 'complete' : 'cut by its budget'}, ${report.crossover.record.spentMs.toFixed(0)} ms): `
      + report.crossover.record.rows.map((r) => `${r.workload} n=${r.n}: GPU ${r.gpuMs.toFixed(2)} ms, WASM ${r.wasmMs.toFixed(2)} ms`).join('; ') + '.');
  }
  if (report.crossoverRecord) {
    const record = report.crossoverRecord;
    out.push('', `measureCrossover (the measurement behind web/src/gpu/crossover.json, unbudgeted; the JSON's crossoverRecord is its record): `
      + `thresholdN ${record.thresholdN}; ` + record.rows.map((r) => `n=${r.n}: GPU ${r.gpuMs} ms, WASM ${r.wasmMs} ms`).join('; ') + '.');
  }
  out.push(...machineMarkdown(report));
  return `${out.join('\n')}\n`;
}
