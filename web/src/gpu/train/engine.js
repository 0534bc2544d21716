// The WebGPU training engine behind createTrainer({backend: 'webgpu'}): the AttentionOnly model of
// web/src/train/model.js, forward and backward, clip_grad_norm_ and AdamW, as the kernels of this folder.
// Parameters, gradients and both AdamW moments stay on the device in four flat buffers (state_dict order,
// one offset per tensor); a step uploads the batch (token ids, targets, and the positions grouped per token
// id for the embedding's scatter-add), records every kernel into one command encoder and reads back three
// numbers: Σ loss_n, Σ correct_n and the gradient norm. readBack() copies parameters and moments to the CPU.
import * as k from './passes.js';
import { GpuUnavailableError, classifyGpuFailure, isDeviceFailure } from '../device.js';

const FLOAT_BYTES = 4;

const countTargets = (targets) => targets.reduce((n, t) => n + (t !== -100 ? 1 : 0), 0);

export class GpuTrainingEngine {
  /**
   * @param {import('../runtime.js').GpuRuntime} runtime
   * @param {{vocabSize: number, dModel: number, heads: number, layers: number, layerNorm: boolean,
   *   optimizer: object, gradClip: number|null}} config
   * @param {[string, number[]][]} spec  parameterSpec(config)
   * @param {Record<string, {data: Float32Array}>} params
   * @param {{step: number, expAvg: Record<string, Float32Array>, expAvgSq: Record<string, Float32Array>}} adam
   */
  constructor(runtime, config, spec, params, adam) {
    this.runtime = runtime;
    this.device = runtime.device;
    this.config = config;
    this.spec = spec;
    this.offsets = {};
    this.segments = [];
    let total = 0;
    for (const [name, shape] of spec) {
      const length = shape.reduce((a, b) => a * b, 1);
      this.offsets[name] = total;
      this.segments.push({ offset: total, length });
      total += length;
    }
    this.total = total;
    this.step = adam.step;
    const flat = (get) => {
      const out = new Float32Array(total);
      for (const [name] of spec) out.set(get(name), this.offsets[name]);
      return out;
    };
    this.resident = [];
    this.weights = this.buffer(flat((n) => params[n].data), 'weights');
    this.expAvg = this.buffer(flat((n) => adam.expAvg[n]), 'exp_avg');
    this.expAvgSq = this.buffer(flat((n) => adam.expAvgSq[n]), 'exp_avg_sq');
    this.grads = this.buffer(new Float32Array(total), 'grads');
    const { table, partialCount } = k.gradNormSegmentTable(this.segments);
    this.segmentTable = this.buffer(table, 'grad norm segments');
    this.partials = this.buffer(new Float32Array(Math.max(1, partialCount)), 'grad norm partials');
    this.clip = this.buffer(new Float32Array(2), 'clip');
    /** @type {GpuUnavailableError|null} set when the device is lost */
    this.lostError = null;
    this.lost = this.device.lost.then((info) => {
      this.lostError = new GpuUnavailableError('device-lost',
        `WebGPU: the device was lost (${info?.reason ?? 'unknown'}${info?.message ? `: ${info.message}` : ''})`);
      return this.lostError;
    });
  }

  /**
   * What a failed step or copy means (device.js): `{deviceFailure: true, error}` when the device cannot go on
   * (lost, out of memory, internal error), so the trainer resumes on the CPU; otherwise a GpuKernelError
   * naming `fn` (a bug in the kernels or this code), which the trainer raises.
   * @param {string} fn @param {unknown} error @returns {Promise<{deviceFailure: boolean, error: Error}>}
   */
  async failure(fn, error) {
    // device.lost resolves a moment after the failure it causes.
    if (!this.lostError) await Promise.race([this.lost, new Promise((done) => setTimeout(done, 50))]);
    const classified = classifyGpuFailure(fn, error, this.lostError);
    return { deviceFailure: isDeviceFailure(classified), error: classified };
  }

  /** A resident buffer holding `data` (any 32-bit typed array). */
  buffer(data, name) {
    const buffer = this.device.createBuffer({
      label: `trainer: ${name}`, size: Math.max(16, Math.ceil((data.length * FLOAT_BYTES) / 16) * 16),
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    this.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    this.resident.push(buffer);
    return { buffer, length: data.length, shape: [data.length] };
  }

  /**
   * Records the forward on `inputs` (B·T token ids) into `pass`: the embeddings, every block (its saved
   * activations in `saved`, for the backward and for attention()), the final LayerNorm and the logits.
   * @returns {{saved: object[], hf: object, normFinal: object|null, logits: object}}
   */
  recordForward(pass, inputs, B, T) {
    const { vocabSize: V, dModel: d, heads: H, layers: L, layerNorm } = this.config;
    const N = B * T;
    const o = this.offsets;
    const act = (shape, name) => pass.allocate(shape, name);
    const W = this.weights;
    const lin = (prefix) => ({ offsetW: o[`${prefix}.weight`], offsetB: o[`${prefix}.bias`] });
    // 1. h = tok_emb[token] + pos_emb[t]   (B, T, d)
    let h = act([N, d], 'h0');
    k.embedding(pass, { tokens: pass.upload(inputs, [N], 'inputs'), weights: W, h, rows: N, d, T,
      offsetTok: o['tok_emb.weight'], offsetPos: o['pos_emb.weight'] });
    const ln = (x, prefix, name) => {
      const saved = { y: act([N, d], `${name} y`), xhat: act([N, d], `${name} xhat`), rstd: act([N], `${name} rstd`) };
      k.layerNorm(pass, { x, weights: W, ...saved, rows: N, d, offsetGamma: o[`${prefix}.weight`], offsetBeta: o[`${prefix}.bias`] });
      return saved;
    };
    // 2. blocks: h = h + out_proj(attention(q_proj(a), k_proj(a), v_proj(a))), a = LN(h) or h
    const shape = this.attentionShape(B, T);
    const saved = [];
    for (let l = 0; l < L; l++) {
      const p = `blocks.${l}`;
      const norm = layerNorm ? ln(h, `${p}.ln`, `block ${l} ln`) : null;
      const a = norm ? norm.y : h;
      const [q, kk, v] = ['q', 'k', 'v'].map((name) => {
        const y = act([N, d], `block ${l} ${name}`);
        k.linearForward(pass, { x: a, weights: W, y, rows: N, dIn: d, dOut: d, ...lin(`${p}.${name}_proj`) });
        return y;
      });
      const context = act([N, d], `block ${l} context`);
      const lse = act([B, H, T], `block ${l} lse`);
      k.attentionForward(pass, { q, k: kk, v, o: context, lse, ...shape });
      const out = act([N, d], `block ${l} out`);
      k.linearForward(pass, { x: context, weights: W, y: out, rows: N, dIn: d, dOut: d, ...lin(`${p}.out_proj`) });
      const next = act([N, d], `h${l + 1}`);
      k.add(pass, { a: h, b: out, out: next });
      saved.push({ norm, a, q, k: kk, v, context, lse });
      h = next;
    }
    // 3. logits = unembed(LN_final(h) or h)
    const normFinal = layerNorm ? ln(h, 'ln_final', 'ln_final') : null;
    const hf = normFinal ? normFinal.y : h;
    const logits = act([N, V], 'logits');
    k.linearForward(pass, { x: hf, weights: W, y: logits, rows: N, dIn: d, dOut: V, ...lin('unembed') });
    return { saved, hf, normFinal, logits };
  }

  attentionShape(B, T) {
    return { batch: B, heads: this.config.heads, T, headDim: this.config.dModel / this.config.heads };
  }

  /** Records the cross-entropy of `logits` against `targets`: → {sums: [Σ loss_n, Σ correct_n], dLogits}. */
  recordLoss(pass, logits, targets, N, count, wantGradient) {
    const V = this.config.vocabSize;
    const rowLoss = pass.allocate([N, 2], 'row loss');
    const dLogits = wantGradient ? pass.allocate([N, V], 'dLogits') : null;
    k.crossEntropy(pass, { logits, targets: pass.upload(targets, [N], 'targets'), rowLoss, dLogits, rows: N, vocab: V, count, wantGradient });
    const sums = pass.allocate([2], 'loss sums');
    k.columnSum(pass, { a: rowLoss, sums, rows: N, cols: 2 });
    return { sums, dLogits };
  }

  /**
   * The forward and the loss on the device's current parameters, no update: → {loss, correct, count}.
   * inputs, targets: Int32Array (B·T), targets −100 ignored.
   */
  async evaluate(inputs, targets, B, T) {
    const count = countTargets(targets);
    return this.runtime.run('trainer evaluate', async (pass) => {
      const { logits } = this.recordForward(pass, inputs, B, T);
      const { sums } = this.recordLoss(pass, logits, targets, B * T, count, false);
      const out = await pass.finish({ sums });
      return { loss: count ? out.sums.data[0] / count : 0, correct: out.sums.data[1], count };
    });
  }

  /** The logits (B·T·V) of the forward on the device's current parameters. */
  async predict(inputs, B, T) {
    return this.runtime.run('trainer predict', async (pass) => {
      const { logits } = this.recordForward(pass, inputs, B, T);
      return (await pass.finish({ logits })).logits.data;
    });
  }

  /** Throws an Error naming trainer.attention when one block's weights (B, H, T, T) exceed what the device binds. */
  checkAttention(B, T) {
    const bytes = B * this.config.heads * T * T * FLOAT_BYTES;
    const limit = this.device.limits.maxStorageBufferBindingSize;
    if (bytes > limit) {
      throw new Error(`trainer.attention: the weights of shape [${B}, ${this.config.heads}, ${T}, ${T}] need ${(bytes / 2 ** 20).toFixed(1)} MiB per block; the WebGPU device binds at most ${(limit / 2 ** 20).toFixed(1)} MiB per buffer`);
    }
  }

  /** Each block's attention weights (B·H·T·T), recomputed on the device from the forward's q, k and lse. */
  async attention(inputs, B, T) {
    return this.runtime.run('trainer attention', async (pass) => {
      const { saved } = this.recordForward(pass, inputs, B, T);
      const shape = this.attentionShape(B, T);
      const weights = {};
      saved.forEach(({ q, k: kk, lse }, l) => {
        weights[l] = pass.allocate([B, shape.heads, T, T], `block ${l} weights`);
        k.attentionWeights(pass, { q, k: kk, lse, p: weights[l], ...shape });
      });
      const out = await pass.finish(weights);
      return saved.map((_, l) => out[l].data);
    });
  }

  /**
   * One training step on the device. inputs, targets: Int32Array (B·T), targets −100 ignored.
   * @returns {Promise<{loss: number, gradNorm: number, count: number, correct: number}>}
   */
  async trainStep(inputs, targets, B, T) {
    const { vocabSize: V, dModel: d, heads: H, optimizer, gradClip } = this.config;
    const N = B * T;
    const o = this.offsets;
    const count = countTargets(targets);
    return this.runtime.run('train step', async (pass) => {
      const act = (shape, name) => pass.allocate(shape, name);
      const W = this.weights;
      const G = this.grads;
      pass.encoder.clearBuffer(G.buffer);
      const lin = (prefix) => ({ offsetW: o[`${prefix}.weight`], offsetB: o[`${prefix}.bias`] });
      const { saved, hf, normFinal, logits } = this.recordForward(pass, inputs, B, T);
      const { sums, dLogits } = this.recordLoss(pass, logits, targets, N, count, true);
      const shape = this.attentionShape(B, T);
      const L = saved.length;

      // Backward, in reverse. Every gradient region is written once (the buffer starts cleared).
      const dyT = act([Math.max(V, d), N], 'dyᵀ scratch');
      let dh = act([N, d], 'dh final');
      k.linearBackward(pass, { x: hf, weights: W, dy: dLogits, dx: dh, grads: G, dyT, rows: N, dIn: d, dOut: V, ...lin('unembed') });
      const normBackward = (norm, dy, dx, prefix, accumulate) => {
        k.layerNormBackward(pass, { dy, xhat: norm.xhat, rstd: norm.rstd, weights: W, dx, rows: N, d, offsetGamma: o[`${prefix}.weight`], accumulate });
        k.columnSum(pass, { a: dy, b: norm.xhat, sums: G, rows: N, cols: d, offsetOut: o[`${prefix}.weight`] });
        k.columnSum(pass, { a: dy, sums: G, rows: N, cols: d, offsetOut: o[`${prefix}.bias`] });
      };
      if (normFinal) {
        const dx = act([N, d], 'dh ln_final');
        normBackward(normFinal, dh, dx, 'ln_final', false);
        dh = dx;
      }
      for (let l = L - 1; l >= 0; l--) {
        const p = `blocks.${l}`;
        const s = saved[l];
        // the residual passes dh through; the attention branch adds its own
        const dContext = act([N, d], `block ${l} dContext`);
        k.linearBackward(pass, { x: s.context, weights: W, dy: dh, dx: dContext, grads: G, dyT, rows: N, dIn: d, dOut: d, ...lin(`${p}.out_proj`) });
        const [dq, dk, dv] = ['dq', 'dk', 'dv'].map((name) => act([N, d], `block ${l} ${name}`));
        k.attentionBackward(pass, { q: s.q, k: s.k, v: s.v, o: s.context, lse: s.lse, dO: dContext, dq, dk, dv,
          D: act([B, H, T], `block ${l} D`), ...shape });
        // k_proj.bias adds q_i·b to every score of row i, which the softmax cancels: its gradient is 0 for every
        // input, so it keeps the cleared buffer's exact 0 (a column sum of dk would be that 0's float32 rounding
        // noise, which AdamW divides by its √v into steps of size lr).
        const [daq, dak, dav] = [['q', dq], ['k', dk], ['v', dv]].map(([name, dy]) => {
          const dx = act([N, d], `block ${l} da ${name}`);
          const offsets = lin(`${p}.${name}_proj`);
          if (name === 'k') offsets.offsetB = null;
          k.linearBackward(pass, { x: s.a, weights: W, dy, dx, grads: G, dyT, rows: N, dIn: d, dOut: d, ...offsets });
          return dx;
        });
        const daqk = act([N, d], `block ${l} da q+k`);
        k.add(pass, { a: daq, b: dak, out: daqk });
        const da = act([N, d], `block ${l} da`);
        k.add(pass, { a: daqk, b: dav, out: da });
        if (s.norm) {
          normBackward(s.norm, da, dh, `${p}.ln`, true); // dh += LN backward of da
        } else {
          const next = act([N, d], `block ${l} dh`);
          k.add(pass, { a: dh, b: da, out: next });
          dh = next;
        }
      }
      k.embeddingGrad(pass, { dh, positions: pass.upload(k.tokenPositions(inputs, V), [V + 1 + N], 'positions'),
        grads: G, vocab: V, d, offsetOut: o['tok_emb.weight'] });
      k.columnSum(pass, { a: dh, sums: G, rows: B, cols: T * d, rowStride: T * d, offsetOut: o['pos_emb.weight'] });
      // 4. clip_grad_norm_ and AdamW
      k.gradNorm(pass, { grads: G, segments: this.segments, partials: this.partials, segmentTable: this.segmentTable,
        clip: this.clip, maxNorm: gradClip });
      // the step counts once the device has run it (a lost device mid-step leaves the count as it was)
      const step = this.step + 1;
      k.adamw(pass, { weights: W, grads: G, expAvg: this.expAvg, expAvgSq: this.expAvgSq, clip: this.clip, step, ...optimizer });
      const out = await pass.finish({ sums, clip: this.clip });
      this.step = step;
      return { loss: count ? out.sums.data[0] / count : 0, correct: out.sums.data[1], count, gradNorm: out.clip.data[0] };
    });
  }

  /**
   * Copies the device's parameters, AdamW moments and (optionally) the last gradients into the CPU dicts.
   * @param {Record<string, {data: Float32Array}>} params @param {object} adam @param {Record<string, Float32Array>} [grads]
   */
  async readBack(params, adam, grads) {
    const tensors = { weights: this.weights, expAvg: this.expAvg, expAvgSq: this.expAvgSq };
    if (grads) tensors.grads = this.grads;
    const out = await this.runtime.run('trainer read back', (pass) => pass.finish(tensors));
    for (const [name] of this.spec) {
      const from = this.offsets[name];
      const length = params[name].data.length;
      params[name].data.set(out.weights.data.subarray(from, from + length));
      adam.expAvg[name].set(out.expAvg.data.subarray(from, from + length));
      adam.expAvgSq[name].set(out.expAvgSq.data.subarray(from, from + length));
      if (grads) grads[name] = out.grads.data.slice(from, from + length);
    }
    adam.step = this.step;
  }

  /** Uploads the named parameters (after setParameters on the CPU side). */
  writeParameters(params, names) {
    for (const name of names) {
      const data = params[name].data;
      this.device.queue.writeBuffer(this.weights.buffer, this.offsets[name] * FLOAT_BYTES, data.buffer, data.byteOffset, data.byteLength);
    }
  }

  dispose() {
    for (const buffer of this.resident) buffer.destroy();
    this.resident = [];
  }
}
