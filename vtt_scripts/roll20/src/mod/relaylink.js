'use strict';
// The Mod script's end of the browser relay (the sandbox cannot open a socket).
//
// Out: a JSON-RPC request to `fracas serve`, cut into FRACAS1 frames and whispered
// to the GM with noarchive, where the relay extension in the GM's browser reads
// them. In: `!fracas-relay FRACAS1 res …` commands the relay types into chat.
// The JSON-RPC id is the idempotency key end to end: the bridge answers a repeated
// id from its journal, and this file applies an id's answer once.

const protocol = require('../protocol');
const bigjson = require('../bigjson');
const cards = require('./cards');
const esc = require('./escape');
const store = require('./store');
const { UsageError } = require('./usage');

const MAX_PENDING = 20;
const HANDLERS = {}; // method → function(app, pending, result)
const ERROR_HANDLERS = {}; // method → function(app, pending, error, id): the bridge's refusal told its own way

/** The answer handler of `method`; `onError`, when given, tells the GM a JSON-RPC error of it. */
function register(method, handler, onError) {
  HANDLERS[method] = handler;
  if (onError) ERROR_HANDLERS[method] = onError;
}

function reassembler(app) {
  if (!app.reassembler) app.reassembler = new protocol.Reassembler({ maxPending: 50, maxDone: 500 });
  return app.reassembler;
}

function post(app, id, text) {
  const config = app.s().config;
  const frames = protocol.frames('req', id, text, config.relay_chunk, secretOf(app));
  frames.forEach((frame, i) => {
    // The visible line says what it is; the frame itself is hidden where Roll20 keeps the style.
    app.edge.whisper('gm', `<div style="color:#888;font-size:80%">fracas → relay ${esc.text(id)} ` +
      `(${i + 1}/${frames.length})<span style="display:none">${frame}</span></div>`, { noarchive: true });
  });
  return frames.length;
}

/** The campaign's relay secret (64 hex digits), made once from Roll20's dice. */
function secretOf(app) {
  const relay = app.s().relay;
  if (!/^[0-9a-f]{64}$/.test(relay.secret || '')) {
    let secret = '';
    for (let i = 0; i < 16; i++) secret += (app.edge.randomInteger(65536) - 1).toString(16).padStart(4, '0');
    relay.secret = secret;
    relay.secret_shown = false;
  }
  return relay.secret;
}

/** Whisper the secret to the GM (once on its own; again with !fracas relay --secret). */
function showSecret(app, playerId = 'gm') {
  const secret = secretOf(app);
  app.s().relay.secret_shown = true;
  app.whisper(playerId, cards.notice('fracas relay secret', [
    'Paste this into the fracas relay extension (its popup, "Relay secret"). It signs every relay message, so ' +
    'nobody else (players, other scripts, web pages) can send the bridge a request or apply an answer.',
    `<code>${esc.text(secret)}</code>`,
    `A new secret: ${esc.button('new secret', '!fracas relay --new-secret')} (the relay must then be given it).`,
  ]));
}

/** The pending request `id`, an own entry only: ids come from chat ("toString" is not one). */
function pendingOf(s, id) {
  return typeof id === 'string' && Object.prototype.hasOwnProperty.call(s.relay.pending, id) ? s.relay.pending[id] : undefined;
}

function armTimeout(app, id) {
  const seconds = app.s().config.relay_timeout;
  const previous = app.timers.get(id);
  if (previous !== undefined) app.edge.clearTimeout(previous);
  app.timers.set(id, app.edge.setTimeout(() => app.guard(null, () => {
    app.timers.delete(id);
    if (!pendingOf(app.s(), id)) return;
    app.whisper('gm', cards.notice('fracas: no answer from the relay', [
      `Request ${esc.text(id)} has had no answer for ${seconds} s. Is the fracas relay extension on in this tab, ` +
      'and is fracas serve running? A late answer is still applied once.',
      esc.button('resend', `!fracas resend ${id}`),
    ], 'error'));
  }), seconds * 1000));
}

/** Send a JSON-RPC request through the relay; `meta` is kept to apply the answer. */
function send(app, method, params, meta, idPrefix = 'r20') {
  const s = app.s();
  const ids = Object.keys(s.relay.pending);
  if (ids.length >= MAX_PENDING) {
    throw new UsageError(`${ids.length} relay requests are still unanswered: check the relay (!fracas relay)`);
  }
  const id = app.newId(idPrefix);
  const text = bigjson.stringify({ jsonrpc: '2.0', id, method, params });
  s.relay.pending[id] = { method, time: app.edge.now(), meta, text };
  const frames = post(app, id, text);
  armTimeout(app, id);
  return { id, frames };
}

/** `!fracas-relay FRACAS1 …`: a frame from the relay. */
function incoming(app, msg) {
  // Only the GM's browser relays: not a player, and not another Mod script (whose
  // messages come from 'API', never the GM's here, whatever --trust-scripts says).
  if (msg.playerid === 'API' || !app.edge.isGM(msg.playerid)) return;
  const frame = protocol.parseFrame(msg.content);
  if (!frame || frame.kind === 'req') return;
  if (!protocol.verify(frame, secretOf(app))) {
    app.edge.log(`relay frame ${frame.id} ignored: not signed with this campaign's relay secret`);
    return;
  }
  const now = app.edge.now();
  const r = reassembler(app);
  r.expire(now, 10 * 60 * 1000);
  let whole;
  try {
    whole = r.add(frame, now);
  } catch (err) {
    app.edge.log(`relay frame ${frame.id} could not be decoded: ${err.message}`);
    return;
  }
  if (!whole) return;
  let message;
  try {
    message = bigjson.parse(whole.text);
  } catch (err) {
    app.edge.log(`relay message ${whole.id} is not JSON: ${err.message}`);
    return;
  }
  if (whole.kind === 'hello') hello(app, message);
  else answer(app, whole.id, message);
}

function hello(app, info) {
  const s = app.s();
  const first = !s.relay.last_hello;
  s.relay.last_hello = { time: app.edge.now(), bridge: String(info && info.bridge || ''), version: String(info && info.version || '') };
  const pending = Object.keys(s.relay.pending);
  const lines = [`relay connected to ${esc.text(s.relay.last_hello.bridge || 'the bridge')}` +
    (s.relay.last_hello.version ? ` (fracas ${esc.text(s.relay.last_hello.version)})` : '')];
  if (pending.length) {
    lines.push(`waiting: ${pending.map((id) => esc.button(`resend ${id}`, `!fracas resend ${id}`)).join(' ')}`);
  }
  if (first || pending.length) app.whisper('gm', cards.notice('fracas relay', lines));
}

function answer(app, id, message) {
  const s = app.s();
  const pending = pendingOf(s, id);
  if (!pending) {
    if (!s.relay.applied.includes(id)) app.edge.log(`relay answer for unknown request ${id} ignored`);
    return; // already applied (a resend, a replayed chat): never twice
  }
  delete s.relay.pending[id];
  store.markApplied(s, id);
  const timer = app.timers.get(id);
  if (timer !== undefined) {
    app.edge.clearTimeout(timer);
    app.timers.delete(id);
  }
  if (!message || typeof message !== 'object' || message.id !== id) {
    app.error(null, `the relay answered request ${id} with something that is not its JSON-RPC reply`);
    return;
  }
  if (message.error) {
    const e = message.error;
    if (ERROR_HANDLERS[pending.method] && e && typeof e === 'object') {
      ERROR_HANDLERS[pending.method](app, pending, e, id);
      return;
    }
    const where = e.data && e.data.path ? ` at ${e.data.path}` : '';
    app.error(null, `the bridge refused request ${id}${where}: ${e.message || 'error'} (code ${e.code})`);
    return;
  }
  const handler = HANDLERS[pending.method];
  if (!handler) {
    app.edge.log(`no handler for ${pending.method}`);
    return;
  }
  handler(app, pending, message.result, id);
}

function statusCommand(app, msg, cmd) {
  const s = app.s();
  const options = (cmd && cmd.options) || [];
  for (const option of options) {
    if (option.name === 'secret') return showSecret(app, msg.playerid);
    if (option.name === 'new-secret') {
      s.relay.secret = null;
      return showSecret(app, msg.playerid);
    }
    throw new UsageError(`!fracas relay does not know --${option.name} (--secret, --new-secret)`);
  }
  const h = s.relay.last_hello;
  const pending = Object.keys(s.relay.pending);
  const lines = [h
    ? `last hello: ${Math.round((app.edge.now() - h.time) / 1000)} s ago from ${esc.text(h.bridge || 'the bridge')}`
    : 'the relay has not said hello since these settings were made: is the fracas relay extension on in the GM tab, ' +
      'with the bridge URL, token and relay secret (!fracas relay --secret) set in its popup?'];
  lines.push(pending.length
    ? `waiting for: ${pending.map((id) => `${esc.text(id)} (${esc.text(s.relay.pending[id].method)}) ${esc.button('resend', `!fracas resend ${id}`)}`).join(', ')}`
    : 'nothing waiting');
  app.whisper(msg.playerid, cards.notice('fracas relay', lines));
}

function resendCommand(app, msg, cmd) {
  const id = cmd.positional[0];
  const pending = pendingOf(app.s(), id);
  if (!pending) throw new UsageError(id ? `request "${id}" is not waiting for an answer` : '!fracas resend needs a request id');
  // The same id: the bridge answers from its journal if it already rolled.
  const frames = post(app, id, pending.text);
  armTimeout(app, id);
  app.whisper(msg.playerid, cards.notice('fracas relay', [`request ${esc.text(id)} sent again (${frames} frame${frames === 1 ? '' : 's'})`]));
}

function journalCommand(app, msg, cmd, method) {
  const id = cmd.positional[0];
  if (!id) throw new UsageError(`!fracas ${method === 'journal.get' ? 'journal' : 'replay'} needs a request id`);
  const sent = send(app, method, { id }, { requested: id });
  app.whisper(msg.playerid, cards.notice('fracas relay', [`asked the bridge for ${esc.text(id)} (${esc.text(sent.id)})`]));
}

function showJournal(app, pending, result) {
  const lines = [];
  if (pending.method === 'journal.replay') {
    lines.push(result && result.matches ? '✓ the replay matches the journaled result'
      : `✗ the replay differs: ${esc.text(JSON.stringify((result && result.differences) || []).slice(0, 500))}`);
  }
  lines.push(`<div style="font-family:monospace;white-space:pre-wrap;word-break:break-all">${esc.text(bigjson.stringify(result, 1).slice(0, 6000))}</div>`);
  app.whisper('gm', cards.notice(`fracas ${pending.method} ${pending.meta.requested}`, lines));
}

register('journal.get', showJournal);
register('journal.replay', showJournal);

/** The bridge methods the Mod sends through the relay (those it has an answer handler for). */
function methods() {
  return Object.keys(HANDLERS).sort();
}

module.exports = {
  methods, send, incoming, register, statusCommand, resendCommand, journalCommand, secretOf, showSecret, MAX_PENDING,
};
