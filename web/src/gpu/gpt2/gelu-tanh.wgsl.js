// GPT-2's GELU in place: y ← 0.5·y·(1 + tanh(√(2/π)·(y + 0.044715·y³))), over the first `count` floats. The tanh
// argument is clamped to ±10 (tanh is ±1 in float32 well before): some tanh implementations divide ∞ by ∞.
import { u32, uniforms } from '../wgsl.js';

export const GELU_TANH_UNIFORMS = uniforms(u32('count'));

export const geluTanhWgsl = /* wgsl */ `
${GELU_TANH_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 256u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read_write> y: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>, @builtin(num_workgroups) groups: vec3<u32>) {
  let index = id.y * groups.x * WORKGROUP_SIZE + id.x;
  if (index >= params.count || index >= arrayLength(&y)) { return; }
  let x = y[index];
  let inner = clamp(0.7978845608028654 * (x + 0.044715 * x * x * x), -10.0, 10.0);
  y[index] = 0.5 * x * (1.0 + tanh(inner));
}
`;
