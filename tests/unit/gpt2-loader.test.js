// The GPT-2 checkpoint loader (web/src/gpt2): the tiny fixture checkpoint read in float32, float16 (under
// GPT2LMHeadModel's 'transformer.' names) and bfloat16; errors that name the file and the tensor; and the URL
// path against a local server: progress, a dropped connection resumed with a Range request, a cancel resumed
// by the next call, a corrupt model.safetensors (a tensor missing) named with its tensor, and the memory check
// refusing a model before its weights download.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { encodeSafetensors } from '../../web/src/train/safetensors.js';
import { gpt2Config, gpt2ParameterCount } from '../../web/src/gpt2/checkpoint.js';
import { checkGpt2Memory } from '../../web/src/gpt2/memory.js';
import { gpt2ParametersFromSafetensors } from '../../web/src/gpt2/checkpoint-stream.js';
import { loadGpt2FromDirectory, loadGpt2FromUrl, hubUrl } from '../../web/src/gpt2/load.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const bytesOf = (name) => new Uint8Array(readFileSync(`${DIR}${name}`));
const config = gpt2Config(readFileSync(`${DIR}config.json`, 'utf8'));
const reference = gpt2ParametersFromSafetensors(bytesOf('model.safetensors'), config);

/** The fixture checkpoint re-encoded without one tensor. */
function withoutTensor(name) {
  const tensors = { ...reference };
  delete tensors[name];
  return encodeSafetensors(tensors);
}

function maxRelative(a, b) {
  let worst = 0;
  for (let i = 0; i < a.length; i++) worst = Math.max(worst, Math.abs(a[i] - b[i]) / Math.max(Math.abs(b[i]), 1e-3));
  return worst;
}

describe('loading the tiny checkpoint', () => {
  it('reads every parameter of the config in float32, with GPT-2 small-like names and Conv1D layouts', async () => {
    const model = await loadGpt2FromDirectory(DIR);
    expect(model.config).toMatchObject({ vocabSize: 287, contextLength: 32, dModel: 32, layers: 2, heads: 4, dMlp: 128 });
    expect(model.parameters['h.1.attn.c_attn.weight'].shape).toEqual([32, 96]);
    expect(model.parameters['h.0.mlp.c_proj.weight'].shape).toEqual([128, 32]);
    expect(Object.values(model.parameters).reduce((n, t) => n + t.data.length, 0)).toBe(gpt2ParameterCount(config));
    expect(model.tokenizer.vocabSize).toBe(287);
  });
  it('reads float16 under transformer.* names and bfloat16, within their precision', () => {
    const half = gpt2ParametersFromSafetensors(bytesOf('model-f16.safetensors'), config, 'model-f16.safetensors');
    const brain = gpt2ParametersFromSafetensors(bytesOf('model-bf16.safetensors'), config, 'model-bf16.safetensors');
    for (const [name, { data }] of Object.entries(reference)) {
      expect(maxRelative(half[name].data, data), name).toBeLessThanOrEqual(2 ** -11);
      expect(maxRelative(brain[name].data, data), name).toBeLessThanOrEqual(2 ** -8);
    }
  });
});

describe('loader errors name the file and the tensor', () => {
  const withTensors = (edit) => {
    const tensors = Object.fromEntries(Object.entries(reference).map(([n, t]) => [n, { ...t }]));
    edit(tensors);
    return encodeSafetensors(tensors);
  };
  it('a missing tensor', () => {
    const bytes = withTensors((t) => { delete t['h.1.mlp.c_fc.bias']; });
    expect(() => gpt2ParametersFromSafetensors(bytes, config, 'broken.safetensors'))
      .toThrow('loadGpt2: broken.safetensors has no tensor h.1.mlp.c_fc.bias; expected one of shape [128] for this config');
  });
  it("a wrong shape, and nn.Linear's (out, in) in place of Conv1D's (in, out)", () => {
    const transposed = withTensors((t) => { t['h.0.attn.c_attn.weight'] = { data: t['h.0.attn.c_attn.weight'].data, shape: [96, 32] }; });
    expect(() => gpt2ParametersFromSafetensors(transposed, config, 'linear.safetensors'))
      .toThrow(/linear.safetensors: tensor h.0.attn.c_attn.weight has shape \[96,32\]; expected \[32,96\] \(GPT-2's Conv1D layout is \(in, out\)/);
    const wrong = withTensors((t) => { t['ln_f.bias'] = { data: new Float32Array(8), shape: [8] }; });
    expect(() => gpt2ParametersFromSafetensors(wrong, config, 'small.safetensors')).toThrow('small.safetensors: tensor ln_f.bias has shape [8]; expected [32] for this config');
  });
  it('a truncated file', () => {
    const bytes = bytesOf('model.safetensors');
    expect(() => gpt2ParametersFromSafetensors(bytes.subarray(0, bytes.length - 100), config, 'cut.safetensors'))
      .toThrow(/loadGpt2: cut.safetensors is truncated: its header describes 145088 bytes but the file has 144988/);
    expect(() => gpt2ParametersFromSafetensors(bytes.subarray(0, 20), config, 'cut.safetensors')).toThrow(/cut.safetensors is truncated: its header is \d+ bytes but only 12 follow/);
  });
  it('an unknown dtype', () => {
    const bytes = bytesOf('model.safetensors').slice();
    const headerLength = Number(new DataView(bytes.buffer).getBigUint64(0, true));
    const header = new TextDecoder().decode(bytes.subarray(8, 8 + headerLength));
    const at = header.indexOf('"F32"', header.indexOf('"wpe.weight"'));
    bytes.set(new TextEncoder().encode('"I32"'), 8 + at);
    expect(() => gpt2ParametersFromSafetensors(bytes, config, 'int.safetensors'))
      .toThrow('loadGpt2: int.safetensors: tensor wpe.weight has dtype "I32"; expected one of F32, F16, BF16');
  });
  it('a config that is not GPT-2', () => {
    expect(() => gpt2Config({ ...JSON.parse(readFileSync(`${DIR}config.json`, 'utf8')), n_head: 5 }, 'my/config.json'))
      .toThrow('gpt2Config: my/config.json: n_embd=32 is not divisible by n_head=5');
    expect(() => gpt2Config({ ...JSON.parse(readFileSync(`${DIR}config.json`, 'utf8')), activation_function: 'relu' }))
      .toThrow(/activation_function is "relu"; expected GPT-2's tanh GELU/);
  });
  it('a model too large for memory, with the figures (gpt2-medium is kept in float16: gpt2-half.test.js)', () => {
    const medium = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 1024, n_layer: 24, n_head: 16 });
    expect(checkGpt2Memory(medium, { name: 'gpt2-medium' }).resident).toBe('float16');
    const large = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 1280, n_layer: 36, n_head: 20 });
    expect(() => checkGpt2Memory(large, { name: 'gpt2-large' })).toThrow('loadGpt2: gpt2-large needs 9.63 GB kept in float32 (3.10 GB of float32 parameters and, in the WASM heap, ' +
      '3.10 GB for their copy, 3.10 GB packed for the fast path and 0.34 GB of activations), or 2.49 GB kept in float16 (1.55 GB of parameters, 0.94 GB in the WASM heap), ' +
      'but 2.15 GB are available; expected a model that fits (gpt2, distilgpt2, gpt2-medium)');
    const small = gpt2Config({ vocab_size: 50257, n_positions: 1024, n_embd: 768, n_layer: 12, n_head: 12 });
    expect(gpt2ParameterCount(small)).toBe(124439808);
    expect(checkGpt2Memory(small, { name: 'gpt2' }).resident).toBe('float32');
  });
});

describe('loading from a URL (a local server)', () => {
  let server;
  let base;
  const requests = [];
  const behaviour = { dropAfter: 0, slow: false };
  beforeAll(async () => {
    server = http.createServer((req, res) => {
      const broken = req.url.startsWith('/models/broken/');
      const name = req.url.replace(/^\/models\/(tiny|broken)\//, '');
      requests.push({ name, range: req.headers.range ?? null });
      let body;
      try { body = readFileSync(`${DIR}${name.replace(/\//g, '_')}`); } catch { res.writeHead(404).end(); return; }
      // /models/broken/: the same checkpoint with a tensor left out of model.safetensors
      if (broken && name === 'model.safetensors') body = Buffer.from(withoutTensor('h.1.attn.c_proj.weight'));
      let start = 0;
      const range = /^bytes=(\d+)-$/.exec(req.headers.range ?? '');
      if (range) start = Number(range[1]);
      res.writeHead(range ? 206 : 200, {
        'content-length': body.length - start, etag: '"fixture"',
        ...(range ? { 'content-range': `bytes ${start}-${body.length - 1}/${body.length}` } : {}),
      });
      const part = body.subarray(start);
      if (name === 'model.safetensors' && behaviour.dropAfter > 0) {
        const cut = behaviour.dropAfter;
        behaviour.dropAfter = 0;
        res.write(part.subarray(0, cut), () => setTimeout(() => res.destroy(), 20));
        return;
      }
      if (name === 'model.safetensors' && behaviour.slow) {
        res.write(part.subarray(0, 4096));
        setTimeout(() => res.end(part.subarray(4096)), 2000);
        return;
      }
      res.end(part);
    });
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    base = `http://127.0.0.1:${server.address().port}/models/tiny`;
  });
  afterAll(() => server.close());

  it('streams the files with progress, falling back to vocab.json + merges.txt', async () => {
    requests.length = 0;
    const events = [];
    const model = await loadGpt2FromUrl(base, { onProgress: (e) => events.push(e) });
    expect(model.parameters['wte.weight'].data).toEqual(reference['wte.weight'].data);
    expect(requests.map((r) => r.name)).toEqual(['config.json', 'tokenizer.json', 'vocab.json', 'merges.txt', 'model.safetensors']);
    const last = events.filter((e) => e.file === 'model.safetensors').at(-1);
    expect(last).toMatchObject({ loaded: 145088, total: 145088, cached: false, resumed: 0 });
  });
  it('resumes a dropped connection with a Range request', async () => {
    requests.length = 0;
    behaviour.dropAfter = 50_000;
    const events = [];
    const model = await loadGpt2FromUrl(base, { onProgress: (e) => events.push(e) });
    expect(model.parameters['ln_f.bias'].data).toEqual(reference['ln_f.bias'].data);
    expect(requests.filter((r) => r.name === 'model.safetensors').map((r) => r.range)).toEqual([null, 'bytes=50000-']);
    expect(events.at(-1)).toMatchObject({ file: 'model.safetensors', loaded: 145088, resumed: 1 });
  });
  it('cancels, and the next call asks only for the rest', async () => {
    requests.length = 0;
    behaviour.slow = true;
    const controller = new AbortController();
    const cancelled = loadGpt2FromUrl(base, {
      signal: controller.signal,
      onProgress: (e) => { if (e.file === 'model.safetensors' && e.loaded > 0) controller.abort(); },
    });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    behaviour.slow = false;
    const model = await loadGpt2FromUrl(base);
    expect(model.parameters['h.0.ln_1.weight'].data).toEqual(reference['h.0.ln_1.weight'].data);
    const ranges = requests.filter((r) => r.name === 'model.safetensors').map((r) => r.range);
    expect(ranges).toEqual([null, 'bytes=4096-']);
  });
  it('refuses a model that will not fit before its weights download, and names a missing file', async () => {
    requests.length = 0;
    await expect(loadGpt2FromUrl(base, { limitBytes: 100_000 })).rejects.toThrow(/loadGpt2: http:\/\/127\.0\.0\.1:\d+\/models\/tiny\/model\.safetensors needs 0\.52 MB kept in float32 .* but 0\.10 MB are available/);
    await expect(loadGpt2FromUrl(`${base}/missing`)).rejects.toThrow(/fetchFile: http:.*\/missing\/config\.json answered 404/);
  });
  it('names the file and the tensor when a downloaded model.safetensors lacks one', async () => {
    await expect(loadGpt2FromUrl(base.replace('/tiny', '/broken'))).rejects
      .toThrow(/loadGpt2: http:\/\/127\.0\.0\.1:\d+\/models\/broken\/model\.safetensors has no tensor h\.1\.attn\.c_proj\.weight; expected one of shape \[32,32\]/);
  });
  it("names the hub's resolve URL of a repository", () => {
    expect(hubUrl('gpt2')).toBe('https://huggingface.co/gpt2/resolve/main');
    expect(hubUrl('openai-community/gpt2', 'refs/pr/1')).toBe('https://huggingface.co/openai-community/gpt2/resolve/refs%2Fpr%2F1');
    expect(() => hubUrl('a b')).toThrow('hubUrl: repository is "a b"; expected a Hugging Face name');
  });
});

describe("'attention-playground/gpt2'", () => {
  it('exports every function and constant its index.d.ts declares, and no other', async () => {
    const exported = Object.keys(await import('../../web/src/gpt2/index.js')).sort();
    const declarations = readFileSync(fileURLToPath(new URL('../../web/src/gpt2/index.d.ts', import.meta.url)), 'utf8');
    const declared = [...declarations.matchAll(/^export (?:function|const) (\w+)/gm)].map((m) => m[1]);
    expect(exported).toEqual([...new Set(declared)].sort());
  });
});
