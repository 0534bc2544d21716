// Column sums: out[offsetOut + c] = scale · Σ_r a[r·rowStride + c] (· b[r·rowStride + c] when params.product = 1), for
// c < cols, r < rows. The bias gradients (Σ over the B·T rows of dy), LayerNorm's γ and β gradients
// (Σ dy·x̂, Σ dy), the positional embedding's gradient (rows = B, rowStride = T·d, cols = T·d) and the mean
// loss (cols = 1) are all this kernel. One invocation per column walks the rows in order: the sums are
// deterministic and neighbouring invocations read neighbouring addresses.
import { boundedReads, f32, u32, uniforms } from '../wgsl.js';

export const COLUMN_SUM_UNIFORMS = uniforms([...u32('rows', 'cols', 'rowStride', 'product'), ...f32('scale'), ...u32('offsetA', 'offsetOut')]);

export const columnSumWgsl = /* wgsl */ `
${COLUMN_SUM_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> sums: array<f32>;

${boundedReads(['readA', 'a'])}
fn readB(index: u32) -> f32 {
  if (params.product == 0u) { return 1.0; }
  if (index < arrayLength(&b)) { return b[index]; }
  return 0.0;
}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let c = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (c >= params.cols || params.offsetOut + c >= arrayLength(&sums)) { return; }
  var sum = 0.0;
  for (var r = 0u; r < params.rows; r++) {
    let index = r * params.rowStride + c;
    sum += readA(params.offsetA + index) * readB(index);
  }
  sums[params.offsetOut + c] = sum * params.scale;
}
`;
