// The gateway's HTTP API as the page uses it: one attempt at a note (a lookup first when the note
// was sent before, then a resumable upload for a long note or one POST), the model list, and what
// an error means for the person in front of the page (PROTOCOL's error table in plain words).

import {realSleep} from './resend-policy.mjs';
import {errorOf, failureOf, linkFailure, stillRunning, transcriptOf} from './answers.mjs';
import {TusUpload, isLong} from './tus.mjs';
import {exchange as xhrExchange} from './xhr.mjs';

/**
 * How long to wait for the answer once the note is sent, as the SDK's read timeout: 30 s plus half
 * the note, at most 120 s. The gateway waits for its engine longer than this, so a resend after a
 * timeout joins the running work instead of starting it again. Also how long an upload may stall.
 */
export function readTimeoutMs(durationMs) {
  return Math.min(30000 + durationMs / 2, 120000);
}

/**
 * How long the gateway may hold a lookup for running work, as the SDK's: a resend usually follows
 * a timeout while the engine still works, so waiting here often turns the resend into the answer.
 */
export const LOOKUP_WAIT_SECONDS = 20;

/** Room on top of the lookup's wait for its answer to arrive. */
const LOOKUP_MARGIN_MS = 10000;

/**
 * One attempt at the note. Resolves (never rejects) with {ok: true, response: {body, replayed}} or
 * {ok: false, failure} in resend-policy.mjs's terms; settles at once when `signal` aborts.
 *
 * - A note sent before (a resend, or "Send again") is first looked up by its SHA-256: the answer
 *   to the earlier upload may have been lost on the way back, and then no byte is sent again.
 * - A long note (tus.mjs's threshold) goes as a resumable upload while `session.resumable`; a
 *   gateway without /v1/uploads clears it, and the note goes as one POST in the same attempt.
 *
 * @param session {resumable}: shared by the page's notes
 * @param onProgress (fraction) as the note goes out; onSent() once it is all out; onLookup() as
 *     the lookup starts; onResumed(fraction) when an append broke and the upload goes on from the
 *     gateway's offset
 */
export async function sendAttempt({
  note,
  token,
  attempt,
  signal,
  session,
  onProgress,
  onSent,
  onLookup = () => {},
  onResumed = () => {},
  exchange = xhrExchange,
  sleep = realSleep,
}) {
  if (note.sha256 && note.sent) {
    onLookup();
    const found = await lookUp({note, token, attempt, signal, exchange});
    if (found) {
      return found;
    }
  }
  // A cancel is final: nothing is sent after it.
  if (signal.aborted) {
    return {ok: false, failure: {kind: 'link', reason: 'cancelled'}};
  }
  note.sent = true;
  if (session.resumable && isLong(note)) {
    const timeout = readTimeoutMs(note.durationMs);
    note.tus ??= new TusUpload({note, token, exchange, sleep, idleMs: timeout, answerMs: timeout});
    const result = await note.tus.send({
      attempt,
      signal,
      onProgress,
      onSent,
      onResumed: (offset) => onResumed(offset / note.wav.length),
    });
    if (!result.unsupported) {
      return result;
    }
    // Remembered for the page's later notes: this gateway has no resumable uploads.
    session.resumable = false;
    note.tus = null;
  }
  return postNote({note, token, attempt, signal, onProgress, onSent, exchange});
}

/**
 * Asks GET /v1/transcriptions/{sha256} for the note's finished transcript (PROTOCOL "Resends
 * without the audio"): the attempt's result when the gateway has it (a replay) or says its work
 * still runs, a link failure or cancel; null when the note must be uploaded (404 says so; any other
 * answer is left to the upload, whose own answer the policy then judges).
 */
export async function lookUp({note, token, attempt, signal, exchange = xhrExchange}) {
  const query = new URLSearchParams({wait: String(LOOKUP_WAIT_SECONDS)});
  // The settings as the upload sends them: they are part of the work's identity.
  for (const [name, value] of Object.entries(note.settings)) {
    if (value) {
      query.set(name, value);
    }
  }
  const answer = await exchange({
    method: 'GET',
    url: `/v1/transcriptions/${note.sha256}?${query}`,
    headers: {Authorization: 'Bearer ' + token, 'X-Bolo-Request-Id': note.key + '-a' + attempt},
    signal,
    answerMs: LOOKUP_WAIT_SECONDS * 1000 + LOOKUP_MARGIN_MS,
  });
  if (answer.link) {
    return {ok: false, failure: linkFailure(answer)};
  }
  if (answer.status === 202) {
    return {ok: false, failure: stillRunning(answer)};
  }
  const transcript = transcriptOf(answer);
  return transcript ? {ok: true, response: transcript} : null;
}

/** The note as one multipart POST to /v1/transcriptions, the audio in part `audio`. */
async function postNote({note, token, attempt, signal, onProgress, onSent, exchange}) {
  const headers = {
    // The token goes in this header only: never in a URL, where logs and history would keep it.
    Authorization: 'Bearer ' + token,
    // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field; one per note.
    'Idempotency-Key': '"' + note.key + '"',
    'X-Bolo-Request-Id': note.key + '-a' + attempt,
    'X-Bolo-Audio-Duration-Ms': String(note.durationMs),
  };
  if (note.sha256) {
    headers['X-Bolo-Audio-Sha256'] = note.sha256;
  }
  const form = new FormData();
  form.append('audio', new Blob([note.wav], {type: 'audio/wav'}), 'note.wav');
  for (const [name, value] of Object.entries(note.settings)) {
    if (value) {
      form.append(name, value);
    }
  }
  const timeout = readTimeoutMs(note.durationMs);
  const answer = await exchange({
    method: 'POST',
    url: '/v1/transcriptions',
    headers,
    body: form,
    signal,
    idleMs: timeout,
    answerMs: timeout,
    onProgress: (sent, total) => onProgress(sent / total),
    onSent,
  });
  if (answer.link) {
    return {ok: false, failure: linkFailure(answer)};
  }
  const transcript = transcriptOf(answer);
  if (transcript) {
    return {ok: true, response: transcript};
  }
  const unexpected = answer.status === 200 ? 'a 200 without a transcript' : null;
  return {ok: false, failure: failureOf(answer, unexpected)};
}

/**
 * GET /v1/models: {ok: true, models: [{id, languages}]} or {ok: false, failure}. A model's
 * languages are the ISO-639-1 codes its engine recognises, or null when it takes any language.
 */
export async function listModels(token) {
  let response;
  try {
    response = await fetch('/v1/models', {headers: {Authorization: 'Bearer ' + token}});
  } catch (e) {
    return {ok: false, failure: {kind: 'link', reason: 'connection'}};
  }
  const body = await response.text();
  if (response.ok) {
    try {
      const models = JSON.parse(body).data.map((model) => ({
        id: String(model.id),
        // Absent or empty: the engine takes whatever language its provider takes.
        languages:
          Array.isArray(model.languages) && model.languages.length > 0
            ? model.languages.map(String)
            : null,
      }));
      return {ok: true, models};
    } catch (e) {
      // Fall through: a 200 that is not a model list is the gateway's fault.
    }
  }
  const error = errorOf(body);
  return {
    ok: false,
    failure: {
      kind: 'http',
      status: response.status,
      code: error?.code ?? null,
      message: error?.message ?? 'an unreadable answer',
      retryAfterMs: null,
    },
  };
}

/** Why an attempt failed, in words that fit after "because". */
export function reasonOf(failure) {
  if (failure.code === 'running') {
    return 'the gateway is still transcribing it';
  }
  if (failure.kind === 'link') {
    return failure.reason === 'timeout'
      ? 'the gateway did not answer in time'
      : 'the connection to the gateway failed';
  }
  return `the gateway answered ${failure.status} (${shorten(failure.message)})`;
}

function shorten(text) {
  return text.length > 160 ? text.slice(0, 157) + '…' : text;
}

/** The statuses' meaning when the answer has no code (a proxy's answer, say). */
const CODE_OF_STATUS = {
  401: 'unauthorized',
  402: 'quota_exhausted',
  408: 'request_timeout',
  413: 'audio_too_large',
  415: 'unsupported_audio',
  429: 'rate_limited',
};

/** What went wrong and what to do, for an answer that a resend cannot change. */
export function adviceFor(failure) {
  if (failure.kind === 'link') {
    return 'Could not reach the gateway. Check the connection, then press "Send again".';
  }
  const message = shorten(failure.message);
  const code = failure.code ?? CODE_OF_STATUS[failure.status];
  switch (code) {
    case 'unauthorized':
      return (
        'Token refused: the gateway does not know this device token. Paste a current token ' +
        '(an operator makes one with "bolo devices add NAME"), then record again.'
      );
    case 'quota_exhausted':
      return (
        'Quota spent: this device has used all its free seconds. Ask the operator to raise ' +
        "the device's quota."
      );
    case 'audio_too_long':
      return `Note too long for this engine: ${message}. Record a shorter note, or ask the operator for an engine that takes longer notes.`;
    case 'audio_too_large':
      return `Note too large for the gateway: ${message}. Record a shorter note.`;
    case 'missing_audio':
    case 'empty_audio':
    case 'invalid_audio':
    case 'unsupported_audio':
    case 'audio_hash_mismatch':
      return `The gateway could not use the recording: ${message}. Record again; if it happens again, tell the operator.`;
    case 'invalid_parameter':
      return `A setting was refused: ${message}. Change it in Settings, then record again.`;
    case 'upstream_rejected':
      return `The engine refused this note: ${message}. Check the language and model in Settings.`;
    case 'idempotency_key_reused':
    case 'idempotency_conflict':
      return `The gateway would not take this note again: ${message}. Record it again.`;
    case 'rate_limited':
      return 'Too many notes from this device just now. Wait a minute, then press "Send again".';
    case 'request_timeout':
      return 'The upload was too slow for the gateway. Check the connection, then press "Send again".';
    case 'upload_lost':
      return 'The gateway lost the note\'s upload twice (it expired, or the gateway restarted). Press "Send again" to upload it anew.';
    case 'not_found':
      return `The gateway has no transcription endpoint here (${message}). Check that this page comes from a Bolo gateway.`;
    default:
      return `The gateway answered ${failure.status}: ${message}.`;
  }
}
