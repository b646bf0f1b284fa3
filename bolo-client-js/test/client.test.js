// The client on a fake clock against an in-memory gateway: what the Java SDK's BoloClientTest,
// LookupBeforeResendTest and ResumableUploadTest check, named the JavaScript way.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash} from 'node:crypto';
import {mkdtemp, writeFile} from 'node:fs/promises';
import {tmpdir} from 'node:os';
import {join} from 'node:path';
import {BoloClient, BoloError, readTimeoutMs} from '../src/index.js';
import {BASE, clientOf, error, fakeGateway, joined, json, noteOf, wavOf} from './fake-gateway.js';
import {START_WALL_MS, fakeClock} from './fake-clock.js';


const sha256 = (bytes) => createHash('sha256').update(bytes).digest('hex');
const methods = (gateway) => gateway.requests.map((r) => `${r.method} ${r.path}`);

test('a short note is posted once with its hash, key, request id and settings', async () => {
  const gateway = fakeGateway();
  const note = noteOf(1000);
  const transcript = await clientOf(gateway, fakeClock()).transcribe(note, {
    language: 'en',
    model: 'whisper-1',
    idempotencyKey: 'note-1',
  });
  assert.equal(transcript.text, 'posted note');
  const [post] = gateway.requests;
  assert.deepEqual(methods(gateway), ['POST /v1/transcriptions']);
  assert.equal(post.headers['X-Bolo-Audio-Sha256'], sha256(note));
  assert.equal(post.headers['Idempotency-Key'], '"note-1"');
  assert.equal(post.headers['X-Bolo-Request-Id'], 'note-1-a1');
  assert.equal(post.headers.Authorization, 'Bearer device-token');
  const form = Buffer.from(post.body).toString('latin1');
  assert.match(form, /name="language"\r\n\r\nen\r\n/);
  assert.match(form, /name="model"\r\n\r\nwhisper-1\r\n/);
  assert.match(form, /name="audio"; filename="note"/);
  assert.ok(Buffer.from(post.body).includes(Buffer.from(note)));
});

test('every attempt carries the hash computed once, one key and a request id naming it', async () => {
  const gateway = fakeGateway({posts: [error(503, 'upstream_unavailable', 'busy'), undefined]});
  const attempts = [];
  await clientOf(gateway, fakeClock(), {lookupBeforeResend: false}).transcribe(noteOf(1000), {
    onAttempt: (event) => attempts.push(event),
  });
  const [first, second] = gateway.requests;
  assert.equal(first.headers['X-Bolo-Audio-Sha256'], second.headers['X-Bolo-Audio-Sha256']);
  assert.equal(first.headers['Idempotency-Key'], second.headers['Idempotency-Key']);
  assert.match(first.headers['X-Bolo-Request-Id'], /-a1$/);
  assert.match(second.headers['X-Bolo-Request-Id'], /-a2$/);
  assert.deepEqual(
    attempts.map((a) => [a.attempt, a.reason?.status ?? null, a.pausedMs]),
    [
      [1, null, null],
      [2, 503, 2000],
    ],
  );
});

test('a resend asks for the transcript by hash first and uploads nothing when the gateway has it', async () => {
  const note = noteOf(1000);
  const gateway = fakeGateway({
    posts: [{link: 'timeout'}],
    lookups: [json(200, {text: 'found', deduplicated: true}, {'Idempotent-Replayed': 'true'})],
  });
  const transcript = await clientOf(gateway, fakeClock()).transcribe(note, {language: 'en'});
  assert.equal(transcript.text, 'found');
  assert.equal(transcript.replayed, true);
  assert.deepEqual(methods(gateway), [
    'POST /v1/transcriptions',
    `GET /v1/transcriptions/${sha256(note)}`,
  ]);
  const lookup = new URL(gateway.requests[1].url);
  assert.equal(lookup.searchParams.get('language'), 'en');
  assert.equal(lookup.searchParams.get('wait'), '20');
});

test('a lookup that finds nothing leads to the upload in the same attempt', async () => {
  const gateway = fakeGateway({posts: [{link: 'connection'}]});
  const attempts = [];
  await clientOf(gateway, fakeClock()).transcribe(noteOf(1000), {
    onAttempt: (a) => attempts.push(a.attempt),
  });
  assert.deepEqual(methods(gateway).map((m) => m.split('/').slice(0, 3).join('/')), [
    'POST /v1/transcriptions',
    'GET /v1/transcriptions',
    'POST /v1/transcriptions',
  ]);
  assert.deepEqual(attempts, [1, 2]);
});

test('work reported running is waited for within the attempt, its progress told', async () => {
  const running = (done) =>
    json(202, {status: 'running', seconds_done: done, seconds_total: 8}, {'Retry-After': '1'});
  const gateway = fakeGateway({
    posts: [{link: 'timeout'}],
    lookups: [running(2), running(5), json(200, {text: 'waited for'})],
  });
  const time = fakeClock();
  const progress = [];
  const transcript = await clientOf(gateway, time).transcribe(noteOf(1000), {
    onProgress: (p) => p.phase === 'transcribing' && progress.push([p.secondsDone, p.secondsTotal]),
  });
  assert.equal(transcript.text, 'waited for');
  assert.deepEqual(progress, [
    [2, 8],
    [5, 8],
  ]);
  // The policy's pause, then two of the gateway's Retry-After: 1.
  assert.deepEqual(time.pauses, [2000, 1000, 1000]);
  assert.equal(gateway.requests.filter((r) => r.method === 'POST').length, 1);
});

test('the wait for running work ends at the note deadline without a resend', async () => {
  const gateway = fakeGateway({
    posts: [{link: 'timeout'}],
    lookups: Array(200).fill(json(202, {status: 'running'}, {'Retry-After': '5'})),
  });
  const time = fakeClock();
  await assert.rejects(
    clientOf(gateway, time, {runningWait: {baseMs: 20000, maxMs: 20000}}).transcribe(noteOf(1000)),
    (e) => e instanceof BoloError && e.code === 'running' && e.status === 202 && e.attempts === 2,
  );
  // 20 s in all: four of the gateway's 5 s, then the fifth would pass the deadline.
  assert.deepEqual(time.pauses, [2000, 5000, 5000, 5000, 5000]);
});

test('a long note cut mid-append goes on from the gateway offset within the same attempt', async () => {
  const note = noteOf(300 * 1024);
  const gateway = fakeGateway({cuts: [100 * 1024]});
  const attempts = [];
  const transcript = await clientOf(gateway, fakeClock()).transcribe(note, {
    onAttempt: (a) => attempts.push(a.attempt),
  });
  assert.equal(transcript.text, `resumed note of ${note.length} bytes`);
  assert.deepEqual(attempts, [1]);
  assert.equal(gateway.uploads.size, 1);
  assert.equal(gateway.bodyBytes, note.length, 'no byte sent twice');
  assert.deepEqual(new Uint8Array(joined(gateway.uploads.get('1'))), note);
  assert.deepEqual(methods(gateway), [
    'POST /v1/uploads',
    'PATCH /v1/uploads/1',
    'HEAD /v1/uploads/1',
    'PATCH /v1/uploads/1',
    'GET /v1/uploads/1/transcription',
  ]);
  const created = gateway.uploads.get('1').metadata;
  assert.equal(created.sha256, sha256(note));
  assert.equal(gateway.requests[3].headers['Upload-Offset'], String(100 * 1024));
});

test('a gateway without uploads gets the note whole, and the client remembers', async () => {
  const gateway = fakeGateway({uploads: false});
  const client = clientOf(gateway, fakeClock());
  await client.transcribe(noteOf(300 * 1024));
  await client.transcribe(noteOf(300 * 1024));
  assert.deepEqual(methods(gateway), [
    'POST /v1/uploads',
    'POST /v1/transcriptions',
    'POST /v1/transcriptions',
  ]);
});

test('a refusal is a BoloError with the gateway code, status, request id and no resend', async () => {
  const gateway = fakeGateway({posts: [error(402, 'quota_exhausted', 'the free seconds are spent')]});
  await assert.rejects(clientOf(gateway, fakeClock()).transcribe(noteOf(10)), (e) => {
    assert.ok(e instanceof BoloError);
    assert.equal(e.code, 'quota_exhausted');
    assert.equal(e.status, 402);
    assert.equal(e.retryable, false);
    assert.equal(e.requestId, 'r-9');
    assert.equal(e.attempts, 1);
    assert.match(e.message, /the free seconds are spent \(HTTP 402 quota_exhausted, 1 attempt\)/);
    return true;
  });
});

test('link failures are resent four times, then it gives up, retryable', async () => {
  const gateway = fakeGateway({posts: Array(4).fill({link: 'connection'})});
  const time = fakeClock();
  await assert.rejects(
    clientOf(gateway, time, {lookupBeforeResend: false}).transcribe(noteOf(10)),
    (e) => e.code === 'connection' && e.status === null && e.retryable && e.attempts === 4,
  );
  assert.deepEqual(time.pauses, [2000, 5000, 10000]);
});

test('a Retry-After date is measured from the injected wall clock', async () => {
  const date = new Date(START_WALL_MS + 6000).toUTCString();
  const gateway = fakeGateway({posts: [error(429, 'rate_limited', 'slow down', {'Retry-After': date})]});
  const time = fakeClock();
  await clientOf(gateway, time, {lookupBeforeResend: false}).transcribe(noteOf(10));
  assert.deepEqual(time.pauses, [6000]);
});

test('a cancel while the gateway works ends the note; nothing is uploaded after it', async () => {
  const controller = new AbortController();
  const gateway = fakeGateway({
    posts: [{link: 'timeout'}],
    lookups: [
      () => {
        controller.abort();
        return json(202, {status: 'running'});
      },
    ],
  });
  await assert.rejects(
    clientOf(gateway, fakeClock()).transcribe(noteOf(10), {signal: controller.signal}),
    (e) => e.code === 'cancelled' && e.retryable === false && e.attempts === 2,
  );
  assert.equal(gateway.requests.filter((r) => r.method === 'POST').length, 1);
});

test('a cancel during a resumable upload deletes it on the gateway and sends nothing else', async () => {
  const controller = new AbortController();
  const gateway = fakeGateway({cuts: [1000]});
  const exchange = gateway.exchange;
  gateway.exchange = async (request) => {
    if (request.method === 'HEAD') controller.abort();
    return exchange(request);
  };
  await assert.rejects(
    clientOf(gateway, fakeClock()).transcribe(noteOf(300 * 1024), {signal: controller.signal}),
    (e) => e.code === 'cancelled',
  );
  assert.deepEqual(methods(gateway), [
    'POST /v1/uploads',
    'PATCH /v1/uploads/1',
    'HEAD /v1/uploads/1',
    'DELETE /v1/uploads/1',
  ]);
});

test('the read timeout is 30 s plus half the note, at most 120 s, from a WAV header', async () => {
  assert.equal(readTimeoutMs(null), 30000);
  assert.equal(readTimeoutMs(60000), 60000);
  assert.equal(readTimeoutMs(600000), 120000);
  assert.equal(readTimeoutMs(1000, {baseMs: 300, minMs: 300, maxMs: 300}), 300);
  const gateway = fakeGateway();
  await clientOf(gateway, fakeClock()).transcribe(wavOf(4), {fileName: 'n.wav'});
  const [post] = gateway.requests;
  assert.equal(post.answerMs, 32000);
  assert.equal(post.headers['X-Bolo-Audio-Duration-Ms'], '4000');
});

test('in Node a path is read once and sent under its file name', async () => {
  const dir = await mkdtemp(join(tmpdir(), 'bolo-client-'));
  const file = join(dir, 'memo.ogg');
  const bytes = noteOf(500);
  await writeFile(file, bytes);
  const gateway = fakeGateway();
  await clientOf(gateway, fakeClock()).transcribe(file);
  const form = Buffer.from(gateway.requests[0].body).toString('latin1');
  assert.match(form, /filename="memo.ogg"\r\nContent-Type: audio\/ogg/);
  assert.equal(gateway.requests[0].headers['X-Bolo-Audio-Sha256'], sha256(bytes));
});

test('a Blob and an ArrayBuffer are read as their bytes', async () => {
  const bytes = noteOf(64);
  for (const audio of [new Blob([bytes], {type: 'audio/webm'}), bytes.buffer.slice(0)]) {
    const gateway = fakeGateway();
    await clientOf(gateway, fakeClock()).transcribe(audio);
    assert.equal(gateway.requests[0].headers['X-Bolo-Audio-Sha256'], sha256(bytes));
  }
});

test('settings that contradict themselves are refused before anything is sent', () => {
  assert.throws(() => new BoloClient({baseUrl: 'ftp://x', token: 't'}), /baseUrl must be an http/);
  assert.throws(() => new BoloClient({baseUrl: BASE, token: 'a b'}), /token must be visible ASCII/);
  assert.throws(
    () => new BoloClient({baseUrl: BASE, token: 't', policy: {maxAttempts: 0}}),
    /maxAttempts must be an integer >= 1: 0/,
  );
  assert.throws(
    () => new BoloClient({baseUrl: BASE, token: 't', policy: {jitter: 1}}),
    /jitter must be in \[0, 1\): 1/,
  );
  assert.throws(
    () => new BoloClient({baseUrl: BASE, token: 't', policy: {transientStatuses: [429]}}),
    /either always resent or only with Retry-After, not both: 429/,
  );
});
