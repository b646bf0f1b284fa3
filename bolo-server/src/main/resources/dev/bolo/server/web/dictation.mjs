// The dictation page: token, settings, record, send with resends, show the text. The sending is
// Bolo's JavaScript client (bolo-client-js), served from /assets/bolo-client/ as the build copies
// it: the same package an app installs from npm.

import {startRecording} from './recorder.mjs';
import {durationMs, encodeWav, trimTrailingSilence} from './wav.mjs';
import {BoloClient, STANDARD_POLICY, adviceFor, reasonOf} from './bolo-client/index.js';

const TOKEN_KEY = 'bolo.token';
const SETTINGS_KEY = 'bolo.settings';

const $ = (id) => document.getElementById(id);
const ui = {
  token: $('token'),
  forget: $('forget'),
  offer: $('token-offer'),
  offerKeep: $('offer-keep'),
  offerUse: $('offer-use'),
  language: $('language'),
  model: $('model'),
  format: $('format'),
  record: $('record'),
  stop: $('stop'),
  cancel: $('cancel'),
  level: $('level'),
  elapsed: $('elapsed'),
  status: $('status'),
  transcript: $('transcript'),
  copy: $('copy'),
  copyResult: $('copy-result'),
  notes: $('notes'),
  noNotes: $('no-notes'),
};

/** What the page is doing: at most one recording or upload at a time. */
let recording = null;
let upload = null;
let tick = null;

/**
 * The client for the token in use: one per token, so that what it learnt about the gateway (that
 * it has no resumable uploads) holds for the page's later notes.
 */
let client = null;

function clientFor(current) {
  if (client?.token !== current) {
    client = new BoloClient({baseUrl: location.origin, token: current});
  }
  return client;
}

/** Every language the page knows, as its HTML lists them: offered while the engine takes any. */
const ALL_LANGUAGES = Array.from(ui.language.options, (option) => ({
  code: option.value,
  name: option.textContent,
}));

/** The gateway's models for this device's token, with their languages (null: any); [] unknown. */
let models = [];

function say(state, text) {
  ui.status.dataset.state = state;
  ui.status.textContent = text;
}

function token() {
  return ui.token.value.trim();
}

function settings() {
  return {language: ui.language.value, model: ui.model.value, response_format: ui.format.value};
}

function setButtons({record, stop, cancel}) {
  ui.record.disabled = !record;
  ui.stop.disabled = !stop;
  ui.cancel.disabled = !cancel;
}

function clock(ms) {
  const seconds = Math.floor(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
}

// ---- token and settings ----

/**
 * Whether this browser lets the page record here: only in a secure context (HTTPS, or this same
 * computer), with the Web Audio worklet the recorder runs in.
 */
const canRecord =
  window.isSecureContext &&
  Boolean(navigator.mediaDevices?.getUserMedia) &&
  Boolean(window.AudioWorkletNode);

const NOT_SECURE =
  'This browser records only from a page opened over HTTPS (or on the gateway\'s own computer). ' +
  'Open the address the gateway prints when started with bolo serve --tls, as docs/connect-a-phone.md describes.';

/**
 * A token handed over in the address's fragment, as the dashboard's QR code does
 * (https://host:port/#token=…), taken out of the address bar and this page's history entry whatever
 * becomes of it, so it is not shown, bookmarked or passed on with the address. A fragment is never
 * part of a request, so the token crossed no network to get here.
 *
 * @returns the token handed over, or '' when there was none
 */
function takeTokenFromAddress() {
  const fragment = new URLSearchParams(location.hash.slice(1));
  if (!fragment.has('token')) {
    return '';
  }
  const handed = fragment.get('token').trim();
  fragment.delete('token');
  const rest = fragment.toString();
  const address = location.pathname + location.search + (rest ? `#${rest}` : '');
  history.replaceState(history.state, '', address);
  return handed;
}

/**
 * What the page does with a token a link handed over. With no token kept, or the same one, it is
 * kept the way a pasted one is. Another one is not taken without asking: anyone can send a link, and
 * a token swapped unseen would send the notes recorded next to the sender's device. The person is
 * asked in the page, and the kept token stays in use until they agree.
 *
 * @returns whether the page now keeps the handed token
 */
function receiveToken(handed) {
  if (!handed) {
    return false;
  }
  if (token() && token() !== handed) {
    offerToken(handed);
    return false;
  }
  keepToken(handed);
  return true;
}

function keepToken(value) {
  localStorage.setItem(TOKEN_KEY, value);
  ui.token.value = value;
}

/** The token a link offers while the page asks whether to use it; '' when it does not ask. */
let offered = '';

function offerToken(handed) {
  offered = handed;
  if (!ui.offer.open) {
    // Not modal: the page goes on with the kept token while the question stands.
    ui.offer.show();
  }
  ui.offerKeep.focus();
}

ui.offerUse.addEventListener('click', () => {
  const handed = offered;
  offered = '';
  ui.offer.close();
  keepToken(handed);
  loadModels();
  if (!recording && !upload) {
    sayReady('Switched to the token from the link; this browser keeps it now. ');
  }
});

ui.offerKeep.addEventListener('click', () => {
  offered = '';
  ui.offer.close();
  if (!recording && !upload) {
    sayReady("Kept this browser's token; the link's token was not saved. ");
  }
});

function restore() {
  ui.token.value = localStorage.getItem(TOKEN_KEY) ?? '';
  try {
    const saved = JSON.parse(localStorage.getItem(SETTINGS_KEY) ?? '{}');
    if (saved.language != null) ui.language.value = saved.language;
    ui.language.dataset.wanted = saved.language ?? '';
    if (saved.response_format) ui.format.value = saved.response_format;
    ui.model.dataset.wanted = saved.model ?? '';
  } catch (e) {
    localStorage.removeItem(SETTINGS_KEY);
  }
}

function saveSettings() {
  localStorage.setItem(SETTINGS_KEY, JSON.stringify(settings()));
}

async function loadModels() {
  const current = token();
  const wanted = ui.model.value || ui.model.dataset.wanted || '';
  ui.model.replaceChildren(new Option("The engine's default", ''));
  models = [];
  offerLanguages();
  if (!current) {
    return;
  }
  let listed;
  try {
    listed = await clientFor(current).models();
  } catch (error) {
    if (current === token() && !recording && !upload) {
      say('error', error.reason ? adviceFor(error.reason) : error.message);
    }
    return;
  }
  if (current !== token()) {
    return; // The token changed meanwhile; its own load fills the list.
  }
  models = listed;
  for (const {id} of models) {
    ui.model.add(new Option(id, id));
  }
  ui.model.value = models.some((model) => model.id === wanted) ? wanted : '';
  offerLanguages();
  if (!recording && !upload && ui.status.dataset.state !== 'done') {
    sayReady();
  }
}

/** Ready to record, or why this browser cannot record here. */
function sayReady(prefix = '') {
  if (canRecord) {
    say('idle', `${prefix}Ready: press Record to start a note.`);
  } else {
    say('error', `${prefix}${NOT_SECURE}`);
  }
}

/**
 * Offers the languages of the model the page sends (the one chosen, else the first listed): a note
 * in another language would be refused only after it was recorded. The engine's default stays
 * offered, as a note without a language is one every engine takes. While the models are unknown,
 * or the model takes any language, every language the page knows is offered.
 */
function offerLanguages() {
  const wanted = ui.language.dataset.wanted ?? ui.language.value;
  const model = models.find((m) => m.id === ui.model.value) ?? models[0];
  const offered =
    model?.languages == null
      ? ALL_LANGUAGES
      : [ALL_LANGUAGES[0], ...model.languages.map((code) => ({code, name: languageName(code)}))];
  ui.language.replaceChildren(...offered.map(({code, name}) => new Option(name, code)));
  ui.language.value = offered.some(({code}) => code === wanted) ? wanted : '';
}

/** A language's name: the page's own, else the browser's, else its code. */
function languageName(code) {
  const known = ALL_LANGUAGES.find((language) => language.code === code);
  if (known) {
    return known.name;
  }
  try {
    return new Intl.DisplayNames(['en'], {type: 'language'}).of(code) ?? code;
  } catch (e) {
    return code; // Not a code the browser knows.
  }
}

ui.token.addEventListener('change', () => {
  if (token()) {
    localStorage.setItem(TOKEN_KEY, token());
  } else {
    localStorage.removeItem(TOKEN_KEY);
  }
  loadModels();
});

ui.forget.addEventListener('click', () => {
  localStorage.removeItem(TOKEN_KEY);
  ui.token.value = '';
  ui.model.replaceChildren(new Option("The engine's default", ''));
  models = [];
  offerLanguages();
  say('idle', 'Token forgotten: this browser no longer keeps it. Paste a token to record again.');
  ui.token.focus();
});

// Another model may speak other languages; what the person chose is what the page keeps to.
ui.model.addEventListener('change', offerLanguages);
ui.language.addEventListener('change', () => (ui.language.dataset.wanted = ui.language.value));

for (const select of [ui.language, ui.model, ui.format]) {
  select.addEventListener('change', saveSettings);
}

// ---- recording ----

ui.record.addEventListener('click', async () => {
  if (recording || upload) {
    return;
  }
  if (!token()) {
    say('error', 'No device token: paste the token of this device in Settings first.');
    ui.token.focus();
    return;
  }
  if (!canRecord) {
    say(
      'error',
      window.isSecureContext
        ? 'This browser cannot record: open the page in a current browser.'
        : NOT_SECURE,
    );
    return;
  }
  setButtons({record: false, stop: false, cancel: false});
  say('starting', 'Starting the microphone…');
  let started;
  try {
    started = await startRecording({onLevel: (rms) => (ui.level.value = levelOf(rms))});
  } catch (e) {
    setButtons({record: true, stop: false, cancel: false});
    say('error', microphoneAdvice(e));
    return;
  }
  const since = performance.now();
  recording = started;
  ui.elapsed.textContent = '0:00';
  tick = setInterval(() => (ui.elapsed.textContent = clock(performance.now() - since)), 250);
  setButtons({record: false, stop: true, cancel: true});
  ui.stop.focus();
  say('recording', 'Recording. Press "Stop and send" to send the note, or Cancel to drop it.');
});

/** RMS as a meter reading: -60 dBFS and below is 0, full scale is 1. */
function levelOf(rms) {
  const db = 20 * Math.log10(Math.max(rms, 1e-6));
  return Math.max(0, Math.min(1, (db + 60) / 60));
}

function microphoneAdvice(error) {
  switch (error?.name) {
    case 'NotAllowedError':
      return 'The microphone is blocked for this page. Allow it in the browser\'s site settings, then press Record again.';
    case 'NotFoundError':
      return 'No microphone was found. Connect one, then press Record again.';
    case 'NotReadableError':
      return 'The microphone is in use by another program or failed. Close that program, then press Record again.';
    default:
      return `The microphone could not start (${error?.message ?? error}). Reload the page and try again.`;
  }
}

function endRecording() {
  clearInterval(tick);
  tick = null;
  ui.level.value = 0;
  recording = null;
}

ui.stop.addEventListener('click', async () => {
  if (!recording) {
    return;
  }
  const active = recording;
  setButtons({record: false, stop: false, cancel: false});
  say('encoding', 'Preparing the note…');
  const {samples, heard} = await active.stop();
  endRecording();
  const kept = trimTrailingSilence(samples);
  if (!heard || kept.length === 0) {
    setButtons({record: true, stop: false, cancel: false});
    say(
      'error',
      'Nothing was heard: the microphone gave only silence. Check that the right microphone is selected and not muted, then record again.',
    );
    ui.record.focus();
    return;
  }
  const note = await newNote(kept);
  addToList(note);
  await send(note);
});

ui.cancel.addEventListener('click', () => {
  if (recording) {
    recording.cancel();
    endRecording();
    setButtons({record: true, stop: false, cancel: false});
    say('cancelled', 'Recording cancelled: nothing was sent.');
    ui.record.focus();
    return;
  }
  if (upload) {
    // A cancel is final: the attempt in flight is aborted and no attempt starts after it.
    upload.abort();
  }
});

// ---- a note and its upload ----

let noteCount = 0;

async function newNote(samples) {
  return {
    number: ++noteCount,
    // One Idempotency-Key per note, kept for all its attempts and a later "Send again".
    key: crypto.randomUUID(),
    wav: encodeWav(samples),
    durationMs: durationMs(samples),
    settings: settings(),
    recordedAt: new Date(),
    state: 'sending',
    attempts: 0,
    // Whether an upload of it was started: a later one asks the gateway for its transcript first.
    sent: false,
    resumes: 0,
    text: '',
    item: null,
  };
}

async function send(note) {
  const controller = new AbortController();
  upload = controller;
  setButtons({record: false, stop: false, cancel: true});
  ui.cancel.focus();
  note.state = 'sending';
  renderNote(note);
  const max = STANDARD_POLICY.maxAttempts;
  let prefix = '';
  let shownPercent = -1;
  const sentBefore = note.sent;
  note.sent = true;
  try {
    const transcript = await clientFor(token()).transcribe(note.wav, {
      language: note.settings.language,
      model: note.settings.model,
      format: note.settings.response_format,
      durationMs: note.durationMs,
      idempotencyKey: note.key,
      sentBefore,
      signal: controller.signal,
      onAttempt(event) {
        note.attempts = event.attempt;
        prefix =
          event.reason == null
            ? ''
            : `Attempt ${event.attempt} of ${max} because ${reasonOf(event.reason)}: `;
        shownPercent = -1;
        say('uploading', `${prefix}uploading 0 %.`);
      },
      onPause(event) {
        const seconds = Math.max(1, Math.round(event.waitMs / 1000));
        say(
          'waiting-to-resend',
          `Attempt ${event.attempt} of ${max} in ${seconds} s because ${reasonOf(event.reason)}.`,
        );
      },
      onProgress(progress) {
        if (progress.phase === 'looking-up') {
          say('waiting', `${prefix}asking the gateway whether it has the transcript already.`);
        } else if (progress.phase === 'transcribing') {
          const done = Math.floor(progress.secondsDone);
          const total = Math.round(progress.secondsTotal);
          say('waiting', `${prefix}uploaded; the gateway has transcribed ${done} s of ${total} s.`);
        } else if (progress.resumed) {
          note.resumes++;
          shownPercent = Math.floor((progress.sentBytes / progress.totalBytes) * 10) * 10;
          say(
            'uploading',
            `${prefix}the connection broke; the gateway kept ${shownPercent} %, sending the rest.`,
          );
        } else if (progress.sentBytes >= progress.totalBytes) {
          say('waiting', `${prefix}uploaded; waiting for the transcript.`);
        } else {
          // Whole tens only: a screen reader reads every change of a live region.
          const percent = Math.floor((progress.sentBytes / progress.totalBytes) * 10) * 10;
          if (percent !== shownPercent) {
            shownPercent = percent;
            say('uploading', `${prefix}uploading ${percent} %.`);
          }
        }
      },
    });
    finish(note, transcript, null);
  } catch (error) {
    finish(note, null, error);
  } finally {
    upload = null;
    setButtons({record: true, stop: false, cancel: false});
  }
}

/** The note's end: its transcript, or the client's BoloError (a cancel among them). */
function finish(note, transcript, error) {
  if (transcript) {
    note.state = transcript.replayed ? 'replayed' : 'done';
    note.text = transcript.text;
    note.wav = null; // Done: nothing more to send.
    ui.transcript.textContent = transcript.text;
    ui.copy.disabled = transcript.text === '';
    say(
      note.state,
      transcript.replayed
        ? 'Done, replayed: the gateway had already transcribed this note and answered from its memory, without charging it again.'
        : 'Done.',
    );
  } else if (error.code === 'cancelled') {
    note.attempts = error.attempts;
    note.state = 'cancelled';
    say('cancelled', 'Cancelled: nothing more is sent for this note.');
  } else if (error.reason == null) {
    // Not the gateway's answer: the page itself could not send the note.
    note.state = 'failed';
    say('error', `The note could not be sent: ${error.message}.`);
  } else if (!error.retryable) {
    note.attempts = error.attempts;
    note.state = 'failed';
    say('error', adviceFor(error.reason));
  } else {
    note.attempts = error.attempts;
    note.state = 'failed';
    say(
      'error',
      `The gateway could not transcribe the note in ${error.attempts} attempts; the last failed because ${reasonOf(error.reason)}. The recording is kept: press "Send again" in the list of notes to try later.`,
    );
  }
  ui.record.focus();
  renderNote(note);
}

// ---- the session's notes ----

const STATE_WORDS = {
  sending: 'sending',
  done: 'done',
  replayed: 'done, replayed',
  cancelled: 'cancelled',
  failed: 'not transcribed',
};

function addToList(note) {
  note.item = document.createElement('li');
  ui.notes.prepend(note.item);
  ui.noNotes.hidden = true;
}

function renderNote(note) {
  const meta = document.createElement('span');
  meta.className = 'meta';
  const attempts = note.attempts === 1 ? '1 attempt' : `${note.attempts} attempts`;
  const resumes =
    note.resumes === 0
      ? ''
      : note.resumes === 1
        ? ', resumed once'
        : `, resumed ${note.resumes} times`;
  meta.textContent =
    `Note ${note.number}, ${note.recordedAt.toLocaleTimeString()}, ` +
    `${(note.durationMs / 1000).toFixed(1)} s: ${STATE_WORDS[note.state]}` +
    (note.state === 'sending' ? '' : ` (${attempts}${resumes})`);
  const parts = [meta];
  if (note.text) {
    const text = document.createElement('q');
    text.textContent = note.text;
    parts.push(document.createTextNode(' '), text);
  }
  if ((note.state === 'failed' || note.state === 'cancelled') && note.wav) {
    const again = document.createElement('button');
    again.type = 'button';
    again.textContent = 'Send again';
    again.setAttribute('aria-label', `Send note ${note.number} again`);
    again.addEventListener('click', () => {
      if (!recording && !upload) {
        send(note);
      }
    });
    parts.push(document.createTextNode(' '), again);
  }
  note.item.replaceChildren(...parts);
}

// ---- the transcript ----

ui.copy.addEventListener('click', async () => {
  const text = ui.transcript.textContent;
  try {
    await navigator.clipboard.writeText(text);
    ui.copyResult.textContent = 'Copied.';
  } catch (e) {
    // Without the clipboard API (plain HTTP): select the text so the person can copy it.
    const range = document.createRange();
    range.selectNodeContents(ui.transcript);
    const selection = getSelection();
    selection.removeAllRanges();
    selection.addRange(range);
    ui.copyResult.textContent = 'Selected: press Ctrl+C (or ⌘C) to copy.';
  }
});

restore();
const received = receiveToken(takeTokenFromAddress());
if (token()) {
  sayReady(received ? 'Token received and kept in this browser. ' : '');
  loadModels();
} else if (!canRecord) {
  sayReady();
}

// A link opened in the page's own tab changes only the fragment: the page is not loaded again.
window.addEventListener('hashchange', () => {
  if (receiveToken(takeTokenFromAddress())) {
    sayReady('Token received and kept in this browser. ');
    loadModels();
  }
});
