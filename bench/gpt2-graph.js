// GPT-2 as ONNX graphs for onnxruntime-web, encoded at run time (onnx.js), and as TensorFlow.js ops: the same
// forward as web/src/gpt2 (tokens (1, T) int64 → logits (1, T, V)), from the same parameters (Hugging Face
// names, Conv1D (in, out) layouts). Two ONNX forms: standard opset-17 ops (LayerNormalization; attention as
// MatMul, Softmax, an additive −∞ mask; GELU's tanh formula as elementwise ops) and onnxruntime's contrib
// ops (com.microsoft.Attention, unidirectional, for the attention; FastGelu, which is GPT-2's tanh GELU).
import { encodeModel, INT64 } from './onnx.js';

const int64s = (values) => BigInt64Array.from(values.map(BigInt));

/** The ONNX model bytes of GPT-2 for T tokens; contrib: the com.microsoft Attention and FastGelu ops. */
export function gpt2OnnxModel(config, parameters, T, { contrib = false } = {}) {
  const { dModel: C, heads: H, layers, vocabSize: V, dMlp: M, layerNormEpsilon: eps } = config;
  const d = C / H;
  const initializers = [];
  const init = (name, dims, data) => { initializers.push({ name, dims, data }); return name; };
  const p = (name) => parameters[name].data;
  init('wte', [V, C], p('wte.weight'));
  init('wpe', [T, C], p('wpe.weight').subarray(0, T * C));
  const wteT = new Float32Array(C * V);
  for (let v = 0; v < V; v++) for (let c = 0; c < C; c++) wteT[c * V + v] = p('wte.weight')[v * C + c];
  init('wteT', [C, V], wteT);
  const mask = new Float32Array(T * T);
  for (let i = 0; i < T; i++) for (let j = i + 1; j < T; j++) mask[i * T + j] = -Infinity;
  if (!contrib) {
    init('mask', [T, T], mask);
    init('heads_shape', [4], int64s([1, T, H, d]));
    init('model_shape', [3], int64s([1, T, C]));
    init('split', [3], int64s([C, C, C]));
    init('scale', [], Float32Array.of(1 / Math.sqrt(d)));
    init('gelu_k', [], Float32Array.of(0.044715));
    init('gelu_c', [], Float32Array.of(Math.sqrt(2 / Math.PI)));
    init('one', [], Float32Array.of(1));
    init('half', [], Float32Array.of(0.5));
  }
  const nodes = [];
  const op = (type, inputs, outputs, attributes = {}, domain = '') => nodes.push({ op: type, inputs, outputs, attributes, domain });
  op('Gather', ['wte', 'tokens'], ['tok'], { axis: 0 });
  op('Add', ['tok', 'wpe'], ['x0']);
  let x = 'x0';
  for (let l = 0; l < layers; l++) {
    const w = (name) => init(`h${l}.${name}`, parameters[`h.${l}.${name}`].shape, p(`h.${l}.${name}`));
    const n = (name) => `l${l}_${name}`;
    op('LayerNormalization', [x, w('ln_1.weight'), w('ln_1.bias')], [n('a')], { axis: -1, epsilon: eps });
    if (contrib) {
      op('Attention', [n('a'), w('attn.c_attn.weight'), w('attn.c_attn.bias')], [n('context')], { num_heads: H, unidirectional: 1 }, 'com.microsoft');
    } else {
      op('MatMul', [n('a'), w('attn.c_attn.weight')], [n('qkv_x')]);
      op('Add', [n('qkv_x'), w('attn.c_attn.bias')], [n('qkv')]);
      op('Split', [n('qkv'), 'split'], [n('q'), n('k'), n('v')], { axis: 2 });
      for (const [part, perm] of [['q', [0, 2, 1, 3]], ['k', [0, 2, 3, 1]], ['v', [0, 2, 1, 3]]]) {
        op('Reshape', [n(part), 'heads_shape'], [n(`${part}_r`)]);
        op('Transpose', [n(`${part}_r`)], [n(`${part}_h`)], { perm });
      }
      op('MatMul', [n('q_h'), n('k_h')], [n('scores')]);
      op('Mul', [n('scores'), 'scale'], [n('scaled')]);
      op('Add', [n('scaled'), 'mask'], [n('masked')]);
      op('Softmax', [n('masked')], [n('weights')], { axis: -1 });
      op('MatMul', [n('weights'), n('v_h')], [n('context_h')]);
      op('Transpose', [n('context_h')], [n('context_t')], { perm: [0, 2, 1, 3] });
      op('Reshape', [n('context_t'), 'model_shape'], [n('context')]);
    }
    op('MatMul', [n('context'), w('attn.c_proj.weight')], [n('proj_x')]);
    op('Add', [n('proj_x'), w('attn.c_proj.bias')], [n('proj')]);
    op('Add', [x, n('proj')], [n('x1')]);
    op('LayerNormalization', [n('x1'), w('ln_2.weight'), w('ln_2.bias')], [n('m_in')], { axis: -1, epsilon: eps });
    op('MatMul', [n('m_in'), w('mlp.c_fc.weight')], [n('fc_x')]);
    if (contrib) {
      op('FastGelu', [n('fc_x'), w('mlp.c_fc.bias')], [n('gelu')], {}, 'com.microsoft');
    } else {
      op('Add', [n('fc_x'), w('mlp.c_fc.bias')], [n('fc')]);
      // 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³)))
      op('Mul', [n('fc'), n('fc')], [n('fc2')]);
      op('Mul', [n('fc2'), n('fc')], [n('fc3')]);
      op('Mul', [n('fc3'), 'gelu_k'], [n('fc3k')]);
      op('Add', [n('fc'), n('fc3k')], [n('inner')]);
      op('Mul', [n('inner'), 'gelu_c'], [n('inner_c')]);
      op('Tanh', [n('inner_c')], [n('tanh')]);
      op('Add', [n('tanh'), 'one'], [n('tanh1')]);
      op('Mul', [n('fc'), n('tanh1')], [n('gelu_2')]);
      op('Mul', [n('gelu_2'), 'half'], [n('gelu')]);
    }
    op('MatMul', [n('gelu'), w('mlp.c_proj.weight')], [n('mlp_x')]);
    op('Add', [n('mlp_x'), w('mlp.c_proj.bias')], [n('mlp')]);
    op('Add', [n('x1'), n('mlp')], [n('x2')]);
    x = n('x2');
  }
  op('LayerNormalization', [x, init('ln_f.weight', [C], p('ln_f.weight')), init('ln_f.bias', [C], p('ln_f.bias'))], ['final'], { axis: -1, epsilon: eps });
  op('MatMul', ['final', 'wteT'], ['logits']);
  return encodeModel({
    name: `gpt2_${contrib ? 'contrib' : 'standard'}_${T}`,
    nodes,
    inputs: [{ name: 'tokens', dims: [1, T], type: INT64 }],
    outputs: [{ name: 'logits', dims: [1, T, V] }],
    initializers,
    opsets: contrib ? { '': 17, 'com.microsoft': 1 } : { '': 17 },
  });
}

/** GPT-2's forward in TensorFlow.js ops (tf: the library on a backend); returns a function tokens → logits tensor. */
export function gpt2TfjsForward(tf, config, parameters) {
  const { dModel: C, heads: H, layers, layerNormEpsilon: eps } = config;
  const d = C / H;
  const t = Object.fromEntries(Object.entries(parameters).map(([name, { data, shape }]) => [name, tf.tensor(data, shape)]));
  const layerNorm = (x, name) => tf.tidy(() => {
    const { mean, variance } = tf.moments(x, -1, true);
    return x.sub(mean).div(variance.add(eps).sqrt()).mul(t[`${name}.weight`]).add(t[`${name}.bias`]);
  });
  const gelu = (x) => x.mul(0.5).mul(tf.tanh(x.add(x.pow(3).mul(0.044715)).mul(Math.sqrt(2 / Math.PI))).add(1));
  const forward = (tokens) => tf.tidy(() => {
    const T = tokens.length;
    const mask = tf.linalg.bandPart(tf.ones([T, T]), -1, 0).sub(1).mul(1e30); // 0 on and below the diagonal
    let x = tf.gather(t['wte.weight'], tf.tensor1d(tokens, 'int32')).add(t['wpe.weight'].slice([0, 0], [T, C]));
    for (let l = 0; l < layers; l++) {
      const w = (name) => t[`h.${l}.${name}`];
      const qkv = tf.matMul(layerNorm(x, `h.${l}.ln_1`), w('attn.c_attn.weight')).add(w('attn.c_attn.bias'));
      const [q, k, v] = tf.split(qkv, 3, 1).map((part) => part.reshape([T, H, d]).transpose([1, 0, 2]));
      const weights = tf.softmax(tf.matMul(q, k, false, true).mul(1 / Math.sqrt(d)).add(mask), -1);
      const context = tf.matMul(weights, v).transpose([1, 0, 2]).reshape([T, C]);
      x = x.add(tf.matMul(context, w('attn.c_proj.weight')).add(w('attn.c_proj.bias')));
      const hidden = gelu(tf.matMul(layerNorm(x, `h.${l}.ln_2`), w('mlp.c_fc.weight')).add(w('mlp.c_fc.bias')));
      x = x.add(tf.matMul(hidden, w('mlp.c_proj.weight')).add(w('mlp.c_proj.bias')));
    }
    return tf.matMul(layerNorm(x, 'ln_f'), t['wte.weight'], false, true);
  });
  return { forward, dispose: () => Object.values(t).forEach((tensor) => tensor.dispose()) };
}
