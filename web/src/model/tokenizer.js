// The shipped model's tokenizer: byte-level BPE (docs/model.md). A text is cut into pieces (a word with the
// space before it, a number, a run of punctuation, a run of spaces), each piece's UTF-8 bytes are tokens 0–255,
// and the merges, in the order they were learned, join adjacent pairs. Every byte is a token, so any text
// encodes (byte fallback) and decode(encode(text)) === text for every well-formed Unicode string.
import { describeValue } from '../core/tensor.js';

/** The pre-tokenizer's pieces: words and numbers keep the one space before them; newlines stand alone. */
export const PIECE_PATTERN = /[ ]?[\p{L}\p{M}]+|[ ]?\p{N}+|[ ]?[^\s\p{L}\p{M}\p{N}]+|\s/gu;

const encoder = new TextEncoder();

/** The pieces of text (PIECE_PATTERN), in order; their concatenation is text. */
export function splitPieces(text) {
  return text.match(PIECE_PATTERN) ?? [];
}

/**
 * createTokenizer({merges}) → tokenizer. merges: [[a, b], …] token-id pairs; merge i makes token 256 + i.
 * tokenizer.encode(text) → Int32Array, decode(ids) → string, tokenText(id) → the token's text (a byte that is
 * not a whole character shows as ⟨0xAB⟩), vocabSize, merges.
 */
export function createTokenizer({ merges }) {
  if (!Array.isArray(merges)) throw new Error(`createTokenizer: merges is ${describeValue(merges)}; expected an array of [a, b] token-id pairs`);
  const rank = new Map();
  const bytesOf = Array.from({ length: 256 }, (_, b) => Uint8Array.of(b));
  merges.forEach((pair, i) => {
    const id = 256 + i;
    if (!Array.isArray(pair) || pair.length !== 2 || !pair.every((t) => Number.isInteger(t) && t >= 0 && t < id)) {
      throw new Error(`createTokenizer: merges[${i}] is ${describeValue(pair)}; expected two token ids below ${id}`);
    }
    rank.set(pair[0] * 65536 + pair[1], i);
    const [a, b] = [bytesOf[pair[0]], bytesOf[pair[1]]];
    const joined = new Uint8Array(a.length + b.length);
    joined.set(a);
    joined.set(b, a.length);
    bytesOf.push(joined);
  });
  const cache = new Map();
  const decoder = new TextDecoder('utf-8');
  const strict = new TextDecoder('utf-8', { fatal: true });

  /** One piece → its ids: repeatedly join the adjacent pair whose merge was learned first. */
  function encodePiece(piece) {
    const hit = cache.get(piece);
    if (hit) return hit;
    let ids = Array.from(encoder.encode(piece));
    while (ids.length > 1) {
      let best = -1;
      let bestRank = Infinity;
      for (let i = 0; i + 1 < ids.length; i++) {
        const r = rank.get(ids[i] * 65536 + ids[i + 1]);
        if (r !== undefined && r < bestRank) { bestRank = r; best = i; }
      }
      if (best < 0) break;
      const id = 256 + bestRank;
      const next = [];
      for (let i = 0; i < ids.length; i++) {
        if (i + 1 < ids.length && ids[i] === merges[bestRank][0] && ids[i + 1] === merges[bestRank][1]) { next.push(id); i++; } else next.push(ids[i]);
      }
      ids = next;
    }
    if (cache.size < 50000) cache.set(piece, ids);
    return ids;
  }

  return {
    kind: 'byte-bpe',
    merges,
    vocabSize: 256 + merges.length,
    encode(text) {
      if (typeof text !== 'string') throw new Error(`tokenizer.encode: text is ${describeValue(text)}; expected a string`);
      const out = [];
      for (const piece of splitPieces(text)) for (const id of encodePiece(piece)) out.push(id);
      return Int32Array.from(out);
    },
    decode(ids) {
      const list = Array.from(ids ?? [], Number);
      let length = 0;
      for (const [i, id] of list.entries()) {
        if (!Number.isInteger(id) || id < 0 || id >= bytesOf.length) throw new Error(`tokenizer.decode: ids[${i}]=${describeValue(id)}; expected an integer from 0 to ${bytesOf.length - 1}`);
        length += bytesOf[id].length;
      }
      const bytes = new Uint8Array(length);
      let at = 0;
      for (const id of list) { bytes.set(bytesOf[id], at); at += bytesOf[id].length; }
      return decoder.decode(bytes);
    },
    tokenText(id) {
      const bytes = bytesOf[id];
      if (!bytes) throw new Error(`tokenizer.tokenText: id=${describeValue(id)}; expected an integer from 0 to ${bytesOf.length - 1}`);
      try {
        return strict.decode(bytes);
      } catch {
        return Array.from(bytes, (b) => (b < 128 ? String.fromCharCode(b) : `⟨0x${b.toString(16).toUpperCase().padStart(2, '0')}⟩`)).join('');
      }
    },
  };
}
