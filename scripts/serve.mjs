#!/usr/bin/env node
// A small static file server for the playground, its tests and the benchmark.
//
//   node scripts/serve.mjs [--root dist] [--port 8080] [--no-isolation]
//
// By default it sends COOP/COEP headers, so the page is cross-origin isolated and may use the threaded
// WASM build; --no-isolation serves like a plain static host (the page must work there too).
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

/**
 * Serves `root` on 127.0.0.1:`port` (0 picks a free port).
 * @returns {Promise<{url: string, close: () => Promise<void>}>}
 */
export async function startServer({ root = 'dist', port = 8080, isolated = true } = {}) {
  const rootDir = resolve(root);
  const server = createServer(async (request, response) => {
    const headers = { 'Cache-Control': 'no-cache' };
    if (isolated) {
      headers['Cross-Origin-Opener-Policy'] = 'same-origin';
      headers['Cross-Origin-Embedder-Policy'] = 'require-corp';
      headers['Cross-Origin-Resource-Policy'] = 'same-origin';
    }
    const urlPath = decodeURIComponent(new URL(request.url, 'http://127.0.0.1').pathname);
    let filePath = normalize(join(rootDir, urlPath));
    if (filePath !== rootDir && !filePath.startsWith(rootDir + sep)) {
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
      headers['Content-Length'] = info.size;
      response.writeHead(200, headers);
      if (request.method === 'HEAD') response.end();
      else createReadStream(filePath).pipe(response);
    } catch {
      response.writeHead(404, headers).end('not found');
    }
  });
  await new Promise((done, fail) => {
    server.once('error', fail);
    server.listen(port, '127.0.0.1', done);
  });
  const url = `http://127.0.0.1:${server.address().port}/`;
  return { url, close: () => new Promise((done) => server.close(() => done())) };
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
  const { url } = await startServer(options);
  console.log(`Attention Playground: ${url}${options.isolated ? ' (cross-origin isolated)' : ''}`);
}
