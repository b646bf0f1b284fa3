// The dashboard's way to a phone: a QR code of the dictation page's address with a new device's
// token in its fragment (https://host:port/#token=…). The gateway that made the token draws the
// code (POST /admin/api/qr, ZXing on the server): the token goes to no QR service, only back to
// the gateway over the admin's own connection, and a browser never sends an address's fragment in
// a request, so the phone that scans it takes the token out of the address itself (dictation.mjs).

const SVG = 'http://www.w3.org/2000/svg';

/** Where the dashboard keeps the admin token for the tab (admin.js). */
const ADMIN_TOKEN_KEY = 'bolo.admin.token';

/** The dictation page at {@code base} with {@code token} in its fragment. */
export function pageLink(base, token) {
  const url = new URL('/', base);
  url.hash = `token=${encodeURIComponent(token)}`;
  return url.href;
}

/**
 * {@code text} as a QR code: an SVG element, returned at once and filled with the gateway's
 * drawing when it arrives (dark squares on a light ground, error correction level M), named
 * {@code label} for a screen reader. The drawing's elements are adopted one by one from the
 * parsed SVG, never inserted as markup; a drawing that does not arrive leaves the element empty
 * and says why in its title.
 */
export function qrSvg(text, label) {
  const svg = element('svg', {role: 'img', 'aria-label': label, 'shape-rendering': 'crispEdges'});
  draw(svg, text).catch((error) => {
    const title = element('title', {});
    title.textContent = `The QR code could not be drawn: ${error.message}`;
    svg.replaceChildren(title);
  });
  return svg;
}

async function draw(svg, text) {
  let response;
  try {
    response = await fetch('/admin/api/qr', {
      method: 'POST',
      headers: {
        Authorization: 'Bearer ' + sessionStorage.getItem(ADMIN_TOKEN_KEY),
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({text}),
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (e) {
    throw new Error('the gateway cannot be reached');
  }
  if (!response.ok) {
    throw new Error(`the gateway answered ${response.status}`);
  }
  const drawn = new DOMParser().parseFromString(await response.text(), 'image/svg+xml');
  const root = drawn.documentElement;
  if (root.namespaceURI !== SVG || root.localName !== 'svg') {
    throw new Error('the gateway answered no SVG');
  }
  svg.setAttribute('viewBox', root.getAttribute('viewBox'));
  svg.replaceChildren(
    ...Array.from(root.children)
      .filter((child) => child.localName === 'rect' || child.localName === 'path')
      .map((child) => document.importNode(child, false)),
  );
}

/**
 * The addresses a phone may open, best first: this dashboard's own when a phone can reach it (the
 * operator opened it by a LAN address or name), else the LAN addresses the gateway lists.
 */
export function pageBases(connect, here) {
  const own = `${here.origin}/`;
  if (!isLoopback(here.hostname)) {
    return [own, ...connect.page_urls.filter((url) => url !== own)];
  }
  return connect.page_urls.length > 0 ? connect.page_urls : [own];
}

/** What the operator should know before the phone scans {@code base}, in plain words. */
export function phoneAdvice(connect, base) {
  const url = new URL(base);
  if (isLoopback(url.hostname)) {
    return (
      `A phone cannot reach ${url.host}: the gateway listens on this computer only. ` +
      `Start it with BOLO_HOST=0.0.0.0 (${connect.guide}).`
    );
  }
  if (!connect.secure) {
    return (
      "This gateway serves plain HTTP, where a phone's browser does not let the page record. " +
      `Start it with bolo serve --tls (${connect.guide}).`
    );
  }
  if (connect.authority) {
    return (
      "A phone that does not trust this gateway yet: first open " +
      `${new URL(connect.authority.path, base).href} on it and install the certificate ` +
      `(SHA-256 ${connect.authority.sha256}), as ${connect.guide} shows.`
    );
  }
  return 'Scan the code with the phone; the page keeps the token and is ready to record.';
}

function isLoopback(host) {
  return host === 'localhost' || host === '[::1]' || /^127\./.test(host);
}

function element(name, attributes) {
  const node = document.createElementNS(SVG, name);
  for (const [key, value] of Object.entries(attributes)) {
    node.setAttribute(key, String(value));
  }
  return node;
}
