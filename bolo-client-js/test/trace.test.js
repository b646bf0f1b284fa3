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
