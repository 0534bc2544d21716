// Step 1: next-token framing. A sequence of L tokens holds L − 1 training examples: position t's
// context is tokens 0..t and its target is token t + 1.
import { checkNextTokenPairs } from './checks.js';
import { checkedOnce } from '../api-checked.js';

/**
 * nextTokenPairs(tokens): tokens (B, L) Int32 → { contexts (B, L−1), targets (B, L−1) }, Int32.
 * contexts[b, t] is the last token of position t's context (the context itself is contexts[b, 0..t]);
 * targets[b, t] is the token that follows it.
 */
export function nextTokenPairs(tokens) {
  const { B, L } = checkedOnce('nextTokenPairs', () => checkNextTokenPairs(tokens));
  const contexts = new Int32Array(B * (L - 1));
  const targets = new Int32Array(B * (L - 1));
  for (let b = 0; b < B; b++) {
    for (let t = 0; t < L - 1; t++) {
      contexts[b * (L - 1) + t] = tokens.data[b * L + t];
      targets[b * (L - 1) + t] = tokens.data[b * L + t + 1];
    }
  }
  return { contexts: { data: contexts, shape: [B, L - 1] }, targets: { data: targets, shape: [B, L - 1] } };
}
