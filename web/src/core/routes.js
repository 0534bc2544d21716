// The path rules a registry entry names as its own `route` (registry.js), for a function whose path depends on
// more than its options: scaledDotProductAttention ('sdpa'), whose WASM fused kernel takes only some of the
// calls the JS reference's fused form takes. planner.js runs them; the function's check reads the same rule
// for its memory estimate.
import { ENTRIES } from './registry.js';

const SDPA = ENTRIES.scaledDotProductAttention;
const given = (value) => value !== null && value !== undefined;

/**
 * Why a registry `fused` rule refuses a call's options: the reason of the first condition that fails, its
 * '{name}' replaced by the option's value; null when every condition holds (the fused path applies).
 */
export function whyNotFusedBy(rule, options) {
  for (const { option, is, onlyIf, otherwise } of rule) {
    if (onlyIf && Object.entries(onlyIf).some(([name, value]) => options[name] !== value)) continue;
    const holds = is === null ? !given(options[option]) : options[option] === is;
    if (!holds) return otherwise.replace(/\{(\w+)\}/g, (_, name) => options[name]);
  }
  return null;
}

/** scaledDotProductAttention's fused rule (its registry `fused`): the output alone, no dropoutP, no attnMask. */
export const sdpaFusedApplies = (options) => whyNotFusedBy(SDPA.fused, options) === null;

/**
 * Whether the WASM builds' fused kernel takes a call: sdpaFusedApplies, and the kernel's own limits
 * (cpp/attention/fused_rule.h sdpa_fused_applies): Ev = E (its values are as wide as its keys) and a
 * scale > 0 (its online softmax keeps the raw row max). Null when it does, else why not.
 */
function whyNotSdpaKernel(E, Ev, options) {
  if (Ev !== E) return `Ev=${Ev} ≠ E=${E}: the teaching code, output only (the WASM fused kernel's values are as wide as its keys)`;
  const scale = Math.fround(options.scale ?? 1 / Math.sqrt(E));
  if (!(scale > 0)) return `scale ${options.scale} ≤ 0: the teaching code, output only (the WASM fused kernel needs a scale > 0)`;
  return null;
}

/**
 * scaledDotProductAttention's path on a backend, for queries and keys of width E and values of width Ev: the
 * one rule behind lastCall (plan) and the memory estimate (its check, reference/scaled-dot-product-attention.js).
 * js and webgpu run the JS reference, whose row-at-a-time fused form takes any Ev and scale; the WASM builds'
 * fused kernel (attention_heads_fused, the leading axes as batch×heads) only within its limits. `stages`: the
 * (…, L, S) stages the teaching code holds, 5, or 1 where the WASM teaching code returns the output alone
 * (cpp/attention/scaled_dot_product_attention.cpp).
 * @returns {{path: 'fused'|'teaching', reason: string, stages: number}}
 */
export function sdpaRoute(E, Ev, options, backendName) {
  const reference = backendName === 'js' || backendName === 'webgpu';
  const onGpu = backendName === 'webgpu' ? `${SDPA.gpuReason}; ` : '';
  if (!sdpaFusedApplies(options)) {
    return { path: 'teaching', reason: `${onGpu}${whyNotFusedBy(SDPA.fused, options)}`, stages: !reference && options.intermediates === false ? 1 : 5 };
  }
  if (reference) return { path: 'fused', reason: `${onGpu}intermediates false, no dropoutP, no attnMask: the JS reference's row-at-a-time fused form`, stages: 0 };
  const notKernel = whyNotSdpaKernel(E, Ev, options);
  return notKernel ? { path: 'teaching', reason: notKernel, stages: 1 }
    : { path: 'fused', reason: 'intermediates false, no dropoutP, no attnMask: the fused kernel, the leading axes as batch×heads', stages: 0 };
}

/** Each route's plan on one thread: (args, options, backendName) → {path, reason}. */
export const ROUTES = Object.freeze({
  sdpa([query, , value], options, backendName) {
    const { path, reason } = sdpaRoute(query.shape[query.shape.length - 1], value.shape[value.shape.length - 1], options, backendName);
    return { path, reason };
  },
});
