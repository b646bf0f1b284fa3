// What the app hands in, as the note's bytes, name and type; the note's length where its container
// says so cheaply (WAV), for the read timeout; and the multipart form of the plain upload.

import {sha256Hex} from './sha256.js';

/**
 * The audio a note may be made of: a Blob or File (browsers), an ArrayBuffer or a typed array
 * (React Native, after reading the recording), or a file's path (Node).
 *
 * @typedef {Blob | ArrayBuffer | ArrayBufferView | string} AudioInput
 */

/**
 * @typedef {object} NoteAudio
 * @property {Uint8Array} bytes
 * @property {string} fileName
 * @property {string} contentType
 */

/**
 * The note's bytes, read once: every attempt sends the same bytes under the same hash.
 *
 * @param {AudioInput} audio
 * @param {{fileName?: string, contentType?: string}} [options]
 * @returns {Promise<NoteAudio>}
 */
export async function readAudio(audio, options = {}) {
  /** @type {Uint8Array} */
  let bytes;
  let fileName = options.fileName;
  let contentType = options.contentType;
  if (typeof audio === 'string') {
    // Node only; the specifier is computed so that bundlers for the browser leave it alone.
    const fs = await import('node:' + 'fs/promises');
    bytes = new Uint8Array(await fs.readFile(audio));
    fileName ??= audio.split(/[\\/]/).pop();
  } else if (audio instanceof ArrayBuffer) {
    bytes = new Uint8Array(audio);
  } else if (ArrayBuffer.isView(audio)) {
    bytes = new Uint8Array(audio.buffer, audio.byteOffset, audio.byteLength);
  } else if (typeof Blob !== 'undefined' && audio instanceof Blob) {
    bytes = new Uint8Array(await audio.arrayBuffer());
    fileName ??= /** @type {Partial<File>} */ (audio).name || undefined;
    contentType ??= audio.type || undefined;
  } else {
    throw new TypeError(
      'audio must be a Blob, a File, an ArrayBuffer, a typed array or (in Node) a path',
    );
  }
  fileName ??= 'note' + extensionOf(bytes);
  return {bytes, fileName, contentType: contentType ?? contentTypeOf(fileName)};
}

/** @param {Uint8Array} b */
function extensionOf(b) {
  const ascii = (/** @type {number} */ at, /** @type {number} */ n) =>
    String.fromCharCode(...b.subarray(at, at + n));
  if (ascii(0, 4) === 'RIFF' && ascii(8, 4) === 'WAVE') return '.wav';
  if (ascii(0, 4) === 'OggS') return '.ogg';
  if (ascii(0, 4) === 'fLaC') return '.flac';
  if (ascii(4, 4) === 'ftyp') return '.m4a';
  if (b[0] === 0x1a && b[1] === 0x45 && b[2] === 0xdf && b[3] === 0xa3) return '.webm';
  if (ascii(0, 3) === 'ID3' || (b[0] === 0xff && (b[1] & 0xe0) === 0xe0)) return '.mp3';
  return '';
}

/** @param {string} fileName */
function contentTypeOf(fileName) {
  const types = /** @type {Record<string, string>} */ ({
    wav: 'audio/wav',
    ogg: 'audio/ogg',
    opus: 'audio/ogg',
    flac: 'audio/flac',
    m4a: 'audio/mp4',
    mp4: 'audio/mp4',
    aac: 'audio/aac',
    webm: 'audio/webm',
    mp3: 'audio/mpeg',
  });
  return types[fileName.split('.').pop()?.toLowerCase() ?? ''] ?? 'application/octet-stream';
}

/**
 * A WAV note's length in milliseconds from its header, or null for other containers and a header
 * that does not add up (the gateway measures every container itself; this only sizes a timeout).
 *
 * @param {Uint8Array} bytes
 * @returns {number | null}
 */
export function wavDurationMs(bytes) {
  const ascii = (/** @type {number} */ at) => String.fromCharCode(...bytes.subarray(at, at + 4));
  if (bytes.length < 12 || ascii(0) !== 'RIFF' || ascii(8) !== 'WAVE') {
    return null;
  }
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let byteRate = 0;
  for (let at = 12; at + 8 <= bytes.length; ) {
    const id = ascii(at);
    const size = view.getUint32(at + 4, true);
    if (id === 'fmt ' && at + 16 <= bytes.length) {
      byteRate = view.getUint32(at + 16, true);
    } else if (id === 'data') {
      if (byteRate === 0) {
        return null;
      }
      const data = Math.min(size, bytes.length - at - 8);
      return Math.round((data * 1000) / byteRate);
    }
    at += 8 + size + (size % 2);
  }
  return null;
}

/**
 * The plain upload's body: multipart/form-data with the audio in part `audio` and the settings as
 * text parts (PROTOCOL.md, POST /v1/transcriptions).
 *
 * @param {NoteAudio} audio
 * @param {Record<string, string>} fields
 * @param {string} boundary
 * @returns {{body: Uint8Array, contentType: string}}
 */
export function multipartOf(audio, fields, boundary) {
  const encoder = new TextEncoder();
  /** @param {string} text */
  const quoted = (text) => text.replace(/["\r\n\\]/g, '_');
  /** @type {Uint8Array[]} */
  const parts = [];
  for (const [name, value] of Object.entries(fields)) {
    parts.push(
      encoder.encode(
        `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`,
      ),
    );
  }
  parts.push(
    encoder.encode(
      `--${boundary}\r\nContent-Disposition: form-data; name="audio"; ` +
        `filename="${quoted(audio.fileName)}"\r\nContent-Type: ${audio.contentType}\r\n\r\n`,
    ),
    audio.bytes,
    encoder.encode(`\r\n--${boundary}--\r\n`),
  );
  const body = new Uint8Array(parts.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of parts) {
    body.set(part, at);
    at += part.length;
  }
  return {body, contentType: `multipart/form-data; boundary=${boundary}`};
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * Base64 of a text's UTF-8 bytes (tus's Upload-Metadata), without btoa, which older React Native
 * engines lack.
 *
 * @param {string} text
 */
export function base64(text) {
  return base64OfBytes(new TextEncoder().encode(text));
}

/**
 * Standard base64 of `bytes`, padded.
 *
 * @param {Uint8Array} bytes
 */
export function base64OfBytes(bytes) {
  let out = '';
  for (let i = 0; i < bytes.length; i += 3) {
    const n = (bytes[i] << 16) | ((bytes[i + 1] ?? 0) << 8) | (bytes[i + 2] ?? 0);
    out += BASE64[(n >> 18) & 63] + BASE64[(n >> 12) & 63];
    out += i + 1 < bytes.length ? BASE64[(n >> 6) & 63] : '=';
    out += i + 2 < bytes.length ? BASE64[n & 63] : '=';
  }
  return out;
}

/**
 * The settings as the form's and the lookup's fields: they are part of the work's identity.
 *
 * @param {{language?: string, model?: string, prompt?: string, format?: string}} options
 * @returns {Record<string, string>}
 */
export function settingsOf(options) {
  /** @type {Record<string, string>} */
  const settings = {};
  for (const [name, value] of /** @type {const} */ ([
    ['language', options.language],
    ['model', options.model],
    ['prompt', options.prompt],
    ['response_format', options.format],
  ])) {
    if (value != null && value !== '') {
      settings[name] = value;
    }
  }
  return settings;
}

/**
 * The note read once, hashed once and measured where its container says: what every attempt of a
 * note (or a job) sends. Rejects with nothing read when `signal` has aborted already.
 *
 * @param {AudioInput} audio
 * @param {{fileName?: string, contentType?: string, durationMs?: number}} options
 * @returns {Promise<{audio: NoteAudio, sha256: string, durationMs: number | null}>}
 */
export async function readNote(audio, options) {
  const read = await readAudio(audio, options);
  return {
    audio: read,
    sha256: await sha256Hex(read.bytes),
    durationMs: options.durationMs ?? wavDurationMs(read.bytes),
  };
}
