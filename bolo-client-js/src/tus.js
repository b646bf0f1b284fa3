// Long notes as tus 1.0.0 resumable uploads at /v1/uploads (PROTOCOL.md "Resumable uploads"), as
// the Java SDK's TusUpload: a link that breaks halfway costs what was in flight, not the note. One
// attempt creates the upload (or asks how far an earlier attempt got), appends the note from the
// gateway's offset, and fetches the transcript; when an append breaks, a HEAD asks the gateway's
// offset and the next append goes on from there, within the same attempt.

import {Cancelled} from './policy.js';
import {failureOf, linkFailure, transcriptOf} from './answers.js';
import {base64} from './audio.js';

/** Notes of this many bytes or more go as resumable uploads by default: 256 KiB, as the SDK. */
export const RESUMABLE_THRESHOLD_BYTES = 256 * 1024;

/**
 * Resumes one attempt may make. Each must also move the gateway's offset forward, so the bound
 * only matters on a link that breaks every few kilobytes: 32 resumes carry a 25 MiB note (the
 * gateway's default limit) even when each connection delivers less than 1 MiB.
 */
export const MAX_RESUMES_PER_ATTEMPT = 32;

/**
 * Waits before asking the offset again when the first answer after a break shows no progress: the
 * gateway may still be taking the broken append's last bytes (it notices the broken connection
 * after the client does).
 */
export const SETTLE_PAUSES_MS = Object.freeze([250, 500, 1000]);

/** The gateway's wait for a transcript is at most 60 s (`wait` is 0–60). */
export const MAX_WAIT_SECONDS = 60;

/** Room on top of the gateway's wait for the transcript to arrive. */
const ANSWER_MARGIN_MS = 10000;

const TUS_VERSION = '1.0.0';

/** How long the deletion of a cancelled note's upload may take before it is left to the sweep. */
const TERMINATE_ANSWER_MS = 5000;

/**
 * The gateway's wait for the transcript: the note's answer timeout less room for the answer to
 * arrive, in whole seconds, at most {@link MAX_WAIT_SECONDS}.
 *
 * @param {number} answerMs
 */
export function waitSecondsFor(answerMs) {
  return Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.floor((answerMs - ANSWER_MARGIN_MS) / 1000)));
}

/**
 * Upload-Offset as a number; -1 when missing or not a count of bytes.
 *
 * @param {import('./answers.js').HttpAnswer} answer
 */
export function offsetOf(answer) {
  const value = answer.header('Upload-Offset');
  if (value == null || !/^[0-9]{1,15}$/.test(value.trim())) {
    return -1;
  }
  return Number(value.trim());
}

/**
 * @typedef {import('./policy.js').AttemptResult<import('./answers.js').Transcript>} Result
 * @typedef {{result: Result | {unsupported: true}} | {offset: number}} Step
 *
 * @typedef {object} Note what every request of a note shares
 * @property {import('./audio.js').NoteAudio} audio
 * @property {string} sha256
 * @property {string} key the note's Idempotency-Key
 * @property {number | null} durationMs
 * @property {Record<string, string>} settings
 * @property {string} token
 * @property {number} noteTimeoutMs
 *
 * @typedef {object} AttemptContext
 * @property {number} attempt
 * @property {string} requestId
 * @property {AbortSignal} signal
 * @property {(sentBytes: number, totalBytes: number) => void} onUpload
 * @property {(offset: number, totalBytes: number) => void} onResumed
 */

/**
 * One note's resumable upload. It remembers the upload's address across attempts, so the next
 * attempt goes on from the gateway's offset. Attempts never overlap.
 */
export class TusUpload {
  /** @type {string | null} */
  #location = null;

  /**
   * @param {object} options
   * @param {Note} options.note
   * @param {string} options.uploadsUrl the gateway's /v1/uploads
   * @param {import('./transport.js').Exchange} options.exchange
   * @param {import('./running.js').Clock} options.clock
   * @param {import('./running.js').RunningWork} options.running
   */
  constructor({note, uploadsUrl, exchange, clock, running}) {
    this.note = note;
    this.uploadsUrl = uploadsUrl;
    this.exchange = exchange;
    this.clock = clock;
    this.running = running;
  }

  /** The upload's address on the gateway; null before it is created or once it is spent. */
  get location() {
    return this.#location;
  }

  /**
   * Makes the upload part of an attempt and resolves with its result, or with {unsupported: true}
   * when the gateway has no /v1/uploads (404 or 405 to the creation): then the note goes whole.
   *
   * @param {AttemptContext} context
   * @returns {Promise<Result | {unsupported: true}>}
   */
  async send(context) {
    const step = {...context, resumes: 0, created: false, rerouted: false};
    /** @type {Step} */
    let next = this.#location == null ? await this.#create(step) : await this.#head(step);
    while ('offset' in next) {
      next =
        next.offset >= this.note.audio.bytes.length
          ? await this.#awaitTranscript(step)
          : await this.#append(step, next.offset);
    }
    return next.result;
  }

  /**
   * Deletes the upload (after a cancel): the gateway frees its spool now rather than when it
   * expires. Nothing waits for the answer: the gateway sweeps what it is not told to delete.
   */
  terminate() {
    const where = this.#location;
    this.#location = null;
    if (where == null) {
      return;
    }
    this.exchange({
      method: 'DELETE',
      url: where,
      headers: this.#headers(null),
      signal: new AbortController().signal,
      // A deletion answers at once; a caller that cancelled is not kept waiting for a dead link.
      answerMs: Math.min(this.note.noteTimeoutMs, TERMINATE_ANSWER_MS),
    });
  }

  /**
   * @param {AttemptContext | null} step
   * @param {Record<string, string>} [extra]
   */
  #headers(step, extra = {}) {
    /** @type {Record<string, string>} */
    const headers = {
      // The token goes in this header only: never in a URL, where logs and history keep it.
      Authorization: 'Bearer ' + this.note.token,
      'Tus-Resumable': TUS_VERSION,
      ...extra,
    };
    if (step) {
      headers['X-Bolo-Request-Id'] = step.requestId;
    }
    return headers;
  }

  /**
   * @param {AttemptContext} step
   * @param {string} method
   * @param {string} url
   * @param {Record<string, string>} [extra]
   */
  #ask(step, method, url, extra = {}) {
    return this.exchange({
      method,
      url,
      headers: this.#headers(step, extra),
      signal: step.signal,
      answerMs: this.note.noteTimeoutMs,
    });
  }

  /** @param {import('./answers.js').HttpAnswer} answer @param {string | null} [unexpected] */
  #failed(answer, unexpected = null) {
    return {result: {ok: /** @type {const} */ (false), failure: failureOf(answer, this.clock.wallTime(), unexpected)}};
  }

  /**
   * tus's Upload-Metadata: comma-separated `key base64(value)` pairs; the settings under the POST's
   * form field names, the file name and the note's SHA-256.
   */
  metadata() {
    const pairs = [
      ['filename', this.note.audio.fileName],
      ['sha256', this.note.sha256],
      ...Object.entries(this.note.settings),
    ];
    return pairs.map(([key, value]) => `${key} ${base64(value)}`).join(',');
  }

  /**
   * Plain creation, no bytes: a creation-with-upload that broke would lose its address too.
   *
   * @param {AttemptContext & {created: boolean}} step
   * @returns {Promise<Step>}
   */
  async #create(step) {
    step.created = true;
    /** @type {Record<string, string>} */
    const headers = {
      'Upload-Length': String(this.note.audio.bytes.length),
      'Upload-Metadata': this.metadata(),
      // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
      'Idempotency-Key': '"' + this.note.key + '"',
    };
    if (this.note.durationMs != null) {
      headers['X-Bolo-Audio-Duration-Ms'] = String(this.note.durationMs);
    }
    const answer = await this.#ask(step, 'POST', this.uploadsUrl, headers);
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    // No /v1/uploads here (an older gateway, or a proxy that passes only the POST).
    if (answer.status === 404 || answer.status === 405) {
      return {result: {unsupported: true}};
    }
    const where = answer.header('Location');
    if (answer.status !== 201 || !where) {
      return this.#failed(answer, answer.status === 201 ? 'a creation without Location' : null);
    }
    this.#location = new URL(where, this.uploadsUrl).toString();
    return {offset: Math.max(0, offsetOf(answer))};
  }

  /**
   * Asks how many bytes of the upload the gateway holds.
   *
   * @param {AttemptContext & {created: boolean}} step
   * @returns {Promise<Step>}
   */
  async #head(step) {
    const answer = await this.#ask(step, 'HEAD', /** @type {string} */ (this.#location));
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    if (answer.status === 404) {
      return this.#gone(step);
    }
    const offset = offsetOf(answer);
    if (answer.status !== 200 || offset < 0) {
      return this.#failed(answer, 'a HEAD without Upload-Offset');
    }
    return {offset};
  }

  /**
   * Sends the note from `from` to its end.
   *
   * @param {AttemptContext & {created: boolean, resumes: number, rerouted: boolean}} step
   * @param {number} from
   * @returns {Promise<Step>}
   */
  async #append(step, from) {
    const size = this.note.audio.bytes.length;
    const answer = await this.exchange({
      method: 'PATCH',
      url: /** @type {string} */ (this.#location),
      headers: this.#headers(step, {
        'Upload-Offset': String(from),
        'Content-Type': 'application/offset+octet-stream',
      }),
      body: this.note.audio.bytes.subarray(from),
      signal: step.signal,
      idleMs: this.note.noteTimeoutMs,
      answerMs: this.note.noteTimeoutMs,
      // Counted from the note's first byte, so the progress goes on from where the gateway is.
      onProgress: (sent) => step.onUpload(Math.min(size, from + sent), size),
    });
    if (answer.link === 'connection' || answer.link === 'timeout') {
      return this.#settleThenResume(step, from, answer);
    }
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    const now = offsetOf(answer);
    if (answer.status === 404) {
      return this.#gone(step);
    }
    if (answer.status === 421) {
      return this.#misrouted(step, answer);
    }
    if (answer.status === 409 && now >= 0) {
      return this.#conflicted(step, now, answer);
    }
    if (answer.status !== 204 || now < 0) {
      return this.#failed(answer, answer.status === 204 ? 'an append without Upload-Offset' : null);
    }
    // All of it, or the part the gateway took and said so: the loop sends the rest.
    if (now > from) {
      return {offset: now};
    }
    return this.#failed(answer, `an append moved the offset from ${from} to ${now}`);
  }

  /**
   * Asks the gateway's offset after a broken append; when it has not moved past `from` (or the
   * upload is still locked by the broken append), asks again after each of SETTLE_PAUSES_MS before
   * giving the attempt up.
   *
   * @param {AttemptContext & {created: boolean, resumes: number}} step
   * @param {number} from
   * @param {import('./answers.js').NoAnswer} broken
   * @returns {Promise<Step>}
   */
  async #settleThenResume(step, from, broken) {
    for (let pauses = 0; ; pauses++) {
      const answer = await this.#ask(step, 'HEAD', /** @type {string} */ (this.#location));
      if (answer.link) {
        // The link is down, not merely interrupted (or the caller cancelled): the attempt ends.
        const failure = linkFailure(answer.link === 'cancelled' ? answer : broken);
        return {result: {ok: false, failure}};
      }
      if (answer.status === 404) {
        return this.#gone(step);
      }
      const offset = offsetOf(answer);
      const known = answer.status === 200 && offset >= 0;
      // 423: the gateway is still storing the broken append; anything else ends the attempt.
      if (!known && answer.status !== 423) {
        return this.#failed(answer, 'a HEAD without Upload-Offset');
      }
      if (known && (offset > from || pauses >= SETTLE_PAUSES_MS.length)) {
        return this.#resumeOrEnd(step, from, offset, broken);
      }
      if (pauses >= SETTLE_PAUSES_MS.length) {
        return {result: {ok: false, failure: linkFailure(broken)}};
      }
      try {
        await this.clock.sleep(SETTLE_PAUSES_MS[pauses], step.signal);
      } catch (e) {
        if (e instanceof Cancelled || step.signal.aborted) {
          return {result: {ok: false, failure: {kind: 'link', reason: 'cancelled'}}};
        }
        throw e;
      }
    }
  }

  /**
   * Goes on from `offset` when the broken append moved it forward and resumes are left; otherwise
   * the attempt ends with the link's failure and the resend policy decides.
   *
   * @param {AttemptContext & {resumes: number}} step
   * @param {number} from
   * @param {number} offset
   * @param {import('./answers.js').NoAnswer} broken
   * @returns {Step}
   */
  #resumeOrEnd(step, from, offset, broken) {
    // Every byte arrived; only the answer to the append was lost.
    if (offset >= this.note.audio.bytes.length) {
      return {offset};
    }
    // Nothing gained: the link is down, not merely interrupted; the policy's pause suits it.
    // A link that breaks every few kilobytes is not worth holding the attempt for.
    if (offset <= from || step.resumes >= MAX_RESUMES_PER_ATTEMPT) {
      return {result: {ok: false, failure: linkFailure(broken)}};
    }
    step.resumes++;
    step.onResumed(offset, this.note.audio.bytes.length);
    return {offset};
  }

  /**
   * The gateway holds another offset than the append assumed: its count is the truth, within the
   * resume budget.
   *
   * @param {AttemptContext & {resumes: number}} step
   * @param {number} offset
   * @param {import('./answers.js').HttpAnswer} answer
   * @returns {Step}
   */
  #conflicted(step, offset, answer) {
    if (offset >= this.note.audio.bytes.length) {
      return {offset};
    }
    if (step.resumes >= MAX_RESUMES_PER_ATTEMPT) {
      return this.#failed(answer);
    }
    step.resumes++;
    step.onResumed(offset, this.note.audio.bytes.length);
    return {offset};
  }

  /**
   * 421 wrong_instance: the append reached a gateway instance other than the one holding the
   * upload's bytes (a balancer that moved the device). The note starts over as a new upload, which
   * the balancer sends where its appends will go. Once per attempt; a second 421 ends the attempt
   * with the gateway's error.
   *
   * @param {AttemptContext & {created: boolean, rerouted: boolean}} step
   * @param {import('./answers.js').HttpAnswer} answer
   * @returns {Promise<Step>}
   */
  async #misrouted(step, answer) {
    this.#location = null;
    if (step.rerouted) {
      return this.#failed(answer);
    }
    step.rerouted = true;
    return this.#create(step);
  }

  /**
   * Waits for the transcript of the complete upload, asking again while the work runs.
   *
   * @param {AttemptContext & {created: boolean}} step
   * @returns {Promise<Step>}
   */
  async #awaitTranscript(step) {
    if (step.signal.aborted) {
      return {result: {ok: false, failure: {kind: 'link', reason: 'cancelled'}}};
    }
    const wait = waitSecondsFor(this.note.noteTimeoutMs);
    const url = `${this.#location}/transcription?wait=${wait}`;
    const asked = await this.running.ask(() => this.#ask(step, 'GET', url), step.signal);
    if ('failure' in asked) {
      // The gateway's deadline for the note has passed: a resend would only wait again.
      return {result: {ok: false, failure: asked.failure, final: true}};
    }
    const answer = asked.answer;
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    if (answer.status === 404) {
      return this.#gone(step);
    }
    const transcript = transcriptOf(answer);
    if (transcript) {
      return {result: {ok: true, response: transcript}};
    }
    // The work failed or was refused: its upload is spent; a resend uploads the note anew.
    this.#location = null;
    return this.#failed(answer, answer.status === 200 ? 'a 200 without a transcript' : null);
  }

  /**
   * The upload expired or was swept: start one afresh, once per attempt.
   *
   * @param {AttemptContext & {created: boolean}} step
   * @returns {Promise<Step>}
   */
  async #gone(step) {
    this.#location = null;
    if (step.created) {
      return {
        result: {
          ok: false,
          failure: {
            kind: 'http',
            status: 404,
            code: 'upload_lost',
            message: "the gateway lost the note's upload",
            requestId: null,
            retryAfterMs: null,
          },
        },
      };
    }
    return this.#create(step);
  }
}
