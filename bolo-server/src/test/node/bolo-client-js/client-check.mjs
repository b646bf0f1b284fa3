// The JavaScript client (bolo-client-js, imported from its source as the pages do) against a real
// gateway; run by BoloClientJsTest. Prints one JSON line: how the note ended.
//
// BOLO_MODE=transcribe: transcribes BOLO_NOTE. BOLO_MODE=cancel: cancels the note once more than
// BOLO_CANCEL_AFTER_BYTES of it are on their way. BOLO_MODE=submit-job: hands BOLO_NOTE over as a
// job twice under one key. BOLO_MODE=read-job: reads job BOLO_JOB_ID, then cancels it.

import {BoloClient} from '../../../../../bolo-client-js/src/index.js';

const {BOLO_BASE_URL, BOLO_TOKEN, BOLO_NOTE, BOLO_MODE, BOLO_CANCEL_AFTER_BYTES, BOLO_JOB_ID} =
  process.env;
const bolo = new BoloClient({baseUrl: BOLO_BASE_URL, token: BOLO_TOKEN});

if (BOLO_MODE === 'submit-job') {
  const options = {language: 'en', metadata: {order: 'A-17'}, idempotencyKey: 'job-check-1'};
  const first = await bolo.submitJob(BOLO_NOTE, options);
  const again = await bolo.submitJob(BOLO_NOTE, options);
  console.log(JSON.stringify({first, again}));
  process.exit(0);
}
if (BOLO_MODE === 'read-job') {
  const read = await bolo.job(BOLO_JOB_ID);
  const cancelled = await bolo.cancelJob(BOLO_JOB_ID);
  const missing = await bolo.job('job_no_such_job').catch((e) => ({code: e.code, status: e.status}));
  console.log(JSON.stringify({read, cancelled, missing}));
  process.exit(0);
}
const controller = new AbortController();
const attempts = [];
let sentMost = 0;

try {
  const transcript = await bolo.transcribe(BOLO_NOTE, {
    language: 'en',
    signal: controller.signal,
    onAttempt: ({attempt, reason}) => attempts.push({attempt, reason}),
    onProgress: ({phase, sentBytes = 0}) => {
      sentMost = Math.max(sentMost, sentBytes);
      if (phase === 'uploading' && BOLO_MODE === 'cancel' && sentBytes > Number(BOLO_CANCEL_AFTER_BYTES)) {
        controller.abort();
      }
    },
  });
  console.log(JSON.stringify({ok: true, transcript, attempts, sentMost}));
} catch (e) {
  const {name, message, code, status, retryable, attempts: tried} = e;
  console.log(JSON.stringify({ok: false, error: {name, message, code, status, retryable, attempts: tried}, attempts, sentMost}));
}
