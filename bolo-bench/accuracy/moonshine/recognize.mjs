// The Moonshine "tiny" English model (MIT; its quantized ONNX weights ship inside the npm package
// @moonshine-ai/moonshine-js) run by onnxruntime-node, greedy decoding as that package does it.
// Reads one audio file path per line on stdin and writes its transcript on one line to stdout,
// so that OfflineAccuracy can score it beside Bolo's engine. Audio is converted to 16 kHz mono
// float samples by Debian's ffmpeg; notes longer than 30 s are cut into 30 s windows.
import { execFileSync } from 'node:child_process';
import readline from 'node:readline';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-node';
import llamaTokenizer from 'llama-tokenizer-js';

const here = path.dirname(fileURLToPath(import.meta.url));
const model = path.join(here, 'model', 'package', 'dist', 'model', 'tiny', 'quantized');
const LAYERS = 6;
const KV_HEADS = 8;
const HEAD_DIM = 36;
const RATE = 16000;
const options = { executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1 };
const encoder = await ort.InferenceSession.create(path.join(model, 'encoder_model.onnx'), options);
const decoder = await ort.InferenceSession.create(path.join(model, 'decoder_model_merged.onnx'), options);

function samples(file) {
  const raw = execFileSync('ffmpeg', ['-nostdin', '-loglevel', 'error', '-i', file, '-ac', '1', '-ar',
    String(RATE), '-f', 'f32le', '-'], { maxBuffer: 1 << 30 });
  return new Float32Array(raw.buffer, raw.byteOffset, raw.length / 4);
}

function argMax(values) {
  let best = 0;
  for (let i = 1; i < values.length; i++) if (values[i] > values[best]) best = i;
  return best;
}

async function generate(audio) {
  const maxLen = Math.trunc((audio.length / RATE) * 6);
  const encoded = await encoder.run({ input_values: new ort.Tensor('float32', audio, [1, audio.length]) });
  const past = {};
  for (let i = 0; i < LAYERS; i++) {
    for (const a of ['decoder', 'encoder']) {
      for (const b of ['key', 'value']) {
        past[`past_key_values.${i}.${a}.${b}`] = new ort.Tensor('float32', new Float32Array(0), [0, KV_HEADS, 1, HEAD_DIM]);
      }
    }
  }
  const tokens = [1];
  let input = [1];
  for (let i = 0; i < maxLen; i++) {
    const feeds = {
      input_ids: new ort.Tensor('int64', BigInt64Array.from(input.map(BigInt)), [1, input.length]),
      encoder_hidden_states: encoded.last_hidden_state,
      use_cache_branch: new ort.Tensor('bool', [i > 0], [1]),
      ...past,
    };
    const out = await decoder.run(feeds);
    const logits = out.logits.data;
    const vocab = out.logits.dims[2];
    const next = argMax(logits.subarray(logits.length - vocab));
    tokens.push(next);
    if (next === 2) break;
    input = [next];
    const present = Object.entries(out).filter(([k]) => k.includes('present')).map(([, v]) => v);
    Object.keys(past).forEach((k, index) => {
      if (!(i > 0) || k.includes('decoder')) past[k] = present[index];
    });
  }
  return llamaTokenizer.decode(tokens.slice(1).filter((t) => t !== 2));
}

const lines = readline.createInterface({ input: process.stdin });
for await (const file of lines) {
  if (!file.trim()) continue;
  const audio = samples(file.trim());
  const window = 30 * RATE;
  const parts = [];
  for (let start = 0; start < audio.length; start += window) {
    parts.push(await generate(audio.subarray(start, Math.min(audio.length, start + window))));
  }
  process.stdout.write(parts.join(' ').replace(/\s+/g, ' ').trim() + '\n');
}
