#!/usr/bin/env node
// A small static file server for the playground, its tests and the benchmark.
//
//   node scripts/serve.mjs [--root dist] [--port 8080] [--no-isolation]
//
// By default it sends COOP/COEP headers, so the page is cross-origin isolated and may use the threaded
// WASM build; --no-isolation serves like a plain static host (the page must work there too). Serving a
// build (dist/), it also serves the repository's bench/ and what that loads, for the Benchmark tab.
// Files are served with an ETag and Last-Modified and answer a single-range `Range: bytes=…` with 206 (RFC
// 9110 §14), as the hub's file servers do, so a checkpoint download that was interrupted resumes for real.
import { createServer } from 'node:http';
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const MIME_TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.wgsl': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.md': 'text/markdown; charset=utf-8',
};

// What the benchmark page (bench/index.html) loads from the repository: its own modules, our core's
// sources and built WASM, and the peers from node_modules; and the course page example
// (examples/course-page.html), which embeds the build as ../dist/ beside it.
const BENCH_PATHS = ['/bench/', '/web/src/', '/node_modules/', '/examples/', '/dist/'];

/**
 * Serves `root` on 127.0.0.1:`port` (0 picks a free port). With `benchFrom` (a repository root), paths
 * under BENCH_PATHS that `root` lacks are served from there: then the built page's Benchmark tab can
 * run the whole suite, peers included, in the visitor's browser. Wherever the runner is served, every
 * response says so in an X-Benchmark-Runner header (its path).
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startServer({ root = 'dist', port = 8080, isolated = true, benchFrom = null } = {}) {
  const rootDir = resolve(root);
  const benchDir = benchFrom ? resolve(benchFrom) : null;
  // Tells the Benchmark tab where the runner is, so it never has to probe for it (a 404 is a console error).
  const runnerServed = Boolean(benchDir) || (await exists(join(rootDir, 'bench', 'index.html')));
  const server = createServer(async (request, response) => {
    const headers = { 'Cache-Control': 'no-cache' };
    if (runnerServed) headers['X-Benchmark-Runner'] = '/bench/index.html';
    if (isolated) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      headers['Cross-Origin-Resource-Policy'] = 'same-origin';
    }
    const urlPath = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
    const fromBench = benchDir && BENCH_PATHS.some((prefix) => urlPath.startsWith(prefix)) && !(await exists(join(rootDir, urlPath)));
    const baseDir = fromBench ? benchDir : rootDir;
    let filePath = normalize(join(baseDir, urlPath));
    if (filePath !== baseDir && !filePath.startsWith(baseDir + sep)) {
      response.writeHead(403, headers).end('forbidden');
      return;
    }
    try {
      let info = await stat(filePath);
      if (info.isDirectory()) {
        filePath = join(filePath, 'index.html');
        info = await stat(filePath);
      }
      headers['Content-Type'] = MIME_TYPES[extname(filePath)] ?? 'application/octet-stream';
      headers['Accept-Ranges'] = 'bytes';
      headers.ETag = `"${info.size.toString(16)}-${Math.floor(info.mtimeMs).toString(16)}"`;
      headers['Last-Modified'] = info.mtime.toUTCString();
      const range = requestedRange(request.headers, headers, info.size);
      if (range === 'unsatisfiable') {
        headers['Content-Range'] = `bytes */${info.size}`;
        response.writeHead(416, headers).end();
        return;
      }
      const [start, end] = range ?? [0, info.size - 1];
      headers['Content-Length'] = info.size === 0 ? 0 : end - start + 1;
      if (range) headers['Content-Range'] = `bytes ${start}-${end}/${info.size}`;
      response.writeHead(range ? 206 : 200, headers);
      if (request.method === 'HEAD' || info.size === 0) response.end();
      else createReadStream(filePath, { start, end }).pipe(response);
    } catch {
      response.writeHead(404, headers).end('not found');
    }
  });
  await new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', done);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => closeServer(server) };
}

/**
 * Stops `server` and resolves within `boundMs`, whatever its clients do. `server.close()` alone waits for
 * every open connection to end, and Node only ends an *idle* one at once: a browser's speculative
 * connection (opened ahead of a request that never comes) or a half-sent request counts as busy until
 * the server's headersTimeout (60 s) runs out — exactly a test's whole time budget. So every connection
 * is ended here, busy or not, and the promise settles after `boundMs` at the latest.
 */
export function closeServer(server, boundMs = 2000) {
  return new Promise((done) => {
    const timer = setTimeout(done, boundMs);
    timer.unref();
    server.close(() => {
      clearTimeout(timer);
      done();
    });
    server.closeAllConnections();
  });
}

/**
 * The byte range [start, end] (inclusive) a GET asks for with one `Range: bytes=a-b`, `bytes=a-` or `bytes=-n`;
 * null for the whole file (no Range, several ranges, another unit, or an If-Range that no longer matches the
 * file's ETag or Last-Modified: the file changed, so the client gets it whole); 'unsatisfiable' when the range
 * starts past the end (416).
 */
export function requestedRange(requestHeaders, fileHeaders, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec((requestHeaders.range ?? '').trim());
  if (!match || (match[1] === '' && match[2] === '')) return null;
  const ifRange = requestHeaders['if-range'];
  if (ifRange !== undefined && ifRange !== fileHeaders.ETag && ifRange !== fileHeaders['Last-Modified']) return null;
  if (match[1] === '') {
    const suffix = Number(match[2]);
    return suffix === 0 ? 'unsatisfiable' : [Math.max(0, size - suffix), size - 1];
  }
  const start = Number(match[1]);
  const end = match[2] === '' ? size - 1 : Math.min(Number(match[2]), size - 1);
  if (start >= size) return 'unsatisfiable';
  return end < start ? null : [start, end];
}

async function exists(path) {
  try {
    await stat(path);
    return true;
  } catch {
    return false;
  }
}

function parseArguments(argv) {
  const options = { root: 'dist', port: 8080, isolated: true };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--root') options.root = argv[++i];
    else if (argv[i] === '--port') options.port = Number(argv[++i]);
    else if (argv[i] === '--no-isolation') options.isolated = false;
    else throw new Error(`serve: unknown argument ${JSON.stringify(argv[i])}; expected --root DIR, --port N or --no-isolation`);
  }
  if (!Number.isInteger(options.port) || options.port < 0 || options.port > 65535) {
    throw new Error(`serve: --port ${options.port} is not a port number (0–65535)`);
  }
  return options;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const options = parseArguments(process.argv.slice(2));
  // Serving the build (npm start): the benchmark's files come from this repository, beside it.
  const repository = fileURLToPath(new URL('..', import.meta.url));
  const benchFrom = resolve(options.root) === resolve(repository) ? null : repository;
  const { url } = await startServer({ ...options, benchFrom });
  console.log(`Attention Playground: ${url}${options.isolated ? ' (cross-origin isolated)' : ''}`);
  if (benchFrom) console.log(`Course page example (both embeds): ${url}examples/course-page.html`);
}
