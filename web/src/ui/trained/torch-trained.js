// The PyTorch panel's lines for a trained model (model=trained, walk-inputs.js): for the shipped English model a
// header that reads its file and runs the layers before the one shown, and its projections read from that file;
// for a model carried from the Training tab, its projections written out. torch-snippets.js builds the rest.
import { MODULE_NAMES, PROJECTIONS, pyFloat, pyString, pyTensor } from '../torch-python.js';

/** Where the English model's snippets read its weights: the page's file, relative to the repository. */
export const ENGLISH_MODEL_PATH = 'web/src/model/english.safetensors';

const oneLine = (text) => String(text).replace(/[\r\n]/g, '⏎');

// model=trained with the shipped English model: the snippet reads the model's file (as the page does, float16
// restored to float32) and runs the layers before the one shown, so it carries token ids, not 128-wide matrices.
export function englishHeader(state, inputs, { query = 'x' } = {}) {
  const { layer, heads, ids } = inputs.trained;
  const lines = [
    'import json',
    'import torch',
    'torch.set_grad_enabled(False)',
    'torch.set_printoptions(precision=4, sci_mode=False)',
    '',
    `# The shipped English model (docs/model.md), read from the page's file ${ENGLISH_MODEL_PATH} by hand: an`,
    '# 8-byte header length, a JSON header, then the tensors (float16, restored to float32 as the page does).',
    `with open(${pyString(ENGLISH_MODEL_PATH)}, "rb") as f:`,
    '    n = int.from_bytes(f.read(8), "little")',
    '    header = json.loads(f.read(n))',
    '    data = bytearray(f.read())',
    'DTYPES = {"F16": torch.float16, "F32": torch.float32}',
    'P = {name: torch.frombuffer(data[a:b], dtype=DTYPES[t["dtype"]]).float().view(t["shape"])',
    '     for name, t in header.items() if name != "__metadata__" for a, b in [t["data_offsets"]]}',
    `d, n_heads = ${state.dModel}, ${heads}`,
    'dh = d // n_heads   # d_head',
    '',
    '',
    'def layer_norm(h, l):',
    '    return torch.nn.functional.layer_norm(h, (d,), P[f"blocks.{l}.ln.weight"], P[f"blocks.{l}.ln.bias"])',
    '',
    '',
    'def apply_linear(a, l, name):   # nn.Linear: a @ weight.T + bias',
    '    return a @ P[f"blocks.{l}.{name}.weight"].T + P[f"blocks.{l}.{name}.bias"]',
    '',
    '',
    'def layer_input(tokens, layer):',
    '    """The attention input of `layer` (0-based): the embeddings, through every layer before it, normalised."""',
    '    T = len(tokens)',
    '    h = P["tok_emb.weight"][tokens] + P["pos_emb.weight"][:T]',
    '    future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)',
    '    for l in range(layer):',
    '        a = layer_norm(h, l)',
    '        q, k, v = (apply_linear(a, l, p).view(T, n_heads, dh).transpose(0, 1) for p in ("q_proj", "k_proj", "v_proj"))',
    '        w = torch.softmax((q @ k.transpose(-2, -1) / dh ** 0.5).masked_fill(future, float("-inf")), dim=-1)',
    '        h = h + apply_linear((w @ v).transpose(0, 1).reshape(T, d), l, "out_proj")   # the residual stream',
    '    return layer_norm(h, layer)   # pre-LN: each layer normalises the residual stream before its attention',
    '',
    '',
    `# ${oneLine(state.sentence)}`,
    `tokens = [${ids.join(', ')}]   # in the model's tokens: ${oneLine(inputs.tokens.join(' | '))}`,
  ];
  if (query === 'x_query') {
    lines.push(`# ${oneLine(state.context)}`,
      `context_tokens = [${inputs.trained.contextIds.join(', ')}]   # ${oneLine(inputs.contextTokens.join(' | '))}`,
      `x_query = layer_input(tokens, ${layer - 1})   # (Tq, d_in): layer ${layer}'s attention input for the sentence`,
      `x_context = layer_input(context_tokens, ${layer - 1})   # (Tk, d_in): the same layer's for the context`);
  } else {
    lines.push(`x = layer_input(tokens, ${layer - 1})   # (T, d_in): layer ${layer}'s attention input`);
  }
  const [rows, cols] = inputs.x.shape;
  for (const e of state.edits.filter((edit) => (edit.matrix ?? 'x') === 'x' && edit.row < rows && edit.col < cols)) {
    lines.push(`${query}[${e.row}, ${e.col}] = ${pyFloat(e.value)}   # your edit`);
  }
  lines.push(query === 'x_query' ? 'Tq, d_in = x_query.shape\nTk = x_context.shape[0]' : 'T, d_in = x.shape');
  return lines;
}

// A trained model's q/k/v projections (model=trained, trained/walk-inputs.js), with their biases and the
// learner's edits: the shipped model's read from its file (englishHeader's P), a carried one's written out.
export function trainedWeightLines(state, inputs, editNames) {
  const linear = state.layout === 'linear';
  const { layer, head, span: [from, to], carried } = inputs.trained;
  const which = head === 0 ? `all ${to - from} rows` : `head ${head}'s rows ${from}..${to - 1}`;
  const lines = [`# W_query, W_key, W_value: ${which} of layer ${layer}'s q_proj, k_proj, v_proj (nn.Linear, with biases)`,
    `# of ${carried ? 'the model you trained on the Training tab, written out' : 'the English model'}.${state.edits.length ? ' Your edits are applied.' : ''}`,
    `d_out = ${to - from}`];
  if (!carried) lines.push(`rows = slice(${from}, ${to})`);
  PROJECTIONS.forEach((name, i) => {
    const moduleName = `blocks.${layer - 1}.${name[0]}_proj`;
    const weight = carried ? pyTensor(inputs.weights.shown[name]) : `P[${pyString(`${moduleName}.weight`)}][rows]${linear ? '' : '.T.clone()'}`;
    const bias = carried ? pyTensor(inputs.weights.bias[name]) : `P[${pyString(`${moduleName}.bias`)}][rows]`;
    if (linear) {
      lines.push(`${MODULE_NAMES[name]} = torch.nn.Linear(d_in, d_out)   # weight: (d_out, d_in), bias: (d_out)`,
        `${MODULE_NAMES[name]}.weight.copy_(${weight})`, `${MODULE_NAMES[name]}.bias.copy_(${bias})`);
    } else {
      lines.push(`${MODULE_NAMES[name]} = ${weight}   # (d_in, d_out)`, `b_${name} = ${bias}`);
    }
    if (carried) return; // the written-out numbers already hold the edits
    const [rows, cols] = inputs.weights.shown[name].shape;
    for (const e of state.edits.filter((edit) => edit.matrix === editNames[i] && edit.row < rows && edit.col < cols)) {
      lines.push(`${MODULE_NAMES[name]}${linear ? '.weight' : ''}[${e.row}, ${e.col}] = ${pyFloat(e.value)}   # your edit`);
    }
  });
  return lines;
}
