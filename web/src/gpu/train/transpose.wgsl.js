// out (cols, rows) = inᵀ for `in` (rows, cols), batched: the transposed left operand that gemm.wgsl.js does
// not take, so a linear layer's weight gradient gW (out, in) = dyᵀ·x is this then the GEMM. 16×16 tiles
// through workgroup memory, so reads and writes both walk rows.
import { bindings, u32, uniforms } from '../wgsl.js';

export const TRANSPOSE_UNIFORMS = uniforms(u32('rows', 'cols', 'offsetIn'));

export const transposeWgsl = /* wgsl */ `
${TRANSPOSE_UNIFORMS.struct}

const TILE: u32 = 16u;

${bindings([['input', 'read'], ['output', 'read_write']])}

var<workgroup> tile: array<array<f32, 17>, 16>;   // 17: no bank conflicts on the transposed read

fn readInput(r: u32, c: u32) -> f32 {
  let index = params.offsetIn + r * params.cols + c;
  if (r < params.rows && c < params.cols && index < arrayLength(&input)) { return input[index]; }
  return 0.0;
}

@compute @workgroup_size(16, 16, 1)
fn main(@builtin(workgroup_id) group: vec3<u32>, @builtin(local_invocation_id) local: vec3<u32>) {
  tile[local.y][local.x] = readInput(group.y * TILE + local.y, group.x * TILE + local.x);
  workgroupBarrier();
  let outRow = group.x * TILE + local.y;   // a column of the input
  let outCol = group.y * TILE + local.x;   // a row of the input
  let index = outRow * params.rows + outCol;
  if (outRow < params.cols && outCol < params.rows && index < arrayLength(&output)) { output[index] = tile[local.x][local.y]; }
}
`;
