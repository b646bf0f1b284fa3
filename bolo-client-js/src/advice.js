// What a failure means for the person in front of a dictation app, in plain words: PROTOCOL.md's
// error table as sentences an app can show as they are (the gateway's own dictation page does).

/** A failure's message at most this long is shown whole; a longer one is cut. */
const SHOWN_MESSAGE_CHARS = 160;

/**
 * Why an attempt failed, in words that fit after "because", such as "the gateway answered 503
 * (…)": for an `onPause` event's reason, or a {@link BoloError}'s.
 *
 * @param {import('./policy.js').Failure} failure
 */
export function reasonOf(failure) {
  if (failure.kind === 'link') {
    return failure.reason === 'timeout'
      ? 'the gateway did not answer in time'
      : 'the connection to the gateway failed';
  }
  if (failure.code === 'running') {
    return 'the gateway is still transcribing it';
  }
  return `the gateway answered ${failure.status} (${shorten(failure.message)})`;
}

/** @param {string} text */
function shorten(text) {
  return text.length > SHOWN_MESSAGE_CHARS ? text.slice(0, SHOWN_MESSAGE_CHARS - 3) + '…' : text;
}

/** The statuses' meaning when the answer has no code (a proxy's answer, say). */
const CODE_OF_STATUS = /** @type {Record<number, string>} */ ({
  401: 'unauthorized',
  402: 'quota_exhausted',
  408: 'request_timeout',
  413: 'audio_too_large',
  415: 'unsupported_audio',
  429: 'rate_limited',
});

/**
 * What went wrong with a note and what the person can do, for a failure a resend cannot change:
 * a {@link BoloError}'s `reason`. "Send again" names an app's control that sends the note anew.
 *
 * @param {import('./policy.js').Failure} failure
 */
export function adviceFor(failure) {
  if (failure.kind === 'link') {
    return 'Could not reach the gateway. Check the connection, then press "Send again".';
  }
  const message = shorten(failure.message);
  switch (failure.code ?? CODE_OF_STATUS[failure.status]) {
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
      return `The gateway has no transcription endpoint here (${message}). Check that the app's address is a Bolo gateway.`;
    default:
      return `The gateway answered ${failure.status}: ${message}.`;
  }
}
