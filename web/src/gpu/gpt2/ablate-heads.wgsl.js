// Heads switched off in a context (rows, cols) in place, cols = heads·dHead (GPT-2's ablation, before c_proj):
// column c belongs to head c / dHead, whose flag is 0 (on), 1 (zeros) or 2 (the column's mean over the rows).
// One invocation per column.
import { u32, uniforms } from '../wgsl.js';

export const ABLATE_HEADS_UNIFORMS = uniforms(u32('rows', 'cols', 'dHead'));

export const ablateHeadsWgsl = /* wgsl */ `
${ABLATE_HEADS_UNIFORMS.struct}

override WORKGROUP_SIZE: u32 = 64u;

@group(0) @binding(0) var<uniform> params: Params;
@group(0) @binding(1) var<storage, read> flags: array<u32>;
@group(0) @binding(2) var<storage, read_write> context: array<f32>;

@compute @workgroup_size(WORKGROUP_SIZE, 1, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= params.cols || c / params.dHead >= arrayLength(&flags)) { return; }
  let how = flags[c / params.dHead];
  if (how == 0u || (params.rows - 1u) * params.cols + c >= arrayLength(&context)) { return; }
  var mean = 0.0;
  if (how == 2u) {
    for (var t = 0u; t < params.rows; t++) { mean += context[t * params.cols + c]; }
    mean /= f32(params.rows);
  }
  for (var t = 0u; t < params.rows; t++) { context[t * params.cols + c] = mean; }
}
`;
