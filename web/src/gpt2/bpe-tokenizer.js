// GPT-2's byte-level BPE, written from the published algorithm (OpenAI's encoder.py): the text is cut into
// words (pretokenize.js), each word's UTF-8 bytes become vocabulary characters (byte-unicode.js), and the
// adjacent pair whose merge has the lowest rank is merged, every occurrence left to right, until no pair of
// the word has a merge. Each resulting symbol is one token id of the vocabulary.
import { BYTE_TO_CHAR, byteCharsToBytes, textToByteChars } from './byte-unicode.js';
import { pretokenize, splitSpecial } from './pretokenize.js';

const CACHE_LIMIT = 50_000;
const utf8Decoder = new TextDecoder('utf-8', { fatal: false });
const utf8Encoder = new TextEncoder();

/**
 * A tokenizer from a vocabulary ({symbol: id}) and its merges ([[left, right], …] in rank order).
 * specialTokens: symbols of the vocabulary matched as whole strings before pre-tokenisation
 * ('<|endoftext|>'). source: the files it came from, named in errors.
 * Returns {encode(text) -> number[], decode(ids) -> string, tokenStrings(ids) -> string[], vocabSize,
 * specialTokens, idOf(symbol), symbolOf(id)}.
 */
export function createBpeTokenizer({ vocab, merges, specialTokens = [], source = 'the vocabulary' }) {
  const idOfSymbol = new Map(vocab instanceof Map ? vocab : Object.entries(vocab));
  const symbolOfId = [];
  for (const [symbol, id] of idOfSymbol) {
    if (!Number.isInteger(id) || id < 0) {
      throw new Error(`createBpeTokenizer: ${source}: the id of ${JSON.stringify(symbol)} is ${id}; expected an integer ≥ 0`);
    }
    symbolOfId[id] = symbol;
  }
  const missingByte = BYTE_TO_CHAR.findIndex((char) => !idOfSymbol.has(char));
  if (missingByte >= 0) {
    throw new Error(`createBpeTokenizer: ${source} has no token for byte ${missingByte} (${JSON.stringify(BYTE_TO_CHAR[missingByte])}); ` +
      'expected a byte-level vocabulary with all 256 bytes');
  }
  const rankOfPair = new Map();
  merges.forEach(([left, right], rank) => {
    const key = `${left} ${right}`;
    if (!rankOfPair.has(key)) rankOfPair.set(key, rank);
  });
  const specials = specialTokens.filter((token) => idOfSymbol.has(token));
  const specialIds = new Set(specials.map((token) => idOfSymbol.get(token)));
  const cache = new Map();

  // The BPE of one word's vocabulary characters: its symbols, merged by rank.
  function bpe(chars) {
    const cached = cache.get(chars);
    if (cached) return cached;
    let symbols = Array.from(chars);
    while (symbols.length > 1) {
      let best = Infinity;
      let bestPair = null;
      for (let i = 0; i + 1 < symbols.length; i++) {
        const rank = rankOfPair.get(`${symbols[i]} ${symbols[i + 1]}`);
        if (rank !== undefined && rank < best) { best = rank; bestPair = [symbols[i], symbols[i + 1]]; }
      }
      if (!bestPair) break;
      const [left, right] = bestPair;
      const merged = [];
      for (let i = 0; i < symbols.length; i++) {
        if (i + 1 < symbols.length && symbols[i] === left && symbols[i + 1] === right) {
          merged.push(left + right);
          i++;
        } else {
          merged.push(symbols[i]);
        }
      }
      symbols = merged;
    }
    const ids = symbols.map((symbol) => {
      const id = idOfSymbol.get(symbol);
      if (id === undefined) throw new Error(`encode: ${source} has no token ${JSON.stringify(symbol)}, which its merges make`);
      return id;
    });
    if (cache.size >= CACHE_LIMIT) cache.clear();
    cache.set(chars, ids);
    return ids;
  }

  function encode(text) {
    if (typeof text !== 'string') throw new TypeError(`encode: text is ${typeof text}; expected a string`);
    const ids = [];
    for (const piece of splitSpecial(text, specials)) {
      if (piece.special) { ids.push(idOfSymbol.get(piece.text)); continue; }
      for (const word of pretokenize(piece.text)) ids.push(...bpe(textToByteChars(word)));
    }
    return ids;
  }

  function bytesOf(id) {
    const symbol = symbolOfId[id];
    if (symbol === undefined) throw new RangeError(`decode: token id ${id} is not in ${source}; expected an id of its ${symbolOfId.length} tokens`);
    if (specialIds.has(id)) return utf8Encoder.encode(symbol);
    const bytes = byteCharsToBytes(symbol);
    return bytes ?? utf8Encoder.encode(symbol);
  }

  function decode(ids) {
    const parts = Array.from(ids, bytesOf);
    const all = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
    let at = 0;
    for (const part of parts) { all.set(part, at); at += part.length; }
    return utf8Decoder.decode(all);
  }

  return Object.freeze({
    encode,
    decode,
    /** Each token on its own, as text (a token that holds part of a character shows U+FFFD). */
    tokenStrings: (ids) => Array.from(ids, (id) => utf8Decoder.decode(bytesOf(id))),
    vocabSize: symbolOfId.length,
    specialTokens: Object.freeze(specials),
    idOf: (symbol) => idOfSymbol.get(symbol),
    symbolOf: (id) => symbolOfId[id],
  });
}

/** The merges of a merges.txt ('#version' line first, then "left right" a line). */
export function parseMerges(text, source = 'merges.txt') {
  const merges = [];
  text.split(/\r?\n/).forEach((line, index) => {
    if (line === '' || (index === 0 && line.startsWith('#version'))) return;
    const parts = line.split(' ');
    if (parts.length !== 2 || parts[0] === '' || parts[1] === '') {
      throw new Error(`parseMerges: ${source} line ${index + 1} is ${JSON.stringify(line)}; expected two symbols separated by one space`);
    }
    merges.push(parts);
  });
  return merges;
}

function parseJson(text, source, fn) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new Error(`${fn}: ${source} is not JSON (${error.message})`);
  }
}

/** A tokenizer from the text of vocab.json and merges.txt; '<|endoftext|>' is special when in the vocabulary. */
export function tokenizerFromVocabAndMerges(vocabText, mergesText, { vocabSource = 'vocab.json', mergesSource = 'merges.txt' } = {}) {
  const vocab = parseJson(vocabText, vocabSource, 'tokenizerFromVocabAndMerges');
  return createBpeTokenizer({
    vocab, merges: parseMerges(mergesText, mergesSource), specialTokens: ['<|endoftext|>'],
    source: `${vocabSource} + ${mergesSource}`,
  });
}

/** A tokenizer from the text of a Hugging Face tokenizer.json whose model is BPE (byte-level). */
export function tokenizerFromJson(text, source = 'tokenizer.json') {
  const json = parseJson(text, source, 'tokenizerFromJson');
  const model = json?.model;
  if (!model || model.type !== 'BPE' || typeof model.vocab !== 'object' || !Array.isArray(model.merges)) {
    throw new Error(`tokenizerFromJson: ${source} has model.type ${JSON.stringify(model?.type)}; expected a "BPE" model with vocab and merges`);
  }
  const merges = model.merges.map((merge, index) => {
    const pair = typeof merge === 'string' ? merge.split(' ') : merge;
    if (!Array.isArray(pair) || pair.length !== 2) {
      throw new Error(`tokenizerFromJson: ${source} model.merges[${index}] is ${JSON.stringify(merge)}; expected "left right" or [left, right]`);
    }
    return pair;
  });
  const vocab = new Map(Object.entries(model.vocab));
  const specialTokens = [];
  for (const added of json.added_tokens ?? []) {
    if (!vocab.has(added.content)) vocab.set(added.content, added.id);
    specialTokens.push(added.content);
  }
  return createBpeTokenizer({ vocab, merges, specialTokens, source });
}
