// The operator dashboard: reads and changes devices and usage through /admin/api/ (docs/admin-api.md).
// Written for a strict Content-Security-Policy: no inline script or style, no eval, requests to
// this origin only. Data from the server is put into the page as text, never as markup.

import {pageBases, pageLink, phoneAdvice, qrSvg} from '/assets/phone-link.mjs';
import {jobsPanel} from '/admin/admin-jobs.js';

(() => {
  // sessionStorage, not localStorage: the admin token is gone when the tab closes.
  const TOKEN_KEY = 'bolo.admin.token';
  const LIVE_EVERY_MS = 5000;
  const USAGE_EVERY_MS = 30000;
  const SVG = 'http://www.w3.org/2000/svg';
  // Margins in CSS pixels: the chart's coordinates are its size on screen, so text keeps its size.
  // The left one is the least: a wider largest figure on the axis widens it.
  const CHART = { height: 220, left: 48, right: 8, top: 12, bottom: 28 };

  const $ = (id) => document.getElementById(id);
  let liveTimer = null;
  let usageTimer = null;
  let lastUsage = null;
  // The device just added, while its token is shown: {name, token, connect}.
  let newDevice = null;
  // The jobs panel (admin-jobs.js), refreshed with the live figures.
  let jobs = null;

  function token() {
    return sessionStorage.getItem(TOKEN_KEY);
  }

  function say(message, isError) {
    const status = $('admin-status');
    status.textContent = message;
    status.classList.toggle('error', Boolean(isError));
  }

  class ApiError extends Error {
    constructor(status, message) {
      super(message);
      this.status = status;
    }
  }

  // Every call carries the token as a bearer header; it never goes into a URL or a cookie.
  async function api(path, options = {}) {
    const headers = { Authorization: 'Bearer ' + token() };
    if (options.body !== undefined) {
      headers['Content-Type'] = 'application/json';
    }
    let response;
    try {
      response = await fetch('/admin/api/' + path, {
        method: options.method || 'GET',
        headers,
        body: options.body === undefined ? undefined : JSON.stringify(options.body),
        cache: 'no-store',
        credentials: 'omit',
      });
    } catch (e) {
      throw new ApiError(0, 'The gateway cannot be reached; check the connection and retry.');
    }
    let body = null;
    try {
      body = await response.json();
    } catch (e) {
      body = null;
    }
    if (response.status === 401) {
      signOut();
      throw new ApiError(401, 'The admin token was refused. Enter the value of BOLO_ADMIN_TOKEN.');
    }
    if (!response.ok) {
      const message = body && typeof body.error === 'string' ? body.error : 'HTTP ' + response.status;
      throw new ApiError(response.status, message);
    }
    return body;
  }

  function report(error) {
    say(error instanceof ApiError ? error.message : 'Unexpected error: ' + error, true);
  }

  function seconds(value) {
    if (value === null || value === undefined) {
      return 'unlimited';
    }
    if (value < 60) {
      return (Math.round(value * 10) / 10) + ' s';
    }
    if (value < 3600) {
      return Math.floor(value / 60) + ' min ' + Math.round(value % 60) + ' s';
    }
    return Math.floor(value / 3600) + ' h ' + Math.round((value % 3600) / 60) + ' min';
  }

  // Engine latency: milliseconds under a second, where most hosted calls are.
  function latency(value) {
    return value < 1 ? Math.round(value * 1000) + ' ms' : seconds(value);
  }

  function percent(rate) {
    return Math.round(rate * 1000) / 10 + ' %';
  }

  function cell(row, text, header) {
    const td = document.createElement(header ? 'th' : 'td');
    if (header) {
      td.scope = 'row';
    }
    td.textContent = text;
    row.appendChild(td);
    return td;
  }

  // Each cell is labelled with its column's heading, which a narrow screen shows beside it when
  // the rows are laid out as cards (admin.css).
  function replaceRows(tbody, rows) {
    const headings = [...tbody.parentElement.tHead.rows[0].cells].map((th) => th.textContent);
    for (const row of rows) {
      [...row.cells].forEach((cell, i) => {
        cell.dataset.label = headings[i];
      });
    }
    tbody.replaceChildren(...rows);
  }

  // ---- devices ----

  async function loadDevices() {
    const answer = await api('devices');
    const rows = answer.devices.map((device) => {
      const row = document.createElement('tr');
      row.dataset.device = device.name;
      cell(row, device.name, true);
      cell(row, device.revoked_at ? 'revoked' : device.configured_only ? 'active (configured)' : 'active');
      cell(row, device.quota_seconds === 0 ? 'unlimited' : seconds(device.quota_seconds)
        + (device.quota_source === 'trial' ? ' (trial)' : ''));
      cell(row, seconds(device.charged_seconds));
      cell(row, seconds(device.remaining_seconds));
      const action = cell(row, '');
      if (!device.revoked_at) {
        const revoke = document.createElement('button');
        revoke.type = 'button';
        revoke.textContent = 'Revoke';
        revoke.className = 'danger';
        revoke.setAttribute('aria-label', 'Revoke ' + device.name);
        revoke.dataset.revoke = device.name;
        revoke.addEventListener('click', () => revokeDevice(device.name));
        action.appendChild(revoke);
      }
      return row;
    });
    replaceRows($('devices').tBodies[0], rows);
    fillDeviceChoices(answer.devices.map((d) => d.name));
  }

  function fillDeviceChoices(names) {
    for (const [select, first] of [[$('quota-device'), null], [$('secret-device'), null],
      [$('usage-device'), 'All devices']]) {
      const chosen = select.value;
      const options = [];
      if (first !== null) {
        const all = document.createElement('option');
        all.value = '';
        all.textContent = first;
        options.push(all);
      }
      for (const name of names) {
        const option = document.createElement('option');
        option.value = name;
        option.textContent = name;
        options.push(option);
      }
      select.replaceChildren(...options);
      if ([...select.options].some((o) => o.value === chosen)) {
        select.value = chosen;
      }
    }
  }

  async function addDevice(event) {
    event.preventDefault();
    const name = $('device-name').value.trim();
    try {
      const added = await api('devices', { method: 'POST', body: { name } });
      $('new-token-device').textContent = added.name;
      $('new-token').textContent = added.token;
      $('new-webhook-secret').textContent = added.webhook_secret;
      $('new-token-box').hidden = false;
      $('device-name').value = '';
      say('Device ' + added.name + ' added. Scan the code with its phone, or copy its token now: it is not shown again.');
      newDevice = { name: added.name, token: added.token, connect: await api('connect') };
      showPhoneLink(pageBases(newDevice.connect, location));
      await Promise.all([loadDevices(), loadUsage()]);
    } catch (e) {
      report(e);
    }
  }

  // The QR code that opens the dictation page on a phone with the new device's token; the address
  // chooser appears when there is more than one address to offer.
  function showPhoneLink(bases, chosen = bases[0]) {
    const choice = $('phone-url');
    choice.replaceChildren(...bases.map((base) => new Option(base, base)));
    choice.value = chosen;
    $('phone-url-field').hidden = bases.length < 2;
    // Only an HTTPS address gets a code: over plain HTTP the token would cross the network in the
    // clear on the phone's first request, for a page that cannot record there anyway.
    $('phone-qr').replaceChildren(...(new URL(chosen).protocol === 'https:'
      ? [qrSvg(pageLink(chosen, newDevice.token),
        'QR code: the dictation page at ' + chosen + ' with the token of ' + newDevice.name)]
      : []));
    $('phone-advice').textContent = phoneAdvice(newDevice.connect, chosen);
  }

  function forgetPhoneLink() {
    newDevice = null;
    $('phone-qr').replaceChildren();
    $('phone-url').replaceChildren();
    $('phone-advice').textContent = '';
  }

  async function revokeDevice(name) {
    if (!window.confirm('Revoke ' + name + '? Its token stops working at once; this cannot be undone.')) {
      return;
    }
    try {
      await api('devices/' + encodeURIComponent(name) + '/revoke', { method: 'POST' });
      say('Device ' + name + ' revoked: its token is refused from now on.');
      await loadDevices();
    } catch (e) {
      report(e);
    }
  }

  async function setQuota(event) {
    event.preventDefault();
    const name = $('quota-device').value;
    const value = Number($('quota-seconds').value);
    try {
      await api('devices/' + encodeURIComponent(name) + '/quota', {
        method: 'PUT',
        body: { seconds: value },
      });
      say('Quota of ' + name + ' set to ' + (value === 0 ? 'unlimited' : seconds(value)) + '.');
      await loadDevices();
    } catch (e) {
      report(e);
    }
  }

  async function rotateSecret(event) {
    event.preventDefault();
    const name = $('secret-device').value;
    try {
      const rotated = await api('devices/' + encodeURIComponent(name) + '/webhook-secret',
        { method: 'POST' });
      $('new-secret-device').textContent = rotated.name;
      $('new-secret').textContent = rotated.webhook_secret;
      $('new-secret-box').hidden = false;
      say('New webhook secret of ' + rotated.name + '; the old one signs too until '
        + new Date(rotated.previous_signs_until).toLocaleString() + '.');
    } catch (e) {
      report(e);
    }
  }

  async function copyToken() {
    try {
      await navigator.clipboard.writeText($('new-token').textContent);
      say('Token copied.');
    } catch (e) {
      say('The browser refused the clipboard; select the token and copy it by hand.', true);
    }
  }

  // ---- usage ----

  function timeLabel(iso, range) {
    const date = new Date(iso);
    if (range === '30d') {
      return date.toLocaleDateString(undefined, { month: 'short', day: 'numeric', timeZone: 'UTC' });
    }
    return date.toLocaleTimeString(undefined, { hour: '2-digit', minute: '2-digit' });
  }

  function svg(name, attributes, text) {
    const element = document.createElementNS(SVG, name);
    for (const [key, value] of Object.entries(attributes)) {
      element.setAttribute(key, String(value));
    }
    if (text !== undefined) {
      element.textContent = text;
    }
    return element;
  }

  // How wide the chart draws a tick's text, in its pixels: measured where it is shown, estimated
  // (an average glyph of 11 px type) where it is not laid out.
  function tickWidth(chart, text) {
    const probe = svg('text', { class: 'tick', x: 0, y: 0 }, text);
    chart.appendChild(probe);
    const measured = probe.getComputedTextLength();
    probe.remove();
    return measured > 0 ? measured : text.length * 7;
  }

  // Stacked bars, one group per bucket, drawn from the JSON: each part is [class, value, label].
  function drawBars(chart, buckets, parts, range, unit) {
    const width = Math.max(280, Math.round(chart.getBoundingClientRect().width) || 640);
    chart.setAttribute('viewBox', '0 0 ' + width + ' ' + CHART.height);
    const totals = buckets.map((b) => parts(b).reduce((sum, p) => sum + p[1], 0));
    const max = Math.max(1, ...totals);
    const maxLabel = formatMax(max, unit);
    // The axis's labels end 4 px left of the plot and start at least 4 px into the picture.
    const left = Math.max(CHART.left, Math.ceil(tickWidth(chart, maxLabel)) + 8);
    const plotWidth = width - left - CHART.right;
    const plotHeight = CHART.height - CHART.top - CHART.bottom;
    const step = plotWidth / buckets.length;
    const nodes = [];
    nodes.push(svg('line', {
      class: 'axis', x1: left, x2: width - CHART.right,
      y1: CHART.top + plotHeight, y2: CHART.top + plotHeight,
    }));
    nodes.push(svg('text', { class: 'tick', x: left - 4, y: CHART.top + 8, 'text-anchor': 'end' },
      maxLabel));
    nodes.push(svg('text', { class: 'tick', x: left - 4, y: CHART.top + plotHeight, 'text-anchor': 'end' }, '0'));
    buckets.forEach((bucket, i) => {
      const group = svg('g', {
        class: 'bar',
        'data-start': bucket.start,
        'data-requests': bucket.requests,
        'data-total': totals[i],
      });
      const detail = parts(bucket).map((p) => p[2] + ' ' + round(p[1])).join(', ');
      group.appendChild(svg('title', {}, timeLabel(bucket.start, range) + ': ' + detail));
      let y = CHART.top + plotHeight;
      for (const [kind, value] of parts(bucket)) {
        if (value <= 0) {
          continue;
        }
        const height = (value / max) * plotHeight;
        y -= height;
        group.appendChild(svg('rect', {
          class: kind,
          x: left + i * step + step * 0.1,
          y,
          width: Math.max(1, step * 0.8),
          height,
        }));
      }
      nodes.push(group);
    });
    // First, middle and last: more would not fit at phone width.
    const labels = [0, Math.floor(buckets.length / 2), buckets.length - 1];
    for (const i of [...new Set(labels)]) {
      nodes.push(svg('text', {
        class: 'tick',
        x: left + i * step + step / 2,
        y: CHART.height - 8,
        'text-anchor': i === 0 ? 'start' : i === buckets.length - 1 ? 'end' : 'middle',
      }, timeLabel(buckets[i].start, range)));
    }
    chart.replaceChildren(...nodes);
  }

  function round(value) {
    return Math.round(value * 10) / 10;
  }

  function formatMax(max, unit) {
    return unit === 's' ? seconds(max) : String(round(max));
  }

  async function loadUsage() {
    const range = $('range').value;
    const device = $('usage-device').value;
    let path = 'usage?range=' + encodeURIComponent(range);
    if (device) {
      path += '&device=' + encodeURIComponent(device);
    }
    const usage = await api(path);
    lastUsage = { usage, range };
    drawUsage(usage, range);
  }

  function drawUsage(usage, range) {
    const total = usage.total;
    const figures = [
      ['Requests', String(total.requests)],
      ['Unique notes', String(total.unique_notes)],
      ['Replays joined', String(total.replays_joined)],
      ['Replays cached', String(total.replays_cached)],
      ['Seconds charged', seconds(total.charged_seconds)],
      ['Seconds saved', seconds(total.saved_seconds)],
      ['Redundancy rate', percent(total.redundancy_rate)],
    ];
    const list = [];
    for (const [term, value] of figures) {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = value;
      dd.dataset.figure = term.toLowerCase().replaceAll(' ', '-');
      list.push(dt, dd);
    }
    $('usage-totals').replaceChildren(...list);
    drawBars($('requests-chart'), usage.buckets, (b) => [
      ['own', b.requests - b.replays_joined - b.replays_cached, 'own work'],
      ['joined', b.replays_joined, 'joined'],
      ['cached', b.replays_cached, 'cached'],
    ], range, 'requests');
    drawBars($('seconds-chart'), usage.buckets, (b) => [
      ['charged', b.charged_seconds, 'charged s'],
      ['saved', b.saved_seconds, 'saved s'],
    ], range, 's');
    $('requests-summary').textContent = total.requests + ' requests in the range, '
      + total.replays_joined + ' joined and ' + total.replays_cached + ' cached.';
    $('seconds-summary').textContent = seconds(total.charged_seconds) + ' charged, '
      + seconds(total.saved_seconds) + ' saved.';
    replaceRows($('usage-table').tBodies[0], usage.buckets.filter((b) => b.requests > 0).map((b) => {
      const row = document.createElement('tr');
      cell(row, timeLabel(b.start, range), true);
      for (const value of [b.requests, b.unique_notes, b.replays_joined, b.replays_cached,
        round(b.charged_seconds), round(b.saved_seconds), percent(b.redundancy_rate)]) {
        cell(row, String(value));
      }
      return row;
    }));
    replaceRows($('device-usage').tBodies[0], usage.devices.map((d) => {
      const row = document.createElement('tr');
      cell(row, d.device, true);
      for (const value of [d.requests, d.unique_notes, d.replays, round(d.charged_seconds),
        round(d.saved_seconds), percent(d.redundancy_rate)]) {
        cell(row, String(value));
      }
      return row;
    }));
  }

  // ---- live ----

  async function loadLive() {
    const live = await api('live');
    const figures = [
      ['Requests in flight', live.requests_in_flight],
      ['Work running', live.work_running],
      ['Copies waiting for work', live.dedup_waiting_copies],
      ['Charges waiting for the ledger', live.charges_pending],
      ['Offline pool busy', live.offline_pool ? live.offline_pool.busy + ' of ' + live.offline_pool.size : 'no offline engine'],
      ['Offline pool queued', live.offline_pool ? live.offline_pool.queued : 'no offline engine'],
      ['Engine calls', live.upstream.calls],
      ['Engine p50', live.upstream.p50_seconds === null ? 'no calls yet' : latency(live.upstream.p50_seconds)],
      ['Engine p99', live.upstream.p99_seconds === null ? 'no calls yet' : latency(live.upstream.p99_seconds)],
    ];
    const list = [];
    for (const [term, value] of figures) {
      const dt = document.createElement('dt');
      dt.textContent = term;
      const dd = document.createElement('dd');
      dd.textContent = String(value);
      dd.dataset.figure = term.toLowerCase().replaceAll(' ', '-');
      list.push(dt, dd);
    }
    $('live').replaceChildren(...list);
    const targets = live.targets || [];
    $('targets-part').hidden = targets.length === 0;
    replaceRows($('targets').tBodies[0], targets.map((t) => {
      const row = document.createElement('tr');
      row.dataset.target = t.target;
      cell(row, t.target, true);
      for (const value of [t.breaker.replace('_', ' '), t.in_flight, t.queued,
        Object.entries(t.calls).map(([outcome, n]) => outcome + ' ' + n).join(', ') || 'none yet']) {
        cell(row, String(value));
      }
      return row;
    }));
    $('readiness').replaceChildren(...Object.entries(live.readiness).map(([name, r]) => {
      const item = document.createElement('li');
      item.className = 'state-' + r.state;
      item.dataset.component = name;
      item.textContent = name + ': ' + r.state + (r.detail ? ' (' + r.detail + ')' : '');
      return item;
    }));
    $('live-at').textContent = 'Last read ' + new Date(live.at).toLocaleTimeString() + '.';
  }

  // ---- signing in and out ----

  async function open() {
    $('sign-in').hidden = true;
    $('dashboard').hidden = false;
    $('sign-out').hidden = false;
    try {
      await loadDevices();
      jobs = jobsPanel(api, say);
      await Promise.all([loadUsage(), loadLive(), jobs.load()]);
      say('Dashboard loaded.');
    } catch (e) {
      report(e);
      return;
    }
    liveTimer = setInterval(
      () => Promise.all([loadLive(), jobs.load()]).catch(report), LIVE_EVERY_MS);
    usageTimer = setInterval(
      () => Promise.all([loadDevices(), loadUsage()]).catch(report), USAGE_EVERY_MS);
  }

  function signOut() {
    sessionStorage.removeItem(TOKEN_KEY);
    clearInterval(liveTimer);
    clearInterval(usageTimer);
    $('dashboard').hidden = true;
    $('sign-out').hidden = true;
    $('sign-in').hidden = false;
    $('new-token').textContent = '';
    $('new-webhook-secret').textContent = '';
    $('new-token-box').hidden = true;
    $('new-secret').textContent = '';
    $('new-secret-box').hidden = true;
    forgetPhoneLink();
    $('admin-token').focus();
  }

  document.addEventListener('DOMContentLoaded', () => {
    $('sign-in-form').addEventListener('submit', (event) => {
      event.preventDefault();
      const value = $('admin-token').value.trim();
      if (!value) {
        say('Enter the admin token.', true);
        return;
      }
      sessionStorage.setItem(TOKEN_KEY, value);
      $('admin-token').value = '';
      open();
    });
    $('sign-out').addEventListener('click', () => {
      signOut();
      say('Admin token forgotten in this tab.');
    });
    $('add-form').addEventListener('submit', addDevice);
    $('quota-form').addEventListener('submit', setQuota);
    $('secret-form').addEventListener('submit', rotateSecret);
    $('copy-token').addEventListener('click', copyToken);
    $('phone-url').addEventListener('change', () => {
      if (newDevice) {
        showPhoneLink([...$('phone-url').options].map((o) => o.value), $('phone-url').value);
      }
    });
    $('usage-form').addEventListener('submit', (event) => {
      event.preventDefault();
      Promise.all([loadDevices(), loadUsage()]).catch(report);
    });
    // The charts are drawn at their size on screen: redraw when it changes.
    window.addEventListener('resize', () => {
      if (lastUsage && !$('dashboard').hidden) {
        drawUsage(lastUsage.usage, lastUsage.range);
      }
    });
    $('range').addEventListener('change', () => loadUsage().catch(report));
    $('usage-device').addEventListener('change', () => loadUsage().catch(report));
    if (token()) {
      open();
    }
  });
})();
