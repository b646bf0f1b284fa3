// Resumable uploads' harder cases (the dictation page's own tests of its copy checked them before
// the page was built on this package): a break that gained nothing, the resume budget, an upload
// the gateway lost, a refused transcription, one key for every request of a note.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {MAX_RESUMES_PER_ATTEMPT, SETTLE_PAUSES_MS, waitSecondsFor} from '../src/tus.js';
import {clientOf, error, fakeGateway, joined, noteOf} from './fake-gateway.js';
import {fakeClock} from './fake-clock.js';

const LONG = 300 * 1024;


const attemptOf = (request) => Number(request.headers['X-Bolo-Request-Id'].split('-a').pop());
const methods = (gateway) => gateway.requests.map((r) => `${r.method} ${r.path}`);

test('a break the gateway gained nothing from is asked about again, then resent from the same upload', async () => {
  const gateway = fakeGateway({cuts: [0]});
  const note = noteOf(LONG);
  const time = fakeClock();
  const transcript = await clientOf(gateway, time).transcribe(note);
  assert.equal(transcript.text, `resumed note of ${LONG} bytes`);
  // The settle pauses, then the policy's first pause.
  assert.deepEqual(time.pauses, [...SETTLE_PAUSES_MS, 2000]);
  const first = gateway.requests.filter((r) => attemptOf(r) === 1);
  assert.equal(first.filter((r) => r.method === 'HEAD').length, SETTLE_PAUSES_MS.length + 1);
  // One upload, and the note's bytes crossed once.
  assert.equal(gateway.requests.filter((r) => r.path === '/v1/uploads').length, 1);
  assert.equal(gateway.bodyBytes, LONG);
});

test('an attempt resumes at most thirty-two times', async () => {
  const gateway = fakeGateway({cuts: Array(40).fill(1000)});
  await clientOf(gateway).transcribe(noteOf(LONG));
  const firstPatches = gateway.requests.filter((r) => r.method === 'PATCH' && attemptOf(r) === 1);
  assert.equal(firstPatches.length, MAX_RESUMES_PER_ATTEMPT + 1);
  assert.ok(gateway.requests.some((r) => attemptOf(r) === 2), 'the policy sent it again');
});

test('an upload the gateway lost is created afresh once in the next attempt', async () => {
  const gateway = fakeGateway({cuts: [0]});
  const note = noteOf(LONG);
  const time = fakeClock({
    // The broken upload expires while the client pauses before its resend.
    duringPause: (index) => index === SETTLE_PAUSES_MS.length + 1 && gateway.uploads.delete('1'),
  });
  const transcript = await clientOf(gateway, time).transcribe(note);
  assert.equal(transcript.text, `resumed note of ${LONG} bytes`);
  assert.deepEqual(methods(gateway).slice(-4), [
    'HEAD /v1/uploads/1',
    'POST /v1/uploads',
    'PATCH /v1/uploads/2',
    'GET /v1/uploads/2/transcription',
  ]);
  assert.deepEqual(new Uint8Array(joined(gateway.uploads.get('2'))), note);
});

test('a refused transcription (402) ends the note without a resend', async () => {
  const gateway = fakeGateway({
    transcriptions: [error(402, 'quota_exhausted', "this device's free audio is spent")],
  });
  const refused = await clientOf(gateway).transcribe(noteOf(LONG)).catch((e) => e);
  assert.equal(refused.status, 402);
  assert.equal(refused.code, 'quota_exhausted');
  assert.equal(refused.attempts, 1);
  assert.equal(gateway.requests.filter((r) => r.method === 'POST').length, 1);
});

test('one Idempotency-Key for every request of the note, across attempts and resumes', async () => {
  const gateway = fakeGateway({cuts: [0, 50000]});
  await clientOf(gateway).transcribe(noteOf(LONG), {idempotencyKey: 'note-9'});
  const creations = gateway.requests.filter((r) => r.path === '/v1/uploads');
  assert.equal(creations.length, 1);
  assert.equal(creations[0].headers['Idempotency-Key'], '"note-9"');
  assert.ok(gateway.requests.every((r) => r.headers['X-Bolo-Request-Id'].startsWith('note-9-a')));
  assert.equal(gateway.bodyBytes, LONG);
});

test('the wait for a transcript is the answer timeout less ten seconds, at most sixty', () => {
  assert.equal(waitSecondsFor(5000), 0);
  assert.equal(waitSecondsFor(35500), 25);
  assert.equal(waitSecondsFor(120000), 60);
});
