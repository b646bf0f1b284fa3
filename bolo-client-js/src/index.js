// Bolo's JavaScript client: browsers, React Native and Node 18+. See README.md.

export {BoloClient, LOOKUP_WAIT_SECONDS, STANDARD_RUNNING_WAIT, STANDARD_TIMEOUTS, readTimeoutMs} from './client.js';
export {BoloError} from './errors.js';
export {STANDARD_POLICY, isTransient, parseRetryAfter, resendPolicy, waitBeforeResend} from './policy.js';
export {RESUMABLE_THRESHOLD_BYTES} from './tus.js';
export {sha256Hex} from './sha256.js';

/**
 * @typedef {import('./answers.js').Transcript} Transcript
 * @typedef {import('./client.js').ClientOptions} ClientOptions
 * @typedef {import('./client.js').TranscribeOptions} TranscribeOptions
 * @typedef {import('./client.js').Progress} Progress
 * @typedef {import('./client.js').AttemptEvent} AttemptEvent
 * @typedef {import('./policy.js').ResendPolicy} ResendPolicy
 * @typedef {import('./policy.js').Failure} Failure
 * @typedef {import('./audio.js').AudioInput} AudioInput
 * @typedef {import('./running.js').Clock} Clock
 */
