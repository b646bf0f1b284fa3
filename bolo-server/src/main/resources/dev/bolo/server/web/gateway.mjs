// The gateway's HTTP API as the page uses it: one upload attempt, the model list, and what an
// error means for the person in front of the page (PROTOCOL's error table in plain words).

import {parseRetryAfter} from './resend-policy.mjs';

/**
 * How long to wait for the answer once the note is sent, as the SDK's read timeout: 30 s plus half
 * the note, at most 120 s. The gateway waits for its engine longer than this, so a resend after a
 * timeout joins the running work instead of starting it again.
 */
export function readTimeoutMs(durationMs) {
  return Math.min(30000 + durationMs / 2, 120000);
}

/** The answer's error {message, code}, in the native shape or OpenAI's; null when there is none. */
function errorOf(body) {
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

/**
 * One upload of the note to POST /v1/transcriptions. Resolves (never rejects) with {ok: true,
 * response: {body, replayed}} or {ok: false, failure} in resend-policy.mjs's terms; settles at once
 * when `signal` aborts.
 */
export function sendAttempt({note, token, attempt, signal, onProgress, onSent}) {
  return new Promise((resolve) => {
    const xhr = new XMLHttpRequest();
    let timer = null;
    let timedOut = false;
    const done = (result) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      resolve(result);
    };
    const abort = () => xhr.abort();
    xhr.open('POST', '/v1/transcriptions');
    // The token goes in this header only: never in a URL, where logs and history would keep it.
    xhr.setRequestHeader('Authorization', 'Bearer ' + token);
    // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field; one per note.
    xhr.setRequestHeader('Idempotency-Key', '"' + note.key + '"');
    xhr.setRequestHeader('X-Bolo-Request-Id', note.key + '-a' + attempt);
    xhr.setRequestHeader('X-Bolo-Audio-Duration-Ms', String(note.durationMs));
    if (note.sha256) {
      xhr.setRequestHeader('X-Bolo-Audio-Sha256', note.sha256);
    }
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) {
        onProgress(event.loaded / event.total);
      }
    };
    xhr.upload.onload = () => {
      onSent();
      timer = setTimeout(() => {
        timedOut = true;
        xhr.abort();
      }, readTimeoutMs(note.durationMs));
    };
    xhr.onload = () => {
      if (xhr.status === 200) {
        let body;
        try {
          body = JSON.parse(xhr.responseText);
        } catch (e) {
          body = null;
        }
        if (body && typeof body.text === 'string') {
          const replayed = xhr.getResponseHeader('Idempotent-Replayed') === 'true';
          done({ok: true, response: {body, replayed}});
          return;
        }
      }
      const error = errorOf(xhr.responseText);
      done({
        ok: false,
        failure: {
          kind: 'http',
          status: xhr.status,
          code: error?.code ?? null,
          message: error?.message ?? (xhr.statusText || 'no explanation given'),
          retryAfterMs: parseRetryAfter(xhr.getResponseHeader('Retry-After'), Date.now()),
        },
      });
    };
    xhr.onerror = () => done({ok: false, failure: {kind: 'link', reason: 'connection'}});
    xhr.onabort = () =>
      done({ok: false, failure: {kind: 'link', reason: timedOut ? 'timeout' : 'cancelled'}});
    signal.addEventListener('abort', abort, {once: true});
    const form = new FormData();
    form.append('audio', new Blob([note.wav], {type: 'audio/wav'}), 'note.wav');
    for (const [name, value] of Object.entries(note.settings)) {
      if (value) {
        form.append(name, value);
      }
    }
    xhr.send(form);
  });
}

/** GET /v1/models: {ok: true, models: [ids]} or {ok: false, failure}. */
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
      return {ok: true, models: JSON.parse(body).data.map((model) => model.id)};
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
    case 'not_found':
      return `The gateway has no transcription endpoint here (${message}). Check that this page comes from a Bolo gateway.`;
    default:
      return `The gateway answered ${failure.status}: ${message}.`;
  }
}
