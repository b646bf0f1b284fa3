// When a failed upload of a note is sent again: the Bolo SDK's ResendPolicy and Resender, written
// once for the browser. The gateway's de-duplication makes every resend safe: the same
// Idempotency-Key and audio are transcribed and charged once.
//
// Nothing here touches the DOM or the network: a caller passes `send` (one attempt), and time
// (`now`, `sleep`, `random`) is injected so the rules can be tested on a fake clock.

/**
 * The standard policy, as the SDK's ResendPolicy.standard():
 *
 * | setting            | value                                                  |
 * |--------------------|--------------------------------------------------------|
 * | maxAttempts        | 4, the first included                                  |
 * | pausesMs           | 2 s, 5 s, 10 s before attempts 2, 3 and 4             |
 * | jitter             | 0.2: each pause times a random factor in [0.8, 1.2)    |
 * | windowMs           | 90 s: no attempt starts later than this after the first|
 * | transientStatuses  | 500, 502, 503, 504, 520–524                            |
 * | retryAfterStatuses | 429: resent only when it says when                     |
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

/** Longer than any sane wait; a larger Retry-After is treated as this, which no window admits. */
const MAX_RETRY_AFTER_MS = 365 * 24 * 3600 * 1000;

/**
 * The wait a Retry-After header asks for (RFC 9110 §10.2.3: delta-seconds or an HTTP-date), in
 * milliseconds from `nowMs`; 0 for a date in the past; null when absent or malformed (ignored).
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
 * Whether a resend may succeed where this attempt failed: a link failure (the request never got an
 * answer: connection refused or dropped, timeout), a transient status, a Retry-After status that
 * says how long to wait, or a 202 saying the note's work still runs (a lookup's or an upload's
 * wait ended first). Not other statuses: the request itself is wrong, or the gateway will never do
 * it.
 *
 * @param failure {kind: 'link', reason} or {kind: 'http', status, code, message, retryAfterMs}
 */
export function isTransient(policy, failure) {
  if (failure.kind === 'link') {
    return true;
  }
  // The work still runs: asking again after the pause finds it finished, as the SDK does.
  if (failure.status === 202 && failure.code === 'running') {
    return true;
  }
  if (policy.retryAfterStatuses.includes(failure.status)) {
    return failure.retryAfterMs != null;
  }
  return policy.transientStatuses.includes(failure.status);
}

/** The jittered pause before `attempt` (2 for the first resend). */
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

/** Thrown into a pause, and reported as the outcome, when the person cancels the note. */
export class Cancelled extends Error {
  constructor() {
    super('cancelled');
    this.name = 'Cancelled';
  }
}

/** A pause on the real clock that ends at once, rejecting with Cancelled, when `signal` aborts. */
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
 * Sends one note with resends and resolves with its outcome (never rejects for an HTTP or link
 * failure):
 *
 * - {kind: 'transcribed', response, attempts}
 * - {kind: 'refused', failure, attempts}: an answer a resend cannot change (401, 402, 413, …)
 * - {kind: 'gave-up', failure, attempts}: transient failures until the attempts or the window ran
 *   out
 * - {kind: 'cancelled', attempts}: the person cancelled; no attempt starts after that
 *
 * @param options.send (attemptNumber, signal) => Promise of {ok: true, response} or
 *     {ok: false, failure}; it must settle when `signal` aborts
 * @param options.signal the note's AbortSignal: cancel
 * @param options.onEvent receives {type: 'attempt', attempt, reason} before each attempt (reason:
 *     the failure that caused a resend, or null), and {type: 'pause', attempt, failure, waitMs}
 *     before each pause
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
