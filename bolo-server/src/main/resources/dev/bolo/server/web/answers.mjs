// The gateway's answers read for the page: a transcript, or a failure in resend-policy.mjs's terms
// (PROTOCOL.md's error table). An answer is what xhr.mjs's exchange resolves with.

import {parseRetryAfter} from './resend-policy.mjs';

/** The answer's error {message, code}, in the native shape or OpenAI's; null when there is none. */
export function errorOf(body) {
  try {
    const parsed = JSON.parse(body);
    if (typeof parsed.error === 'string') {
      return {message: parsed.error, code: parsed.code ?? null};
    }
    if (parsed.error && typeof parsed.error.message === 'string') {
      return {message: parsed.error.message, code: parsed.error.code ?? null};
    }
  } catch (e) {
    // Not JSON: a proxy's page, say. The status speaks for it.
  }
  return null;
}

/** A 200 answer's transcript as {body, replayed}; null for any other answer. */
export function transcriptOf(answer) {
  if (answer.status !== 200) {
    return null;
  }
  let body;
  try {
    body = JSON.parse(answer.text);
  } catch (e) {
    return null;
  }
  if (!body || typeof body.text !== 'string') {
    return null;
  }
  return {body, replayed: answer.header('Idempotent-Replayed') === 'true'};
}

/**
 * An answer that is not what was asked for, as a failure {kind: 'http', status, code, message,
 * retryAfterMs}. `unexpected` names what was wrong with an answer whose status looked right.
 */
export function failureOf(answer, unexpected = null) {
  const error = errorOf(answer.text ?? '');
  return {
    kind: 'http',
    status: answer.status,
    code: error?.code ?? (unexpected ? 'invalid_response' : null),
    message: error?.message ?? unexpected ?? 'no explanation given',
    retryAfterMs: parseRetryAfter(answer.header('Retry-After'), Date.now()),
  };
}

/** An exchange that got no answer, as a failure {kind: 'link', reason}. */
export function linkFailure(answer) {
  return {kind: 'link', reason: answer.link};
}

/** The failure of a lookup or upload that found the note's work still running after its wait. */
export function stillRunning(answer) {
  return {
    kind: 'http',
    status: 202,
    code: 'running',
    message: 'the gateway is still transcribing this note',
    retryAfterMs: parseRetryAfter(answer.header('Retry-After'), Date.now()),
  };
}
