// GPT-2-family checkpoints in Hugging Face's layout (docs/api.md "GPT-2"): the byte-level BPE tokenizer, the
// loader (URL, picked files, a directory in Node), and the model interface on the JS reference, the WASM fast
// path, or composed of a loaded attention API. Also importable alone as 'attention-playground/gpt2'.
export { ABLATIONS, createGpt2 } from './model.js';
export { hubUrl, loadGpt2FromDirectory, loadGpt2FromFiles, loadGpt2FromUrl } from './load.js';
export { CHECKPOINT_CACHE, forgetCheckpoints, isCached } from './fetch-file.js';
export { gpt2Config, gpt2ParameterCount, gpt2ParameterShapes } from './checkpoint.js';
export { checkGpt2Memory, gpt2MemoryBytes, gpt2WorkerMemoryBytes, planGpt2Memory } from './memory.js';
export { GPT2_WORKER_CROSSOVER, planGpt2Workers } from './worker-plan.js';
export { gpt2ParametersFromSafetensors } from './checkpoint-stream.js';
export { createBpeTokenizer, parseMerges, tokenizerFromJson, tokenizerFromVocabAndMerges } from './bpe-tokenizer.js';
export { pretokenize } from './pretokenize.js';
