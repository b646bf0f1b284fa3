// The recorder's worklet and the WAV encoder, outside a browser (node --test; run by
// PageScriptsTest): the worklet's globals are stood in for, the processor is fed 128-sample blocks
// as the audio thread feeds it, and its 16 kHz output is measured.

import {test} from 'node:test';
import assert from 'node:assert/strict';
import {
  NOTE_RATE,
  PRE_ROLL_SECONDS,
  SOUND_THRESHOLD,
  durationMs,
  encodeWav,
  trimTrailingSilence,
} from '../../../main/resources/dev/bolo/server/web/wav.mjs';

let Processor = null;
globalThis.AudioWorkletProcessor = class {
  constructor() {
    this.port = {posted: [], postMessage(message) {
      this.posted.push(message);
    }};
  }
};
globalThis.registerProcessor = (name, processor) => {
  Processor = processor;
};

async function recorderAt(rate) {
  globalThis.sampleRate = rate;
  await import('../../../main/resources/dev/bolo/server/web/recorder-worklet.mjs');
  return new Processor({
    processorOptions: {
      outRate: NOTE_RATE,
      threshold: SOUND_THRESHOLD,
      preRollSeconds: PRE_ROLL_SECONDS,
    },
  });
}

/** Feeds `input` in render quanta, stops, and returns the 16-bit output. */
function record(recorder, input) {
  for (let at = 0; at < input.length; at += 128) {
    const block = new Float32Array(128);
    block.set(input.subarray(at, Math.min(at + 128, input.length)));
    recorder.process([[block]]);
  }
  recorder.port.onmessage({data: {type: 'stop'}});
  const chunks = recorder.port.posted.filter((m) => m.type === 'pcm').map((m) => m.pcm);
  const out = new Int16Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const chunk of chunks) {
    out.set(chunk, at);
    at += chunk.length;
  }
  return out;
}

function tone(rate, hz, seconds, amplitude, silenceBefore = 0) {
  const lead = Math.round(silenceBefore * rate);
  const samples = new Float32Array(lead + Math.round(seconds * rate));
  for (let i = 0; i < samples.length - lead; i++) {
    samples[lead + i] = amplitude * Math.sin((2 * Math.PI * hz * i) / rate);
  }
  return samples;
}

/** Amplitude of the middle of the output (its edges are the filter's ramps). */
function amplitude(pcm) {
  const middle = pcm.subarray(Math.floor(pcm.length / 4), Math.floor((3 * pcm.length) / 4));
  let sum = 0;
  for (const s of middle) {
    sum += (s / 32768) ** 2;
  }
  return Math.sqrt(2 * (sum / middle.length));
}

for (const rate of [48000, 44100, 16000]) {
  test(`a 1 kHz tone at ${rate} Hz comes out at 16 kHz with its amplitude and length`, async () => {
    const out = record(await recorderAt(rate), tone(rate, 1000, 1, 0.5));
    const expected = NOTE_RATE * (1 + PRE_ROLL_SECONDS);
    assert.ok(Math.abs(out.length - expected) < 60, `${out.length} samples`);
    assert.ok(Math.abs(amplitude(out) - 0.5) < 0.01, `amplitude ${amplitude(out)}`);
  });
}

test('a 10 kHz tone, above what 16 kHz can hold, is filtered out rather than folded down', async () => {
  const out = record(await recorderAt(48000), tone(48000, 10000, 1, 0.5));
  assert.ok(amplitude(out) < 0.005, `amplitude ${amplitude(out)}`);
});

test('silence before the first sound is dropped, so a later start makes the same samples', async () => {
  const early = record(await recorderAt(48000), tone(48000, 440, 0.5, 0.3, 0.3));
  const late = record(await recorderAt(48000), tone(48000, 440, 0.5, 0.3, 1.7));
  assert.deepEqual(late, early);
  // The pre-roll is silence, and the first sound comes right after it.
  const preRoll = Math.round(PRE_ROLL_SECONDS * NOTE_RATE);
  assert.ok(early.subarray(0, preRoll - 30).every((s) => s === 0));
});

test('a recorder that heard only silence says so and keeps nothing', async () => {
  const recorder = await recorderAt(48000);
  const out = record(recorder, new Float32Array(48000));
  assert.equal(out.length, 0);
  assert.equal(recorder.port.posted.at(-1).heard, false);
});

test('silence after the last sound is cut to three tenths of a second', () => {
  const samples = new Int16Array(16000);
  samples.fill(1000, 0, 8000);
  assert.equal(trimTrailingSilence(samples).length, 8000 + 4800);
  assert.equal(trimTrailingSilence(new Int16Array(100)).length, 0);
});

test('the WAV is 16 kHz mono 16-bit PCM with the samples little-endian after a 44-byte header', () => {
  const wav = encodeWav(Int16Array.of(1, -2, 32767));
  const view = new DataView(wav.buffer);
  const ascii = (at) => String.fromCharCode(...wav.subarray(at, at + 4));
  assert.equal(wav.length, 50);
  assert.equal(ascii(0), 'RIFF');
  assert.equal(view.getUint32(4, true), 42);
  assert.equal(ascii(8), 'WAVE');
  assert.equal(view.getUint16(20, true), 1);
  assert.equal(view.getUint16(22, true), 1);
  assert.equal(view.getUint32(24, true), 16000);
  assert.equal(view.getUint16(34, true), 16);
  assert.equal(ascii(36), 'data');
  assert.equal(view.getUint32(40, true), 6);
  assert.deepEqual([view.getInt16(44, true), view.getInt16(46, true), view.getInt16(48, true)], [1, -2, 32767]);
  assert.equal(durationMs(new Int16Array(16000)), 1000);
});
