// What an app shows while a note goes out (the gateway's own dictation page among them): the
// pauses before resends, the lookup, a resumed upload, an app's "send again", the model list, and
// the sentences that say what a failure means.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {BoloError, adviceFor, reasonOf} from '../src/index.js';
import {answer, clientOf, error, fakeGateway, json, noteOf} from './fake-gateway.js';
import {fakeClock} from './fake-clock.js';


const methods = (gateway) => gateway.requests.map((r) => `${r.method} ${r.path.split('/').slice(0, 3).join('/')}`);

test('each pause before a resend is told as it starts, with the attempt it leads to and why', async () => {
  const gateway = fakeGateway({
    posts: [error(503, 'upstream_unavailable', 'busy'), error(503, 'upstream_unavailable', 'busy')],
  });
  const time = fakeClock();
  const told = [];
  await clientOf(gateway, time, {lookupBeforeResend: false}).transcribe(noteOf(1000), {
    onPause: (event) => told.push([event.attempt, event.waitMs, event.reason.status, time.pauses.length]),
  });
  // Told before the pause passed: the pauses recorded so far do not include it.
  assert.deepEqual(told, [
    [2, 2000, 503, 0],
    [3, 5000, 503, 1],
  ]);
});

test('a resend says it looks the note up before uploading', async () => {
  const gateway = fakeGateway({posts: [{link: 'timeout'}]});
  const phases = [];
  await clientOf(gateway, fakeClock()).transcribe(noteOf(1000), {
    onProgress: (p) => phases.push(`${p.phase} ${p.attempt}`),
  });
  assert.deepEqual(
    phases.filter((p, i) => p !== phases[i - 1]),
    ['uploading 1', 'looking-up 2', 'uploading 2'],
  );
});

test('a resumed upload is told as such, from the gateway offset', async () => {
  const note = noteOf(300 * 1024);
  const gateway = fakeGateway({cuts: [100 * 1024]});
  const resumed = [];
  await clientOf(gateway, fakeClock()).transcribe(note, {
    onProgress: (p) => p.resumed && resumed.push([p.sentBytes, p.totalBytes]),
  });
  assert.deepEqual(resumed, [[100 * 1024, note.length]]);
});

test("an app's send again looks the note up first and uploads nothing when the gateway has it", async () => {
  const gateway = fakeGateway({
    lookups: [json(200, {text: 'kept'}, {'Idempotent-Replayed': 'true'})],
  });
  const transcript = await clientOf(gateway, fakeClock()).transcribe(noteOf(1000), {
    idempotencyKey: 'note-7',
    sentBefore: true,
  });
  assert.equal(transcript.text, 'kept');
  assert.equal(transcript.replayed, true);
  assert.deepEqual(methods(gateway), ['GET /v1/transcriptions']);
});

test('the model list gives each model with its languages, null for any language', async () => {
  const gateway = fakeGateway({
    routes: {
      'GET /v1/models': json(200, {
        object: 'list',
        data: [
          {id: 'moonshine-tiny', languages: ['en']},
          {id: 'whisper-1', languages: []},
          {id: 'gemini'},
        ],
      }),
    },
  });
  const models = await clientOf(gateway, fakeClock()).models();
  assert.deepEqual(models, [
    {id: 'moonshine-tiny', languages: ['en']},
    {id: 'whisper-1', languages: null},
    {id: 'gemini', languages: null},
  ]);
  assert.equal(gateway.requests[0].headers.Authorization, 'Bearer device-token');
});

test('a refused model list is a BoloError whose reason says what to do', async () => {
  const gateway = fakeGateway({
    routes: {'GET /v1/models': error(401, 'unauthorized', 'unknown device token')},
  });
  const refused = await clientOf(gateway, fakeClock()).models().catch((e) => e);
  assert.ok(refused instanceof BoloError);
  assert.equal(refused.status, 401);
  assert.equal(refused.code, 'unauthorized');
  assert.equal(refused.retryable, false);
  assert.match(adviceFor(refused.reason), /^Token refused: .*Paste a current token/);
});

test('a model list that is not JSON is the gateway fault, not the app', async () => {
  const gateway = fakeGateway({routes: {'GET /v1/models': answer(200, {}, '<html>')}});
  const refused = await clientOf(gateway, fakeClock()).models().catch((e) => e);
  assert.equal(refused.code, 'invalid_response');
});

test('a refused note carries the failure the sentences are made of', async () => {
  const gateway = fakeGateway({posts: [error(402, 'quota_exhausted', 'the free seconds are spent')]});
  const refused = await clientOf(gateway, fakeClock()).transcribe(noteOf(1000)).catch((e) => e);
  assert.equal(refused.reason.message, 'the free seconds are spent');
  assert.match(adviceFor(refused.reason), /Ask the operator to raise the device's quota/);
});

test('a failure reads after "because", and a proxy answer without a code is told by its status', () => {
  assert.equal(reasonOf({kind: 'link', reason: 'timeout'}), 'the gateway did not answer in time');
  assert.equal(reasonOf({kind: 'link', reason: 'connection'}), 'the connection to the gateway failed');
  const busy = {kind: 'http', status: 503, code: null, message: 'x'.repeat(200), requestId: null, retryAfterMs: null};
  assert.equal(reasonOf(busy), `the gateway answered 503 (${'x'.repeat(157)}…)`);
  const limited = {...busy, status: 429, message: 'slow down'};
  assert.match(adviceFor(limited), /^Too many notes from this device just now/);
  assert.match(adviceFor({kind: 'link', reason: 'connection'}), /^Could not reach the gateway/);
});
