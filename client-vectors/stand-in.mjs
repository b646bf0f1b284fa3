// The stand-in gateway the client vectors describe: each vector's exchanges, served in order under
// the path /<vector name>/, so one stand-in serves every vector at once. Both SDKs' tests run
// against it: the JavaScript package's tests import it, the Java SDK's tests start it as a process
// (`node stand-in.mjs`), which prints {"port": N} and then one JSON line per request it receives.
//
// A step answers (`answer`), cuts the link during the request's body or after it (`cut`), or never
// answers (`stall`). A request beyond the script or unlike the step's `expect` is answered 599 and
// reported as `unexpected`. DELETE (a client freeing an upload it will not finish) is answered 204
// outside the script.

import {createHash} from 'node:crypto';
import {createServer} from 'node:http';
import {readdirSync, readFileSync} from 'node:fs';
import {fileURLToPath} from 'node:url';
import {join} from 'node:path';

/** The vectors in this folder, by name. */
export function loadVectors(dir = fileURLToPath(new URL('.', import.meta.url))) {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => ({name: file.replace(/\.json$/, ''), ...JSON.parse(readFileSync(join(dir, file), 'utf8'))}));
}

/** The note a vector sends: `note.bytes` bytes counting up from 0, modulo 256. */
export function noteBytes(vector) {
  return Uint8Array.from({length: vector.note.bytes}, (_, i) => i & 255);
}

function sha256Of(vector) {
  return createHash('sha256').update(noteBytes(vector)).digest('hex');
}

function bodyOf(answer) {
  if (answer.repeat) {
    return answer.repeat.text.repeat(answer.repeat.times);
  }
  if (answer.json !== undefined) {
    return JSON.stringify(answer.json);
  }
  return answer.body ?? '';
}

/**
 * Starts the stand-in on a loopback port; `onRequest` hears each request as it arrives.
 *
 * @returns {Promise<{port: number, url: (name: string) => string, close: () => Promise<void>}>}
 */
export async function startStandIn(vectors, onRequest = () => {}) {
  const byName = new Map(vectors.map((vector) => [vector.name, vector]));
  const served = new Map();
  const sockets = new Set();
  let port = 0;
  const server = createServer((request, response) => {
    const [, name, ...rest] = request.url.split('/');
    const path = '/' + rest.join('/').split('?')[0];
    const vector = byName.get(name);
    const base = `http://127.0.0.1:${port}/${name}`;
    if (request.method === 'DELETE') {
      onRequest({vector: name, n: 0, method: 'DELETE', path, deleted: true});
      response.writeHead(204).end();
      return;
    }
    const n = (served.get(name) ?? 0) + 1;
    served.set(name, n);
    const step = vector?.exchanges?.[n - 1];
    const expected = step?.expect;
    // The lookup's path names the note by its hash.
    const expectedPath = expected?.path.replace('{sha256}', () => sha256Of(vector));
    const requestId = request.headers['x-bolo-request-id'] ?? null;
    const unexpected =
      step == null ||
      expected.method !== request.method ||
      expectedPath !== path ||
      (expected.attempt != null && !String(requestId).endsWith('-a' + expected.attempt));
    onRequest({
      vector: name,
      n,
      method: request.method,
      path,
      idempotencyKey: request.headers['idempotency-key'] ?? null,
      requestId,
      sha256: request.headers['x-bolo-audio-sha256'] ?? null,
      unexpected,
    });
    if (unexpected) {
      request.resume();
      request.on('end', () => response.writeHead(599).end('{"error":"not in the script"}'));
      return;
    }
    if (step.stall) {
      request.resume();
      return;
    }
    if (step.cut === 'during-body') {
      // The first piece of the body arrives, then the link goes.
      request.once('data', () => request.socket.destroy());
      request.once('end', () => request.socket.destroy());
      return;
    }
    request.resume();
    request.on('end', () => {
      if (step.cut === 'after-body') {
        // The whole request arrived; the answer is lost on the way back.
        request.socket.destroy();
        return;
      }
      const headers = {};
      for (const [header, value] of Object.entries(step.answer.headers ?? {})) {
        headers[header] = String(value).replaceAll('{base}', base);
      }
      response.writeHead(step.answer.status, headers);
      response.end(bodyOf(step.answer));
    });
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = server.address().port;
  return {
    port,
    url: (name) => `http://127.0.0.1:${port}/${name}/`,
    close: () =>
      new Promise((resolve) => {
        for (const socket of sockets) {
          socket.destroy();
        }
        server.close(() => resolve());
      }),
  };
}

// As a process: serve every vector in this folder until stdin closes (the Java test ends it so).
if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const standIn = await startStandIn(loadVectors(), (event) => {
    process.stdout.write(JSON.stringify(event) + '\n');
  });
  process.stdout.write(JSON.stringify({port: standIn.port}) + '\n');
  process.stdin.resume();
  process.stdin.on('end', () => standIn.close().then(() => process.exit(0)));
}
