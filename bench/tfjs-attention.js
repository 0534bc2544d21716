// The attention layer both TensorFlow.js contestants time (contestants/tfjs.js on the wasm backend,
// webgpu-contestants.js on webgpu), in tf ops: causal multi-head attention with biases and an output
// projection over one sequence x (T, d). Functional forms only: the UMD core bundle has no chained ops
// such as t.reshape.

/**
 * The layer's constant tensors (weights, biases, the −∞ causal mask, 1/√d_head) and `forward(input)`, for
 * use inside tf.tidy. `local` copies an array into the caller's realm (the webgpu rows' iframe).
 * @returns {{constants: Record<string, object>, forward: (input: object) => object}}
 */
export function tfAttention(tf, { T, dModel: d, heads, weights: w }, local = (array) => array) {
  const dHead = d / heads;
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;
  const c = {
    Wq: tf.tensor2d(local(w.query), [d, d]), Wk: tf.tensor2d(local(w.key), [d, d]),
    Wv: tf.tensor2d(local(w.value), [d, d]), Wo: tf.tensor2d(local(w.out), [d, d]),
    bq: tf.tensor1d(local(w.queryBias)), bk: tf.tensor1d(local(w.keyBias)),
    bv: tf.tensor1d(local(w.valueBias)), bo: tf.tensor1d(local(w.outBias)),
    mask: tf.tensor2d(local(mask), [T, T]), scale: tf.scalar(1 / Math.sqrt(dHead)),
  };
  // (T, d) → (T, H, d_head) → (H, T, d_head)
  const splitHeads = (t) => tf.transpose(tf.reshape(t, [T, heads, dHead]), [1, 0, 2]);
  const forward = (input) => {
    const q = splitHeads(tf.add(tf.matMul(input, c.Wq), c.bq));
    const k = splitHeads(tf.add(tf.matMul(input, c.Wk), c.bk));
    const v = splitHeads(tf.add(tf.matMul(input, c.Wv), c.bv));
    const weights = tf.softmax(tf.add(tf.mul(tf.matMul(q, k, false, true), c.scale), c.mask));
    // (H, T, d_head) → (T, H, d_head) → (T, d)
    const context = tf.reshape(tf.transpose(tf.matMul(weights, v), [1, 0, 2]), [T, d]);
    return tf.add(tf.matMul(context, c.Wo), c.bo);
  };
  return { constants: c, forward };
}
