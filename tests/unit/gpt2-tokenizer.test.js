// GPT-2's byte-level BPE (web/src/gpt2): pre-tokenisation cases derived by hand from GPT-2's pattern, BPE on
// the tiny vocabulary of scripts/gpt2/tiny-tokenizer.mjs (tokens derived on paper from its merge ranks), the
// tokenizer.json form, errors, and a fast-check property against two independent encoders of GPT-2's own
// vocabulary: js-tiktoken's gpt2 ranks and gpt-3-encoder's encoder.json + vocab.bpe (which are also the files
// our tokenizer reads, as a user's vocab.json + merges.txt).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';

import fc from 'fast-check';
import { getEncoding } from 'js-tiktoken';
import { describe, expect, it } from 'vitest';

import { createBpeTokenizer, tokenizerFromJson, tokenizerFromVocabAndMerges } from '../../web/src/gpt2/bpe-tokenizer.js';
import { pretokenize } from '../../web/src/gpt2/pretokenize.js';

const require = createRequire(import.meta.url);
const fixture = (name) => readFileSync(new URL(`../fixtures/gpt2/${name}`, import.meta.url), 'utf8');
const tiny = tokenizerFromVocabAndMerges(fixture('vocab.json'), fixture('merges.txt'));
const symbols = (text) => tiny.encode(text).map((id) => tiny.symbolOf(id));

describe("GPT-2's pre-tokenisation", () => {
  const cases = [
    ['Hello world', ['Hello', ' world']],
    ["it's", ['it', "'s"]],
    ["we'll've done", ['we', "'ll", "'ve", ' done']],
    ["IT'S", ['IT', "'", 'S']], // contractions are lower case only
    ["don't", ['don', "'t"]],
    ['a  b', ['a', ' ', ' b']], // a run's last space joins the next word
    ['a   b', ['a', '  ', ' b']],
    ['a \n b', ['a', ' \n', ' b']],
    ['x\n\ny', ['x', '\n', '\n', 'y']],
    ['end  ', ['end', '  ']],
    ['\t\tx', ['\t', '\t', 'x']],
    ['abc 123 ٣', ['abc', ' 123', ' ٣']], // digits of any script
    ['1,000', ['1', ',', '000']],
    ['hi 👋🏽!', ['hi', ' 👋🏽!']], // emoji and punctuation are one run of symbols
    ['naïve café', ['naïve', ' café']],
    ['日本語 text', ['日本語', ' text']],
    ['e\u0301t', ['e', '\u0301', 't']], // a combining mark is not a letter
    ['', []],
  ];
  for (const [text, words] of cases) {
    it(`cuts ${JSON.stringify(text)} into ${JSON.stringify(words)}`, () => {
      expect(pretokenize(text)).toEqual(words);
    });
  }
});

describe('byte-level BPE on the tiny vocabulary', () => {
  it('merges the pair of lowest rank first', () => {
    expect(symbols('abc')).toEqual(['a', 'bc']); // "b c" is ranked before "a b"
  });
  it('merges repeats left to right, without overlap', () => {
    expect(symbols('aaaaa')).toEqual(['aa', 'aa', 'a']);
  });
  it('builds merges on merges', () => {
    expect(symbols(' the')).toEqual(['Ġthe']);
    expect(symbols('the')).toEqual(['t', 'he']);
    // "h e" (rank 1) takes the h before "Ġ w" (21) can grow into "Ġw h" (22); "r e" (7) before "e r" never meets
    expect(symbols(' where')).toEqual(['Ġw', 'he', 're']);
  });
  it('keeps whitespace runs and digits apart from the words around them', () => {
    expect(symbols('   x')).toEqual(['ĠĠ', 'Ġ', 'x']);
    expect(symbols('123 312')).toEqual(['12', '3', 'Ġ', '3', '12']);
    expect(symbols("it's\n\n")).toEqual(['i', 't', "'s", 'ĊĊ']);
  });
  it('writes each UTF-8 byte of other characters as its own symbol', () => {
    expect(symbols('é')).toEqual(['Ã', '©']);
    expect(tiny.tokenStrings(tiny.encode('é'))).toEqual(['\uFFFD', '\uFFFD']);
  });
  it('matches <|endoftext|> whole, as a special token', () => {
    expect(symbols('a<|endoftext|>b')).toEqual(['a', '<|endoftext|>', 'b']);
    expect(tiny.idOf('<|endoftext|>')).toBe(tiny.vocabSize - 1);
  });
  it('decodes what it encodes', () => {
    const text = "The cat's 12 mats\n\n  🎉 naïve";
    expect(tiny.decode(tiny.encode(text))).toBe(text);
  });
  it('reads the same tokenizer from a tokenizer.json', () => {
    const vocab = JSON.parse(fixture('vocab.json'));
    const eot = vocab['<|endoftext|>'];
    delete vocab['<|endoftext|>'];
    const merges = fixture('merges.txt').split('\n').slice(1).filter(Boolean);
    const json = JSON.stringify({
      added_tokens: [{ id: eot, content: '<|endoftext|>', special: true }],
      model: { type: 'BPE', vocab, merges: merges.map((merge, i) => (i % 2 ? merge.split(' ') : merge)) },
    });
    const fromJson = tokenizerFromJson(json);
    const text = "abc the<|endoftext|>  aaa it's 123";
    expect(fromJson.encode(text)).toEqual(tiny.encode(text));
  });
});

describe('tokenizer errors', () => {
  it('names the byte a vocabulary lacks', () => {
    expect(() => createBpeTokenizer({ vocab: { a: 0 }, merges: [], source: 'my-vocab.json' }))
      .toThrow(/createBpeTokenizer: my-vocab.json has no token for byte 0 .*all 256 bytes/);
  });
  it('names the line of a malformed merges.txt', () => {
    expect(() => tokenizerFromVocabAndMerges(fixture('vocab.json'), '#version: 0.2\na b\nabc\n'))
      .toThrow('parseMerges: merges.txt line 3 is "abc"; expected two symbols separated by one space');
  });
  it('names a token id outside the vocabulary', () => {
    expect(() => tiny.decode([5, 9999])).toThrow(/decode: token id 9999 is not in vocab.json \+ merges.txt/);
  });
  it('refuses a tokenizer.json that is not BPE, and text that is not a string', () => {
    expect(() => tokenizerFromJson('{"model": {"type": "WordPiece"}}', 'tok.json')).toThrow(/tok.json has model.type "WordPiece"; expected a "BPE" model/);
    expect(() => tokenizerFromJson('{', 'tok.json')).toThrow(/tokenizerFromJson: tok.json is not JSON/);
    expect(() => tiny.encode(42)).toThrow('encode: text is number; expected a string');
  });
});

describe("GPT-2's own vocabulary against two independent encoders", () => {
  const gpt3Dir = require.resolve('gpt-3-encoder/encoder.json').replace(/encoder\.json$/, '');
  const gpt2 = tokenizerFromVocabAndMerges(readFileSync(`${gpt3Dir}encoder.json`, 'utf8'), readFileSync(`${gpt3Dir}vocab.bpe`, 'utf8'),
    { vocabSource: 'encoder.json', mergesSource: 'vocab.bpe' });
  const tiktoken = getEncoding('gpt2');
  const gpt3 = require('gpt-3-encoder');

  const whitespace = fc.array(fc.constantFrom(' ', ' ', '\t', '\n', '\r', '\u00a0', '\u3000', '\u2028', '\u000b'), { minLength: 1, maxLength: 6 })
    .map((chars) => chars.join(''));
  const contraction = fc.constantFrom("'s", "'t", "'re", "'ve", "'m", "'ll", "'d", "'S", "'LL", "'", "''", "n't", "’s");
  const word = fc.constantFrom('the', 'The', 'attention', 'naïve', 'über', 'Ωμέγα', 'кот', '東京', 'مرحبا', 'नमस्ते', '42', '٣٤', '1.5e3', '🎉', '👩‍👩‍👧', '🇫🇷', '...', '--', '$', 'e\u0301');
  const piece = fc.oneof(
    { weight: 3, arbitrary: fc.string({ unit: 'binary', maxLength: 8 }) },
    { weight: 2, arbitrary: whitespace },
    { weight: 2, arbitrary: contraction },
    { weight: 3, arbitrary: word },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', maxLength: 6 }) },
  );
  const text = fc.array(piece, { maxLength: 12 }).map((pieces) => pieces.join(''))
    .filter((t) => !t.includes('<|endoftext|>'));

  it('gives the same ids as js-tiktoken and gpt-3-encoder, and decodes back to the text', () => {
    fc.assert(fc.property(text, (t) => {
      const ids = gpt2.encode(t);
      expect(ids).toEqual(tiktoken.encode(t));
      expect(ids).toEqual(gpt3.encode(t));
      expect(gpt2.decode(ids)).toBe(t);
    }), { seed: 20261126, numRuns: 400 });
  });
  it('agrees on a long mixed text', () => {
    const long = "GPT-2's tokenizer handles   runs of spaces,\ttabs\n\nnewlines, numbers like 3.14159 and 2026, " +
      "URLs like https://example.com/a?b=c, code `x += 1;`, emoji 🤖🧠 and scripts: Ελληνικά, 中文, हिन्दी.";
    expect(gpt2.encode(long)).toEqual(tiktoken.encode(long));
  });
});
