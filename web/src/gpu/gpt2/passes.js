// GPT-2's own passes recorded into a GpuPass (../runtime.js): the tanh GELU and the ablation of heads. The rest
// of its block runs on the shared kernels: the GEMM (with its bias epilogue), LayerNorm, causal attention and
// the residual add of ../train/passes.js.
import { ABLATE_HEADS_UNIFORMS, ablateHeadsWgsl } from './ablate-heads.wgsl.js';
import { GELU_TANH_UNIFORMS, geluTanhWgsl } from './gelu-tanh.wgsl.js';

const ELEMENTWISE_THREADS = 256;
const COLUMN_THREADS = 64;

/** y ← gelu_tanh(y) over all of y, in place. */
export function geluTanh(pass, { y }) {
  const pipeline = pass.runtime.pipeline({ key: 'gpt2 gelu tanh', source: () => geluTanhWgsl, constants: { WORKGROUP_SIZE: ELEMENTWISE_THREADS } });
  pass.dispatch(pipeline, 'gelu tanh', [pass.uniform(GELU_TANH_UNIFORMS.pack({ count: y.length }), 'gelu tanh'), y.buffer],
    pass.spread(Math.ceil(y.length / ELEMENTWISE_THREADS)));
}

/** The heads `flags` (a u32 tensor, one per head: 0 on, 1 zeros, 2 mean) switches off in context (rows, cols), in place. */
export function ablateHeads(pass, { context, flags, rows, cols, dHead }) {
  const pipeline = pass.runtime.pipeline({ key: 'gpt2 ablate heads', source: () => ablateHeadsWgsl, constants: { WORKGROUP_SIZE: COLUMN_THREADS } });
  pass.dispatch(pipeline, 'ablate heads', [pass.uniform(ABLATE_HEADS_UNIFORMS.pack({ rows, cols, dHead }), 'ablate heads'), flags.buffer, context.buffer],
    [Math.ceil(cols / COLUMN_THREADS), 1, 1]);
}
