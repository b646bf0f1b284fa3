// The client vectors (../../client-vectors), shared with the Java SDK's tests, run against the
// stand-in gateway they describe: one behaviour, two SDKs, one table.

import {after, before, test} from 'node:test';
import assert from 'node:assert/strict';
import {loadVectors, noteBytes, startStandIn} from '../../client-vectors/stand-in.mjs';
import {BoloClient} from '../src/index.js';
import {fakeClock} from './fake-clock.js';

const vectors = loadVectors();
const seen = new Map();
const listeners = new Map();
let standIn;

before(async () => {
  standIn = await startStandIn(vectors, (event) => {
    if (!seen.has(event.vector)) seen.set(event.vector, []);
    seen.get(event.vector).push(event);
    listeners.get(event.vector)?.(event);
  });
});

after(() => standIn.close());

test('there is a vector for each scenario the issue names', () => {
  assert.ok(vectors.length >= 20, `${vectors.length} vectors`);
});

for (const vector of vectors) {
  test(vector.name, async () => {
    const controller = new AbortController();
    const time = fakeClock({
      duringPause: (index) => {
        if (vector.cancel?.duringPause === index) controller.abort();
      },
    });
    listeners.set(vector.name, (event) => {
      if (vector.cancel?.atRequest === event.n && !event.deleted) controller.abort();
    });
    if (vector.cancel?.before) controller.abort();
    const settings = vector.client;
    const client = new BoloClient({
      baseUrl: standIn.url(vector.name),
      token: 'device-token',
      policy: {jitter: 0},
      clock: time.clock,
      lookupBeforeResend: settings.lookupBeforeResend,
      resumableThresholdBytes: settings.resumableThresholdBytes,
      timeouts: settings.timeoutsMs && {
        baseMs: settings.timeoutsMs.base,
        minMs: settings.timeoutsMs.min,
        maxMs: settings.timeoutsMs.max,
      },
    });

    let outcome;
    try {
      const transcript = await client.transcribe(noteBytes(vector), {
        signal: controller.signal,
        fileName: 'note.wav',
      });
      outcome = {outcome: 'transcribed', attempts: null, text: transcript.text};
    } catch (e) {
      outcome = {outcome: outcomeOf(e), attempts: e.attempts, status: e.status, code: e.code};
    }

    const expect = vector.expect;
    assert.equal(outcome.outcome, expect.outcome, JSON.stringify(outcome));
    if (expect.outcome === 'transcribed') {
      assert.equal(outcome.text, expect.text);
    } else {
      assert.equal(outcome.attempts, expect.attempts);
    }
    if (expect.status != null) {
      assert.equal(outcome.status, expect.status);
      assert.equal(outcome.code, expect.code);
    }
    if (expect.failure != null) {
      assert.equal(outcome.code, expect.failure);
    }
    assert.deepEqual(time.pauses, expect.pausesMs);
    const requests = (seen.get(vector.name) ?? []).filter((event) => !event.deleted);
    assert.deepEqual(
      requests.filter((event) => event.unexpected),
      [],
      'requests the vector does not script',
    );
    assert.equal(requests.length, vector.exchanges.length, 'requests');
    const keys = new Set(requests.map((event) => event.idempotencyKey).filter(Boolean));
    assert.ok(keys.size <= 1, `one Idempotency-Key per note: ${[...keys]}`);
  });
}

/** How a rejected note ended, in the vectors' words. */
function outcomeOf(error) {
  if (error.code === 'cancelled') return 'cancelled';
  return error.retryable ? 'gave-up' : 'refused';
}
