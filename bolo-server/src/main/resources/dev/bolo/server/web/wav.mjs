// A recorded note as the file the gateway takes: 16 kHz mono 16-bit PCM WAV.

/** The rate every engine takes, the offline one included. */
export const NOTE_RATE = 16000;

/**
 * A sample at least this loud (about -40 dBFS) is sound; quieter ones before the first and after
 * the last sound are silence and are not kept (beyond the margins below).
 */
export const SOUND_THRESHOLD = 0.01;

/** Kept before the first sound, so a soft first consonant is not cut. */
export const PRE_ROLL_SECONDS = 0.25;

/** Kept after the last sound, so the last word's ending is not cut. */
export const TAIL_SECONDS = 0.3;

/**
 * The samples up to TAIL_SECONDS after the last sound: the silence between the last word and the
 * press on Stop is not uploaded or charged.
 */
export function trimTrailingSilence(samples, rate = NOTE_RATE) {
  const level = Math.round(SOUND_THRESHOLD * 32767);
  let last = samples.length - 1;
  while (last >= 0 && Math.abs(samples[last]) < level) {
    last--;
  }
  if (last < 0) {
    return samples.subarray(0, 0);
  }
  const end = Math.min(samples.length, last + 1 + Math.round(TAIL_SECONDS * rate));
  return samples.subarray(0, end);
}

/** The samples as a WAV file (RIFF, PCM format 1, 16-bit little-endian, mono). */
export function encodeWav(samples, rate = NOTE_RATE) {
  const dataBytes = samples.length * 2;
  const bytes = new Uint8Array(44 + dataBytes);
  const view = new DataView(bytes.buffer);
  const ascii = (at, text) => {
    for (let i = 0; i < text.length; i++) {
      bytes[at + i] = text.charCodeAt(i);
    }
  };
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + dataBytes, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true); // fmt chunk size
  view.setUint16(20, 1, true); // PCM
  view.setUint16(22, 1, true); // mono
  view.setUint32(24, rate, true);
  view.setUint32(28, rate * 2, true); // bytes per second
  view.setUint16(32, 2, true); // bytes per frame
  view.setUint16(34, 16, true); // bits per sample
  ascii(36, 'data');
  view.setUint32(40, dataBytes, true);
  for (let i = 0; i < samples.length; i++) {
    view.setInt16(44 + 2 * i, samples[i], true);
  }
  return bytes;
}

/** How long the samples last, in whole milliseconds. */
export function durationMs(samples, rate = NOTE_RATE) {
  return Math.round((samples.length * 1000) / rate);
}
