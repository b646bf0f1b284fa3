// Long notes as tus 1.0.0 resumable uploads at /v1/uploads (docs/resumable-uploads.md), the Bolo
// SDK's TusUpload written for the page: a link that breaks halfway costs what was in flight, not
// the note. One attempt creates the upload (or asks how far an earlier attempt got), appends the
// note from the gateway's offset, and fetches the transcript; when an append breaks, a HEAD asks
// the gateway's offset and the next append goes on from there, within the same attempt.
//
// Nothing here touches the DOM: the HTTP exchange and the pauses are passed in (xhr.mjs's exchange
// and resend-policy.mjs's realSleep in the page), so the rules run under Node's test runner.

import {Cancelled} from './resend-policy.mjs';
import {failureOf, linkFailure, stillRunning, transcriptOf} from './answers.mjs';

/** Notes of this many bytes or more go as resumable uploads: 256 KiB, as the SDK (8 s of WAV). */
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
 * after the page does).
 */
export const SETTLE_PAUSES_MS = Object.freeze([250, 500, 1000]);

/** The gateway's wait for a transcript is at most 60 s (`wait` is 0–60). */
export const MAX_WAIT_SECONDS = 60;

/** Room on top of the gateway's wait for the transcript to arrive. */
const ANSWER_MARGIN_MS = 10000;

const UPLOADS = '/v1/uploads';
const TUS_VERSION = '1.0.0';
const OFFSET_OCTET_STREAM = 'application/offset+octet-stream';

/** Whether a note goes as a resumable upload rather than one POST. */
export function isLong(note, threshold = RESUMABLE_THRESHOLD_BYTES) {
  return note.wav.length >= threshold;
}

/**
 * tus's Upload-Metadata: comma-separated `key base64(value)` pairs; the settings under the POST's
 * form field names, the file name and the note's SHA-256 (checked by the gateway at the end, as
 * X-Bolo-Audio-Sha256 is).
 */
export function metadataOf(note) {
  const pairs = [['filename', 'note.wav']];
  if (note.sha256) {
    pairs.push(['sha256', note.sha256]);
  }
  for (const [name, value] of Object.entries(note.settings)) {
    if (value) {
      pairs.push([name, value]);
    }
  }
  return pairs.map(([key, value]) => `${key} ${base64(value)}`).join(',');
}

function base64(text) {
  const bytes = new TextEncoder().encode(text);
  return btoa(Array.from(bytes, (b) => String.fromCharCode(b)).join(''));
}

/**
 * The gateway's wait for the transcript: the note's answer timeout less room for the answer to
 * arrive, in whole seconds, at most {@link MAX_WAIT_SECONDS}.
 */
export function waitSecondsFor(answerMs) {
  return Math.max(0, Math.min(MAX_WAIT_SECONDS, Math.floor((answerMs - ANSWER_MARGIN_MS) / 1000)));
}

/** Upload-Offset as a number; -1 when missing or not a count of bytes. */
export function offsetOf(answer) {
  const value = answer.header('Upload-Offset');
  if (value == null || !/^[0-9]{1,15}$/.test(value.trim())) {
    return -1;
  }
  return Number(value.trim());
}

/**
 * One note's resumable upload. It remembers the upload's address across attempts, so the next
 * attempt (after the resend policy's pause) or a "Send again" goes on from the gateway's offset.
 * Attempts never overlap: the page sends one note at a time.
 */
export class TusUpload {
  #location = null;

  /**
   * @param options.note {key, wav, sha256, durationMs, settings}
   * @param options.exchange xhr.mjs's exchange, or a stand-in
   * @param options.sleep (ms, signal) => Promise that rejects with Cancelled when signal aborts
   * @param options.idleMs how long an append may stall
   * @param options.answerMs how long an answer may take (the note's read timeout)
   */
  constructor({note, token, exchange, sleep, idleMs, answerMs}) {
    this.note = note;
    this.token = token;
    this.exchange = exchange;
    this.sleep = sleep;
    this.idleMs = idleMs;
    this.answerMs = answerMs;
  }

  /** The upload's address on the gateway; null before it is created or once it is spent. */
  get location() {
    return this.#location;
  }

  /**
   * Makes the upload part of attempt `attempt` and resolves with its result in resend-policy.mjs's
   * terms ({ok: true, response} or {ok: false, failure}), or with {unsupported: true} when the
   * gateway has no /v1/uploads (404 or 405 to the creation): then the note goes as one POST.
   *
   * @param options.onProgress (fraction of the whole note the gateway has or is being sent)
   * @param options.onSent the last byte is out; the transcript is awaited
   * @param options.onResumed (offset): an append broke and the next goes on from `offset`
   */
  async send({attempt, signal, onProgress = () => {}, onSent = () => {}, onResumed = () => {}}) {
    const step = {attempt, signal, onProgress, onSent, onResumed, resumes: 0, created: false};
    // An earlier attempt left the upload behind: go on from wherever the gateway got to.
    let next = this.#location == null ? await this.#create(step) : await this.#head(step);
    while (next.offset != null) {
      next =
        next.offset >= this.note.wav.length
          ? await this.#awaitTranscript(step)
          : await this.#append(step, next.offset);
    }
    return next.result;
  }

  /**
   * Deletes the upload (after a cancel): its spool space and its place among the device's
   * unfinished uploads are freed now rather than when it expires. Nothing waits for the answer: the
   * gateway sweeps what it is not told to delete.
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
      answerMs: this.answerMs,
    });
  }

  #headers(step, extra = {}) {
    const headers = {
      // The token goes in this header only: never in a URL, where logs and history keep it.
      Authorization: 'Bearer ' + this.token,
      'Tus-Resumable': TUS_VERSION,
      ...extra,
    };
    if (step) {
      headers['X-Bolo-Request-Id'] = this.note.key + '-a' + step.attempt;
    }
    return headers;
  }

  #ask(step, method, url, extra = {}) {
    return this.exchange({
      method,
      url,
      headers: this.#headers(step, extra),
      signal: step.signal,
      answerMs: this.answerMs,
    });
  }

  /** Plain creation, no bytes: a creation-with-upload that broke would lose its address too. */
  async #create(step) {
    step.created = true;
    const headers = {
      'Upload-Length': String(this.note.wav.length),
      'Upload-Metadata': metadataOf(this.note),
      // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field.
      'Idempotency-Key': '"' + this.note.key + '"',
      'X-Bolo-Audio-Duration-Ms': String(this.note.durationMs),
    };
    const answer = await this.#ask(step, 'POST', UPLOADS, headers);
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    // No /v1/uploads here (an older gateway, or a proxy that passes only the POST).
    if (answer.status === 404 || answer.status === 405) {
      return {result: {unsupported: true}};
    }
    const where = answer.header('Location');
    if (answer.status !== 201 || !where) {
      const unexpected = answer.status === 201 ? 'a creation without Location' : null;
      return {result: {ok: false, failure: failureOf(answer, unexpected)}};
    }
    this.#location = where;
    return {offset: Math.max(0, offsetOf(answer))};
  }

  /** Asks how many bytes of the upload the gateway holds. */
  async #head(step) {
    const answer = await this.#ask(step, 'HEAD', this.#location);
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    if (answer.status === 404) {
      return this.#gone(step);
    }
    const offset = offsetOf(answer);
    if (answer.status !== 200 || offset < 0) {
      return {result: {ok: false, failure: failureOf(answer, 'a HEAD without Upload-Offset')}};
    }
    return {offset};
  }

  /** Sends the note from `from` to its end. */
  async #append(step, from) {
    const size = this.note.wav.length;
    const answer = await this.exchange({
      method: 'PATCH',
      url: this.#location,
      headers: this.#headers(step, {
        'Upload-Offset': String(from),
        'Content-Type': OFFSET_OCTET_STREAM,
      }),
      body: this.note.wav.subarray(from),
      signal: step.signal,
      idleMs: this.idleMs,
      answerMs: this.answerMs,
      // Counted from the note's first byte, so the progress goes on from where the gateway is.
      onProgress: (sent) => step.onProgress(Math.min(1, (from + sent) / size)),
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
    if (answer.status === 409 && now >= 0) {
      return this.#conflicted(step, now, answer);
    }
    if (answer.status !== 204 || now < 0) {
      const unexpected = answer.status === 204 ? 'an append without Upload-Offset' : null;
      return {result: {ok: false, failure: failureOf(answer, unexpected)}};
    }
    // All of it, or the part the gateway took and said so: the loop sends the rest.
    if (now > from) {
      return {offset: now};
    }
    return {
      result: {
        ok: false,
        failure: failureOf(answer, `an append moved the offset from ${from} to ${now}`),
      },
    };
  }

  /**
   * Asks the gateway's offset after a broken append; when it has not moved past `from` (or the
   * upload is still locked by the broken append), asks again after each of SETTLE_PAUSES_MS before
   * giving the attempt up.
   */
  async #settleThenResume(step, from, broken) {
    for (let pauses = 0; ; pauses++) {
      const answer = await this.#ask(step, 'HEAD', this.#location);
      if (answer.link) {
        // The link is down, not merely interrupted (or the person cancelled): the attempt ends.
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
        return {result: {ok: false, failure: failureOf(answer, 'a HEAD without Upload-Offset')}};
      }
      if (known && (offset > from || pauses >= SETTLE_PAUSES_MS.length)) {
        return this.#resumeOrEnd(step, from, offset, broken);
      }
      if (pauses >= SETTLE_PAUSES_MS.length) {
        return {result: {ok: false, failure: linkFailure(broken)}};
      }
      try {
        await this.sleep(SETTLE_PAUSES_MS[pauses], step.signal);
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
   */
  #resumeOrEnd(step, from, offset, broken) {
    // Every byte arrived; only the answer to the append was lost.
    if (offset >= this.note.wav.length) {
      return {offset};
    }
    // Nothing gained: the link is down, not merely interrupted; the policy's pause suits it.
    if (offset <= from) {
      return {result: {ok: false, failure: linkFailure(broken)}};
    }
    // A link that breaks every few kilobytes is not worth holding the attempt for.
    if (step.resumes >= MAX_RESUMES_PER_ATTEMPT) {
      return {result: {ok: false, failure: linkFailure(broken)}};
    }
    step.resumes++;
    step.onResumed(offset);
    return {offset};
  }

  /**
   * The gateway holds another offset than the append assumed (an earlier append it was still
   * taking, or bytes it lost): its count is the truth, within the resume budget.
   */
  #conflicted(step, offset, answer) {
    if (offset >= this.note.wav.length) {
      return {offset};
    }
    if (step.resumes >= MAX_RESUMES_PER_ATTEMPT) {
      return {result: {ok: false, failure: failureOf(answer)}};
    }
    step.resumes++;
    step.onResumed(offset);
    return {offset};
  }

  /** Waits for the transcript of the complete upload, as long as the note's timeout allows. */
  async #awaitTranscript(step) {
    if (step.signal.aborted) {
      return {result: {ok: false, failure: {kind: 'link', reason: 'cancelled'}}};
    }
    step.onSent();
    const wait = waitSecondsFor(this.answerMs);
    const answer = await this.#ask(step, 'GET', `${this.#location}/transcription?wait=${wait}`);
    if (answer.link) {
      return {result: {ok: false, failure: linkFailure(answer)}};
    }
    if (answer.status === 404) {
      return this.#gone(step);
    }
    // Still transcribing: the attempt ends and the policy asks again after its pause.
    if (answer.status === 202) {
      return {result: {ok: false, failure: stillRunning(answer)}};
    }
    const transcript = transcriptOf(answer);
    if (transcript) {
      return {result: {ok: true, response: transcript}};
    }
    // The work failed or was refused: its upload is spent; a resend uploads the note anew.
    this.#location = null;
    const unexpected = answer.status === 200 ? 'a 200 without a transcript' : null;
    return {result: {ok: false, failure: failureOf(answer, unexpected)}};
  }

  /** The upload expired or was swept: start one afresh, once per attempt. */
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
            retryAfterMs: null,
          },
        },
      };
    }
    return this.#create(step);
  }
}
