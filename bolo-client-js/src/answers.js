// The gateway's answers read: a transcript, or a failure in policy.js's terms (PROTOCOL.md's
// error table). An answer is what transport.js's exchange resolves with.

import {parseRetryAfter} from './policy.js';

/**
 * One HTTP answer, or the link's failure when none came.
 *
 * @typedef {{status: number, header: (name: string) => string | null, text: string,
 *   link?: undefined}} HttpAnswer
 * @typedef {{link: 'connection' | 'timeout' | 'cancelled'}} NoAnswer
 * @typedef {HttpAnswer | NoAnswer} Answer
 */

/**
 * The gateway's answer for one note (PROTOCOL.md, the 200 of POST /v1/transcriptions).
 *
 * @typedef {object} Transcript
 * @property {string} text the transcript
 * @property {boolean} deduplicated the text came from earlier or in-flight work for the same audio
 *     and settings (a resend that was not transcribed or charged again)
 * @property {boolean} replayed the answer carried `Idempotent-Replayed: true`
 * @property {string} audioSha256 the gateway's own hex SHA-256 of the audio
 * @property {number | null} durationMs the note's length as the gateway measured it
 * @property {string} requestId the request id the gateway logged this answer under
 * @property {string} engine the engine that produced the text
 * @property {string | null} model the model that produced the text, when the gateway said
 */

/**
 * A parsed JSON object, or null when `text` is not one (a proxy's page, a body nested too deep).
 *
 * @param {string} text
 * @returns {Record<string, unknown> | null}
 */
export function jsonObjectOf(text) {
  try {
    const parsed = JSON.parse(text);
    return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? parsed : null;
  } catch (e) {
    // Not JSON, or nested deeper than the engine's parser goes: the status speaks for it.
    return null;
  }
}

/**
 * The answer's error {message, code, requestId}, in the native shape or OpenAI's; null when
 * there is none.
 *
 * @param {string} body
 * @returns {{message: string, code: string | null, requestId: string | null} | null}
 */
export function errorOf(body) {
  const parsed = jsonObjectOf(body);
  if (parsed == null) {
    return null;
  }
  const requestId = typeof parsed.request_id === 'string' ? parsed.request_id : null;
  const code = typeof parsed.code === 'string' ? parsed.code : null;
  if (typeof parsed.error === 'string') {
    return {message: parsed.error, code, requestId};
  }
  const nested = /** @type {Record<string, unknown> | null} */ (
    parsed.error !== null && typeof parsed.error === 'object' ? parsed.error : null
  );
  if (nested && typeof nested.message === 'string') {
    return {
      message: nested.message,
      code: typeof nested.code === 'string' ? nested.code : null,
      requestId,
    };
  }
  return null;
}

/**
 * A 200 answer's transcript; null for any other answer.
 *
 * @param {HttpAnswer} answer
 * @returns {Transcript | null}
 */
export function transcriptOf(answer) {
  if (answer.status !== 200) {
    return null;
  }
  const body = jsonObjectOf(answer.text);
  return body
    ? transcriptOfJson(body, answer.header('Idempotent-Replayed') === 'true', answer.header('X-Bolo-Model'))
    : null;
}

/**
 * A transcription answer's JSON object as a Transcript (a job's `result` is one); null when it
 * holds no text.
 *
 * @param {Record<string, unknown>} body
 * @param {boolean} replayed
 * @param {string | null} [model] the model's name when the body does not say
 * @returns {Transcript | null}
 */
export function transcriptOfJson(body, replayed, model = null) {
  if (typeof body.text !== 'string') {
    return null;
  }
  /** @param {string} key */
  const string = (key) => (typeof body[key] === 'string' ? /** @type {string} */ (body[key]) : '');
  return {
    text: body.text,
    deduplicated: body.deduplicated === true,
    replayed,
    audioSha256: string('audio_sha256'),
    durationMs: typeof body.duration_ms === 'number' ? body.duration_ms : null,
    requestId: string('request_id'),
    engine: string('engine'),
    model: typeof body.model === 'string' ? body.model : model,
  };
}

/**
 * An answer that is not what was asked for, as a failure. `unexpected` names what was wrong with
 * an answer whose status looked right.
 *
 * @param {HttpAnswer} answer
 * @param {number} nowMs wall time, for a Retry-After date
 * @param {string | null} [unexpected]
 * @returns {import('./policy.js').HttpFailure}
 */
export function failureOf(answer, nowMs, unexpected = null) {
  const error = errorOf(answer.text ?? '');
  return {
    kind: 'http',
    status: answer.status,
    code: error?.code ?? (unexpected ? 'invalid_response' : null),
    message: error?.message ?? unexpected ?? `HTTP ${answer.status}`,
    requestId: error?.requestId ?? answer.header('X-Bolo-Request-Id'),
    retryAfterMs: parseRetryAfter(answer.header('Retry-After'), nowMs),
  };
}

/**
 * An exchange that got no answer, as a failure.
 *
 * @param {NoAnswer} answer
 * @returns {import('./policy.js').LinkFailure}
 */
export function linkFailure(answer) {
  return {kind: 'link', reason: answer.link};
}

/**
 * The failure of a wait that ended while the note's work still ran.
 *
 * @param {HttpAnswer} answer
 * @param {number} nowMs
 * @param {string} message
 * @returns {import('./policy.js').HttpFailure}
 */
export function stillRunning(answer, nowMs, message) {
  return {
    kind: 'http',
    status: 202,
    code: 'running',
    message,
    requestId: answer.header('X-Bolo-Request-Id'),
    retryAfterMs: parseRetryAfter(answer.header('Retry-After'), nowMs),
  };
}
