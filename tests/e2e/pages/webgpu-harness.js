// What the WebGPU specs drive in the page: each GPU kernel on its own against a plain loop (the obvious
// version, in float64), returning only the max abs difference so large cases stay cheap to report.
import { acquireDevice } from '/web/src/gpu/device.js';
import { GpuRuntime } from '/web/src/gpu/runtime.js';

let devicePromise;
const runtimes = {};
/** One device; a runtime per GEMM variant (staged: workgroup-memory tiles; direct: no staging). */
async function runtime(staged = true) {
  devicePromise ??= acquireDevice();
  const { device, adapterInfo } = await devicePromise;
  runtimes[staged] ??= Object.assign(new GpuRuntime(device, { stagedGemm: staged }), { adapterInfo });
  return runtimes[staged];
}

export async function adapterInfo() {
  return (await runtime()).adapterInfo;
}

/** Deterministic uniform numbers in [-1, 1) (mulberry32). */
export function randomTensor(length, seed) {
  let state = seed >>> 0;
  const data = new Float32Array(length);
  for (let i = 0; i < length; i++) {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    data[i] = (((t ^ (t >>> 14)) >>> 0) / 4294967296) * 2 - 1;
  }
  return data;
}

function maxAbsDifference(actual, expected) {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    const difference = Math.abs(actual[i] - expected[i]);
    if (!(difference <= worst)) worst = difference; // NaN counts as the worst
  }
  return worst;
}

/** C = alpha·A·op(B) + bias for `batch` matrices, GPU vs loop. */
export async function checkGemm({ M, N, K, batch = 1, transposeB = false, bias = false, alpha = 1, staged = true }) {
  const gpu = await runtime(staged);
  const a = randomTensor(batch * M * K, 1);
  const b = randomTensor(batch * K * N, 2);
  const biasData = randomTensor(N, 3);
  const pass = gpu.beginPass('check gemm');
  const c = pass.allocate([batch, M, N], 'c');
  pass.gemm({
    a: pass.upload(a, [batch, M, K], 'a'), b: pass.upload(b, [batch, K, N], 'b'), c,
    bias: bias ? pass.upload(biasData, [N], 'bias') : undefined,
    M, N, K, batchOuter: batch, transposeB, alpha,
    aLayout: { rowStride: K, outerStride: M * K },
    bLayout: { rowStride: transposeB ? K : N, outerStride: K * N },
    cLayout: { rowStride: N, outerStride: M * N },
    biasLayout: { rowStride: 0 },
  });
  const { c: result } = await pass.finish({ c });
  const expected = new Float64Array(batch * M * N);
  for (let z = 0; z < batch; z++) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) {
          const bValue = transposeB ? b[z * K * N + j * K + k] : b[z * K * N + k * N + j];
          sum += a[z * M * K + i * K + k] * bValue;
        }
        expected[(z * M + i) * N + j] = alpha * sum + (bias ? biasData[j] : 0);
      }
    }
  }
  return maxAbsDifference(result.data, expected);
}

/** The plain softmax of docs/api.md for one row of entries ({value, present}). */
function normalizeRow(entries, normalization) {
  const present = entries.filter((e) => e.present);
  if (present.length === 0) return entries.map(() => 0);
  const max = Math.max(...present.map((e) => e.value));
  const top = entries.map((e) => {
    if (!e.present) return 0;
    if (normalization === 0) return Math.exp(e.value - max);
    if (normalization === 1) return Math.exp(e.value);
    return e.value;
  });
  const sum = top.reduce((total, value) => total + value, 0);
  return top.map((value) => value / sum);
}

/** Row softmax with scale and causal mask (all mask modes), GPU vs loop; −∞ entries are planted. */
export async function checkRowSoftmax({ matrices, rowsPerMatrix, cols, causal, maskMode, normalization, scale }) {
  const gpu = await runtime();
  const rows = matrices * rowsPerMatrix;
  const scores = randomTensor(rows * cols, 4).map((value) => value * 3);
  if (!causal) for (let r = 0; r < rows; r += 3) scores[r * cols + (r % cols)] = -Infinity;
  const pass = gpu.beginPass('check row softmax');
  const input = pass.upload(scores, [rows, cols], 'scores');
  const scaled = pass.allocate([rows, cols], 'scaled');
  const masked = pass.allocate([rows, cols], 'masked');
  const weights = pass.allocate([rows, cols], 'weights');
  pass.rowSoftmax({ scores: input, scaled, masked: causal ? masked : undefined, weights, rows, cols,
    rowsPerMatrix, causal, maskMode, normalization, scale });
  const out = await pass.finish(causal ? { scaled, masked, weights } : { scaled, weights });
  let worst = 0;
  let infinitiesMatch = true;
  for (let r = 0; r < rows; r++) {
    const i = r % rowsPerMatrix;
    const row = Array.from(scores.subarray(r * cols, (r + 1) * cols));
    const scaledRow = row.map((x) => ({ value: scale * x, present: x !== -Infinity }));
    const future = (j) => causal && j > i;
    let maskedRow;
    let weightRow;
    if (causal && maskMode === 1) {
      const p = normalizeRow(scaledRow, normalization);
      maskedRow = p.map((value, j) => (future(j) ? 0 : value));
      const kept = maskedRow.reduce((total, value) => total + value, 0);
      weightRow = maskedRow.map((value) => (kept > 0 ? value / kept : 0));
    } else {
      const entries = scaledRow.map((e, j) => (future(j) ? { value: 0, present: maskMode === 2 } : e));
      maskedRow = entries.map((e) => (e.present ? e.value : -Infinity));
      weightRow = normalizeRow(entries, normalization);
    }
    for (let j = 0; j < cols; j++) {
      const index = r * cols + j;
      const expectedScaled = scaledRow[j].present ? scaledRow[j].value : -Infinity;
      const pairs = [[out.scaled.data[index], expectedScaled]];
      if (causal) pairs.push([out.masked.data[index], maskedRow[j]]);
      for (const [actual, expected] of pairs) {
        if (expected === -Infinity || actual === -Infinity) infinitiesMatch &&= actual === expected;
        else worst = Math.max(worst, Math.abs(actual - expected));
      }
      const difference = Math.abs(out.weights.data[index] - weightRow[j]);
      worst = difference <= worst ? worst : difference;
    }
  }
  return { maxAbsDifference: worst, infinitiesMatch };
}

/** Fused attention per (batch, head), reading heads in place from (B, T, d_out), vs the unfused loop. */
export async function checkFusedAttention({ batch, heads, Tq, Tk, headDim, causal, maskMode = 0, dropout = 0, seed = 0 }) {
  const gpu = await runtime();
  const dOut = heads * headDim;
  const q = randomTensor(batch * Tq * dOut, 5);
  const k = randomTensor(batch * Tk * dOut, 6);
  const v = randomTensor(batch * Tk * dOut, 7);
  const scale = 1 / Math.sqrt(headDim);
  const pass = gpu.beginPass('check fused attention');
  const output = pass.allocate([batch, Tq, dOut], 'output');
  const layout = (T) => ({ rowStride: dOut, outerStride: T * dOut, innerStride: headDim });
  pass.fusedAttention({
    q: pass.upload(q, [batch, Tq, dOut], 'q'), k: pass.upload(k, [batch, Tk, dOut], 'k'),
    v: pass.upload(v, [batch, Tk, dOut], 'v'), o: output, batch, heads, Tq, Tk, headDim,
    scale, causal, maskMode, dropout, seed,
    qLayout: layout(Tq), kLayout: layout(Tk), vLayout: layout(Tk), oLayout: layout(Tq),
  });
  const { output: result } = await pass.finish({ output });
  const { lowbias32 } = await import('/web/src/core/random.js');
  const seedHash = lowbias32(seed);
  const expected = new Float64Array(batch * Tq * dOut);
  for (let b = 0; b < batch; b++) {
    for (let h = 0; h < heads; h++) {
      for (let i = 0; i < Tq; i++) {
        const entries = [];
        for (let j = 0; j < Tk; j++) {
          if (causal && j > i) { entries.push({ value: 0, present: maskMode === 2 }); continue; }
          let dot = 0;
          for (let c = 0; c < headDim; c++) dot += q[(b * Tq + i) * dOut + h * headDim + c] * k[(b * Tk + j) * dOut + h * headDim + c];
          entries.push({ value: dot * scale, present: true });
        }
        const weights = normalizeRow(entries, 0);
        for (let j = 0; j < Tk; j++) {
          const flat = (((b * heads + h) * Tq + i) * Tk + j) >>> 0;
          const u = (lowbias32((flat ^ seedHash) >>> 0) >>> 8) / 16777216;
          const keep = dropout > 0 ? (u >= dropout ? 1 / (1 - dropout) : 0) : 1;
          for (let c = 0; c < headDim; c++) {
            expected[(b * Tq + i) * dOut + h * headDim + c] += weights[j] * keep * v[(b * Tk + j) * dOut + h * headDim + c];
          }
        }
      }
    }
  }
  return maxAbsDifference(result.data, expected);
}
