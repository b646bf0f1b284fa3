// One request that is not a note's upload (the model list, the jobs' endpoints): sent once, its
// answer read as a JSON object or turned into a BoloError. Nothing here is resent: a caller that
// wants to ask again decides when.

import {failureOf, jsonObjectOf, linkFailure} from './answers.js';
import {BoloError} from './errors.js';
import {isTransient} from './policy.js';

/** How long one of these answers may take: the gateway answers them at once. */
export const CALL_ANSWER_MS = 30000;

/**
 * @typedef {object} Call
 * @property {import('./transport.js').Exchange} exchange
 * @property {import('./policy.js').ResendPolicy} policy judges whether a failure is retryable
 * @property {() => number} wallTime
 * @property {string} method
 * @property {string} url
 * @property {Record<string, string>} headers
 * @property {Uint8Array | null} [body]
 * @property {AbortSignal} [signal]
 * @property {string} what what was asked, for the error's sentence, such as `the model list`
 */

/**
 * Sends the request and resolves with the status and the JSON object of a 2xx answer.
 *
 * @param {Call} call
 * @returns {Promise<{status: number, body: Record<string, unknown>,
 *   header: (name: string) => string | null}>} rejects with a {@link BoloError} only
 */
export async function callJson(call) {
  const signal = call.signal ?? new AbortController().signal;
  const answer = await call.exchange({
    method: call.method,
    url: call.url,
    headers: call.headers,
    body: call.body ?? null,
    signal,
    answerMs: CALL_ANSWER_MS,
  });
  if (answer.link) {
    /** @type {import('./policy.js').Failure} */
    const failure = linkFailure(answer);
    const what =
      answer.link === 'cancelled'
        ? `${call.what} was cancelled`
        : answer.link === 'timeout'
          ? `the gateway did not answer in time for ${call.what}`
          : `the connection to the gateway failed while asking for ${call.what}`;
    throw new BoloError(what, {
      code: answer.link,
      status: null,
      retryable: isTransient(call.policy, failure),
      requestId: null,
      attempts: 1,
      reason: answer.link === 'cancelled' ? null : failure,
    });
  }
  const body = answer.status >= 200 && answer.status < 300 ? jsonObjectOf(answer.text) : null;
  if (body) {
    return {status: answer.status, body, header: answer.header};
  }
  const unexpected =
    answer.status >= 200 && answer.status < 300 ? "the gateway's answer is not JSON" : null;
  const failure = failureOf(answer, call.wallTime(), unexpected);
  const label = failure.code ? `HTTP ${failure.status} ${failure.code}` : `HTTP ${failure.status}`;
  throw new BoloError(`the gateway refused ${call.what}: ${failure.message} (${label})`, {
    code: failure.code ?? `http_${failure.status}`,
    status: failure.status,
    retryable: isTransient(call.policy, failure),
    requestId: failure.requestId,
    attempts: 1,
    retryAfterMs: failure.retryAfterMs,
    reason: failure,
  });
}
