// The model's input: h[n, c] = tok_emb[token[n], c] + pos_emb[n mod T, c], for the N = B·T positions of a
// batch; both tables are read from the flat parameter buffer at their offsets. One invocation per (n, c).
import { boundedReads, passHead, perElement, u32, uniforms } from '../wgsl.js';

export const EMBEDDING_UNIFORMS = uniforms(u32('rows', 'd', 'T', 'offsetTok', 'offsetPos'));

export const embeddingWgsl = /* wgsl */ `
${passHead(EMBEDDING_UNIFORMS, 256, [['tokens', 'read', 'u32'], ['weights', 'read'], ['h', 'read_write']])}

${boundedReads(['readToken', 'tokens', 'u32'], ['readWeight', 'weights'])}
${perElement(`
  if (index >= params.rows * params.d || index >= arrayLength(&h)) { return; }
  let n = index / params.d;
  let c = index % params.d;
  h[index] = readWeight(params.offsetTok + readToken(n) * params.d + c) + readWeight(params.offsetPos + (n % params.T) * params.d + c);`)}
`;
