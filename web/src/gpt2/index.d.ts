// Types of 'attention-playground/gpt2' (docs/api.md "GPT-2").

/** A float32 tensor. */
export interface Tensor { data: Float32Array; shape: number[] }

/** config.json's sizes. */
export interface Gpt2Config {
  vocabSize: number; contextLength: number; dModel: number; layers: number; heads: number; dMlp: number; layerNormEpsilon: number;
}

/** GPT-2's byte-level BPE. */
export interface BpeTokenizer {
  /** Token ids of text ('<|endoftext|>' and tokenizer.json's added tokens match whole). */
  encode(text: string): number[];
  /** The text of token ids (invalid UTF-8 shows U+FFFD). */
  decode(ids: ArrayLike<number>): string;
  /** Each token on its own, as text. */
  tokenStrings(ids: ArrayLike<number>): string[];
  readonly vocabSize: number;
  readonly specialTokens: readonly string[];
  idOf(symbol: string): number | undefined;
  symbolOf(id: number): string | undefined;
}

/** A loaded checkpoint: parameters under Hugging Face's names without 'transformer.', float32. */
/** A float16-resident model's matrices: float16 bits. */
export interface HalfTensor { data: Uint16Array; shape: number[]; dtype: 'F16' }
/** resident 'float16': wte and each block's matrices are HalfTensors (checkGpt2Memory decides). */
export interface Gpt2Checkpoint { config: Gpt2Config; parameters: Record<string, Tensor | HalfTensor>; tokenizer: BpeTokenizer; resident?: 'float32' | 'float16' }

export interface Gpt2ForwardOptions {
  /** Every layer's attention weights (H, T, T) [true]; false: left out, and the WASM fast path runs the fused attention. */
  attention?: boolean;
  /** Also every layer's {input, normed, query, key, value, weights, context, output} [false] (the JS reference computes them). */
  intermediates?: boolean;
  /** [layer, head] pairs switched off before the output projection. */
  headsOff?: Array<[number, number]>;
  /** How a head is switched off: its context replaced by zeros or by its mean over the positions ['zero']. */
  ablation?: 'zero' | 'mean';
}

export interface Gpt2LayerTensors { input: Tensor; normed: Tensor; query: Tensor; key: Tensor; value: Tensor; weights: Tensor; context: Tensor; output: Tensor }

export interface Gpt2ForwardResult { tokens: Int32Array; logits: Tensor; attention?: Tensor[]; layers?: Gpt2LayerTensors[] }

/** The model interface (docs/api.md "Models"): {name, tokenizer, config, forward(tokens, options)}. */
export interface Gpt2Model {
  readonly name: string;
  readonly kind: 'gpt2';
  /** GPT-2's BPE with encode → Int32Array and tokenText(id), as the model interface reads it. */
  readonly tokenizer: Omit<BpeTokenizer, 'encode'> & { encode(text: string): Int32Array; tokenText(id: number): string };
  readonly config: Gpt2Config & { dHead: number };
  /** 'js', 'wasm-simd', 'wasm-baseline', 'webgpu', or 'api:<backend>' when composed of a loaded attention API. */
  readonly backend: string;
  /** {backend, path, ms, threads, reason} of the last forward: path 'workers (fused)' or 'workers (weights)' on workers; reason: why one thread ran where workers were started, or why the workers ran a forward below the crossover (the calling thread's copy would not fit). */
  readonly lastCall: { backend: string; path: string; ms: number; threads: number; reason: string | null } | null;
  /** How the WASM engine keeps the weights: 'float32' (packed once) or 'float16' (each block unpacked when it runs). */
  readonly resident: 'float32' | 'float16';
  /** The workers a forward may use (1: the calling thread only), and why 1 where more were asked for. */
  readonly threads: number;
  readonly threadsReason: string | null;
  /** tokens: 1 to contextLength ids. Logits (T, V); a Promise of them on 'webgpu', when composed of an attention API ('api:…') or with threads ≥ 2. */
  forward(tokens: ArrayLike<number>, options?: Gpt2ForwardOptions): Gpt2ForwardResult | Promise<Gpt2ForwardResult>;
  /** Frees the WASM heap's copy of the parameters. */
  dispose(): void;
}

export function createGpt2(checkpoint: Gpt2Checkpoint, options?: {
  backend?: 'wasm' | 'wasm-simd' | 'wasm-baseline' | 'js' | 'webgpu'; wasmBinary?: ArrayBuffer | Uint8Array; attention?: object; name?: string;
  /** The WASM engine on this many Web Workers (or 'auto': as many as the cores, at most 4, for a model large enough to pay for them) where they and the model fit [1]. */
  threads?: number | 'auto';
  /** On workers: forwards below this crossover (as GPT2_WORKER_CROSSOVER's, minWork 2000000) run on a copy of the model on the calling thread, where it fits [none: every forward on the workers]. */
  crossover?: { minWork: number };
  /** The bytes the WASM engine's model may hold [2147483648]: planGpt2Memory decides before it starts; a model that fits no way is an Error with the figures. */
  limitBytes?: number;
}): Promise<Gpt2Model>;

/** The ways a head is switched off. */
export const ABLATIONS: readonly ['zero', 'mean'];

export interface LoadProgress { file: string; url: string; loaded: number; total: number | null; cached: boolean; resumed: number }

/** The hub's resolve URL of a repository: hubUrl('gpt2') → 'https://huggingface.co/gpt2/resolve/main'. */
export function hubUrl(repository: string, revision?: string): string;
export function loadGpt2FromUrl(baseUrl: string, options?: {
  onProgress?: (progress: LoadProgress) => void; signal?: AbortSignal; limitBytes?: number; useCache?: boolean; fetchImpl?: typeof fetch;
}): Promise<Gpt2Checkpoint>;
export function loadGpt2FromFiles(files: Iterable<File | (Blob & { name: string })>, options?: { limitBytes?: number }): Promise<Gpt2Checkpoint>;
export function loadGpt2FromDirectory(directory: string, options?: { modelFile?: string; limitBytes?: number }): Promise<Gpt2Checkpoint>;

export const CHECKPOINT_CACHE: string;
export function forgetCheckpoints(): Promise<boolean>;
export function isCached(url: string): Promise<boolean>;

export function gpt2Config(json: string | object, source?: string): Gpt2Config;
export function gpt2ParameterShapes(config: Gpt2Config): Record<string, number[]>;
export function gpt2ParameterCount(config: Gpt2Config): number;
export function gpt2MemoryBytes(config: Gpt2Config): {
  /** Kept in float32: parameters (the checkpoint's); heap = their copy + packed + activations; total = parameters + heap. */
  parameters: number; packed: number; activations: number; heap: number; total: number;
  /** Kept in float16: parameters (float16 matrices, float32 vectors); heap = unembedding + staging + block + activations. */
  float16: { parameters: number; unembedding: number; staging: number; block: number; activations: number; heap: number; total: number };
};
/** How the model is kept ('float32', else 'float16'), or an Error with both sets of figures when neither fits. */
/** fileBytes: bytes held besides, such as a file read whole (the loaders stream: none). */
export function checkGpt2Memory(config: Gpt2Config, options?: { limitBytes?: number; name?: string; fileBytes?: number }): ReturnType<typeof gpt2MemoryBytes> & { resident: 'float32' | 'float16' };
/** Where GPT-2's workers pay: at least minWork / 2 multiply-adds between two of their exchanges. */
export const GPT2_WORKER_CROSSOVER: Readonly<{ minWork: number }>;
/** Whether T tokens' forward pays on `workers` workers (crossover: in place of GPT2_WORKER_CROSSOVER), and why. */
export function planGpt2Workers(config: Gpt2Config, T: number, workers: number, crossover?: { minWork: number }): { workers: boolean; reason: string };
/** One worker's WASM heap for its share: vectors, packed matrices, staging buffer, full-context activations (without the weights) and the workers' parts. */
export interface Gpt2ShareBytes { vectors: number; packed: number; staging: number; activations: number; heap: number }
/** A float32 model on n workers: each worker's heap, the largest, the calling thread's parameters and what it sends while they load, their total, and the calling thread's own copy's heap. */
export function gpt2WorkerMemoryBytes(config: Gpt2Config, workers: number): {
  workers: number; shares: Gpt2ShareBytes[]; heap: number; parameters: number; sending: number; total: number; oneThread: number;
};
/** How createGpt2 builds the model within limitBytes (threads: the workers it starts, 1 with threadsReason; oneThreadCopy / copyReason: the calling thread's copy for forwards below the crossover; oneThreadReason: why one thread could not hold it), or an Error with the figures. */
export function planGpt2Memory(config: Gpt2Config, options?: {
  threads?: number; resident?: 'float32' | 'float16'; limitBytes?: number; heapBytes?: number; crossover?: { minWork: number }; name?: string;
}): { threads: number; threadsReason: string | null; oneThreadCopy: boolean; copyReason: string | null; oneThreadReason: string | null };
export function gpt2ParametersFromSafetensors(bytes: Uint8Array, config: Gpt2Config, source?: string, options?: { resident?: 'float32' | 'float16' }): Record<string, Tensor | HalfTensor>;

export function createBpeTokenizer(options: { vocab: Record<string, number> | Map<string, number>; merges: Array<[string, string]>; specialTokens?: string[]; source?: string }): BpeTokenizer;
export function parseMerges(text: string, source?: string): Array<[string, string]>;
export function tokenizerFromVocabAndMerges(vocabText: string, mergesText: string, names?: { vocabSource?: string; mergesSource?: string }): BpeTokenizer;
export function tokenizerFromJson(text: string, source?: string): BpeTokenizer;
/** GPT-2's pre-tokenisation: the words BPE runs on. */
export function pretokenize(text: string): string[];
