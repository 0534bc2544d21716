// The rules of registry.js applied: each option checked as the caller passed it (a float64, before any
// rounding), and the memory a call needs estimated from its entry's terms. One implementation for every
// backend: the API runs it before any backend sees the call.
import { ENTRIES } from './registry.js';
import { describeValue, fail } from './registry-errors.js';

/** Results beyond this many bytes are refused, as the WASM module (2 GiB of memory) must refuse them. */
export const MEMORY_LIMIT_BYTES = 2 ** 31;

// 'a', 'b' or 'c'
function listOf(items) {
  const quoted = items.map((item) => `'${item}'`);
  return quoted.length === 1 ? quoted[0] : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`;
}

/** What a message says an option should be, from its spec. */
export function expectedText(spec) {
  if (spec.type === 'boolean') return 'true or false';
  if (spec.type === 'choice') return listOf(spec.choices);
  return spec.expected;
}

const inRange = (value, { min, max, minExclusive, maxExclusive }) =>
  (min === undefined || (minExclusive ? value > min : value >= min)) &&
  (max === undefined || (maxExclusive ? value < max : value <= max));

/**
 * Checks one option's value against its spec; throws an ApiError naming `options.<name>` and echoing the
 * caller's value. A number the core holds as float32 must survive the rounding: finite in float64 but not
 * in float32 (temperature: 1e300), or rounded onto a bound (dropout: 0.99999999999 → 1), is refused.
 */
export function checkOption(fn, name, spec, value) {
  // The words of the message are put together only when the value is refused.
  const refuse = (why = expectedText(spec)) => fail(fn, 'option', `options.${name}`, value, why);
  if (spec.nullable && value === null) return;
  switch (spec.type) {
    case 'mask':
      // its shape and values are the function's check; here only what it is
      if (value !== null && !(value && typeof value === 'object' && Array.isArray(value.shape)
        && (value.data instanceof Uint8Array || (spec.dtype !== 'uint8' && value.data instanceof Float32Array)))) refuse();
      return;
    case 'tensor':
      if (value !== null && !(value && typeof value === 'object' && Array.isArray(value.shape) && value.data instanceof Float32Array)) refuse();
      return;
    case 'boolean':
      if (typeof value !== 'boolean') refuse();
      return;
    case 'choice':
      if (!spec.choices.includes(value)) refuse();
      return;
    case 'integer':
      if (!Number.isInteger(value) || !inRange(value, spec)) refuse();
      return;
    case 'number': {
      if (typeof value !== 'number' || !Number.isFinite(value) || !inRange(value, spec)) refuse();
      if (!spec.float32) return;
      const rounded = Math.fround(value);
      if (!Number.isFinite(rounded) || !inRange(rounded, spec)) {
        refuse(`${expectedText(spec)} after rounding to float32 (${describeValue(value)} becomes ${rounded})`);
      }
      return;
    }
    default:
      throw new TypeError(`registry: ${fn} option ${name} has an unknown type ${spec.type}`);
  }
}

/**
 * Floats a call holds at once on `path` ('teaching' or 'fused'): Σ coefficient·Π sizes over its entry's
 * memory terms. `sizes` are the named sizes its check returns (B, T, dOut, …).
 */
export function estimateFloats(fn, path, sizes) {
  const terms = ENTRIES[fn].memory[path] ?? ENTRIES[fn].memory.teaching;
  let floats = 0;
  for (const term of terms) {
    // [coefficient, ...size names]
    let product = term[0];
    for (let k = 1; k < term.length; k++) {
      const size = sizes[term[k]];
      if (typeof size !== 'number') throw new TypeError(`registry: ${fn}'s memory term needs size ${term[k]}`);
      product *= size;
    }
    floats += product;
  }
  return floats;
}

/**
 * The memory budget of the call being checked (withMemoryBudget), or null: then only MEMORY_LIMIT_BYTES.
 * {limit: bytes, inputBytes: the bytes the backend copies the inputs into, room?: () => bytes the backend's
 * module can still take (read on every call: the binding runs a call the API checked without checking it again),
 * backend?: () => the name of the backend that runs the call, whose path the estimate follows where paths differ
 * by backend (scaledDotProductAttention's)}
 */
let budget = null;

/** The name of the backend the call being checked runs on (budget.backend), or null outside the API. */
export const checkedBackend = () => budget?.backend?.() ?? null;

/**
 * Runs `check` with a memory budget: checkMemory then also refuses a call whose estimate plus
 * budget.inputBytes exceeds budget.limit or the module's room. The API runs every function's check in one
 * (api.js), so the call is refused before any backend allocates anything for it.
 */
export function withMemoryBudget(callBudget, check) {
  budget = callBudget;
  try {
    return check();
  } finally {
    budget = null;
  }
}

/** Whether checkMemory is skipped: a backward's check runs its forward's without the forward's estimate. */
let skipMemory = false;

/** Runs `check` with checkMemory skipped (the C++ core's no_memory_limit); returns what it returns. */
export function withoutMemoryCheck(check) {
  const before = skipMemory;
  skipMemory = true;
  try {
    return check();
  } finally {
    skipMemory = before;
  }
}

/**
 * Refuses a call whose estimate on `path` exceeds MEMORY_LIMIT_BYTES, or, inside withMemoryBudget, whose
 * estimate plus the copies of its inputs exceeds the budget; `what` names the sizes ("B=2, T=16").
 */
export function checkMemory(fn, path, sizes, what) {
  if (skipMemory) return;
  const bytes = 4 * estimateFloats(fn, path, sizes);
  if (bytes > MEMORY_LIMIT_BYTES) fail(fn, 'memory', what, bytes, 'at most 2 GiB');
  if (!budget) return;
  const { inputBytes = 0 } = budget;
  let { limit } = budget;
  if (budget.room) {
    // What the module can still take, in whole MiB as the binding words it.
    const room = Math.floor(budget.room() / 2 ** 20) * 2 ** 20;
    if (room < limit) limit = room;
  }
  if (bytes + inputBytes > limit) {
    fail(fn, 'memory', what, bytes, `at most ${limit} bytes`, { limit, inputs: inputBytes });
  }
}
