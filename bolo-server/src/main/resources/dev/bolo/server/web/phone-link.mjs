// The dashboard's way to a phone: a QR code of the dictation page's address with a new device's
// token in its fragment (https://host:port/#token=…). The code is drawn here, in the browser, with
// the vendored encoder (qrcode-generator, MIT): the token goes to no QR service and back to no
// server, and a browser never sends an address's fragment in a request, so the phone that scans
// it takes the token out of the address itself (dictation.mjs).

import qrcode from './qrcode-generator.mjs';

const SVG = 'http://www.w3.org/2000/svg';

/** Light modules around the code on every side: the quiet zone ISO/IEC 18004 asks for. */
const QUIET_ZONE = 4;

/** The dictation page at {@code base} with {@code token} in its fragment. */
export function pageLink(base, token) {
  const url = new URL('/', base);
  url.hash = `token=${encodeURIComponent(token)}`;
  return url.href;
}

/**
 * {@code text} as a QR code: an SVG element of dark squares on a light ground, error correction
 * level M (15 %: a screen photographed at an angle still reads), named {@code label} for a screen
 * reader. Built as elements, never as markup.
 */
export function qrSvg(text, label) {
  const code = qrcode(0, 'M');
  code.addData(text);
  code.make();
  const count = code.getModuleCount();
  const size = count + 2 * QUIET_ZONE;
  const squares = [];
  for (let row = 0; row < count; row += 1) {
    for (let col = 0; col < count; col += 1) {
      if (code.isDark(row, col)) {
        squares.push(`M${col + QUIET_ZONE} ${row + QUIET_ZONE}h1v1h-1z`);
      }
    }
  }
  const svg = element('svg', {
    viewBox: `0 0 ${size} ${size}`,
    role: 'img',
    'aria-label': label,
    'shape-rendering': 'crispEdges',
  });
  svg.append(
    element('rect', {width: size, height: size, fill: '#ffffff'}),
    element('path', {d: squares.join(''), fill: '#000000'}),
  );
  return svg;
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
