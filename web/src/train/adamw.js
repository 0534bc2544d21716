// torch.optim.AdamW (torch 1.13, the single-tensor path) and torch.nn.utils.clip_grad_norm_, in float32:
// every tensor operation of PyTorch's update rounds to float32 here at the same place.
const f = Math.fround;

/** A fresh optimiser state: exp_avg and exp_avg_sq of zeros per parameter, step 0. */
export function createAdamState(params) {
  const state = { step: 0, expAvg: {}, expAvgSq: {} };
  for (const [name, t] of Object.entries(params)) {
    state.expAvg[name] = new Float32Array(t.data.length);
    state.expAvgSq[name] = new Float32Array(t.data.length);
  }
  return state;
}

/**
 * One AdamW step on every parameter (decoupled weight decay on all of them, as torch applies it to every
 * parameter in the group):  step += 1;  p *= 1 − lr·λ;  m = β₁m + (1 − β₁)g;  v = β₂v + (1 − β₂)g²;
 * p −= lr/(1 − β₁^step) · m / (√v/√(1 − β₂^step) + ε).
 */
export function adamwStep(params, grads, state, { lr, betas: [beta1, beta2], eps, weightDecay }) {
  state.step += 1;
  const step = state.step;
  const decay = f(1 - lr * weightDecay);
  const stepSize = lr / (1 - beta1 ** step);
  const correction2Sqrt = Math.sqrt(1 - beta2 ** step);
  const oneMinusBeta1 = f(1 - beta1);
  const oneMinusBeta2 = f(1 - beta2);
  const b1 = f(beta1);
  const b2 = f(beta2);
  for (const [name, t] of Object.entries(params)) {
    const p = t.data;
    const g = grads[name];
    const m = state.expAvg[name];
    const v = state.expAvgSq[name];
    for (let i = 0; i < p.length; i++) {
      const gi = g[i];
      p[i] = f(p[i] * decay);
      m[i] = f(f(m[i] * b1) + f(gi * oneMinusBeta1));
      v[i] = f(f(v[i] * b2) + f(f(gi * gi) * oneMinusBeta2));
      const denom = f(f(f(Math.sqrt(v[i])) / f(correction2Sqrt)) + f(eps));
      p[i] = f(p[i] - f(f(m[i] / denom) * f(stepSize)));
    }
  }
}

/**
 * clip_grad_norm_(parameters, maxNorm) on float32 gradients: total = ‖(‖g_p‖)_p‖₂; every gradient is
 * multiplied by min(1, maxNorm/(total + 1e-6)). Returns total (the norm before clipping).
 */
export function clipGradNorm(grads, maxNorm) {
  let total = 0;
  for (const g of Object.values(grads)) {
    let sum = 0;
    for (let i = 0; i < g.length; i++) sum += g[i] * g[i];
    total += f(Math.sqrt(sum)) ** 2;
  }
  total = f(Math.sqrt(total));
  if (maxNorm !== undefined && maxNorm !== null) {
    const coef = Math.min(1, f(maxNorm / f(total + 1e-6)));
    if (coef < 1) for (const g of Object.values(grads)) for (let i = 0; i < g.length; i++) g[i] = f(g[i] * coef);
  }
  return total;
}
