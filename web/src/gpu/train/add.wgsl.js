// out = a + b elementwise: the residual stream (h + out_proj(…)) and the sum of the three projections'
// input gradients. out is its own buffer (WebGPU does not bind one buffer as both read and read_write).
import { boundedReads, passHead, perElement, u32, uniforms } from '../wgsl.js';

export const ADD_UNIFORMS = uniforms(u32('count'));

export const addWgsl = /* wgsl */ `
${passHead(ADD_UNIFORMS, 256, [['a', 'read'], ['b', 'read'], ['out', 'read_write']])}

${boundedReads(['readA', 'a'], ['readB', 'b'])}
${perElement(`
  if (index >= params.count || index >= arrayLength(&out)) { return; }
  out[index] = readA(index) + readB(index);`)}
`;
