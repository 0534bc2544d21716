// out = a + b elementwise: the residual stream (h + out_proj(…)) and the sum of the three projections'
// input gradients. out is its own buffer (WebGPU does not bind one buffer as both read and read_write).
import { boundedReads, u32, uniforms } from '../wgsl.js';

export const ADD_UNIFORMS = uniforms(u32('count'));

export const addWgsl = /* wgsl */ `
${ADD_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> a: array<f32>;
@group(0) @binding(2) var<storage, read> b: array<f32>;
@group(0) @binding(3) var<storage, read_write> out: array<f32>;

${boundedReads(['readA', 'a'], ['readB', 'b'])}

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.count || index >= arrayLength(&out)) { return; }
  out[index] = readA(index) + readB(index);
}
`;
