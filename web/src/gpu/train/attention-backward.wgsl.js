// Multi-head attention backward with the weights recomputed from the forward's lse (FlashAttention-2), no
// T×T matrix stored, no atomics: two kernels, each output row written by one invocation.
//   p_ij = exp(scale·q_i·k_j − lse_i)   (0 for j > i when causal);   D_i = Σ_c dO_ic·O_ic (= Σ_j p_ij dp_ij)
//   dp_ij = dO_i·v_j;   ds_ij = p_ij (dp_ij − D_i)
//   stage 1, per query row i:  dq_i = scale · Σ_j ds_ij k_j;   also writes D_i
//   stage 2, per key row j:    dv_j = Σ_i p_ij dO_i;   dk_j = scale · Σ_i ds_ij q_i
// Layouts as attention-lse.wgsl.js: q, k, v, O, dO, dq, dk, dv (B, T, d) with heads in place; lse, D (B, H, T).
// This is causalAttentionBackward of web/src/train/ops.js with D_i for its Σ_j P dP.

const common = (headDimMax) => /* wgsl */ `
struct Params { T: u32, headDim: u32, heads: u32, rowStride: u32, scale: f32, causal: u32, pad0: u32, pad1: u32 }

override WORKGROUP_SIZE: u32 = 64u;
const HEAD_DIM_MAX: u32 = ${headDimMax}u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> q: array<f32>;
@group(0) @binding(2) var<storage, read> k: array<f32>;
@group(0) @binding(3) var<storage, read> v: array<f32>;
@group(0) @binding(4) var<storage, read> dO: array<f32>;
@group(0) @binding(5) var<storage, read> lse: array<f32>;

fn readQ(index: u32) -> f32 { if (index < arrayLength(&q)) { return q[index]; } return 0.0; }
fn readK(index: u32) -> f32 { if (index < arrayLength(&k)) { return k[index]; } return 0.0; }
fn readV(index: u32) -> f32 { if (index < arrayLength(&v)) { return v[index]; } return 0.0; }
fn readDO(index: u32) -> f32 { if (index < arrayLength(&dO)) { return dO[index]; } return 0.0; }
fn readLse(index: u32) -> f32 { if (index < arrayLength(&lse)) { return lse[index]; } return 0.0; }

// Row t of head h in batch b, read in place from (B, T, H·d_head).
fn rowStart(b: u32, t: u32, h: u32) -> u32 { return (b * params.T + t) * params.rowStride + h * params.headDim; }

// p_ij and dp_ij = dO_i·v_j, recomputed.
fn weightAndGrad(qRow: u32, kRow: u32, lseIndex: u32) -> vec2<f32> {
  var dot = 0.0;
  var dp = 0.0;
  for (var c = 0u; c < params.headDim; c++) {
    dot += readQ(qRow + c) * readK(kRow + c);
    dp += readDO(qRow + c) * readV(kRow + c);
  }
  return vec2<f32>(exp(params.scale * dot - readLse(lseIndex)), dp);
}
`;

/** Stage 1: dq and D, one invocation per (query row, batch·head). Binds O at 6, dq at 7, D at 8. */
export function attentionBackwardQueryWgsl(headDimMax) {
  return /* wgsl */ `${common(headDimMax)}
@group(0) @binding(6) var<storage, read> o: array<f32>;
@group(0) @binding(7) var<storage, read_write> dq: array<f32>;
@group(0) @binding(8) var<storage, read_write> D: array<f32>;

fn readO(index: u32) -> f32 { if (index < arrayLength(&o)) { return o[index]; } return 0.0; }

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let matrix = id.y;
  if (i >= params.T || matrix * params.T + i >= arrayLength(&D)) { return; }
  let b = matrix / params.heads;
  let h = matrix % params.heads;
  let qRow = rowStart(b, i, h);
  var d = 0.0;
  for (var c = 0u; c < params.headDim; c++) { d += readDO(qRow + c) * readO(qRow + c); }
  D[matrix * params.T + i] = d;
  let last = select(params.T, i + 1u, params.causal != 0u);
  var acc: array<f32, HEAD_DIM_MAX>;
  for (var j = 0u; j < last; j++) {
    let kRow = rowStart(b, j, h);
    let pd = weightAndGrad(qRow, kRow, matrix * params.T + i);
    let ds = pd.x * (pd.y - d);
    for (var c = 0u; c < params.headDim; c++) { acc[c] += ds * readK(kRow + c); }
  }
  for (var c = 0u; c < params.headDim; c++) {
    if (qRow + c < arrayLength(&dq)) { dq[qRow + c] = params.scale * acc[c]; }
  }
}
`;
}

/** Stage 2: dk and dv, one invocation per (key row, batch·head); reads stage 1's D at 6. */
export function attentionBackwardKeyWgsl(headDimMax) {
  return /* wgsl */ `${common(headDimMax)}
@group(0) @binding(6) var<storage, read> D: array<f32>;
@group(0) @binding(7) var<storage, read_write> dk: array<f32>;
@group(0) @binding(8) var<storage, read_write> dv: array<f32>;

fn readD(index: u32) -> f32 { if (index < arrayLength(&D)) { return D[index]; } return 0.0; }

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let j = id.x;
  let matrix = id.y;
  if (j >= params.T || matrix * params.T + j >= arrayLength(&D)) { return; }
  let b = matrix / params.heads;
  let h = matrix % params.heads;
  let kRow = rowStart(b, j, h);
  let first = select(0u, j, params.causal != 0u);
  var accK: array<f32, HEAD_DIM_MAX>;
  var accV: array<f32, HEAD_DIM_MAX>;
  for (var i = first; i < params.T; i++) {
    let qRow = rowStart(b, i, h);
    let pd = weightAndGrad(qRow, kRow, matrix * params.T + i);
    let ds = pd.x * (pd.y - readD(matrix * params.T + i));
    for (var c = 0u; c < params.headDim; c++) {
      accV[c] += pd.x * readDO(qRow + c);
      accK[c] += ds * readQ(qRow + c);
    }
  }
  for (var c = 0u; c < params.headDim; c++) {
    if (kRow + c < arrayLength(&dk)) { dk[kRow + c] = params.scale * accK[c]; }
    if (kRow + c < arrayLength(&dv)) { dv[kRow + c] = accV[c]; }
  }
}
`;
}
