// Jobs (docs/jobs.md, PROTOCOL.md "Jobs"): a note handed over to be transcribed later, its end told
// to a webhook. Submitting is resent under the client's policy as a note is: every attempt carries
// the same Idempotency-Key and hash, so the gateway makes one job however many copies arrive.
// Reading and cancelling a job are single requests (calls.js).

import {failureOf, jsonObjectOf, linkFailure, transcriptOfJson} from './answers.js';
import {callJson} from './calls.js';
import {BoloError, cancelled, noteError} from './errors.js';
import {multipartOf, readNote, settingsOf} from './audio.js';
import {isTransient, resendListener, sendWithResends} from './policy.js';

/**
 * @typedef {'queued' | 'running' | 'succeeded' | 'failed' | 'cancelled'} JobStatus
 *
 * @typedef {object} Job
 * @property {string} id such as `job_5f0c…`
 * @property {JobStatus} status
 * @property {string} createdAt ISO 8601
 * @property {string | null} finishedAt ISO 8601, once it ended
 * @property {string} audioSha256
 * @property {number | null} durationMs
 * @property {{secondsDone: number, secondsTotal: number} | null} progress how far a long note's
 *     work has got, while it runs
 * @property {import('./answers.js').Transcript | null} result when it succeeded
 * @property {{message: string, code: string | null, requestId: string | null} | null} error when
 *     it failed: the error the transcription would have answered
 * @property {string | null} webhookUrl
 * @property {Record<string, string>} metadata as submitted
 *
 * @typedef {object} SubmitJobOptions
 * @property {string} [webhookUrl] told when the job ends (https; docs/jobs.md)
 * @property {Record<string, string>} [metadata] at most 16 string values, echoed in the job
 * @property {string} [idempotencyKey] the job's key; a fresh UUID by default. The same key again
 *     answers the same job
 * @property {string} [language]
 * @property {string} [model]
 * @property {string} [prompt]
 * @property {string} [format] the response_format of the job's result
 * @property {number} [durationMs]
 * @property {string} [fileName]
 * @property {string} [contentType]
 * @property {AbortSignal} [signal] cancels the submission (not a job already made: cancelJob)
 * @property {(event: import('./client.js').AttemptEvent) => void} [onAttempt]
 * @property {(event: import('./client.js').PauseEvent) => void} [onPause]
 *
 * @typedef {object} JobList
 * @property {Job[]} jobs newest first
 * @property {boolean} hasMore whether an older page follows (ask with `after` the last job's id)
 *
 * @typedef {object} JobsContext what a BoloClient lends the functions here
 * @property {string} baseUrl
 * @property {string} token
 * @property {import('./transport.js').Exchange} exchange
 * @property {import('./policy.js').ResendPolicy} policy
 * @property {import('./running.js').Clock} clock
 * @property {() => number} random
 * @property {{baseMs: number}} timeouts
 */

/**
 * POST /v1/jobs with the note: resolves with the job once the gateway stored it (202).
 *
 * @param {JobsContext} client
 * @param {import('./audio.js').AudioInput} audio
 * @param {SubmitJobOptions & {newKey: () => string}} options
 * @returns {Promise<Job>}
 */
export async function submitJob(client, audio, options) {
  const signal = options.signal ?? new AbortController().signal;
  if (signal.aborted) {
    throw cancelled(0);
  }
  const {audio: read, sha256, durationMs} = await readNote(audio, options);
  const key = options.idempotencyKey ?? options.newKey();
  const fields = settingsOf(options);
  if (options.webhookUrl) {
    fields.webhook_url = options.webhookUrl;
  }
  if (options.metadata != null) {
    fields.metadata = JSON.stringify(options.metadata);
  }
  const form = multipartOf(read, fields, 'bolo-' + options.newKey());
  const outcome = await sendWithResends({
    policy: client.policy,
    signal,
    now: client.clock.now,
    sleep: client.clock.sleep,
    random: client.random,
    onEvent: resendListener({
      requestIdOf: (attempt) => `${key}-a${attempt}`,
      onAttempt: options.onAttempt,
      onPause: options.onPause,
    }),
    send: async (attempt, attemptSignal) => {
      /** @type {Record<string, string>} */
      const headers = {
        Authorization: 'Bearer ' + client.token,
        'Content-Type': form.contentType,
        'Idempotency-Key': '"' + key + '"',
        'X-Bolo-Request-Id': `${key}-a${attempt}`,
        'X-Bolo-Audio-Sha256': sha256,
      };
      if (durationMs != null) {
        headers['X-Bolo-Audio-Duration-Ms'] = String(Math.round(durationMs));
      }
      const answer = await client.exchange({
        method: 'POST',
        url: client.baseUrl + 'v1/jobs',
        headers,
        body: form.body,
        signal: attemptSignal,
        idleMs: client.timeouts.baseMs,
        answerMs: client.timeouts.baseMs,
      });
      if (answer.link) {
        return {ok: false, failure: linkFailure(answer)};
      }
      const body = answer.status === 202 || answer.status === 200 ? jsonObjectOf(answer.text) : null;
      const job = body ? jobOf(body) : null;
      if (job) {
        return {ok: true, response: job};
      }
      const unexpected = answer.status < 300 ? "the gateway's answer is not a job" : null;
      return {ok: false, failure: failureOf(answer, client.clock.wallTime(), unexpected)};
    },
  });
  switch (outcome.kind) {
    case 'transcribed':
      return outcome.response;
    case 'cancelled':
      throw cancelled(outcome.attempts);
    case 'refused':
    case 'gave-up':
      throw noteError(outcome.failure, outcome.attempts, isTransient(client.policy, outcome.failure), {
        failed: 'the gateway could not take the job',
        refused: 'the gateway refused the job',
      });
  }
}

/**
 * GET /v1/jobs/{id}, or DELETE to cancel it.
 *
 * @param {JobsContext} client
 * @param {'GET' | 'DELETE'} method
 * @param {string} id
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<Job>}
 */
export async function jobRequest(client, method, id, signal) {
  if (typeof id !== 'string' || id === '') {
    throw new TypeError(`a job id is a non-empty string: ${id}`);
  }
  const {body} = await callJson({
    ...callOf(client, signal),
    method,
    url: client.baseUrl + 'v1/jobs/' + encodeURIComponent(id),
    what: method === 'GET' ? `job ${id}` : `the cancel of job ${id}`,
  });
  return jobOrThrow(body);
}

/**
 * GET /v1/jobs: the device's own jobs, newest first, a page at a time.
 *
 * @param {JobsContext} client
 * @param {{status?: JobStatus, after?: string, limit?: number, signal?: AbortSignal}} options
 * @returns {Promise<JobList>}
 */
export async function listJobs(client, options) {
  const query = new URLSearchParams();
  if (options.status) query.set('status', options.status);
  if (options.after) query.set('after', options.after);
  if (options.limit != null) query.set('limit', String(options.limit));
  const {body} = await callJson({
    ...callOf(client, options.signal),
    method: 'GET',
    url: client.baseUrl + 'v1/jobs' + (query.size > 0 ? '?' + query : ''),
    what: 'the job list',
  });
  const data = Array.isArray(body.data) ? body.data : [];
  return {jobs: data.map(jobOrThrow), hasMore: body.has_more === true};
}

/**
 * @param {JobsContext} client
 * @param {AbortSignal | undefined} signal
 */
function callOf(client, signal) {
  return {
    exchange: client.exchange,
    policy: client.policy,
    wallTime: client.clock.wallTime,
    headers: {Authorization: 'Bearer ' + client.token},
    signal,
  };
}

/** @param {unknown} body */
function jobOrThrow(body) {
  const job = body !== null && typeof body === 'object' ? jobOf(/** @type {any} */ (body)) : null;
  if (job == null) {
    throw new BoloError("the gateway's answer is not a job", {
      code: 'invalid_response',
      status: null,
      retryable: false,
      requestId: null,
      attempts: 1,
    });
  }
  return job;
}

const STATUSES = ['queued', 'running', 'succeeded', 'failed', 'cancelled'];

/**
 * The gateway's job as a {@link Job}; null when `body` is not one.
 *
 * @param {Record<string, any>} body
 * @returns {Job | null}
 */
export function jobOf(body) {
  if (typeof body.id !== 'string' || !STATUSES.includes(body.status)) {
    return null;
  }
  const progress = body.progress;
  const error = body.error;
  return {
    id: body.id,
    status: body.status,
    createdAt: String(body.created_at ?? ''),
    finishedAt: typeof body.finished_at === 'string' ? body.finished_at : null,
    audioSha256: String(body.audio_sha256 ?? ''),
    durationMs: typeof body.duration_ms === 'number' ? body.duration_ms : null,
    progress:
      progress && typeof progress.seconds_done === 'number'
        ? {secondsDone: progress.seconds_done, secondsTotal: Number(progress.seconds_total ?? 0)}
        : null,
    result: body.result && typeof body.result === 'object' ? transcriptOfJson(body.result, false) : null,
    error:
      error && typeof error === 'object'
        ? {
            message: String(error.error ?? error.message ?? ''),
            code: typeof error.code === 'string' ? error.code : null,
            requestId: typeof error.request_id === 'string' ? error.request_id : null,
          }
        : null,
    webhookUrl: typeof body.webhook_url === 'string' ? body.webhook_url : null,
    metadata:
      body.metadata && typeof body.metadata === 'object'
        ? Object.fromEntries(Object.entries(body.metadata).map(([k, v]) => [k, String(v)]))
        : {},
  };
}
