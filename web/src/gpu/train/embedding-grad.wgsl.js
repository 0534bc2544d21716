// The token embedding's gradient, a scatter-add without float atomics (WGSL has none):
//   gTok[v, c] = Σ_{n : token[n] = v} dh[n, c]
// The token ids come from the CPU with each batch, so the CPU groups the positions by token id there (a
// counting sort, O(N + V)) into `positions`: V + 1 start offsets, then the positions in order. One
// invocation per (v, c) then sums its token's rows: O(N·d) work in all, each output written by exactly one
// invocation, deterministic, in the JS loop's order. (Sort-free scanning of all N positions per (v, c) costs
// O(V·N·d); a segmented reduction on the GPU would need a GPU sort of ids the CPU already holds.)
import { boundedReads, passHead, perElement, u32, uniforms } from '../wgsl.js';

export const EMBEDDING_GRAD_UNIFORMS = uniforms(u32('vocab', 'd', 'offsetOut', 'accumulate'));

export const embeddingGradWgsl = /* wgsl */ `
${passHead(EMBEDDING_GRAD_UNIFORMS, 64, [['dh', 'read'], ['positions', 'read', 'u32'], ['grads', 'read_write']])}

${boundedReads(['readPosition', 'positions', 'u32'], ['readRow', 'dh'])}
${perElement(`
  if (index >= params.vocab * params.d) { return; }
  let v = index / params.d;
  let c = index % params.d;
  let start = readPosition(v);
  let end = readPosition(v + 1u);
  var sum = 0.0;
  for (var p = start; p < end; p++) {
    sum += readRow(readPosition(params.vocab + 1u + p) * params.d + c);
  }
  let out = params.offsetOut + index;
  if (out < arrayLength(&grads)) { grads[out] = select(0.0, grads[out], params.accumulate != 0u) + sum; }`)}
`;
