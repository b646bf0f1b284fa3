// The fetch exchange (Node's) against a real HTTP server on loopback.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createServer} from 'node:http';
import {fetchExchange} from '../src/transport.js';

async function serve(handler) {
  const server = createServer(handler);
  const sockets = new Set();
  server.on('connection', (s) => sockets.add(s));
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () => {
      sockets.forEach((s) => s.destroy());
      return new Promise((resolve) => server.close(resolve));
    },
  };
}

const timers = () => process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;

test('an upload streams its body, reports its progress and reads the answer', async () => {
  const server = await serve((request, response) => {
    let size = 0;
    request.on('data', (d) => (size += d.length));
    request.on('end', () => response.writeHead(200, {'X-Size': size}).end('{"text":"ok"}'));
  });
  const progress = [];
  const answer = await fetchExchange(fetch, {
    method: 'POST',
    url: server.url,
    body: new Uint8Array(200 * 1024),
    signal: new AbortController().signal,
    idleMs: 30000,
    answerMs: 30000,
    onProgress: (sent, total) => progress.push([sent, total]),
  });
  await server.close();
  assert.equal(answer.status, 200);
  assert.equal(answer.header('X-Size'), String(200 * 1024));
  assert.equal(answer.text, '{"text":"ok"}');
  assert.deepEqual(progress.at(-1), [200 * 1024, 200 * 1024]);
});

test('a cancel mid-upload ends the exchange at once and leaves no timer behind', async () => {
  const before = timers();
  // The server takes the headers and never answers: the body stays on its way.
  const server = await serve(() => {});
  const controller = new AbortController();
  const answer = await fetchExchange(fetch, {
    method: 'PATCH',
    url: server.url,
    body: new Uint8Array(8 * 1024 * 1024),
    signal: controller.signal,
    idleMs: 60000,
    answerMs: 60000,
    onProgress: (sent) => sent > 100000 && controller.abort(),
  });
  assert.deepEqual(answer, {link: 'cancelled'});
  // Let a late pull of the body's stream run: it must not arm a timeout.
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(timers(), before);
  await server.close();
});

test('an answer that does not come within its time is a timeout', async () => {
  const server = await serve(() => {});
  const answer = await fetchExchange(fetch, {
    method: 'GET',
    url: server.url,
    signal: new AbortController().signal,
    answerMs: 200,
  });
  await server.close();
  assert.deepEqual(answer, {link: 'timeout'});
});
