// The model's input: h[n, c] = tok_emb[token[n], c] + pos_emb[n mod T, c], for the N = B·T positions of a
// batch; both tables are read from the flat parameter buffer at their offsets. One invocation per (n, c).

export const embeddingWgsl = /* wgsl */ `
struct Params { rows: u32, d: u32, T: u32, offsetTok: u32, offsetPos: u32, pad0: u32, pad1: u32, pad2: u32 }

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> tokens: array<u32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<storage, read_write> h: array<f32>;

fn readToken(n: u32) -> u32 { if (n < arrayLength(&tokens)) { return tokens[n]; } return 0u; }
fn readWeight(index: u32) -> f32 { if (index < arrayLength(&weights)) { return weights[index]; } return 0.0; }

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.rows * params.d || index >= arrayLength(&h)) { return; }
  let n = index / params.d;
  let c = index % params.d;
  h[index] = readWeight(params.offsetTok + readToken(n) * params.d + c) + readWeight(params.offsetPos + (n % params.T) * params.d + c);
}
`;
