// An in-memory stand-in for the gateway's HTTP API as the client's exchange reaches it: tus 1.0.0
// uploads at /v1/uploads, the lookup, and the multipart POST. It can break appends after a
// scripted number of bytes (keeping what arrived, as the gateway does) and records every request.

import {BoloClient} from '../src/index.js';
import {fakeClock} from './fake-clock.js';

export const BASE = 'http://gateway.test/';

/** A client of the fake gateway on a fake clock, without jitter. */
export function clientOf(gateway, time = fakeClock(), options = {}) {
  return new BoloClient({
    baseUrl: BASE,
    token: 'device-token',
    policy: {jitter: 0},
    exchange: gateway.exchange,
    clock: time.clock,
    ...options,
  });
}

/** An answer as the exchange resolves it. */
export function answer(status, headers = {}, text = '') {
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return {status, header: (name) => lower[name.toLowerCase()] ?? null, text};
}

export function json(status, body, headers = {}) {
  return answer(status, {'Content-Type': 'application/json', ...headers}, JSON.stringify(body));
}

export function error(status, code, message, headers = {}) {
  return json(status, {error: message, code, request_id: 'r-9'}, headers);
}

/** tus's Upload-Metadata read back: {key: value}. */
export function readMetadata(header) {
  const fields = {};
  for (const pair of header.split(',')) {
    const [key, value = ''] = pair.trim().split(' ');
    fields[key] = Buffer.from(value, 'base64').toString('utf8');
  }
  return fields;
}

/**
 * @param options.cuts the first appends break after these many bytes of their body
 * @param options.uploads false: the gateway has no /v1/uploads (404)
 * @param options.posts what the POSTs answer in turn; a transcript by default
 * @param options.lookups what the lookups answer in turn; 404 by default
 * @param options.transcriptions what a complete upload's transcription answers in turn
 * @param options.routes other endpoints: {'METHOD /path': answer, or a function of the request}
 */
export function fakeGateway({
  cuts = [],
  uploads = true,
  posts = [],
  lookups = [],
  transcriptions = [],
  routes = {},
} = {}) {
  const gateway = {requests: [], uploads: new Map(), bodyBytes: 0, deleted: []};
  let nextId = 1;
  const cutsLeft = [...cuts];
  const postsLeft = [...posts];
  const lookupsLeft = [...lookups];
  const transcriptionsLeft = [...transcriptions];

  gateway.exchange = async (request) => {
    const {method, url, headers = {}, body = null, signal, onProgress} = request;
    gateway.requests.push({...request, path: url.slice(BASE.length - 1).split('?')[0]});
    if (signal.aborted) {
      return {link: 'cancelled'};
    }
    const path = url.slice(BASE.length - 1).split('?')[0];
    const routed = routes[`${method} ${path}`];
    if (routed) {
      return typeof routed === 'function' ? routed(request) : routed;
    }
    if (method === 'POST' && path === '/v1/transcriptions') {
      gateway.bodyBytes += body.length;
      onProgress?.(body.length, body.length);
      const next = postsLeft.shift();
      return typeof next === 'function' ? next(request) : next ?? json(200, {text: 'posted note'});
    }
    if (method === 'GET' && path.startsWith('/v1/transcriptions/')) {
      const next = lookupsLeft.shift();
      return typeof next === 'function' ? next(request) : next ?? error(404, 'not_found', 'no finished work');
    }
    if (!uploads) {
      return error(404, 'not_found', 'no such route');
    }
    if (method === 'POST' && path === '/v1/uploads') {
      const id = String(nextId++);
      gateway.uploads.set(id, {
        length: Number(headers['Upload-Length']),
        metadata: readMetadata(headers['Upload-Metadata'] ?? ''),
        parts: [],
        offset: 0,
      });
      return answer(201, {Location: '/v1/uploads/' + id, 'Upload-Offset': 0});
    }
    const [id, rest] = path.slice('/v1/uploads/'.length).split('/');
    const upload = gateway.uploads.get(id);
    if (!upload) {
      return error(404, 'not_found', 'no such upload for this device');
    }
    if (method === 'HEAD') {
      return answer(200, {'Upload-Offset': upload.offset, 'Upload-Length': upload.length});
    }
    if (method === 'DELETE') {
      gateway.uploads.delete(id);
      gateway.deleted.push(id);
      return answer(204);
    }
    if (method === 'PATCH') {
      const offset = Number(headers['Upload-Offset']);
      if (offset !== upload.offset) {
        return error(409, 'upload_offset_mismatch', 'append from ' + upload.offset, {
          'Upload-Offset': upload.offset,
        });
      }
      const cut = cutsLeft.length > 0 ? cutsLeft.shift() : null;
      const taken = cut == null ? body : body.subarray(0, Math.min(cut, body.length));
      gateway.bodyBytes += taken.length;
      onProgress?.(taken.length, body.length);
      upload.parts.push(taken);
      upload.offset += taken.length;
      if (cut != null) {
        return {link: 'connection'};
      }
      return answer(204, {'Upload-Offset': upload.offset});
    }
    if (method === 'GET' && rest === 'transcription') {
      const next = transcriptionsLeft.shift();
      if (next) {
        return typeof next === 'function' ? next(request) : next;
      }
      return json(200, {text: `resumed note of ${joined(upload).length} bytes`});
    }
    return error(405, 'method_not_allowed', 'no such method');
  };
  return gateway;
}

/** An upload's stored bytes in one array. */
export function joined(upload) {
  return Buffer.concat(upload.parts);
}

/** `size` bytes with a fixed pattern. */
export function noteOf(size) {
  return Uint8Array.from({length: size}, (_, i) => (i * 31 + 7) & 0xff);
}

/** A WAV of `seconds` of 16 kHz 16-bit mono silence. */
export function wavOf(seconds) {
  const data = seconds * 32000;
  const wav = new Uint8Array(44 + data);
  const view = new DataView(wav.buffer);
  const ascii = (at, text) => [...text].forEach((c, i) => (wav[at + i] = c.charCodeAt(0)));
  ascii(0, 'RIFF');
  view.setUint32(4, 36 + data, true);
  ascii(8, 'WAVE');
  ascii(12, 'fmt ');
  view.setUint32(16, 16, true);
  view.setUint16(20, 1, true);
  view.setUint16(22, 1, true);
  view.setUint32(24, 16000, true);
  view.setUint32(28, 32000, true);
  view.setUint16(32, 2, true);
  view.setUint16(34, 16, true);
  ascii(36, 'data');
  view.setUint32(40, data, true);
  return wav;
}
