// The GPU side of one backend: labelled pipelines cached by key, and passes that keep every buffer of one
// forward pass on the GPU, record all the kernels into one command encoder, and read back only the
// tensors the caller asks for.
import { GEMM_UNIFORMS, gemmWgsl } from './gemm.wgsl.js';
import { ROW_SOFTMAX_UNIFORMS, rowSoftmaxWgsl } from './row-softmax.wgsl.js';
import { FUSED_ATTENTION_UNIFORMS, fusedAttentionWgsl } from './fused-attention.wgsl.js';
import { DROPOUT_UNIFORMS, dropoutWgsl } from './dropout.wgsl.js';
import { lowbias32 } from '../base/random.js';
import { GpuKernelError, GpuUnavailableError } from './device.js';

const FLOAT_BYTES = 4;
const GEMM_TILE = 64;
const ROW_THREADS = 64;
const QUERY_ROWS = 64;
const ELEMENTWISE_THREADS = 256;
export const HEAD_DIM_LIMIT = 256;
/** The error scopes a pass pushes, outermost first; popped in reverse (device.js says which fall back). */
const ERROR_SCOPES = ['validation', 'out-of-memory', 'internal'];

/**
 * A tensor living in a GPU buffer for the length of one pass.
 * @typedef {{buffer: GPUBuffer, length: number, shape: number[]}} GpuTensor
 */

/**
 * A matrix operand's addressing inside its buffer, in elements: offset, row stride and the strides of
 * the two batch levels (outer, inner). A stride of 0 broadcasts.
 * @typedef {{offset?: number, rowStride: number, outerStride?: number, innerStride?: number}} Layout
 */

export class GpuRuntime {
  /**
   * @param {GPUDevice} device
   * @param {{stagedGemm?: boolean}} [options] stagedGemm: GEMM variant 1 (workgroup-memory tiles, for GPUs)
   *   or, when false, variant 2 (direct loads, for CPU-emulated adapters such as SwiftShader)
   */
  constructor(device, { stagedGemm = true } = {}) {
    this.device = device;
    this.stagedGemm = stagedGemm;
    /** @type {Map<string, GPUComputePipeline>} */
    this.pipelines = new Map();
    this.maxBindingBytes = Math.min(device.limits.maxStorageBufferBindingSize, device.limits.maxBufferSize);
    this.maxGroups = device.limits.maxComputeWorkgroupsPerDimension;
  }

  /**
   * The pipeline for `spec.key`, compiled once. The key names the kernel and every choice baked into it.
   * @param {{key: string, source: () => string, constants?: Record<string, number|boolean>}} spec
   */
  pipeline({ key, source, constants = {} }) {
    let pipeline = this.pipelines.get(key);
    if (!pipeline) {
      pipeline = this.device.createComputePipeline(this.descriptor(key, source, constants));
      this.pipelines.set(key, pipeline);
    }
    return pipeline;
  }

  descriptor(key, source, constants) {
    const module = this.device.createShaderModule({ label: key, code: source() });
    // An override's value is a GPUPipelineConstantValue (a double): Chromium converts a boolean, Dawn's
    // Node binding refuses one ("value is not a number"), so a bool override gets 1 or 0.
    const numbers = Object.fromEntries(Object.entries(constants).map(([name, value]) => [name, Number(value)]));
    return { label: key, layout: 'auto', compute: { module, entryPoint: 'main', constants: numbers } };
  }

  /**
   * Compiles pipelines in the background (createComputePipelineAsync), so the first call of a step does
   * not wait for the shader compiler (a noticeable pause on SwiftShader). A call that comes first compiles its own.
   * @param {{key: string, source: () => string, constants?: object}[]} specs
   */
  async warmUp(specs) {
    await Promise.all(specs.filter(({ key }) => !this.pipelines.has(key)).map(async ({ key, source, constants = {} }) => {
      const pipeline = await this.device.createComputePipelineAsync(this.descriptor(key, source, constants));
      if (!this.pipelines.has(key)) this.pipelines.set(key, pipeline);
    }));
  }

  /** The GEMM pipeline for one choice of vec4 loads and transposition (staging is the runtime's). */
  gemmSpec({ vec4A, vec4B, transposeB }) {
    const staged = this.stagedGemm;
    return {
      key: `gemm ${staged ? 'staged' : 'direct'} vec4A=${vec4A} vec4B=${vec4B} transposeB=${transposeB}`,
      source: () => gemmWgsl({ vec4A, vec4B, staged }),
      constants: { TRANSPOSE_B: transposeB },
    };
  }

  rowSoftmaxSpec() {
    return { key: 'row softmax', source: () => rowSoftmaxWgsl, constants: { WORKGROUP_SIZE: ROW_THREADS } };
  }

  /** What a teaching-size step needs: odd sizes (scalar loads), Q·Kᵀ and weights·V, the softmax. */
  teachingSpecs() {
    return [
      this.gemmSpec({ vec4A: false, vec4B: false, transposeB: false }),
      this.gemmSpec({ vec4A: false, vec4B: false, transposeB: true }),
      this.rowSoftmaxSpec(),
    ];
  }

  /** @param {string} label */
  beginPass(label) {
    return new GpuPass(this, label);
  }

  /** Frees the buffers and error scopes of a pass that failed before it finished. */
  abandon(pass) {
    if (pass.finished) return;
    pass.finished = true;
    for (let i = 0; i < ERROR_SCOPES.length; i++) this.device.popErrorScope().catch(() => {});
    for (const buffer of pass.buffers) buffer.destroy();
  }

  /**
   * Runs `body(pass)` on a fresh pass; a failure anywhere frees the pass before it propagates.
   * @template T @param {string} label @param {(pass: GpuPass) => Promise<T>} body @returns {Promise<T>}
   */
  async run(label, body) {
    const pass = this.beginPass(label);
    try {
      return await body(pass);
    } catch (error) {
      this.abandon(pass);
      throw error;
    }
  }
}

export class GpuPass {
  /** @param {GpuRuntime} runtime @param {string} label */
  constructor(runtime, label) {
    this.runtime = runtime;
    this.device = runtime.device;
    this.label = label;
    this.encoder = this.device.createCommandEncoder({ label });
    /** @type {GPUBuffer[]} every buffer this pass made, destroyed when it ends */
    this.buffers = [];
    for (const filter of ERROR_SCOPES) this.device.pushErrorScope(filter);
  }

  /** A storage buffer for `length` floats (padded to 16 bytes, so vec4 views of it are whole). */
  createBuffer(length, name) {
    const bytes = Math.max(16, Math.ceil((length * FLOAT_BYTES) / 16) * 16);
    if (bytes > this.runtime.maxBindingBytes) {
      throw new Error(`webgpu: ${this.label}: ${name} needs ${bytes} bytes; the device binds at most ${this.runtime.maxBindingBytes} bytes per buffer`);
    }
    const buffer = this.device.createBuffer({
      label: `${this.label}: ${name}`, size: bytes,
      usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST,
    });
    this.buffers.push(buffer);
    return buffer;
  }

  /** @param {Float32Array} data @param {number[]} shape @param {string} name @returns {GpuTensor} */
  upload(data, shape, name) {
    const buffer = this.createBuffer(data.length, name);
    this.device.queue.writeBuffer(buffer, 0, data.buffer, data.byteOffset, data.byteLength);
    return { buffer, length: data.length, shape };
  }

  /** @param {number[]} shape @param {string} name @returns {GpuTensor} */
  allocate(shape, name) {
    const length = shape.reduce((product, size) => product * size, 1);
    return { buffer: this.createBuffer(length, name), length, shape };
  }

  uniform(values, name) {
    const buffer = this.device.createBuffer({
      label: `${this.label}: ${name} params`, size: Math.max(16, Math.ceil(values.byteLength / 16) * 16),
      usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST,
    });
    this.buffers.push(buffer);
    this.device.queue.writeBuffer(buffer, 0, values.buffer, 0, values.byteLength);
    return buffer;
  }

  dispatch(pipeline, name, bindings, groups) {
    const bindGroup = this.device.createBindGroup({
      label: `${this.label}: ${name}`, layout: pipeline.getBindGroupLayout(0),
      entries: bindings.map((buffer, binding) => ({ binding, resource: { buffer } })),
    });
    const computePass = this.encoder.beginComputePass({ label: `${this.label}: ${name}` });
    computePass.setPipeline(pipeline);
    computePass.setBindGroup(0, bindGroup);
    computePass.dispatchWorkgroups(...groups);
    computePass.end();
  }

  /** Spreads `count` workgroups over x and y, as one dimension holds at most maxGroups. */
  spread(count) {
    const x = Math.min(Math.max(count, 1), this.runtime.maxGroups);
    return [x, Math.ceil(Math.max(count, 1) / x), 1];
  }

  /**
   * C = alpha · A · op(B) (+ bias) for batchOuter × batchInner matrix pairs.
   * @param {{a: GpuTensor, b: GpuTensor, c: GpuTensor, bias?: GpuTensor, M: number, N: number, K: number,
   *   batchOuter?: number, batchInner?: number, transposeB?: boolean, alpha?: number,
   *   aLayout: Layout, bLayout: Layout, cLayout: Layout, biasLayout?: Layout, name?: string}} spec
   */
  gemm(spec) {
    const { a, b, c, M, N, K, transposeB = false, alpha = 1, name = 'gemm' } = spec;
    const batchOuter = spec.batchOuter ?? 1;
    const batchInner = spec.batchInner ?? 1;
    if (batchOuter * batchInner > this.runtime.maxGroups) {
      throw new Error(`webgpu: ${this.label}: ${name} has ${batchOuter * batchInner} matrices; the device dispatches at most ${this.runtime.maxGroups}`);
    }
    const layouts = [spec.aLayout, spec.bLayout, spec.cLayout, spec.biasLayout ?? { rowStride: 0 }]
      .map((layout) => [layout.offset ?? 0, layout.rowStride, layout.outerStride ?? 0, layout.innerStride ?? 0]);
    // vec4 loads need every address a load starts from to be a multiple of 4.
    const aligned = (layout, length) => layout.every((value) => value % 4 === 0) && length % 4 === 0;
    const vec4A = aligned(layouts[0], K);
    const vec4B = aligned(layouts[1], transposeB ? K : N);
    const pipeline = this.runtime.pipeline(this.runtime.gemmSpec({ vec4A, vec4B, transposeB }));
    const strides = (prefix, [offset, rowStride, outerStride, innerStride]) => ({
      [`${prefix}Offset`]: offset, [`${prefix}RowStride`]: rowStride, [`${prefix}OuterStride`]: outerStride, [`${prefix}InnerStride`]: innerStride,
    });
    const words = GEMM_UNIFORMS.pack({
      M, N, K, batchInner, alpha, hasBias: spec.bias ? 1 : 0,
      ...strides('a', layouts[0]), ...strides('b', layouts[1]), ...strides('c', layouts[2]),
      // The bias is one row: offset and batch strides only.
      biasOffset: layouts[3][0], biasOuterStride: layouts[3][2], biasInnerStride: layouts[3][3],
    });
    const bias = spec.bias ?? a;
    this.dispatch(pipeline, name, [this.uniform(words, name), a.buffer, b.buffer, bias.buffer, c.buffer],
      [Math.ceil(N / GEMM_TILE), Math.ceil(M / GEMM_TILE), batchOuter * batchInner]);
  }

  /**
   * Scaled, masked and normalised rows: see row-softmax.wgsl.js.
   * @param {{scores: GpuTensor, weights: GpuTensor, scaled?: GpuTensor, masked?: GpuTensor, rows: number,
   *   cols: number, rowsPerMatrix: number, causal: boolean, maskMode: number, normalization: number,
   *   scale: number, name?: string}} spec
   */
  rowSoftmax(spec) {
    const { scores, weights, rows, cols, name = 'row softmax' } = spec;
    const pipeline = this.runtime.pipeline(this.runtime.rowSoftmaxSpec());
    const values = {
      rows, cols, rowsPerMatrix: spec.rowsPerMatrix, causal: spec.causal ? 1 : 0, maskMode: spec.maskMode,
      normalization: spec.normalization, scale: spec.scale, writeScaled: spec.scaled ? 1 : 0, writeMasked: spec.masked ? 1 : 0,
    };
    // Rows beyond one dispatch's reach go in further dispatches, each starting at rowOffset.
    const perDispatch = this.runtime.maxGroups * this.runtime.maxGroups;
    for (let rowOffset = 0; rowOffset < rows; rowOffset += perDispatch) {
      // An output that is not wanted is still bound, to a small scratch buffer, but never written.
      this.dispatch(pipeline, name, [this.uniform(ROW_SOFTMAX_UNIFORMS.pack({ ...values, rowOffset }), name), scores.buffer,
        (spec.scaled ?? this.scratch('scaled')).buffer, (spec.masked ?? this.scratch('masked')).buffer,
        weights.buffer], this.spread(Math.min(rows - rowOffset, perDispatch)));
    }
  }

  /** A 16-byte buffer bound where a kernel's optional output is switched off (one per binding: two
   *  writable bindings of one dispatch may not share a buffer). */
  scratch(name) {
    this.scratchTensors ??= {};
    this.scratchTensors[name] ??= this.allocate([4], `unused ${name}`);
    return this.scratchTensors[name];
  }

  /**
   * Fused attention per (batch, head) with an online softmax: see fused-attention.wgsl.js.
   * Layouts: {offset, rowStride, outerStride = batch stride, innerStride = head stride}.
   */
  fusedAttention(spec) {
    const { q, k, v, o, batch, heads, Tq, Tk, headDim, name = 'fused attention' } = spec;
    if (headDim > HEAD_DIM_LIMIT) throw new Error(`webgpu: ${name}: d_head=${headDim} exceeds the fused kernel's ${HEAD_DIM_LIMIT}`);
    const headDimMax = Math.max(16, 2 ** Math.ceil(Math.log2(headDim)));
    const pipeline = this.runtime.pipeline({ key: `fused attention headDimMax=${headDimMax}`,
      source: () => fusedAttentionWgsl(headDimMax), constants: { WORKGROUP_SIZE: QUERY_ROWS } });
    const strides = (prefix, layout) => ({
      [`${prefix}Offset`]: layout.offset ?? 0, [`${prefix}RowStride`]: layout.rowStride,
      [`${prefix}BatchStride`]: layout.outerStride ?? 0, [`${prefix}HeadStride`]: layout.innerStride ?? 0,
    });
    const words = FUSED_ATTENTION_UNIFORMS.pack({
      Tq, Tk, headDim, heads, scale: spec.scale, causal: spec.causal ? 1 : 0, maskMode: spec.maskMode,
      dropout: spec.dropout, seedHash: lowbias32(spec.seed), keepScale: spec.dropout > 0 ? 1 / (1 - spec.dropout) : 1,
      ...strides('q', spec.qLayout), ...strides('k', spec.kLayout), ...strides('v', spec.vLayout), ...strides('o', spec.oLayout),
    });
    if (batch * heads > this.runtime.maxGroups) {
      throw new Error(`webgpu: ${name}: B·H=${batch * heads} exceeds the device's ${this.runtime.maxGroups} workgroups per dimension`);
    }
    this.dispatch(pipeline, name, [this.uniform(words, name), q.buffer, k.buffer, v.buffer, o.buffer],
      [Math.ceil(Tq / QUERY_ROWS), batch * heads, 1]);
  }

  /** dropped = weights · keep / (1 − p) with the counter-based keep rule of docs/api.md. */
  dropout({ weights, dropped, dropout, seed, name = 'dropout' }) {
    const pipeline = this.runtime.pipeline({ key: 'dropout', source: () => dropoutWgsl, constants: { WORKGROUP_SIZE: ELEMENTWISE_THREADS } });
    const words = DROPOUT_UNIFORMS.pack({ count: weights.length, seedHash: lowbias32(seed), dropout, keepScale: 1 / (1 - dropout) });
    this.dispatch(pipeline, name, [this.uniform(words, name), weights.buffer, dropped.buffer],
      this.spread(Math.ceil(weights.length / ELEMENTWISE_THREADS)));
  }

  /**
   * Submits everything recorded, reads back the given tensors and frees the pass's buffers.
   * @param {Record<string, GpuTensor>} tensors
   * @returns {Promise<Record<string, {data: Float32Array, shape: number[]}>>}
   */
  async finish(tensors) {
    this.finished = true;
    const entries = Object.entries(tensors);
    const staging = entries.map(([name, tensor]) => {
      const buffer = this.device.createBuffer({
        label: `${this.label}: read ${name}`, size: tensor.buffer.size,
        usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST,
      });
      this.buffers.push(buffer);
      this.encoder.copyBufferToBuffer(tensor.buffer, 0, buffer, 0, tensor.buffer.size);
      return buffer;
    });
    this.device.queue.submit([this.encoder.finish()]);
    const internal = await this.device.popErrorScope();
    const outOfMemory = await this.device.popErrorScope();
    const invalid = await this.device.popErrorScope();
    try {
      // Out of memory and internal errors: the device cannot do this work (a fallback is right).
      if (outOfMemory) throw new GpuUnavailableError('out-of-memory', `WebGPU: ${this.label}: out of GPU memory: ${outOfMemory.message}`);
      if (internal) throw new GpuUnavailableError('internal-error', `WebGPU: ${this.label}: internal error: ${internal.message}`);
      // A validation error is our WGSL or our bindings: a bug, raised as such.
      if (invalid) throw new GpuKernelError(this.label, `WebGPU validation error (a bug in the kernels or their bindings): ${invalid.message}`);
      await Promise.all(staging.map((buffer) => buffer.mapAsync(GPUMapMode.READ)));
      const results = {};
      entries.forEach(([name, tensor], i) => {
        results[name] = { data: new Float32Array(staging[i].getMappedRange(), 0, tensor.length).slice(), shape: tensor.shape };
        staging[i].unmap();
      });
      return results;
    } finally {
      for (const buffer of this.buffers) buffer.destroy();
    }
  }
}
