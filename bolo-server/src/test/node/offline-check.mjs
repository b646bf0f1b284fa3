// Drives a gateway on its defaults (the offline engine, no provider key) with the official OpenAI
// Node SDK under the model names OpenAI's documentation gives, and prints one JSON object with
// what each call returned or threw, the X-Bolo-Model header included. OfflineNodeSdkTest starts
// the gateway, runs this script and checks the output.
//
// Environment: BOLO_BASE_URL (the gateway's /v1), BOLO_TOKEN (a device token), BOLO_NOTE (a spoken
// WAV note).
import fs from 'node:fs';
import OpenAI from 'openai';

const client = new OpenAI({
  baseURL: process.env.BOLO_BASE_URL,
  apiKey: process.env.BOLO_TOKEN,
  maxRetries: 0,
  timeout: 60_000,
});
const note = process.env.BOLO_NOTE;

async function attempt(call) {
  try {
    return await call();
  } catch (e) {
    return { error: e.constructor.name, status: e.status ?? null, message: String(e.message) };
  }
}

const results = {};

results.json = await attempt(async () => {
  const { data, response } = await client.audio.transcriptions
    .create({ file: fs.createReadStream(note), model: 'whisper-1' })
    .withResponse();
  return { status: response.status, model: response.headers.get('x-bolo-model'), text: data.text };
});

results.text = await attempt(async () => {
  const { data, response } = await client.audio.transcriptions
    .create({ file: fs.createReadStream(note), model: 'gpt-4o-transcribe', response_format: 'text' })
    .withResponse();
  return { status: response.status, model: response.headers.get('x-bolo-model'), text: data };
});

results.models = await attempt(async () => {
  const ids = [];
  for await (const model of client.models.list()) ids.push(model.id);
  return { ids };
});

process.stdout.write(JSON.stringify(results) + '\n');
