// The token embedding's gradient, a scatter-add without float atomics (WGSL has none):
//   gTok[v, c] = Σ_{n : token[n] = v} dh[n, c]
// The token ids come from the CPU with each batch, so the CPU groups the positions by token id there (a
// counting sort, O(N + V)) into `positions`: V + 1 start offsets, then the positions in order. One
// invocation per (v, c) then sums its token's rows: O(N·d) work in all, each output written by exactly one
// invocation, deterministic, in the JS loop's order. (Sort-free scanning of all N positions per (v, c) costs
// O(V·N·d); a segmented reduction on the GPU would need a GPU sort of ids the CPU already holds.)
import { boundedReads, u32, uniforms } from '../wgsl.js';

export const EMBEDDING_GRAD_UNIFORMS = uniforms(u32('vocab', 'd', 'offsetOut', 'accumulate'));

export const embeddingGradWgsl = /* wgsl */ `
${EMBEDDING_GRAD_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> dh: array<f32>;
@group(0) @binding(2) var<storage, read> positions: array<u32>;
@group(0) @binding(3) var<storage, read_write> grads: array<f32>;

${boundedReads(['readPosition', 'positions', 'u32'], ['readRow', 'dh'])}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
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
  if (out < arrayLength(&grads)) { grads[out] = select(0.0, grads[out], params.accumulate != 0u) + sum; }
}
`;
