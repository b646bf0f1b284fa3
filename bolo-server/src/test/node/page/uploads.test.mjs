// The page's uploads against a stand-in gateway (node --test; run by PageScriptsTest): long notes
// as tus uploads that resume from the gateway's offset, short ones as one POST, the lookup before a
// resend, all inside the resend policy.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {
  STANDARD_POLICY,
  isTransient,
  sendWithResends,
} from '../../../main/resources/dev/bolo/server/web/resend-policy.mjs';
import {
  LOOKUP_WAIT_SECONDS,
  adviceFor,
  reasonOf,
  sendAttempt,
} from '../../../main/resources/dev/bolo/server/web/gateway.mjs';
import {
  MAX_RESUMES_PER_ATTEMPT,
  RESUMABLE_THRESHOLD_BYTES,
  SETTLE_PAUSES_MS,
  metadataOf,
  waitSecondsFor,
} from '../../../main/resources/dev/bolo/server/web/tus.mjs';
import {
  answer,
  fakeGateway,
  instantSleep,
  joined,
  noteOf,
  readMetadata,
} from './fake-gateway.mjs';

const LONG = 300 * 1024;
const EXACT = {...STANDARD_POLICY, jitter: 0};

/** One attempt of `note` against `gateway`, with the events it reported. */
async function attempt(gateway, note, {number = 1, session = {resumable: true}, signal} = {}) {
  const events = {progress: [], resumed: [], sent: 0, lookups: 0};
  const sleep = instantSleep();
  const result = await sendAttempt({
    note,
    token: 'device-token',
    attempt: number,
    signal: signal ?? new AbortController().signal,
    session,
    exchange: gateway.exchange,
    sleep,
    onProgress: (fraction) => events.progress.push(fraction),
    onSent: () => events.sent++,
    onLookup: () => events.lookups++,
    onResumed: (fraction) => events.resumed.push(fraction),
  });
  return {result, events, pauses: sleep.pauses};
}

/** The note sent with the standard policy on a fake clock, as the page sends it. */
async function sendNote(gateway, note, {signal = new AbortController().signal} = {}) {
  const time = {now: 0, pauses: []};
  const sleep = instantSleep();
  const outcome = await sendWithResends({
    policy: EXACT,
    signal,
    now: () => time.now,
    sleep: async (ms) => {
      time.pauses.push(ms);
      time.now += ms;
    },
    random: () => 0.5,
    send: (number, attemptSignal) =>
      sendAttempt({
        note,
        token: 'device-token',
        attempt: number,
        signal: attemptSignal,
        session: {resumable: true},
        exchange: gateway.exchange,
        sleep,
        onProgress: () => {},
        onSent: () => {},
      }),
  });
  return {outcome, pauses: time.pauses};
}

function methods(gateway) {
  return gateway.requests.map((r) => `${r.method} ${r.url.split('?')[0]}`);
}

test('a long note cut mid-append goes on from the gateway offset within the same attempt', async () => {
  const gateway = fakeGateway({cuts: [100000]});
  const note = noteOf(LONG);

  const {result, events} = await attempt(gateway, note);

  assert.equal(result.ok, true, JSON.stringify(result));
  assert.equal(result.response.body.text, `resumed note of ${LONG} bytes`);
  assert.deepEqual(methods(gateway), [
    'POST /v1/uploads',
    'PATCH /v1/uploads/1',
    'HEAD /v1/uploads/1',
    'PATCH /v1/uploads/1',
    'GET /v1/uploads/1/transcription',
  ]);
  const patches = gateway.requests.filter((r) => r.method === 'PATCH');
  assert.deepEqual(
    patches.map((r) => r.headers['Upload-Offset']),
    ['0', '100000'],
  );
  assert.equal(patches[1].bytes, LONG - 100000);
  // Every byte of the note crossed the link once, and the gateway holds the note as it was.
  assert.equal(gateway.bodyBytes, LONG);
  assert.deepEqual(joined(gateway.uploads.get('1')), note.wav);
  assert.equal(gateway.transcriptions, 1);
  assert.deepEqual(events.resumed, [100000 / LONG]);
  assert.equal(events.sent, 1);
  // Progress counts from the note's first byte, so it goes on from where the gateway is.
  assert.deepEqual(events.progress, [100000 / LONG, 1]);
});

test('the upload is created with its length, settings, hash and the note key, without bytes', async () => {
  const gateway = fakeGateway();
  const note = noteOf(LONG, {language: 'de', model: '', response_format: 'text'});

  await attempt(gateway, note);

  const creation = gateway.requests[0];
  assert.equal(creation.bytes, 0);
  assert.equal(creation.headers['Upload-Length'], String(LONG));
  assert.equal(creation.headers['Tus-Resumable'], '1.0.0');
  assert.equal(creation.headers['Idempotency-Key'], '"key-307200"');
  assert.equal(creation.headers.Authorization, 'Bearer device-token');
  assert.deepEqual(readMetadata(creation.headers['Upload-Metadata']), {
    filename: 'note.wav',
    sha256: note.sha256,
    language: 'de',
    response_format: 'text',
  });
  for (const request of gateway.requests) {
    assert.equal(request.headers['Tus-Resumable'], '1.0.0', request.method);
    assert.equal(request.headers['X-Bolo-Request-Id'], 'key-307200-a1', request.method);
    assert.ok(!request.url.includes('device-token'), request.url);
  }
});

test('metadata values are base64 of their UTF-8 bytes', () => {
  const note = {sha256: null, settings: {language: 'hi', prompt: 'नमस्ते, café'}};
  assert.equal(
    metadataOf(note),
    'filename bm90ZS53YXY=,language aGk=,prompt ' +
      Buffer.from('नमस्ते, café', 'utf8').toString('base64'),
  );
});

test('notes of 256 KiB or more go resumably, shorter ones as one POST', async () => {
  assert.equal(RESUMABLE_THRESHOLD_BYTES, 262144);
  const atThreshold = fakeGateway();
  await attempt(atThreshold, noteOf(RESUMABLE_THRESHOLD_BYTES));
  assert.equal(methods(atThreshold)[0], 'POST /v1/uploads');

  const below = fakeGateway();
  const {result} = await attempt(below, noteOf(RESUMABLE_THRESHOLD_BYTES - 1));
  assert.equal(result.ok, true);
  assert.deepEqual(methods(below), ['POST /v1/transcriptions']);
  const post = below.requests[0];
  assert.equal(post.headers['Idempotency-Key'], '"key-262143"');
  assert.equal(post.headers['X-Bolo-Audio-Sha256'], 'ab'.repeat(32));
  assert.equal(post.bytes, RESUMABLE_THRESHOLD_BYTES - 1);
});

test('a gateway without uploads gets the note as one POST in the same attempt, and later notes too', async () => {
  const gateway = fakeGateway({uploads: false});
  const session = {resumable: true};

  const first = await attempt(gateway, noteOf(LONG), {session});
  const second = await attempt(gateway, noteOf(LONG + 1), {session});

  assert.equal(first.result.ok, true);
  assert.equal(second.result.ok, true);
  assert.equal(session.resumable, false);
  assert.deepEqual(methods(gateway), [
    'POST /v1/uploads',
    'POST /v1/transcriptions',
    'POST /v1/transcriptions',
  ]);
});

test('a note sent before is looked up by its hash and settings first, and not uploaded when found', async () => {
  const asked = [];
  const gateway = fakeGateway({
    lookup: (sha256, query) => {
      asked.push({sha256, query: Object.fromEntries(query)});
      return answer(200, {'Idempotent-Replayed': 'true'}, JSON.stringify({text: 'found it'}));
    },
  });
  const note = noteOf(LONG, {language: 'fr', model: '', response_format: 'json'});
  note.sent = true;

  const {result, events} = await attempt(gateway, note, {number: 2});

  assert.deepEqual(result, {ok: true, response: {body: {text: 'found it'}, replayed: true}});
  assert.deepEqual(asked, [
    {
      sha256: note.sha256,
      query: {wait: String(LOOKUP_WAIT_SECONDS), language: 'fr', response_format: 'json'},
    },
  ]);
  assert.deepEqual(methods(gateway), [`GET /v1/transcriptions/${note.sha256}`]);
  assert.equal(events.lookups, 1);
});

test('a first upload asks no lookup; a lookup that finds nothing leads to the upload', async () => {
  const gateway = fakeGateway();
  const note = noteOf(1000);

  await attempt(gateway, note);
  await attempt(gateway, note, {number: 2});

  assert.deepEqual(methods(gateway), [
    'POST /v1/transcriptions',
    `GET /v1/transcriptions/${note.sha256}`,
    'POST /v1/transcriptions',
  ]);
});

test('a lookup that finds the work still running ends the attempt, and the policy asks again', async () => {
  let lookups = 0;
  const gateway = fakeGateway({
    lookup: () =>
      ++lookups === 1
        ? answer(202, {'Retry-After': '1'}, '{"status":"running"}')
        : answer(200, {'Idempotent-Replayed': 'true'}, '{"text":"finished meanwhile"}'),
  });
  const note = noteOf(1000);
  note.sent = true;

  const {outcome, pauses} = await sendNote(gateway, note);

  assert.equal(outcome.kind, 'transcribed');
  assert.equal(outcome.attempts, 2);
  assert.equal(outcome.response.body.text, 'finished meanwhile');
  assert.deepEqual(pauses, [2000]);
  assert.equal(gateway.transcriptions, 0);
  const running = {kind: 'http', status: 202, code: 'running', message: 'm', retryAfterMs: 1000};
  assert.equal(isTransient(STANDARD_POLICY, running), true);
  assert.equal(reasonOf(running), 'the gateway is still transcribing it');
});

test('a break the gateway gained nothing from is asked about again, then left to the policy, whose next attempt goes on from the offset', async () => {
  // The first append breaks before a byte arrives; the link then works again.
  const gateway = fakeGateway({cuts: [0]});
  const note = noteOf(LONG);

  const first = await attempt(gateway, note);

  assert.equal(first.result.ok, false);
  assert.deepEqual(first.result.failure, {kind: 'link', reason: 'connection'});
  assert.deepEqual(first.pauses, SETTLE_PAUSES_MS);
  assert.deepEqual(methods(gateway).slice(0, 3), [
    'POST /v1/uploads',
    'PATCH /v1/uploads/1',
    'HEAD /v1/uploads/1',
  ]);
  assert.equal(gateway.requests.filter((r) => r.method === 'HEAD').length, 4);

  const second = await attempt(gateway, note, {number: 2});

  assert.equal(second.result.ok, true);
  // The same upload: no new creation, and the note's bytes crossed once.
  assert.equal(gateway.requests.filter((r) => r.url === '/v1/uploads').length, 1);
  assert.equal(gateway.bodyBytes, LONG);
});

test('an upload still locked by the broken append is asked about again, and a 409 is followed to the gateway offset', async () => {
  // The break is noticed by the gateway later than by the page: the first HEAD meets the lock
  // (423), the second an offset without the last 20000 bytes, which are stored a moment after.
  const gateway = fakeGateway({cuts: [120000], heldBack: 20000, lockedHeads: 1});
  const note = noteOf(LONG);

  const {result, pauses, events} = await attempt(gateway, note);

  assert.equal(result.ok, true, JSON.stringify(result));
  assert.deepEqual(pauses, [SETTLE_PAUSES_MS[0]]);
  const patches = gateway.requests.filter((r) => r.method === 'PATCH');
  assert.deepEqual(
    patches.map((r) => r.headers['Upload-Offset']),
    ['0', '100000', '120000'],
  );
  // The append at 100000 was refused before any of it was taken: no byte crossed twice.
  assert.equal(gateway.bodyBytes, LONG);
  assert.deepEqual(joined(gateway.uploads.get('1')), note.wav);
  assert.deepEqual(events.resumed, [100000 / LONG, 120000 / LONG]);
});

test('an attempt resumes at most thirty-two times', async () => {
  const size = 64 * 1024 * 1024;
  const cut = 1000;
  const gateway = fakeGateway({cuts: Array(40).fill(cut)});
  const note = noteOf(size);

  const {result, events} = await attempt(gateway, note);

  assert.deepEqual(result, {ok: false, failure: {kind: 'link', reason: 'connection'}});
  assert.equal(events.resumed.length, MAX_RESUMES_PER_ATTEMPT);
  assert.equal(gateway.requests.filter((r) => r.method === 'PATCH').length, 33);
});

test('an upload the gateway lost is created afresh once in the next attempt', async () => {
  const gateway = fakeGateway({cuts: [0]});
  const note = noteOf(LONG);
  await attempt(gateway, note); // broke: the upload stays behind
  gateway.uploads.delete('1'); // expired meanwhile

  const {result} = await attempt(gateway, note, {number: 2});

  assert.equal(result.ok, true);
  assert.deepEqual(methods(gateway).slice(-5), [
    `GET /v1/transcriptions/${note.sha256}`,
    'HEAD /v1/uploads/1',
    'POST /v1/uploads',
    'PATCH /v1/uploads/2',
    'GET /v1/uploads/2/transcription',
  ]);
});

test('the transcription refused (402) ends the note without a resend and forgets the upload', async () => {
  const gateway = fakeGateway({
    transcription: () =>
      answer(
        402,
        {'Content-Type': 'application/json'},
        JSON.stringify({error: "this device's free audio is spent", code: 'quota_exhausted'}),
      ),
  });
  const note = noteOf(LONG);

  const {outcome} = await sendNote(gateway, note);

  assert.equal(outcome.kind, 'refused');
  assert.equal(outcome.attempts, 1);
  assert.equal(outcome.failure.status, 402);
  assert.equal(note.tus.location, null);
  assert.match(adviceFor(outcome.failure), /^Quota spent/);
});

test('a cancel during an append ends the note; nothing but the upload deletion is sent after it', async () => {
  const controller = new AbortController();
  const gateway = fakeGateway();
  const note = noteOf(LONG);
  const realExchange = gateway.exchange;
  gateway.exchange = async (request) => {
    if (request.method === 'PATCH') {
      gateway.requests.push({method: 'PATCH', url: request.url, headers: request.headers});
      controller.abort();
      return {link: 'cancelled'};
    }
    return realExchange(request);
  };

  const {outcome} = await sendNote(gateway, note, {signal: controller.signal});
  assert.equal(outcome.kind, 'cancelled');
  assert.deepEqual(methods(gateway), ['POST /v1/uploads', 'PATCH /v1/uploads/1']);

  note.tus.terminate();
  assert.deepEqual(methods(gateway).slice(2), ['DELETE /v1/uploads/1']);
  assert.deepEqual(gateway.deleted, ['1']);
  assert.equal(note.tus.location, null);
});

test('one Idempotency-Key for every request of the note, across attempts and resumes', async () => {
  const gateway = fakeGateway({cuts: [0, 50000]});
  const note = noteOf(LONG);

  const {outcome} = await sendNote(gateway, note);

  assert.equal(outcome.kind, 'transcribed');
  assert.equal(outcome.attempts, 2);
  const creations = gateway.requests.filter((r) => r.url === '/v1/uploads');
  assert.equal(creations.length, 1);
  assert.equal(creations[0].headers['Idempotency-Key'], '"key-307200"');
  assert.equal(gateway.bodyBytes, LONG);
});

test('the wait for a transcript is the answer timeout less ten seconds, at most sixty', () => {
  assert.equal(waitSecondsFor(5000), 0);
  assert.equal(waitSecondsFor(35500), 25);
  assert.equal(waitSecondsFor(120000), 60);
});
