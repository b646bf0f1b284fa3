// Waits for a note's work that the gateway reports still running. A 202 `running` from the lookup
// or from GET /v1/uploads/{id}/transcription is progress, not a failed attempt (PROTOCOL.md
// "Progress"): the same question is asked again within the attempt, as the Java SDK's RunningWork.

import {Cancelled} from './policy.js';
import {jsonObjectOf, stillRunning} from './answers.js';

/** Answers in a row without growth of `seconds_done` before the wait may end. */
export const STALLED_ANSWERS = 3;

/** The shortest and longest pause between two questions, whatever Retry-After says. */
export const MIN_PAUSE_MS = 1000;
export const MAX_PAUSE_MS = 5000;

/**
 * @typedef {object} Clock
 * @property {() => number} now elapsed time in milliseconds (performance.now() by default)
 * @property {() => number} wallTime milliseconds since the epoch (Date.now() by default), to read
 *     Retry-After dates
 * @property {(ms: number, signal: AbortSignal) => Promise<void>} sleep a pause that rejects with
 *     Cancelled when `signal` aborts
 */

/**
 * One note's wait, across its attempts. It ends, and the attempt with a 202 `running` failure
 * that is not resent, when the note has waited `limitMs` in all since the first answer that said
 * running (by default 120 s plus the note's length, at most 15 min: the gateway's own deadline for
 * the note's engine call), or when the gateway reports `seconds_done` and it has not grown in
 * {@link STALLED_ANSWERS} answers in a row spanning at least `stalledAfterMs`.
 */
export class RunningWork {
  #waitingSince = -1;
  #lastDone = -1;
  #lastGrowth = 0;
  #flatAnswers = 0;

  /**
   * @param {object} options
   * @param {Clock} options.clock
   * @param {number} options.limitMs
   * @param {number} options.stalledAfterMs
   * @param {(secondsDone: number, secondsTotal: number) => void} options.onProgress
   */
  constructor({clock, limitMs, stalledAfterMs, onProgress}) {
    this.clock = clock;
    this.limitMs = limitMs;
    this.stalledAfterMs = stalledAfterMs;
    this.onProgress = onProgress;
  }

  /**
   * Asks, and asks again after a pause while the gateway answers 202. Resolves with the first
   * other answer (or the link's failure), or with the failure that ends the wait.
   *
   * @param {() => Promise<import('./answers.js').Answer>} ask
   * @param {AbortSignal} signal
   * @returns {Promise<{answer: import('./answers.js').Answer}
   *   | {failure: import('./policy.js').HttpFailure}>}
   */
  async ask(ask, signal) {
    for (;;) {
      const sentAt = this.clock.now();
      const answer = await ask();
      if (answer.link || answer.status !== 202) {
        return {answer};
      }
      const body = jsonObjectOf(answer.text);
      const done = seconds(body?.seconds_done);
      const total = seconds(body?.seconds_total);
      if (done != null && total != null) {
        this.onProgress(done, total);
      }
      const asked = answer.header('Retry-After');
      const askedMs = asked != null && /^[0-9]{1,6}$/.test(asked.trim()) ? Number(asked) * 1000 : 0;
      const pause = Math.min(MAX_PAUSE_MS, Math.max(MIN_PAUSE_MS, askedMs));
      const over = this.#reasonToStop(sentAt, done, pause);
      if (over != null) {
        return {failure: stillRunning(answer, this.clock.wallTime(), over)};
      }
      try {
        await this.clock.sleep(pause, signal);
      } catch (e) {
        if (e instanceof Cancelled || signal.aborted) {
          return {answer: {link: 'cancelled'}};
        }
        throw e;
      }
    }
  }

  /**
   * Why the wait ends after this answer, or null to ask again after `pauseMs`.
   *
   * @param {number} sentAt
   * @param {number | null} done
   * @param {number} pauseMs
   */
  #reasonToStop(sentAt, done, pauseMs) {
    const now = this.clock.now();
    if (this.#waitingSince < 0) {
      this.#waitingSince = sentAt;
      this.#lastGrowth = now;
    }
    if (done != null && done > this.#lastDone) {
      this.#lastDone = done;
      this.#lastGrowth = now;
      this.#flatAnswers = 0;
    } else if (done != null) {
      this.#flatAnswers++;
    }
    // The gateway's deadline for the note has passed by then: its work has failed or soon will.
    const waited = now - this.#waitingSince;
    if (waited + pauseMs > this.limitMs) {
      return `the gateway was still transcribing this note after ${Math.floor(waited / 1000)} s`;
    }
    // The work is stuck (a lost worker, a queue that does not move): waiting is in vain.
    const flat = now - this.#lastGrowth;
    if (this.#flatAnswers >= STALLED_ANSWERS && flat >= this.stalledAfterMs) {
      return `the gateway reported no progress on this note for ${Math.floor(flat / 1000)} s`;
    }
    return null;
  }
}

/**
 * A finite, non-negative number of seconds, or null.
 *
 * @param {unknown} value
 */
function seconds(value) {
  return typeof value === 'number' && Number.isFinite(value) && value >= 0 ? value : null;
}
