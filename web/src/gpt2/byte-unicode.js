// GPT-2's reversible map between bytes and printable Unicode characters (OpenAI's encoder.py
// bytes_to_unicode): the printable Latin-1 bytes stand for themselves and the other 68 bytes (control
// characters, space, …) are moved to U+0100 onwards in order, so every BPE symbol is a visible character
// and a space shows as 'Ġ'.

function byteToCharTable() {
  const printable = [];
  const ranges = [[0x21, 0x7e], [0xa1, 0xac], [0xae, 0xff]];
  for (const [from, to] of ranges) for (let b = from; b <= to; b++) printable.push(b);
  const table = new Array(256);
  for (const b of printable) table[b] = String.fromCharCode(b);
  let next = 0;
  for (let b = 0; b < 256; b++) {
    if (table[b] === undefined) table[b] = String.fromCharCode(256 + next++);
  }
  return table;
}

/** BYTE_TO_CHAR[b]: the character that stands for byte b in GPT-2's vocabulary. */
export const BYTE_TO_CHAR = Object.freeze(byteToCharTable());
/** CHAR_TO_BYTE.get(c): the byte a vocabulary character stands for. */
export const CHAR_TO_BYTE = new Map(BYTE_TO_CHAR.map((char, byte) => [char, byte]));

const utf8 = new TextEncoder();

/** The UTF-8 bytes of text, each written as its vocabulary character. */
export function textToByteChars(text) {
  let out = '';
  for (const byte of utf8.encode(text)) out += BYTE_TO_CHAR[byte];
  return out;
}

/** The bytes a string of vocabulary characters stands for; null if a character is not one of them. */
export function byteCharsToBytes(chars) {
  const bytes = [];
  for (const char of chars) {
    const byte = CHAR_TO_BYTE.get(char);
    if (byte === undefined) return null;
    bytes.push(byte);
  }
  return Uint8Array.from(bytes);
}
