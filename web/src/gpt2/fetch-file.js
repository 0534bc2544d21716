// Downloading one file of a checkpoint into a sink that takes its bytes as they arrive (the bytes themselves,
// or checkpoint-stream.js's reader that converts model.safetensors tensor by tensor): streamed with progress,
// cancellable (an AbortSignal), resumed with a Range request after a dropped connection or a cancel (the sink
// is kept for the next try of the same URL), and cached in the browser's Cache API when it has one (a download
// written to the cache as it streams, so a resumed one is cached only where its sink kept its bytes).

/** The Cache API cache that holds downloaded checkpoint files. */
export const CHECKPOINT_CACHE = 'attention-playground-checkpoints';
const partials = new Map();

function cacheStorage() {
  return typeof caches !== 'undefined' && caches?.open ? caches : null;
}

/** Forgets every cached checkpoint file and every partial download; resolves to whether a cache existed. */
export async function forgetCheckpoints() {
  partials.clear();
  const storage = cacheStorage();
  return storage ? storage.delete(CHECKPOINT_CACHE) : false;
}

/** Whether url's file is in the cache. */
export async function isCached(url) {
  const storage = cacheStorage();
  if (!storage) return false;
  return Boolean(await (await storage.open(CHECKPOINT_CACHE)).match(url));
}

/** A sink that keeps the bytes (appendChunk), of a file announced as `total` bytes (or null). */
export function bytesSink(total) {
  const sink = { buffer: null, chunks: [], loaded: 0, total };
  sink.push = (chunk) => appendChunk(sink, chunk);
  sink.bytes = () => wholeBytes(sink);
  return sink;
}

/**
 * Adds a chunk to a partial download: into one buffer of the announced size, allocated at the first chunk
 * (after onResponse's memory check), so that a file is held once and not again as its chunks; as a list of
 * chunks where the size is unknown or exceeded (a compressed response's Content-Length counts encoded bytes).
 */
export function appendChunk(partial, value) {
  if (!partial.buffer && partial.loaded === 0 && partial.total) partial.buffer = new Uint8Array(partial.total);
  if (partial.buffer && partial.chunks.length === 0 && partial.loaded + value.length <= partial.buffer.length) {
    partial.buffer.set(value, partial.loaded);
  } else {
    if (partial.buffer && partial.chunks.length === 0) partial.chunks.push(partial.buffer.subarray(0, partial.loaded));
    partial.buffer = null;
    partial.chunks.push(value);
  }
  partial.loaded += value.length;
}

/** The bytes of a finished download. */
export function wholeBytes(partial) {
  if (partial.buffer && partial.chunks.length === 0) return partial.loaded === partial.buffer.length ? partial.buffer : partial.buffer.slice(0, partial.loaded);
  const bytes = new Uint8Array(partial.loaded);
  let at = 0;
  for (const chunk of partial.chunks) { bytes.set(chunk, at); at += chunk.length; }
  return bytes;
}

function abortError(signal) {
  return signal.reason instanceof Error ? signal.reason : new DOMException('The download was cancelled', 'AbortError');
}

function announcedLength(headers) {
  const length = Number(headers.get('content-length'));
  return Number.isFinite(length) && headers.get('content-length') !== null ? length : null;
}

/** Reads a body into sink, calling progress(loaded) after every chunk; a read error is returned, a sink's thrown. */
async function pour(body, sink, progress) {
  const reader = body.getReader();
  for (;;) {
    let chunk;
    try {
      chunk = await reader.read();
    } catch (error) {
      return error;
    }
    if (chunk.done) return null;
    try {
      sink.push(chunk.value);
    } catch (error) {
      reader.cancel().catch(() => {}); // a bad file: no more of it
      throw error;
    }
    progress(sink.loaded);
  }
}

/**
 * Streams url's bytes into a sink ({loaded, push(chunk)}) and resolves to it: createSink(total) makes one for a
 * download from the start (total: the announced size or null); a call that was cancelled or failed leaves its
 * sink, under `kind`, for the next call of the same url and kind, which asks for the rest (a server that
 * answers the whole file again gets a new sink).
 * onProgress({url, loaded, total, cached, resumed}): after every chunk (total null when the server does not
 * say). onResponse({url, total}): once the size is known, before the body is read. signal: cancels. retries:
 * how many dropped connections are resumed before giving up. useCache: false skips the Cache API.
 */
export async function streamFile(url, createSink, { kind = 'bytes', signal, onProgress, onResponse, retries = 3, useCache = true, fetchImpl = globalThis.fetch } = {}) {
  const storage = useCache ? cacheStorage() : null;
  const cache = storage ? await storage.open(CHECKPOINT_CACHE) : null;
  const hit = cache ? await cache.match(url) : null;
  if (hit) {
    const total = announcedLength(hit.headers);
    await onResponse?.({ url, total });
    const sink = createSink(total);
    const failure = await pour(hit.body, sink, (loaded) => onProgress?.({ url, loaded, total, cached: true, resumed: 0 }));
    if (failure) throw new Error(`fetchFile: ${url} could not be read from the cache (${failure.message})`);
    return sink;
  }
  const key = `${kind} ${url}`;
  const partial = partials.get(key) ?? { sink: null, total: null, validator: null };
  partials.delete(key);
  const keep = () => { if (partial.sink?.loaded > 0) partials.set(key, partial); };
  let resumed = 0;
  let announced = false;
  let cached = null; // the Cache API's put of a download streamed from its first byte
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) { keep(); throw abortError(signal); }
    const headers = {};
    const from = partial.sink?.loaded ?? 0;
    if (from > 0) {
      headers.Range = `bytes=${from}-`;
      if (partial.validator) headers['If-Range'] = partial.validator;
    }
    let response;
    try {
      response = await fetchImpl(url, { signal, headers });
    } catch (error) {
      if (signal?.aborted) { keep(); throw abortError(signal); }
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} could not be fetched (${error.message})`);
    }
    let body = response.body;
    if (from > 0 && response.status === 206) {
      resumed += attempt === 0 ? 1 : 0;
    } else if (response.ok) {
      partial.total = announcedLength(response.headers);
      partial.validator = response.headers.get('etag') ?? response.headers.get('last-modified');
      partial.sink = createSink(partial.total);
      if (cache && !response.headers.get('content-encoding')) {
        let copy;
        [body, copy] = body.tee();
        const length = partial.total === null ? {} : { 'content-length': String(partial.total) };
        cached = cache.put(url, new Response(copy, { headers: length })).then(() => true, () => false);
      }
    } else {
      throw new Error(`fetchFile: ${url} answered ${response.status} ${response.statusText}; expected the file`);
    }
    if (!announced) { announced = true; await onResponse?.({ url, total: partial.total }); }
    const failure = await pour(body, partial.sink, (loaded) => onProgress?.({ url, loaded, total: partial.total, cached: false, resumed }));
    if (failure) {
      if (signal?.aborted) { keep(); throw abortError(signal); }
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} stopped after ${partial.sink.loaded} of ${partial.total ?? '?'} bytes (${failure.message}), ${retries} resumes tried`);
    }
    if (partial.total !== null && partial.sink.loaded < partial.total) {
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} is truncated: ${partial.sink.loaded} of ${partial.total} bytes arrived after ${retries} resumes`);
    }
    break;
  }
  // a resumed download's streamed copy failed with its first connection: cached whole where the sink has the bytes
  if (cache && !(await cached) && partial.sink.bytes) {
    await cache.put(url, new Response(partial.sink.bytes(), { headers: { 'content-length': String(partial.sink.loaded) } }));
  }
  return partial.sink;
}

/** url's bytes as a Uint8Array: streamFile into bytesSink, with the same options. */
export async function fetchFile(url, options = {}) {
  return (await streamFile(url, bytesSink, { ...options, kind: 'bytes' })).bytes();
}
