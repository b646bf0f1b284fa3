// When a failed attempt at a note is sent again: the seeds' policy, as the Java SDK's ResendPolicy
// and Resender. Nothing here touches the network: a caller passes `send` (one attempt), and time
// (`now`, `sleep`, `random`) is injected so the rules run on a fake clock. The gateway's
// de-duplication makes every resend safe: the same Idempotency-Key and audio are transcribed and
// charged once.

/**
 * @typedef {object} ResendPolicy
 * @property {number} maxAttempts attempts including the first, at least 1
 * @property {readonly number[]} pausesMs the pause before attempt 2, 3, …
 * @property {number} jitter the largest relative change to a pause, in [0, 1)
 * @property {number} windowMs no attempt starts later than this after the first one started
 * @property {readonly number[]} transientStatuses statuses that are resent
 * @property {readonly number[]} retryAfterStatuses statuses resent only when they carry Retry-After
 */

/**
 * Why one attempt produced no transcript: no answer came (`link`), or an answer that is not one.
 *
 * @typedef {{kind: 'link', reason: 'connection' | 'timeout' | 'cancelled'}} LinkFailure
 * @typedef {{kind: 'http', status: number, code: string | null, message: string,
 *   requestId: string | null, retryAfterMs: number | null}} HttpFailure
 * @typedef {LinkFailure | HttpFailure} Failure
 */

/**
 * The standard policy, as the Java SDK's ResendPolicy.standard():
 *
 * | setting            | value                                                   |
 * |--------------------|---------------------------------------------------------|
 * | maxAttempts        | 4, the first included                                   |
 * | pausesMs           | 2 s, 5 s, 10 s before attempts 2, 3 and 4               |
 * | jitter             | 0.2: each pause times a random factor in [0.8, 1.2)     |
 * | windowMs           | 90 s: no attempt starts later than this after the first |
 * | transientStatuses  | 500, 502, 503, 504, 520–524                             |
 * | retryAfterStatuses | 429: resent only when it says when                      |
 *
 * @type {Readonly<ResendPolicy>}
 */
export const STANDARD_POLICY = Object.freeze({
  maxAttempts: 4,
  pausesMs: Object.freeze([2000, 5000, 10000]),
  // Bounded jitter: a fleet that failed together does not come back together, and no pause
  // shrinks to nothing.
  jitter: 0.2,
  windowMs: 90000,
  // 520–524 are Cloudflare's "the origin failed" family, as a proxy in front may answer.
  transientStatuses: Object.freeze([500, 502, 503, 504, 520, 521, 522, 523, 524]),
  // RFC 9110 §15.5.30 (RFC 6585 §4): 429 means "slow down"; without Retry-After we cannot know
  // how long, and hammering a rate limiter only extends the ban.
  retryAfterStatuses: Object.freeze([429]),
});

/**
 * A policy from the standard one with some settings changed, each checked with the value in the
 * message, as resilience4j's RetryConfig does.
 *
 * @param {Partial<ResendPolicy>} changes
 * @returns {Readonly<ResendPolicy>}
 */
export function resendPolicy(changes = {}) {
  const policy = {...STANDARD_POLICY, ...changes};
  if (!Number.isInteger(policy.maxAttempts) || policy.maxAttempts < 1) {
    throw new RangeError(`maxAttempts must be an integer >= 1: ${policy.maxAttempts}`);
  }
  if (policy.pausesMs.length < policy.maxAttempts - 1 || policy.pausesMs.some((p) => !(p >= 0))) {
    throw new RangeError(
      `pausesMs needs a pause >= 0 before each of ${policy.maxAttempts - 1} resends: ` +
        `[${policy.pausesMs}]`,
    );
  }
  if (!(policy.jitter >= 0 && policy.jitter < 1)) {
    throw new RangeError(`jitter must be in [0, 1): ${policy.jitter}`);
  }
  if (!(policy.windowMs > 0)) {
    throw new RangeError(`windowMs must be positive: ${policy.windowMs}`);
  }
  const both = policy.transientStatuses.filter((s) => policy.retryAfterStatuses.includes(s));
  if (both.length > 0) {
    throw new RangeError(
      `a status is either always resent or only with Retry-After, not both: ${both}`,
    );
  }
  return Object.freeze({
    ...policy,
    pausesMs: Object.freeze([...policy.pausesMs]),
    transientStatuses: Object.freeze([...policy.transientStatuses]),
    retryAfterStatuses: Object.freeze([...policy.retryAfterStatuses]),
  });
}

/** Longer than any sane wait; a larger Retry-After is treated as this, which no window admits. */
const MAX_RETRY_AFTER_MS = 365 * 24 * 3600 * 1000;

/**
 * The wait a Retry-After header asks for (RFC 9110 §10.2.3: delta-seconds or an HTTP-date), in
 * milliseconds from `nowMs`; 0 for a date in the past; null when absent or malformed (ignored).
 *
 * @param {string | null | undefined} value
 * @param {number} nowMs wall time, milliseconds since the epoch
 * @returns {number | null}
 */
export function parseRetryAfter(value, nowMs) {
  if (value == null) {
    return null;
  }
  const trimmed = String(value).trim();
  if (trimmed === '') {
    return null;
  }
  if (/^[0-9]+$/.test(trimmed)) {
    return Math.min(Number(trimmed) * 1000, MAX_RETRY_AFTER_MS);
  }
  // An HTTP-date in any of its three forms; Date.parse reads them all, and anything else is NaN.
  if (!/GMT$|^[A-Za-z]{3} [A-Za-z]{3} +\d/.test(trimmed)) {
    return null;
  }
  const date = Date.parse(trimmed.endsWith('GMT') ? trimmed : trimmed + ' GMT');
  if (Number.isNaN(date)) {
    return null;
  }
  return Math.min(Math.max(0, date - nowMs), MAX_RETRY_AFTER_MS);
}

/**
 * Whether a resend may succeed where this attempt failed: a link failure (connection refused or
 * dropped, a timeout), a transient status, a Retry-After status that says how long to wait, or a
 * 202 saying the note's work still runs. Not other statuses: the request itself is wrong, or the
 * gateway will never do it. Never a cancel.
 *
 * @param {ResendPolicy} policy
 * @param {Failure} failure
 */
export function isTransient(policy, failure) {
  if (failure.kind === 'link') {
    return failure.reason !== 'cancelled';
  }
  // The work still runs: asking again after the pause finds it finished.
  if (failure.status === 202 && failure.code === 'running') {
    return true;
  }
  if (policy.retryAfterStatuses.includes(failure.status)) {
    return failure.retryAfterMs != null;
  }
  return policy.transientStatuses.includes(failure.status);
}

/**
 * The jittered pause before `attempt` (2 for the first resend).
 *
 * @param {ResendPolicy} policy
 * @param {number} attempt
 * @param {() => number} random
 */
export function pauseBefore(policy, attempt, random) {
  const pause = policy.pausesMs[attempt - 2];
  if (policy.jitter === 0) {
    return pause;
  }
  return Math.round(pause * (1 + policy.jitter * (2 * random() - 1)));
}

/**
 * The wait before resending after attempt `failed` failed with `failure`, `elapsedMs` after the
 * first attempt started; null when no resend should happen.
 *
 * @param {ResendPolicy} policy
 * @param {number} failed
 * @param {Failure} failure
 * @param {number} elapsedMs
 * @param {() => number} random
 * @returns {number | null}
 */
export function waitBeforeResend(policy, failed, failure, elapsedMs, random) {
  // Only failures a resend can fix are resent; the rest would fail the same way again.
  if (!isTransient(policy, failure)) {
    return null;
  }
  const next = failed + 1;
  // The attempts are spent.
  if (next > policy.maxAttempts) {
    return null;
  }
  let wait = pauseBefore(policy, next, random);
  // A Retry-After longer than the pause replaces it (the server knows when it can take the note).
  if (failure.kind === 'http' && failure.retryAfterMs != null && failure.retryAfterMs > wait) {
    wait = failure.retryAfterMs;
  }
  // Give up now rather than wait only to find the window closed.
  if (wait > policy.windowMs - elapsedMs) {
    return null;
  }
  return wait;
}

/** Thrown into a pause when the caller's AbortSignal aborts. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

/**
 * A pause on the real clock that ends at once, rejecting with Cancelled, when `signal` aborts.
 *
 * @param {number} ms
 * @param {AbortSignal} signal
 * @returns {Promise<void>}
 */
export function realSleep(ms, signal) {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new Cancelled());
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    function onAbort() {
      clearTimeout(timer);
      reject(new Cancelled());
    }
    signal.addEventListener('abort', onAbort, {once: true});
  });
}

/**
 * @template T
 * @typedef {{ok: true, response: T} | {ok: false, failure: Failure, final?: boolean}} AttemptResult
 */

/**
 * @template T
 * @typedef {{kind: 'transcribed', response: T, attempts: number}
 *   | {kind: 'refused', failure: Failure, attempts: number}
 *   | {kind: 'gave-up', failure: Failure, attempts: number}
 *   | {kind: 'cancelled', attempts: number}} Outcome
 */

/**
 * @typedef {{type: 'attempt', attempt: number, reason: Failure | null}
 *   | {type: 'pause', attempt: number, failure: Failure, waitMs: number}} ResendEvent
 */

/**
 * What an app hears of a note's resends: `onAttempt` before each attempt (with the pause before
 * it and why the one before failed), `onPause` as a pause starts. The `onEvent` of
 * {@link sendWithResends}.
 *
 * @param {object} listeners
 * @param {(attempt: number) => string} listeners.requestIdOf
 * @param {(event: {attempt: number, requestId: string, reason: Failure | null,
 *   pausedMs: number | null}) => void} [listeners.onAttempt]
 * @param {(event: {attempt: number, waitMs: number, reason: Failure}) => void} [listeners.onPause]
 * @returns {(event: ResendEvent) => void}
 */
export function resendListener({requestIdOf, onAttempt, onPause}) {
  /** @type {number | null} */
  let pausedMs = null;
  return (event) => {
    if (event.type === 'pause') {
      pausedMs = event.waitMs;
      onPause?.({attempt: event.attempt + 1, waitMs: event.waitMs, reason: event.failure});
      return;
    }
    onAttempt?.({
      attempt: event.attempt,
      requestId: requestIdOf(event.attempt),
      reason: event.reason,
      pausedMs,
    });
  };
}

/**
 * Sends one note with resends and resolves with its outcome; never rejects for an HTTP or link
 * failure. A cancel is final: no attempt starts after `signal` aborts, and an attempt in flight
 * then ends the note whatever it answered.
 *
 * @template T
 * @param {object} options
 * @param {ResendPolicy} [options.policy]
 * @param {(attempt: number, signal: AbortSignal) => Promise<AttemptResult<T>>} options.send one
 *     attempt; it must settle when `signal` aborts; a failure marked `final` ends the note
 *     without a resend
 * @param {AbortSignal} options.signal
 * @param {(event: ResendEvent) => void} [options.onEvent]
 * @param {() => number} [options.now] elapsed time in milliseconds
 * @param {(ms: number, signal: AbortSignal) => Promise<void>} [options.sleep]
 * @param {() => number} [options.random]
 * @returns {Promise<Outcome<T>>}
 */
export async function sendWithResends({
  policy = STANDARD_POLICY,
  send,
  signal,
  onEvent = () => {},
  now = () => performance.now(),
  sleep = realSleep,
  random = Math.random,
}) {
  const start = now();
  /** @type {Failure | null} */
  let reason = null;
  for (let attempt = 1; ; attempt++) {
    // A cancel is final: no attempt starts after it.
    if (signal.aborted) {
      return {kind: 'cancelled', attempts: attempt - 1};
    }
    onEvent({type: 'attempt', attempt, reason});
    const result = await send(attempt, signal);
    // A cancel is final, whatever the attempt said.
    if (signal.aborted) {
      return {kind: 'cancelled', attempts: attempt};
    }
    if (result.ok) {
      return {kind: 'transcribed', response: result.response, attempts: attempt};
    }
    const failure = result.failure;
    // The attempt knows a resend would only repeat it (the wait for running work is over).
    if (result.final) {
      return {kind: 'gave-up', failure, attempts: attempt};
    }
    const wait = waitBeforeResend(policy, attempt, failure, now() - start, random);
    if (wait == null) {
      const kind = isTransient(policy, failure) ? 'gave-up' : 'refused';
      return {kind, failure, attempts: attempt};
    }
    onEvent({type: 'pause', attempt, failure, waitMs: wait});
    try {
      await sleep(wait, signal);
    } catch (e) {
      if (e instanceof Cancelled || signal.aborted) {
        return {kind: 'cancelled', attempts: attempt};
      }
      throw e;
    }
    reason = failure;
  }
}
