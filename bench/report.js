// Turns a suite report (bench/suite.js runSuite) into a Markdown table and an SVG chart, and checks it
// against issue #5's targets. No DOM, no Node: used by bench/run.mjs and by the page alike.

const OURS = 'ours simd128';
const OURS_RELAXED = 'ours relaxed-SIMD';
const OURS_WORKERS = 'ours 2 workers';
const HEADLINE = [OURS_RELAXED, OURS, OURS_WORKERS];
const ORT_1 = 'onnxruntime-web 1 thread';
const ORT_1_ATTENTION = 'onnxruntime-web 1 thread, Attention op';
const TFJS = 'tfjs-wasm';
// Measured on this machine by issue #5 (native Eigen 3.4, AVX2+FMA, one thread): the bar to clear.
const NATIVE_EIGEN_MHA_1024_MS = 277;

// The training section (bench/training.js, bench/train_torch.py): its rows are report.training.results.
// One core's WASM relaxed-SIMD FMA peak from an assumed clock (2 ports × 4 lanes × 2 flops × ~3.2 GHz): only the
// fallback where a report has no measured peak (report.fmaPeak, bench/fma-peak.js), and labelled so wherever it is used.
export const FMA_PEAK_GFLOPS = 51;
export const TRAIN_OURS = 'ours (wasm-simd, 1 thread)';
export const TRAIN_OURS_WORKERS = 'ours (wasm-simd, 2 threads)';
export const TRAIN_TFJS = 'tfjs-wasm';
export const TRAIN_TORCH = 'PyTorch 1.13 CPU eager, 1 thread';

/**
 * The peak every "% of peak" of a report divides by: {gflops, measured, label, note}. The one measured in the
 * run (report.fmaPeak) where there is one, else FMA_PEAK_GFLOPS, an estimate; `label` names it in a target or a
 * column heading, `note` is the report's paragraph saying how it was obtained.
 */
export function fmaPeakOf(report) {
  const peak = report.fmaPeak;
  const one = (m) => (typeof m?.gflops === 'number' ? m.gflops.toFixed(1) : `not measured (${m?.error ?? 'not run'})`);
  if (typeof peak?.gflops === 'number') {
    return {
      gflops: peak.gflops, measured: true, label: `${peak.gflops.toFixed(1)} GFLOP/s measured in this run`,
      note: `One core's WASM relaxed-SIMD multiply-add peak, measured in this run in the engine that ran the contestants, before and `
        + `after them: **${peak.gflops.toFixed(1)} GFLOP/s** (before ${one(peak.before)}, after ${one(peak.after)}; `
        + `the larger counts). ${peak.source ?? 'bench/fma-peak.js'} runs the relaxed tile module's fma_peak: ${peak.chains} independent f32x4 FMA chains `
        + `on registers, no memory traffic, the best of ${peak.rounds} rounds of ${peak.stepsPerRound} steps. Every "% of peak" in this report divides by it.`,
    };
  }
  const why = peak?.error ?? 'this report records no measurement';
  return {
    gflops: FMA_PEAK_GFLOPS, measured: false, label: `${FMA_PEAK_GFLOPS} GFLOP/s, an estimate: not measured`,
    note: `One core's WASM relaxed-SIMD multiply-add peak: **not measured** (${why}). Every "% of peak" in this report divides by `
      + `**an estimate, ${FMA_PEAK_GFLOPS} GFLOP/s** (2 FMA ports × 4 lanes × 2 flops at an assumed ~3.2 GHz), not by a measurement.`,
  };
}

const findTraining = (report, size, contestant) =>
  report.training?.results.find((r) => r.size === size && r.contestant === contestant && r.status === 'ok');
const rowTraining = (report, size, contestant) => report.training?.results.find((r) => r.size === size && r.contestant === contestant);

const mib = (bytes) => (typeof bytes === 'number' ? `${(bytes / 2 ** 20).toFixed(0)} MiB` : '–');

function trainingCell(result, peak) {
  if (!result) return '–';
  if (result.status !== 'ok') return result.status;
  const digits = (x) => (x < 10 ? 2 : x < 100 ? 1 : 0);
  return `**${result.stepsPerSecond.toFixed(digits(result.stepsPerSecond))} steps/s**, ${Math.round(result.tokensPerSecond).toLocaleString('en-US')} tokens/s `
    + `(${result.medianMs.toFixed(digits(result.medianMs))} ms/step${typeof result.cpuMsPerStep === 'number' ? `, CPU ${result.cpuMsPerStep.toFixed(digits(result.cpuMsPerStep))}` : ''}, ${result.runs} steps; ${result.gflops.toFixed(1)} GFLOP/s`
    // A WebGPU row's work is the adapter's: one WASM core's peak is no measure of it (webgpuNote says which adapter).
    + `${/webgpu/.test(result.contestant) ? '' : ` = ${((100 * result.gflops) / peak.gflops).toFixed(0)}% of peak`}; peak ${mib(result.peakBytes)}${typeof result.startBytes === 'number' ? ` from ${mib(result.startBytes)}` : ''})`;
}

/** The training table as Markdown (one row per contestant, one column per size). */
export function trainingTable(report) {
  const training = report.training;
  if (!training) return '';
  const sizes = Object.keys(training.sizes);
  const peak = fmaPeakOf(report);
  const order = [TRAIN_OURS, TRAIN_TFJS, TRAIN_TORCH];
  const names = [...new Set([...order.filter((n) => training.results.some((r) => r.contestant === n)), ...training.results.map((r) => r.contestant)])];
  const lines = [
    `| contestant | ${sizes.map((s) => { const z = training.sizes[s]; return `${s} (V=${z.vocabSize}, T=${z.contextLength}, d=${z.dModel}, H=${z.heads}, L=${z.layers}, B=${z.batch})`; }).join(' | ')} |`,
    `|---|${sizes.map(() => '---').join('|')}|`,
  ];
  for (const name of names) lines.push(`| ${name} | ${sizes.map((size) => trainingCell(rowTraining(report, size, name), peak)).join(' | ')} |`);
  return lines.join('\n');
}

/** The issue's training targets with where this run landed. */
export function trainingTargets(report) {
  if (!report.training) return [];
  const fmt = (x, digits = 1) => (x === undefined ? 'not measured' : x.toFixed(digits));
  const out = [];
  for (const size of ['tiny', 'small']) {
    const ours = findTraining(report, size, TRAIN_OURS);
    const tfjs = findTraining(report, size, TRAIN_TFJS);
    const ratio = ours && tfjs ? ours.stepsPerSecond / tfjs.stepsPerSecond : undefined;
    const cpu = ours && tfjs && ours.cpuMsPerStep > 0 && tfjs.cpuMsPerStep > 0 ? `; CPU time ${fmt(tfjs.cpuMsPerStep / ours.cpuMsPerStep, 2)}×` : '';
    out.push({ target: `training ${size}: ≥ 10× tfjs-wasm steps/s`, landed: ratio === undefined ? 'not measured' : `${fmt(ratio, 2)}× (${fmt(ours.medianMs)} vs ${fmt(tfjs.medianMs)} ms/step${cpu})`, met: (ratio ?? 0) >= 10 });
  }
  const torchRow = rowTraining(report, 'tiny', TRAIN_TORCH);
  const oursTiny = findTraining(report, 'tiny', TRAIN_OURS);
  const torchTiny = findTraining(report, 'tiny', TRAIN_TORCH);
  out.push({
    target: 'training tiny: more steps/s than PyTorch CPU eager, one thread',
    landed: oursTiny && torchTiny ? `${fmt(oursTiny.medianMs)} vs ${fmt(torchTiny.medianMs)} ms/step (${fmt(torchTiny.medianMs / oursTiny.medianMs, 2)}×${oursTiny.cpuMsPerStep > 0 && torchTiny.cpuMsPerStep > 0 ? `; CPU time ${fmt(oursTiny.cpuMsPerStep)} vs ${fmt(torchTiny.cpuMsPerStep)} ms` : ''})`
      : `not measured${torchRow && torchRow.status !== 'ok' ? ` (PyTorch: ${torchRow.status}: ${torchRow.reason})` : ''}`,
    met: Boolean(oursTiny && torchTiny) && oursTiny.medianMs < torchTiny.medianMs,
  });
  const oursSmall = findTraining(report, 'small', TRAIN_OURS);
  const peak = fmaPeakOf(report);
  out.push({ target: `training small: ≥ 60% of the WASM FMA peak (${peak.label}, one core) as useful GFLOP/s`, landed: oursSmall ? `${fmt(oursSmall.gflops)} GFLOP/s = ${fmt((100 * oursSmall.gflops) / peak.gflops, 0)}%` : 'not measured', met: (oursSmall?.gflops ?? 0) >= 0.6 * peak.gflops });
  const workers = rowTraining(report, 'small', TRAIN_OURS_WORKERS);
  const workersOk = workers?.status === 'ok' ? workers : undefined;
  const torchSmall = findTraining(report, 'small', TRAIN_TORCH);
  const why = workers && workers.status !== 'ok' ? `${workers.status}: ${workers.reason}` : 'no two-thread row in this run';
  out.push({ target: 'training small, 2 threads (the calling thread and a worker): within PyTorch one thread\'s time', landed: workersOk && torchSmall ? `${fmt(workersOk.medianMs)} vs ${fmt(torchSmall.medianMs)} ms/step` : why, met: Boolean(workersOk && torchSmall) && workersOk.medianMs <= torchSmall.medianMs });
  out.push({ target: 'training small, 2 threads: ≥ 1.6× one thread', landed: workersOk && oursSmall ? `${fmt(oursSmall.medianMs / workersOk.medianMs, 2)}×` : why, met: Boolean(workersOk && oursSmall) && oursSmall.medianMs / workersOk.medianMs >= 1.6 });
  return out;
}

/** The training section of the Markdown report. */
export function trainingMarkdown(report, { targets: withTargets = true } = {}) {
  const training = report.training;
  if (!training) return [];
  const peak = fmaPeakOf(report);
  const out = ['', '## Training: the AttentionOnly model (LayerNorm off), one step = forward, backward, AdamW', ''];
  out.push(`Task '${training.task}' (makeBatch, seed ${training.seed}, batch s of step s), the same initial parameters `
    + `(initParameters, seed ${training.seed}) and AdamW (lr ${training.optimizer.lr}, betas ${training.optimizer.betas.join('/')}, eps ${training.optimizer.eps}, `
    + `weight decay ${training.optimizer.weightDecay}) for every contestant. Each one's first step is the check: its loss must equal ours within `
    + `${training.lossRtol} relative before it is timed (a contestant that disagrees is reported, never timed). Then warm-up steps and timed steps, `
    + `each on its own batch; median ms/step (a contestant whose first step took over ${training.slowStepMs / 1000} s: 1 warm-up step and `
    + `${Object.entries(training.sizes).map(([s, z]) => `${z.slowSteps} timed at ${s}`).join(', ')}).`, '');
  for (const c of training.contestants) out.push(`- **${c.name}**: ${c.error ? `unavailable (${c.error})` : c.description}`);
  out.push('', trainingTable(report), '');
  out.push(`Useful GFLOP/s = 6·F / time, F the forward's multiply-adds: F = L·(4·N·d² + B·d·T(T+1)) + N·d·V with N = B·T `
    + '(four projections per layer, Q·Kᵀ and P·V over the causal half, the unembedding; the embedding lookup counts 0), '
    + 'the backward 2·F, ×2 flops per multiply-add; softmax, the loss, bias adds and AdamW are not counted. '
    + `Per step: ${Object.entries(training.sizes).map(([s, z]) => `${s} ${(z.flopsPerStep / 1e9).toFixed(3)} GFLOP`).join(', ')}. `
    + `% of peak: of ${peak.gflops.toFixed(peak.measured ? 1 : 0)} GFLOP/s, one core's WASM relaxed-SIMD FMA peak, ${peak.measured
      ? 'measured in this run before and after the contestants (bench/fma-peak.js)' : 'an estimate from an assumed clock: not measured in this run'}. `
    + 'CPU: the CPU time per timed step (mean) of the page\'s renderer process (all its threads) or of the Python process: on a shared machine, '
    + 'wall time above CPU time is time the contestant waited for a core. '
    + "Peak memory: the page's renderer process peak RSS during that contestant's run (from its RSS at the start; it holds the whole page: "
    + "every WASM memory loaded so far, tfjs's included), PyTorch's process peak RSS (ru_maxrss; from its RSS before the model).");
  const notes = training.results.filter((r) => r.status !== 'ok' && r.status !== 'unavailable');
  for (const r of notes) out.push(`- ${r.contestant}, ${r.size}: ${r.status} — ${r.reason}`);
  if (!withTargets) return out;
  out.push('', '### Training targets (issue #12)', '', '| target | landed | met |', '|---|---|---|');
  for (const t of trainingTargets(report)) out.push(`| ${t.target} | ${t.landed} | ${t.met ? 'yes' : 'no'} |`);
  return out;
}

const find = (report, task, size, contestant) =>
  report.results.find((r) => r.task === task && r.size === size && r.contestant === contestant && r.status === 'ok');

const contestantsOf = (report, task) => [...new Set(report.results.filter((r) => r.task === task).map((r) => r.contestant))];
const sizesOf = (report, task) => [...new Set(report.results.filter((r) => r.task === task).map((r) => r.size))];

function cell(result, task) {
  if (!result) return '–';
  if (result.status !== 'ok') return result.status;
  const ms = result.medianMs < 10 ? result.medianMs.toFixed(2) : result.medianMs.toFixed(1);
  const range = `${result.minMs.toFixed(result.minMs < 10 ? 2 : 0)}–${result.maxMs.toFixed(result.maxMs < 10 ? 2 : 0)}`;
  return task === 'gemm' ? `**${result.gflops.toFixed(1)}** (${ms} ms)` : `**${ms} ms** (${range}; ${result.gflops.toFixed(1)} GFLOP/s)`;
}

function table(report, task) {
  const sizes = sizesOf(report, task);
  const { sizeName } = report.tasks[task];
  const lines = [
    `| contestant | ${sizes.map((s) => `${sizeName}=${s}`).join(' | ')} |`,
    `|---|${sizes.map(() => '---:').join('|')}|`,
  ];
  for (const name of contestantsOf(report, task)) {
    const row = sizes.map((size) => cell(report.results.find((r) => r.task === task && r.size === size && r.contestant === name), task));
    lines.push(`| ${name} | ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** Each of our headline rows vs each peer at every size: peer time / our time (> 1: ours is faster). */
export function ratios(report) {
  const peers = [...new Set(report.results.filter((r) => r.group === 'peer').map((r) => r.contestant))];
  const rows = [];
  for (const task of Object.keys(report.tasks)) {
    for (const ours of HEADLINE) {
      for (const peer of peers) {
        for (const size of sizesOf(report, task)) {
          const mine = find(report, task, size, ours);
          const theirs = find(report, task, size, peer);
          if (mine && theirs) rows.push({ task, size, ours, peer, ratio: theirs.medianMs / mine.medianMs });
        }
      }
    }
  }
  return rows;
}

/** Issue #5's targets with where this run landed. */
export function targets(report) {
  const gemm512 = find(report, 'gemm', 512, OURS);
  const relaxed = report.results.find((r) => r.task === 'gemm' && r.size === 512 && /relaxed/.test(r.contestant) && r.status === 'ok');
  // One thread: the default fast path in this browser (the relaxed-SIMD tiles where they install).
  const single = find(report, 'attention', 1024, OURS_RELAXED) ? OURS_RELAXED : OURS;
  const mha1024 = find(report, 'attention', 1024, single);
  // The faster of onnxruntime-web's two single-thread graphs (standard ops, or its fused Attention op).
  const ort1024 = [ORT_1, ORT_1_ATTENTION].map((name) => find(report, 'attention', 1024, name)).filter(Boolean)
    .sort((x, y) => x.medianMs - y.medianMs)[0];
  const mha2048 = find(report, 'attention', 2048, single);
  const threaded = find(report, 'attention', 1024, OURS_WORKERS);
  // Against both peers at every n ≥ 256: our default GEMM in this browser (as for attention), and the
  // plain simd128 one that engines without relaxed SIMD run.
  const gemmSingle = find(report, 'gemm', 512, OURS_RELAXED) ? OURS_RELAXED : OURS;
  const peersBeatenBy = (name) => sizesOf(report, 'gemm').filter((n) => n >= 256).map((n) => {
    const ours = find(report, 'gemm', n, name);
    const peers = [ORT_1, TFJS].map((p) => find(report, 'gemm', n, p));
    return { n, ok: Boolean(ours) && peers.every((p) => p && p.medianMs > ours.medianMs) };
  });
  const beaten = (list) => ({
    landed: list.map(({ n, ok }) => `n=${n} ${ok ? 'yes' : 'no'}`).join(', '),
    met: list.length > 0 && list.every(({ ok }) => ok),
  });
  const fmt = (x, digits = 1) => (x === undefined ? 'not measured' : x.toFixed(digits));
  return [
    { target: 'GEMM n=512, simd128: ≥ 30 GFLOP/s', landed: `${fmt(gemm512?.gflops)} GFLOP/s`, met: (gemm512?.gflops ?? 0) >= 30 },
    { target: 'GEMM n=512, relaxed-SIMD FMA: ≥ 40 GFLOP/s', landed: relaxed ? `${fmt(relaxed.gflops)} GFLOP/s` : 'no relaxed-SIMD kernel in this run', met: (relaxed?.gflops ?? 0) >= 40 },
    { target: `GEMM (${gemmSingle}): faster than onnxruntime-web and tfjs-wasm at every n ≥ 256`, ...beaten(peersBeatenBy(gemmSingle)) },
    ...(gemmSingle === OURS ? [] : [{ target: `GEMM (${OURS}, engines without relaxed SIMD): faster than onnxruntime-web and tfjs-wasm at every n ≥ 256`, ...beaten(peersBeatenBy(OURS)) }]),
    { target: 'causal MHA T=1024, one thread: ≤ 220 ms', landed: `${fmt(mha1024?.medianMs)} ms (${single})`, met: (mha1024?.medianMs ?? Infinity) <= 220 },
    { target: 'causal MHA T=1024: ≥ 2× onnxruntime-web 1 thread (its faster graph)', landed: mha1024 && ort1024 ? `${(ort1024.medianMs / mha1024.medianMs).toFixed(2)}× (vs ${ort1024.contestant}, ${fmt(ort1024.medianMs)} ms)` : 'not measured', met: Boolean(mha1024 && ort1024) && ort1024.medianMs / mha1024.medianMs >= 2 },
    { target: `causal MHA T=1024: faster than native Eigen AVX2+FMA (${NATIVE_EIGEN_MHA_1024_MS} ms, issue #5)`, landed: `${fmt(mha1024?.medianMs)} ms`, met: (mha1024?.medianMs ?? Infinity) < NATIVE_EIGEN_MHA_1024_MS },
    { target: 'causal MHA T=1024, 2 threads: ≤ 120 ms', landed: threaded ? `${fmt(threaded.medianMs)} ms (${OURS_WORKERS})` : 'no two-thread row in this run', met: (threaded?.medianMs ?? Infinity) <= 120 },
    { target: 'causal MHA T=2048 runs in O(T·d) memory', landed: mha2048 ? `${fmt(mha2048.medianMs)} ms` : 'not measured', met: Boolean(mha2048) },
  ];
}

/**
 * What the WebGPU rows ran on, when the report has any: the adapter's vendor, architecture and description,
 * and on SwiftShader that these rows measure a CPU emulating a GPU, never GPU speed.
 */
export function webgpuNote(report) {
  const rows = [...report.results, ...(report.training?.results ?? [])].filter((r) => /webgpu/.test(r.contestant));
  if (!rows.length) return [];
  const adapter = report.webgpuAdapter;
  if (!adapter || adapter.error) return ['', `WebGPU rows: no adapter (${adapter?.error ?? 'not recorded'}).`];
  const named = `vendor '${adapter.vendor}', architecture '${adapter.architecture}', description '${adapter.description}'`;
  const swiftshader = /swiftshader/i.test(`${adapter.vendor} ${adapter.architecture} ${adapter.description} ${adapter.label}`);
  const lavapipe = /llvmpipe|lavapipe/i.test(`${adapter.device} ${adapter.description} ${adapter.label}`);
  if (adapter.emulated && !swiftshader) {
    return ['', `**WebGPU rows ran on ${lavapipe ? `lavapipe (CPU emulation)** (${named}): Mesa's Vulkan driver on the CPU (llvmpipe)` : `a fallback adapter (CPU emulation)** (${named})`}. `
      + 'They measure a CPU emulating a GPU, not GPU speed; they show that the kernels run and agree.'];
  }
  return ['', adapter.emulated
    ? `**WebGPU rows ran on SwiftShader (CPU emulation)** (${named}): Chromium's Vulkan on the CPU. They measure a CPU emulating a GPU, `
      + 'not GPU speed; they show that the kernels run and agree, and compare the three libraries on that emulation only.'
    : `WebGPU rows ran on the adapter ${adapter.label} (${named}).`];
}

/**
 * The whole report as Markdown: environment, one table per task, targets, ratios. `title` replaces the
 * heading; `targets: false` leaves out the page benchmark's targets (issues #5 and #12), which a run of
 * other contestants (bench/dawn/run.mjs) does not measure.
 */
export function toMarkdown(report, { machine, title = 'Benchmark: attention-playground fast path vs peers', targets: withTargets = true } = {}) {
  const env = report.environment;
  const out = [];
  out.push(`# ${title}`, '');
  out.push(`Run ${env.date} in ${env.userAgent}; ${env.hardwareConcurrency} logical cores${machine ? `, ${machine}` : ''}; `
    + `cross-origin isolated: ${env.crossOriginIsolated ? 'yes' : 'no'}; whole suite ${env.seconds.toFixed(0)} s.`);
  const peakNote = ['', fmaPeakOf(report).note];
  if (!Object.keys(report.tasks).length) return `${[...out, ...peakNote, ...webgpuNote(report), ...trainingMarkdown(report, { targets: withTargets })].join('\n')}\n`;
  out.push(`Medians of ${report.settings.runs} timed runs after warm-up (min–max in brackets); every output was checked `
    + `against the reference (|error| ≤ ${report.settings.atol} + ${report.settings.rtol}·|expected|) before its time counted.`, ...peakNote, '');
  for (const c of report.contestants) out.push(`- **${c.name}**: ${c.error ? `unavailable (${c.error})` : c.description}`);
  out.push(...webgpuNote(report));
  for (const [task, info] of Object.entries(report.tasks)) {
    out.push('', `## ${info.title}`, '', task === 'gemm' ? 'GFLOP/s (median time).' : 'Median time (min–max; useful GFLOP/s).', '');
    out.push(table(report, task));
    out.push('', `Reference: ${info.reference}.`);
    const notes = report.results.filter((r) => r.task === task && r.status !== 'ok' && r.status !== 'unavailable');
    for (const r of notes) out.push(`- ${r.contestant}, ${info.sizeName}=${r.size}: ${r.status} — ${r.reason}`);
  }
  if (withTargets) {
    out.push('', '## Targets (issue #5)', '', '| target | landed | met |', '|---|---|---|');
    for (const t of targets(report)) out.push(`| ${t.target} | ${t.landed} | ${t.met ? 'yes' : 'no'} |`);
  }
  const rows = ratios(report);
  if (rows.length) {
    out.push('', '## Ratios: their time / ours (> 1: ours is faster), same run', '');
    for (const task of Object.keys(report.tasks)) {
      const sizes = sizesOf(report, task);
      const pairs = [...new Set(rows.filter((r) => r.task === task).map((r) => `${r.ours}|${r.peer}`))];
      if (!pairs.length) continue;
      out.push(`| ${report.tasks[task].title.split(',')[0]} | ${sizes.map((s) => `${report.tasks[task].sizeName}=${s}`).join(' | ')} |`);
      out.push(`|---|${sizes.map(() => '---:').join('|')}|`);
      for (const pair of pairs) {
        const [ours, peer] = pair.split('|');
        out.push(`| ${peer} / ${ours} | ${sizes.map((size) => {
          const r = rows.find((x) => x.task === task && x.ours === ours && x.peer === peer && x.size === size);
          return r ? `${r.ratio.toFixed(2)}×` : '–';
        }).join(' | ')} |`);
      }
      out.push('');
    }
  }
  out.push(...trainingMarkdown(report, { targets: withTargets }));
  return `${out.join('\n')}\n`;
}

const COLORS = ['#1b6ac9', '#5b9be6', '#9cc3f0', '#c5dbf5', '#0b3d7a', '#7a7a7a', '#e0731b', '#f0a35e', '#f5c89e', '#2e9e5b', '#8e44ad', '#c0392b'];
const escape = (text) => String(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** Grouped bars of GFLOP/s (higher is better) per size, one panel per task. */
export function toSvg(report) {
  const width = 1000;
  const panelHeight = 300;
  const legendRow = 18;
  const trainingOk = report.training ? report.training.results.filter((r) => r.status === 'ok') : [];
  const names = [...new Set([...report.results, ...trainingOk].filter((r) => r.status === 'ok').map((r) => r.contestant))];
  const color = Object.fromEntries(names.map((n, i) => [n, COLORS[i % COLORS.length]]));
  const legendHeight = Math.ceil(names.length / 3) * legendRow + 10;
  const tasks = Object.keys(report.tasks);
  const panels = tasks.length + (trainingOk.length ? 1 : 0);
  const height = panels * (panelHeight + 40) + legendHeight + 30;
  const parts = [`<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" viewBox="0 0 ${width} ${height}" font-family="system-ui, sans-serif" font-size="11">`,
    `<rect width="${width}" height="${height}" fill="white"/>`];
  // One panel: its title; grid lines every gridStep; dashed reference lines [value, text]; per size, a group
  // of bars (the results of that size, height r.gflops, tooltip tip(r)) over the label label(size).
  const panel = (index, { title, sizes, results, max, gridStep, lines = [], tip, label }) => {
    const top = 30 + index * (panelHeight + 40);
    const left = 60;
    const plotWidth = width - left - 20;
    const scale = (panelHeight - 40) / max;
    const yOf = (value) => top + panelHeight - 20 - value * scale;
    parts.push(`<text x="${left}" y="${top - 10}" font-size="13" font-weight="bold">${escape(title)}</text>`);
    for (let g = 0; g <= max; g += gridStep) {
      const y = yOf(g);
      parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${y}" y2="${y}" stroke="#e4e4e4"/><text x="${left - 6}" y="${y + 4}" text-anchor="end" fill="#555">${g}</text>`);
    }
    for (const [value, text] of lines) {
      const y = yOf(value);
      parts.push(`<line x1="${left}" x2="${left + plotWidth}" y1="${y}" y2="${y}" stroke="#c0392b" stroke-dasharray="4 3"/><text x="${left + plotWidth - 4}" y="${y - 3}" text-anchor="end" fill="#c0392b">${escape(text)}</text>`);
    }
    const groupWidth = plotWidth / sizes.length;
    sizes.forEach((size, s) => {
      const bars = results.filter((r) => r.size === size);
      const barWidth = Math.min(24, (groupWidth - 16) / Math.max(1, bars.length));
      const start = left + s * groupWidth + (groupWidth - barWidth * bars.length) / 2;
      bars.forEach((r, b) => {
        const h = r.gflops * scale;
        const x = start + b * barWidth;
        const y = yOf(r.gflops);
        parts.push(`<rect x="${x.toFixed(1)}" y="${y.toFixed(1)}" width="${(barWidth - 2).toFixed(1)}" height="${h.toFixed(1)}" fill="${color[r.contestant]}"><title>${escape(tip(r))}</title></rect>`);
      });
      parts.push(`<text x="${left + s * groupWidth + groupWidth / 2}" y="${top + panelHeight - 4}" text-anchor="middle">${label(size)}</text>`);
    });
  };
  tasks.forEach((task, t) => {
    const { title, sizeName } = report.tasks[task];
    const results = report.results.filter((r) => r.task === task && r.status === 'ok');
    const max = Math.max(1, ...results.map((r) => r.gflops));
    panel(t, {
      title: `${title} — GFLOP/s, higher is better`, sizes: sizesOf(report, task), results, max,
      gridStep: max > 40 ? 10 : 5,
      tip: (r) => `${r.contestant}, ${sizeName}=${r.size}: ${r.gflops.toFixed(1)} GFLOP/s, ${r.medianMs.toFixed(2)} ms`,
      label: (size) => `${sizeName}=${size}`,
    });
  });
  if (trainingOk.length) {
    const peak = fmaPeakOf(report);
    // The training panel: useful GFLOP/s per size, with the one-core FMA peak and its 60% as lines.
    panel(tasks.length, {
      title: 'training step (forward, backward, AdamW) — useful GFLOP/s, higher is better',
      sizes: Object.keys(report.training.sizes), results: trainingOk,
      max: Math.max(peak.gflops * 1.05, ...trainingOk.map((r) => r.gflops)), gridStep: 10,
      lines: [[peak.gflops, `one-core WASM FMA peak ${peak.gflops.toFixed(peak.measured ? 1 : 0)} (${peak.measured ? 'measured in this run' : 'an estimate: not measured'})`],
        [0.6 * peak.gflops, '60% of it (target, small)']],
      tip: (r) => `${r.contestant}, ${r.size}: ${r.gflops.toFixed(2)} GFLOP/s, ${r.stepsPerSecond.toFixed(2)} steps/s, ${r.medianMs.toFixed(1)} ms/step`,
      label: (size) => size,
    });
  }
  const legendTop = height - legendHeight;
  names.forEach((name, i) => {
    const x = 60 + (i % 3) * 310;
    const y = legendTop + Math.floor(i / 3) * legendRow;
    parts.push(`<rect x="${x}" y="${y}" width="12" height="12" fill="${color[name]}"/><text x="${x + 18}" y="${y + 10}">${escape(name)}</text>`);
  });
  parts.push('</svg>');
  return `${parts.join('\n')}\n`;
}
