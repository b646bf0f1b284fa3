// One HTTP exchange with the gateway. XMLHttpRequest where the platform has it (browsers, React
// Native): it reports how far a request's body got, so a stalled upload is told from a slow one.
// fetch elsewhere (Node 18+), with the body streamed in chunks where the platform streams request
// bodies, for the same reason. The modules with rules take the exchange as a parameter.

/**
 * @typedef {import('./answers.js').Answer} Answer
 *
 * @typedef {object} ExchangeRequest
 * @property {string} method
 * @property {string} url
 * @property {Record<string, string>} [headers]
 * @property {Uint8Array | null} [body]
 * @property {AbortSignal} signal ends the exchange at once as 'cancelled'
 * @property {number} [idleMs] while the body goes out: no byte of it moved for this long is a
 *     'timeout' (a stalled link)
 * @property {number} answerMs once the body is out (at once without one): the answer must arrive
 *     within this
 * @property {(sentBytes: number, totalBytes: number) => void} [onProgress]
 *
 * @typedef {(request: ExchangeRequest) => Promise<Answer>} Exchange
 */

/**
 * The app's current trace as W3C Trace Context headers, asked before each request; null, an empty
 * object or a throw sends none.
 *
 * @typedef {() => ({traceparent?: string, tracestate?: string} | Record<string, string> | null | undefined)} TraceHeaders
 */

/**
 * `exchange`, with the app's `traceparent` and `tracestate` on every request: only those two
 * names, with visible ASCII values, whatever else `traceHeaders` gives.
 *
 * @param {Exchange} exchange
 * @param {TraceHeaders} traceHeaders
 * @returns {Exchange}
 */
export function tracedExchange(exchange, traceHeaders) {
  return (request) => {
    /** @type {Record<string, string>} */
    const trace = {};
    let given;
    try {
      given = traceHeaders();
    } catch {
      // The app's trace helps its operator; it never costs the note.
      given = null;
    }
    for (const [name, value] of Object.entries(given ?? {})) {
      const lower = name.toLowerCase();
      if ((lower === 'traceparent' || lower === 'tracestate') && typeof value === 'string'
          && /^[\x20-\x7e]+$/.test(value)) {
        const bounded = lower === 'tracestate' ? cutTraceState(value) : value;
        if (bounded.length > 0 && bounded.length <= MAX_TRACE_HEADER) {
          trace[lower] = bounded;
        }
      }
    }
    return exchange(Object.keys(trace).length === 0
      ? request
      : {...request, headers: {...request.headers, ...trace}});
  };
}

/**
 * The longest trace header sent: W3C Trace Context asks that 512 characters of a `tracestate` be
 * passed on; a longer one (OpenTelemetry allows 32 members of 256 characters, more than the
 * gateway's headers take) is cut to its leading members, those of over 128 characters left out
 * first, as the recommendation says. The Java SDK's TracedCalls cuts it the same way.
 */
export const MAX_TRACE_HEADER = 512;

/** @param {string} tracestate */
function cutTraceState(tracestate) {
  if (tracestate.length <= MAX_TRACE_HEADER) {
    return tracestate;
  }
  let kept = '';
  for (const member of tracestate.split(',')) {
    const trimmed = member.trim();
    if (trimmed.length === 0 || trimmed.length > 128) {
      continue;
    }
    if (kept.length + trimmed.length + 1 > MAX_TRACE_HEADER) {
      break;
    }
    kept += (kept.length === 0 ? '' : ',') + trimmed;
  }
  return kept;
}

/** Error bodies and transcripts are small; a larger body is not the gateway's. */
export const MAX_ANSWER_BYTES = 1024 * 1024;

/** Request bodies are streamed in pieces of this size, each re-arming the idle timeout. */
const CHUNK_BYTES = 64 * 1024;

/**
 * The platform's best exchange: XMLHttpRequest when present, else fetch.
 *
 * @param {{fetch?: typeof fetch, XMLHttpRequest?: typeof XMLHttpRequest}} [platform]
 * @returns {Exchange}
 */
export function platformExchange(platform = {}) {
  const Xhr = platform.XMLHttpRequest ?? globalThis.XMLHttpRequest;
  if (platform.fetch == null && Xhr != null) {
    return (request) => xhrExchange(Xhr, request);
  }
  const doFetch = platform.fetch ?? globalThis.fetch;
  if (doFetch == null) {
    throw new TypeError('Bolo needs fetch or XMLHttpRequest; this platform has neither');
  }
  return (request) => fetchExchange(doFetch, request);
}

/**
 * Sends one request through XMLHttpRequest; resolves, never rejects.
 *
 * @param {typeof XMLHttpRequest} Xhr
 * @param {ExchangeRequest} request
 * @returns {Promise<Answer>}
 */
export function xhrExchange(Xhr, request) {
  const {method, url, headers = {}, body = null, signal, answerMs, onProgress = () => {}} = request;
  const idleMs = request.idleMs ?? answerMs;
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({link: 'cancelled'});
      return;
    }
    const xhr = new Xhr();
    /** @type {ReturnType<typeof setTimeout> | undefined} */
    let timer;
    let timedOut = false;
    /** @param {number} ms */
    const arm = (ms) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        xhr.abort();
      }, ms);
    };
    const abort = () => xhr.abort();
    /** @param {Answer} result */
    const done = (result) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      resolve(result);
    };
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) {
      xhr.setRequestHeader(name, value);
    }
    if (body != null && xhr.upload) {
      xhr.upload.onprogress = (event) => {
        arm(idleMs);
        if (event.lengthComputable) {
          onProgress(event.loaded, event.total);
        }
      };
      xhr.upload.onload = () => arm(answerMs);
    }
    xhr.onload = () => {
      // XMLHttpRequest reports 0 for an answer it could not read as HTTP.
      if (xhr.status === 0) {
        done({link: 'connection'});
        return;
      }
      const text = xhr.responseText ?? '';
      done({
        status: xhr.status,
        header: (name) => xhr.getResponseHeader(name),
        text: text.length > MAX_ANSWER_BYTES ? '' : text,
      });
    };
    xhr.onerror = () => done({link: 'connection'});
    xhr.onabort = () => done({link: timedOut ? 'timeout' : 'cancelled'});
    xhr.ontimeout = () => done({link: 'timeout'});
    signal.addEventListener('abort', abort, {once: true});
    arm(body == null ? answerMs : idleMs);
    // A view's own bytes only: XMLHttpRequest would send a subarray's whole buffer.
    xhr.send(body == null ? null : body.slice().buffer);
  });
}

/** Whether this platform's fetch streams a request body (Node's does, with `duplex: 'half'`). */
function streamsRequestBodies() {
  return typeof (/** @type {any} */ (globalThis).process?.versions?.node) === 'string';
}

/**
 * Sends one request through fetch; resolves, never rejects.
 *
 * @param {typeof fetch} doFetch
 * @param {ExchangeRequest} request
 * @returns {Promise<Answer>}
 */
export async function fetchExchange(doFetch, request) {
  const {method, url, headers = {}, body = null, signal, answerMs, onProgress = () => {}} = request;
  const idleMs = request.idleMs ?? answerMs;
  if (signal.aborted) {
    return {link: 'cancelled'};
  }
  const controller = new AbortController();
  /** @type {ReturnType<typeof setTimeout> | undefined} */
  let timer;
  let timedOut = false;
  // Once the exchange has ended no timer may start: the body's stream can still be pulled after
  // an abort, and a timer armed then would keep a Node process alive for nothing.
  let ended = false;
  /** @param {number} ms */
  const arm = (ms) => {
    clearTimeout(timer);
    if (ended) {
      return;
    }
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, ms);
  };
  const abort = () => controller.abort();
  signal.addEventListener('abort', abort, {once: true});
  /** @type {RequestInit & {duplex?: 'half'}} */
  const init = {method, headers, signal: controller.signal, redirect: 'error'};
  if (body != null && streamsRequestBodies()) {
    let sent = 0;
    init.duplex = 'half';
    init.body = new ReadableStream({
      pull(stream) {
        if (ended || controller.signal.aborted) {
          stream.error(new Error('the exchange has ended'));
          return;
        }
        if (sent >= body.length) {
          // The whole body is out: the answer's own deadline starts.
          arm(answerMs);
          stream.close();
          return;
        }
        arm(idleMs);
        const chunk = body.subarray(sent, Math.min(body.length, sent + CHUNK_BYTES));
        sent += chunk.length;
        stream.enqueue(chunk);
        onProgress(sent, body.length);
      },
    });
  } else if (body != null) {
    // Without streaming the whole exchange shares one deadline: the body's and the answer's.
    init.body = /** @type {Uint8Array<ArrayBuffer>} */ (body);
  }
  arm(body == null ? answerMs : idleMs + answerMs);
  try {
    const response = await doFetch(url, init);
    const text = await readCapped(response);
    if (body != null && !streamsRequestBodies()) {
      onProgress(body.length, body.length);
    }
    return {
      status: response.status,
      header: (name) => response.headers.get(name),
      text,
    };
  } catch (e) {
    return {link: timedOut ? 'timeout' : signal.aborted ? 'cancelled' : 'connection'};
  } finally {
    ended = true;
    clearTimeout(timer);
    signal.removeEventListener('abort', abort);
  }
}

/**
 * The answer's body as text, or '' when it is larger than {@link MAX_ANSWER_BYTES}.
 *
 * @param {Response} response
 */
async function readCapped(response) {
  if (response.body == null) {
    return '';
  }
  const reader = response.body.getReader();
  /** @type {Uint8Array[]} */
  const parts = [];
  let size = 0;
  for (;;) {
    const {done, value} = await reader.read();
    if (done) {
      break;
    }
    size += value.length;
    if (size > MAX_ANSWER_BYTES) {
      await reader.cancel();
      return '';
    }
    parts.push(value);
  }
  const all = new Uint8Array(size);
  let at = 0;
  for (const part of parts) {
    all.set(part, at);
    at += part.length;
  }
  return new TextDecoder().decode(all);
}
