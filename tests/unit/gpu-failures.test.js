// Which WebGPU failures fall back to the CPU and which are raised (web/src/gpu/device.js): a lost device,
// out of memory and internal errors move the work to the CPU; a validation error (our WGSL or bindings) or a
// JS exception in our passes is a bug, raised as a GpuKernelError naming the function. Driven by a fake
// device that records nothing and fails where a test tells it to.
import { afterEach, beforeEach, describe, expect, test, vi } from 'vitest';
import { createAttention } from '../../web/src/core/api.js';
import { loadWebGpuBackend, withDeviceLossFallback } from '../../web/src/core/backends/webgpu.js';
import { createReferenceBackend } from '../../web/src/core/reference/index.js';
import {
  GpuKernelError, GpuUnavailableError, classifyGpuFailure, isDeviceFailure,
} from '../../web/src/gpu/device.js';
import { GpuRuntime } from '../../web/src/gpu/runtime.js';
import { createTrainer, makeBatch } from '../../web/src/train/index.js';
import { randomTensor } from './make-tensors.js';

beforeEach(() => {
  vi.stubGlobal('GPUBufferUsage', { STORAGE: 0x80, COPY_SRC: 0x4, COPY_DST: 0x8, UNIFORM: 0x40, MAP_READ: 0x1 });
  vi.stubGlobal('GPUMapMode', { READ: 1 });
});
afterEach(() => vi.unstubAllGlobals());

/**
 * A fake GPUDevice: every call succeeds and does nothing, reads give zeros. `failNext(filter, message)` makes
 * the next error scope of that filter ('validation', 'out-of-memory', 'internal') report an error;
 * `throwIn(method, error)` makes that method throw; `lose(reason)` resolves `lost`.
 */
function fakeDevice() {
  let loseDevice;
  const scopes = [];
  const failures = new Map();
  const throwing = new Map();
  const counts = { destroyed: 0, buffers: 0, pipelines: 0 };
  const guard = (method, body) => (...args) => {
    if (throwing.has(method)) throw throwing.get(method);
    return body(...args);
  };
  const device = {
    counts,
    limits: { maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 28, maxComputeWorkgroupsPerDimension: 65535, maxStorageBuffersPerShaderStage: 8 },
    lost: new Promise((done) => { loseDevice = done; }),
    lose: (reason) => loseDevice({ reason, message: `fake ${reason}` }),
    failNext: (filter, message) => failures.set(filter, message),
    throwIn: (method, error) => throwing.set(method, error),
    pushErrorScope(filter) {
      const error = failures.has(filter) ? { message: failures.get(filter) } : null;
      failures.delete(filter);
      scopes.push(error);
    },
    popErrorScope: async () => scopes.pop() ?? null,
    createBuffer: guard('createBuffer', ({ size }) => {
      counts.buffers++;
      return {
        size, destroy() { counts.destroyed++; }, mapAsync: async () => {}, unmap() {},
        getMappedRange: () => new ArrayBuffer(size),
      };
    }),
    createShaderModule: () => ({}),
    createComputePipeline: guard('createComputePipeline', () => { counts.pipelines++; return { getBindGroupLayout: () => ({}) }; }),
    createComputePipelineAsync: async () => ({ getBindGroupLayout: () => ({}) }),
    createBindGroup: guard('createBindGroup', () => ({})),
    createCommandEncoder: () => ({
      beginComputePass: () => ({ setPipeline() {}, setBindGroup() {}, dispatchWorkgroups() {}, end() {} }),
      copyBufferToBuffer() {}, clearBuffer() {}, finish: () => ({}),
    }),
    queue: { submit() {}, writeBuffer() {} },
    destroy() { counts.deviceDestroyed = true; },
  };
  return device;
}

/** A fake navigator.gpu whose adapter is a real-looking discrete GPU and whose device is `device`. */
function fakeGpu(device) {
  const limits = {
    maxComputeWorkgroupStorageSize: 32768, maxComputeInvocationsPerWorkgroup: 1024, maxComputeWorkgroupSizeX: 1024,
    maxComputeWorkgroupSizeY: 1024, maxStorageBuffersPerShaderStage: 10, maxStorageBufferBindingSize: 2 ** 27, maxBufferSize: 2 ** 28,
  };
  const adapter = { info: { vendor: 'nvidia', architecture: 'ada', device: '', description: 'fake' }, limits, requestDevice: async () => device };
  return { requestAdapter: async () => adapter };
}

describe('classifyGpuFailure', () => {
  test('a lost device wins over whatever error the pass saw', () => {
    const lost = new GpuUnavailableError('device-lost', 'WebGPU: the device was lost (destroyed)');
    expect(classifyGpuFailure('matmul', new Error('mapAsync aborted'), lost)).toBe(lost);
  });
  test('out of memory and internal errors are device failures, kept as they are', () => {
    for (const reason of ['out-of-memory', 'internal-error']) {
      const error = new GpuUnavailableError(reason, 'WebGPU: out');
      expect(classifyGpuFailure('matmul', error, null)).toBe(error);
      expect(isDeviceFailure(error)).toBe(true);
    }
  });
  test('a JS exception is a GpuKernelError naming the function, with the original as its cause', () => {
    const bug = new TypeError("Cannot read properties of undefined (reading 'buffer')");
    const error = classifyGpuFailure('selfAttention', bug, null);
    expect(error).toBeInstanceOf(GpuKernelError);
    expect(error.message).toBe("selfAttention: the WebGPU kernels failed (a bug, not a device failure): Cannot read properties of undefined (reading 'buffer')");
    expect(error.cause).toBe(bug);
    expect(isDeviceFailure(error)).toBe(false);
  });
});

describe('a pass (runtime.js) reads its error scopes', () => {
  const runPass = async (device) => {
    const runtime = new GpuRuntime(device);
    const a = randomTensor([4, 4], 1);
    return runtime.run('matmul', async (pass) => {
      const gpuA = pass.upload(a.data, a.shape, 'a');
      const c = pass.allocate([4, 4], 'c');
      pass.gemm({ a: gpuA, b: gpuA, c, M: 4, N: 4, K: 4, aLayout: { rowStride: 4 }, bLayout: { rowStride: 4 }, cLayout: { rowStride: 4 } });
      return pass.finish({ c });
    });
  };

  test('no error: the result comes back and every buffer is freed', async () => {
    const device = fakeDevice();
    expect((await runPass(device)).c.data).toHaveLength(16);
    expect(device.counts.destroyed).toBe(device.counts.buffers);
  });

  test("a validation error (our WGSL or bindings) is a GpuKernelError naming the pass's function", async () => {
    const device = fakeDevice();
    device.failNext('validation', "Error while parsing WGSL: unresolved identifier 'acc'");
    const error = await runPass(device).catch((e) => e);
    expect(error).toBeInstanceOf(GpuKernelError);
    expect(error.message).toBe("matmul: WebGPU validation error (a bug in the kernels or their bindings): Error while parsing WGSL: unresolved identifier 'acc'");
    expect(device.counts.destroyed).toBe(device.counts.buffers);
  });

  test('out of memory and internal errors are GpuUnavailableErrors (a fallback is right)', async () => {
    for (const [filter, reason] of [['out-of-memory', 'out-of-memory'], ['internal', 'internal-error']]) {
      const device = fakeDevice();
      device.failNext(filter, 'Not enough memory left');
      const error = await runPass(device).catch((e) => e);
      expect(error).toBeInstanceOf(GpuUnavailableError);
      expect(error.reason).toBe(reason);
      expect(error.message).toContain('matmul');
    }
  });
});

describe("the webgpu backend and its fallback (backends/webgpu.js) over a fake device", () => {
  const reference = createReferenceBackend();
  const load = async () => {
    const device = fakeDevice();
    const gpu = await loadWebGpuBackend({ gpu: fakeGpu(device) });
    const fallbacks = [];
    const routed = withDeviceLossFallback(gpu, async () => { fallbacks.push(1); return { ...reference, name: 'js' }; });
    return { device, attention: createAttention(routed), fallbacks };
  };
  const a = randomTensor([5, 5], 3);

  test('a validation error rejects the call with a GpuKernelError naming it; nothing falls back', async () => {
    const { device, attention, fallbacks } = await load();
    device.failNext('validation', 'Binding size (16) is smaller than the minimum binding size (32)');
    const error = await attention.matmul(a, a).catch((e) => e);
    expect(error).toBeInstanceOf(GpuKernelError);
    expect(error.message).toMatch(/^matmul: WebGPU validation error .*minimum binding size/);
    expect(attention.backend).toBe('webgpu');
    expect(attention.fallbackReason).toBeNull();
    expect(fallbacks).toEqual([]);
    // The next call runs on the GPU again.
    await expect(attention.matmul(a, a)).resolves.toMatchObject({ output: { shape: [5, 5] } });
    expect(attention.backend).toBe('webgpu');
  });

  test('a JS exception inside a pass is a GpuKernelError naming the function; nothing falls back', async () => {
    const { device, attention, fallbacks } = await load();
    device.throwIn('createBindGroup', new TypeError('entries[3].resource.buffer is undefined'));
    await expect(attention.softmax(a)).rejects.toThrow(
      'softmax: the WebGPU kernels failed (a bug, not a device failure): entries[3].resource.buffer is undefined');
    expect(fallbacks).toEqual([]);
    expect(attention.backend).toBe('webgpu');
  });

  test('out of memory moves the call, and the later ones, to the CPU backend, and says why', async () => {
    const { device, attention, fallbacks } = await load();
    device.failNext('out-of-memory', 'Not enough memory left');
    const result = await attention.matmul(a, a);
    expect(Array.from(result.output.data)).toEqual(Array.from(reference.matmul(a, a, { transposeB: false }).output.data));
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toMatch(/^WebGPU: matmul: out of GPU memory: Not enough memory left; now on js$/);
    expect(fallbacks).toEqual([1]);
  });

  test('a device lost under a call moves it to the CPU backend, whatever error the pass saw', async () => {
    const { device, attention } = await load();
    device.throwIn('createBindGroup', new Error('Instance dropped'));
    device.lose('unknown');
    const result = await attention.matmul(a, a);
    expect(result.output.shape).toEqual([5, 5]);
    expect(attention.backend).toBe('js');
    expect(attention.fallbackReason).toMatch(/device was lost \(unknown: fake unknown\); switch to a WASM backend; now on js/);
  });
});

describe("createTrainer({backend: 'webgpu'}) over a fake device", () => {
  const config = { vocabSize: 8, contextLength: 6, dModel: 8, heads: 2, layers: 1, seed: 3 };
  const batch = makeBatch('copy', { batch: 2, contextLength: 6, vocabSize: 8, seed: 1, step: 0 });
  const trainer = async () => {
    const device = fakeDevice();
    vi.stubGlobal('navigator', { gpu: fakeGpu(device) });
    return { device, trainer: await createTrainer({ ...config, backend: 'webgpu' }) };
  };

  test('a validation error in the step is raised naming trainer.step; the trainer stays on the GPU', async () => {
    const { device, trainer: t } = await trainer();
    expect(t.backend).toBe('webgpu');
    device.failNext('validation', "Error while parsing WGSL: expected ';'");
    const error = await t.step(batch).catch((e) => e);
    expect(error).toBeInstanceOf(GpuKernelError);
    expect(error.message).toMatch(/^trainer\.step: the WebGPU kernels failed \(a bug, not a device failure\): train step: WebGPU validation error .*expected ';'/);
    expect(t.backend).toBe('webgpu');
    expect(device.counts.deviceDestroyed).toBeUndefined();
  });

  test('a JS exception in sync() is raised naming trainer.sync', async () => {
    const { trainer: t } = await trainer();
    t.gpu.readBack = async () => { throw new RangeError('offset is out of bounds'); };
    await expect(t.sync()).rejects.toThrow('trainer.sync: the WebGPU kernels failed (a bug, not a device failure): offset is out of bounds');
    expect(t.backend).toBe('webgpu');
  });

  test('out of memory resumes on the CPU from the last copy, and says so', async () => {
    const { device, trainer: t } = await trainer();
    device.failNext('out-of-memory', 'Not enough memory left');
    const { loss } = await t.step(batch);
    expect(Number.isFinite(loss)).toBe(true);
    expect(t.backend).toBe('js');
    expect(t.backendReason).toMatch(/^the WebGPU device failed after 0 steps \(WebGPU: train step: out of GPU memory: Not enough memory left\); resumed on the JS engine/);
    expect(device.counts.deviceDestroyed).toBe(true);
  });

  test('a device lost under a step resumes on the CPU, whatever error the step saw', async () => {
    const { device, trainer: t } = await trainer();
    t.gpu.trainStep = async () => { device.lose('unknown'); throw new Error('mapAsync: Device is lost'); };
    await t.step(batch);
    expect(t.backend).toBe('js');
    expect(t.backendReason).toMatch(/the device was lost \(unknown: fake unknown\)/);
  });
});
