// Tiled f32 GEMM: C[z] = alpha · A[z] · op(B[z]) + bias[z], for every z of a two-level batch (outer, inner).
//
//   A: (M, K) row-major, B: (K, N), or (N, K) when TRANSPOSE_B (Q·Kᵀ without materialising Kᵀ),
//   C: (M, N), bias: (N) added to every row.
//
// Every matrix is addressed by an offset, a row stride and two batch strides (in elements), so the attention
// code reads one head's slice of a projection in place: head h of Q (B, T, d_out) is offset h·d_head, row
// stride d_out. A batch stride of 0 broadcasts (the causal-average weights over B).
//
// Each workgroup computes a TILE_M × TILE_N block of C; each invocation a 4×4 block of it, accumulated
// over K in TILE_K-deep slices staged in workgroup memory. Each invocation stages 4 consecutive elements
// of A and of B per slice: one vec4 load when the operand is bound as array<vec4<f32>> (row lengths,
// strides and offsets multiples of 4), four bounds-checked scalar loads otherwise. Out-of-range elements
// read as 0, so any M, N, K works, including sizes below one tile.
//
// WGSL cannot choose a binding's element type by an override, so the scalar/vec4 choice is made when the
// text is built, as is staging (variant 1, tiles in workgroup memory) or not (variant 2, for CPU-emulated
// adapters, where barriers are dear); the workgroup size and the transposition are overrides.
import { bindings, boundedReads, f32, u32, uniforms } from './wgsl.js';

export const GEMM_UNIFORMS = uniforms([...u32('M', 'N', 'K', 'batchInner'), ...f32('alpha'), ...u32('hasBias',
  'aOffset', 'aRowStride', 'aOuterStride', 'aInnerStride', 'bOffset', 'bRowStride', 'bOuterStride', 'bInnerStride',
  'cOffset', 'cRowStride', 'cOuterStride', 'cInnerStride', 'biasOffset', 'biasOuterStride', 'biasInnerStride')]);

/**
 * @param {{vec4A: boolean, vec4B: boolean, staged?: boolean}} variant which operands are read with vec4
 *   loads; staged (variant 1, the default) uses the workgroup-memory tiles, unstaged (variant 2) reads
 *   the operands directly and suits CPU-emulated adapters (SwiftShader)
 * @returns {string} WGSL source
 */
export function gemmWgsl({ vec4A, vec4B, staged = true }) {
  return /* wgsl */ `
${GEMM_UNIFORMS.struct}

// 16 × 16 invocations, 4 × 4 outputs each: a 64 × 64 block of C per workgroup.
override WORKGROUP_SIDE: u32 = 16u;
override TRANSPOSE_B: bool = false;
const TILE_K: u32 = 16u;
const OUT_PER_THREAD: u32 = 4u;
override TILE_MN: u32 = WORKGROUP_SIDE * OUT_PER_THREAD;

${bindings([['a', 'read', vec4A ? 'vec4<f32>' : 'f32'], ['b', 'read', vec4B ? 'vec4<f32>' : 'f32'], ['bias', 'read'], ['c', 'read_write']])}

// tileA[m][k], tileB[k][n]: the current K-slice of A's rows and op(B)'s columns.
var<workgroup> tileA: array<f32, WORKGROUP_SIDE * OUT_PER_THREAD * TILE_K>;
var<workgroup> tileB: array<f32, WORKGROUP_SIDE * OUT_PER_THREAD * TILE_K>;

${vec4A ? `
fn loadA4(base: u32, row: u32, k: u32) -> vec4<f32> {
  // k is a multiple of 4 and so is K: the four elements are all in range or all out.
  let index = (base + row * params.aRowStride + k) / 4u;
  if (row < params.M && k < params.K && index < arrayLength(&a)) { return a[index]; }
  return vec4<f32>(0.0);
}` : `
${boundedReads(['readA', 'a'])}
fn loadA4(base: u32, row: u32, k: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  if (row < params.M) {
    for (var i = 0u; i < 4u; i++) {
      if (k + i < params.K) { v[i] = readA(base + row * params.aRowStride + k + i); }
    }
  }
  return v;
}`}

${vec4B ? `
// Four consecutive elements of one stored row of B: along N for B (K, N), along K for B (N, K).
fn loadB4(base: u32, row: u32, col: u32, rows: u32, cols: u32) -> vec4<f32> {
  let index = (base + row * params.bRowStride + col) / 4u;
  if (row < rows && col < cols && index < arrayLength(&b)) { return b[index]; }
  return vec4<f32>(0.0);
}` : `
${boundedReads(['readB', 'b'])}
fn loadB4(base: u32, row: u32, col: u32, rows: u32, cols: u32) -> vec4<f32> {
  var v = vec4<f32>(0.0);
  if (row < rows) {
    for (var i = 0u; i < 4u; i++) {
      if (col + i < cols) { v[i] = readB(base + row * params.bRowStride + col + i); }
    }
  }
  return v;
}`}

${boundedReads(['readBias', 'bias'])}

fn writeC(index: u32, value: f32) {
  if (index < arrayLength(&c)) { c[index] = value; }
}

@compute @workgroup_size(WORKGROUP_SIDE, WORKGROUP_SIDE, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  let outer = group.z / params.batchInner;
  let inner = group.z % params.batchInner;
  let aBase = params.aOffset + outer * params.aOuterStride + inner * params.aInnerStride;
  let bBase = params.bOffset + outer * params.bOuterStride + inner * params.bInnerStride;
  let cBase = params.cOffset + outer * params.cOuterStride + inner * params.cInnerStride;

  let rowStart = group.y * TILE_MN;
  let colStart = group.x * TILE_MN;
  let thread = local.y * WORKGROUP_SIDE + local.x;
  let threads = WORKGROUP_SIDE * WORKGROUP_SIDE;

  var acc: array<vec4<f32>, 4>;
${staged ? `  for (var kStart = 0u; kStart < params.K; kStart += TILE_K) {
    // 1. Stage A's TILE_MN × TILE_K slice, 4 consecutive k per load.
    for (var slot = thread; slot < TILE_MN * TILE_K / 4u; slot += threads) {
      let m = slot / (TILE_K / 4u);
      let k = (slot % (TILE_K / 4u)) * 4u;
      let v = loadA4(aBase, rowStart + m, kStart + k);
      for (var i = 0u; i < 4u; i++) { tileA[m * TILE_K + k + i] = v[i]; }
    }
    // 2. Stage op(B)'s TILE_K × TILE_MN slice as tileB[k][n].
    for (var slot = thread; slot < TILE_MN * TILE_K / 4u; slot += threads) {
      if (TRANSPOSE_B) {
        // B stored (N, K): 4 consecutive k of column n.
        let n = slot / (TILE_K / 4u);
        let k = (slot % (TILE_K / 4u)) * 4u;
        let v = loadB4(bBase, colStart + n, kStart + k, params.N, params.K);
        for (var i = 0u; i < 4u; i++) { tileB[(k + i) * TILE_MN + n] = v[i]; }
      } else {
        // B stored (K, N): 4 consecutive n of row k.
        let k = slot / (TILE_MN / 4u);
        let n = (slot % (TILE_MN / 4u)) * 4u;
        let v = loadB4(bBase, kStart + k, colStart + n, params.K, params.N);
        for (var i = 0u; i < 4u; i++) { tileB[k * TILE_MN + n + i] = v[i]; }
      }
    }
    workgroupBarrier();

    // 3. acc[i][j] += Σ_k A[row i, k] · op(B)[k, col j] over this slice.
    for (var k = 0u; k < TILE_K; k++) {
      let bRow = vec4<f32>(
        tileB[k * TILE_MN + local.x * 4u], tileB[k * TILE_MN + local.x * 4u + 1u],
        tileB[k * TILE_MN + local.x * 4u + 2u], tileB[k * TILE_MN + local.x * 4u + 3u]);
      for (var i = 0u; i < 4u; i++) {
        acc[i] += tileA[(local.y * 4u + i) * TILE_K + k] * bRow;
      }
    }
    workgroupBarrier();
  }

` : `  // Without staging: each invocation reads its 4 rows of A and 4 columns of op(B) straight from the
  // buffers, 4 k at a time. No barriers: on SwiftShader (a CPU) workgroup memory and barriers cost more
  // than they save, the caches already doing the staging's job.
  for (var k = 0u; k < params.K; k += 4u) {
    var bSlice: array<vec4<f32>, 4>; // bSlice[t] = op(B)[k + t, 4 columns]
    let col = colStart + local.x * 4u;
    if (TRANSPOSE_B) {
      for (var j = 0u; j < 4u; j++) {
        let v = loadB4(bBase, col + j, k, params.N, params.K);
        bSlice[0][j] = v.x; bSlice[1][j] = v.y; bSlice[2][j] = v.z; bSlice[3][j] = v.w;
      }
    } else {
      for (var t = 0u; t < 4u; t++) { bSlice[t] = loadB4(bBase, k + t, col, params.K, params.N); }
    }
    for (var i = 0u; i < 4u; i++) {
      let aRow = loadA4(aBase, rowStart + local.y * 4u + i, k);
      acc[i] += aRow.x * bSlice[0] + aRow.y * bSlice[1] + aRow.z * bSlice[2] + aRow.w * bSlice[3];
    }
  }

`}  // 4. C = alpha · acc + bias, only for the rows and columns that exist.
  let biasBase = params.biasOffset + outer * params.biasOuterStride + inner * params.biasInnerStride;
  for (var i = 0u; i < 4u; i++) {
    let row = rowStart + local.y * 4u + i;
    for (var j = 0u; j < 4u; j++) {
      let col = colStart + local.x * 4u + j;
      if (row < params.M && col < params.N) {
        var value = params.alpha * acc[i][j];
        if (params.hasBias != 0u) { value += readBias(biasBase + col); }
        writeC(cBase + row * params.cRowStride + col, value);
      }
    }
  }
}
`;
}
