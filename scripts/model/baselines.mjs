// The baselines the trained model is measured against (docs/model.md): a unigram with add-α smoothing and an
// interpolated Kneser-Ney bigram, each tuned on the validation documents, scored on the test documents the same
// way as the model: every token of a document but its first, in nats per token.

/** docs: Int32Array[] (token ids) → the counts both models need. */
export function countNgrams(docs, V) {
  const unigram = new Float64Array(V);
  const bigram = new Map(); // v·V + w → count
  for (const ids of docs) {
    for (let i = 0; i < ids.length; i++) {
      unigram[ids[i]]++;
      if (i > 0) { const key = ids[i - 1] * V + ids[i]; bigram.set(key, (bigram.get(key) ?? 0) + 1); }
    }
  }
  const total = unigram.reduce((a, b) => a + b, 0);
  // Kneser-Ney: c(v) as a context, N1+(v•) distinct followers, N1+(•w) distinct predecessors
  const context = new Float64Array(V);
  const followers = new Float64Array(V);
  const predecessors = new Float64Array(V);
  for (const [key, c] of bigram) {
    const v = Math.floor(key / V);
    context[v] += c;
    followers[v]++;
    predecessors[key % V]++;
  }
  return { V, unigram, total, bigram, context, followers, predecessors, types: bigram.size };
}

/** Mean −ln p over every token but each document's first, p(w | v) from prob(v, w). */
function score(docs, prob) {
  let sum = 0;
  let count = 0;
  for (const ids of docs) for (let i = 1; i < ids.length; i++) { sum -= Math.log(prob(ids[i - 1], ids[i])); count++; }
  return { loss: sum / count, count };
}

export const unigramModel = (counts, alpha) => (_v, w) => (counts.unigram[w] + alpha) / (counts.total + alpha * counts.V);

/**
 * Interpolated Kneser-Ney bigram with discount D: p(w|v) = max(c(v,w) − D, 0)/c(v) + D·N1+(v•)/c(v)·p_cont(w),
 * p_cont(w) = (N1+(•w) + 1)/(N1+(••) + V) (add-one, so a token never seen after another keeps some mass);
 * a context never seen falls back to p_cont.
 */
export function kneserNeyModel(counts, D) {
  const { V, bigram, context, followers, predecessors, types } = counts;
  const pCont = (w) => (predecessors[w] + 1) / (types + V);
  return (v, w) => {
    const cv = context[v];
    if (cv === 0) return pCont(w);
    const c = bigram.get(v * V + w) ?? 0;
    return Math.max(c - D, 0) / cv + (D * followers[v] / cv) * pCont(w);
  };
}

const ALPHAS = [0.00001, 0.0001, 0.001, 0.01, 0.03, 0.1, 0.3, 1, 3];
const DISCOUNTS = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95, 1];

/** Both baselines trained on train, their parameter picked on validation, scored on test. */
export function baselines(train, validation, test, V) {
  const counts = countNgrams(train, V);
  const pick = (grid, make) => {
    const tried = grid.map((x) => ({ x, loss: score(validation, make(counts, x)).loss }));
    return tried.reduce((best, t) => (t.loss < best.loss ? t : best));
  };
  const alpha = pick(ALPHAS, unigramModel);
  const discount = pick(DISCOUNTS, kneserNeyModel);
  return {
    unigram: { alpha: alpha.x, validationLoss: alpha.loss, ...score(test, unigramModel(counts, alpha.x)) },
    bigram: { kind: 'interpolated Kneser-Ney', discount: discount.x, validationLoss: discount.loss, ...score(test, kneserNeyModel(counts, discount.x)) },
  };
}
