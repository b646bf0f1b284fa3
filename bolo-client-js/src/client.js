// The client: one note in, one transcript out, sent under the seeds' resend policy. The Java SDK's
// BoloClient named the JavaScript way.

import {
  STANDARD_POLICY,
  isTransient,
  realSleep,
  resendListener,
  resendPolicy,
  sendWithResends,
} from './policy.js';
import {failureOf, linkFailure, transcriptOf} from './answers.js';
import {cancelled, noteError} from './errors.js';
import {callJson} from './calls.js';
import {jobRequest, listJobs, submitJob} from './jobs.js';
import {multipartOf, readNote, settingsOf} from './audio.js';
import {RunningWork} from './running.js';
import {platformExchange, tracedExchange} from './transport.js';
import {RESUMABLE_THRESHOLD_BYTES, TusUpload} from './tus.js';

/**
 * How long the gateway may hold a lookup for running work: a resend usually follows a timeout
 * while the engine still works, so waiting here often turns the resend into the answer; 20 s keeps
 * the lookup within the base read timeout of 30 s.
 */
export const LOOKUP_WAIT_SECONDS = 20;

/** Room on top of the lookup's wait for its answer to arrive. */
const LOOKUP_MARGIN_MS = 10000;

/**
 * @typedef {{baseMs: number, minMs: number, maxMs: number}} Timeouts
 * @typedef {{baseMs: number, maxMs: number, stalledAfterMs: number}} RunningWait
 */

/**
 * Read timeouts (PROTOCOL.md rule 7): 30 s plus half the note, within [30 s, 120 s]. The gateway
 * waits for its engine longer than this, so a resend after a timeout joins the running work.
 *
 * @type {Readonly<Timeouts>}
 */
export const STANDARD_TIMEOUTS = Object.freeze({baseMs: 30000, minMs: 30000, maxMs: 120000});

/**
 * How long a note waits while the gateway reports its work running: 120 s plus the note's length,
 * at most 15 min (the gateway's BOLO_UPSTREAM_TIMEOUT and BOLO_UPSTREAM_TIMEOUT_MAX), or until
 * `seconds_done` has stayed flat for 3 min.
 *
 * @type {Readonly<RunningWait>}
 */
export const STANDARD_RUNNING_WAIT = Object.freeze({
  baseMs: 120000,
  maxMs: 15 * 60000,
  stalledAfterMs: 180000,
});

/**
 * The read timeout for a note: `baseMs` plus half its length, within [minMs, maxMs]; `baseMs`
 * (clamped) when its length is unknown.
 *
 * @param {number | null} durationMs
 * @param {Timeouts} [timeouts]
 */
export function readTimeoutMs(durationMs, timeouts = STANDARD_TIMEOUTS) {
  const wanted = durationMs == null ? timeouts.baseMs : timeouts.baseMs + durationMs / 2;
  return Math.min(timeouts.maxMs, Math.max(timeouts.minMs, wanted));
}

/** @type {import('./running.js').Clock} */
const SYSTEM_CLOCK = Object.freeze({
  now: () => performance.now(),
  wallTime: () => Date.now(),
  sleep: realSleep,
});

/**
 * @typedef {object} ClientOptions
 * @property {string} baseUrl the gateway, such as `http://127.0.0.1:8080`; a path prefix is kept
 * @property {string} token the device token, sent as `Authorization: Bearer TOKEN`
 * @property {Partial<import('./policy.js').ResendPolicy>} [policy] changes to the standard policy
 * @property {Partial<Timeouts>} [timeouts] read timeouts
 * @property {Partial<RunningWait>} [runningWait] the wait for running work
 * @property {boolean} [lookupBeforeResend] a resend first asks the gateway for the note's finished
 *     transcript by its hash and uploads only when it has none; true by default
 * @property {number} [resumableThresholdBytes] notes this large or larger go as resumable uploads
 *     (tus); 256 KiB by default, 0 sends every note whole
 * @property {typeof fetch} [fetch] a fetch to use instead of the platform's XMLHttpRequest or fetch
 * @property {import('./transport.js').TraceHeaders} [traceHeaders] the app's current trace
 *     (`{traceparent, tracestate}`), asked before every request and sent with it, so the gateway's
 *     spans of a note are children of the app's span; see README.md for OpenTelemetry
 * @property {import('./transport.js').Exchange} [exchange] replaces the HTTP layer (for tests)
 * @property {Partial<import('./running.js').Clock>} [clock] replaces time (for tests)
 * @property {() => number} [random] the jitter's source, Math.random by default
 */

/**
 * @typedef {object} Progress
 * @property {'looking-up' | 'uploading' | 'transcribing'} phase `looking-up`: a resend asks the
 *     gateway for the note's transcript by its hash before uploading anything
 * @property {number} attempt
 * @property {number} [sentBytes] uploading: bytes of the note the gateway has or is being sent;
 *     equal to totalBytes once all are out and the transcript is awaited
 * @property {number} [totalBytes] uploading: the note's size
 * @property {boolean} [resumed] uploading: the link broke and the upload goes on from the
 *     gateway's offset, `sentBytes`, within the same attempt
 * @property {number} [secondsDone] transcribing, when the gateway says
 * @property {number} [secondsTotal] transcribing, when the gateway says
 */

/**
 * @typedef {object} AttemptEvent
 * @property {number} attempt 1 for the first
 * @property {string} requestId the attempt's X-Bolo-Request-Id
 * @property {import('./policy.js').Failure | null} reason the failure that caused this resend
 * @property {number | null} pausedMs the pause before this attempt
 */

/**
 * @typedef {object} PauseEvent
 * @property {number} attempt the attempt that follows the pause
 * @property {number} waitMs the pause, jitter and Retry-After included
 * @property {import('./policy.js').Failure} reason the failure that caused it
 */

/**
 * @typedef {object} TranscribeOptions
 * @property {string} [language] ISO-639-1, such as `en`
 * @property {string} [model]
 * @property {string} [prompt]
 * @property {string} [format] the response_format the gateway renders the text in (json default)
 * @property {AbortSignal} [signal] cancels the note: a call in flight is aborted, a pause ends, and
 *     no attempt starts after it
 * @property {(progress: Progress) => void} [onProgress]
 * @property {(event: AttemptEvent) => void} [onAttempt]
 * @property {(event: PauseEvent) => void} [onPause] as a pause before a resend starts
 * @property {boolean} [sentBefore] the note was sent before under the same `idempotencyKey` (an
 *     app's own "send again"): its first attempt, too, asks the gateway for the transcript by its
 *     hash before uploading the note
 * @property {number} [durationMs] the note's length, when the app knows it (read from WAV headers
 *     otherwise); sizes the read timeout
 * @property {string} [fileName]
 * @property {string} [contentType]
 * @property {string} [idempotencyKey] the note's key; a fresh UUID by default
 */

/**
 * @typedef {object} Model
 * @property {string} id the name to pass as `model`
 * @property {string[] | null} languages the ISO-639-1 codes the model's engine recognises; null
 *     when it takes any language
 */

/**
 * Uploads voice notes to a Bolo gateway's POST /v1/transcriptions and resends them when, and only
 * when, a resend can help. Every attempt of a note carries the same Idempotency-Key and
 * X-Bolo-Audio-Sha256 (hashed once), so the gateway transcribes and charges the note once however
 * many copies arrive. A resend first looks the note up by its hash; a long note goes as a tus
 * upload and resumes from the gateway's offset after a cut. One client serves any number of notes
 * at once.
 */
export class BoloClient {
  /** Set once the gateway answered a creation with 404 or 405: it has no resumable uploads. */
  #gatewayHasUploads = true;

  /** @param {ClientOptions} options */
  constructor(options) {
    const {baseUrl, token} = options ?? {};
    if (typeof baseUrl !== 'string' || !/^https?:\/\//i.test(baseUrl)) {
      throw new TypeError(`baseUrl must be an http or https URL: ${baseUrl}`);
    }
    if (typeof token !== 'string' || !/^[\x21-\x7e]+$/.test(token)) {
      throw new TypeError('token must be visible ASCII without spaces');
    }
    this.baseUrl = baseUrl.endsWith('/') ? baseUrl : baseUrl + '/';
    this.token = token;
    this.policy = options.policy ? resendPolicy(options.policy) : STANDARD_POLICY;
    this.timeouts = {...STANDARD_TIMEOUTS, ...options.timeouts};
    if (!(this.timeouts.minMs <= this.timeouts.maxMs && this.timeouts.baseMs >= 0)) {
      throw new RangeError(`timeouts need 0 <= baseMs and minMs <= maxMs: ${JSON.stringify(this.timeouts)}`);
    }
    this.runningWait = {...STANDARD_RUNNING_WAIT, ...options.runningWait};
    this.lookupBeforeResend = options.lookupBeforeResend ?? true;
    this.resumableThresholdBytes = options.resumableThresholdBytes ?? RESUMABLE_THRESHOLD_BYTES;
    if (!(this.resumableThresholdBytes >= 0)) {
      throw new RangeError(`resumableThresholdBytes must be >= 0: ${this.resumableThresholdBytes}`);
    }
    const exchange = options.exchange ?? platformExchange({fetch: options.fetch});
    this.exchange = options.traceHeaders ? tracedExchange(exchange, options.traceHeaders) : exchange;
    this.clock = {...SYSTEM_CLOCK, ...options.clock};
    this.random = options.random ?? Math.random;
  }

  /**
   * The models this device may ask for (GET /v1/models), with their languages.
   *
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<Model[]>} rejects with a {@link BoloError} only
   */
  async models(options = {}) {
    const {body} = await callJson({
      exchange: this.exchange,
      policy: this.policy,
      wallTime: this.clock.wallTime,
      method: 'GET',
      url: this.baseUrl + 'v1/models',
      headers: {Authorization: 'Bearer ' + this.token},
      signal: options.signal,
      what: 'the model list',
    });
    const data = Array.isArray(body.data) ? body.data : [];
    return data
      .filter((model) => model !== null && typeof model === 'object' && typeof model.id === 'string')
      .map((model) => ({
        id: model.id,
        // Absent or empty: the engine takes whatever language its provider takes.
        languages:
          Array.isArray(model.languages) && model.languages.length > 0
            ? model.languages.map(String)
            : null,
      }));
  }

  /**
   * Hands a note over as a job (POST /v1/jobs): resolves once the gateway stored it (202), long
   * before it is transcribed; the job's end is told to `webhookUrl` (check it with
   * {@link verifyWebhook}) or read with {@link BoloClient#job}. Resent under the policy as a note
   * is, with one Idempotency-Key: the gateway makes one job however many copies arrive.
   *
   * @param {import('./audio.js').AudioInput} audio
   * @param {import('./jobs.js').SubmitJobOptions} [options]
   * @returns {Promise<import('./jobs.js').Job>} rejects with a {@link BoloError} only
   */
  submitJob(audio, options = {}) {
    return submitJob(this, audio, {...options, newKey});
  }

  /**
   * A job as it is now (GET /v1/jobs/{id}); another device's job is 404 `not_found`.
   *
   * @param {string} id
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./jobs.js').Job>} rejects with a {@link BoloError} only
   */
  job(id, options = {}) {
    return jobRequest(this, 'GET', id, options.signal);
  }

  /**
   * Cancels a job (DELETE /v1/jobs/{id}): a queued job is never run or charged; one that had
   * ended stays as it was. Resolves with the job as it is now.
   *
   * @param {string} id
   * @param {{signal?: AbortSignal}} [options]
   * @returns {Promise<import('./jobs.js').Job>} rejects with a {@link BoloError} only
   */
  cancelJob(id, options = {}) {
    return jobRequest(this, 'DELETE', id, options.signal);
  }

  /**
   * The device's own jobs, newest first, a page at a time (GET /v1/jobs).
   *
   * @param {{status?: import('./jobs.js').JobStatus, after?: string, limit?: number,
   *   signal?: AbortSignal}} [options]
   * @returns {Promise<import('./jobs.js').JobList>} rejects with a {@link BoloError} only
   */
  jobs(options = {}) {
    return listJobs(this, options);
  }

  /**
   * Transcribes a note, resending as the policy allows.
   *
   * @param {import('./audio.js').AudioInput} audio
   * @param {TranscribeOptions} [options]
   * @returns {Promise<import('./answers.js').Transcript>} rejects with a {@link BoloError} only
   */
  async transcribe(audio, options = {}) {
    const signal = options.signal ?? new AbortController().signal;
    // A cancel before anything was read starts nothing.
    if (signal.aborted) {
      throw cancelled(0);
    }
    const {audio: read, sha256, durationMs} = await readNote(audio, options);
    const note = {
      audio: read,
      sha256,
      key: options.idempotencyKey ?? newKey(),
      durationMs,
      settings: settingsOf(options),
      token: this.token,
      noteTimeoutMs: readTimeoutMs(durationMs, this.timeouts),
    };
    const onProgress = options.onProgress ?? (() => {});
    let current = 0;
    const running = new RunningWork({
      clock: this.clock,
      limitMs:
        durationMs == null
          ? this.runningWait.maxMs
          : Math.min(this.runningWait.maxMs, this.runningWait.baseMs + durationMs),
      stalledAfterMs: this.runningWait.stalledAfterMs,
      onProgress: (secondsDone, secondsTotal) =>
        onProgress({phase: 'transcribing', attempt: current, secondsDone, secondsTotal}),
    });
    const tus =
      this.resumableThresholdBytes > 0 && read.bytes.length >= this.resumableThresholdBytes
        ? new TusUpload({
            note,
            uploadsUrl: this.baseUrl + 'v1/uploads',
            exchange: this.exchange,
            clock: this.clock,
            running,
          })
        : null;
    const tell = resendListener({
      requestIdOf: (attempt) => requestIdOf(note.key, attempt),
      onAttempt: options.onAttempt,
      onPause: options.onPause,
    });
    const outcome = await sendWithResends({
      policy: this.policy,
      signal,
      now: this.clock.now,
      sleep: this.clock.sleep,
      random: this.random,
      onEvent: (event) => {
        if (event.type === 'attempt') {
          current = event.attempt;
        }
        tell(event);
      },
      send: (attempt, attemptSignal) =>
        this.#attempt({
          note,
          tus,
          running,
          attempt,
          signal: attemptSignal,
          requestId: requestIdOf(note.key, attempt),
          lookUpFirst: attempt > 1 || options.sentBefore === true,
          onProgress,
        }),
    });
    switch (outcome.kind) {
      case 'transcribed':
        return outcome.response;
      case 'cancelled':
        // The gateway sweeps an unfinished upload itself; telling it now frees the space at once.
        tus?.terminate();
        throw cancelled(outcome.attempts);
      case 'refused':
      case 'gave-up':
        throw noteError(outcome.failure, outcome.attempts, isTransient(this.policy, outcome.failure));
    }
  }

  /**
   * One attempt: a resend first asks for the finished transcript; then the upload, resumable when
   * the note is long and the gateway has uploads, else whole.
   *
   * @param {object} a
   * @param {import('./tus.js').Note} a.note
   * @param {TusUpload | null} a.tus
   * @param {RunningWork} a.running
   * @param {number} a.attempt
   * @param {AbortSignal} a.signal
   * @param {string} a.requestId
   * @param {boolean} a.lookUpFirst
   * @param {(progress: Progress) => void} a.onProgress
   * @returns {Promise<import('./tus.js').Result>}
   */
  async #attempt({note, tus, running, attempt, signal, requestId, lookUpFirst, onProgress}) {
    if (lookUpFirst && this.lookupBeforeResend) {
      onProgress({phase: 'looking-up', attempt});
      const found = await this.#lookUp(note, running, signal, requestId);
      if (found) {
        return found;
      }
    }
    // A cancel is final: nothing is sent after it.
    if (signal.aborted) {
      return {ok: false, failure: {kind: 'link', reason: 'cancelled'}};
    }
    /** @type {(sentBytes: number, totalBytes: number) => void} */
    const onUpload = (sentBytes, totalBytes) =>
      onProgress({phase: 'uploading', attempt, sentBytes, totalBytes});
    if (tus && this.#gatewayHasUploads) {
      const result = await tus.send({
        attempt,
        requestId,
        signal,
        onUpload,
        onResumed: (sentBytes, totalBytes) =>
          onProgress({phase: 'uploading', attempt, sentBytes, totalBytes, resumed: true}),
      });
      if (!('unsupported' in result)) {
        return result;
      }
      // Remembered for the client's later notes: this gateway has no resumable uploads.
      this.#gatewayHasUploads = false;
    }
    return this.#post(note, signal, requestId, onUpload);
  }

  /**
   * GET /v1/transcriptions/{sha256}: the attempt's result when the gateway has the transcript (a
   * replay), the link failed, or the wait for running work ended; null when the note must be
   * uploaded (404 says so; any other answer is left to the upload, whose answer the policy judges).
   *
   * @param {import('./tus.js').Note} note
   * @param {RunningWork} running
   * @param {AbortSignal} signal
   * @param {string} requestId
   * @returns {Promise<import('./tus.js').Result | null>}
   */
  async #lookUp(note, running, signal, requestId) {
    const query = new URLSearchParams({wait: String(LOOKUP_WAIT_SECONDS), ...note.settings});
    const url = `${this.baseUrl}v1/transcriptions/${note.sha256}?${query}`;
    const asked = await running.ask(
      () =>
        this.exchange({
          method: 'GET',
          url,
          headers: {Authorization: 'Bearer ' + this.token, 'X-Bolo-Request-Id': requestId},
          signal,
          answerMs: LOOKUP_WAIT_SECONDS * 1000 + LOOKUP_MARGIN_MS,
        }),
      signal,
    );
    if ('failure' in asked) {
      // The gateway's deadline for the note has passed: a resend would only wait again.
      return {ok: false, failure: asked.failure, final: true};
    }
    if (asked.answer.link) {
      return {ok: false, failure: linkFailure(asked.answer)};
    }
    const transcript = transcriptOf(asked.answer);
    return transcript ? {ok: true, response: transcript} : null;
  }

  /**
   * The note as one multipart POST to /v1/transcriptions, the audio in part `audio`.
   *
   * @param {import('./tus.js').Note} note
   * @param {AbortSignal} signal
   * @param {string} requestId
   * @param {(sentBytes: number, totalBytes: number) => void} onUpload
   * @returns {Promise<import('./tus.js').Result>}
   */
  async #post(note, signal, requestId, onUpload) {
    const form = multipartOf(note.audio, note.settings, 'bolo-' + newKey());
    /** @type {Record<string, string>} */
    const headers = {
      // The token goes in this header only: never in a URL, where logs and history would keep it.
      Authorization: 'Bearer ' + this.token,
      'Content-Type': form.contentType,
      // An sf-string, as the IETF httpapi Idempotency-Key draft defines the field; one per note.
      'Idempotency-Key': '"' + note.key + '"',
      'X-Bolo-Request-Id': requestId,
      'X-Bolo-Audio-Sha256': note.sha256,
    };
    if (note.durationMs != null) {
      headers['X-Bolo-Audio-Duration-Ms'] = String(Math.round(note.durationMs));
    }
    const answer = await this.exchange({
      method: 'POST',
      url: this.baseUrl + 'v1/transcriptions',
      headers,
      body: form.body,
      signal,
      idleMs: note.noteTimeoutMs,
      answerMs: note.noteTimeoutMs,
      onProgress: onUpload,
    });
    if (answer.link) {
      return {ok: false, failure: linkFailure(answer)};
    }
    const transcript = transcriptOf(answer);
    if (transcript) {
      return {ok: true, response: transcript};
    }
    const unexpected =
      answer.status >= 200 && answer.status < 300 ? "the gateway's answer is not a transcript" : null;
    return {ok: false, failure: failureOf(answer, this.clock.wallTime(), unexpected)};
  }
}

/**
 * @param {string} key
 * @param {number} attempt
 */
function requestIdOf(key, attempt) {
  // Says which attempt it was, so a log line can be read alone.
  return `${key}-a${attempt}`;
}

/** A fresh UUID: crypto.randomUUID where present, else one from getRandomValues or Math.random. */
function newKey() {
  const crypto = globalThis.crypto;
  if (typeof crypto?.randomUUID === 'function') {
    return crypto.randomUUID();
  }
  const bytes = new Uint8Array(16);
  if (typeof crypto?.getRandomValues === 'function') {
    crypto.getRandomValues(bytes);
  } else {
    // React Native without a crypto polyfill: the key need only be unique per device's notes.
    for (let i = 0; i < 16; i++) bytes[i] = Math.floor(Math.random() * 256);
  }
  bytes[6] = (bytes[6] & 0x0f) | 0x40;
  bytes[8] = (bytes[8] & 0x3f) | 0x80;
  const hex = Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}
