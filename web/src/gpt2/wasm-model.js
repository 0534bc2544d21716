// GPT-2 on the fast path: the checkpoint's parameters copied once into the WASM heap
// (cpp/kernels/gpt2_inference.h, in gpt2ParameterShapes' order) and its matrices packed once for the GEMM,
// then each forward one call into C++ on the packed GEMM and the fused causal attention (or, with
// `attention`, the per-head softmax that keeps the weights).
import { gpt2ParameterShapes } from './checkpoint.js';

const MIB = 2 ** 20;

/** The resident model of a loaded WASM backend (backends/wasm.js createGpt2Model) for config and parameters. */
export function createWasmGpt2(backend, config, parameters) {
  const shapes = gpt2ParameterShapes(config);
  const floats = Object.values(shapes).reduce((n, shape) => n + shape.reduce((a, b) => a * b, 1), 0);
  const { bytesAvailable } = backend.heapStats();
  // the parameters and their packed copy (about as many floats: the matrices, columns padded to 8)
  if (2 * floats * 4 > bytesAvailable) {
    throw new Error(`createGpt2: the model's ${floats} parameters and their packed copy need ${Math.ceil(2 * floats * 4 / MIB)} MiB in the WASM heap; it has ${Math.floor(bytesAvailable / MIB)} MiB left`);
  }
  const { vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEpsilon } = config;
  let model = backend.createGpt2Model(vocabSize, contextLength, dModel, heads, layers, dMlp, layerNormEpsilon);
  let offset = 0;
  for (const [name, shape] of Object.entries(shapes)) {
    model.parameters().set(parameters[name].data, offset); // a fresh view each time: the heap may have grown
    offset += shape.reduce((a, b) => a * b, 1);
  }
  const packed = model.pack();
  if (packed instanceof Error) {
    model.delete();
    throw packed;
  }
  return {
    /** {logits (T·V floats), attention: [layer] (H·T·T floats) or null}, copied out of the heap. */
    forward(tokens, headsOff, attention) {
      if (!model) throw new Error('gpt2.forward: the model was disposed');
      const result = model.forward(Int32Array.from(tokens), headsOff, attention);
      if (result instanceof Error) throw result;
      return {
        logits: model.logits().slice(),
        attention: attention ? Array.from({ length: layers }, (_, l) => model.attention(l).slice()) : null,
      };
    },
    dispose() {
      model?.delete();
      model = null;
    },
  };
}
