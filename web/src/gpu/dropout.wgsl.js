// Dropout on the attention weights: dropped[i] = weights[i] · keep(i) / (1 − p), elementwise over the flat
// row-major index i of the whole weights tensor. keep(i) is the counter-based rule of docs/api.md
// (u(seed, i) = (lowbias32(i ⊕ lowbias32(seed)) >> 8) / 2²⁴ ≥ p), so every backend drops the same elements.
// lowbias32(seed) is computed once on the CPU and passed as seedHash.
import { boundedReads, f32, u32, uniforms } from './wgsl.js';

export const DROPOUT_UNIFORMS = uniforms([...u32('count', 'seedHash'), ...f32('dropout', 'keepScale')]);

export const dropoutWgsl = /* wgsl */ `
${DROPOUT_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> weights: array<f32>;
@group(0) @binding(2) var<storage, read_write> dropped: array<f32>;

${boundedReads(['readWeight', 'weights'])}
fn writeDropped(index: u32, value: f32) {
  if (index < arrayLength(&dropped)) { dropped[index] = value; }
}

fn lowbias32(input: u32) -> u32 {
  var x = input;
  x ^= x >> 16u; x *= 0x7feb352du; x ^= x >> 15u; x *= 0x846ca68bu; x ^= x >> 16u;
  return x;
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.count) { return; }
  let u = f32(lowbias32(index ^ params.seedHash) >> 8u) / 16777216.0;
  writeDropped(index, select(0.0, readWeight(index) * params.keepScale, u >= params.dropout));
}
`;
