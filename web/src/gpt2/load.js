// Loading a GPT-2-family checkpoint in Hugging Face's layout: config.json, model.safetensors, and the
// tokenizer (vocab.json + merges.txt, or tokenizer.json), from a URL (streamed, cancellable, resumable,
// cached: fetch-file.js), from files a user picked or dropped (File objects), or in Node from a directory.
// The memory a model needs is checked from config.json before its weights are read; model.safetensors is then
// read as a stream, each tensor converted into the array the model keeps as its bytes pass (checkpoint-stream.js),
// so the file is never held whole: a float32 gpt2-medium becomes its float16-resident model within the default limit.
import { tokenizerFromJson, tokenizerFromVocabAndMerges } from './bpe-tokenizer.js';
import { gpt2Config } from './checkpoint.js';
import { checkGpt2Memory } from './memory.js';
import { createCheckpointReader } from './checkpoint-stream.js';
import { fetchFile, streamFile } from './fetch-file.js';

/** The hub's resolve URL of a repository's files: hubUrl('gpt2') → 'https://huggingface.co/gpt2/resolve/main'. */
export function hubUrl(repository, revision = 'main') {
  if (typeof repository !== 'string' || !/^[\w.-]+(\/[\w.-]+)?$/.test(repository)) {
    throw new Error(`hubUrl: repository is ${JSON.stringify(repository)}; expected a Hugging Face name such as "gpt2" or "openai-community/gpt2"`);
  }
  return `https://huggingface.co/${repository}/resolve/${encodeURIComponent(revision)}`;
}

const DEFAULT_NAMES = { config: 'config.json', model: 'model.safetensors', vocab: 'vocab.json', merges: 'merges.txt', tokenizer: 'tokenizer.json' };

/**
 * config.json's sizes, how the model will be kept (resident: 'float32', or 'float16' where only the
 * float16-resident model fits limitBytes: checkGpt2Memory, which refuses with the figures), and reader() → a
 * reader of model.safetensors that keeps it so.
 */
function planCheckpoint(configText, { limitBytes, names }) {
  const config = gpt2Config(configText, names.config);
  const { resident } = checkGpt2Memory(config, { limitBytes, name: names.model });
  return { config, resident, reader: () => createCheckpointReader(config, { source: names.model, resident }) };
}

/** The loaded checkpoint {config, parameters, tokenizer, resident}: the parameters read, the tokenizer from its texts. */
function assemble({ config, resident }, parameters, { vocabText, mergesText, tokenizerText, names }) {
  const tokenizer = tokenizerText !== undefined
    ? tokenizerFromJson(tokenizerText, names.tokenizer)
    : tokenizerFromVocabAndMerges(vocabText, mergesText, { vocabSource: names.vocab, mergesSource: names.merges });
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(`loadGpt2: the tokenizer has ${tokenizer.vocabSize} tokens but ${names.config} says vocab_size=${config.vocabSize}; expected at most that many`);
  }
  return { config, parameters, tokenizer, resident };
}

/** Pushes a ReadableStream's chunks into a checkpoint reader. */
async function readStream(stream, reader) {
  const chunks = stream.getReader();
  for (let chunk = await chunks.read(); !chunk.done; chunk = await chunks.read()) reader.push(chunk.value);
}

const text = (bytes) => new TextDecoder().decode(bytes);

/**
 * Loads from a base URL holding config.json, model.safetensors and vocab.json + merges.txt (or
 * tokenizer.json, tried first). onProgress({file, loaded, total, cached, resumed}); signal cancels (a later
 * call resumes); limitBytes: the memory allowed (refused with the figures before the tokenizer and the weights
 * download).
 */
export async function loadGpt2FromUrl(baseUrl, { onProgress, signal, limitBytes, useCache = true, fetchImpl = globalThis.fetch } = {}) {
  const base = baseUrl.replace(/\/+$/, '');
  const names = Object.fromEntries(Object.entries(DEFAULT_NAMES).map(([key, file]) => [key, `${base}/${file}`]));
  const options = (file) => ({ signal, useCache, fetchImpl, onProgress: (event) => onProgress?.({ ...event, file }) });
  const get = async (file) => text(await fetchFile(`${base}/${file}`, options(file)));
  const plan = planCheckpoint(await get('config.json'), { limitBytes, names });
  const texts = { names };
  try {
    texts.tokenizerText = await get('tokenizer.json');
  } catch (error) {
    if (signal?.aborted) throw error;
    texts.vocabText = await get('vocab.json');
    texts.mergesText = await get('merges.txt');
  }
  const reader = await streamFile(names.model, plan.reader, { ...options('model.safetensors'), kind: `gpt2 ${plan.resident}` });
  return assemble(plan, reader.finish(), texts);
}

/**
 * Loads from files a user picked or dropped (File or Blob objects with names): config.json, a .safetensors
 * file (read as a stream), and vocab.json + merges.txt or tokenizer.json.
 */
export async function loadGpt2FromFiles(files, { limitBytes } = {}) {
  const list = Array.from(files);
  const find = (test) => list.find((file) => test(file.name));
  const config = find((name) => name === 'config.json');
  const model = find((name) => name.endsWith('.safetensors'));
  const tokenizer = find((name) => name === 'tokenizer.json');
  const vocab = find((name) => name === 'vocab.json');
  const merges = find((name) => name === 'merges.txt');
  const missing = [!config && 'config.json', !model && 'a .safetensors file', !tokenizer && !(vocab && merges) && 'vocab.json + merges.txt (or tokenizer.json)'].filter(Boolean);
  if (missing.length) {
    throw new Error(`loadGpt2FromFiles: the files (${list.map((f) => f.name).join(', ') || 'none'}) lack ${missing.join(' and ')}`);
  }
  const names = { config: config.name, model: model.name, vocab: vocab?.name, merges: merges?.name, tokenizer: tokenizer?.name };
  const plan = planCheckpoint(await config.text(), { limitBytes, names });
  const reader = plan.reader();
  await readStream(model.stream(), reader);
  return assemble(plan, reader.finish(), {
    names,
    tokenizerText: tokenizer ? await tokenizer.text() : undefined,
    vocabText: tokenizer ? undefined : await vocab.text(), mergesText: tokenizer ? undefined : await merges.text(),
  });
}

/**
 * Node: loads from a directory (config.json, model.safetensors or modelFile, read as a stream, and the
 * tokenizer's files).
 */
export async function loadGpt2FromDirectory(directory, { modelFile = 'model.safetensors', limitBytes } = {}) {
  // through variables, as core/backends/wasm.js does, so that browser bundles do not try to resolve Node's modules
  const [fsModule, promisesModule, pathModule] = ['node:fs', 'node:fs/promises', 'node:path'];
  const { createReadStream } = await import(/* @vite-ignore */ fsModule);
  const { readFile, access } = await import(/* @vite-ignore */ promisesModule);
  const path = await import(/* @vite-ignore */ pathModule);
  const at = (name) => path.join(directory, name);
  const cannotRead = (name, error) => new Error(`loadGpt2FromDirectory: ${at(name)} could not be read (${error.code ?? error.message})`);
  const read = async (name) => {
    try {
      return (await readFile(at(name))).toString('utf8');
    } catch (error) {
      throw cannotRead(name, error);
    }
  };
  const names = { ...Object.fromEntries(Object.entries(DEFAULT_NAMES).map(([key, file]) => [key, at(file)])), model: at(modelFile) };
  const useJson = await access(at('tokenizer.json')).then(() => true, () => false);
  const plan = planCheckpoint(await read('config.json'), { limitBytes, names });
  const reader = plan.reader();
  try {
    await access(at(modelFile));
  } catch (error) {
    throw cannotRead(modelFile, error);
  }
  for await (const chunk of createReadStream(at(modelFile))) reader.push(chunk);
  return assemble(plan, reader.finish(), {
    names,
    tokenizerText: useJson ? await read('tokenizer.json') : undefined,
    vocabText: useJson ? undefined : await read('vocab.json'),
    mergesText: useJson ? undefined : await read('merges.txt'),
  });
}
