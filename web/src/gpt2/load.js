// Loading a GPT-2-family checkpoint in Hugging Face's layout: config.json, model.safetensors, and the
// tokenizer (vocab.json + merges.txt, or tokenizer.json), from a URL (streamed, cancellable, resumable,
// cached: fetch-file.js), from files a user picked or dropped (File objects), or in Node from a directory.
// The memory a model needs is checked from config.json and the file's size before its weights are read.
import { tokenizerFromJson, tokenizerFromVocabAndMerges } from './bpe-tokenizer.js';
import { checkGpt2Memory, gpt2Config, gpt2ParametersFromSafetensors } from './checkpoint.js';
import { fetchFile } from './fetch-file.js';

/** The hub's resolve URL of a repository's files: hubUrl('gpt2') → 'https://huggingface.co/gpt2/resolve/main'. */
export function hubUrl(repository, revision = 'main') {
  if (typeof repository !== 'string' || !/^[\w.-]+(\/[\w.-]+)?$/.test(repository)) {
    throw new Error(`hubUrl: repository is ${JSON.stringify(repository)}; expected a Hugging Face name such as "gpt2" or "openai-community/gpt2"`);
  }
  return `https://huggingface.co/${repository}/resolve/${encodeURIComponent(revision)}`;
}

/**
 * A loaded checkpoint: {config, parameters, tokenizer, resident}, from the files' contents. resident: 'float32',
 * or 'float16' when only the float16-resident model fits limitBytes (checkGpt2Memory): its matrices are then
 * float16 bits (Uint16Array).
 */
export function gpt2FromContents({ configText, modelBytes, vocabText, mergesText, tokenizerText, names = {}, limitBytes }) {
  const config = gpt2Config(configText, names.config ?? 'config.json');
  const { resident } = checkGpt2Memory(config, { limitBytes, name: names.model ?? 'model.safetensors', fileBytes: modelBytes.length });
  const parameters = gpt2ParametersFromSafetensors(modelBytes, config, names.model ?? 'model.safetensors', { resident });
  const tokenizer = tokenizerText !== undefined
    ? tokenizerFromJson(tokenizerText, names.tokenizer ?? 'tokenizer.json')
    : tokenizerFromVocabAndMerges(vocabText, mergesText, { vocabSource: names.vocab ?? 'vocab.json', mergesSource: names.merges ?? 'merges.txt' });
  if (tokenizer.vocabSize > config.vocabSize) {
    throw new Error(`loadGpt2: the tokenizer has ${tokenizer.vocabSize} tokens but ${names.config ?? 'config.json'} says vocab_size=${config.vocabSize}; expected at most that many`);
  }
  return { config, parameters, tokenizer, resident };
}

const text = (bytes) => new TextDecoder().decode(bytes);

/**
 * Loads from a base URL holding config.json, model.safetensors and vocab.json + merges.txt (or
 * tokenizer.json, tried first). onProgress({file, loaded, total, cached, resumed}); signal cancels (a later
 * call resumes); limitBytes: the memory allowed (refused with the figures before the weights download).
 */
export async function loadGpt2FromUrl(baseUrl, { onProgress, signal, limitBytes, useCache = true, fetchImpl = globalThis.fetch } = {}) {
  const base = baseUrl.replace(/\/+$/, '');
  const get = (file, extra = {}) => fetchFile(`${base}/${file}`, {
    signal, useCache, fetchImpl, ...extra,
    onProgress: (event) => onProgress?.({ ...event, file }),
  });
  const configText = text(await get('config.json'));
  const config = gpt2Config(configText, `${base}/config.json`);
  let tokenizerText;
  let vocabText;
  let mergesText;
  try {
    tokenizerText = text(await get('tokenizer.json'));
  } catch (error) {
    if (signal?.aborted) throw error;
    vocabText = text(await get('vocab.json'));
    mergesText = text(await get('merges.txt'));
  }
  const modelUrl = `${base}/model.safetensors`;
  const modelBytes = await get('model.safetensors', {
    onResponse: ({ total }) => { checkGpt2Memory(config, { limitBytes, name: modelUrl, fileBytes: total ?? 0 }); },
  });
  return gpt2FromContents({
    configText, modelBytes, vocabText, mergesText, tokenizerText, limitBytes,
    names: { config: `${base}/config.json`, model: modelUrl, vocab: `${base}/vocab.json`, merges: `${base}/merges.txt`, tokenizer: `${base}/tokenizer.json` },
  });
}

/**
 * Loads from files a user picked or dropped (File or Blob objects with names): config.json, a .safetensors
 * file, and vocab.json + merges.txt or tokenizer.json.
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
  const configText = await config.text();
  checkGpt2Memory(gpt2Config(configText, config.name), { limitBytes, name: model.name, fileBytes: model.size });
  return gpt2FromContents({
    configText, modelBytes: new Uint8Array(await model.arrayBuffer()), limitBytes,
    tokenizerText: tokenizer ? await tokenizer.text() : undefined,
    vocabText: tokenizer ? undefined : await vocab.text(), mergesText: tokenizer ? undefined : await merges.text(),
    names: { config: config.name, model: model.name, vocab: vocab?.name, merges: merges?.name, tokenizer: tokenizer?.name },
  });
}

/**
 * Node: loads from a directory (config.json, model.safetensors or modelFile, and the tokenizer's files).
 */
export async function loadGpt2FromDirectory(directory, { modelFile = 'model.safetensors', limitBytes } = {}) {
  // through variables, as core/backends/wasm.js does, so that browser bundles do not try to resolve Node's modules
  const [fsModule, pathModule] = ['node:fs/promises', 'node:path'];
  const { readFile, access } = await import(/* @vite-ignore */ fsModule);
  const path = await import(/* @vite-ignore */ pathModule);
  const at = (name) => path.join(directory, name);
  const exists = (name) => access(at(name)).then(() => true, () => false);
  const useJson = await exists('tokenizer.json');
  const read = async (name, asText = true) => {
    try {
      const bytes = await readFile(at(name));
      return asText ? bytes.toString('utf8') : new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    } catch (error) {
      throw new Error(`loadGpt2FromDirectory: ${at(name)} could not be read (${error.code ?? error.message})`);
    }
  };
  return gpt2FromContents({
    configText: await read('config.json'),
    modelBytes: await read(modelFile, false),
    tokenizerText: useJson ? await read('tokenizer.json') : undefined,
    vocabText: useJson ? undefined : await read('vocab.json'),
    mergesText: useJson ? undefined : await read('merges.txt'),
    limitBytes,
    names: { config: at('config.json'), model: at(modelFile), vocab: at('vocab.json'), merges: at('merges.txt'), tokenizer: at('tokenizer.json') },
  });
}
