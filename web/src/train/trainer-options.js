// The trainer's arguments (docs/api.md "Training"): createTrainer's and loadTrainer's options filled in and
// checked, parameters against the model's spec, token batches against the config. Each failure is an Error
// naming the function, the argument, the value and what was expected.
import { checkTensorStructure, describeValue, formatShape } from '../core/engine.js';

const BACKENDS = ['auto', 'wasm', 'wasm-simd', 'wasm-baseline', 'js', 'webgpu'];
const OPTIONS = ['vocabSize', 'contextLength', 'dModel', 'heads', 'layers', 'layerNorm', 'seed', 'parameters',
  'optimizer', 'gradClip', 'backend', 'threads', 'wasmBinary', 'syncEvery'];
/** On 'webgpu', the steps between copies of the parameters and AdamW state back to the CPU. */
export const SYNC_EVERY_DEFAULT = 10;
export const OPTIMIZER_DEFAULTS = { name: 'adamw', lr: 1e-3, betas: [0.9, 0.999], eps: 1e-8, weightDecay: 0.01 };

export function fail(fn, message) {
  throw new Error(`${fn}: ${message}`);
}
function integer(fn, name, value, min, max) {
  if (!Number.isInteger(value) || value < min || value > max) fail(fn, `options.${name}=${describeValue(value)}; expected an integer from ${min} to ${max}`);
  return value;
}
function positive(fn, name, value, { allowZero = false } = {}) {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || (!allowZero && value === 0)) {
    fail(fn, `options.${name}=${describeValue(value)}; expected a finite number ${allowZero ? '≥ 0' : '> 0'}`);
  }
  return value;
}

/** Fills defaults and checks every option; returns the trainer's config. */
export function normalizeTrainerOptions(fn, options) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) fail(fn, `options is ${describeValue(options)}; expected an object`);
  for (const key of Object.keys(options)) {
    if (!OPTIONS.includes(key)) fail(fn, `options.${key} is not an option; expected one of ${OPTIONS.join(', ')}`);
  }
  const config = {
    vocabSize: integer(fn, 'vocabSize', options.vocabSize, 2, 1 << 20),
    contextLength: integer(fn, 'contextLength', options.contextLength, 1, 1 << 16),
    dModel: integer(fn, 'dModel', options.dModel, 1, 1 << 14),
    heads: integer(fn, 'heads', options.heads ?? 1, 1, 1024),
    layers: integer(fn, 'layers', options.layers ?? 1, 1, 64),
    layerNorm: options.layerNorm ?? false,
    seed: integer(fn, 'seed', options.seed ?? 0, 0, 2 ** 32 - 1),
  };
  if (typeof config.layerNorm !== 'boolean') fail(fn, `options.layerNorm=${describeValue(config.layerNorm)}; expected true or false`);
  if (config.dModel % config.heads !== 0) fail(fn, `dModel=${config.dModel} is not divisible by heads=${config.heads}`);
  const given = options.optimizer ?? {};
  if (given === null || typeof given !== 'object') fail(fn, `options.optimizer is ${describeValue(given)}; expected an object`);
  for (const key of Object.keys(given)) {
    if (!(key in OPTIMIZER_DEFAULTS)) fail(fn, `options.optimizer.${key} is not an option; expected one of ${Object.keys(OPTIMIZER_DEFAULTS).join(', ')}`);
  }
  const optimizer = { ...OPTIMIZER_DEFAULTS, ...given };
  if (optimizer.name !== 'adamw') fail(fn, `options.optimizer.name=${describeValue(optimizer.name)}; expected 'adamw'`);
  positive(fn, 'optimizer.lr', optimizer.lr, { allowZero: true });
  positive(fn, 'optimizer.eps', optimizer.eps);
  positive(fn, 'optimizer.weightDecay', optimizer.weightDecay, { allowZero: true });
  const betasOk = Array.isArray(optimizer.betas) && optimizer.betas.length === 2 && optimizer.betas.every((b) => typeof b === 'number' && b >= 0 && b < 1);
  if (!betasOk) fail(fn, `options.optimizer.betas=${Array.isArray(optimizer.betas) ? JSON.stringify(optimizer.betas) : describeValue(optimizer.betas)}; expected [β₁, β₂], each in [0, 1)`);
  config.optimizer = { ...optimizer, betas: [...optimizer.betas] };
  config.gradClip = options.gradClip ?? null;
  if (config.gradClip !== null) positive(fn, 'gradClip', config.gradClip);
  const backend = options.backend ?? 'auto';
  if (!BACKENDS.includes(backend)) fail(fn, `options.backend=${describeValue(backend)}; expected one of ${BACKENDS.map((b) => `'${b}'`).join(', ')}`);
  const threads = options.threads ?? 'auto';
  if (threads !== 'auto' && !(Number.isInteger(threads) && threads >= 1 && threads <= 64)) fail(fn, `options.threads=${describeValue(threads)}; expected 'auto' or an integer from 1 to 64`);
  const wasmBinary = options.wasmBinary ?? null;
  if (wasmBinary !== null && !(wasmBinary instanceof Uint8Array || wasmBinary instanceof ArrayBuffer)) {
    fail(fn, `options.wasmBinary is ${describeValue(wasmBinary)}; expected the WASM build's bytes (Uint8Array or ArrayBuffer)`);
  }
  const syncEvery = options.syncEvery ?? SYNC_EVERY_DEFAULT;
  if (!(Number.isInteger(syncEvery) && syncEvery >= 1)) fail(fn, `options.syncEvery=${describeValue(syncEvery)}; expected an integer ≥ 1`);
  return { config, backend, threads, wasmBinary, syncEvery };
}

/** Checks {name: tensor} against the model's spec; every name must exist with its shape (a subset is allowed). */
export function checkParameters(fn, spec, parameters, argument) {
  if (parameters === null || typeof parameters !== 'object') fail(fn, `${argument} is ${describeValue(parameters)}; expected {name: tensor} in state_dict names`);
  const shapes = new Map(spec.map(([name, shape]) => [name, shape]));
  for (const [name, t] of Object.entries(parameters)) {
    if (!shapes.has(name)) fail(fn, `${argument} has '${name}', which this model does not have; expected state_dict names such as ${spec.slice(0, 3).map(([n]) => `'${n}'`).join(', ')}`);
    const shape = shapes.get(name);
    // The type first (an Int32Array is named as such), then the shape against the model's.
    checkTensorStructure(fn, `${argument}['${name}']`, t);
    if (t.shape.join() !== shape.join()) fail(fn, `${argument}['${name}'] has shape ${formatShape(t.shape)}; expected ${formatShape(shape)}`);
    if (!t.data.every(Number.isFinite)) fail(fn, `${argument}['${name}'] holds NaN or ±∞; expected finite values`);
  }
}

export function checkTokens(fn, name, t, config, { allowIgnore = false } = {}) {
  // The type first: Float32Array token ids are named as such, not blamed on the shape.
  checkTensorStructure(fn, name, t, 'int32');
  if (t.shape.length !== 2) fail(fn, `${name} has shape ${formatShape(t.shape)}; expected [B, T]`);
  const [B, T] = t.shape;
  if (B < 1 || T < 1 || T > config.contextLength) fail(fn, `${name} has shape ${formatShape(t.shape)}; expected B ≥ 1 and 1 ≤ T ≤ contextLength=${config.contextLength}`);
  for (let i = 0; i < t.data.length; i++) {
    const v = t.data[i];
    if (!(v >= 0 && v < config.vocabSize) && !(allowIgnore && v === -100)) {
      fail(fn, `${name}.data[${i}]=${v}; expected a token id from 0 to vocabSize−1=${config.vocabSize - 1}${allowIgnore ? ' or −100 (ignored)' : ''}`);
    }
  }
  return { B, T };
}

export function checkBatch(fn, batch, config) {
  if (!batch || typeof batch !== 'object') fail(fn, `batch is ${describeValue(batch)}; expected {inputs, targets}`);
  const { B, T } = checkTokens(fn, 'inputs', batch.inputs, config);
  checkTokens(fn, 'targets', batch.targets, config, { allowIgnore: true });
  if (batch.targets.shape.join() !== batch.inputs.shape.join()) fail(fn, `targets has shape ${formatShape(batch.targets.shape)}; expected ${formatShape(batch.inputs.shape)}, the inputs' shape`);
  return { B, T };
}
