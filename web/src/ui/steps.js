// The lesson, as data: one entry per curriculum step (DESIGN.md), rendered by the one stepper.
// Each step names its formula (TeX), the C++ core function beside the PyTorch lines, the controls that
// apply, and a `run` that calls the core API and picks the named intermediates to show. `run` never
// computes attention math itself: every number on screen comes back from the core.
import { columns, transposed } from './inputs.js';

// A shown tensor: `rows`/`cols` label the last two axes with tokens; `kind` picks the colour map
// ('signed' diverging, 'weights' sequential 0..1); `causal` marks the future cells as masked;
// `hover` names sibling tensors whose values the weights' tooltip explains; `panels` draws the
// first axis (the heads) side by side.
function show(name, tensor, extra = {}) {
  return { name, tensor, kind: 'signed', ...extra };
}

function attentionOptions(state, extra = {}) {
  return { scale: state.scale, temperature: state.temperature, ...extra };
}

// The projection weights a step takes as inputs, each editable under its name in the state's edits
// (state.js EDITABLE_MATRICES): self-attention's Wq, Wk, Wv, or cross-attention's own three.
function weightViews(projection, { cross = false } = {}) {
  const suffix = cross ? ' (cross)' : '';
  const edits = cross ? ['crossWq', 'crossWk', 'crossWv'] : ['Wq', 'Wk', 'Wv'];
  return [
    show(`W_query${suffix}`, projection.query, { editable: edits[0] }),
    show(`W_key${suffix}`, projection.key, { editable: edits[1] }),
    show(`W_value${suffix}`, projection.value, { editable: edits[2] }),
  ];
}

const SCALE_EXAMPLE = { data: Float32Array.from([0, 1, 2, 3, 10]), shape: [5] };

export const STEPS = [
  {
    id: 'framing',
    controls: ['sentence', 'T'],
    formula: String.raw`\text{context}_t = (x_0, \dots, x_t) \;\longrightarrow\; \text{target}_t = x_{t+1}, \qquad t = 0, \dots, T-1`,
    cpp: `NextTokenPairs next_token_pairs(const IntTensor& tokens);
// tokens: (B, L) -> contexts, targets: (B, L-1)
for (int t = 0; t < L - 1; ++t) {
  contexts(b, t) = tokens(b, t);       // context of t is contexts[b, 0..t]
  targets(b, t)  = tokens(b, t + 1);
}`,
    torch: `contexts = tokens[:, :-1]
targets  = tokens[:, 1:]
for t in range(contexts.shape[1]):
    print(contexts[0, :t + 1], "->", targets[0, t])`,
    async run({ api, inputs }) {
      const tokens = { data: inputs.framingIds, shape: [1, inputs.framingIds.length] };
      const result = await api.nextTokenPairs(tokens);
      return { pairs: { contexts: result.contexts, targets: result.targets, vocabulary: inputs.framingVocabulary } };
    },
  },
  {
    id: 'loop',
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`y_{t} = \frac{1}{t+1} \sum_{s=0}^{t} x_{s}`,
    cpp: `AverageResult causal_average_loop(const Tensor& x);
// x: (B, T, C) -> output: (B, T, C)
for (int t = 0; t < T; ++t)
  for (int c = 0; c < C; ++c) {
    float sum = 0;
    for (int s = 0; s <= t; ++s) sum += x(b, s, c);
    y(b, t, c) = sum / (t + 1);
  }`,
    torch: `y = torch.zeros_like(x)
for b in range(B):
    for t in range(T):
        y[b, t] = x[b, :t + 1].mean(dim=0)`,
    async run({ api, inputs }) {
      const result = await api.causalAverageLoop(inputs.x);
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x', axes: ['T', 'C'] }),
          show('output', result.output, { rows: inputs.tokens, axes: ['T', 'C'] }),
        ],
      };
    },
  },
  {
    id: 'matmul',
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`W = \frac{\operatorname{tril}(\mathbf{1}_{T\times T})}{\text{row sums}}, \qquad Y = W X`,
    cpp: `AverageResult causal_average_matmul(const Tensor& x);
// 1. weights = tril(ones(T, T)), each row divided by its sum: (T, T)
// 2. output[b] = weights · x[b], broadcast over B: (B, T, C)
weights = ones.triangularView<Eigen::Lower>();
weights.array().colwise() /= weights.rowwise().sum().array();
output = weights * x_b;`,
    torch: `weights = torch.tril(torch.ones(T, T))
weights = weights / weights.sum(dim=1, keepdim=True)
y = weights @ x          # (T, T) @ (B, T, C) -> (B, T, C)`,
    async run({ api, inputs }) {
      const result = await api.causalAverageMatmul(inputs.x);
      const loop = await api.causalAverageLoop(inputs.x);
      return {
        tensors: [
          show('weights', result.weights, { rows: inputs.tokens, cols: inputs.tokens, kind: 'weights' }),
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x' }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
        checks: [{ name: 'loopEqualsMatmul', comparison: await api.compare(result.output, loop.output) }],
      };
    },
  },
  {
    id: 'softmax',
    controls: ['sentence', 'T', 'dModel', 'seed'],
    formula: String.raw`W = \operatorname{softmax}\!\Big(\begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}\Big), \qquad Y = W X`,
    cpp: `AverageResult causal_average_softmax(const Tensor& x);
// 1. scores = zeros(T, T)
// 2. masked = scores with -inf above the diagonal
// 3. weights = softmax(masked) row by row   4. output = weights · x
masked(i, j) = j > i ? -infinity : scores(i, j);
softmax_row(&weights(i, 0), T, Normalization::Stable);`,
    torch: `scores = torch.zeros(T, T)
masked = scores.masked_fill(torch.triu(torch.ones(T, T, dtype=torch.bool), 1), float('-inf'))
weights = torch.softmax(masked, dim=-1)
y = weights @ x`,
    async run({ api, inputs }) {
      const result = await api.causalAverageSoftmax(inputs.x);
      const tokens = { rows: inputs.tokens, cols: inputs.tokens };
      return {
        tensors: [
          show('scores', result.scores, tokens),
          show('masked', result.masked, { ...tokens, causal: true }),
          show('weights', result.weights, { ...tokens, kind: 'weights', causal: true }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
      };
    },
  },
  {
    id: 'self-attention',
    controls: ['sentence', 'T', 'dModel', 'seed', 'normalization'],
    formula: String.raw`S = X X^{\top}, \qquad W_{ij} = \frac{e^{S_{ij} - \max_k S_{ik}}}{\sum_k e^{S_{ik} - \max_k S_{ik}}}, \qquad Z = W X`,
    cpp: `AverageResult attention_without_weights(const Tensor& x, Normalization normalization);
// x: (B, T, C) -> scores, weights: (B, T, T); output: (B, T, C)
// 1. scores = X · Xᵀ   2. softmax each row   3. output = weights · X
scores = x_b * x_b.transpose();
for (int i = 0; i < T; ++i) softmax_row(&weights(i, 0), T, normalization);
output = weights * x_b;`,
    torch: `scores = x @ x.transpose(-2, -1)
weights = torch.softmax(scores, dim=-1)
context = weights @ x`,
    async run({ api, inputs, state }) {
      const result = await api.attentionWithoutWeights(inputs.x, { normalization: state.normalization });
      const tokens = { rows: inputs.tokens, cols: inputs.tokens };
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x' }),
          show('scores', result.scores, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { scores: result.scores } }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
      };
    },
  },
  {
    id: 'weights',
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'scale', 'temperature', 'model'],
    formula: String.raw`Q = XW_q,\; K = XW_k,\; V = XW_v, \qquad W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_k}\,\tau}\Big), \qquad Z = WV`,
    cpp: `AttentionResult self_attention(const Tensor& x, const ProjectionWeights& weights,
                               const AttentionOptions& options);
// 1. query, key, value = X·Wq, X·Wk, X·Wv: (B, T, d_out)
// 2. scores = Q·Kᵀ: (B, T, T)   3. scaled = scores / (√d_k · temperature)
// 4. weights = softmax(scaled)  5. output = weights · V: (B, T, d_out)`,
    torch: `query, key, value = x @ W_query, x @ W_key, x @ W_value
scores = query @ key.transpose(-2, -1)
weights = torch.softmax(scores / key.shape[-1] ** 0.5, dim=-1)
context = weights @ value
# nn.Linear stores (d_out, d_in): linear.weight = W_query.T gives the same`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state);
      const result = await api.selfAttention(inputs.x, inputs.projection, options);
      const linearWeights = {
        query: transposed(inputs.projection.query),
        key: transposed(inputs.projection.key),
        value: transposed(inputs.projection.value),
      };
      const linear = await api.selfAttention(inputs.x, linearWeights, { ...options, layout: 'linear' });
      // The scale example of DESIGN.md step 6, as if d_k = 64: softmax(v) against softmax(v / 8).
      const unscaled = await api.softmax(SCALE_EXAMPLE, { scale: 1 });
      const scaled = await api.softmax(SCALE_EXAMPLE, { scale: 1 / 8 });
      const tokens = { rows: inputs.tokens, cols: inputs.tokens };
      return {
        tensors: [
          show('x', inputs.x, { rows: inputs.tokens, editable: 'x' }),
          ...weightViews(inputs.projection),
          show('query', result.query, { rows: inputs.tokens }),
          show('key', result.key, { rows: inputs.tokens }),
          show('value', result.value, { rows: inputs.tokens }),
          show('scores', result.scores, tokens),
          show('scaled', result.scaled, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { scores: result.scores, scaled: result.scaled } }),
          show('output', result.output, { rows: inputs.tokens }),
          show('softmax([0,1,2,3,10])', unscaled.output, { kind: 'weights' }),
          show('softmax([0,1,2,3,10] / √64)', scaled.output, { kind: 'weights' }),
        ],
        checks: [{ name: 'layoutTransfer', comparison: await api.compare(linear.output, result.output) }],
      };
    },
  },
  {
    id: 'causal',
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'mask', 'scale', 'temperature', 'model'],
    formula: String.raw`W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_k}} + M\Big), \qquad M_{ij} = \begin{cases} 0 & j \le i \\ -\infty & j > i \end{cases}`,
    cpp: `AttentionResult self_attention(x, weights, {.causal = true, .mask = MaskMode::NegInf});
// 3. mask: masked(i, j) = j > i ? -inf : scaled(i, j)       (NegInf)
//          masked = softmax(scaled), future = 0, then weights = masked / row sum  (Renormalize)
//          masked(i, j) = j > i ? 0 : scaled(i, j)           (Zero: the mistake)`,
    torch: `mask = torch.triu(torch.ones(T, T, dtype=torch.bool), diagonal=1)
masked = scores.masked_fill(mask, float('-inf'))
weights = torch.softmax(masked / key.shape[-1] ** 0.5, dim=-1)
context = weights @ value`,
    async run({ api, inputs, state }) {
      const result = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: true, mask: state.mask }));
      const reference = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: true, mask: 'neg_inf' }));
      const checks = [];
      for (const mode of ['renormalize', 'zero']) {
        const other = await api.selfAttention(inputs.x, inputs.projection, attentionOptions(state, { causal: true, mask: mode }));
        checks.push({ name: 'maskModes', values: { mode }, comparison: await api.compare(other.weights, reference.weights) });
      }
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: true, maskMode: state.mask };
      return {
        tensors: [
          ...weightViews(inputs.projection),
          show('scaled', result.scaled, { rows: inputs.tokens, cols: inputs.tokens }),
          show('masked', result.masked, tokens),
          show('weights', result.weights, { ...tokens, kind: 'weights', hover: { scores: result.scores, scaled: result.scaled } }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
        checks,
      };
    },
  },
  {
    id: 'dropout',
    controls: ['sentence', 'T', 'dModel', 'dOut', 'seed', 'causal', 'dropout', 'dropoutSeed', 'model'],
    formula: String.raw`\tilde W_{ij} = \frac{m_{ij}\, W_{ij}}{1-p}, \qquad m_{ij} = [\,u(\text{seed}, i\cdot T + j) \ge p\,], \qquad Z = \tilde W V`,
    cpp: `AttentionResult self_attention(x, weights, {.causal = true, .dropout = p, .seed = seed});
// after the mask: dropped(i) = dropout_keeps(seed, i, p) ? weights(i) / (1 - p) : 0
// dropout_uniform(seed, i) = (lowbias32(i ^ lowbias32(seed)) >> 8) / 2^24`,
    torch: `dropout = torch.nn.Dropout(p)      # the page uses a seeded counter-based mask
dropped = dropout(weights)             # zero a fraction p, scale the rest by 1/(1-p)
context = dropped @ value`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state, { causal: state.causal, dropout: state.dropout, seed: state.dropoutSeed });
      const result = await api.selfAttention(inputs.x, inputs.projection, options);
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: state.causal };
      const dropped = result.dropped ?? result.weights; // p = 0: no dropout, nothing dropped
      return {
        tensors: [
          ...weightViews(inputs.projection),
          show('weights', result.weights, { ...tokens, kind: 'weights' }),
          show('dropped', dropped, { ...tokens, kind: 'signed' }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
        checks: [{ name: 'keptFraction', kept: { dropped, weights: result.weights } }],
      };
    },
  },
  {
    id: 'check',
    controls: [], // the backend selector is in the header
    formula: String.raw`\max_i |a_i - b_i| \quad\text{and}\quad |a_i - b_i| \le \text{atol} + \text{rtol}\,|b_i| \;\;\forall i`,
    cpp: `Comparison compare(const Tensor& actual, const Tensor& expected, const CompareOptions& options);
// -> max_abs_error, max_rel_error, allclose (atol = rtol = 1e-5), first_mismatch`,
    torch: `ours = torch.tensor(page_result)
torch.testing.assert_close(ours, expected, atol=1e-5, rtol=1e-5)
print((ours - expected).abs().max())`,
    async run({ api, fixture, loadBackend }) {
      const expected = fixture.expected.output;
      const rows = [];
      for (const backend of ['wasm-simd', 'wasm-baseline', 'js', 'webgpu']) {
        try {
          const other = await loadBackend(backend);
          // loadAttention({backend: 'webgpu'}) falls back to WASM when WebGPU is missing: that row
          // must then say why, not show WASM's numbers under WebGPU's name.
          if (other.backend !== backend) throw new Error(other.fallbackReason ?? `loaded ${other.backend} instead`);
          const started = performance.now();
          const result = await other[fixture.function](...fixture.args);
          const ms = performance.now() - started;
          rows.push({ backend, name: other.backend, ms, output: result.output, comparison: await api.compare(result.output, expected) });
        } catch (error) {
          rows.push({ backend, error: error.message });
        }
      }
      return {
        tensors: [
          show('PyTorch output', expected, { axes: ['B', 'T', 'd_out'] }),
          show(`${api.backend} output`, rows.find((r) => r.name === api.backend)?.output ?? expected, { axes: ['B', 'T', 'd_out'] }),
        ],
        backends: { fixtureName: fixture.name, rows },
      };
    },
  },
  {
    id: 'multihead',
    controls: ['sentence', 'T', 'dModel', 'dOut', 'heads', 'seed', 'causal', 'scale', 'temperature', 'model'],
    formula: String.raw`\operatorname{head}_h = \operatorname{softmax}\!\Big(\frac{Q_h K_h^{\top}}{\sqrt{d_{\text{head}}}}\Big) V_h, \qquad Z = [\operatorname{head}_1, \dots, \operatorname{head}_H], \qquad d_{\text{head}} = d_{\text{out}} / H`,
    cpp: `AttentionResult multihead_attention_split(const Tensor& x, const ProjectionWeights& weights,
                                          const AttentionOptions& options);
// 1. Q, K, V = X·Wq, X·Wk, X·Wv: (B, T, d_out)
// 2. (B, T, d_out) -> (B, T, H, d_head) -> (B, H, T, d_head)
// 3. attention per head, scaled by 1/√d_head: weights (B, H, T, T)
// 4. (B, H, T, d_head) -> (B, T, H, d_head) -> (B, T, d_out)`,
    torch: `q = (x @ W_query).view(B, T, H, d_head).transpose(1, 2)   # (B, H, T, d_head)
k = (x @ W_key).view(B, T, H, d_head).transpose(1, 2)
v = (x @ W_value).view(B, T, H, d_head).transpose(1, 2)
weights = torch.softmax(q @ k.transpose(-2, -1) / d_head ** 0.5, dim=-1)
context = (weights @ v).transpose(1, 2).reshape(B, T, d_out)`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state, { causal: state.causal, heads: state.heads });
      const split = await api.multiheadAttentionSplit(inputs.x, inputs.projection, options);
      // The stacked formulation gets the same weights, cut into each head's columns.
      const dHead = state.dOut / state.heads;
      const heads = Array.from({ length: state.heads }, (_, h) => ({
        query: columns(inputs.projection.query, h * dHead, (h + 1) * dHead),
        key: columns(inputs.projection.key, h * dHead, (h + 1) * dHead),
        value: columns(inputs.projection.value, h * dHead, (h + 1) * dHead),
      }));
      const { heads: _unused, ...stackedOptions } = options;
      const stacked = await api.multiheadAttentionStacked(inputs.x, { heads }, stackedOptions);
      const tokens = { rows: inputs.tokens, cols: inputs.tokens, causal: state.causal };
      return {
        tensors: [
          ...weightViews(inputs.projection),
          show('weights', split.weights, { ...tokens, kind: 'weights', panels: true, hover: { scores: split.scores, scaled: split.scaled } }),
          show('context (split heads)', split.context, { rows: inputs.tokens }),
          show('context (stacked heads)', stacked.context, { rows: inputs.tokens }),
        ],
        checks: [{ name: 'stackedEqualsSplit', comparison: await api.compare(stacked.output, split.output) }],
      };
    },
  },
  {
    id: 'cross',
    controls: ['sentence', 'context', 'T', 'dModel', 'dOut', 'heads', 'seed', 'scale', 'temperature'],
    formula: String.raw`Q = X_{\text{query}} W_q,\;\; K = X_{\text{context}} W_k,\;\; V = X_{\text{context}} W_v, \qquad W = \operatorname{softmax}\!\Big(\frac{QK^{\top}}{\sqrt{d_{\text{head}}}}\Big) \in \mathbb{R}^{T_q \times T_k}`,
    cpp: `AttentionResult cross_attention(const Tensor& x_query, const Tensor& x_context,
                                const ProjectionWeights& weights, const AttentionOptions& options);
// x_query: (B, Tq, d_q), x_context: (B, Tk, d_kv) -> weights: (B, H, Tq, Tk), output: (B, Tq, d_out)`,
    torch: `q = x_query @ W_query               # (B, Tq, d_out)
k, v = x_context @ W_key, x_context @ W_value   # (B, Tk, d_out)
weights = torch.softmax(q @ k.transpose(-2, -1) / d_head ** 0.5, dim=-1)   # (B, Tq, Tk)
output = weights @ v`,
    async run({ api, inputs, state }) {
      const options = attentionOptions(state, { heads: state.heads });
      const result = await api.crossAttention(inputs.x, inputs.xContext, inputs.crossProjection, options);
      return {
        tensors: [
          show('x_query', inputs.x, { rows: inputs.tokens, editable: 'x' }),
          show('x_context', inputs.xContext, { rows: inputs.contextTokens }),
          ...weightViews(inputs.crossProjection, { cross: true }),
          show('weights', result.weights, { rows: inputs.tokens, cols: inputs.contextTokens, kind: 'weights', panels: true, hover: { scores: result.scores, scaled: result.scaled } }),
          show('output', result.output, { rows: inputs.tokens }),
        ],
      };
    },
  },
  {
    // The model learns in the page (training/learn-demo.js); `run` only names what it trains on.
    id: 'learn',
    controls: ['sentence', 'learn-task', 'seed'],
    formula: String.raw`\mathcal{L} = -\frac{1}{T}\sum_{t=0}^{T-1} \log \operatorname{softmax}\big(h_t W_{\text{unembed}}^{\top}\big)_{x_{t+1}}, \qquad \theta \leftarrow \operatorname{AdamW}(\theta, \nabla_{\theta}\mathcal{L})`,
    cpp: `// The trainer (web/src/train, docs/api.md "Training"): forward, backward, AdamW.
SelfAttentionGrads self_attention_backward(const Tensor& x, const ProjectionWeights& w,
                                           const Tensor& grad_output, const AttentionOptions& options);
// dP = dO·Vᵀ;  dS = P ⊙ (dP − rowsum(dP ⊙ P));  dQ = dS·K·scale;  dK = dSᵀ·Q·scale`,
    torch: `model = AttentionOnly(V, T, d, H=1, L=1)
opt = torch.optim.AdamW(model.parameters(), lr=0.03)
logits = model(inputs)                                   # (B, T, V)
loss = F.cross_entropy(logits.view(-1, V), targets.view(-1), ignore_index=-100)
opt.zero_grad(); loss.backward(); opt.step()`,
    async run({ state }) {
      return { learn: { task: state['learn-task'], sentence: state.sentence, seed: state.seed } };
    },
  },
];

export const STEP_BY_ID = new Map(STEPS.map((step, index) => [step.id, { ...step, number: index + 1 }]));
