// The shipped English model (docs/model.md): english.safetensors holds float16 weights under the trainer's
// state_dict names, and metadata with the config, the tokenizer's merges and the training script's figures.
// Loading restores float32 (every float16 value is exact in float32).
import { decodeSafetensors } from '../train/safetensors.js';
import { createTokenizer } from './tokenizer.js';
import { createAttentionOnlyModel } from './model.js';

/** The safetensors metadata key holding {version, name, config, recipe, tokenizer, sample, figures}. */
export const MODEL_META_KEY = 'attention_playground_model';

/** The shipped file's URL (bundlers rewrite it to the emitted asset). */
export const ENGLISH_MODEL_URL = new URL('./english.safetensors', import.meta.url);

/** safetensors bytes written by scripts/train-model.mjs → the model interface, with .figures and .sample. */
export function modelFromSafetensors(bytes) {
  const fn = 'modelFromSafetensors';
  const { tensors, metadata } = decodeSafetensors(bytes, fn);
  if (!metadata[MODEL_META_KEY]) throw new Error(`${fn}: the file has no '${MODEL_META_KEY}' metadata; expected a file written by scripts/train-model.mjs`);
  const meta = JSON.parse(metadata[MODEL_META_KEY]);
  const { seed, optimizer, gradClip, backend, threads, syncEvery, ...config } = meta.config;
  const model = createAttentionOnlyModel({ name: meta.name, tokenizer: createTokenizer(meta.tokenizer), config, parameters: tensors });
  model.figures = meta.figures;
  model.sample = meta.sample;
  model.recipe = meta.recipe;
  return model;
}

let loading = null;
/**
 * loadEnglishModel({bytes}) → Promise of the shipped model: from bytes when given, else read from
 * ENGLISH_MODEL_URL (fetch; in Node from the file). Loaded once; later calls share it.
 */
export function loadEnglishModel({ bytes } = {}) {
  if (bytes) return Promise.resolve(modelFromSafetensors(bytes));
  loading ??= (async () => {
    if (ENGLISH_MODEL_URL.protocol === 'file:' && typeof process !== 'undefined' && process.versions?.node) {
      const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
      return modelFromSafetensors(new Uint8Array(await readFile(ENGLISH_MODEL_URL)));
    }
    const response = await fetch(ENGLISH_MODEL_URL);
    if (!response.ok) throw new Error(`loadEnglishModel: ${ENGLISH_MODEL_URL} answered ${response.status}`);
    return modelFromSafetensors(new Uint8Array(await response.arrayBuffer()));
  })();
  loading.catch(() => { loading = null; });
  return loading;
}
