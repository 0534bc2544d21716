// scripts/serve.mjs's close() must end every connection at once: `server.close()` alone waits for a
// browser's speculative connection (opened, no request sent) until Node's headersTimeout, 60 s — the
// whole budget of the Playwright test that hung. These clients are exactly those connections.
import { connect } from 'node:net';
import { get, Agent } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startServer } from '../../scripts/serve.mjs';

function openSocket(port, bytes) {
  return new Promise((done, fail) => {
    const socket = connect(port, '127.0.0.1', () => {
      if (bytes) socket.write(bytes);
      done(socket);
    });
    socket.once('error', fail);
  });
}

const ended = (socket) => new Promise((done) => socket.once('close', () => done(true)));

describe('startServer close()', () => {
  it('serves a file, then ends idle keep-alive, speculative and half-sent connections and resolves', async () => {
    const server = await startServer({ root: '.', port: 0, isolated: false });
    const { port } = new URL(server.url);
    const agent = new Agent({ keepAlive: true });
    const body = await new Promise((done, fail) => {
      get({ port, host: '127.0.0.1', path: '/package.json', agent }, (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk) => { text += chunk; }).on('end', () => done(text));
      }).once('error', fail);
    });
    expect(JSON.parse(body).name).toBe('attention-playground');

    const speculative = await openSocket(port);
    const halfSent = await openSocket(port, 'GET /package.json HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    const closes = [ended(speculative), ended(halfSent)];
    // Without closeAllConnections this waits ~60 s and the test's 30 s timeout fails it.
    await server.close();
    await expect(Promise.all(closes)).resolves.toEqual([true, true]);
    agent.destroy();
  });

  it('picks a free port for port 0, so servers side by side never share one', async () => {
    const first = await startServer({ root: '.', port: 0, isolated: false });
    const second = await startServer({ root: '.', port: 0, isolated: false });
    try {
      expect(new URL(first.url).port).not.toBe(new URL(second.url).port);
    } finally {
      await Promise.all([first.close(), second.close()]);
    }
  });
});
