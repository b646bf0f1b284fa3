// Drives the gateway with the official OpenAI Node SDK, as an app would, and prints one JSON
// object with what each call returned or threw. OpenAiNodeSdkTest starts the gateway and a
// stand-in provider, runs this script and checks the output.
//
// Environment: BOLO_BASE_URL (the gateway's /v1), BOLO_TOKEN (a device token), BOLO_NOTE (a WAV
// file), BOLO_BIG_NOTE (a file of several MB).
import fs from 'node:fs';
import OpenAI from 'openai';

const baseURL = process.env.BOLO_BASE_URL;
const apiKey = process.env.BOLO_TOKEN;
const note = process.env.BOLO_NOTE;
const bigNote = process.env.BOLO_BIG_NOTE;

const client = new OpenAI({ baseURL, apiKey, maxRetries: 0, timeout: 30_000 });

/** What a call threw, in the SDK's terms. */
function failure(e) {
  return {
    error: e.constructor.name,
    status: e.status ?? null,
    code: e.code ?? null,
    message: String(e.message),
    // A connection error's cause (undici's), down to the socket's own error: what broke.
    cause: e.cause ? `${e.cause}${e.cause.cause ? ` <- ${e.cause.cause} ${e.cause.cause.code ?? ''}` : ''}` : null,
  };
}

async function attempt(call) {
  try {
    return await call();
  } catch (e) {
    return failure(e);
  }
}

const results = {};

results.json = await attempt(async () => {
  const t = await client.audio.transcriptions.create({
    file: fs.createReadStream(note),
    model: 'whisper-1',
    language: 'en',
  });
  return { text: t.text };
});

results.text = await attempt(async () => {
  const t = await client.audio.transcriptions.create({
    file: fs.createReadStream(note),
    model: 'whisper-1',
    response_format: 'text',
  });
  return { text: t };
});

results.stream = await attempt(async () => {
  const stream = await client.audio.transcriptions.create({
    file: fs.createReadStream(note),
    model: 'gpt-4o-mini-transcribe',
    stream: true,
  });
  const deltas = [];
  let done = null;
  for await (const event of stream) {
    if (event.type === 'transcript.text.delta') deltas.push(event.delta);
    if (event.type === 'transcript.text.done') done = event.text;
  }
  return { deltas, done };
});

results.translation = await attempt(async () => {
  const t = await client.audio.translations.create({
    file: fs.createReadStream(note),
    model: 'whisper-1',
  });
  return { text: t.text };
});

results.models = await attempt(async () => {
  const ids = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return { ids };
});

results.unauthorized = await attempt(async () => {
  const stranger = new OpenAI({ baseURL, apiKey: 'not-a-device-token', maxRetries: 0 });
  await stranger.models.list();
  return { unexpected: 'listed without a device token' };
});

// A big upload to a path the gateway lacks: the SDK must read the 404, not a reset connection.
results.missingPath = await attempt(async () => {
  const elsewhere = new OpenAI({ baseURL: `${baseURL}/audio/v9`, apiKey, maxRetries: 0 });
  await elsewhere.audio.transcriptions.create({
    file: fs.createReadStream(bigNote),
    model: 'whisper-1',
  });
  return { unexpected: 'uploaded to a missing path' };
});

process.stdout.write(JSON.stringify(results) + '\n');
