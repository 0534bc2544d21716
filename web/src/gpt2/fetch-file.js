// Downloading one file of a checkpoint: streamed with progress, cancellable (an AbortSignal), resumed with a
// Range request after a dropped connection or a cancel (the bytes received so far are kept in memory for the
// next try of the same URL), and cached in the browser's Cache API when it has one.

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

/**
 * url's bytes as a Uint8Array.
 * onProgress({url, loaded, total, cached, resumed}): after every chunk (total null when the server does not
 * say). onResponse({url, total}): once the size is known, before the body is read (a memory check can throw
 * there). signal: cancels; what arrived is kept, and the next call for url asks for the rest. retries: how
 * many dropped connections are resumed before giving up. useCache: false skips the Cache API.
 */
export async function fetchFile(url, { signal, onProgress, onResponse, retries = 3, useCache = true, fetchImpl = globalThis.fetch } = {}) {
  const storage = useCache ? cacheStorage() : null;
  if (storage) {
    const hit = await (await storage.open(CHECKPOINT_CACHE)).match(url);
    if (hit) {
      const bytes = new Uint8Array(await hit.arrayBuffer());
      await onResponse?.({ url, total: bytes.length });
      onProgress?.({ url, loaded: bytes.length, total: bytes.length, cached: true, resumed: 0 });
      return bytes;
    }
  }
  const partial = partials.get(url) ?? { buffer: null, chunks: [], loaded: 0, total: null, validator: null };
  partials.delete(url);
  let resumed = 0;
  let announced = false;
  for (let attempt = 0; ; attempt++) {
    if (signal?.aborted) { partials.set(url, partial); throw abortError(signal); }
    const headers = {};
    if (partial.loaded > 0) {
      headers.Range = `bytes=${partial.loaded}-`;
      if (partial.validator) headers['If-Range'] = partial.validator;
    }
    let response;
    try {
      response = await fetchImpl(url, { signal, headers });
    } catch (error) {
      if (signal?.aborted) { partials.set(url, partial); throw abortError(signal); }
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} could not be fetched (${error.message})`);
    }
    if (partial.loaded > 0 && response.status === 206) {
      resumed += attempt === 0 ? 1 : 0;
    } else if (response.ok) {
      partial.buffer = null;
      partial.chunks = [];
      partial.loaded = 0;
      const length = Number(response.headers.get('content-length'));
      partial.total = Number.isFinite(length) && response.headers.get('content-length') !== null ? length : null;
      partial.validator = response.headers.get('etag') ?? response.headers.get('last-modified');
    } else {
      throw new Error(`fetchFile: ${url} answered ${response.status} ${response.statusText}; expected the file`);
    }
    if (!announced) { announced = true; await onResponse?.({ url, total: partial.total }); }
    const reader = response.body.getReader();
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        appendChunk(partial, value);
        onProgress?.({ url, loaded: partial.loaded, total: partial.total, cached: false, resumed });
      }
    } catch (error) {
      if (signal?.aborted) { partials.set(url, partial); throw abortError(signal); }
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} stopped after ${partial.loaded} of ${partial.total ?? '?'} bytes (${error.message}), ${retries} resumes tried`);
    }
    if (partial.total !== null && partial.loaded < partial.total) {
      if (attempt < retries) { resumed++; continue; }
      throw new Error(`fetchFile: ${url} is truncated: ${partial.loaded} of ${partial.total} bytes arrived after ${retries} resumes`);
    }
    break;
  }
  const bytes = wholeBytes(partial);
  if (storage) {
    await (await storage.open(CHECKPOINT_CACHE)).put(url, new Response(bytes, { headers: { 'content-length': String(bytes.length) } }));
  }
  return bytes;
}
