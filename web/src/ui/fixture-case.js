// Step 9's PyTorch case. The build reads one small case out of tests/fixtures/selfAttention.json
// (vite.config.js, the `virtual:check-fixture` module), so the page ships a few kilobytes of golden
// data, not the whole fixture file. Here its JSON numbers become the API's typed tensors.
import raw from 'virtual:check-fixture';

function number(value) {
  return typeof value === 'string' ? Number(value) : value; // "Infinity", "-Infinity", "NaN"
}

function revive(value) {
  if (Array.isArray(value)) return value.map(revive);
  if (value && typeof value === 'object') {
    if (Array.isArray(value.shape) && Array.isArray(value.data)) {
      const Typed = value.dtype === 'int32' ? Int32Array : Float32Array;
      return { data: Typed.from(value.data, number), shape: [...value.shape] };
    }
    return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, revive(inner)]));
  }
  return value;
}

/** {function, name, args, expected} with typed tensors. */
export const CHECK_FIXTURE = {
  function: raw.function,
  name: raw.name,
  args: revive(raw.args),
  expected: revive(raw.expected),
};
