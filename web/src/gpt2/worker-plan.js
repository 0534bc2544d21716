// The pure half of GPT-2 on workers (worker-model.js runs it; cpp/kernels/gpt2_shard.h computes it): how the
// model is cut into one share per worker, what each share holds, and when the workers pay. No Worker, no WASM.
//
// The cut is Megatron-LM's: worker k takes a contiguous group of heads (the planner's headGroups), the same
// share of the MLP's columns, and of the vocabulary for the logits; per block, two exchanges of (T, C) partial
// sums are all the workers share.
import { headGroups } from '../core/planner.js';
import { columnBlock } from '../core/backends/thread-plan.js';

/** [begin, end) of n near-equal parts of `size`, each boundary a multiple of `align` (the GEMM's 8 columns). */
function split(size, n, align) {
  const bounds = Array.from({ length: n + 1 }, (_, k) => Math.min(size, Math.round((k * size) / n / align) * align));
  bounds[n] = size;
  return Array.from({ length: n }, (_, k) => [bounds[k], bounds[k + 1]]);
}

/**
 * Each worker's share: {headBegin, headEnd, mlpBegin, mlpEnd, vocabBegin, vocabEnd}, for min(workers, heads)
 * workers (a share holds at least one head).
 */
export function gpt2Shares(config, workers) {
  const heads = headGroups(config.heads, workers);
  const mlp = split(config.dMlp, heads.length, 8);
  const vocab = split(config.vocabSize, heads.length, 8);
  return heads.map(([headBegin, headEnd], k) => ({
    headBegin, headEnd, mlpBegin: mlp[k][0], mlpEnd: mlp[k][1], vocabBegin: vocab[k][0], vocabEnd: vocab[k][1],
  }));
}

/** Multiply-adds of one forward over T tokens (the causal attention's half square). */
export function gpt2ForwardWork({ dModel: C, layers, dMlp: M, vocabSize: V }, T) {
  return layers * (T * C * 3 * C + C * T * (T + 1) + T * C * C + 2 * T * C * M) + T * C * V;
}

/**
 * Where GPT-2's workers pay: at least minWork / 2 multiply-adds between two exchanges, as measured by
 * bench/worker-small-forwards.mjs (an exchange moves only (T, C) sums; with a free second core the workers halve
 * the work between them). Unlike a pooled call (POOL_CROSSOVER, whose inputs travel with every call) the weights
 * stay in the workers, so the crossover sits far lower: GPT-2 small pays from one token, the tiny model never.
 */
export const GPT2_WORKER_CROSSOVER = Object.freeze({ minWork: 2_000_000 });

/**
 * Whether T tokens' forward pays on the workers: each exchange must follow at least minWork / 2 multiply-adds
 * on average. crossover: {minWork} in place of GPT2_WORKER_CROSSOVER's (createGpt2's option). {workers: boolean, reason}.
 */
export function planGpt2Workers(config, T, workers, { minWork } = GPT2_WORKER_CROSSOVER) {
  if (workers < 2) return { workers: false, reason: 'one thread asked for' };
  const exchanges = 2 * config.layers + 1;
  const perExchange = gpt2ForwardWork(config, T) / exchanges;
  // one decimal below 10M: the crossover and the short forwards near it are a few millions
  const millions = (n) => `${Number((n / 1e6).toFixed(n < 1e7 ? 1 : 0))}M`;
  if (perExchange < minWork / 2) {
    return { workers: false, reason: `${T} tokens: ${millions(perExchange)} multiply-adds between exchanges, below the workers' crossover (${millions(minWork / 2)})` };
  }
  return { workers: true, reason: `${T} tokens: ${millions(perExchange)} multiply-adds between exchanges` };
}

/**
 * Share `share`'s vectors (gpt2_shard.h's parameters() order) as one Float32Array, and its matrices in
 * matrix order (c_attn's q, k, v columns of its heads; c_proj's rows; c_fc's columns; mlp.c_proj's rows; per
 * layer; then wte's rows): a function (i) → a new Float32Array, so each is cut only when it is sent.
 */
export function shareParameters(config, parameters, share) {
  const { dModel: C, layers, heads } = config;
  const dHead = C / heads;
  const [h0, w] = [share.headBegin * dHead, (share.headEnd - share.headBegin) * dHead];
  const [m0, m] = [share.mlpBegin, share.mlpEnd - share.mlpBegin];
  const p = (name) => parameters[name].data;
  const vectors = [];
  for (let l = 0; l < layers; l++) {
    const at = (name) => p(`h.${l}.${name}`);
    const qkvBias = at('attn.c_attn.bias');
    vectors.push(at('ln_1.weight'), at('ln_1.bias'),
      ...[0, 1, 2].map((b) => qkvBias.subarray(b * C + h0, b * C + h0 + w)),
      at('attn.c_proj.bias'), at('ln_2.weight'), at('ln_2.bias'), at('mlp.c_fc.bias').subarray(m0, m0 + m), at('mlp.c_proj.bias'));
  }
  vectors.push(p('ln_f.weight'), p('ln_f.bias'));
  const flat = new Float32Array(vectors.reduce((n, v) => n + v.length, 0));
  let at = 0;
  for (const v of vectors) { flat.set(v, at); at += v.length; }

  // Every matrix is a fresh array (sliced, not a view of the checkpoint): the caller transfers them.
  const matrix = (i) => {
    if (i === 4 * layers) return p('wte.weight').slice(share.vocabBegin * C, share.vocabEnd * C);
    const block = (name) => p(`h.${Math.floor(i / 4)}.${name}`);
    switch (i % 4) {
      case 0: {
        // (C, 3w): the heads' columns of the q, k and v blocks of c_attn (C, 3C), side by side
        const parts = [0, 1, 2].map((b) => columnBlock(block('attn.c_attn.weight'), C, 3 * C, b * C + h0, w));
        const joined = new Float32Array(C * 3 * w);
        for (let r = 0; r < C; r++) parts.forEach((part, b) => joined.set(part.subarray(r * w, (r + 1) * w), r * 3 * w + b * w));
        return joined;
      }
      case 1: return block('attn.c_proj.weight').slice(h0 * C, (h0 + w) * C);
      case 2: return columnBlock(block('mlp.c_fc.weight'), C, config.dMlp, m0, m);
      default: return block('mlp.c_proj.weight').slice(m0 * C, (m0 + m) * C);
    }
  };
  return { vectors: flat, matrixCount: 4 * layers + 1, matrix };
}
