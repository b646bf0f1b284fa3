// The app's trace on the client's requests (the traceHeaders option): what the Java SDK's
// TraceHeadersTest checks, named the JavaScript way.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {clientOf, error, fakeGateway, noteOf} from './fake-gateway.js';
import {fakeClock} from './fake-clock.js';

const TRACEPARENT = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';

test('every request of a note carries the app\'s traceparent and tracestate', async () => {
  const gateway = fakeGateway({posts: [error(503, 'upstream_unavailable', 'busy'), undefined]});
  let asked = 0;
  const client = clientOf(gateway, fakeClock(), {
    traceHeaders: () => {
      asked++;
      return {traceparent: TRACEPARENT, tracestate: 'app=1'};
    },
  });

  await client.transcribe(noteOf(1000));

  assert.ok(gateway.requests.length >= 2, 'the upload and its resend');
  for (const request of gateway.requests) {
    assert.equal(request.headers.traceparent, TRACEPARENT, `${request.method} ${request.path}`);
    assert.equal(request.headers.tracestate, 'app=1');
    assert.equal(request.headers.Authorization, 'Bearer device-token');
  }
  assert.equal(asked, gateway.requests.length, 'asked before each request');
});

test('only trace context headers are taken from the app, and a failing supplier sends none', async () => {
  const gateway = fakeGateway();
  await clientOf(gateway, fakeClock(), {
    traceHeaders: () => ({
      TraceParent: TRACEPARENT,
      Authorization: 'Bearer someone-else',
      baggage: 'user=42',
      tracestate: 'bad\nvalue',
    }),
  }).transcribe(noteOf(1000));
  await clientOf(gateway, fakeClock(), {
    traceHeaders: () => {
      throw new Error('no tracer');
    },
  }).transcribe(noteOf(1000));
  await clientOf(gateway, fakeClock()).transcribe(noteOf(1000));

  const [traced, broken, untraced] = gateway.requests;
  assert.equal(traced.headers.traceparent, TRACEPARENT);
  assert.equal(traced.headers.Authorization, 'Bearer device-token');
  assert.equal(traced.headers.baggage, undefined);
  assert.equal(traced.headers.tracestate, undefined);
  assert.equal(broken.headers.traceparent, undefined);
  assert.equal(untraced.headers.traceparent, undefined);
});

test('a tracestate too large for the gateway\'s headers is cut to its leading members', async () => {
  const gateway = fakeGateway();
  // OpenTelemetry allows 32 members of up to 256 characters: 8 KB, more than a gateway's headers.
  const members = Array.from({length: 32}, (_, i) => `v${i}=${'x'.repeat(i === 0 ? 200 : 250)}`);
  await clientOf(gateway, fakeClock(), {
    traceHeaders: () => ({traceparent: TRACEPARENT, tracestate: members.join(',')}),
  }).transcribe(noteOf(1000));

  const [sent] = gateway.requests;
  assert.equal(sent.headers.traceparent, TRACEPARENT);
  assert.equal(sent.headers.tracestate, undefined, 'every member is over 128 characters');

  const small = Array.from({length: 60}, (_, i) => `k${i}=${'y'.repeat(10)}`);
  await clientOf(gateway, fakeClock(), {
    traceHeaders: () => ({traceparent: TRACEPARENT, tracestate: small.join(',')}),
  }).transcribe(noteOf(1000));
  const cut = gateway.requests[1].headers.tracestate;
  assert.ok(cut.length <= 512, `${cut.length} characters`);
  assert.ok(small.join(',').startsWith(cut), 'the leading members, whole');
  assert.ok(cut.split(',').length > 30, 'as many as fit');
});
