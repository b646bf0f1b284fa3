// The resend policy on a fake clock, as the Java SDK's ResenderTest and ResendPolicyTest.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {
  Cancelled,
  STANDARD_POLICY,
  parseRetryAfter,
  sendWithResends,
} from '../src/policy.js';

const EXACT = {...STANDARD_POLICY, jitter: 0};

/** A fake clock: sleeping advances it at once and records the pause. */
function fakeTime() {
  const time = {now: 0, pauses: []};
  time.clock = () => time.now;
  time.sleep = async (ms, signal) => {
    if (signal.aborted) {
      throw new Cancelled();
    }
    time.pauses.push(ms);
    time.now += ms;
  };
  return time;
}

function http(status, retryAfterMs = null) {
  return {ok: false, failure: {kind: 'http', status, code: null, message: 'm', retryAfterMs}};
}

const LINK = {ok: false, failure: {kind: 'link', reason: 'connection'}};
const OK = {ok: true, response: {body: {text: 'hello'}, replayed: false}};

/** A sender that answers from a script and counts its calls. */
function scripted(...answers) {
  const sender = {calls: 0};
  sender.send = async () => answers[Math.min(sender.calls++, answers.length - 1)];
  return sender;
}

async function run(sender, time, {policy = EXACT, signal = new AbortController().signal} = {}) {
  return sendWithResends({
    policy,
    send: sender.send,
    signal,
    now: time.clock,
    sleep: time.sleep,
    random: () => 0.5,
  });
}

test('pauses are two, five and ten seconds, then it gives up after four attempts', async () => {
  const time = fakeTime();
  const sender = scripted(http(503));
  const outcome = await run(sender, time);
  assert.equal(outcome.kind, 'gave-up');
  assert.equal(outcome.attempts, 4);
  assert.equal(sender.calls, 4);
  assert.deepEqual(time.pauses, [2000, 5000, 10000]);
});

test('link failures and every transient status are resent until one succeeds', async () => {
  for (const failure of [LINK, http(500), http(502), http(503), http(504), http(520), http(524)]) {
    const time = fakeTime();
    const sender = scripted(failure, OK);
    const outcome = await run(sender, time);
    assert.equal(outcome.kind, 'transcribed', JSON.stringify(failure));
    assert.equal(outcome.attempts, 2);
  }
});

test('answers a resend cannot change are not resent', async () => {
  for (const status of [400, 401, 402, 404, 408, 409, 413, 415, 422, 429, 501]) {
    const time = fakeTime();
    const sender = scripted(http(status), OK);
    const outcome = await run(sender, time);
    assert.equal(outcome.kind, 'refused', String(status));
    assert.equal(sender.calls, 1);
  }
});

test('a 429 that says when is resent after that wait', async () => {
  const time = fakeTime();
  const outcome = await run(scripted(http(429, 7000), OK), time);
  assert.equal(outcome.kind, 'transcribed');
  assert.deepEqual(time.pauses, [7000]);
});

test('a Retry-After longer than the pause replaces it, a shorter one does not', async () => {
  const time = fakeTime();
  await run(scripted(http(503, 30000), http(503, 1000), OK), time);
  assert.deepEqual(time.pauses, [30000, 5000]);
});

test('no attempt starts later than ninety seconds after the first', async () => {
  const time = fakeTime();
  const sender = scripted(http(503, 60000), http(503, 60000), OK);
  const outcome = await run(sender, time);
  assert.equal(outcome.kind, 'gave-up');
  assert.equal(sender.calls, 2);
  assert.deepEqual(time.pauses, [60000]);
});

test('a cancel during a pause ends the note and no attempt starts after it', async () => {
  const controller = new AbortController();
  const time = fakeTime();
  time.sleep = async (ms, signal) => {
    controller.abort();
    assert.ok(signal.aborted);
    throw new Cancelled();
  };
  const sender = scripted(http(503), OK);
  const outcome = await run(sender, time, {signal: controller.signal});
  assert.equal(outcome.kind, 'cancelled');
  assert.equal(sender.calls, 1);
});

test('a cancel during an attempt wins over what the attempt answered', async () => {
  const controller = new AbortController();
  const time = fakeTime();
  const sender = {
    calls: 0,
    send: async () => {
      sender.calls++;
      controller.abort();
      return OK;
    },
  };
  const outcome = await run(sender, time, {signal: controller.signal});
  assert.equal(outcome.kind, 'cancelled');
  assert.equal(sender.calls, 1);
  assert.deepEqual(time.pauses, []);
});

test('the standard pauses carry at most twenty percent of jitter', async () => {
  for (const random of [0, 0.999999]) {
    const time = fakeTime();
    await sendWithResends({
      send: scripted(http(503)).send,
      signal: new AbortController().signal,
      now: time.clock,
      sleep: time.sleep,
      random: () => random,
    });
    const expected = random === 0 ? [1600, 4000, 8000] : [2400, 6000, 12000];
    assert.deepEqual(time.pauses, expected);
  }
});

test('Retry-After is read as seconds or an HTTP-date and ignored when malformed', () => {
  const now = Date.parse('Sun, 06 Nov 1994 08:49:37 GMT');
  assert.equal(parseRetryAfter('7', now), 7000);
  assert.equal(parseRetryAfter(' 0 ', now), 0);
  assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:49:47 GMT', now), 10000);
  assert.equal(parseRetryAfter('Sunday, 06-Nov-94 08:49:47 GMT', now), 10000);
  assert.equal(parseRetryAfter('Sun Nov  6 08:49:47 1994', now), 10000);
  assert.equal(parseRetryAfter('Sun, 06 Nov 1994 08:40:00 GMT', now), 0);
  assert.equal(parseRetryAfter('soon', now), null);
  assert.equal(parseRetryAfter('-5', now), null);
  assert.equal(parseRetryAfter('', now), null);
  assert.equal(parseRetryAfter(null, now), null);
});
