// Learns the byte-level BPE merges of web/src/model/tokenizer.js from a training text: count the pieces
// (splitPieces), then repeatedly join the most frequent adjacent pair of tokens across all pieces, weighted by
// each piece's count (ties: the smaller pair of ids, so a run is deterministic).
import { splitPieces } from '../../web/src/model/tokenizer.js';

/** texts: string[] → merges [[a, b], …] (count of them: vocabSize − 256). */
export function trainBpe(texts, vocabSize) {
  const counts = new Map();
  for (const text of texts) for (const piece of splitPieces(text)) counts.set(piece, (counts.get(piece) ?? 0) + 1);
  const encoder = new TextEncoder();
  const words = [...counts].map(([piece, count]) => ({ ids: Array.from(encoder.encode(piece)), count }));
  const merges = [];
  while (256 + merges.length < vocabSize) {
    const pairs = new Map();
    for (const { ids, count } of words) {
      for (let i = 0; i + 1 < ids.length; i++) {
        const key = ids[i] * 65536 + ids[i + 1];
        pairs.set(key, (pairs.get(key) ?? 0) + count);
      }
    }
    let bestKey = -1;
    let bestCount = 0;
    for (const [key, count] of pairs) if (count > bestCount || (count === bestCount && key < bestKey)) { bestKey = key; bestCount = count; }
    if (bestKey < 0) break;
    const a = Math.floor(bestKey / 65536);
    const b = bestKey % 65536;
    const id = 256 + merges.length;
    merges.push([a, b]);
    for (const word of words) {
      const { ids } = word;
      if (ids.length < 2) continue;
      const next = [];
      for (let i = 0; i < ids.length; i++) {
        if (i + 1 < ids.length && ids[i] === a && ids[i + 1] === b) { next.push(id); i++; } else next.push(ids[i]);
      }
      word.ids = next;
    }
  }
  return merges;
}
