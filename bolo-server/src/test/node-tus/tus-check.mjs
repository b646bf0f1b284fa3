// Uploads one note to the gateway with tus-js-client, as an app would, and prints one JSON object
// with how it ended. TusJsClientTest starts the gateway behind a proxy that cuts a connection in
// the middle of the note, runs this script once per protocol and checks the output.
//
// Environment: BOLO_PROTOCOL (tus-v1 or ietf-draft-05), BOLO_ENDPOINT (the gateway's /v1/uploads
// for tus-v1, its /v1/transcriptions with the settings as query parameters for ietf-draft-05),
// BOLO_TOKEN (a device token), BOLO_NOTE (a WAV file), BOLO_SHA256 (its hex SHA-256).
import fs from 'node:fs';
import * as tus from 'tus-js-client';

const protocol = process.env.BOLO_PROTOCOL;
const note = fs.readFileSync(process.env.BOLO_NOTE);
const errors = [];

const result = await new Promise((resolve) => {
  const upload = new tus.Upload(note, {
    endpoint: process.env.BOLO_ENDPOINT,
    protocol,
    headers: { Authorization: `Bearer ${process.env.BOLO_TOKEN}` },
    // tus-v1 carries the settings and the declared hash here; the IETF draft in the URL.
    metadata: { filename: 'note.wav', language: 'en', sha256: process.env.BOLO_SHA256 },
    // One append for the whole note, so the cut falls in the middle of it.
    chunkSize: Infinity,
    // tus-js-client's defaults after the first: a first retry at once could ask for the offset
    // before the gateway has even begun reading the append the cut broke, and then resend bytes
    // it already has (answered 409, correct but wasteful).
    retryDelays: [500, 1000, 3000, 5000],
    onShouldRetry: (err) => {
      errors.push(String(err.message).slice(0, 200));
      return true;
    },
    onError: (err) => resolve({ ok: false, error: String(err.message), url: upload.url }),
    onSuccess: ({ lastResponse }) =>
      resolve({
        ok: true,
        url: upload.url,
        status: lastResponse.getStatus(),
        body: lastResponse.getBody() ?? null,
        uploadComplete: lastResponse.getHeader('Upload-Complete') ?? null,
      }),
  });
  upload.start();
});

process.stdout.write(JSON.stringify({ protocol, retriedAfter: errors, ...result }));
