// Jobs: a note handed over (POST /v1/jobs, resent under the policy with one key), read and
// cancelled, and the webhook that tells its end, checked against signatures the Standard Webhooks
// reference library (npm standardwebhooks) makes.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {createHash, createHmac, randomBytes} from 'node:crypto';
import {Webhook} from 'standardwebhooks';
import {BoloError, WebhookVerificationError, verifyWebhook} from '../src/index.js';
import {hmacSha256Portable} from '../src/webhooks.js';
import {BASE, clientOf, error, fakeGateway, json, noteOf} from './fake-gateway.js';
import {START_WALL_MS, fakeClock} from './fake-clock.js';


const JOB = {
  id: 'job_5f0c',
  object: 'job',
  status: 'succeeded',
  created_at: '2026-12-01T10:00:00Z',
  finished_at: '2026-12-01T10:00:04Z',
  audio_sha256: '9f86',
  duration_ms: 3000,
  progress: {seconds_done: 3.0, seconds_total: 3.0},
  result: {text: 'the note', deduplicated: false, audio_sha256: '9f86', duration_ms: 3000,
    request_id: 'job_5f0c', engine: 'openai', model: 'whisper-1'},
  error: null,
  webhook_url: 'https://example.com/bolo',
  metadata: {order: 'A-17'},
};

const queued = {...JOB, status: 'queued', finished_at: null, result: null, progress: null};

test('a job is submitted with the note, its settings, webhook, metadata, key and hash', async () => {
  const gateway = fakeGateway({routes: {'POST /v1/jobs': json(202, queued)}});
  const note = noteOf(1000);
  const job = await clientOf(gateway).submitJob(note, {
    webhookUrl: 'https://example.com/bolo',
    metadata: {order: 'A-17'},
    idempotencyKey: 'job-key-1',
    language: 'en',
  });
  assert.equal(job.id, 'job_5f0c');
  assert.equal(job.status, 'queued');
  assert.equal(job.result, null);
  assert.deepEqual(job.metadata, {order: 'A-17'});
  const [post] = gateway.requests;
  assert.equal(post.url, BASE + 'v1/jobs');
  assert.equal(post.headers['Idempotency-Key'], '"job-key-1"');
  assert.equal(post.headers['X-Bolo-Audio-Sha256'], createHash('sha256').update(note).digest('hex'));
  const form = Buffer.from(post.body).toString('latin1');
  assert.match(form, /name="webhook_url"\r\n\r\nhttps:\/\/example\.com\/bolo\r\n/);
  assert.match(form, /name="metadata"\r\n\r\n\{"order":"A-17"\}\r\n/);
  assert.match(form, /name="language"\r\n\r\nen\r\n/);
});

test('a submission the link lost is resent with the same key, and the gateway makes one job', async () => {
  let posts = 0;
  const gateway = fakeGateway({
    routes: {'POST /v1/jobs': () => (++posts === 1 ? {link: 'connection'} : json(202, queued))},
  });
  const time = fakeClock();
  const job = await clientOf(gateway, time).submitJob(noteOf(1000));
  assert.equal(job.id, 'job_5f0c');
  assert.equal(posts, 2);
  assert.deepEqual(time.pauses, [2000]);
  const [first, second] = gateway.requests;
  assert.equal(first.headers['Idempotency-Key'], second.headers['Idempotency-Key']);
});

test('a refused submission is a BoloError with the gateway code and no resend', async () => {
  const gateway = fakeGateway({
    routes: {'POST /v1/jobs': error(400, 'invalid_parameter', 'webhook_url must be https')},
  });
  const refused = await clientOf(gateway).submitJob(noteOf(1000)).catch((e) => e);
  assert.ok(refused instanceof BoloError);
  assert.equal(refused.code, 'invalid_parameter');
  assert.equal(refused.attempts, 1);
  assert.match(refused.message, /^the gateway refused the job: webhook_url must be https/);
});

test('a job is read and cancelled by its id', async () => {
  const gateway = fakeGateway({
    routes: {
      'GET /v1/jobs/job_5f0c': json(200, JOB),
      'DELETE /v1/jobs/job_5f0c': json(200, {...queued, status: 'cancelled'}),
    },
  });
  const client = clientOf(gateway);
  const job = await client.job('job_5f0c');
  assert.equal(job.status, 'succeeded');
  assert.equal(job.result.text, 'the note');
  assert.equal(job.result.model, 'whisper-1');
  assert.deepEqual(job.progress, {secondsDone: 3, secondsTotal: 3});
  assert.equal((await client.cancelJob('job_5f0c')).status, 'cancelled');
  assert.deepEqual(
    gateway.requests.map((r) => `${r.method} ${r.path}`),
    ['GET /v1/jobs/job_5f0c', 'DELETE /v1/jobs/job_5f0c'],
  );
});

test("another device's job is 404 not_found, not retryable", async () => {
  const gateway = fakeGateway({routes: {'GET /v1/jobs/job_x': error(404, 'not_found', 'no such job')}});
  const missing = await clientOf(gateway).job('job_x').catch((e) => e);
  assert.equal(missing.status, 404);
  assert.equal(missing.code, 'not_found');
  assert.equal(missing.retryable, false);
});

test('the job list is read a page at a time', async () => {
  const gateway = fakeGateway({
    routes: {'GET /v1/jobs': json(200, {object: 'list', data: [JOB, queued], has_more: true})},
  });
  const page = await clientOf(gateway).jobs({status: 'succeeded', after: 'job_1', limit: 2});
  assert.deepEqual(page.jobs.map((j) => j.status), ['succeeded', 'queued']);
  assert.equal(page.hasMore, true);
  const asked = new URL(gateway.requests[0].url);
  assert.equal(asked.search, '?status=succeeded&after=job_1&limit=2');
});

// ---- webhooks ----

const SECRET = 'whsec_' + randomBytes(24).toString('base64');
const NOW_S = Math.floor(START_WALL_MS / 1000);
const EVENT = JSON.stringify({type: 'job.succeeded', timestamp: '2026-11-30T12:00:00Z', data: JOB});

/** A webhook as the reference library signs it. */
function signed(body = EVENT, secret = SECRET, at = NOW_S) {
  const id = 'msg_' + randomBytes(6).toString('hex');
  const signature = new Webhook(secret).sign(id, new Date(at * 1000), body);
  return {'webhook-id': id, 'webhook-timestamp': String(at), 'webhook-signature': signature};
}

test('a webhook signed by the Standard Webhooks reference library verifies and gives its job', async () => {
  const event = await verifyWebhook(signed(), EVENT, SECRET, {nowMs: START_WALL_MS});
  assert.equal(event.type, 'job.succeeded');
  assert.equal(event.job.id, 'job_5f0c');
  assert.equal(event.job.result.text, 'the note');
  assert.deepEqual(event.job.metadata, {order: 'A-17'});
});

test('headers in any case, as a Headers, a Map or an object, and the body as bytes', async () => {
  const headers = signed();
  const upper = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toUpperCase(), v]));
  const bytes = new TextEncoder().encode(EVENT);
  for (const given of [upper, new Headers(headers), new Map(Object.entries(upper))]) {
    const event = await verifyWebhook(given, bytes, SECRET, {nowMs: START_WALL_MS});
    assert.equal(event.job.id, 'job_5f0c');
  }
});

test('during a rotation either secret verifies: one match among the signatures is enough', async () => {
  const old = 'whsec_' + randomBytes(24).toString('base64');
  const headers = signed(EVENT, old);
  // The gateway signs with both: the new secret's signature beside the old one's.
  const withNew = new Webhook(SECRET).sign(headers['webhook-id'], new Date(NOW_S * 1000), EVENT);
  headers['webhook-signature'] = `${headers['webhook-signature']} ${withNew}`;
  assert.equal((await verifyWebhook(headers, EVENT, SECRET, {nowMs: START_WALL_MS})).job.id, 'job_5f0c');
  assert.equal((await verifyWebhook(headers, EVENT, old, {nowMs: START_WALL_MS})).job.id, 'job_5f0c');
});

test('an altered body, another secret, a stale or early timestamp and a missing header are refused', async () => {
  const refused = async (headers, body, secret, nowMs = START_WALL_MS) =>
    verifyWebhook(headers, body, secret, {nowMs}).then(
      () => assert.fail('verified'),
      (e) => {
        assert.ok(e instanceof WebhookVerificationError, String(e));
        return e.message;
      },
    );
  assert.match(await refused(signed(), EVENT.replace('the note', 'a forged note'), SECRET), /no v1 signature/);
  assert.match(await refused(signed(), EVENT, 'whsec_' + randomBytes(24).toString('base64')), /no v1 signature/);
  assert.match(await refused(signed(EVENT, SECRET, NOW_S - 301), EVENT, SECRET), /301 s old/);
  assert.match(await refused(signed(EVENT, SECRET, NOW_S + 301), EVENT, SECRET), /301 s ahead/);
  const {'webhook-signature': _, ...unsigned} = signed();
  assert.match(await refused(unsigned, EVENT, SECRET), /no webhook-signature header/);
  // Within the tolerance it verifies.
  assert.equal((await verifyWebhook(signed(EVENT, SECRET, NOW_S - 299), EVENT, SECRET, {nowMs: START_WALL_MS})).type, 'job.succeeded');
});

test('without Web Crypto the portable HMAC gives the same signatures (RFC 4231 case 2)', () => {
  const mac = hmacSha256Portable(
    new TextEncoder().encode('Jefe'),
    new TextEncoder().encode('what do ya want for nothing?'),
  );
  assert.equal(
    Buffer.from(mac).toString('hex'),
    '5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843',
  );
  const key = randomBytes(100);
  const message = randomBytes(1000);
  assert.deepEqual(
    Buffer.from(hmacSha256Portable(key, message)),
    createHmac('sha256', key).update(message).digest(),
  );
});
