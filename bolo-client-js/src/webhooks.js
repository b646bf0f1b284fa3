// Checks that a webhook about a job came from the gateway, as the Standard Webhooks specification
// defines it and as the Java SDK's Webhooks does: `webhook-signature` holds one or more
// space-separated `v1,<base64>` signatures (two while the device's secret is rotated), each the
// HMAC-SHA256 of `<webhook-id>.<webhook-timestamp>.<body>` keyed with the bytes after `whsec_`;
// one match is enough. Web Crypto's HMAC where the platform has it, the portable SHA-256 where it
// does not (React Native without a crypto polyfill).

import {base64OfBytes} from './audio.js';
import {jobOf} from './jobs.js';
import {sha256Portable} from './sha256.js';

/** How far a webhook's timestamp may be from the receiver's clock: the specification's 5 min. */
export const WEBHOOK_TOLERANCE_SECONDS = 300;

const SECRET_PREFIX = 'whsec_';

/** A webhook that is not the gateway's: forged, altered, stale or incomplete. */
export class WebhookVerificationError extends Error {
  /** @param {string} message */
  constructor(message) {
    super(message);
    this.name = 'WebhookVerificationError';
  }
}

/**
 * @typedef {object} WebhookEvent
 * @property {'job.succeeded' | 'job.failed' | 'job.cancelled'} type
 * @property {string} timestamp ISO 8601
 * @property {import('./jobs.js').Job} job the job as it ended
 *
 * @typedef {Headers | Map<string, string> | Record<string, string | string[] | undefined>}
 *   WebhookHeaders a Fetch API Headers, a Map, or a plain object such as Node's
 *   `request.headers`; names in any case
 */

/**
 * Verifies a webhook the gateway sent and resolves with its event; rejects with a
 * {@link WebhookVerificationError} saying what is wrong. Verify the body exactly as it arrived,
 * before parsing it (Express: `express.raw({type: 'application/json'})`).
 *
 * @param {WebhookHeaders} headers the request's headers
 * @param {string | Uint8Array | ArrayBuffer} body the request's body, byte for byte
 * @param {string} secret the device's `whsec_…` secret (the prefix may be left out)
 * @param {{nowMs?: number}} [options] the receiver's time, Date.now() by default
 * @returns {Promise<WebhookEvent>}
 */
export async function verifyWebhook(headers, body, secret, options = {}) {
  const key = keyOf(secret);
  const id = header(headers, 'webhook-id');
  const timestamp = header(headers, 'webhook-timestamp');
  const signatures = header(headers, 'webhook-signature');
  if (!/^[0-9]{1,15}$/.test(timestamp.trim())) {
    throw new WebhookVerificationError(
      `webhook-timestamp is not a whole number of seconds: ${timestamp}`,
    );
  }
  const seconds = Number(timestamp.trim());
  const skew = Math.floor((options.nowMs ?? Date.now()) / 1000) - seconds;
  if (skew > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(
      `the webhook's timestamp is ${skew} s old, beyond ${WEBHOOK_TOLERANCE_SECONDS} s`,
    );
  }
  if (-skew > WEBHOOK_TOLERANCE_SECONDS) {
    throw new WebhookVerificationError(`the webhook's timestamp is ${-skew} s ahead of this clock`);
  }
  const bytes =
    typeof body === 'string'
      ? new TextEncoder().encode(body)
      : body instanceof ArrayBuffer
        ? new Uint8Array(body)
        : body;
  const prefix = new TextEncoder().encode(`${id}.${seconds}.`);
  const signed = new Uint8Array(prefix.length + bytes.length);
  signed.set(prefix);
  signed.set(bytes, prefix.length);
  const expected = base64OfBytes(await hmacSha256(key, signed));
  const matched = signatures
    .trim()
    .split(/ +/)
    // Versions other than v1 (an asymmetric v1a, say) are not this secret's to check.
    .filter((versioned) => versioned.startsWith('v1,'))
    .some((versioned) => equalInConstantTime(versioned.slice(3), expected));
  if (!matched) {
    throw new WebhookVerificationError(
      'no v1 signature in webhook-signature matches this secret: forged, altered, or signed with another secret',
    );
  }
  let event;
  try {
    event = JSON.parse(new TextDecoder().decode(bytes));
  } catch (e) {
    throw new WebhookVerificationError('the signed body is not JSON');
  }
  const job = event?.data && typeof event.data === 'object' ? jobOf(event.data) : null;
  if (typeof event?.type !== 'string' || job == null) {
    throw new WebhookVerificationError("the signed body is not a job's event");
  }
  return {type: event.type, timestamp: String(event.timestamp ?? ''), job};
}

/**
 * @param {WebhookHeaders} headers
 * @param {string} name lower case
 */
function header(headers, name) {
  /** @type {unknown} */
  let value;
  if (typeof (/** @type {any} */ (headers).get) === 'function') {
    const map = /** @type {Headers | Map<string, string>} */ (headers);
    value = map.get(name);
    if (value == null && headers instanceof Map) {
      for (const [key, v] of headers) if (key.toLowerCase() === name) value = v;
    }
  } else {
    for (const [key, v] of Object.entries(headers)) if (key.toLowerCase() === name) value = v;
  }
  // Node joins a repeated header into an array; the specification's headers appear once.
  const text = Array.isArray(value) ? value.join(' ') : value;
  if (typeof text !== 'string' || text.trim() === '') {
    throw new WebhookVerificationError(`the request has no ${name} header`);
  }
  return text;
}

/** @param {string} secret */
function keyOf(secret) {
  const encoded = (secret.startsWith(SECRET_PREFIX) ? secret.slice(SECRET_PREFIX.length) : secret).trim();
  const key = fromBase64(encoded);
  if (key == null || key.length === 0) {
    throw new TypeError('a webhook secret is whsec_ followed by base64 of at least one byte');
  }
  return key;
}

/**
 * HMAC-SHA256 (RFC 2104): Web Crypto where present, else over the portable SHA-256.
 *
 * @param {Uint8Array} key
 * @param {Uint8Array} message
 * @returns {Promise<Uint8Array>}
 */
export async function hmacSha256(key, message) {
  const subtle = globalThis.crypto?.subtle;
  if (subtle != null) {
    const imported = await subtle.importKey(
      'raw',
      /** @type {Uint8Array<ArrayBuffer>} */ (key),
      {name: 'HMAC', hash: 'SHA-256'},
      false,
      ['sign'],
    );
    return new Uint8Array(
      await subtle.sign('HMAC', imported, /** @type {Uint8Array<ArrayBuffer>} */ (message)),
    );
  }
  return hmacSha256Portable(key, message);
}

/**
 * @param {Uint8Array} key
 * @param {Uint8Array} message
 */
export function hmacSha256Portable(key, message) {
  const block = new Uint8Array(64);
  block.set(key.length > 64 ? sha256Portable(key) : key);
  const inner = new Uint8Array(64 + message.length);
  const outer = new Uint8Array(64 + 32);
  for (let i = 0; i < 64; i++) {
    inner[i] = block[i] ^ 0x36;
    outer[i] = block[i] ^ 0x5c;
  }
  inner.set(message, 64);
  outer.set(sha256Portable(inner), 64);
  return sha256Portable(outer);
}

/**
 * @param {string} given
 * @param {string} expected
 */
function equalInConstantTime(given, expected) {
  // How much of a forged signature matched must not show in the time taken.
  let difference = given.length ^ expected.length;
  for (let i = 0; i < expected.length; i++) {
    difference |= expected.charCodeAt(i) ^ given.charCodeAt(i % Math.max(1, given.length));
  }
  return difference === 0;
}

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';

/**
 * @param {string} text standard base64, padded or not
 * @returns {Uint8Array | null} null when it is not base64
 */
function fromBase64(text) {
  const clean = text.replace(/=+$/, '');
  if (!/^[A-Za-z0-9+/]*$/.test(clean) || clean.length % 4 === 1) {
    return null;
  }
  const bytes = new Uint8Array(Math.floor((clean.length * 3) / 4));
  let bits = 0;
  let value = 0;
  let at = 0;
  for (const c of clean) {
    value = (value << 6) | ALPHABET.indexOf(c);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      bytes[at++] = (value >> bits) & 0xff;
    }
  }
  return bytes;
}
