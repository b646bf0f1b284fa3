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
   */
  constructor(message, {code, status, retryable, requestId, attempts, retryAfterMs = null}) {
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
  }
}
