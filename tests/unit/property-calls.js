// Random valid API calls for property.test.js, as fast-check arbitraries: every function of docs/api.md's
// step table that takes floats, matmul, scaledDotProductAttention (with a boolean or float mask, or
// isCausal) and the multi-head functions on both paths (intermediates true and false, so the fused kernel
// too). A call is plain JSON ({fn, args} with tensors as {shape, values}), so the
// same calls can go to a child Node (property-relaxed.mjs) and come back comparable.
//
// Values are dyadic and small (inputs k/32 in [-1, 1], weights k/64 in [-¼, ¼]): logits stay below ~10,
// where float32 summation order moves results by ~1e-7, far inside the 1e-5 the backends must agree to.
import fc from 'fast-check';

const input = fc.integer({ min: -32, max: 32 }).map((k) => k / 32);
const weight = fc.integer({ min: -16, max: 16 }).map((k) => k / 64);

/** A tensor spec {shape, values} of the given shape with values from `value`. */
function tensorOf(shape, value = input) {
  const count = shape.reduce((a, b) => a * b, 1);
  return fc.array(value, { minLength: count, maxLength: count }).map((values) => ({ shape, values }));
}

const size = (min, max) => fc.integer({ min, max });

const attentionOptions = fc.record({
  scale: fc.boolean(),
  temperature: fc.constantFrom(1, 0.5, 2),
  causal: fc.boolean(),
  mask: fc.constantFrom('neg_inf', 'renormalize', 'zero'),
  dropout: fc.constantFrom(0, 0, 0.25),
  seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
});

/** Projection weights {query, key, value, biases?, out?} for d_q → d_out and d_kv → d_out. */
function projection(dQ, dKv, dOut, { out }) {
  return fc.record({
    query: tensorOf([dQ, dOut], weight),
    key: tensorOf([dKv, dOut], weight),
    value: tensorOf([dKv, dOut], weight),
    queryBias: tensorOf([dOut], weight),
    valueBias: tensorOf([dOut], weight),
    ...(out ? { outWeight: tensorOf([dOut, dOut], weight), outBias: tensorOf([dOut], weight) } : {}),
  }, { requiredKeys: ['query', 'key', 'value'] });
}

const steps = fc.oneof(
  fc.tuple(size(1, 3), size(1, 7), size(1, 5)).chain(([B, T, C]) => fc.record({
    fn: fc.constantFrom('causalAverageLoop', 'causalAverageMatmul', 'causalAverageSoftmax'),
    args: fc.tuple(tensorOf([B, T, C])),
  })),
  fc.array(size(1, 5), { minLength: 1, maxLength: 3 }).chain((shape) => fc.record({
    fn: fc.constant('softmax'),
    args: fc.tuple(tensorOf(shape, fc.integer({ min: -128, max: 128 }).map((k) => k / 16)),
      fc.record({ normalization: fc.constantFrom('stable', 'naive'), scale: fc.constantFrom(1, 0.5, 3) })),
  })),
  fc.tuple(size(1, 2), size(1, 7), size(1, 5)).chain(([B, T, C]) => fc.record({
    fn: fc.constant('attentionWithoutWeights'),
    args: fc.tuple(tensorOf([B, T, C]), fc.record({ normalization: fc.constantFrom('stable', 'naive') })),
  })),
  fc.tuple(size(1, 2), size(1, 7), size(1, 6), size(1, 5), fc.boolean()).chain(([B, T, dIn, dOut, linear]) => fc.record({
    fn: fc.constant('selfAttention'),
    args: fc.tuple(tensorOf([B, T, dIn]),
      fc.record({ query: tensorOf(linear ? [dOut, dIn] : [dIn, dOut], weight), key: tensorOf(linear ? [dOut, dIn] : [dIn, dOut], weight),
        value: tensorOf(linear ? [dOut, dIn] : [dIn, dOut], weight) }),
      attentionOptions.map((options) => ({ ...options, layout: linear ? 'linear' : 'matrix' }))),
  })),
  fc.tuple(size(1, 2), size(1, 6)).chain(([B, T]) => fc.record({
    fn: fc.constant('attentionDropout'),
    args: fc.tuple(tensorOf([B, T, T]), fc.record({ dropout: fc.constantFrom(0, 0.1, 0.5), seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }) })),
  })),
  fc.tuple(size(1, 9), size(1, 9), size(1, 9), fc.boolean(), fc.boolean()).chain(([M, K, N, batched, transposeB]) => fc.record({
    fn: fc.constant('matmul'),
    args: fc.tuple(tensorOf(batched ? [2, M, K] : [M, K]), tensorOf(transposeB ? [N, K] : [K, N], weight), fc.constant({ transposeB })),
  })),
);

// scaledDotProductAttention: up to two leading axes, L ≠ S and Ev ≠ E allowed; no mask, isCausal, or a boolean
// (Uint8Array, 0/1, `dtype: 'uint8'` here) or float mask (k/8, sometimes −∞) of shape (L, S) or (…, L, S).
const sdpa = fc.tuple(fc.array(size(1, 2), { maxLength: 2 }), size(1, 7), size(1, 7), size(1, 5), size(1, 5),
  fc.constantFrom('none', 'causal', 'boolean', 'float'), fc.boolean())
  .chain(([lead, L, S, E, Ev, maskKind, fullMask]) => {
    const maskShape = fullMask ? [...lead, L, S] : [L, S];
    const floatMask = fc.oneof({ weight: 7, arbitrary: fc.integer({ min: -16, max: 16 }).map((k) => k / 8) }, { weight: 1, arbitrary: fc.constant('-Infinity') });
    const attnMask = maskKind === 'boolean' ? tensorOf(maskShape, fc.constantFrom(0, 1, 1)).map((mask) => ({ ...mask, dtype: 'uint8' }))
      : maskKind === 'float' ? tensorOf(maskShape, floatMask) : fc.constant(null);
    return fc.record({
      fn: fc.constant('scaledDotProductAttention'),
      args: fc.tuple(tensorOf([...lead, L, E]), tensorOf([...lead, S, E]), tensorOf([...lead, S, Ev]), fc.record({
        attnMask, isCausal: fc.constant(maskKind === 'causal'), scale: fc.constantFrom(null, 0.5, 1),
        dropoutP: fc.constantFrom(0, 0, 0.25), seed: fc.integer({ min: 0, max: 2 ** 32 - 1 }), intermediates: fc.boolean(),
      })),
    });
  });

// The multi-head functions, up to 40 tokens (several panels of 8 queries in the fused kernel).
const multihead = fc.tuple(size(1, 2), size(1, 40), size(1, 8), size(1, 3), size(1, 5), fc.boolean(), fc.boolean(), attentionOptions)
  .chain(([B, T, dIn, heads, dHead, out, intermediates, options]) => {
    const dOut = heads * dHead;
    const all = { ...options, heads, intermediates };
    return fc.oneof(
      fc.record({ fn: fc.constant('multiheadAttentionSplit'), args: fc.tuple(tensorOf([B, T, dIn]), projection(dIn, dIn, dOut, { out }), fc.constant(all)) }),
      fc.record({
        fn: fc.constant('multiheadAttentionFused'),
        args: fc.tuple(tensorOf([B, T, dIn]),
          fc.record({ inProjection: tensorOf([dIn, 3 * dOut], weight), inBias: tensorOf([3 * dOut], weight),
            ...(out ? { outWeight: tensorOf([dOut, dOut], weight) } : {}) }, { requiredKeys: ['inProjection'] }),
          fc.constant(all)),
      }),
      fc.record({
        fn: fc.constant('multiheadAttentionStacked'),
        args: fc.tuple(tensorOf([B, T, dIn]),
          fc.record({ heads: fc.array(projection(dIn, dIn, dHead, { out: false }), { minLength: heads, maxLength: heads }),
            ...(out ? { outWeight: tensorOf([dOut, dOut], weight) } : {}) }, { requiredKeys: ['heads'] }),
          fc.constant({ ...options, intermediates })),
      }),
      size(1, 40).chain((Tk) => size(1, 8).chain((dKv) => fc.record({
        fn: fc.constant('crossAttention'),
        args: fc.tuple(tensorOf([B, T, dIn]), tensorOf([B, Tk, dKv]), projection(dIn, dKv, dOut, { out }), fc.constant(all)),
      }))),
    );
  });

/** One random valid call: {fn, args}, JSON-serialisable. */
export const validCall = fc.oneof({ arbitrary: steps, weight: 1 }, { arbitrary: sdpa, weight: 1 }, { arbitrary: multihead, weight: 2 });

/** The call's arguments as the API takes them: tensor specs become Float32Array tensors (Uint8Array: dtype 'uint8'). */
export function materialise(args) {
  const walk = (value) => {
    if (Array.isArray(value)) return value.map(walk);
    if (value !== null && typeof value === 'object') {
      if (Array.isArray(value.shape) && Array.isArray(value.values)) {
        // Number('-Infinity'): a float mask's −∞ travels as text in JSON
        return { shape: [...value.shape], data: (value.dtype === 'uint8' ? Uint8Array : Float32Array).from(value.values, Number) };
      }
      return Object.fromEntries(Object.entries(value).map(([key, inner]) => [key, walk(inner)]));
    }
    return value;
  };
  return walk(args);
}

/** A result object with its tensors as plain {shape, values} (for JSON between processes). */
export function serialiseResult(result) {
  return Object.fromEntries(Object.entries(result).map(([name, value]) => [name,
    value !== null && typeof value === 'object' && ArrayBuffer.isView(value.data)
      ? { shape: value.shape, values: Array.from(value.data, (v) => (Number.isFinite(v) ? v : String(v))) }
      : value]));
}

/** The inverse of serialiseResult. */
export function deserialiseResult(result) {
  return Object.fromEntries(Object.entries(result).map(([name, value]) => [name,
    value !== null && typeof value === 'object' && Array.isArray(value.values)
      ? { shape: value.shape, data: Float32Array.from(value.values, Number) }
      : value]));
}
