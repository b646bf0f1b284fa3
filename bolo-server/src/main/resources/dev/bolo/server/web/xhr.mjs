// One HTTP exchange with the gateway through XMLHttpRequest, the browser API that reports how far a
// request's body got. The modules with rules (gateway.mjs, tus.mjs) take the exchange as a
// parameter, so they run under Node's test runner with a scripted one.

/**
 * Sends one request and resolves, never rejects, with the answer `{status, header(name), text}`
 * or, when none came, `{link: 'connection' | 'timeout' | 'cancelled'}`. Settles at once when
 * `signal` aborts.
 *
 * @param options.body a Uint8Array, a FormData or null
 * @param options.idleMs while the body goes out: the exchange ends as 'timeout' when no byte of it
 *     moved for this long (a stalled link)
 * @param options.answerMs once the body is out (at once for a request without one): the answer
 *     must arrive within this
 * @param options.onProgress (sentBytes, totalBytes) as the body goes out
 * @param options.onSent called once the whole body is out
 */
export function exchange({
  method,
  url,
  headers = {},
  body = null,
  signal,
  idleMs,
  answerMs,
  onProgress = () => {},
  onSent = () => {},
}) {
  return new Promise((resolve) => {
    if (signal.aborted) {
      resolve({link: 'cancelled'});
      return;
    }
    const xhr = new XMLHttpRequest();
    let timer = null;
    let timedOut = false;
    const arm = (ms) => {
      clearTimeout(timer);
      timer = setTimeout(() => {
        timedOut = true;
        xhr.abort();
      }, ms);
    };
    const abort = () => xhr.abort();
    const done = (result) => {
      clearTimeout(timer);
      signal.removeEventListener('abort', abort);
      resolve(result);
    };
    xhr.open(method, url);
    for (const [name, value] of Object.entries(headers)) {
      xhr.setRequestHeader(name, value);
    }
    if (body != null) {
      xhr.upload.onprogress = (event) => {
        arm(idleMs);
        if (event.lengthComputable) {
          onProgress(event.loaded, event.total);
        }
      };
      xhr.upload.onload = () => {
        arm(answerMs);
        onSent();
      };
    }
    xhr.onload = () =>
      done({
        status: xhr.status,
        header: (name) => xhr.getResponseHeader(name),
        text: xhr.responseText,
      });
    xhr.onerror = () => done({link: 'connection'});
    xhr.onabort = () => done({link: timedOut ? 'timeout' : 'cancelled'});
    signal.addEventListener('abort', abort, {once: true});
    arm(body == null ? answerMs : idleMs);
    xhr.send(body);
  });
}
