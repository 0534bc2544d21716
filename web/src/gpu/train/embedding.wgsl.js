// The model's input: h[n, c] = tok_emb[token[n], c] + pos_emb[n mod T, c], for the N = B·T positions of a
// batch; both tables are read from the flat parameter buffer at their offsets. One invocation per (n, c).
import { boundedReads, u32, uniforms } from '../wgsl.js';

export const EMBEDDING_UNIFORMS = uniforms(u32('rows', 'd', 'T', 'offsetTok', 'offsetPos'));

export const embeddingWgsl = /* wgsl */ `
${EMBEDDING_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> h: array<f32>;

fn readToken(n: u32) -> u32 { if (n < arrayLength(&tokens)) { return tokens[n]; } return 0u; }
${boundedReads(['readWeight', 'weights'])}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.rows * params.d || index >= arrayLength(&h)) { return; }
  let n = index / params.d;
  let c = index % params.d;
  h[index] = readWeight(params.offsetTok + readToken(n) * params.d + c) + readWeight(params.offsetPos + (n % params.T) * params.d + c);
}
`;
