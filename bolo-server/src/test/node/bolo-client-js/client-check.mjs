// The JavaScript client (bolo-client-js, imported from its source as the pages do) against a real
// gateway; run by BoloClientJsTest. Prints one JSON line: how the note ended.
//
// BOLO_MODE=transcribe: transcribes BOLO_NOTE. BOLO_MODE=cancel: cancels the note once more than
// BOLO_CANCEL_AFTER_BYTES of it are on their way.

import {BoloClient} from '../../../../../bolo-client-js/src/index.js';

const {BOLO_BASE_URL, BOLO_TOKEN, BOLO_NOTE, BOLO_MODE, BOLO_CANCEL_AFTER_BYTES} = process.env;
const bolo = new BoloClient({baseUrl: BOLO_BASE_URL, token: BOLO_TOKEN});
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
