// GPT-2 on WebGPU: the parameters resident on the device (each matrix its own buffer, every LayerNorm weight
// and bias in one), and each forward one command encoder that runs every block on the GPU, reading back only
// the logits (and the weights when asked):
//   x₀ = wte[token] + wpe[t]                                (computed here, uploaded: T·C floats)
//   per block: a = LayerNorm(x; ln_1)                        ../gpu/train/layer-norm.wgsl.js
//              q, k, v = a·c_attn.W[:, block] + b           the GEMM (../gpu/gemm.wgsl.js) with its bias epilogue
//              context = causal attention per head          ../gpu/train/attention-lse.wgsl.js
//              (weights recomputed from q, k and the lse when asked; ablated heads replaced: ../gpu/gpt2)
//              x ← x + context·attn.c_proj.W + b             the GEMM, then ../gpu/train/add.wgsl.js
//              x ← x + gelu_tanh(LN(x; ln_2)·c_fc.W + b)·mlp.c_proj.W + b     ../gpu/gpt2/gelu-tanh.wgsl.js
//   logits = LN(x; ln_f)·wteᵀ                                the GEMM, wte read transposed (in row blocks
//                                                            where the device binds less than all of it)
import { acquireDevice } from '../gpu/device.js';
import { ablateHeads, geluTanh } from '../gpu/gpt2/passes.js';
import { GpuRuntime } from '../gpu/runtime.js';
import { add, attentionForward, attentionWeights, layerNorm } from '../gpu/train/passes.js';
import { gpt2ParameterShapes, isGpt2Matrix } from './checkpoint.js';

const FLOAT_BYTES = 4;

/**
 * The engine (model.js's {forward, dispose}) on a WebGPU device: `device` (a GPUDevice) or the one
 * acquireDevice() finds. Rejects with acquireDevice's GpuUnavailableError where there is none.
 */
export async function createWebGpuGpt2(config, parameters, { device } = {}) {
  const runtime = new GpuRuntime(device ?? (await acquireDevice()).device);
  const gpu = runtime.device;
  const { dModel: C, heads: H, layers: L, dMlp: M, vocabSize: V, layerNormEpsilon: eps } = config;
  const resident = [];
  const buffer = (data, name) => {
    const bytes = data.length * FLOAT_BYTES;
    if (bytes > runtime.maxBindingBytes) {
      for (const made of resident) made.destroy();
      throw new Error(`createGpt2: ${name} needs ${(bytes / 2 ** 20).toFixed(2)} MiB in one buffer; this WebGPU device binds at most ${(runtime.maxBindingBytes / 2 ** 20).toFixed(2)} MiB per buffer`);
    }
    const made = gpu.createBuffer({
      label: `gpt2: ${name}`, size: Math.max(16, Math.ceil((data.length * FLOAT_BYTES) / 16) * 16),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_DST,
    });
    gpu.queue.writeBuffer(made, 0, data.buffer, data.byteOffset, data.byteLength);
    resident.push(made);
    return { buffer: made, length: data.length, shape: [data.length] };
  };
  // every matrix its own buffer; the vectors (LayerNorm weights, biases) one flat buffer at offsets
  const matrices = {};
  const offsets = {};
  let vectorCount = 0;
  const shapes = gpt2ParameterShapes(config);
  for (const [name, shape] of Object.entries(shapes)) {
    if (isGpt2Matrix(name)) continue;
    if (name !== 'wpe.weight') { offsets[name] = vectorCount; vectorCount += shape[0]; }
  }
  const flat = new Float32Array(vectorCount);
  for (const name of Object.keys(offsets)) flat.set(parameters[name].data, offsets[name]);
  const vectors = buffer(flat, 'vectors');
  const wte = parameters['wte.weight'].data;
  for (const name of Object.keys(shapes)) if (isGpt2Matrix(name) && name !== 'wte.weight') matrices[name] = buffer(parameters[name].data, name);
  // wte in as many row blocks as the device needs to bind it (GPT-2 small's 147 MiB exceeds a 128 MiB binding);
  // the unembedding is one GEMM per block, into its columns of the logits
  const rowsPerBlock = Math.max(1, Math.floor(runtime.maxBindingBytes / (C * FLOAT_BYTES)));
  const unembedding = [];
  for (let v0 = 0; v0 < V; v0 += rowsPerBlock) {
    const v1 = Math.min(V, v0 + rowsPerBlock);
    unembedding.push({ v0, v1, rows: buffer(wte.subarray(v0 * C, v1 * C), `wte.weight rows ${v0}…${v1 - 1}`) });
  }
  const wpe = parameters['wpe.weight'].data;

  function record(pass, tokens, flags, wantWeights) {
    const T = tokens.length;
    const act = (shape, name) => pass.allocate(shape, name);
    const x0 = new Float32Array(T * C);
    for (let t = 0; t < T; t++) for (let c = 0; c < C; c++) x0[t * C + c] = wte[tokens[t] * C + c] + wpe[t * C + c];
    let x = pass.upload(x0, [T, C], 'x0');
    const norm = (input, prefix) => {
      const y = act([T, C], `${prefix} y`);
      layerNorm(pass, { x: input, weights: vectors, y, xhat: act([T, C], `${prefix} xhat`), rstd: act([T], `${prefix} rstd`),
        rows: T, d: C, offsetGamma: offsets[`${prefix}.weight`], offsetBeta: offsets[`${prefix}.bias`], eps });
      return y;
    };
    // y (T, N) = input (T, K)·W[:, column0 … column0 + N) + bias[biasOffset …], W (K, rowStride): Conv1D's layout
    const conv1d = (input, K, weight, N, { column0 = 0, rowStride = N, biasOffset, name }) => {
      const y = act([T, N], name);
      pass.gemm({ a: input, b: matrices[weight], c: y, bias: vectors, M: T, N, K, name,
        aLayout: { rowStride: K }, bLayout: { offset: column0, rowStride }, cLayout: { rowStride: N }, biasLayout: { offset: biasOffset, rowStride: 0 } });
      return y;
    };
    const residual = (update, name) => {
      const next = act([T, C], name);
      add(pass, { a: x, b: update, out: next });
      x = next;
    };
    const shape = { batch: 1, heads: H, T, headDim: C / H };
    const weights = {};
    for (let l = 0; l < L; l++) {
      const p = `h.${l}`;
      const a = norm(x, `${p}.ln_1`);
      const [q, k, v] = ['q', 'k', 'v'].map((name, b) => conv1d(a, C, `${p}.attn.c_attn.weight`, C,
        { column0: b * C, rowStride: 3 * C, biasOffset: offsets[`${p}.attn.c_attn.bias`] + b * C, name: `${p} ${name}` }));
      const context = act([T, C], `${p} context`);
      const lse = act([1, H, T], `${p} lse`);
      attentionForward(pass, { q, k, v, o: context, lse, ...shape });
      if (wantWeights) {
        weights[l] = act([1, H, T, T], `${p} weights`);
        attentionWeights(pass, { q, k, lse, p: weights[l], ...shape });
      }
      const layerFlags = flags.subarray(l * H, (l + 1) * H);
      if (layerFlags.some(Boolean)) {
        ablateHeads(pass, { context, flags: pass.upload(Uint32Array.from(layerFlags), [H], `${p} heads off`), rows: T, cols: C, dHead: C / H });
      }
      residual(conv1d(context, C, `${p}.attn.c_proj.weight`, C, { biasOffset: offsets[`${p}.attn.c_proj.bias`], name: `${p} attn out` }), `${p} x attn`);
      const hidden = conv1d(norm(x, `${p}.ln_2`), C, `${p}.mlp.c_fc.weight`, M, { biasOffset: offsets[`${p}.mlp.c_fc.bias`], name: `${p} mlp hidden` });
      geluTanh(pass, { y: hidden });
      residual(conv1d(hidden, M, `${p}.mlp.c_proj.weight`, C, { biasOffset: offsets[`${p}.mlp.c_proj.bias`], name: `${p} mlp out` }), `${p} x mlp`);
    }
    const logits = act([T, V], 'logits');
    const final = norm(x, 'ln_f');
    for (const { v0, v1, rows } of unembedding) {
      pass.gemm({ a: final, b: rows, c: logits, M: T, N: v1 - v0, K: C, transposeB: true, name: `logits ${v0}…${v1 - 1}`,
        aLayout: { rowStride: C }, bLayout: { rowStride: C }, cLayout: { offset: v0, rowStride: V } });
    }
    return { logits, weights };
  }

  let disposed = false;
  return {
    /** Promise of {logits (T·V floats), attention: [layer] (H·T·T floats) or null, paths}. */
    forward(tokens, flags, wantWeights) {
      if (disposed) return Promise.reject(new Error('gpt2.forward: the model was disposed'));
      const ids = Array.from(tokens);
      const headsOff = flags.length ? flags : new Uint8Array(L * H);
      return runtime.run('gpt2 forward', async (pass) => {
        const { logits, weights } = record(pass, ids, headsOff, wantWeights);
        const out = await pass.finish({ logits, ...weights });
        return {
          logits: out.logits.data,
          attention: wantWeights ? Array.from({ length: L }, (_, l) => out[l].data) : null,
          paths: ['webgpu'],
        };
      });
    },
    dispose() {
      disposed = true;
      for (const made of resident) made.destroy();
    },
  };
}
