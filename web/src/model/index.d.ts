// Types of the models entry point (docs/api.md "Models").
import type { IntTensor, Tensor } from '../core/index.js';

/** [layer, head], 0-based. */
export type HeadRef = [number, number];

export interface Tokenizer {
  kind?: string;
  vocabSize: number;
  /** Token ids of text; every string encodes (byte fallback). */
  encode(text: string): Int32Array;
  /** The text of ids; decode(encode(text)) === text for well-formed Unicode. */
  decode(ids: ArrayLike<number>): string;
  /** One token's text; bytes that are not whole characters show as ⟨0xAB⟩. */
  tokenText(id: number): string;
  merges?: [number, number][];
}

export interface ModelConfig {
  vocabSize: number;
  contextLength: number;
  dModel: number;
  heads: number;
  layers: number;
  dHead: number;
  layerNorm?: boolean;
  [key: string]: unknown;
}

export interface ForwardOptions {
  /** Return every block's tensors in `layers` [false]. */
  intermediates?: boolean;
  /** Heads switched off [[]]. */
  headsOff?: HeadRef[];
  /** 'zero': the head's context is zeros; 'mean': its mean over the positions ['zero']. */
  ablation?: 'zero' | 'mean';
}

export interface LayerIntermediates {
  input: Tensor; normed: Tensor; query: Tensor; key: Tensor; value: Tensor;
  weights: Tensor; context: Tensor; output: Tensor;
}

export interface ForwardResult {
  tokens: Int32Array;
  /** (T, V): row t scores the token after position t. */
  logits: Tensor;
  /** One (H, T, T) weights tensor per layer. */
  attention: Tensor[];
  layers?: LayerIntermediates[];
}

/** The model interface every explained model implements. */
export interface Model {
  name: string;
  /** 'attention-only' (the trainer's model, the shipped English model) or 'gpt2'. */
  kind: string;
  tokenizer: Tokenizer | null;
  config: ModelConfig;
  forward(tokens: ArrayLike<number>, options?: ForwardOptions): ForwardResult;
  [key: string]: unknown;
}

export interface EnglishModel extends Model {
  /** The parameters under the trainer's state_dict names, float32. */
  parameters: Record<string, Tensor>;
  figures: Record<string, unknown>;
  sample: string;
  recipe: Record<string, unknown>;
}

export function createAttentionOnlyModel(options: { name?: string; tokenizer?: Tokenizer | null; config: Omit<ModelConfig, 'dHead'>; parameters: Record<string, Tensor> }): Model;
export const ABLATIONS: readonly ['zero', 'mean'];
export function createTokenizer(options: { merges: [number, number][] }): Tokenizer;
export function splitPieces(text: string): string[];

export interface HeadScore {
  layer: number; head: number;
  previousToken: number; induction: number; sink: number; self: number; entropy: number;
  labels: string[]; label: string | null;
}
export interface Scores { previousToken: number; induction: number; sink: number; self: number; entropy: number }
export interface HeadScoresResult { probes: Int32Array[]; uniform: Scores; thresholds: Omit<Scores, 'entropy'>; multiple: number; heads: HeadScore[] }
export function headScores(model: Model, options?: { seed?: number; count?: number; length?: number; multiple?: number }): HeadScoresResult;
/** A model whose forward returns Promises (GPT-2 on workers or WebGPU): a Promise of the same. */
export function headScores(model: Omit<Model, 'forward'> & { forward(tokens: ArrayLike<number>, options?: ForwardOptions): Promise<ForwardResult> }, options?: { seed?: number; count?: number; length?: number; multiple?: number }): Promise<HeadScoresResult>;
export function headProbes(options: { vocabSize: number; count?: number; length?: number; seed?: number }): Int32Array[];
export const HEAD_SCORE_MULTIPLE: number;
export const HEAD_LABELS: Record<'previousToken' | 'induction' | 'sink' | 'self', string>;

export interface TopToken { id: number; text: string; probability: number }
export function sequenceLoss(model: Model, tokens: ArrayLike<number>, options?: { headsOff?: HeadRef[]; ablation?: 'zero' | 'mean'; from?: number }): { loss: number; count: number; losses: Float64Array };
export function batchLoss(model: Model, batch: { inputs: IntTensor; targets: IntTensor }, options?: { headsOff?: HeadRef[]; ablation?: 'zero' | 'mean' }): number;
export function textLoss(model: Model, ids: Int32Array): { loss: number; count: number };
export function topTokens(model: Model, logits: Tensor, t: number, k?: number): TopToken[];
export interface AblationSide { loss: number; losses: Float64Array; top: TopToken[] }
export function ablate(model: Model, tokens: ArrayLike<number>, headsOff: HeadRef[], options?: { ablation?: 'zero' | 'mean'; k?: number; from?: number; position?: number }): {
  headsOff: HeadRef[]; ablation: 'zero' | 'mean'; before: AblationSide; after: AblationSide;
};

export const MODEL_META_KEY: string;
export const ENGLISH_MODEL_URL: URL;
/** A text's ids split into a trained-on head and a held-out tail, with next-token batches over each (docs/api.md "Training on a text"). */
export interface TextTask {
  train: Int32Array;
  heldOut: Int32Array;
  /** The windows' length T′ = min(contextLength, train.length − 1). */
  length: number;
  batch(options: { batch: number; seed?: number; step?: number }): { inputs: IntTensor; targets: IntTensor };
  heldOutBatch(): { inputs: IntTensor; targets: IntTensor };
}
export const TEXT_HELD_OUT_SHARE: number;
export function textTask(ids: ArrayLike<number>, options: { contextLength: number; heldOutShare?: number }): TextTask;
export function modelFromSafetensors(bytes: Uint8Array): EnglishModel;
export function loadEnglishModel(options?: { bytes?: Uint8Array }): Promise<EnglishModel>;
