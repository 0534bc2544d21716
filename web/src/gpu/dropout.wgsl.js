// Dropout on the attention weights: dropped[i] = weights[i] · keep(i) / (1 − p), elementwise over the flat
// row-major index i of the whole weights tensor. keep(i) is the counter-based rule of docs/api.md
// (u(seed, i) = (lowbias32(i ⊕ lowbias32(seed)) >> 8) / 2²⁴ ≥ p), so every backend drops the same elements.
// lowbias32(seed) is computed once on the CPU and passed as seedHash.
import { LOWBIAS32, boundedReads, f32, passHead, perElement, u32, uniforms } from './wgsl.js';

export const DROPOUT_UNIFORMS = uniforms([...u32('count', 'seedHash'), ...f32('dropout', 'keepScale')]);

export const dropoutWgsl = /* wgsl */ `
${passHead(DROPOUT_UNIFORMS, 256, [['weights', 'read'], ['dropped', 'read_write']])}

${boundedReads(['readWeight', 'weights'])}
fn writeDropped(index: u32, value: f32) {
  if (index < arrayLength(&dropped)) { dropped[index] = value; }
}
${LOWBIAS32}
${perElement(`
  if (index >= params.count) { return; }
  let u = f32(lowbias32(index ^ params.seedHash) >> 8u) / 16777216.0;
  writeDropped(index, select(0.0, readWeight(index) * params.keepScale, u >= params.dropout));`)}
`;
