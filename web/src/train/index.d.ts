// Types of the training entry point (web/src/train/index.js). docs/api.md "Training" is the contract.
import type { IntTensor, Tensor } from '../core/index.js';

/** Parameters by state_dict name ('tok_emb.weight', 'blocks.0.q_proj.weight' (out, in), …). */
export type StateDict = Record<string, Tensor>;

/** torch.optim.AdamW's settings. Defaults in brackets. */
export interface AdamWOptions {
  /** ['adamw'], the only optimiser. */
  name?: 'adamw';
  /** Learning rate, ≥ 0. [1e-3] */
  lr?: number;
  /** [β₁, β₂], each in [0, 1). [[0.9, 0.999]] */
  betas?: [number, number];
  /** > 0. [1e-8] */
  eps?: number;
  /** Decoupled weight decay on every parameter, ≥ 0. [0.01] */
  weightDecay?: number;
}

export type TrainerBackend = 'auto' | 'wasm' | 'wasm-simd' | 'wasm-baseline' | 'js' | 'webgpu';

export interface TrainerOptions {
  /** V ≥ 2. */
  vocabSize: number;
  /** T ≥ 1: the positions pos_emb holds; batches may be shorter. */
  contextLength: number;
  /** d, divisible by heads. */
  dModel: number;
  /** H. [1] */
  heads?: number;
  /** L. [1] */
  layers?: number;
  /** Pre-LayerNorm in every block and before the unembedding. [false] */
  layerNorm?: boolean;
  /** Seed of the documented initialisation, an integer in [0, 2³²). [0] */
  seed?: number;
  /** Any subset of the parameters, replacing their initial values. */
  parameters?: StateDict;
  optimizer?: AdamWOptions;
  /** Max global gradient norm, as torch.nn.utils.clip_grad_norm_. [none] */
  gradClip?: number;
  /** Where the model runs: 'js', or a WASM build that runs step() and evaluate() whole in its memory. ['auto'] */
  backend?: TrainerBackend;
  /** WASM backends: N shares each step's rows among the calling thread and N − 1 workers; 'auto': workers on a
   *  cross-origin isolated page for a model large enough (docs/api.md "Threads"). ['auto'] */
  threads?: 'auto' | number;
  /** The WASM build's bytes, handed to loadAttention where no .wasm file can be fetched (a page from file://). */
  wasmBinary?: Uint8Array | ArrayBuffer;
  /** On 'webgpu': the steps between copies of the parameters and AdamW state back to the CPU, so a lost
   *  device resumes on the CPU losing fewer than this many steps. [10] */
  syncEvery?: number;
}

/** inputs and targets (B, T) Int32; targets of −100 are ignored. */
export interface Batch {
  inputs: IntTensor;
  targets: IntTensor;
}

export interface Trainer {
  readonly config: Required<Omit<TrainerOptions, 'parameters' | 'backend' | 'threads' | 'gradClip' | 'optimizer' | 'syncEvery'>> &
    { optimizer: Required<AdamWOptions>; gradClip: number | null };
  /** AdamW steps taken (also after loadTrainer). */
  readonly steps: number;
  /** 'js', 'wasm-simd' or 'wasm-baseline': where the model runs (on WASM, step() and evaluate() whole in its
   *  memory); 'webgpu': the whole step runs on the device (it becomes 'js' when the device is lost). */
  readonly backend: 'js' | 'wasm-simd' | 'wasm-baseline' | 'webgpu';
  /** Why 'auto' fell back to 'js', or why 'webgpu' resumed on the CPU (the steps lost), or null. */
  readonly backendReason: string | null;
  /** The threads a step runs on: 1, or the calling thread and threads − 1 workers sharing the batch's rows. */
  readonly threads: number;
  /** Why threads is 1 when more were asked for (or why the workers stopped), or null. */
  readonly threadsReason: string | null;
  /** One forward, backward, optional clipping and AdamW step: the loss before the update, the norm before clipping. */
  step(batch: Batch): Promise<{ loss: number; gradNorm: number }>;
  /** Loss and accuracy (argmax = target over the counted targets), no update. */
  evaluate(batch: Batch): Promise<{ loss: number; accuracy: number }>;
  /** One (B, H, T, T) weights tensor per layer. */
  attention(inputs: IntTensor): Promise<Tensor[]>;
  /** The logits (B, T, V) for inputs (B, T): next-token scores, no update. */
  predict(inputs: IntTensor): Promise<Tensor>;
  /** On 'webgpu': copies the device's parameters, AdamW state and last gradients to the CPU copy that
   *  parameters(), gradients() and save() read (done every syncEvery steps); a lost device resumes on the CPU
   *  from the last copy. Elsewhere it does nothing. */
  sync(): Promise<void>;
  /** Copies, in state_dict order (on 'webgpu': as of the last copy from the device; see sync()). */
  /** AdamW's learning rate for the steps that follow (a schedule); lr ≥ 0. */
  setLearningRate(lr: number): void;
  parameters(): StateDict;
  setParameters(parameters: StateDict): void;
  /** The last step's gradients after clipping, or null before the first step. */
  gradients(): StateDict | null;
  /** safetensors: parameters, AdamW state (optimizer.exp_avg.<name>, optimizer.exp_avg_sq.<name>), config. */
  save(): Uint8Array;
  dispose(): void;
}

export function createTrainer(options: TrainerOptions): Promise<Trainer>;
/** Resumes a trainer from trainer.save()'s bytes; only backend, threads, wasmBinary and syncEvery may be given. */
export function loadTrainer(bytes: Uint8Array, options?: { backend?: TrainerBackend; threads?: 'auto' | number; wasmBinary?: Uint8Array | ArrayBuffer; syncEvery?: number }): Promise<Trainer>;
export const OPTIMIZER_DEFAULTS: Required<AdamWOptions>;

/** [name, shape, init] in state_dict order. */
export function parameterSpec(config: Pick<TrainerOptions, 'vocabSize' | 'contextLength' | 'dModel'> & { layers: number; layerNorm: boolean }):
  Array<[string, number[], 'normal' | 'zeros' | 'ones']>;
export function initParameters(config: Pick<TrainerOptions, 'vocabSize' | 'contextLength' | 'dModel'> & { layers: number; layerNorm?: boolean }, seed: number): StateDict;
/** 0.02, the standard deviation of the 'normal' initialisation. */
export const INIT_STD: number;

export type Task = 'corpus' | 'text' | 'previous' | 'copy' | 'reverse' | 'sort' | 'induction';
export interface BatchOptions {
  batch: number;
  contextLength: number;
  vocabSize: number;
  /** [0] */
  seed?: number;
  /** [0] */
  step?: number;
  /** The learner's text, for task 'text'. */
  text?: string;
  /** [false] Task 'induction' only: the two copies of ⌊T/4⌋ tokens at random places among filler tokens. */
  randomOffset?: boolean;
}
export function makeBatch(task: Task, options: BatchOptions): Batch;
/** Each task's description, with the attention pattern it should grow. */
export const TASKS: Record<Task, string>;
/** The built-in corpus (words separated by spaces). */
export const CORPUS: string;
/** −100: the ignored target. */
export const IGNORE: -100;
export function tokenizeText(text: string): { vocabulary: string[]; tokens: Int32Array };
export function taskVocabulary(task: Task, options?: { text?: string }): string[] | null;
/** One layer's weights (B, H, T, T) and its inputs (B, T) → per-head mean attention to the token after the first occurrence. */
export function inductionScore(attention: Tensor, inputs: IntTensor): { heads: number[]; score: number; head: number };

/** Writes F32 tensors, or F16 (each value rounded to the nearest float16) for a tensor with dtype 'F16'. */
export function encodeSafetensors(tensors: Record<string, Tensor & { dtype?: 'F32' | 'F16' }>, metadata?: Record<string, string>): Uint8Array;
/** Reads F32 and F16 tensors (F16 restored to float32 exactly); fn names the caller in errors ['loadTrainer']. */
export function decodeSafetensors(bytes: Uint8Array, fn?: string): { tensors: Record<string, Tensor>; metadata: Record<string, string> };
/** x rounded to the nearest float16, as a float32 value. */
export function roundToFloat16(x: number): number;
