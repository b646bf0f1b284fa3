// A stand-in for the gateway's HTTP API as xhr.mjs's exchange reaches it, for the page's Node
// tests: tus 1.0.0 uploads at /v1/uploads kept in memory, the lookup, and the multipart POST. It
// can break appends after a scripted number of bytes (keeping what arrived, as the gateway does),
// and records every request.

import {Cancelled} from '../../../main/resources/dev/bolo/server/web/resend-policy.mjs';

/** An answer as xhr.mjs's exchange resolves it. */
export function answer(status, headers = {}, text = '') {
  const lower = Object.fromEntries(
    Object.entries(headers).map(([name, value]) => [name.toLowerCase(), String(value)]),
  );
  return {status, header: (name) => lower[name.toLowerCase()] ?? null, text};
}

function json(status, body, headers = {}) {
  return answer(status, {'Content-Type': 'application/json', ...headers}, JSON.stringify(body));
}

function error(status, code, message, headers = {}) {
  return json(status, {error: message, code, request_id: 'fake'}, headers);
}

/** tus's Upload-Metadata read back: {key: value}. */
export function readMetadata(header) {
  const fields = {};
  for (const pair of header.split(',')) {
    const [key, value = ''] = pair.trim().split(' ');
    fields[key] = new TextDecoder().decode(Uint8Array.from(atob(value), (c) => c.charCodeAt(0)));
  }
  return fields;
}

/**
 * @param options.cuts the first appends break after these many bytes of their body (null: whole)
 * @param options.uploads false: the gateway has no /v1/uploads (404)
 * @param options.lookup what the lookup answers: (sha256) => answer; 404 by default
 * @param options.transcription what a complete upload's transcription answers; 200 by default
 * @param options.lockedHeads the first HEADs after a break answer 423 (the append still stores)
 * @param options.heldBack bytes of a broken append the gateway has not stored when first asked
 */
export function fakeGateway({
  cuts = [],
  uploads = true,
  lookup = () => error(404, 'not_found', 'no finished work for this note'),
  transcription = null,
  lockedHeads = 0,
  heldBack = 0,
} = {}) {
  const gateway = {
    requests: [],
    uploads: new Map(),
    bodyBytes: 0,
    transcriptions: 0,
    deleted: [],
  };
  let nextId = 1;
  const cutsLeft = [...cuts];
  let locksLeft = lockedHeads;
  let pending = null; // bytes of a broken append the gateway stores when next asked

  gateway.exchange = async ({method, url, headers, body = null, signal, onProgress}) => {
    gateway.requests.push({method, url, headers: {...headers}, bytes: sizeOf(body)});
    if (signal.aborted) {
      return {link: 'cancelled'};
    }
    const path = url.split('?')[0];
    const query = new URLSearchParams(url.split('?')[1] ?? '');
    if (method === 'POST' && path === '/v1/transcriptions') {
      gateway.bodyBytes += sizeOf(body);
      gateway.transcriptions++;
      return json(200, {text: 'posted note', deduplicated: false});
    }
    if (method === 'GET' && path.startsWith('/v1/transcriptions/')) {
      return lookup(path.slice('/v1/transcriptions/'.length), query);
    }
    if (!path.startsWith('/v1/uploads')) {
      return error(404, 'not_found', 'no such route');
    }
    if (!uploads) {
      return error(404, 'not_found', 'no such route');
    }
    if (headers['Tus-Resumable'] !== '1.0.0') {
      return error(412, 'invalid_parameter', 'send Tus-Resumable: 1.0.0');
    }
    if (method === 'POST' && path === '/v1/uploads') {
      const id = String(nextId++);
      gateway.uploads.set(id, {
        length: Number(headers['Upload-Length']),
        metadata: readMetadata(headers['Upload-Metadata'] ?? ''),
        key: headers['Idempotency-Key'],
        bytes: [],
        offset: 0,
      });
      return answer(201, {Location: '/v1/uploads/' + id, 'Upload-Offset': 0});
    }
    const [id, rest] = path.slice('/v1/uploads/'.length).split('/');
    const upload = gateway.uploads.get(id);
    if (!upload) {
      return error(404, 'not_found', 'no such upload for this device');
    }
    const settle = () => {
      if (pending) {
        upload.bytes.push(pending);
        upload.offset += pending.length;
        pending = null;
      }
    };
    if (method === 'HEAD') {
      if (locksLeft > 0) {
        locksLeft--;
        return answer(423, {'Retry-After': 1});
      }
      const shown = answer(200, {'Upload-Offset': upload.offset, 'Upload-Length': upload.length});
      settle();
      return shown;
    }
    if (method === 'DELETE') {
      gateway.uploads.delete(id);
      gateway.deleted.push(id);
      return answer(204);
    }
    if (method === 'PATCH') {
      settle();
      const offset = Number(headers['Upload-Offset']);
      if (offset !== upload.offset) {
        const at = {'Upload-Offset': upload.offset};
        return error(409, 'upload_offset_mismatch', 'append from ' + upload.offset, at);
      }
      const cut = cutsLeft.length > 0 ? cutsLeft.shift() : null;
      const taken = cut == null ? body : body.subarray(0, Math.min(cut, body.length));
      gateway.bodyBytes += taken.length;
      onProgress?.(taken.length, body.length);
      if (cut != null) {
        // The link broke: the bytes that arrived are kept, some of them only a moment later.
        const later = Math.min(heldBack, taken.length);
        upload.bytes.push(taken.subarray(0, taken.length - later));
        upload.offset += taken.length - later;
        pending = later > 0 ? taken.subarray(taken.length - later) : null;
        return {link: 'connection'};
      }
      upload.bytes.push(taken);
      upload.offset += taken.length;
      return answer(204, {'Upload-Offset': upload.offset});
    }
    if (method === 'GET' && rest === 'transcription') {
      if (upload.offset < upload.length) {
        return json(202, {status: 'running'}, {'Retry-After': 1});
      }
      if (transcription) {
        return transcription(upload);
      }
      gateway.transcriptions++;
      return json(200, {text: 'resumed note of ' + joined(upload).length + ' bytes'});
    }
    return error(405, 'method_not_allowed', 'no such method');
  };
  return gateway;
}

/** An upload's stored bytes in one array. */
export function joined(upload) {
  const all = new Uint8Array(upload.bytes.reduce((n, part) => n + part.length, 0));
  let at = 0;
  for (const part of upload.bytes) {
    all.set(part, at);
    at += part.length;
  }
  return all;
}

function sizeOf(body) {
  if (body == null) {
    return 0;
  }
  if (body instanceof Uint8Array) {
    return body.length;
  }
  // A FormData: the audio part's size.
  return body.get('audio')?.size ?? 0;
}

/** A note as the page makes it: `size` bytes of WAV-like data with a fixed pattern. */
export function noteOf(size, settings = {language: 'en', model: '', response_format: 'json'}) {
  const wav = new Uint8Array(size);
  for (let i = 0; i < size; i++) {
    wav[i] = (i * 31 + 7) & 0xff;
  }
  return {
    key: 'key-' + size,
    wav,
    sha256: 'ab'.repeat(32),
    durationMs: Math.round((size / 32000) * 1000),
    settings,
    sent: false,
    tus: null,
  };
}

export {Cancelled};

/** Pauses that take no time and are recorded; a cancel ends them as realSleep does. */
export function instantSleep() {
  const sleep = async (ms, signal) => {
    if (signal.aborted) {
      throw new Cancelled();
    }
    sleep.pauses.push(ms);
  };
  sleep.pauses = [];
  return sleep;
}
