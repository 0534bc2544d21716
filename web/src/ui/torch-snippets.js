// The PyTorch panel of every step: a complete, runnable snippet (imports, seed, inputs, what the step
// shows) that prints the page's numbers for the current state. `npm run fixtures` runs each step's
// snippet at its default state under torch 1.13 and records its text, its output and its variables
// (tests/fixtures/torchSnippets.json); tests/unit/torch-snippets.test.js checks the page still writes
// that text and computes those numbers. Pure text building: no DOM, no attention math.
import { lowbias32 } from '../core/random.js';
import { CLASSIC_EMBEDDINGS } from './inputs.js';
import { MODULE_NAMES, PROJECTIONS, pyFloat, pyString, pyTensor } from './torch-python.js';
import { englishHeader, trainedWeightLines } from './trained/torch-trained.js';
import { completeConfig, demoSettings } from './training/config.js';
import { tokenizeText } from '../train/tasks.js';

export { pyFloat, pyString, pyTensor };

function isClassic(tokens, dModel) {
  return dModel === 3 && tokens.every((word) => CLASSIC_EMBEDDINGS.has(word.toLowerCase()));
}

// The first lines of every snippet that uses x: imports, print options, the embeddings.
function header(state, inputs) {
  if (inputs.trained && !inputs.trained.carried) return englishHeader(state, inputs);
  const classic = isClassic(inputs.tokens, state.dModel);
  const source = inputs.trained
    ? `layer ${inputs.trained.layer}'s attention input of the model you trained (the page's numbers), written out`
    : classic
      ? "the book's 3-d embeddings of the sentence"
      : 'the page\'s seeded embeddings, written out';
  return [
    'import torch',
    'torch.set_grad_enabled(False)',
    'torch.set_printoptions(precision=4, sci_mode=False)',
    '',
    `# x: ${source}, (T=${inputs.tokens.length}, d_in=${state.dModel})`,
    `x = ${pyTensor(inputs.x, { labels: inputs.tokens })}`,
    'T, d_in = x.shape',
  ];
}


// The seeded weights, as the page makes them (inputs.js projectionWeights), with the learner's edits.
function weightLines(state, { editNames = ['Wq', 'Wk', 'Wv'], inputs = null } = {}) {
  if (inputs?.trained) return trainedWeightLines(state, inputs, editNames);
  const linear = state.layout === 'linear';
  const lines = [`d_out = ${state.dOut}`, `torch.manual_seed(${state.seed})`];
  for (const name of PROJECTIONS) {
    lines.push(linear
      ? `${MODULE_NAMES[name]} = torch.nn.Linear(d_in, d_out, bias=False)   # weight: (d_out, d_in)`
      : `${MODULE_NAMES[name]} = torch.rand(d_in, d_out)`);
  }
  PROJECTIONS.forEach((name, i) => {
    for (const e of state.edits.filter((edit) => edit.matrix === editNames[i])) {
      if (e.row >= (linear ? state.dOut : state.dModel) || e.col >= (linear ? state.dModel : state.dOut)) continue;
      lines.push(`${MODULE_NAMES[name]}${linear ? '.weight' : ''}[${e.row}, ${e.col}] = ${pyFloat(e.value)}   # your edit`);
    }
  });
  return lines;
}

// x·W (or nn.Linear's x·Wᵀ); a trained model's matrix layout adds its bias.
function project(state, name, input = 'x', inputs = null) {
  if (state.layout === 'linear') return `${MODULE_NAMES[name]}(${input})`;
  return inputs?.trained ? `(${input} @ ${MODULE_NAMES[name]} + b_${name})` : `${input} @ ${MODULE_NAMES[name]}`;
}

// " / d_k ** 0.5", with the temperature, as the page's scale and temperature controls say.
function scaleText(state, dk) {
  const t = state.temperature === 1 ? null : pyFloat(state.temperature);
  if (state.scale) return t ? ` / (${dk} ** 0.5 * ${t})` : ` / ${dk} ** 0.5`;
  return t ? ` / ${t}` : '';
}

const FUTURE = 'future = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)   # True above the diagonal';

/** Dropout's keep mask as the core draws it (docs/api.md): u(seed, i) ≥ p for the flat index i. */
export function dropoutKeepMask(seed, p, rows, cols) {
  const data = new Float32Array(rows * cols);
  const seedHash = lowbias32(seed);
  for (let i = 0; i < data.length; i++) {
    const u = (lowbias32((i ^ seedHash) >>> 0) >>> 8) / 16777216;
    data[i] = u >= p ? 1 : 0;
  }
  return { data, shape: [rows, cols] };
}

function normalizationLines(state) {
  switch (state.normalization) {
    case 'naive': return ['weights = scores.exp() / scores.exp().sum(dim=-1, keepdim=True)   # overflows for scores above ~88'];
    case 'sum': return ['weights = scores / scores.sum(dim=-1, keepdim=True)   # not a distribution for negative scores'];
    default: return ['weights = torch.softmax(scores, dim=-1)   # subtracts each row\'s max first'];
  }
}

function maskLines(state) {
  const scale = scaleText(state, 'd_k');
  const lines = ['d_k = key.shape[-1]', `scaled = scores${scale}`,
    'unmasked = torch.softmax(scaled, dim=-1)   # the weights before the mask', 'print(unmasked)', FUTURE];
  if (state.mask === 'renormalize') {
    lines.push('masked = unmasked.masked_fill(future, 0.0)', 'weights = masked / masked.sum(dim=-1, keepdim=True)   # renormalise each row');
  } else if (state.mask === 'zero') {
    lines.push('masked = scaled.masked_fill(future, 0.0)', 'weights = torch.softmax(masked, dim=-1)   # the mistake: exp(0) = 1, the future leaks in');
  } else {
    lines.push('masked = scaled.masked_fill(future, float("-inf"))', 'weights = torch.softmax(masked, dim=-1)');
  }
  return lines;
}

function projectLines(state, inputs) {
  return PROJECTIONS.map((name) => `${name} = ${project(state, name, 'x', inputs)}   # (T, d_out)`);
}

// Step 10 with a model's weights: one big projection split into heads (the weights come written out).
function multiheadSplitSnippet(state, inputs) {
  const lines = [...header(state, inputs), ...weightLines(state, { inputs }), '',
    `B, H = 1, ${state.heads}`,
    'd_head = d_out // H',
    'xb = x.unsqueeze(0)   # (B, T, d_in)',
    ...PROJECTIONS.map((name) => `${name[0]} = ${project(state, name, 'xb', inputs)}.view(B, T, H, d_head).transpose(1, 2)   # (B, H, T, d_head)`),
    'scores = q @ k.transpose(-2, -1)   # (B, H, T, T)'];
  if (state.causal) lines.push(FUTURE, 'scores = scores.masked_fill(future, float("-inf"))');
  lines.push(`weights = torch.softmax(scores${scaleText(state, 'd_head')}, dim=-1)`,
    'context = (weights @ v).transpose(1, 2).reshape(B, T, d_out)   # (B, H, T, d_head) -> (B, T, d_out)',
    'print(weights)', 'print(context)');
  return lines.join('\n');
}

/**
 * Each step's snippet, keyed by step id: ({state, inputs, fixture}) → text. `checks` lists, per step,
 * the Python variables the fixture records and the page's tensor each must equal.
 */
export const SNIPPETS = {
  framing({ state }) {
    return [
      `sentence = ${pyString(state.sentence)}`,
      'words = sentence.split()',
      `T = ${Math.max(2, state.T)}`,
      'tokens = [words[t % len(words)] for t in range(T)]   # T tokens give T-1 pairs',
      'vocabulary = {}',
      'ids = [vocabulary.setdefault(word.lower(), len(vocabulary)) for word in tokens]',
      'contexts, targets = ids[:-1], ids[1:]',
      'for t in range(T - 1):',
      '    print(tokens[:t + 1], "->", tokens[t + 1])',
    ].join('\n');
  },
  loop({ state, inputs }) {
    return [...header(state, inputs), '',
      'y = torch.zeros_like(x)',
      'for t in range(T):',
      '    for c in range(d_in):',
      '        y[t, c] = x[:t + 1, c].sum() / (t + 1)   # the mean of rows 0..t',
      'print(y)'].join('\n');
  },
  matmul({ state, inputs }) {
    return [...header(state, inputs), '',
      'weights = torch.tril(torch.ones(T, T))',
      'weights = weights / weights.sum(dim=1, keepdim=True)   # rows 1, 1/2 1/2, 1/3 1/3 1/3, …',
      'y = weights @ x',
      'print(weights)', 'print(y)'].join('\n');
  },
  softmax({ state, inputs }) {
    return [...header(state, inputs), '',
      'scores = torch.zeros(T, T)', FUTURE,
      'masked = scores.masked_fill(future, float("-inf"))',
      'weights = torch.softmax(masked, dim=-1)   # exp(-inf) = 0: the same rows as the matrix average',
      'y = weights @ x',
      'print(weights)', 'print(y)'].join('\n');
  },
  'self-attention'({ state, inputs }) {
    return [...header(state, inputs), '',
      'scores = x @ x.T   # (T, T): token i · token j',
      ...normalizationLines(state),
      'context = weights @ x',
      'print(weights)', 'print(context)'].join('\n');
  },
  weights({ state, inputs }) {
    const linear = state.layout === 'linear';
    return [...header(state, inputs), ...weightLines(state, { inputs }), '',
      ...projectLines(state, inputs),
      'scores = query @ key.T',
      'd_k = key.shape[-1]',
      `weights = torch.softmax(scores${scaleText(state, 'd_k')}, dim=-1)`,
      'context = weights @ value',
      `print(${linear ? 'W_query.weight' : 'W_query'})`, 'print(weights)', 'print(context)',
      linear
        ? '# the matrix layout: the same numbers transposed, used as x @ W, give the same query'
        : '# nn.Linear stores (d_out, d_in) and computes x @ weight.T: the transposed matrix gives the same query',
      ...(linear
        ? [`print(torch.allclose(x @ W_query.weight.T${inputs.trained ? ' + W_query.bias' : ''}, query))`]
        : [`linear = torch.nn.Linear(d_in, d_out${inputs.trained ? '' : ', bias=False'})`, 'linear.weight.copy_(W_query.T)',
          ...(inputs.trained ? ['linear.bias.copy_(b_query)'] : []), 'print(torch.allclose(linear(x), query))']),
      '',
      '# why the scale: a softmax of large scores is nearly one-hot',
      'example = torch.tensor([0.0, 1.0, 2.0, 3.0, 10.0])',
      'print(torch.softmax(example, dim=-1), torch.softmax(example / 64 ** 0.5, dim=-1))'].join('\n');
  },
  causal({ state, inputs }) {
    return [...header(state, inputs), ...weightLines(state, { inputs }), '',
      ...projectLines(state, inputs),
      'scores = query @ key.T',
      ...maskLines(state),
      'context = weights @ value',
      'print(weights)', 'print(context)'].join('\n');
  },
  dropout({ state, inputs }) {
    const T = inputs.tokens.length;
    const lines = [...header(state, inputs), ...weightLines(state, { inputs }), '',
      ...projectLines(state, inputs),
      'scores = query @ key.T',
      'd_k = key.shape[-1]',
      'scaled = scores / d_k ** 0.5'];
    if (state.causal) lines.push(FUTURE, 'scaled = scaled.masked_fill(future, float("-inf"))');
    lines.push('weights = torch.softmax(scaled, dim=-1)', '');
    if (state.dropoutRng === 'torch') {
      lines.push(`dropout = torch.nn.Dropout(${pyFloat(state.dropout)})   # a module is in training mode: it drops`,
        `torch.manual_seed(${state.dropoutSeed})`,
        'mask = dropout(torch.ones(T, T))   # which weights it keeps, scaled by 1/(1-p)',
        `torch.manual_seed(${state.dropoutSeed})`,
        'dropped = dropout(weights)   # the same draw on the weights',
        'print(mask)');
    } else {
      const keep = dropoutKeepMask(state.dropoutSeed, state.dropout, T, T);
      lines.push(
        '# The page draws this mask from its counter-based generator (docs/api.md: keep element i when',
        '# u(seed, i) >= p), not from torch\'s, so it comes in as a tensor. 1 = kept, 0 = dropped.',
        `p = ${pyFloat(state.dropout)}`,
        `keep = ${pyTensor(keep)}   # dropout seed ${state.dropoutSeed}`,
        'mask = keep / (1 - p)',
        'dropped = weights * mask   # what torch.nn.Dropout(p) does with its own mask');
    }
    lines.push('context = dropped @ value', 'print(dropped)', 'print(context)');
    return lines.join('\n');
  },
  check({ state, inputs, fixture }) {
    return [...header(state, inputs), ...weightLines(state, { inputs }), '',
      'xb = x.unsqueeze(0)   # (B, T, d_in), B = 1',
      `query, key, value = ${PROJECTIONS.map((name) => project(state, name, 'xb', inputs)).join(', ')}`,
      'scores = query @ key.transpose(-2, -1) / key.shape[-1] ** 0.5',
      FUTURE,
      'weights = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1)',
      'output = weights @ value',
      ...(inputs.trained
        ? ['# Away from the PyTorch fixture\'s inputs, the page compares every backend with its JS reference: this output.']
        : [`# At the defaults these are the inputs of the fixture case "${fixture.name}":`, '# every backend on the page is compared with this output.']),
      'print(output)'].join('\n');
  },
  multihead({ state, inputs }) {
    if (inputs.trained) return multiheadSplitSnippet(state, inputs);
    const linear = state.layout === 'linear';
    const lines = [...header(state, inputs), '',
      '# The book\'s MultiHeadAttentionWrapper (3.6.1): each head its own causal attention, its own weights,',
      '# drawn head by head (W_query, W_key, W_value of head 0, then of head 1, ...), outputs concatenated.',
      `d_out, H = ${state.dOut}, ${state.heads}`,
      'd_head = d_out // H',
      `torch.manual_seed(${state.seed})`,
      linear
        ? 'heads = [[torch.nn.Linear(d_in, d_head, bias=False) for _ in range(3)] for _ in range(H)]   # weight: (d_head, d_in)'
        : 'heads = [[torch.rand(d_in, d_head) for _ in range(3)] for _ in range(H)]   # (d_in, d_head)'];
    ['Wq', 'Wk', 'Wv'].forEach((name, i) => {
      for (const e of state.edits.filter((edit) => edit.matrix === name)) {
        const [row, col] = linear ? [e.row, e.col] : [e.col, e.row]; // row within d_out, col within d_in
        if (row >= state.dOut || col >= state.dModel) continue;
        const head = Math.floor(row / (state.dOut / state.heads));
        const within = row % (state.dOut / state.heads);
        lines.push(linear
          ? `heads[${head}][${i}].weight[${within}, ${col}] = ${pyFloat(e.value)}   # your edit`
          : `heads[${head}][${i}][${col}, ${within}] = ${pyFloat(e.value)}   # your edit`);
      }
    });
    lines.push('xb = x.unsqueeze(0)   # (B, T, d_in), B = 1');
    if (state.causal) lines.push(FUTURE);
    lines.push('weights, contexts = [], []',
      'for W_query, W_key, W_value in heads:',
      `    q, k, v = ${linear ? 'W_query(xb), W_key(xb), W_value(xb)' : 'xb @ W_query, xb @ W_key, xb @ W_value'}   # (B, T, d_head)`,
      '    scores = q @ k.transpose(1, 2)   # (B, T, T)');
    if (state.causal) lines.push('    scores = scores.masked_fill(future, float("-inf"))');
    lines.push(`    w = torch.softmax(scores${scaleText(state, 'd_head')}, dim=-1)`,
      '    weights.append(w)',
      '    contexts.append(w @ v)',
      'weights = torch.stack(weights, dim=1)   # (B, H, T, T)',
      'context = torch.cat(contexts, dim=-1)   # (B, T, d_out): the heads side by side',
      'print(weights)', 'print(context)');
    return lines.join('\n');
  },
  cross({ state, inputs }) {
    const classic = isClassic(inputs.tokens, state.dModel);
    const english = inputs.trained && !inputs.trained.carried;
    const source = inputs.trained ? `layer ${inputs.trained.layer}'s attention input of the model you trained, written out`
      : classic ? "the book's 3-d embeddings of the sentence" : "the page's seeded embeddings, written out";
    const start = english ? englishHeader(state, inputs, { query: 'x_query' }) : ['import torch', 'torch.set_grad_enabled(False)', 'torch.set_printoptions(precision=4, sci_mode=False)', '',
      `# x_query: ${source}, (Tq=${inputs.tokens.length}, d_in=${state.dModel})`,
      `x_query = ${pyTensor(inputs.x, { labels: inputs.tokens })}`,
      `# x_context: ${inputs.trained ? 'the same layer\'s attention input for the context sentence' : "the page's seeded embeddings of the context sentence"}, written out, (Tk=${inputs.contextTokens.length}, d_in=${state.dModel})`,
      `x_context = ${pyTensor(inputs.xContext, { labels: inputs.contextTokens })}`,
      'Tq, d_in = x_query.shape',
      'Tk = x_context.shape[0]'];
    return [...start,
      ...weightLines(state, { editNames: ['crossWq', 'crossWk', 'crossWv'], inputs: inputs.trained ? { ...inputs, weights: inputs.crossWeights } : null }), '',
      `B, H = 1, ${state.heads}`,
      'd_head = d_out // H',
      `q = ${project(state, 'query', 'x_query.unsqueeze(0)', inputs)}.view(B, Tq, H, d_head).transpose(1, 2)   # (B, H, Tq, d_head)`,
      `k = ${project(state, 'key', 'x_context.unsqueeze(0)', inputs)}.view(B, Tk, H, d_head).transpose(1, 2)   # (B, H, Tk, d_head)`,
      `v = ${project(state, 'value', 'x_context.unsqueeze(0)', inputs)}.view(B, Tk, H, d_head).transpose(1, 2)`,
      `weights = torch.softmax(q @ k.transpose(-2, -1)${scaleText(state, 'd_head')}, dim=-1)   # (B, H, Tq, Tk), no mask`,
      'output = (weights @ v).transpose(1, 2).reshape(B, Tq, d_out)',
      'print(weights)', 'print(output)'].join('\n');
  },
  learn: (context) => learnSnippet(context),
};

// Step 12's batches, as makeBatch (web/src/train/tasks.js) draws them for the task, in Python.
const LEARN_BATCH = {
  text: [
    'def batch(step):   # B windows of T + 1 words at random offsets; the sentence wraps around at its end',
    '    uniform = mulberry32(lowbias32(lowbias32(seed) ^ step))',
    '    n = len(tokens)',
    '    rows = []',
    '    for _ in range(B):',
    '        start = math.floor(uniform() * n)',
    '        rows.append([tokens[(start + t) % n] for t in range(T + 1)])',
    '    s = torch.tensor(rows)',
    '    return s[:, :-1], s[:, 1:]   # inputs, targets: the next word',
  ],
  previous: [
    'def batch(step):   # random tokens; the target at t is the token at t - 1',
    '    uniform = mulberry32(lowbias32(lowbias32(seed) ^ step))',
    '    s = torch.tensor([[math.floor(uniform() * V) for t in range(T + 1)] for _ in range(B)])',
    '    targets = torch.cat([torch.full((B, 1), -100), s[:, :T - 1]], dim=1)',
    '    return s[:, :T], targets',
  ],
  sequence: [
    'def batch(step):   # a (tokens 1..V-1), the separator 0, then a TASK; only the answer is predicted',
    '    uniform = mulberry32(lowbias32(lowbias32(seed) ^ step))',
    '    half = T // 2',
    '    rows, masks = [], []',
    '    for _ in range(B):',
    '        a = [1 + math.floor(uniform() * (V - 1)) for _ in range(half)]',
    '        s = a + [0] + ANSWER + [0] * (T + 1 - 2 * half - 1)',
    '        rows.append(s)',
    '        masks.append([t < half or t >= 2 * half for t in range(T)])',
    '    s = torch.tensor(rows)',
    '    targets = s[:, 1:].masked_fill(torch.tensor(masks), -100)',
    '    return s[:, :T], targets',
  ],
};
const LEARN_ANSWER = { copy: ['copied', 'a'], reverse: ['reversed', 'a[::-1]'], sort: ['sorted', 'sorted(a)'] };

function learnSnippet({ state }) {
  let config;
  try {
    config = completeConfig(demoSettings(state));
  } catch (error) {
    return `# Step 12 cannot train on this state: ${error.message}.`;
  }
  const text = config.task === 'text';
  const lines = [
    `# Step 12: a one-layer, one-head attention-only transformer learns ${text ? 'the next word of the sentence' : `the '${config.task}' task`},`,
    `# as the page's demo trains it: AdamW (lr ${config.lr}, weight decay ${config.wd}), batch ${config.batch}, ${config.steps} steps.`,
    '# Its parameters start from the page\'s own seeded init (docs/api.md "Training"), not torch\'s, and its',
    '# batches are the page\'s (web/src/train/tasks.js): both are drawn below with the page\'s random streams,',
    '# so the losses follow the page\'s curve (the page\'s float32 sums round differently in the last digits).',
    'import math',
    'import torch',
    'import torch.nn as nn',
    'import torch.nn.functional as F',
    'torch.set_grad_enabled(True)',
    'torch.set_num_threads(1)',
    '',
    '',
    'class Block(nn.Module):',
    '    def __init__(s, d, H):',
    '        super().__init__(); s.H = H',
    '        s.q_proj, s.k_proj, s.v_proj, s.out_proj = (nn.Linear(d, d) for _ in range(4))',
    '',
    '    def forward(s, h):',
    '        B, T, d = h.shape; dh = d // s.H',
    '        q, k, v = (p(h).view(B, T, s.H, dh).transpose(1, 2) for p in (s.q_proj, s.k_proj, s.v_proj))',
    '        w = torch.softmax((q @ k.transpose(-2, -1) / dh ** 0.5)',
    "                          .masked_fill(~torch.tril(torch.ones(T, T, dtype=torch.bool)), float('-inf')), -1)",
    '        return h + s.out_proj((w @ v).transpose(1, 2).reshape(B, T, d))',
    '',
    '',
    'class AttentionOnly(nn.Module):',
    '    def __init__(s, V, T, d, H, L):',
    '        super().__init__()',
    '        s.tok_emb, s.pos_emb = nn.Embedding(V, d), nn.Embedding(T, d)',
    '        s.blocks = nn.ModuleList(Block(d, H) for _ in range(L))',
    '        s.unembed = nn.Linear(d, V)',
    '',
    '    def forward(s, tokens):',
    '        h = s.tok_emb(tokens) + s.pos_emb(torch.arange(tokens.shape[1]))',
    '        for b in s.blocks: h = b(h)',
    '        return s.unembed(h)',
    '',
    '',
    '# The page\'s random streams (web/src/core/random.js), in 32-bit unsigned arithmetic.',
    'M = 0xFFFFFFFF',
    '',
    '',
    'def lowbias32(x):',
    '    x &= M; x ^= x >> 16; x = (x * 0x7FEB352D) & M; x ^= x >> 15; x = (x * 0x846CA68B) & M',
    '    return x ^ (x >> 16)',
    '',
    '',
    'def mulberry32(seed):',
    '    state = seed & M',
    '',
    '    def uniform():',
    '        nonlocal state',
    '        state = (state + 0x6D2B79F5) & M',
    '        t = ((state ^ (state >> 15)) * (state | 1)) & M',
    '        t ^= (t + ((t ^ (t >> 7)) * (t | 61))) & M',
    '        return (t ^ (t >> 14)) / 4294967296',
    '    return uniform',
    '',
    '',
  ];
  if (text) {
    const { vocabulary, tokens } = tokenizeText(config.text);
    lines.push(`vocabulary = [${vocabulary.map(pyString).join(', ')}]`,
      `tokens = [${Array.from(tokens).join(', ')}]   # the sentence, word by word`);
  }
  lines.push(`V, T, d, H, L = ${config.vocabSize}, ${config.context}, ${config.dModel}, ${config.heads}, ${config.layers}`,
    `seed, B, steps = ${config.seed}, ${config.batch}, ${config.steps}`,
    '',
    'model = AttentionOnly(V, T, d, H, L)',
    '# The page\'s init: biases 0; every other parameter, in state_dict order, N(0, 0.02²) from one',
    '# mulberry32(seed) stream by Box-Muller (u1 = 1 - next(), u2 = next()), rounded to float32.',
    'uniform = mulberry32(seed)',
    'with torch.no_grad():',
    '    for name, p in model.named_parameters():',
    "        if name.endswith('bias'):",
    '            p.zero_()',
    '            continue',
    '        values = []',
    '        for _ in range(p.numel()):',
    '            u1, u2 = 1 - uniform(), uniform()',
    '            values.append(0.02 * math.sqrt(-2 * math.log(u1)) * math.cos(2 * math.pi * u2))',
    '        p.copy_(torch.tensor(values).view(p.shape))',
    '',
    '');
  if (text) lines.push(...LEARN_BATCH.text);
  else if (config.task === 'previous') lines.push(...LEARN_BATCH.previous);
  else {
    const [word, answer] = LEARN_ANSWER[config.task];
    lines.push(...LEARN_BATCH.sequence.map((line) => line.replace('TASK', word).replace('ANSWER', `${answer}`)));
  }
  lines.push('',
    '',
    `opt = torch.optim.AdamW(model.parameters(), lr=${config.lr}, weight_decay=${config.wd})`,
    'for step in range(steps):',
    '    inputs, targets = batch(step)   # (B, T) each',
    '    logits = model(inputs)           # (B, T, V)',
    '    loss = F.cross_entropy(logits.reshape(-1, V), targets.reshape(-1), ignore_index=-100)',
    '    opt.zero_grad(); loss.backward(); opt.step()',
    '    if step == 0 or (step + 1) % 20 == 0:',
    "        print(f'step {step + 1:3d}  loss {loss.item():.4f}')");
  if (text) {
    lines.push('',
      'with torch.no_grad():   # what the trained model predicts after each word of the sentence',
      '    predicted = model(torch.tensor([tokens[:T]])).argmax(-1)[0]',
      'for t in range(min(T, len(tokens))):',
      "    print(f'{vocabulary[tokens[t]]:>12} -> {vocabulary[predicted[t]]}')");
  }
  return lines.join('\n');
}

/**
 * Per step: the snippet's variables the fixture records, each with the name of the page's tensor it
 * equals (step 1 compares the pairs' ids).
 */
export const SNIPPET_CHECKS = {
  framing: [['contexts', 'pairs.contexts'], ['targets', 'pairs.targets']],
  loop: [['y', 'output']],
  matmul: [['weights', 'weights'], ['y', 'output']],
  softmax: [['weights', 'weights'], ['y', 'output']],
  'self-attention': [['scores', 'scores'], ['weights', 'weights'], ['context', 'output']],
  weights: [['query', 'query'], ['weights', 'weights'], ['context', 'output']],
  causal: [['unmasked', 'weights before the mask'], ['weights', 'weights'], ['context', 'output']],
  dropout: [['mask', 'dropout(ones)'], ['weights', 'weights'], ['dropped', 'dropped'], ['context', 'output']],
  check: [['output', 'PyTorch output']],
  multihead: [['weights', 'weights'], ['context', 'context (split heads)']],
  cross: [['weights', 'weights'], ['output', 'output']],
  // Step 12 trains in the page; its run returns no tensors, and the snippet prints its losses.
  learn: [],
};
