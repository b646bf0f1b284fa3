// The one error a transcription rejects with.

/**
 * Why a note has no transcript. `code` is the gateway's (PROTOCOL.md's error table, such as
 * `quota_exhausted` or `upstream_unavailable`), or one of the client's own: `connection` and
 * `timeout` (no answer came), `cancelled` (the caller's AbortSignal), `invalid_response` (an
 * answer that is not the gateway's), `running` (the gateway was still transcribing when the wait
 * for it ended).
 */
export class BoloError extends Error {
  /**
   * @param {string} message a sentence for a log or a person
   * @param {object} details
   * @param {string} details.code
   * @param {number | null} details.status the HTTP status; null when no answer came
   * @param {boolean} details.retryable whether sending the note again later may succeed
   * @param {string | null} details.requestId the request id the gateway logged, when known
   * @param {number} details.attempts attempts started
   * @param {number | null} [details.retryAfterMs] the wait the gateway asked for, when it did
   * @param {import('./policy.js').Failure | null} [details.reason] the last attempt's failure as
   *     the resend policy saw it (the gateway's own message in `reason.message`); null after a
   *     cancel
   */
  constructor(
    message,
    {code, status, retryable, requestId, attempts, retryAfterMs = null, reason = null},
  ) {
    super(message);
    this.name = 'BoloError';
    /** @readonly */
    this.code = code;
    /** @readonly */
    this.status = status;
    /** @readonly */
    this.retryable = retryable;
    /** @readonly */
    this.requestId = requestId;
    /** @readonly */
    this.attempts = attempts;
    /** @readonly */
    this.retryAfterMs = retryAfterMs;
    /** @readonly */
    this.reason = reason;
  }
}

/** @param {number} attempts */
export function cancelled(attempts) {
  return new BoloError('the note was cancelled; nothing more was sent', {
    code: 'cancelled',
    status: null,
    retryable: false,
    requestId: null,
    attempts,
  });
}

/**
 * The error a note ends with when no transcript (or, for a job, no job) came.
 *
 * @param {import('./policy.js').Failure} failure
 * @param {number} attempts
 * @param {boolean} retryable
 * @param {{failed: string, refused: string}} [say] the sentence's start, for either case
 */
export function noteError(
  failure,
  attempts,
  retryable,
  say = {
    failed: 'the gateway could not transcribe the note',
    refused: 'the gateway refused the note',
  },
) {
  const tries = attempts === 1 ? '1 attempt' : `${attempts} attempts`;
  if (failure.kind === 'link') {
    const what =
      failure.reason === 'timeout' ? 'the gateway did not answer in time' : 'the connection to the gateway failed';
    return new BoloError(`${what} (${tries})`, {
      code: failure.reason,
      status: null,
      retryable,
      requestId: null,
      attempts,
      reason: failure,
    });
  }
  const label = failure.code ? `HTTP ${failure.status} ${failure.code}` : `HTTP ${failure.status}`;
  const verb = retryable ? say.failed : say.refused;
  return new BoloError(`${verb}: ${failure.message} (${label}, ${tries})`, {
    code: failure.code ?? `http_${failure.status}`,
    status: failure.status,
    retryable,
    requestId: failure.requestId,
    attempts,
    retryAfterMs: failure.retryAfterMs,
    reason: failure,
  });
}
