// The lesson, as data: one entry per curriculum step (DESIGN.md), rendered by the one stepper.
// Each step names its formula (TeX), the regions of the C++ teaching files its C++ panel shows (marked
// `// region: name` … `// endregion` in cpp/attention/*.cpp, extracted at build time by cpp-regions.js),
// its runnable PyTorch snippet (torch-snippets.js), the controls that apply, and a `run` that calls the
// core API and picks the named intermediates to show. `run` never computes attention math itself:
// every number on screen comes back from the core.
import { bookSplitWeights, columns, transposed } from './inputs.js';
import { SNIPPETS, SNIPPET_CHECKS } from './torch-snippets.js';

// A shown tensor: `rows`/`cols` label the last two axes with tokens; `kind` picks the colour map
// ('signed' diverging, 'weights' sequential 0..1, 'ids' token ids, sequential over the vocabulary `words` and written as integers); `causal` marks the future cells as masked;
// `hover` names sibling tensors whose values the weights' tooltip explains; `panels` draws the
// first axis (the heads) side by side.
// `axes` names the last axes; a leading batch or head axis the core returns is named here too.
function show(name, tensor, extra = {}) {
  const view = { name, tensor, kind: 'signed', ...extra };
  const rank = tensor.shape.length;
  if (view.axes && rank > view.axes.length) {
    const leading = rank - view.axes.length;
    const tokenPair = ['T', 'Tk'].includes(view.axes[view.axes.length - 1]);
    view.axes = [...(tokenPair ? ['B', 'H'].slice(-leading) : ['B', 'H'].slice(0, leading)), ...view.axes];
  }
  return view;
}

function attentionOptions(state, extra = {}) {
  return { scale: state.scale, temperature: state.temperature, ...extra };
}

// The projection weights a step takes as inputs, as PyTorch stores them (inputs.js projectionWeights):
// torch.rand's (d_in, d_out) matrices, or nn.Linear's (d_out, d_in) `.weight`. Each is editable under
// its name in the state's edits (state.js EDITABLE_MATRICES): Wq, Wk, Wv, or cross-attention's own.
function weightViews(weights, { cross = false } = {}) {
  const suffix = cross ? ' (cross)' : '';
  const edits = cross ? ['crossWq', 'crossWk', 'crossWv'] : ['Wq', 'Wk', 'Wv'];
  const linear = weights.layout === 'linear';
  const axes = linear ? ['d_out', 'd_in'] : ['d_in', 'd_out'];
  // A trained model's projections (d_in 128) are thumbnails that open on a click, and carry biases
  // (Q = X·W_q + b_q), shown beside the weights, not editable.
  const trained = Boolean(weights.bias);
  const views = ['query', 'key', 'value'].map((name, i) => show(
    `W_${name}${linear ? '.weight' : ''}${suffix}`, weights.shown[name], { editable: edits[i], axes, thumb: trained },
  ));
  if (trained) views.push(...['query', 'key', 'value'].map((name) => show(`b_${name}${suffix}`, weights.bias[name], { axes: ['d_out'], thumb: true })));
  return views;
}

// The biases of a projection ({query, key, value, queryBias?, …}), cut to columns [from, to) like its weights.
function biasColumns(projection, from, to) {
  const cut = {};
  for (const name of ['queryBias', 'keyBias', 'valueBias']) {
    if (projection[name]) cut[name] = { data: projection[name].data.slice(from, to), shape: [to - from] };
  }
  return cut;
}

// Axis names, the same on every step: T tokens, d_in embedding size, d_out projection size; Tq and Tk
// on step 11, where queries and keys come from different sentences; H heads.
const TOKENS_D_IN = ['T', 'd_in'];
const TOKENS_D_OUT = ['T', 'd_out'];
const TOKENS_TOKENS = ['T', 'T'];

const SCALE_EXAMPLE = { data: Float32Array.from([0, 1, 2, 3, 10]), shape: [5] };

// Step 9: whether a call's arguments are exactly a fixture case's (same function, shapes, values and options).
function sameCall(fixture, fn, args) {
  const same = (a, b) => {
    if (a?.data && b?.data) return a.shape.join() === b.shape.join() && a.data.length === b.data.length && a.data.every((v, i) => Object.is(v, b.data[i]));
    if (a && b && typeof a === 'object' && typeof b === 'object') {
      const keys = Object.keys(a);
      return keys.length === Object.keys(b).length && keys.every((k) => same(a[k], b[k]));
    }
    return Object.is(a, b);
  };
  return fixture.function === fn && same(fixture.args, args);
}

// Step 9's timing: the computation alone, the median of five calls (the backend is loaded and warm).
async function medianMs(call) {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const started = performance.now();
    await call();
    times.push(performance.now() - started);
  }
  return times.sort((a, b) => a - b)[2];
}

export const STEPS = [
  {
    id: 'framing',
    cpp: ['next-token-pairs'],
    torch: SNIPPETS['framing'],
    torchChecks: SNIPPET_CHECKS['framing'],
    controls: ['sentence', 'T'],
    formula: String.raw`\text{context}_t = (x_0, \dots, x_t) \;\longrightarrow\; \text{target}_t = x_{t+1}, \qquad t = 0, \dots, T-2`,
    async run({ api, inputs }) {
      const tokens = { data: inputs.framingIds, shape: [1, inputs.framingIds.length] };
      const result = await api.nextTokenPairs(tokens);
      // The same ids as tensors with their shapes: (B, T−1) each, column t for position t.
      const ids = (tensor) => ({ data: Float32Array.from(tensor.data), shape: tensor.shape });
      return {
        pairs: { contexts: result.contexts, targets: result.targets, vocabulary: inputs.framingVocabulary },
        tensors: [
          show('contexts (last token of each context)', ids(result.contexts), { axes: ['B', 'T−1'], kind: 'ids', words: inputs.framingVocabulary }),
          show('targets', ids(result.targets), { axes: ['B', 'T−1'], kind: 'ids', words: inputs.framingVocabulary }),
        ],
      };
    },
  },
  {
    id: 'loop',
    cpp: ['causal-average-loop'],
    torch: SNIPPETS['loop'],
    torchChecks: SNIPPET_CHECKS['loop'],
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`y_{t} = \frac{1}{t+1} \sum_{s=0}^{t} x_{s}`,
    async run({ api, inputs }) {
      const result = await api.causalAverageLoop(inputs.x);
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x', axes: TOKENS_D_IN }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_IN }),
        ],
      };
    },
  },
  {
    id: 'matmul',
    cpp: ['causal-average-matmul', 'apply-to-each-batch'],
    torch: SNIPPETS['matmul'],
    torchChecks: SNIPPET_CHECKS['matmul'],
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`W = \frac{\operatorname{tril}(\mathbf{1}_{T\times T})}{\text{row sums}}, \qquad Y = W X`,
    async run({ api, inputs }) {
      const result = await api.causalAverageMatmul(inputs.x);
      const loop = await api.causalAverageLoop(inputs.x);
      return {
        tensors: [
          show('weights', result.weights, { rows: inputs.tokens, cols: inputs.tokens, kind: 'weights', axes: TOKENS_TOKENS }),
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x', axes: TOKENS_D_IN }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_IN }),
        ],
        checks: [{ name: 'loopEqualsMatmul', comparison: await api.compare(result.output, loop.output) }],
      };
    },
  },
  {
    id: 'softmax',
    cpp: ['causal-average-softmax'],
    torch: SNIPPETS['softmax'],
    torchChecks: SNIPPET_CHECKS['softmax'],
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`W = \operatorname{softmax}\!\Big(\begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}\Big), \qquad Y = W X`,
    async run({ api, inputs }) {
      const result = await api.causalAverageSoftmax(inputs.x);
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, axes: TOKENS_TOKENS };
      return {
        tensors: [
          show('scores', result.scores, tokens),
          show('masked', result.masked, { ...tokens, causal: true }),
          show('weights', result.weights, { ...tokens, kind: 'weights', causal: true }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_IN }),
        ],
      };
    },
  },
  {
    id: 'self-attention',
    cpp: ['attention-without-weights'],
    torch: SNIPPETS['self-attention'],
    torchChecks: SNIPPET_CHECKS['self-attention'],
    controls: ['sentence', 'T', 'dModel', 'seed', 'normalization'],
    formula: String.raw`S = X X^{\top}, \qquad W_{ij} = \frac{e^{S_{ij} - \max_k S_{ik}}}{\sum_k e^{S_{ik} - \max_k S_{ik}}}, \qquad Z = W X`,
    async run({ api, inputs, state }) {
      const result = await api.attentionWithoutWeights(inputs.x, { normalization: state.normalization });
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, axes: TOKENS_TOKENS };
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x', axes: TOKENS_D_IN }),
          show('scores', result.scores, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { query: inputs.x, key: inputs.x, scores: result.scores } }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_IN }),
        ],
      };
    },
  },
  {
    id: 'weights',
    cpp: ['self-attention', 'scores-scale', 'softmax-weights', 'context', 'self-attention-one-head'],
    torch: SNIPPETS['weights'],
    torchChecks: SNIPPET_CHECKS['weights'],
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'layout', 'scale', 'temperature', 'model'],
    formula: String.raw`Q = XW_q,\; K = XW_k,\; V = XW_v, \qquad W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_k}\,\tau}\Big), \qquad Z = WV`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state);
      const result = await api.selfAttention(inputs.x, inputs.projection, options);
      const linearWeights = {
        ...inputs.projection, // the biases, when a trained model has them
        query: transposed(inputs.projection.query),
        key: transposed(inputs.projection.key),
        value: transposed(inputs.projection.value),
      };
      const linear = await api.selfAttention(inputs.x, linearWeights, { ...options, layout: 'linear' });
      // The scale example of DESIGN.md step 6, as if d_k = 64: softmax(v) against softmax(v / 8).
      const unscaled = await api.softmax(SCALE_EXAMPLE, { scale: 1 });
      const scaled = await api.softmax(SCALE_EXAMPLE, { scale: 1 / 8 });
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, axes: TOKENS_TOKENS };
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x', axes: TOKENS_D_IN }),
          ...weightViews(inputs.weights),
          show('query', result.query, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          show('key', result.key, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          show('value', result.value, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          show('scores', result.scores, tokens),
          show('scaled', result.scaled, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { query: result.query, key: result.key, scores: result.scores, scaled: result.scaled, masked: result.masked } }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          show('softmax([0,1,2,3,10])', unscaled.output, { kind: 'weights' }),
          show('softmax([0,1,2,3,10] / √64)', scaled.output, { kind: 'weights' }),
        ],
        checks: [{ name: 'layoutTransfer', comparison: await api.compare(linear.output, result.output) }],
      };
    },
  },
  {
    id: 'causal',
    cpp: ['fill-future', 'mask-softmax'],
    torch: SNIPPETS['causal'],
    torchChecks: SNIPPET_CHECKS['causal'],
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'layout', 'mask', 'scale', 'temperature', 'model'],
    formula: String.raw`W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_k}} + M\Big), \qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}`,
    async run({ api, inputs, state }) {
      // Each mask mode once: the learner's mode is also one of the three the checks compare.
      const byMode = new Map();
      const masked = async (mode) => {
        if (!byMode.has(mode)) byMode.set(mode, await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: true, mask: mode })));
        return byMode.get(mode);
      };
      const result = await masked(state.mask);
      const reference = await masked('neg_inf');
      // The book prints these first: the weights of step 6, before any mask.
      const unmasked = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: false }));
      // The book masks the unscaled scores Q·Kᵀ and divides by √d_k inside the softmax; the core scales, then masks.
      const unscaled = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: true, mask: state.mask, scale: false, temperature: 1 }));
      const checks = [];
      for (const mode of ['renormalize', 'zero']) {
        const other = await masked(mode);
        checks.push({ name: 'maskModes', values: { mode }, comparison: await api.compare(other.weights, reference.weights) });
      }
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: true, maskMode: state.mask, axes: TOKENS_TOKENS };
      return {
        tensors: [
          ...weightViews(inputs.weights),
          show('weights before the mask', unmasked.weights, { rows: inputs.tokens, cols: inputs.tokens, kind: 'weights', axes: TOKENS_TOKENS }),
          show('scores (unscaled, Q·Kᵀ)', result.scores, { rows: inputs.tokens, cols: inputs.tokens, axes: TOKENS_TOKENS }),
          show('scaled', result.scaled, { rows: inputs.tokens, cols: inputs.tokens, axes: TOKENS_TOKENS }),
          show('masked', result.masked, tokens),
          show('masked (unscaled scores, as the book prints them)', unscaled.masked, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { query: result.query, key: result.key, scores: result.scores, scaled: result.scaled, masked: result.masked } }),
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
        ],
        checks,
      };
    },
  },
  {
    id: 'dropout',
    cpp: ['dropout-weights', 'dropout-torch', 'dropout-uniform'],
    torch: SNIPPETS['dropout'],
    torchChecks: SNIPPET_CHECKS['dropout'],
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'layout', 'causal', 'dropout', 'dropoutSeed', 'dropoutRng', 'model'],
    formula: String.raw`\tilde W_{ij} = \frac{m_{ij}\, W_{ij}}{1-p}, \qquad m_{ij} \in \{0, 1\},\; P(m_{ij} = 1) = 1 - p, \qquad Z = \tilde W V`,
    async run({ api, inputs, state }) {
      const drop = { dropout: state.dropout, seed: state.dropoutSeed, dropoutRng: state.dropoutRng };
      const result = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: state.causal, ...drop }));
      // The book's first print: the same draw on a (T, T) matrix of ones, i.e. the mask scaled by 1/(1 − p).
      const T = inputs.tokens.length;
      const ones = await api.attentionDropout({ data: new Float32Array(T * T).fill(1), shape: [T, T] }, drop);
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: state.causal, axes: TOKENS_TOKENS };
      const dropped = result.dropped ?? result.weights; // p = 0: no dropout, nothing dropped
      return {
        tensors: [
          ...weightViews(inputs.weights),
          show('dropout(ones)', ones.output, { rows: inputs.tokens, cols: inputs.tokens, kind: 'weights', axes: TOKENS_TOKENS }),
          show('weights', result.weights, { ...tokens, kind: 'weights' }),
          show('dropped', dropped, { ...tokens, kind: 'weights' }), // ≥ 0: the sequential map, scaled to its largest
          show('output', result.output, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
        ],
        checks: [{ name: 'keptFraction', kept: { dropped, weights: result.weights } }],
      };
    },
  },
  {
    id: 'check',
    cpp: ['compare'],
    torch: SNIPPETS['check'],
    torchChecks: SNIPPET_CHECKS['check'],
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'layout', 'model'], // the backend selector is in the header
    formula: String.raw`\max_i |a_i - b_i| \quad\text{and}\quad |a_i - b_i| \le \text{atol} + \text{rtol}\,|b_i| \;\;\forall i`,
    async run({ api, inputs, fixture, loadBackend }) {
      // This step's own inputs: the sentence through step 7's causal attention, batched as the fixture is.
      const args = [{ data: inputs.x.data, shape: [1, ...inputs.x.shape] }, inputs.projection, { causal: true }];
      // At the defaults these are exactly the PyTorch fixture's inputs; after an edit, the JS reference answers.
      const pytorch = sameCall(fixture, 'selfAttention', args);
      const expected = pytorch ? fixture.expected.output : (await (await loadBackend('js')).selfAttention(...args)).output;
      const rows = [];
      for (const backend of ['wasm-simd', 'wasm-baseline', 'js', 'webgpu']) {
        try {
          const other = await loadBackend(backend);
          // loadAttention({backend: 'webgpu'}) falls back to WASM when WebGPU is missing: that row
          // must then say why, not show WASM's numbers under WebGPU's name.
          if (other.backend !== backend) throw new Error(other.fallbackReason ?? `loaded ${other.backend} instead`);
          const result = await other.selfAttention(...args); // the first call may compile or warm up: not timed
          rows.push({ backend, name: other.backend, ms: await medianMs(() => other.selfAttention(...args)), output: result.output, comparison: await api.compare(result.output, expected) });
        } catch (error) {
          rows.push({ backend, error: error.message });
        }
      }
      const axes = ['B', 'T', 'd_out'];
      return {
        tensors: [
          show(pytorch ? 'PyTorch output' : 'JS reference output', expected, { rows: inputs.tokens, axes }),
          show(`${api.backend} output`, rows.find((r) => r.name === api.backend)?.output ?? expected, { rows: inputs.tokens, axes }),
        ],
        backends: { fixtureName: fixture.name, reference: pytorch ? 'pytorch' : 'js', rows },
        computeMs: rows.find((r) => r.name === api.backend)?.ms, // the badge's time: this backend's median call
      };
    },
  },
  {
    id: 'multihead',
    cpp: ['split-heads', 'attend-heads', 'multihead-split'],
    torch: SNIPPETS['multihead'],
    torchChecks: SNIPPET_CHECKS['multihead'],
    controls: ['sentence', 'T', 'dModel', 'dOut', 'heads', 'head', 'seed', 'layout', 'temperature', 'causal', 'scale', 'model'],
    formula: String.raw`\operatorname{head}_h = \operatorname{softmax}\!\Big(\frac{Q_h K_h^{\top}}{\sqrt{d_{\text{head}}}}\Big) V_h, \qquad Z = [\operatorname{head}_1, \dots, \operatorname{head}_H], \qquad d_{\text{head}} = d_{\text{out}} / H`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state, { causal: state.causal, heads: state.heads });
      const split = await api.multiheadAttentionSplit(inputs.x, inputs.projection, options);
      // The stacked formulation gets the same weights, cut into each head's columns.
      const dHead = state.dOut / state.heads;
      const heads = Array.from({ length: state.heads }, (_, h) => ({
        query: columns(inputs.projection.query, h * dHead, (h + 1) * dHead),
        key: columns(inputs.projection.key, h * dHead, (h + 1) * dHead),
        value: columns(inputs.projection.value, h * dHead, (h + 1) * dHead),
        ...biasColumns(inputs.projection, h * dHead, (h + 1) * dHead),
      }));
      const { heads: _unused, ...stackedOptions } = options;
      const stacked = await api.multiheadAttentionStacked(inputs.x, { heads }, stackedOptions);
      // The book's §3.6.2 form at its own settings: d_out 2 in 2 heads of 1, out_proj, torch.manual_seed(seed)
      // (not with a trained model: its seeded weights would mean nothing on the model's x).
      const book = inputs.trained ? null : await api.multiheadAttentionSplit(inputs.x, bookSplitWeights(state.seed, state.dModel), attentionOptions(state, { causal: state.causal, heads: 2 }));
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: state.causal, axes: TOKENS_TOKENS };
      return {
        tensors: [
          ...weightViews(inputs.weights),
          show('weights', split.weights, { ...tokens, kind: 'weights', panels: true, hover: { query: split.query, key: split.key, scores: split.scores, scaled: split.scaled, masked: split.masked } }),
          show('context (split heads)', split.context, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          show('context (stacked heads)', stacked.context, { rows: inputs.tokens, axes: TOKENS_D_OUT }),
          ...(book ? [show('output (§3.6.2 MultiHeadAttention: d_out 2, 2 heads, out_proj)', book.output, { rows: inputs.tokens, axes: TOKENS_D_OUT })] : []),
        ],
        checks: [{ name: 'stackedEqualsSplit', comparison: await api.compare(stacked.output, split.output) }],
      };
    },
  },
  {
    id: 'cross',
    cpp: ['cross-attention'],
    torch: SNIPPETS['cross'],
    torchChecks: SNIPPET_CHECKS['cross'],
    controls: ['sentence', 'context', 'T', 'dModel', 'dOut', 'heads', 'head', 'seed', 'layout', 'scale', 'temperature', 'model'],
    // two lines: on one, the formula was wider than its column at 1280 px and scrolled sideways
    formula: String.raw`\begin{gathered} Q = X_{\text{query}} W_q,\;\; K = X_{\text{context}} W_k,\;\; V = X_{\text{context}} W_v, \\ W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_{\text{head}}}}\Big) \in \mathbf{R}^{T_q \times T_k} \end{gathered}`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state, { heads: state.heads });
      const result = await api.crossAttention(inputs.x, inputs.xContext, inputs.crossProjection, options);
      return {
        tensors: [
          show('x_query', inputs.x, { rows: inputs.tokens, editable: 'x', axes: ['Tq', 'd_in'] }),
          show('x_context', inputs.xContext, { rows: inputs.contextTokens, axes: ['Tk', 'd_in'] }),
          ...weightViews(inputs.crossWeights, { cross: true }),
          show('weights', result.weights, { rows: inputs.tokens, cols: inputs.contextTokens, kind: 'weights', panels: true, axes: ['Tq', 'Tk'], hover: { query: result.query, key: result.key, scores: result.scores, scaled: result.scaled } }),
          show('output', result.output, { rows: inputs.tokens, axes: ['Tq', 'd_out'] }),
        ],
      };
    },
  },
  {
    // The model learns in the page (training/learn-demo.js); `run` only names what it trains on.
    id: 'learn',
    controls: ['learn-task', 'learn-seed', 'sentence'],
    formula: String.raw`L = -\frac{1}{T}\sum_{t=0}^{T-1} \log \operatorname{softmax}\big(h_t W_{\text{unembed}}^{\top}\big)_{x_{t+1}}, \qquad \theta \leftarrow \operatorname{AdamW}(\theta, \nabla_{\theta} L)`,
    cpp: ['values-backward', 'softmax-backward', 'scores-backward'],
    torch: SNIPPETS['learn'],
    torchChecks: SNIPPET_CHECKS['learn'],
    async run({ state }) {
      return { learn: { task: state['learn-task'], sentence: state.sentence, seed: state['learn-seed'] } };
    },
  },
];

export const STEP_BY_ID = new Map(STEPS.map((step, index) => [step.id, { ...step, number: index + 1 }]));
