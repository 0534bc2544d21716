// Multi-head attention forward that also returns each row's log-sum-exp, for the backward to recompute
// the weights from (FlashAttention-2): per (batch, head) and query row i, over keys j (j ≤ i when causal),
//   s_ij = scale · q_i·k_j;   lse_i = log Σ_j exp(s_ij);   o_i = Σ_j exp(s_ij − lse_i) · v_j
// with an online softmax (running max m and sum l, the accumulator rescaled by exp(m_old − m_new)), so no
// T×T matrix is stored. q, k, v, o: (B, T, d) with head h in columns [h·d_head, (h+1)·d_head); lse: (B, H, T).
// One invocation per (query row, batch·head); the accumulator is a private array of HEAD_DIM_MAX floats.

export function attentionLseWgsl(headDimMax) {
  return /* wgsl */ `
struct Params { T: u32, headDim: u32, heads: u32, rowStride: u32, scale: f32, causal: u32, pad0: u32, pad1: u32 }

override WORKGROUP_SIZE: u32 = 64u;
const HEAD_DIM_MAX: u32 = ${headDimMax}u;
const LOWEST_F32: f32 = bitcast<f32>(0xff7fffffu);

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read_write> o: array<f32>;
@group(0) @binding(5) var<storage, read_write> lse: array<f32>;

fn readQ(index: u32) -> f32 { if (index < arrayLength(&q)) { return q[index]; } return 0.0; }
fn readK(index: u32) -> f32 { if (index < arrayLength(&k)) { return k[index]; } return 0.0; }
fn readV(index: u32) -> f32 { if (index < arrayLength(&v)) { return v[index]; } return 0.0; }

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let matrix = id.y;                       // b·H + h
  if (i >= params.T || matrix >= arrayLength(&lse) / max(params.T, 1u)) { return; }
  let b = matrix / params.heads;
  let h = matrix % params.heads;
  // (B, T, H·d_head) read in place: row (b, t) of head h starts at (b·T + t)·rowStride + h·d_head
  let head = h * params.headDim;
  let qRow = (b * params.T + i) * params.rowStride + head;
  let last = select(params.T, i + 1u, params.causal != 0u);
  var acc: array<f32, HEAD_DIM_MAX>;
  var m = LOWEST_F32;
  var l = 0.0;
  for (var j = 0u; j < last; j++) {
    let kRow = (b * params.T + j) * params.rowStride + head;
    var dot = 0.0;
    for (var c = 0u; c < params.headDim; c++) { dot += readQ(qRow + c) * readK(kRow + c); }
    let s = params.scale * dot;
    let mNew = max(m, s);
    let correction = exp(m - mNew);
    let weight = exp(s - mNew);
    l = l * correction + weight;
    for (var c = 0u; c < params.headDim; c++) { acc[c] = acc[c] * correction + weight * readV(kRow + c); }
    m = mNew;
  }
  for (var c = 0u; c < params.headDim; c++) {
    if (qRow + c < arrayLength(&o)) { o[qRow + c] = acc[c] / l; }
  }
  lse[matrix * params.T + i] = m + log(l);
}
`;
}
