// scripts/serve.mjs answers Range requests (206, Content-Range, If-Range, 416), so the checkpoint loader's
// resume is tested end to end against the server the tests and `npm start` use: a download cut after 50,000
// bytes (the connection dropped under the reader) and a cancelled one both finish with a `Range` request
// that the real server answers with the rest of the file, and the loaded weights are the file's; and a
// download is held once (one buffer of its announced size, not its chunks and their concatenation); and a
// float32 checkpoint streamed into float16 matrices (never held whole) resumes the same way, mid-element.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

import { afterAll, beforeAll, describe, expect, it } from 'vitest';

import { startServer } from '../../scripts/serve.mjs';
import { gpt2Config } from '../../web/src/gpt2/checkpoint.js';
import { gpt2MemoryBytes } from '../../web/src/gpt2/memory.js';
import { gpt2ParametersFromSafetensors } from '../../web/src/gpt2/checkpoint-stream.js';
import { appendChunk, fetchFile, wholeBytes } from '../../web/src/gpt2/fetch-file.js';
import { loadGpt2FromUrl } from '../../web/src/gpt2/load.js';

const DIR = fileURLToPath(new URL('../fixtures/gpt2/', import.meta.url));
const fileBytes = new Uint8Array(readFileSync(`${DIR}model.safetensors`));
const reference = gpt2ParametersFromSafetensors(fileBytes, gpt2Config(readFileSync(`${DIR}config.json`, 'utf8')));

let server;
let base;
beforeAll(async () => {
  server = await startServer({ root: '.', port: 0, isolated: false });
  base = `${server.url}tests/fixtures/gpt2`;
});
afterAll(() => server.close());

const get = (name, headers = {}) => fetch(`${base}/${name}`, { headers });

describe('scripts/serve.mjs byte ranges', () => {
  it('answers bytes=a-b, bytes=a- and bytes=-n with 206 and the bytes asked for', async () => {
    const whole = await get('model.safetensors');
    expect([whole.status, whole.headers.get('accept-ranges')]).toEqual([200, 'bytes']);
    await whole.arrayBuffer();
    for (const [range, start, end] of [['bytes=8-15', 8, 15], ['bytes=145000-', 145000, fileBytes.length - 1], ['bytes=-88', fileBytes.length - 88, fileBytes.length - 1], ['bytes=100-999999', 100, fileBytes.length - 1]]) {
      const response = await get('model.safetensors', { range });
      expect(response.status, range).toBe(206);
      expect(response.headers.get('content-range')).toBe(`bytes ${start}-${end}/${fileBytes.length}`);
      expect(new Uint8Array(await response.arrayBuffer())).toEqual(fileBytes.subarray(start, end + 1));
    }
  });
  it('sends the whole file when If-Range no longer matches, and 416 past the end', async () => {
    const etag = (await get('config.json')).headers.get('etag');
    expect(etag).toMatch(/^".+"$/);
    const matching = await get('model.safetensors', { range: 'bytes=10-', 'if-range': (await get('model.safetensors')).headers.get('etag') });
    expect(matching.status).toBe(206);
    const changed = await get('model.safetensors', { range: 'bytes=10-', 'if-range': '"another version"' });
    expect([changed.status, (await changed.arrayBuffer()).byteLength]).toEqual([200, fileBytes.length]);
    const past = await get('model.safetensors', { range: `bytes=${fileBytes.length}-` });
    expect([past.status, past.headers.get('content-range')]).toEqual([416, `bytes */${fileBytes.length}`]);
  });
});

/** fetch, logging each model.safetensors answer; with cutAfter, the next one's body fails after that many bytes. */
function droppingFetch(log, cut) {
  return async (url, init) => {
    const response = await fetch(url, init);
    if (!url.endsWith('model.safetensors')) return response;
    log.push({ range: init.headers?.Range ?? null, status: response.status, contentRange: response.headers.get('content-range') });
    if (!cut.after) return response;
    let left = cut.after;
    cut.after = 0;
    const reader = response.body.getReader();
    const body = new ReadableStream({
      async pull(controller) {
        const { done, value } = await reader.read();
        if (done || left <= 0) { reader.cancel(); controller.error(new TypeError('network error: the connection was reset')); return; }
        controller.enqueue(value.subarray(0, left));
        left -= value.length;
      },
    });
    return new Response(body, { status: response.status, statusText: response.statusText, headers: response.headers });
  };
}

describe('the loader resumes against scripts/serve.mjs', () => {
  it('a connection dropped after 50,000 bytes: the rest comes as 206 and the weights are the file\'s', async () => {
    const log = [];
    const events = [];
    const model = await loadGpt2FromUrl(base, { useCache: false, fetchImpl: droppingFetch(log, { after: 50_000 }), onProgress: (e) => events.push(e) });
    expect(log).toEqual([
      { range: null, status: 200, contentRange: null },
      { range: 'bytes=50000-', status: 206, contentRange: `bytes 50000-${fileBytes.length - 1}/${fileBytes.length}` },
    ]);
    expect(events.at(-1)).toMatchObject({ file: 'model.safetensors', loaded: fileBytes.length, total: fileBytes.length, resumed: 1 });
    for (const name of ['wte.weight', 'h.1.mlp.c_proj.weight', 'ln_f.bias']) expect(model.parameters[name].data).toEqual(reference[name].data);
  });
  it('fetchFile resumed: the bytes are the file\'s', async () => {
    const log = [];
    const bytes = await fetchFile(`${base}/model.safetensors`, { useCache: false, fetchImpl: droppingFetch(log, { after: 70_000 }) });
    expect(log.map((r) => r.status)).toEqual([200, 206]);
    expect(bytes).toEqual(fileBytes);
  });
  it('holds a download once: chunks go into one buffer of the announced size, or a list past it', () => {
    const chunk = (from, length) => Uint8Array.from({ length }, (_, i) => (from + i) % 251);
    const known = { buffer: null, chunks: [], loaded: 0, total: 10 };
    for (const [from, length] of [[0, 4], [4, 3], [7, 3]]) appendChunk(known, chunk(from, length));
    expect([known.chunks.length, known.buffer.length]).toEqual([0, 10]);
    expect(wholeBytes(known)).toBe(known.buffer);
    // a compressed response's Content-Length counts encoded bytes: more arrive than it said
    const exceeded = { buffer: null, chunks: [], loaded: 0, total: 5 };
    for (const [from, length] of [[0, 4], [4, 3], [7, 3]]) appendChunk(exceeded, chunk(from, length));
    expect(exceeded.buffer).toBeNull();
    expect(wholeBytes(exceeded)).toEqual(chunk(0, 10));
  });
  it('a cancelled download: the next call asks the server for the rest only', async () => {
    const log = [];
    const controller = new AbortController();
    const cancelled = loadGpt2FromUrl(base, {
      useCache: false, signal: controller.signal, fetchImpl: droppingFetch(log, {}),
      onProgress: (e) => { if (e.file === 'model.safetensors' && e.loaded > 0) controller.abort(); },
    });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    const model = await loadGpt2FromUrl(base, { useCache: false, fetchImpl: droppingFetch(log, {}) });
    expect(log).toHaveLength(2);
    expect(log[1].status).toBe(206);
    expect(log[1].range).toMatch(/^bytes=[1-9]\d*-$/);
    expect(model.parameters['h.0.attn.c_attn.weight'].data).toEqual(reference['h.0.attn.c_attn.weight'].data);
  });
});

describe('a float32 file streamed into float16 against scripts/serve.mjs', () => {
  const config = gpt2Config(readFileSync(`${DIR}config.json`, 'utf8'));
  const limitBytes = gpt2MemoryBytes(config).float16.total; // float16 fits, float32 does not
  const half = gpt2ParametersFromSafetensors(fileBytes, config, 'model.safetensors', { resident: 'float16' });
  const names = ['wte.weight', 'h.0.attn.c_attn.weight', 'h.1.mlp.c_proj.weight', 'wpe.weight', 'ln_f.bias'];
  it('a connection dropped mid-element (after 50,001 bytes) resumes with Range into the same float16 matrices', async () => {
    const log = [];
    const model = await loadGpt2FromUrl(base, { useCache: false, limitBytes, fetchImpl: droppingFetch(log, { after: 50_001 }) });
    expect(model.resident).toBe('float16');
    expect(log.map((r) => [r.range, r.status])).toEqual([[null, 200], ['bytes=50001-', 206]]);
    for (const name of names) expect(model.parameters[name], name).toEqual(half[name]);
  });
  it('cancelled mid-stream: the converted tensors are kept, and the next call asks only for the rest', async () => {
    const log = [];
    const controller = new AbortController();
    const cancelled = loadGpt2FromUrl(base, {
      useCache: false, limitBytes, signal: controller.signal, fetchImpl: droppingFetch(log, {}),
      onProgress: (e) => { if (e.file === 'model.safetensors' && e.loaded > 0) controller.abort(); },
    });
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' });
    const model = await loadGpt2FromUrl(base, { useCache: false, limitBytes, fetchImpl: droppingFetch(log, {}) });
    expect(log.map((r) => r.status)).toEqual([200, 206]);
    expect(log[1].range).toMatch(/^bytes=[1-9]\d*-$/);
    for (const name of names) expect(model.parameters[name], name).toEqual(half[name]);
  });
});
