// Bolo's JavaScript client: browsers, React Native and Node 18+. See README.md.

export {BoloClient, LOOKUP_WAIT_SECONDS, STANDARD_RUNNING_WAIT, STANDARD_TIMEOUTS, readTimeoutMs} from './client.js';
export {BoloError} from './errors.js';
export {adviceFor, reasonOf} from './advice.js';
export {STANDARD_POLICY, isTransient, parseRetryAfter, resendPolicy, waitBeforeResend} from './policy.js';
export {RESUMABLE_THRESHOLD_BYTES} from './tus.js';
export {sha256Hex} from './sha256.js';
export {WEBHOOK_TOLERANCE_SECONDS, WebhookVerificationError, verifyWebhook} from './webhooks.js';

/**
 * @typedef {import('./answers.js').Transcript} Transcript
 * @typedef {import('./client.js').ClientOptions} ClientOptions
 * @typedef {import('./client.js').TranscribeOptions} TranscribeOptions
 * @typedef {import('./client.js').Progress} Progress
 * @typedef {import('./client.js').AttemptEvent} AttemptEvent
 * @typedef {import('./client.js').PauseEvent} PauseEvent
 * @typedef {import('./client.js').Model} Model
 * @typedef {import('./jobs.js').Job} Job
 * @typedef {import('./jobs.js').JobStatus} JobStatus
 * @typedef {import('./jobs.js').JobList} JobList
 * @typedef {import('./jobs.js').SubmitJobOptions} SubmitJobOptions
 * @typedef {import('./webhooks.js').WebhookEvent} WebhookEvent
 * @typedef {import('./webhooks.js').WebhookHeaders} WebhookHeaders
 * @typedef {import('./policy.js').ResendPolicy} ResendPolicy
 * @typedef {import('./policy.js').Failure} Failure
 * @typedef {import('./audio.js').AudioInput} AudioInput
 * @typedef {import('./running.js').Clock} Clock
 * @typedef {import('./transport.js').TraceHeaders} TraceHeaders
 */
