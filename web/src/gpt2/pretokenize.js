// GPT-2's pre-tokenisation: the text is cut into words before BPE, and merges never cross a cut. The pattern
// is OpenAI's encoder.py one, in order of preference:
//   's 't 're 've 'm 'll 'd   English contractions (lower case only, as GPT-2 has them)
//   ' ?\p{L}+'                  a run of letters, with one leading space
//   ' ?\p{N}+'                  a run of digits (any script), with one leading space
//   ' ?[^\s\p{L}\p{N}]+'        a run of other symbols (punctuation, emoji), with one leading space
//   '\s+(?!\S)'                 whitespace not followed by a non-space: a run's last space is left for
//                               the next word, so "a  b" is "a", " ", " b"
//   '\s+'                       any remaining whitespace (at the end of the text)
// JavaScript's \s and \p{…} with the u flag are the Unicode classes Python's regex module uses here.
export const GPT2_PATTERN = /'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+/gu;

/** The words GPT-2 cuts text into before BPE; their concatenation is the text. */
export function pretokenize(text) {
  return text.match(new RegExp(GPT2_PATTERN.source, GPT2_PATTERN.flags)) ?? [];
}

/**
 * Splits text around the special tokens (e.g. '<|endoftext|>'), longest first, as Hugging Face's tokenizers
 * do with added tokens: [{text, special: false}|{text, special: true}], in order, no empty pieces.
 */
export function splitSpecial(text, specialTokens) {
  if (specialTokens.length === 0 || text === '') return text === '' ? [] : [{ text, special: false }];
  const escaped = [...specialTokens].sort((a, b) => b.length - a.length)
    .map((token) => token.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  const pieces = [];
  let last = 0;
  for (const match of text.matchAll(new RegExp(escaped.join('|'), 'gu'))) {
    if (match.index > last) pieces.push({ text: text.slice(last, match.index), special: false });
    pieces.push({ text: match[0], special: true });
    last = match.index + match[0].length;
  }
  if (last < text.length) pieces.push({ text: text.slice(last), special: false });
  return pieces;
}
